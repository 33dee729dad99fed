// Which SM each CTA of a cluster launch lands on (one CTA an SM, as sm90's GEMM: 200 KB of smem).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
__global__ void probe(int* out) {
  unsigned smid, cid, rank;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) { out[blockIdx.x * 3] = smid; out[blockIdx.x * 3 + 1] = cid; out[blockIdx.x * 3 + 2] = rank; }
  long long t0 = clock64();
  while (clock64() - t0 < 4000000) {}
}
int main() {
  int smem = 200 * 1024;
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  int* d; cudaMalloc(&d, 4096 * 3 * sizeof(int));
  for (int c : {1, 2, 3, 4, 6, 8, 16}) {
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = c; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
    cfg.attrs = at; cfg.numAttrs = 1;
    cfg.blockDim = dim3(384); cfg.dynamicSmemBytes = smem;
    cfg.gridDim = dim3(c);
    int n = 0;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, probe, &cfg);
    if (e != cudaSuccess || n == 0) { printf("c=%d occupancy error %s\n", c, cudaGetErrorString(e)); cudaGetLastError(); continue; }
    cfg.gridDim = dim3(n * c);
    for (int rep = 0; rep < 2; ++rep) {
      e = cudaLaunchKernelEx(&cfg, probe, d);
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e != cudaSuccess) { printf("c=%d launch error %s\n", c, cudaGetErrorString(e)); cudaGetLastError(); break; }
      std::vector<int> h(n * c * 3);
      cudaMemcpy(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost);
      printf("c=%d clusters=%d rep=%d\n", c, n, rep);
      for (int b = 0; b < n * c; ++b) printf("%d %d %d %d %d\n", c, b, h[b * 3], h[b * 3 + 1], h[b * 3 + 2]);
    }
  }
  return 0;
}
