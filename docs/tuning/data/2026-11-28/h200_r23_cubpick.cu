// cuBLAS's kernel for bf16 rcr problems (Loom's orientation: A row-major M x K, B N x K, D row-major M x N).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#define CK(x) do { auto e = (x); if (e != 0) { std::printf("error %d at %s:%d\n", int(e), __FILE__, __LINE__); std::exit(1); } } while (0)
int main(int argc, char** argv) {
  cublasHandle_t h; CK(cublasCreate(&h));
  void *a, *b, *d;
  CK(cudaMalloc(&a, 1 << 28)); CK(cudaMalloc(&b, 1 << 28)); CK(cudaMalloc(&d, 1 << 28));
  CK(cudaMemset(a, 0, 1 << 28)); CK(cudaMemset(b, 0, 1 << 28));
  void* ws; CK(cudaMalloc(&ws, 32 << 20)); CK(cublasSetWorkspace(h, ws, 32 << 20));
  float alpha = 1, beta = 0;
  for (int i = 1; i + 2 < argc; i += 3) {
    int m = std::atoi(argv[i]), n = std::atoi(argv[i + 1]), k = std::atoi(argv[i + 2]);
    for (int rep = 0; rep < 2; ++rep)
      CK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16BF, k, a, CUDA_R_16BF, k, &beta, d, CUDA_R_16BF, n,
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CK(cudaDeviceSynchronize());
    std::printf("done %dx%dx%d\n", m, n, k);
  }
}
