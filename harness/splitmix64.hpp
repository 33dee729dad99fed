// splitmix64, the one copy: the random fills of the harness (host) and of loom-bench (device), the
// per-case seeds, and the layout tests' generator. Host and device alike, so that a .cu file may
// call it from a kernel.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define LOOM_HOST_DEVICE __host__ __device__
#else
#define LOOM_HOST_DEVICE
#endif

namespace loom {

// splitmix64's finalizer: a bijective mix of all 64 bits.
LOOM_HOST_DEVICE constexpr std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The output for state x: the finalizer of x plus the golden-ratio increment. A generator steps
// its state by that increment and returns mix64(state), which is splitmix64(state before).
LOOM_HOST_DEVICE constexpr std::uint64_t splitmix64(std::uint64_t x) { return mix64(x + 0x9E3779B97F4A7C15ull); }

}  // namespace loom
