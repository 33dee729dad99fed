// Sweep lists (CUTLASS-profiler syntax), expand() and the default validate sweeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>
#include <set>
#include <stdexcept>
#include <string>

#include "harness/harness.hpp"

namespace {

using namespace loom;
using namespace loom::harness;
using V = std::vector<std::int64_t>;

std::string int_list_error(std::string const& s) {
  try {
    parse_int_list(s);
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  return "(no error)";
}

std::string real_list_error(std::string const& s) {
  try {
    parse_real_list(s);
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HarnessSweep, IntListGood) {
  EXPECT_EQ(parse_int_list("1024"), V({1024}));
  EXPECT_EQ(parse_int_list("1,7,127"), V({1, 7, 127}));
  EXPECT_EQ(parse_int_list("1024:8192:1024"), V({1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192}));
  EXPECT_EQ(parse_int_list("1,7,64:256:64"), V({1, 7, 64, 128, 192, 256}));
  EXPECT_EQ(parse_int_list("1:10:4"), V({1, 5, 9}));  // the end need not be on the grid
  EXPECT_EQ(parse_int_list("5:5"), V({5}));
  EXPECT_EQ(parse_int_list("3:6"), V({3, 4, 5, 6}));  // the step defaults to 1
  EXPECT_EQ(parse_int_list(" 1 , 2 "), V({1, 2}));
  EXPECT_EQ(parse_int_list("0,-3,+4"), V({0, -3, 4}));  // signs parse; callers check the range
  EXPECT_EQ(parse_int_list("-4:4:4"), V({-4, 0, 4}));
  EXPECT_EQ(parse_int_list("9223372036854775806:9223372036854775807"),
            V({9223372036854775806, 9223372036854775807}));  // no overflow past the end
}

TEST(HarnessSweep, IntListBadNamesTheItem) {
  EXPECT_NE(int_list_error("1:x").find("bad item \"1:x\""), std::string::npos) << int_list_error("1:x");
  EXPECT_NE(int_list_error("1:x").find("expected an integer"), std::string::npos);
  EXPECT_NE(int_list_error("1,x,3").find("bad item \"x\" in \"1,x,3\""), std::string::npos);
  EXPECT_NE(int_list_error("1,,2").find("empty item"), std::string::npos);
  EXPECT_NE(int_list_error("1,").find("empty item"), std::string::npos);
  EXPECT_NE(int_list_error(",1").find("empty item"), std::string::npos);
  EXPECT_NE(int_list_error("").find("empty list"), std::string::npos);
  EXPECT_NE(int_list_error("  ").find("empty list"), std::string::npos);
  EXPECT_NE(int_list_error("1:8:0").find("step must be positive"), std::string::npos);
  EXPECT_NE(int_list_error("1:8:-2").find("step must be positive"), std::string::npos);
  EXPECT_NE(int_list_error("8:1").find("end is smaller than the start"), std::string::npos);
  EXPECT_NE(int_list_error("1:2:3:4").find("START:END:STEP"), std::string::npos);
  EXPECT_NE(int_list_error("1.5").find("bad item \"1.5\""), std::string::npos);
  EXPECT_NE(int_list_error("12abc").find("bad item \"12abc\""), std::string::npos);
  EXPECT_NE(int_list_error("99999999999999999999").find("out of range"), std::string::npos);
  EXPECT_NE(int_list_error("1:").find("found nothing"), std::string::npos);
  EXPECT_NE(int_list_error("--1").find("bad item"), std::string::npos);
  EXPECT_NE(int_list_error("1:100000000:1").find("too many values"), std::string::npos);
}

TEST(HarnessSweep, RealList) {
  EXPECT_EQ(parse_real_list("1"), std::vector<double>({1.0}));
  EXPECT_EQ(parse_real_list("0.5,-2,1.25"), std::vector<double>({0.5, -2.0, 1.25}));
  EXPECT_EQ(parse_real_list("0:1:0.25"), std::vector<double>({0, 0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(parse_real_list("1e-3,+2"), std::vector<double>({1e-3, 2.0}));
  auto v = parse_real_list("0:1:0.1");  // the end survives rounding of the step
  ASSERT_EQ(v.size(), 11u);
  EXPECT_NEAR(v.back(), 1.0, 1e-12);
  for (char const* bad : {"abc", "nan", "inf", "1,,2", "1:0", "0:1:0", "0:1:-1", "1:2:3:4", "0.5x"})
    EXPECT_NE(real_list_error(bad).find("bad item"), std::string::npos) << bad << ": " << real_list_error(bad);
  EXPECT_NE(real_list_error("").find("empty list"), std::string::npos);
}

TEST(HarnessSweep, SplitList) {
  EXPECT_EQ(split_list("add"), std::vector<std::string>({"add"}));
  EXPECT_EQ(split_list("ccc, rrr ,crc"), std::vector<std::string>({"ccc", "rrr", "crc"}));
  EXPECT_THROW(split_list(""), std::invalid_argument);
  EXPECT_THROW(split_list(","), std::invalid_argument);
  EXPECT_THROW(split_list("a,,b"), std::invalid_argument);
}

TEST(HarnessSweep, DefaultAddSweep) {
  SweepSpec s = default_validate_sweep(OpKind::add);
  EXPECT_EQ(s.op, OpKind::add);
  ASSERT_FALSE(s.kernels.empty());
  EXPECT_NE(std::find(s.kernels.begin(), s.kernels.end(), "add"), s.kernels.end());
  s.kernels = {"add"};  // the counts below are for the add kernel alone
  EXPECT_EQ(s.layouts.size(), 8u);
  EXPECT_EQ(std::set<std::string>(s.layouts.begin(), s.layouts.end()).size(), 8u);
  // Every size of {1, 7, 127, 1000, 4097} is used as M and as N.
  std::set<std::int64_t> ms, ns;
  for (auto [m, n] : s.mn_pairs) {
    ms.insert(m);
    ns.insert(n);
  }
  for (std::int64_t x : {1, 7, 127, 1000, 4097}) {
    EXPECT_TRUE(ms.count(x)) << x;
    EXPECT_TRUE(ns.count(x)) << x;
  }
  auto cases = expand(s);
  std::size_t const expected = 1 * 3 * 8 * s.mn_pairs.size() * 3 * 2 * 2;
  EXPECT_EQ(cases.size(), expected);
  EXPECT_EQ(cases.size(), 2592u);
  std::set<std::string> names;
  for (auto const& c : cases) {
    ASSERT_NE(c.kernel, nullptr);
    EXPECT_EQ(c.kernel->name, "add");
    EXPECT_EQ(c.problem.k, 0);
    EXPECT_EQ(c.problem.out_dtype, c.problem.dtype);
    EXPECT_EQ(why_unsupported(*c.kernel, c.problem, 90), "") << case_name("add", c.problem);
    EXPECT_NE(c.problem.alpha, 0.0);
    names.insert(case_name("add", c.problem) + "/" + std::to_string(c.problem.lda) + "/" +
                 std::to_string(c.problem.alpha) + "/" + std::to_string(c.misalign));
  }
  EXPECT_EQ(names.size(), cases.size());  // no duplicates
}

TEST(HarnessSweep, ExpandLeadingDimensionsAndMisalignment) {
  SweepSpec s;
  s.op = OpKind::add;
  s.kernels = {"add"};
  s.dtypes = {DType::f16};
  s.layouts = {"rcr"};
  s.m = {7};
  s.n = {127};
  s.alpha = {2};
  s.beta = {3};
  s.ld_pad = {0, 3};
  s.misalign = {1};
  auto cases = expand(s);
  ASSERT_EQ(cases.size(), 2u);
  Problem const& p0 = cases[0].problem;
  EXPECT_EQ(p0.a, Order::row);
  EXPECT_EQ(p0.b, Order::col);
  EXPECT_EQ(p0.c, Order::row);
  EXPECT_EQ(p0.lda, 127);  // row-major 7 x 127
  EXPECT_EQ(p0.ldb, 7);    // column-major 7 x 127
  EXPECT_EQ(p0.ldc, 127);
  Problem const& p1 = cases[1].problem;
  EXPECT_EQ(p1.lda, 130);
  EXPECT_EQ(p1.ldb, 10);
  EXPECT_EQ(p1.ldc, 130);
  EXPECT_EQ(cases[1].misalign, 1);
  EXPECT_EQ(p1.alpha, 2);
  EXPECT_EQ(p1.beta, 3);
}

TEST(HarnessSweep, ExpandCrossProducts) {
  SweepSpec s = default_validate_sweep(OpKind::add);
  s.mn_pairs.clear();
  s.m = {1, 2, 3};
  s.n = {4, 5};
  s.ab_pairs.clear();
  s.alpha = {1, 2};
  s.beta = {0, 1, 2};
  s.dtypes = {DType::f32};
  s.layouts = {"ccc"};
  s.ld_pad = {0};
  s.misalign = {0};
  EXPECT_EQ(expand(s).size(), 3u * 2 * 2 * 3);
  s.k = {1, 2, 3};  // ignored for add
  EXPECT_EQ(expand(s).size(), 3u * 2 * 2 * 3);
}

TEST(HarnessSweep, ExpandGemm) {
  SweepSpec s = default_validate_sweep(OpKind::gemm);
  EXPECT_FALSE(s.k.empty());
  EXPECT_FALSE(s.mn_pairs.empty());
  EXPECT_EQ(s.layouts.size(), 8u);
  for (auto k : s.kernels) EXPECT_EQ(find_kernel(k)->op, OpKind::gemm);
  // A kernel of another op contributes no case.
  s.kernels = {"add"};
  EXPECT_TRUE(expand(s).empty());
}

TEST(HarnessSweep, ExpandRejectsUnknownNames) {
  SweepSpec s = default_validate_sweep(OpKind::add);
  s.kernels = {"nope"};
  EXPECT_THROW(expand(s), std::invalid_argument);
  s = default_validate_sweep(OpKind::add);
  s.layouts = {"cxc"};
  EXPECT_THROW(expand(s), std::invalid_argument);
}

}  // namespace

namespace {

loom::Problem gemm_case() {
  loom::Problem p;
  p.op = loom::OpKind::gemm;
  p.dtype = loom::DType::bf16;
  p.out_dtype = loom::DType::f32;
  p.m = 1000, p.n = 129, p.k = 255;
  EXPECT_TRUE(loom::parse_layout("rcr", &p));
  p.alpha = 0.5, p.beta = -2;
  p = loom::with_default_lds(p);
  p.lda += 3, p.ldb += 3, p.ldc += 3;
  return p;
}

}  // namespace

// A case's seed follows from the case, not from where it sits in a sweep: the same case gets the
// same inputs in any sweep and for any kernel, and any change to the case or the run's seed
// changes them.
TEST(HarnessSweep, CaseSeedIsKeyedByTheCase) {
  using loom::harness::case_seed;
  loom::Problem const p = gemm_case();
  EXPECT_EQ(case_seed(7, p, 1), case_seed(7, p, 1));
  EXPECT_NE(case_seed(7, p, 1), case_seed(8, p, 1));
  EXPECT_NE(case_seed(7, p, 1), case_seed(7, p, 0));
  for (auto change : std::vector<std::function<void(loom::Problem&)>>{
           [](loom::Problem& q) { q.m += 1; }, [](loom::Problem& q) { q.k += 1; },
           [](loom::Problem& q) { q.lda += 1; }, [](loom::Problem& q) { q.beta = 0; },
           [](loom::Problem& q) { q.out_dtype = loom::DType::bf16; }, [](loom::Problem& q) { q.a = loom::Order::col; }}) {
    loom::Problem q = p;
    change(q);
    EXPECT_NE(case_seed(7, p, 1), case_seed(7, q, 1));
  }
}

// The repro line names every axis of the case, and loom-validate's padding rule gives back its
// leading dimensions.
TEST(HarnessSweep, ReproCommand) {
  loom::Problem const p = gemm_case();
  EXPECT_EQ(loom::harness::repro_command("sm90", p, 1, 20240601),
            "loom-validate --kernels=sm90 --op=gemm --dtypes=bf16 --out-dtypes=f32 --layouts=rcr --m=1000 --n=129 "
            "--k=255 --ld-pad=3 --misalign=1 --alpha=0.5 --beta=-2 --seed=20240601");
  loom::Problem a;
  a.op = loom::OpKind::add;
  a.m = 7, a.n = 127;
  a.alpha = 1.25, a.beta = 0.1;
  EXPECT_EQ(loom::harness::repro_command("add", a, 0, 1),
            "loom-validate --kernels=add --op=add --dtypes=f32 --layouts=ccc --m=7 --n=127 --ld-pad=0 --misalign=0 "
            "--alpha=1.25 --beta=0.1 --seed=1");
}

// loom-bench's repro line names every axis of a benchmark's case (K only for gemm; both scalars,
// whose defaults differ by op) and refuses an output dtype loom-bench cannot time.
TEST(HarnessSweep, BenchReproCommand) {
  loom::Problem g;
  g.op = loom::OpKind::gemm;
  g.dtype = g.out_dtype = loom::DType::bf16;
  g.m = 1, g.n = 4096, g.k = 11008;
  EXPECT_TRUE(loom::parse_layout("rcr", &g));
  g.alpha = 1, g.beta = 0.1;
  EXPECT_EQ(loom::harness::bench_repro_command("gemm", "", g),
            "loom-bench --kernels=gemm --dtypes=bf16 --layouts=rcr --m=1 --n=4096 --k=11008 --alpha=1 --beta=0.1");
  EXPECT_EQ(loom::harness::bench_repro_command("sm80", "cublas", g),
            "loom-bench --kernels=sm80 --dtypes=bf16 --layouts=rcr --m=1 --n=4096 --k=11008 --alpha=1 --beta=0.1 "
            "--providers=cublas");
  loom::Problem a;
  a.op = loom::OpKind::add;
  a.dtype = a.out_dtype = loom::DType::f16;
  a.m = 2048, a.n = 7;
  a.alpha = 0.5, a.beta = 1;
  EXPECT_EQ(loom::harness::bench_repro_command("add", "memcpy", a),
            "loom-bench --kernels=add --dtypes=f16 --layouts=ccc --m=2048 --n=7 --alpha=0.5 --beta=1 --providers=memcpy");
  g.out_dtype = loom::DType::f32;
  EXPECT_THROW(loom::harness::bench_repro_command("sm80", "", g), std::invalid_argument);
}
