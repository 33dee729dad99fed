// Host f16/bf16 converters (bit-exact, round to nearest even) and the random input values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

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

}  // namespace
