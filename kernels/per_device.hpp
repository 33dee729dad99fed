// Work a launcher does once per GPU (a kernel's dynamic shared-memory attribute): a kernel's
// function attributes belong to the device's context, so a process that drives several GPUs must set
// them on each. A call site keeps one bit per device in a static word; threads that race on a first
// call both do the (idempotent) work.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

namespace loom {

// Runs f() unless an earlier call of this site on the current device succeeded; returns f()'s error
// (or cudaGetDevice's). Devices past the 64th run f() every time.
template <class F>
cudaError_t once_per_device(std::atomic<std::uint64_t>& done, F&& f) {
  int dev = 0;
  if (cudaError_t const e = cudaGetDevice(&dev); e != cudaSuccess) return e;
  std::uint64_t const bit = dev >= 0 && dev < 64 ? std::uint64_t(1) << dev : 0;
  if (bit != 0 && (done.load(std::memory_order_acquire) & bit) != 0) return cudaSuccess;
  cudaError_t const e = f();
  if (e == cudaSuccess && bit != 0) done.fetch_or(bit, std::memory_order_acq_rel);
  return e;
}

// The current device's SM count, read once per device (132, an H100's and an H200's, where it
// cannot be read: a launcher's choice of grid, not its correctness, depends on it).
inline int device_sm_count() {
  static std::atomic<int> cached[64] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 132;
  int n = cached[dev].load(std::memory_order_relaxed);
  if (n == 0) {
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) n = 132;
    cached[dev].store(n, std::memory_order_relaxed);
  }
  return n;
}

}  // namespace loom
