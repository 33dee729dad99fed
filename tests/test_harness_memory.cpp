// The device-memory pre-check of loom-validate and loom-bench: the bytes a case allocates, counted
// without allocating them, and the one-line reason a case too large for the free memory is left
// out with. Pure functions; no GPU needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "harness/harness.hpp"

namespace {

using namespace loom;
using namespace loom::harness;

constexpr std::uint64_t GiB = std::uint64_t(1) << 30, MiB = std::uint64_t(1) << 20;

// DeviceMatrix's allocation: ld * outer extent + misalignment, in elements, plus 256 bytes of slack.
TEST(HarnessMemory, MatrixBytes) {
  EXPECT_EQ(matrix_bytes(DType::f32, 10, 7, Order::col, 0, 0), 10u * 7 * 4 + 256);
  EXPECT_EQ(matrix_bytes(DType::f32, 10, 7, Order::col, 12, 3), (12u * 7 + 3) * 4 + 256);
  EXPECT_EQ(matrix_bytes(DType::f32, 10, 7, Order::row, 9, 0), 9u * 10 * 4 + 256);
  EXPECT_EQ(matrix_bytes(DType::bf16, 10, 7, Order::row, 0, 1), (7u * 10 + 1) * 2 + 256);
  EXPECT_EQ(matrix_bytes(DType::f16, 0, 7, Order::col, 0, 0), 0u);
  // Past 64 bits it saturates instead of wrapping around to a small number.
  std::int64_t const huge = std::int64_t(1) << 40;
  EXPECT_EQ(matrix_bytes(DType::f32, huge, huge, Order::col, 0, 0), ~std::uint64_t(0));
}

// make_buffers' four matrices (three for add), each in the problem's own orders and leading
// dimensions.
TEST(HarnessMemory, DeviceBytes) {
  Problem a;
  a.op = OpKind::add;
  a.m = 1000, a.n = 1000;
  EXPECT_EQ(device_bytes(a, 0), 3 * (1000u * 1000 * 4 + 256));

  Problem g;
  g.op = OpKind::gemm;
  g.dtype = DType::bf16;
  g.out_dtype = DType::f32;
  g.m = 1000, g.n = 129, g.k = 255;
  ASSERT_TRUE(parse_layout("rcr", &g));
  g = with_default_lds(g);
  g.lda += 3, g.ldb += 3, g.ldc += 3;  // 258, 258, 132
  std::uint64_t const A = (258u * 1000 + 1) * 2 + 256, B = (258u * 129 + 1) * 2 + 256, CD = (132u * 1000 + 1) * 4 + 256;
  EXPECT_EQ(device_bytes(g, 1), A + B + 2 * CD);
  // Leading dimensions left at 0 are the minimum, as make_buffers takes them.
  Problem g0 = g;
  g0.lda = g0.ldb = g0.ldc = 0;
  EXPECT_EQ(device_bytes(g0, 0), (255u * 1000 * 2 + 256) + (255u * 129 * 2 + 256) + 2 * (129u * 1000 * 4 + 256));

  // 8-bit gemm: A and B of one byte (B in its own type's), C and D in the output type, and the two
  // scales (fp32, 16 bytes apart, in a matrix of their own: 1 x 2 with a leading dimension of 4).
  Problem f = g0;
  f.dtype = DType::e4m3;
  f.b_dtype = DType::e5m2;
  f.out_dtype = DType::bf16;
  EXPECT_EQ(device_bytes(f, 0), (255u * 1000 + 256) + (255u * 129 + 256) + 2 * (129u * 1000 * 2 + 256) + (8 * 4 + 256));
  // Block scales in place of the two: A's M x ceil(K/128) fp32 values (1000 x 2), B's
  // block_scale_ld(K) x ceil(N/128) (4 x 2: two k blocks, padded to 4), each its own matrix.
  f.scale = ScaleMode::block;
  EXPECT_EQ(device_bytes(f, 0), (255u * 1000 + 256) + (255u * 129 + 256) + 2 * (129u * 1000 * 2 + 256) +
                                    (1000u * 2 * 4 + 256) + (4u * 2 * 4 + 256));

  // The GPU test's case: f32 gemm, M = N = K = 2^18, 256 GiB per operand.
  Problem big;
  big.op = OpKind::gemm;
  big.m = big.n = big.k = std::int64_t(1) << 18;
  EXPECT_EQ(device_bytes(big, 0), 4 * (256 * GiB + 256));
  big.m = big.n = big.k = std::int64_t(1) << 40;
  EXPECT_EQ(device_bytes(big, 0), ~std::uint64_t(0));
}

TEST(HarnessMemory, WhyNoMemory) {
  std::uint64_t const free = std::uint64_t(79.1 * double(GiB));
  EXPECT_EQ(why_no_memory(10 * GiB, free), "");
  EXPECT_EQ(why_no_memory(free - kMemoryReserve, free), "");
  EXPECT_EQ(why_no_memory(96 * GiB, free), "needs 96.0 GiB, the device has 79.1 GiB free");
  // It would fit, but not with the reserve kept free: the line says why.
  EXPECT_EQ(why_no_memory(80 * GiB - kMemoryReserve + 1, 80 * GiB),
            "needs 79.8 GiB, the device has 80.0 GiB free (256.0 MiB of it kept in reserve)");
  EXPECT_EQ(why_no_memory(300 * MiB, 200 * MiB), "needs 300.0 MiB, the device has 200.0 MiB free");
  EXPECT_EQ(why_no_memory(0, 100 * MiB), "needs 0.0 MiB, the device has 100.0 MiB free (256.0 MiB of it kept in reserve)");
  EXPECT_EQ(why_no_memory(~std::uint64_t(0), free), "needs 17179869184.0 GiB, the device has 79.1 GiB free");
}

}  // namespace
