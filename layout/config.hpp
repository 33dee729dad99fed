// Loom layout core: configuration shared by host (g++) and device (nvcc) code.
#pragma once

#include <type_traits>

#if defined(__CUDACC__)
#define LOOM_HD __host__ __device__
#define LOOM_DEVICE __device__
#else
#define LOOM_HD
#define LOOM_DEVICE
#endif

// Loops over the nodes of a layout: unrolled in device code, so that a layout known at compile
// time folds to constants.
#if defined(__CUDA_ARCH__)
#define LOOM_UNROLL _Pragma("unroll")
#else
#define LOOM_UNROLL
#endif

#if !defined(__CUDA_ARCH__)
#include <stdexcept>
#include <string>
#endif

namespace loom {

using i64 = long long;

#if !defined(__CUDA_ARCH__)
// Every violated precondition of the algebra on the host lands here, so that tools can turn it into
// a one-line message instead of a crash.
struct LayoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
#endif

// Deliberately not constexpr: reaching it during constant evaluation is a compile error, which is
// how a static layout that breaks a divisibility rule is rejected at build time.
[[noreturn]] LOOM_HD inline void fail(const char* what) {
#if defined(__CUDA_ARCH__)
  (void)what;
  __trap();
  __builtin_unreachable();
#else
  throw LayoutError(what);
#endif
}

}  // namespace loom

#define LOOM_REQUIRE(cond, msg)  \
  do {                           \
    if (!(cond)) ::loom::fail(msg); \
  } while (0)
