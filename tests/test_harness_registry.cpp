// The kernel registry seen from the harness: lookup, why_unsupported messages, layout strings,
// case names, leading-dimension defaults.
#include <gtest/gtest.h>

#include "harness/harness.hpp"
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"

namespace {

using namespace loom;

Problem add_case(std::int64_t m, std::int64_t n, char const* layout = "ccc") {
  Problem p;
  p.op = OpKind::add;
  p.m = m;
  p.n = n;
  EXPECT_TRUE(parse_layout(layout, &p));
  return with_default_lds(p);
}

TEST(HarnessRegistry, FindKernel) {
  KernelInfo const* k = find_kernel("add");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name, "add");
  EXPECT_EQ(k->op, OpKind::add);
  EXPECT_EQ(k->dtypes, std::vector<DType>({DType::f32, DType::f16, DType::bf16}));
  EXPECT_EQ(k->min_cc, 80);
  EXPECT_TRUE(bool(k->launch));
  EXPECT_EQ(find_kernel("nope"), nullptr);
  EXPECT_EQ(find_kernel(""), nullptr);
  EXPECT_EQ(find_kernel("ADD"), nullptr);
  for (auto const& kk : kernels()) EXPECT_EQ(find_kernel(kk.name), &kk);
}

TEST(HarnessRegistry, WhyUnsupported) {
  KernelInfo const& k = *find_kernel("add");
  EXPECT_EQ(why_unsupported(k, add_case(7, 127), 90), "");
  EXPECT_EQ(why_unsupported(k, add_case(7, 127), 80), "");

  Problem p = add_case(7, 127);
  p.m = 0;
  EXPECT_EQ(why_unsupported(k, p, 90), "sizes must be positive (M=0 N=127)");
  p = add_case(7, 127);
  p.n = -1;
  EXPECT_EQ(why_unsupported(k, p, 90), "sizes must be positive (M=7 N=-1)");

  p = add_case(7, 127);
  p.lda = 6;
  EXPECT_EQ(why_unsupported(k, p, 90), "lda=6 is smaller than a row of A (7)");
  p = add_case(7, 127, "rcc");
  p.lda = 126;
  EXPECT_EQ(why_unsupported(k, p, 90), "lda=126 is smaller than a row of A (127)");
  p = add_case(7, 127);
  p.ldb = 0;
  EXPECT_EQ(why_unsupported(k, p, 90), "ldb=0 is smaller than a row of B (7)");
  p = add_case(7, 127, "ccr");
  p.ldc = 7;
  EXPECT_EQ(why_unsupported(k, p, 90), "ldc=7 is smaller than a row of C (127)");

  EXPECT_EQ(why_unsupported(k, add_case(7, 127), 70), "add needs compute capability 8.0, this GPU has 7.0");
  EXPECT_EQ(why_unsupported(k, add_case(7, 127), 75), "add needs compute capability 8.0, this GPU has 7.5");

  p = add_case(7, 127);
  p.dtype = static_cast<DType>(7);  // not a dtype the kernel knows
  EXPECT_EQ(why_unsupported(k, p, 90), "add does not support dtype ?");

  p = add_case(7, 127);
  p.op = OpKind::gemm;
  p.k = 5;
  EXPECT_EQ(why_unsupported(k, p, 90), "add computes add, not gemm");
}

// sm90 says which path a case takes, from the operands, before anything reaches the GPU: TMA needs
// 16-byte aligned A and B and leading dimensions that are multiples of 8 elements; the rest runs
// on sm80. (The aligned cases build real TMA maps, which needs the driver: the GPU tests and
// loom-validate's path column cover them.)
// sm_90a code runs on compute capability 9.0 alone: sm90 is not offered to a newer GPU, gemm is
// (it routes f16/bf16 there to sm80).
TEST(HarnessRegistry, Sm90RunsOnComputeCapability90Alone) {
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = p.out_dtype = DType::bf16;
  p.m = 64, p.n = 64, p.k = 64;
  p = with_default_lds(p);
  KernelInfo const& sm90 = *find_kernel("sm90");
  EXPECT_EQ(why_unsupported(sm90, p, 90), "");
  EXPECT_EQ(why_unsupported(sm90, p, 100), "sm90 needs compute capability 9.0 exactly, this GPU has 10.0");
  EXPECT_EQ(why_unsupported(sm90, p, 80), "sm90 needs compute capability 9.0, this GPU has 8.0");
  EXPECT_EQ(why_unsupported(*find_kernel("gemm"), p, 100), "");
  EXPECT_EQ(why_unsupported(*find_kernel("sm80"), p, 100), "");
}

TEST(HarnessRegistry, Sm90PathFollowsAlignment) {
  KernelInfo const* k = find_kernel("sm90");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->min_cc, 90);
  EXPECT_EQ(k->max_cc, 90);
  ASSERT_TRUE(bool(k->path));
  EXPECT_EQ(kernel_path(*find_kernel("sm80"), Problem{}, Operands{}), "");  // one path
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = p.out_dtype = DType::bf16;
  p.m = 256, p.n = 512, p.k = 1024;
  ASSERT_TRUE(parse_layout("rcr", &p));
  p = with_default_lds(p);
  alignas(16) static unsigned char buf[64];
  Operands ops;
  ops.a = buf + 2;  // 2-byte aligned
  ops.b = buf;
  ops.d = buf;
  EXPECT_EQ(kernel_path(*k, p, ops), "sm80 (A's base is not 16-byte aligned)");
  ops.a = buf;
  ops.b = buf + 8;
  EXPECT_EQ(kernel_path(*k, p, ops), "sm80 (B's base is not 16-byte aligned)");
  ops.b = buf;
  p.lda = 1028;  // row-major A: lda is the row pitch, 2056 bytes
  EXPECT_EQ(kernel_path(*k, p, ops), "sm80 (lda is not a multiple of 8 elements)");
  p.lda = 1024;
  p.ldb = 1030;  // column-major B (K x N): ldb is the column pitch
  EXPECT_EQ(kernel_path(*k, p, ops), "sm80 (ldb is not a multiple of 8 elements)");
}

TEST(HarnessRegistry, ParseNames) {
  DType t;
  EXPECT_TRUE(parse_dtype("f32", &t));
  EXPECT_EQ(t, DType::f32);
  EXPECT_TRUE(parse_dtype("f16", &t));
  EXPECT_EQ(t, DType::f16);
  EXPECT_TRUE(parse_dtype("bf16", &t));
  EXPECT_EQ(t, DType::bf16);
  EXPECT_FALSE(parse_dtype("f64", &t));
  EXPECT_FALSE(parse_dtype("", &t));
  OpKind o;
  EXPECT_TRUE(parse_op("gemm", &o));
  EXPECT_EQ(o, OpKind::gemm);
  EXPECT_FALSE(parse_op("mul", &o));
  EXPECT_STREQ(to_string(DType::bf16), "bf16");
  EXPECT_STREQ(to_string(Order::row), "r");
  EXPECT_STREQ(to_string(OpKind::add), "add");
  EXPECT_EQ(size_of(DType::f32), 4u);
  EXPECT_EQ(size_of(DType::f16), 2u);
  EXPECT_EQ(size_of(DType::bf16), 2u);
}

TEST(HarnessRegistry, Layouts) {
  int n = 0;
  for (char a : {'c', 'r'})
    for (char b : {'c', 'r'})
      for (char c : {'c', 'r'}) {
        std::string const s{a, b, c};
        Problem p;
        ASSERT_TRUE(parse_layout(s, &p)) << s;
        EXPECT_EQ(p.a, a == 'c' ? Order::col : Order::row);
        EXPECT_EQ(p.b, b == 'c' ? Order::col : Order::row);
        EXPECT_EQ(p.c, c == 'c' ? Order::col : Order::row);
        EXPECT_EQ(layout_string(p), s);
        ++n;
      }
  EXPECT_EQ(n, 8);
  Problem p;
  for (char const* bad : {"", "cc", "cccc", "cxc", "CCC", "c c"}) EXPECT_FALSE(parse_layout(bad, &p)) << bad;
}

TEST(HarnessRegistry, CaseName) {
  Problem p = add_case(7, 127, "crc");
  EXPECT_EQ(case_name("add", p), "add/f32/crc/7x127x0");
  p.op = OpKind::gemm;
  p.dtype = DType::bf16;
  p.m = 1;
  p.n = 2;
  p.k = 3;
  ASSERT_TRUE(parse_layout("rrc", &p));
  EXPECT_EQ(case_name("sgemm", p), "sgemm/bf16/rrc/1x2x3");
  p.m = 4097;
  p.n = 8192;
  p.k = 123456789012;
  EXPECT_EQ(case_name("wgmma_tma", p), "wgmma_tma/bf16/rrc/4097x8192x123456789012");
}

TEST(HarnessRegistry, DefaultLeadingDimensions) {
  Problem p;
  p.op = OpKind::gemm;
  p.m = 7;
  p.n = 9;
  p.k = 5;
  ASSERT_TRUE(parse_layout("rcr", &p));
  p = with_default_lds(p);
  EXPECT_EQ(p.lda, 5);  // row-major M x K
  EXPECT_EQ(p.ldb, 5);  // column-major K x N
  EXPECT_EQ(p.ldc, 9);  // row-major M x N
  ASSERT_TRUE(parse_layout("crc", &p));
  p.lda = p.ldb = p.ldc = 0;
  p = with_default_lds(p);
  EXPECT_EQ(p.lda, 7);
  EXPECT_EQ(p.ldb, 9);
  EXPECT_EQ(p.ldc, 7);
  p.lda = 100;  // explicit values stay
  EXPECT_EQ(with_default_lds(p).lda, 100);
  EXPECT_EQ(min_ld(Order::col, 0, 5), 1);
}

// The kernels index each operand through operand_tensor() (or operand_shape(), its extents and
// strides): the element (x, y) of the view must be the element BLAS storage puts at row x, column y
// (or column x, row y for a transposed view).
TEST(Registry, OperandLayoutMatchesBlasStorage) {
  for (Order o : {Order::col, Order::row})
    for (bool transposed : {false, true}) {
      std::int64_t const nx = 5, ny = 7, ld = 11;
      GmemShape const g = operand_shape(o, ld, nx, ny, transposed);
      auto const t = operand_tensor(static_cast<float const*>(nullptr), o, ld, nx, ny, transposed);
      EXPECT_EQ(g.shape[0], nx);
      EXPECT_EQ(g.shape[1], ny);
      EXPECT_EQ(shape(t)[0], nx);
      EXPECT_EQ(shape(t)[1], ny);
      for (std::int64_t x = 0; x < nx; ++x)
        for (std::int64_t y = 0; y < ny; ++y) {
          std::int64_t const r = transposed ? y : x, c = transposed ? x : y;
          std::int64_t const want = o == Order::col ? r + c * ld : r * ld + c;
          EXPECT_EQ(x * g.stride[0] + y * g.stride[1], want) << to_string(o) << (transposed ? " transposed" : "") << " (" << x << "," << y << ")";
          EXPECT_EQ(t.engine.offset(Coord<2>{{x, y}}), want) << to_string(o) << (transposed ? " transposed" : "");
        }
    }
}

}  // namespace
