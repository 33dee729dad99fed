// Tolerances and compare(): rel-fro on hand examples, NaN never passes, unwritten elements counted.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/harness.hpp"

namespace {

using namespace loom;
using namespace loom::harness;

double const kNaN = std::numeric_limits<double>::quiet_NaN();
double const kInf = std::numeric_limits<double>::infinity();

Problem add_problem(std::int64_t m, std::int64_t n) {
  Problem p;
  p.op = OpKind::add;
  p.m = m;
  p.n = n;
  return p;
}

Problem gemm_problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  Problem p;
  p.op = OpKind::gemm;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

TEST(HarnessCompare, Tolerances) {
  EXPECT_EQ(tolerance(DType::f32, DType::f32, OpKind::add, 0), 1e-6);
  EXPECT_EQ(tolerance(DType::f16, DType::f16, OpKind::add, 0), 1e-3);
  EXPECT_EQ(tolerance(DType::bf16, DType::bf16, OpKind::add, 0), 8e-3);
  EXPECT_DOUBLE_EQ(tolerance(DType::f32, DType::f32, OpKind::gemm, 1), 1e-6);
  EXPECT_DOUBLE_EQ(tolerance(DType::f32, DType::f32, OpKind::gemm, 0), 1e-6);
  EXPECT_DOUBLE_EQ(tolerance(DType::f32, DType::f32, OpKind::gemm, 4096), 64e-6);
  EXPECT_EQ(tolerance(DType::f16, DType::f16, OpKind::gemm, 4096), 1e-2);
  EXPECT_EQ(tolerance(DType::bf16, DType::bf16, OpKind::gemm, 4096), 2e-2);
  // 16-bit inputs: by the output type alone.
  EXPECT_DOUBLE_EQ(tolerance(DType::bf16, DType::f32, OpKind::gemm, 4096), 64e-6);
  // Each add tolerance covers one rounding to the output type.
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    EXPECT_GT(tolerance(t, t, OpKind::add, 0), unit_roundoff(t)) << to_string(t);
  EXPECT_EQ(unit_roundoff(DType::f16), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(DType::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(unit_roundoff(DType::f32), std::ldexp(1.0, -24));
}

TEST(HarnessCompare, RelFroHandExample) {
  // ||ref|| = 5, ||out - ref|| = sqrt(0.03^2 + 0.04^2) = 0.05 -> rel_fro 0.01
  std::vector<double> ref = {3, 4}, out = {3.03, 4.04};
  ErrorStats st = compare(out, ref, DType::bf16, add_problem(2, 1));
  EXPECT_NEAR(st.rel_fro, 0.01, 1e-12);
  EXPECT_NEAR(st.max_abs, 0.04, 1e-12);
  EXPECT_NEAR(st.max_rel, 0.01, 1e-12);
  EXPECT_EQ(st.nonfinite, 0);
  EXPECT_EQ(st.unwritten, 0);
  EXPECT_FALSE(st.pass);  // 0.01 > 8e-3
  EXPECT_NE(st.why.find("rel_fro"), std::string::npos) << st.why;

  out = {3, 4.00003};  // rel_fro 6e-6
  st = compare(out, ref, DType::f32, add_problem(2, 1));
  EXPECT_NEAR(st.rel_fro, 6e-6, 1e-12);
  EXPECT_FALSE(st.pass);
  st = compare(out, ref, DType::f16, add_problem(2, 1));
  EXPECT_TRUE(st.pass) << st.why;
  EXPECT_EQ(st.why, "");
}

TEST(HarnessCompare, ExactPasses) {
  std::vector<double> ref = {1, -2, 0.5, 0};
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    ErrorStats st = compare(ref, ref, t, add_problem(2, 2));
    EXPECT_TRUE(st.pass) << st.why;
    EXPECT_EQ(st.rel_fro, 0);
    EXPECT_EQ(st.max_abs, 0);
  }
}

TEST(HarnessCompare, NaNNeverPasses) {
  std::vector<double> ref = {1, 2, 3, 4};
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (OpKind op : {OpKind::add, OpKind::gemm}) {
      std::vector<double> out = ref;
      out[2] = kNaN;
      Problem p = op == OpKind::add ? add_problem(2, 2) : gemm_problem(2, 2, 1000000);
      ErrorStats st = compare(out, ref, t, p);
      EXPECT_FALSE(st.pass);
      EXPECT_EQ(st.nonfinite, 1);
      EXPECT_EQ(st.unwritten, 1);
      EXPECT_EQ(st.rel_fro, 0);  // over the finite elements
      EXPECT_NE(st.why.find("element (0,1)"), std::string::npos) << st.why;
      EXPECT_NE(st.why.find("unwritten"), std::string::npos) << st.why;
    }
}

TEST(HarnessCompare, AllUnwritten) {
  std::vector<double> ref(12, 1.0), out(12, kNaN);
  ErrorStats st = compare(out, ref, DType::f32, add_problem(3, 4));
  EXPECT_FALSE(st.pass);
  EXPECT_EQ(st.unwritten, 12);
  EXPECT_EQ(st.nonfinite, 12);
}

TEST(HarnessCompare, InfIsNonFiniteButNotUnwritten) {
  std::vector<double> ref = {1, 2}, out = {1, kInf};
  ErrorStats st = compare(out, ref, DType::f32, add_problem(2, 1));
  EXPECT_FALSE(st.pass);
  EXPECT_EQ(st.nonfinite, 1);
  EXPECT_EQ(st.unwritten, 0);
}

TEST(HarnessCompare, OverflowAcceptsTheSameInfinity) {
  std::vector<double> ref = {70000, 1};  // beyond binary16
  EXPECT_TRUE(compare({kInf, 1}, ref, DType::f16, add_problem(2, 1)).pass);
  EXPECT_FALSE(compare({-kInf, 1}, ref, DType::f16, add_problem(2, 1)).pass);
  EXPECT_FALSE(compare({65504, 1}, ref, DType::f16, add_problem(2, 1)).pass);
  EXPECT_FALSE(compare({kNaN, 1}, ref, DType::f16, add_problem(2, 1)).pass);
}

TEST(HarnessCompare, ZeroReferenceUsesAbsoluteError) {
  std::vector<double> ref = {0, 0};
  ErrorStats st = compare({1e-7, 0}, ref, DType::f32, add_problem(2, 1));
  EXPECT_DOUBLE_EQ(st.rel_fro, 1e-7);
  EXPECT_TRUE(st.pass) << st.why;
  st = compare({1e-3, 0}, ref, DType::f32, add_problem(2, 1));
  EXPECT_FALSE(st.pass);
  EXPECT_NE(st.why.find("absolute"), std::string::npos) << st.why;
}

TEST(HarnessCompare, SizeMismatchFails) {
  ErrorStats st = compare({1, 2}, {1, 2, 3}, DType::f32, add_problem(3, 1));
  EXPECT_FALSE(st.pass);
  EXPECT_NE(st.why.find("elements"), std::string::npos);
}

// Output rounded once to its dtype is within every tolerance; one wrong element in a large matrix
// is caught by the element-wise bound even when rel_fro is within tolerance.
TEST(HarnessCompare, RoundedOutputPassesOneBadElementFails) {
  std::int64_t const m = 1000, n = 1000;
  std::vector<double> ref = random_values(DType::f32, m * n, 7);
  for (auto& x : ref) x *= 1.2345;  // not on the output grid
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    std::vector<double> out(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) out[i] = round_to(t, ref[i]);
    ErrorStats st = compare(out, ref, t, add_problem(m, n));
    EXPECT_TRUE(st.pass) << to_string(t) << ": " << st.why;
    EXPECT_LE(st.rel_fro, unit_roundoff(t));
    st = compare(out, ref, t, gemm_problem(m, n, 64));
    EXPECT_TRUE(st.pass) << to_string(t) << ": " << st.why;

    out[12345] += 0.25;
    st = compare(out, ref, t, add_problem(m, n));
    EXPECT_FALSE(st.pass) << to_string(t);
    EXPECT_EQ(st.over_bound, 1);
    EXPECT_NE(st.why.find("element (345,12)"), std::string::npos) << st.why;
    if (t == DType::bf16) {
      EXPECT_LT(st.rel_fro, tolerance(t, t, OpKind::add, 0));  // hidden in rel_fro
    }
    // NaNs in several chunks: all counted, the first one named.
    out[700000] = out[40040] = out[999999] = std::numeric_limits<double>::quiet_NaN();
    st = compare(out, ref, t, add_problem(m, n));
    EXPECT_EQ(st.unwritten, 3);
    EXPECT_EQ(st.nonfinite, 3);
    EXPECT_EQ(st.over_bound, 1);
    EXPECT_NE(st.why.find("first: element (40,40)"), std::string::npos) << st.why;
  }
}

}  // namespace

namespace {

// A 1x1 gemm whose dot product cancels: its rounding error is small next to the inputs' scale but
// large next to the result. The typical-RMS floor accepts it; a wrong result still fails.
TEST(HarnessCompare, TypicalRmsFloorsTheScaleOfCancellingDotProducts) {
  Problem p = gemm_problem(1, 1, 1024);
  p.alpha = 1;
  p.beta = 0;
  EXPECT_DOUBLE_EQ(typical_rms(p), std::sqrt(1024.0 / 9));
  std::vector<double> const ref = {1e-3};
  std::vector<double> const out = {1e-3 + 2e-7};  // a few ulps of the partial sums (about 10)
  EXPECT_FALSE(compare(out, ref, DType::f32, p).pass);
  EXPECT_TRUE(compare(out, ref, DType::f32, p, typical_rms(p)).pass);
  std::vector<double> const wrong = {1e-3 + 1e-2};
  EXPECT_FALSE(compare(wrong, ref, DType::f32, p, typical_rms(p)).pass);
  // add: sqrt((alpha^2 + beta^2) / 3).
  Problem a = add_problem(4, 4);
  a.alpha = 1;
  a.beta = 1;
  EXPECT_DOUBLE_EQ(typical_rms(a), std::sqrt(2.0 / 3));
  // An 8-bit gemm's scales multiply alpha; add has none.
  Problem q = gemm_problem(1, 1, 1024);
  q.dtype = DType::e4m3;
  q.alpha = 2;
  q.beta = 0.5;
  EXPECT_DOUBLE_EQ(typical_rms(q, TensorScales{0.75, 4}), std::sqrt(36 * 1024.0 / 9 + 0.25 / 3));
  EXPECT_DOUBLE_EQ(typical_rms(q), std::sqrt(4 * 1024.0 / 9 + 0.25 / 3));
}

// 8-bit inputs: max(the output type's 16-bit gemm tolerance, 2^-11 sqrt(K)), by output type and K.
TEST(HarnessCompare, Tolerances8Bit) {
  double const step = std::ldexp(1.0, -11);
  for (DType in : {DType::e4m3, DType::e5m2}) {
    // Short sums: the 16-bit bound of the output type.
    EXPECT_EQ(tolerance(in, DType::bf16, OpKind::gemm, 16), 2e-2);
    EXPECT_EQ(tolerance(in, DType::f16, OpKind::gemm, 16), 1e-2);
    EXPECT_DOUBLE_EQ(tolerance(in, DType::f32, OpKind::gemm, 16), 4 * step);  // 4.9e-4 > 4e-6
    // Long ones: the accumulator's, growing like sqrt(K).
    EXPECT_DOUBLE_EQ(tolerance(in, DType::bf16, OpKind::gemm, 4096), 64 * step);  // 0.03125
    EXPECT_DOUBLE_EQ(tolerance(in, DType::f16, OpKind::gemm, 1024), 32 * step);
    EXPECT_DOUBLE_EQ(tolerance(in, DType::f32, OpKind::gemm, 16384), 128 * step);
    EXPECT_DOUBLE_EQ(tolerance(in, DType::f32, OpKind::gemm, 0), step);
    // Never below the 16-bit inputs' of the same output.
    for (DType out : {DType::bf16, DType::f16, DType::f32})
      for (std::int64_t k : {1, 64, 255, 1024, 65536})
        EXPECT_GE(tolerance(in, out, OpKind::gemm, k), tolerance(DType::bf16, out, OpKind::gemm, k));
  }
  // compare() takes the problem's input type: a bf16-output error of 0.025 passes an e4m3 gemm of
  // K = 4096 (tolerance 0.03125) and fails a bf16 one (0.02).
  std::int64_t const m = 64, n = 64;
  std::vector<double> ref = random_values(DType::f32, m * n, 9), out = ref;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = ref[i] * (i % 2 ? 1.025 : 0.975);
  Problem p = gemm_problem(m, n, 4096);
  p.dtype = DType::e4m3;
  p.out_dtype = DType::bf16;
  ErrorStats st = compare(out, ref, DType::bf16, p);
  EXPECT_DOUBLE_EQ(st.tol, 64 * step);
  EXPECT_TRUE(st.pass) << st.why;
  p.dtype = DType::bf16;
  st = compare(out, ref, DType::bf16, p);
  EXPECT_EQ(st.tol, 2e-2);
  EXPECT_FALSE(st.pass);
}

}  // namespace
