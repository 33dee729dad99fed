// What the GPU tests share: whether a CUDA GPU is present (they report Skipped without one).
#pragma once

#include <cuda_runtime.h>

namespace loom::test {

// True when the runtime sees a CUDA device; the error of a failed query is cleared, so that the
// next CUDA call of a test does not report it.
inline bool have_gpu() {
  int count = 0;
  bool const ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

}  // namespace loom::test
