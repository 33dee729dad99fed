// Device-side helpers of loom-bench: the L2 flush between timed launches and a fast random fill.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/registry.hpp"

namespace loom::bench {

// Evicts the L2 cache by reading a buffer twice its size. A read leaves clean lines behind, so
// the next timed launch does not pay for writing back dirty lines left by the flush (a cudaMemset
// flush would leave up to a whole L2 of them). Dirty lines of the previous timed launch are
// written back during the flush, outside the timed region.
class L2Flusher {
 public:
  // Allocates (and zeroes) bytes_for(l2_bytes). Throws loom::harness::Error on failure.
  L2Flusher(std::size_t l2_bytes, int sm_count);
  // 2 * l2_bytes, at least 1 MiB, rounded up to 16 bytes.
  static std::size_t bytes_for(std::size_t l2_bytes);
  ~L2Flusher();
  L2Flusher(L2Flusher const&) = delete;
  L2Flusher& operator=(L2Flusher const&) = delete;

  // Enqueues the flush on `stream`; returns the launch error, if any.
  cudaError_t flush(cudaStream_t stream);
  std::size_t bytes() const { return bytes_; }

 private:
  void* buf_ = nullptr;
  unsigned* sink_ = nullptr;
  std::size_t bytes_ = 0;
  int blocks_ = 0;
};

// `count` consecutive elements of `dtype` at `data` (padding included, if the range covers it),
// on the same grid as harness::fill_random: k * 2^-b with k in [-2^b, 2^b], b = 23 for f32, 11
// for f16, 8 for bf16, never zero (k = 0 gives 0.5); e4m3 and e5m2 the f32 grid's value rounded to
// the format (0.5 where it rounds to 0). The values are not fill_random's: element i
// is indexed by its offset from `data` (storage order, not logical column-major), and k is the
// same per-index splitmix64 hash reduced modulo 2^(b+1) + 1 rather than by fill_random's
// multiply-high, so the same seed gives different numbers. Generated on the device because
// harness::fill_random goes through the host (seconds per GiB, too slow for 1 GiB operands).
// Deterministic in (dtype, seed, offset). Returns the launch error, if any.
cudaError_t fill_random_device(void* data, DType dtype, std::int64_t count, std::uint64_t seed,
                               cudaStream_t stream);

}  // namespace loom::bench
