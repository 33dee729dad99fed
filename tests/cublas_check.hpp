// What the GPU tests of gemm through the harness share: a kernel's D set against cuBLAS's.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "harness/harness.hpp"

namespace loom::test {

// D of `p` in `buf` against cuBLAS's D of the same operands (reference_cublas, into a buffer of its
// own), every element, within the output type's tolerance.
inline harness::ErrorStats compare_with_cublas(Problem const& p, harness::CaseBuffers& buf) {
  cublasHandle_t h = nullptr;
  LOOM_CUBLAS(cublasCreate(&h));
  harness::DeviceMatrix ref(p.out_dtype, p.m, p.n, p.c, p.ldc, 0);
  Operands rops = buf.operands();
  rops.d = ref.data();
  harness::reference_cublas(p, rops, h, nullptr);
  LOOM_CUDA(cudaDeviceSynchronize());
  cublasDestroy(h);
  return harness::compare(harness::to_host(buf.d), harness::to_host(ref), p.out_dtype, p, harness::typical_rms(p));
}

}  // namespace loom::test
