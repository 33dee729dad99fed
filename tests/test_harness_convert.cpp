// Host f16/bf16/e4m3/e5m2 converters (bit-exact, round to nearest even) and the random input values.
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "harness/harness.hpp"

namespace {

using namespace loom;
using namespace loom::harness;

double const kInf = std::numeric_limits<double>::infinity();

TEST(HarnessConvert, F16ToDouble) {
  EXPECT_EQ(f16_to_double(0x3C00), 1.0);
  EXPECT_EQ(f16_to_double(0xBC00), -1.0);
  EXPECT_EQ(f16_to_double(0xC100), -2.5);
  EXPECT_EQ(f16_to_double(0x7BFF), 65504.0);
  EXPECT_EQ(f16_to_double(0xFBFF), -65504.0);
  EXPECT_EQ(f16_to_double(0x3555), 0.333251953125);
  EXPECT_EQ(f16_to_double(0x0400), std::ldexp(1.0, -14));        // smallest normal
  EXPECT_EQ(f16_to_double(0x0001), std::ldexp(1.0, -24));        // smallest subnormal
  EXPECT_EQ(f16_to_double(0x03FF), std::ldexp(1023.0, -24));     // largest subnormal
  EXPECT_EQ(f16_to_double(0x8001), -std::ldexp(1.0, -24));
  EXPECT_EQ(f16_to_double(0x0000), 0.0);
  EXPECT_TRUE(std::signbit(f16_to_double(0x8000)));
  EXPECT_EQ(f16_to_double(0x7C00), kInf);
  EXPECT_EQ(f16_to_double(0xFC00), -kInf);
  EXPECT_TRUE(std::isnan(f16_to_double(0x7E00)));
  EXPECT_TRUE(std::isnan(f16_to_double(0xFFFF)));  // the poison pattern
}

TEST(HarnessConvert, DoubleToF16) {
  EXPECT_EQ(double_to_f16(1.0), 0x3C00);
  EXPECT_EQ(double_to_f16(-2.5), 0xC100);
  EXPECT_EQ(double_to_f16(65504.0), 0x7BFF);
  EXPECT_EQ(double_to_f16(65519.0), 0x7BFF);  // below the midpoint to infinity
  EXPECT_EQ(double_to_f16(65520.0), 0x7C00);  // the midpoint rounds to even: infinity
  EXPECT_EQ(double_to_f16(1e9), 0x7C00);
  EXPECT_EQ(double_to_f16(-1e9), 0xFC00);
  EXPECT_EQ(double_to_f16(kInf), 0x7C00);
  EXPECT_EQ(double_to_f16(std::nan("")) & 0x7C00, 0x7C00);
  EXPECT_NE(double_to_f16(std::nan("")) & 0x03FF, 0);
  EXPECT_EQ(double_to_f16(1.0 + std::ldexp(1.0, -11)), 0x3C00);      // tie -> even
  EXPECT_EQ(double_to_f16(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);  // tie -> even (up)
  EXPECT_EQ(double_to_f16(1.0 + std::ldexp(1.0, -11) + 1e-12), 0x3C01);
  EXPECT_EQ(double_to_f16(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(double_to_f16(std::ldexp(1.0, -25)), 0x0000);       // tie between 0 and 2^-24
  EXPECT_EQ(double_to_f16(std::ldexp(3.0, -25)), 0x0002);       // tie -> even
  EXPECT_EQ(double_to_f16(std::ldexp(1.0, -26)), 0x0000);
  EXPECT_EQ(double_to_f16(std::ldexp(1023.5, -24)), 0x0400);    // subnormal rounds up to normal
  EXPECT_EQ(double_to_f16(-0.0), 0x8000);
  EXPECT_EQ(double_to_f16(1.0 / 3.0), 0x3555);
}

TEST(HarnessConvert, BF16) {
  EXPECT_EQ(bf16_to_double(0x3F80), 1.0);
  EXPECT_EQ(bf16_to_double(0xC020), -2.5);
  EXPECT_EQ(bf16_to_double(0x4049), 3.140625);
  EXPECT_EQ(bf16_to_double(0x7F7F), std::ldexp(2.0 - std::ldexp(1.0, -7), 127));
  EXPECT_EQ(bf16_to_double(0x0001), std::ldexp(1.0, -133));  // smallest subnormal
  EXPECT_EQ(bf16_to_double(0x0080), std::ldexp(1.0, -126));  // smallest normal
  EXPECT_EQ(bf16_to_double(0x7F80), kInf);
  EXPECT_TRUE(std::isnan(bf16_to_double(0xFFFF)));
  EXPECT_EQ(double_to_bf16(1.0), 0x3F80);
  EXPECT_EQ(double_to_bf16(-2.5), 0xC020);
  EXPECT_EQ(double_to_bf16(3.14159265), 0x4049);
  EXPECT_EQ(double_to_bf16(65504.0), 0x4780);  // 65536 is the nearest bf16
  EXPECT_EQ(double_to_bf16(1.0 + std::ldexp(1.0, -8)), 0x3F80);      // tie -> even
  EXPECT_EQ(double_to_bf16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);  // tie -> even (up)
  // A value just above a bf16 tie that rounds to the tie in fp32: direct rounding goes up.
  EXPECT_EQ(double_to_bf16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)), 0x3F81);
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(double_to_bf16(std::ldexp(1.0, -134)), 0x0000);  // tie -> even (zero)
  EXPECT_EQ(double_to_bf16(1e39), 0x7F80);
  EXPECT_EQ(double_to_bf16(-1e39), 0xFF80);
  EXPECT_EQ(double_to_bf16(std::nan("")) & 0x7F80, 0x7F80);
  EXPECT_NE(double_to_bf16(std::nan("")) & 0x007F, 0);
}

// Every finite pattern survives a round trip; every midpoint rounds to the even neighbour.
TEST(HarnessConvert, ExhaustiveRoundTripAndTies) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    auto const h = std::uint16_t(b);
    double const xf = f16_to_double(h);
    if (!std::isnan(xf)) {
      EXPECT_EQ(double_to_f16(xf), h) << std::hex << b;
    }
    double const xb = bf16_to_double(h);
    if (!std::isnan(xb)) {
      EXPECT_EQ(double_to_bf16(xb), h) << std::hex << b;
    }
    // bf16 agrees with float's bits
    if (!std::isnan(xb)) {
      float f = float(xb);
      std::uint32_t u;
      std::memcpy(&u, &f, 4);
      EXPECT_EQ(u >> 16, b);
    }
  }
  for (std::uint16_t b = 0; b < 0x7BFF; ++b) {  // positive finite f16 with a finite successor
    double const lo = f16_to_double(b), hi = f16_to_double(std::uint16_t(b + 1));
    std::uint16_t const even = (b % 2 == 0) ? b : std::uint16_t(b + 1);
    ASSERT_EQ(double_to_f16((lo + hi) / 2), even) << std::hex << b;
    ASSERT_EQ(double_to_f16(-(lo + hi) / 2), even | 0x8000) << std::hex << b;
  }
  for (std::uint16_t b = 0; b < 0x7F7F; ++b) {
    double const lo = bf16_to_double(b), hi = bf16_to_double(std::uint16_t(b + 1));
    std::uint16_t const even = (b % 2 == 0) ? b : std::uint16_t(b + 1);
    ASSERT_EQ(double_to_bf16((lo + hi) / 2), even) << std::hex << b;
  }
}

TEST(HarnessConvert, RoundTo) {
  EXPECT_EQ(round_to(DType::f16, 1.0 / 3.0), 0.333251953125);
  EXPECT_EQ(round_to(DType::bf16, 1.0 / 3.0), bf16_to_double(double_to_bf16(1.0 / 3.0)));
  EXPECT_EQ(round_to(DType::f32, 1.0 / 3.0), double(1.0f / 3.0f));
  EXPECT_EQ(round_to(DType::f16, 1e6), kInf);
  EXPECT_EQ(round_to(DType::f16, -1e6), -kInf);
  // The 8-bit formats round to nearest even, and overflow as they do without saturation.
  EXPECT_EQ(round_to(DType::e4m3, 1.0 / 3.0), 0.34375);  // 1.011b x 2^-2
  EXPECT_EQ(round_to(DType::e5m2, 1.0 / 3.0), 0.3125);   // 1.01b x 2^-2
  EXPECT_EQ(round_to(DType::e4m3, 1.0625), 1.0);         // a tie: to the even neighbour
  EXPECT_EQ(round_to(DType::e4m3, 1.1875), 1.25);
  EXPECT_EQ(round_to(DType::e4m3, -448.0), -448.0);
  EXPECT_TRUE(std::isnan(round_to(DType::e4m3, 1000.0)));  // no infinity in e4m3
  EXPECT_EQ(round_to(DType::e5m2, 1e6), kInf);
  EXPECT_EQ(round_to(DType::e5m2, -1e6), -kInf);
}

TEST(HarnessConvert, UnitRoundoff8Bit) {
  EXPECT_EQ(unit_roundoff(DType::e4m3), std::ldexp(1.0, -4));
  EXPECT_EQ(unit_roundoff(DType::e5m2), std::ldexp(1.0, -3));
  // Half a step at 1: a value just past it rounds up, one just short of it to 1.
  for (DType t : {DType::e4m3, DType::e5m2}) {
    double const u = unit_roundoff(t);
    EXPECT_EQ(round_to(t, 1 + u * 0.99), 1.0) << to_string(t);
    EXPECT_EQ(round_to(t, 1 + u * 1.01), 1 + 2 * u) << to_string(t);
  }
}

TEST(HarnessConvert, RandomValues) {
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    auto v = random_values(t, 100000, 42);
    ASSERT_EQ(v.size(), 100000u);
    double sum = 0;
    std::set<double> distinct;
    for (double x : v) {
      ASSERT_NE(x, 0.0);
      ASSERT_GE(x, -1.0);
      ASSERT_LE(x, 1.0);
      ASSERT_EQ(round_to(t, x), x) << "not representable in " << to_string(t) << ": " << x;
      sum += x;
      distinct.insert(x);
    }
    EXPECT_LT(std::fabs(sum / double(v.size())), 0.02) << to_string(t);
    EXPECT_GT(distinct.size(), t == DType::bf16 ? 500u : 3000u) << to_string(t);
    EXPECT_EQ(random_values(t, 1000, 42), std::vector<double>(v.begin(), v.begin() + 1000));  // a prefix
    EXPECT_NE(random_values(t, 1000, 43), std::vector<double>(v.begin(), v.begin() + 1000));
  }
  EXPECT_TRUE(random_values(DType::f32, 0, 1).empty());
}

// random_image is random_values encoded, in storage order: element (r, c) of a row-major image at
// r * cols + c, of a column-major one at r + c * rows, each the value of logical index r + c * rows.
TEST(HarnessConvert, RandomImageIsRandomValuesInStorageOrder) {
  auto encode = [](DType t, double x) -> std::uint32_t {
    switch (t) {
      case DType::f32: return std::bit_cast<std::uint32_t>(float(x));
      case DType::f16: return double_to_f16(x);
      case DType::bf16: return double_to_bf16(x);
      case DType::e4m3: return double_to_e4m3(x, false);
      default: return double_to_e5m2(x, false);
    }
  };
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::e4m3, DType::e5m2})
    for (Order o : {Order::col, Order::row})
      for (auto [R, C] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {3, 5}, {70, 130}, {129, 64}, {1, 300}, {300, 1}}) {
        SCOPED_TRACE(std::string(to_string(t)) + (o == Order::col ? " col " : " row ") + std::to_string(R) + "x" + std::to_string(C));
        std::uint64_t const seed = 7 + std::uint64_t(R * 131 + C);
        std::vector<double> const v = random_values(t, R * C, seed);
        std::vector<unsigned char> const img = random_image(t, o, R, C, seed);
        std::size_t const es = size_of(t);
        ASSERT_EQ(img.size(), std::size_t(R * C) * es);
        for (std::int64_t r = 0; r < R; ++r)
          for (std::int64_t c = 0; c < C; ++c) {
            std::int64_t const at = o == Order::col ? r + c * R : r * C + c;
            std::uint32_t bits = 0;
            std::memcpy(&bits, img.data() + std::size_t(at) * es, es);
            ASSERT_EQ(bits, encode(t, v[std::size_t(r + c * R)])) << "element (" << r << ", " << c << ")";
          }
      }
  EXPECT_TRUE(random_image(DType::bf16, Order::row, 0, 5, 1).empty());
}

// The 8-bit inputs: a uniform value in [-1, 1] rounded to the format, so each exact in it (its bits
// decode to it), none zero, about uniform (mean 0, mean square 1/3), and spread over the format's
// significands and exponents, subnormals included, not a coarse grid.
TEST(HarnessConvert, RandomValues8Bit) {
  for (DType t : {DType::e4m3, DType::e5m2}) {
    auto const v = random_values(t, 100000, 42);
    ASSERT_EQ(v.size(), 100000u);
    std::set<double> distinct;
    double sum = 0, sum2 = 0, halves = 0, subnormals = 0;
    double const smallest_normal = std::ldexp(1.0, t == DType::e4m3 ? -6 : -14);
    for (double x : v) {
      ASSERT_NE(x, 0.0);
      ASSERT_GE(x, -1.0);
      ASSERT_LE(x, 1.0);
      ASSERT_EQ(round_to(t, x), x) << "not representable in " << to_string(t) << ": " << x;
      std::uint8_t const bits = t == DType::e4m3 ? double_to_e4m3(x, false) : double_to_e5m2(x, false);
      ASSERT_EQ(t == DType::e4m3 ? e4m3_to_double(bits) : e5m2_to_double(bits), x);
      distinct.insert(x);
      sum += x, sum2 += x * x;
      halves += std::fabs(x) < 0.5;
      subnormals += std::fabs(x) < smallest_normal;
    }
    double const n = double(v.size());
    EXPECT_LT(std::fabs(sum / n), 0.02) << to_string(t);
    EXPECT_NEAR(sum2 / n, 1.0 / 3, 0.01) << to_string(t);
    // Uniform: about half of them below 0.5 in magnitude (rounding moves that edge by half a step).
    EXPECT_NEAR(halves / n, 0.5, 0.04) << to_string(t);
    // e4m3 has 112 values in [-1, 1] but 0 (6 binades of 8 below 1, 1, and 7 subnormals, each
    // sign), e5m2 120 (14 binades of 4, 1, 3 subnormals): e5m2's smallest are too rare to all come.
    EXPECT_GE(distinct.size(), t == DType::e4m3 ? 110u : 80u) << to_string(t);
    if (t == DType::e4m3) {
      EXPECT_GT(subnormals, 0) << "no subnormal among 100,000 e4m3 values";
    }
    EXPECT_EQ(random_values(t, 1000, 42), std::vector<double>(v.begin(), v.begin() + 1000));
    EXPECT_NE(random_values(t, 1000, 43), std::vector<double>(v.begin(), v.begin() + 1000));
  }
}

// An 8-bit case's tensor scales: 0.75 or 1.25 times 2^-2 .. 2^2, never 1, never equal to each
// other, from the seed alone; over many seeds every value comes.
TEST(HarnessConvert, RandomScales) {
  std::set<double> seen;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    TensorScales const s = random_scales(seed);
    for (double x : {s.a, s.b}) {
      int e = 0;
      double const m = std::frexp(x, &e);  // x = m 2^e, m in [0.5, 1)
      EXPECT_TRUE(m == 0.75 || m == 0.625) << x;  // 0.75 2^e or 1.25 2^(e-1)
      EXPECT_GE(x, 0.1875);
      EXPECT_LE(x, 5.0);
      EXPECT_NE(x, 1.0);
      EXPECT_EQ(double(float(x)), x);
      seen.insert(x);
    }
    EXPECT_NE(s.a, s.b) << seed;
    EXPECT_EQ(random_scales(seed).a, s.a);
    EXPECT_EQ(random_scales(seed).b, s.b);
  }
  EXPECT_EQ(seen.size(), 10u);
}

// An 8-bit case's block scales: the arrays of loom/gemm.hpp's layouts (A's kb x M, B's columns of
// block_scale_ld(K) with NaN past kb), each value 0.75 or 1.25 times 2^-3 .. 2^3, never 1, from the
// seed and the sizes alone, differing from element to element.
TEST(HarnessConvert, RandomBlockScales) {
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = DType::e4m3;
  p.scale = ScaleMode::block;
  p.m = 37, p.n = 300, p.k = 640;  // kb = 5, block_scale_ld = 8, 3 columns of blocks
  BlockScales const s = random_block_scales(p, 11);
  EXPECT_EQ(s.m, 37);
  EXPECT_EQ(s.n, 300);
  EXPECT_EQ(s.k, 640);
  EXPECT_EQ(s.k_blocks(), 5);
  EXPECT_EQ(s.ld(), 8);
  ASSERT_EQ(s.a.size(), 37u * 5);
  ASSERT_EQ(s.b.size(), 8u * 3);
  std::set<double> seen;
  auto check = [&](double x) {
    int e = 0;
    double const m = std::frexp(x, &e);
    EXPECT_TRUE(m == 0.75 || m == 0.625) << x;
    EXPECT_GE(x, 0.09375);
    EXPECT_LE(x, 10.0);
    EXPECT_NE(x, 1.0);
    seen.insert(x);
  };
  for (float x : s.a) check(x);
  for (std::int64_t l = 0; l < 3; ++l)
    for (std::int64_t j = 0; j < 8; ++j) {
      float const x = s.b[std::size_t(j + l * 8)];
      if (j < 5) check(x);
      else EXPECT_TRUE(std::isnan(x)) << "padding (" << j << ", " << l << ")";
    }
  EXPECT_EQ(seen.size(), 14u);  // every value of the set among 37*5 + 15 draws
  // Accessors by element: A's (i, k) and B's (k, j).
  EXPECT_EQ(s.a_at(5, 300), s.a[5 + 2 * 37]);
  EXPECT_EQ(s.b_at(639, 299), s.b[4 + 2 * 8]);
  // Deterministic in the seed and sizes; another seed, or another M, gives others.
  BlockScales const t = random_block_scales(p, 11);
  EXPECT_EQ(t.a, s.a);
  EXPECT_EQ(std::memcmp(t.b.data(), s.b.data(), s.b.size() * 4), 0);  // NaN == NaN bit for bit
  EXPECT_NE(random_block_scales(p, 12).a, s.a);
  // Not one value for all: A's rows and k blocks differ.
  EXPECT_NE(std::set<float>(s.a.begin(), s.a.end()).size(), 1u);
}

// Why reference_cublas may widen A * scale and B * scale to 16 bits: every block scale times every
// e4m3 value, and every e5m2 value up to 6144 (random_values' lie in [-1, 1]), subnormals included,
// is exactly a bf16 and an f16 value (and an fp32 one: the product taken on the device).
TEST(HarnessConvert, BlockScaleProductsAreExactInSixteenBits) {
  std::set<double> scales;
  for (double m : {0.75, 1.25})
    for (int e = -3; e <= 3; ++e) scales.insert(std::ldexp(m, e));
  Problem p;
  p.op = OpKind::gemm;
  p.m = 200, p.n = 2000, p.k = 2000;
  BlockScales const drawn = random_block_scales(p, 3);
  for (float x : drawn.a) EXPECT_TRUE(scales.count(x)) << x;  // the set below is the drawn one
  int checked = 0;
  for (DType t : {DType::e4m3, DType::e5m2})
    for (int bits = 0; bits < 256; ++bits) {
      double const x = t == DType::e4m3 ? e4m3_to_double(std::uint8_t(bits)) : e5m2_to_double(std::uint8_t(bits));
      if (!std::isfinite(x)) continue;
      for (double sc : scales) {
        double const y = x * sc;
        EXPECT_EQ(double(float(y)), y) << x << " * " << sc;
        EXPECT_EQ(round_to(DType::bf16, y), y) << to_string(t) << " " << x << " * " << sc;
        if (t == DType::e4m3 || std::fabs(x) <= 6144) {
          EXPECT_EQ(round_to(DType::f16, y), y) << to_string(t) << " " << x << " * " << sc;
          ++checked;
        }
      }
    }
  EXPECT_GT(checked, 2 * 200 * 14);
  // The margin: a scale of 2^-7 would not hold for e5m2's smallest subnormal in f16.
  EXPECT_NE(round_to(DType::f16, e5m2_to_double(0x01) * 0.75 * std::ldexp(1.0, -7)),
            e5m2_to_double(0x01) * 0.75 * std::ldexp(1.0, -7));
}

// The 8-bit formats against their definitions, and against CUDA's own host conversion
// (__nv_cvt_double_to_fp8, both saturation modes) on every value, every midpoint between
// neighbours (the ties), just either side of each midpoint, past the largest, and random doubles.
TEST(HarnessConvert, Fp8Decode) {
  EXPECT_EQ(e4m3_to_double(0x38), 1.0);
  EXPECT_EQ(e4m3_to_double(0x7E), 448.0);   // largest finite
  EXPECT_EQ(e4m3_to_double(0x08), std::ldexp(1.0, -6));  // smallest normal
  EXPECT_EQ(e4m3_to_double(0x01), std::ldexp(1.0, -9));  // smallest subnormal
  EXPECT_EQ(e4m3_to_double(0xC4), -3.0);
  EXPECT_TRUE(std::isnan(e4m3_to_double(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3_to_double(0xFF)));
  EXPECT_EQ(e4m3_to_double(0x78), 256.0);  // exponent field 15 is finite in E4M3FN
  EXPECT_EQ(e5m2_to_double(0x3C), 1.0);
  EXPECT_EQ(e5m2_to_double(0x7B), 57344.0);
  EXPECT_EQ(e5m2_to_double(0x04), std::ldexp(1.0, -14));
  EXPECT_EQ(e5m2_to_double(0x01), std::ldexp(1.0, -16));
  EXPECT_EQ(e5m2_to_double(0x7C), kInf);
  EXPECT_EQ(e5m2_to_double(0xFC), -kInf);
  EXPECT_TRUE(std::isnan(e5m2_to_double(0x7D)));
  EXPECT_TRUE(std::signbit(e4m3_to_double(0x80)) && std::signbit(e5m2_to_double(0x80)));
  // Positive codes in order are increasing values: each format is a sign-magnitude integer order.
  for (int b = 1; b < 0x7F; ++b) EXPECT_LT(e4m3_to_double(std::uint8_t(b - 1)), e4m3_to_double(std::uint8_t(b))) << b;
  for (int b = 1; b <= 0x7C; ++b) EXPECT_LT(e5m2_to_double(std::uint8_t(b - 1)), e5m2_to_double(std::uint8_t(b))) << b;
}

std::uint8_t cuda_fp8(double x, bool e4m3, bool saturate) {
  return std::uint8_t(__nv_cvt_double_to_fp8(x, saturate ? __NV_SATFINITE : __NV_NOSAT, e4m3 ? __NV_E4M3 : __NV_E5M2));
}

TEST(HarnessConvert, Fp8EncodeMatchesCuda) {
  for (bool e4m3 : {true, false}) {
    auto const decode = e4m3 ? e4m3_to_double : e5m2_to_double;
    int const top = e4m3 ? 0x7E : 0x7B;  // largest finite code
    std::vector<double> xs;
    for (int b = 0; b <= top; ++b) {
      double const v = decode(std::uint8_t(b));
      double const next = b < top ? decode(std::uint8_t(b + 1)) : 2 * v - decode(std::uint8_t(b - 1));
      double const mid = (v + next) / 2;
      for (double x : {v, mid, std::nextafter(mid, 0.0), std::nextafter(mid, kInf), v * (1 + 1e-9)}) {
        xs.push_back(x);
        xs.push_back(-x);
      }
    }
    for (double x : {1e6, 1e30, kInf, 1e-30, std::ldexp(1.0, -40), 0.0}) xs.push_back(x), xs.push_back(-x);
    std::mt19937_64 rng(8);
    std::uniform_real_distribution<double> e(-20, 20), m(-1, 1);
    for (int i = 0; i < 20000; ++i) xs.push_back(m(rng) * std::exp2(e(rng)));
    for (bool sat : {true, false}) {
      int bad = 0;
      for (double x : xs) {
        std::uint8_t const mine = e4m3 ? double_to_e4m3(x, sat) : double_to_e5m2(x, sat);
        std::uint8_t const want = cuda_fp8(x, e4m3, sat);
        if (mine != want && ++bad <= 5)
          ADD_FAILURE() << (e4m3 ? "e4m3" : "e5m2") << (sat ? " satfinite " : " nosat ") << x << ": 0x" << std::hex
                        << int(mine) << ", CUDA 0x" << int(want);
      }
      EXPECT_EQ(bad, 0);
    }
    // Every finite code survives the round trip; NaN stays NaN.
    for (int b = 0; b <= 0xFF; ++b) {
      double const v = decode(std::uint8_t(b));
      std::uint8_t const back = e4m3 ? double_to_e4m3(v, false) : double_to_e5m2(v, false);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(decode(back))) << b;
      }
      else EXPECT_EQ(back, std::uint8_t(b)) << b;
    }
  }
}

}  // namespace
