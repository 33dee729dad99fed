// Bit-exact host conversions between double and f16 / bf16 / e4m3 / e5m2.
#include "harness/harness.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <bit>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fnmatch.h>
#include <limits>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace loom::harness {

// =============================================================================================
// Host conversions


namespace {

// Round |x| (given as the bits of a finite, non-negative double) to nearest even in a binary format
// with `mbits` stored significand bits and minimum normal exponent emin; returns the format's bit
// pattern without sign, or `inf` when it overflows (emax is where the exponent field saturates).
std::uint32_t round_bits(std::uint64_t a, int mbits, int emin, int emax, std::uint32_t inf) {
  int const e = int(a >> 52) - 1023;
  if (e > emax) return inf;
  if (e < emin - mbits - 1) return 0;  // below half the smallest subnormal (double subnormals too)
  std::uint64_t const mant = (a & ((std::uint64_t(1) << 52) - 1)) | (std::uint64_t(1) << 52);
  int const shift = 52 - mbits + (e < emin ? emin - e : 0);  // in [52 - mbits, 53]
  std::uint64_t q = mant >> shift;
  std::uint64_t const rem = mant & ((std::uint64_t(1) << shift) - 1), half = std::uint64_t(1) << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  // Normal: q includes the implicit bit, which adds one to the biased exponent; a carry out of the
  // significand moves into the exponent (and up to infinity) by itself. Subnormal: q is the field.
  if (e < emin) return std::uint32_t(q);
  return std::uint32_t((std::uint64_t(e - emin) << mbits) + q);
}

std::array<double, 65536> const& f16_table() {
  static std::array<double, 65536> const t = [] {
    std::array<double, 65536> v{};
    for (std::uint32_t b = 0; b < 65536; ++b) {
      double const sign = (b & 0x8000) ? -1.0 : 1.0;
      int const exp = (b >> 10) & 0x1F;
      int const mant = b & 0x3FF;
      if (exp == 0) v[b] = sign * std::ldexp(double(mant), -24);
      else if (exp == 31) v[b] = mant ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
      else v[b] = sign * std::ldexp(double(1024 + mant), exp - 25);
    }
    return v;
  }();
  return t;
}

}  // namespace

double f16_to_double(std::uint16_t bits) { return f16_table()[bits]; }

double bf16_to_double(std::uint16_t bits) {
  return double(std::bit_cast<float>(std::uint32_t(bits) << 16));
}

std::uint16_t double_to_f16(double x) {
  std::uint64_t const u = std::bit_cast<std::uint64_t>(x);
  auto const sign = std::uint16_t((u >> 48) & 0x8000);
  std::uint64_t const a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return sign | 0x7E00;  // NaN
  if (a == 0x7FF0000000000000ull) return sign | 0x7C00;
  return sign | std::uint16_t(round_bits(a, 10, -14, 15, 0x7C00));
}

std::uint16_t double_to_bf16(double x) {
  std::uint64_t const u = std::bit_cast<std::uint64_t>(x);
  auto const sign = std::uint16_t((u >> 48) & 0x8000);
  std::uint64_t const a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return sign | 0x7FC0;  // NaN
  if (a == 0x7FF0000000000000ull) return sign | 0x7F80;
  return sign | std::uint16_t(round_bits(a, 7, -126, 127, 0x7F80));
}

// The 8-bit formats (OCP 8-bit floating point, as Hopper's wgmma reads them): e4m3 is E4M3FN
// (bias 7, no infinities, S.1111.111 the only NaN, largest finite 448), e5m2 is IEEE-like (bias 15,
// infinities, largest finite 57344).
double e4m3_to_double(std::uint8_t bits) {
  double const sign = (bits & 0x80) ? -1.0 : 1.0;
  int const exp = (bits >> 3) & 0xF, mant = bits & 0x7;
  if (exp == 0xF && mant == 0x7) return std::numeric_limits<double>::quiet_NaN();
  if (exp == 0) return sign * std::ldexp(double(mant), -9);  // subnormal: mant x 2^-6 / 8
  return sign * std::ldexp(double(8 + mant), exp - 10);
}

double e5m2_to_double(std::uint8_t bits) {
  double const sign = (bits & 0x80) ? -1.0 : 1.0;
  int const exp = (bits >> 2) & 0x1F, mant = bits & 0x3;
  if (exp == 0x1F) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  if (exp == 0) return sign * std::ldexp(double(mant), -16);  // subnormal: mant x 2^-14 / 4
  return sign * std::ldexp(double(4 + mant), exp - 17);
}

std::uint8_t double_to_e4m3(double x, bool saturate) {
  std::uint64_t const u = std::bit_cast<std::uint64_t>(x);
  auto const sign = std::uint8_t((u >> 56) & 0x80);
  std::uint64_t const a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return sign | 0x7F;  // NaN
  // Exponent field 15 holds 256-448 (mantissa 111 is the NaN): a rounding to 0x7F or beyond
  // overflows. round_bits gives 0x80 for what is past its exponent range.
  std::uint32_t const q = a == 0x7FF0000000000000ull ? 0x80 : round_bits(a, 3, -6, 8, 0x80);
  if (q >= 0x7F) return sign | (saturate ? 0x7E : 0x7F);
  return sign | std::uint8_t(q);
}

std::uint8_t double_to_e5m2(double x, bool saturate) {
  std::uint64_t const u = std::bit_cast<std::uint64_t>(x);
  auto const sign = std::uint8_t((u >> 56) & 0x80);
  std::uint64_t const a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return sign | 0x7E;  // NaN
  if (a == 0x7FF0000000000000ull) return sign | (saturate ? 0x7B : 0x7C);
  std::uint32_t const q = round_bits(a, 2, -14, 15, 0x7C);
  if (q >= 0x7C) return sign | (saturate ? 0x7B : 0x7C);
  return sign | std::uint8_t(q);
}

double round_to(DType t, double x) {
  switch (t) {
    case DType::f32: return double(float(x));
    case DType::f16: return f16_to_double(double_to_f16(x));
    case DType::bf16: return bf16_to_double(double_to_bf16(x));
    // Not saturating, as the 16-bit conversions overflow to infinity: past the largest finite value
    // e4m3 gives its NaN (it has no infinity), e5m2 infinity.
    case DType::e4m3: return e4m3_to_double(double_to_e4m3(x, false));
    case DType::e5m2: return e5m2_to_double(double_to_e5m2(x, false));
  }
  return x;
}

double unit_roundoff(DType t) {
  switch (t) {
    case DType::f32: return std::ldexp(1.0, -24);
    case DType::f16: return std::ldexp(1.0, -11);
    case DType::bf16: return std::ldexp(1.0, -8);
    case DType::e4m3: return std::ldexp(1.0, -4);
    case DType::e5m2: return std::ldexp(1.0, -3);
  }
  return 0;
}

}  // namespace loom::harness
