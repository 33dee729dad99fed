// Loom layout core: configuration shared by host (g++) and device (nvcc) code.
#pragma once

#include <type_traits>

#if defined(__CUDACC__)
#define LOOM_HD __host__ __device__
#else
#define LOOM_HD
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

// Overflow checks. On the host at run time (loom-layout, tests, host set-up) every multiply, add,
// subtract, negation and division of the core goes through these, and a result that does not fit in
// 64 bits is a LayoutError rather than a wrapped value. Two places keep plain arithmetic:
// - device code (__CUDA_ARCH__): its precondition is that the layouts it evaluates were built and
//   checked on the host or at compile time, so no value it computes overflows;
// - constant evaluation: an overflow there is undefined behaviour, which the compiler already
//   rejects, and the constexpr work per operation stays what nvcc's front end can afford (its
//   limit on constexpr call complexity; see layout/README.md).
#if defined(__CUDA_ARCH__)
#define LOOM_CHECKED_ARITHMETIC 0
#else
#define LOOM_CHECKED_ARITHMETIC 1
#endif

inline constexpr char kOverflowMessage[] = "integer overflow: a value does not fit in 64 bits";

#if LOOM_CHECKED_ARITHMETIC
namespace checked {
inline i64 mul(i64 a, i64 b) {
  i64 r;
  if (__builtin_mul_overflow(a, b, &r)) fail(kOverflowMessage);
  return r;
}
inline i64 add(i64 a, i64 b) {
  i64 r;
  if (__builtin_add_overflow(a, b, &r)) fail(kOverflowMessage);
  return r;
}
inline i64 sub(i64 a, i64 b) {
  i64 r;
  if (__builtin_sub_overflow(a, b, &r)) fail(kOverflowMessage);
  return r;
}
// The one quotient that overflows, INT64_MIN / -1, traps on x86 (SIGFPE) instead of wrapping.
inline i64 div(i64 a, i64 b) {
  if (b == -1 && a == -9223372036854775807LL - 1) fail(kOverflowMessage);
  return a / b;
}
inline i64 mod(i64 a, i64 b) { return b == -1 ? 0 : a % b; }
inline i64 neg(i64 a) { return sub(0, a); }
}  // namespace checked
// True where this evaluation runs on the host at run time: the branch that checks.
#define LOOM_RUNTIME_CHECKED() (!__builtin_is_constant_evaluated())
#endif

}  // namespace loom

#define LOOM_REQUIRE(cond, msg)  \
  do {                           \
    if (!(cond)) ::loom::fail(msg); \
  } while (0)
