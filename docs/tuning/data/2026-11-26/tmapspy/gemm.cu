// One cuBLAS bf16 GEMM, Loom's rcr at M x N x K (row-major A (M,K), B stored (N,K), D row-major):
// column-major cuBLAS computes D^T (N,M) = B (N,K) . A^T: opA = T on B's (K,N) storage, opB = N on A's (K,M).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
  __nv_bfloat16 *a, *b, *d;
  cudaMalloc(&a, size_t(M) * K * 2); cudaMalloc(&b, size_t(N) * K * 2); cudaMalloc(&d, size_t(M) * N * 2);
  cudaMemset(a, 0, size_t(M) * K * 2); cudaMemset(b, 0, size_t(N) * K * 2);
  cublasHandle_t h; cublasCreate(&h);
  float alpha = 1, beta = 0;
  for (int i = 0; i < 3; ++i) {
    cublasStatus_t s = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, b, CUDA_R_16BF, K, a, CUDA_R_16BF, K, &beta, d,
                                    CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s) { printf("cublas status %d\n", s); return 1; }
  }
  cudaDeviceSynchronize();
  printf("done %dx%dx%d: %s\n", M, N, K, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
