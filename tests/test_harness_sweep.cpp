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
// whose defaults differ by op; the output dtype where it is not the inputs' default).
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
  EXPECT_EQ(loom::harness::bench_repro_command("sm80", "", g),
            "loom-bench --kernels=sm80 --dtypes=bf16 --out-dtypes=f32 --layouts=rcr --m=1 --n=4096 --k=11008 "
            "--alpha=1 --beta=0.1");
}

// The input types of the 8-bit pairs: their names, the outputs each takes and its default one.
TEST(HarnessSweep, InputTypes) {
  using loom::DType;
  using loom::OpKind;
  using loom::harness::InputTypes;
  EXPECT_EQ(InputTypes(DType::bf16).name(), "bf16");
  EXPECT_EQ(InputTypes(DType::e4m3).name(), "e4m3");
  EXPECT_EQ(InputTypes(DType::e4m3, DType::e5m2).name(), "e4m3xe5m2");
  EXPECT_EQ(InputTypes(DType::e5m2, DType::e4m3).name(), "e5m2xe4m3");
  EXPECT_EQ(InputTypes(DType::e5m2, DType::e5m2), InputTypes(DType::e5m2));
  EXPECT_EQ(InputTypes(DType::e4m3, DType::e4m3, true).name(), "e4m3-fast");
  EXPECT_EQ(InputTypes(DType::e5m2, DType::e4m3, true).name(), "e5m2xe4m3-fast");
  EXPECT_NE(InputTypes(DType::e4m3, DType::e4m3, true), InputTypes(DType::e4m3));
  // The name is the case's input_types().
  loom::Problem p;
  p.dtype = DType::e5m2, p.b_dtype = DType::e4m3;
  EXPECT_EQ(loom::input_types(p), InputTypes(DType::e5m2, DType::e4m3).name());
  p.fast_accum = true;
  EXPECT_EQ(loom::input_types(p), InputTypes(DType::e5m2, DType::e4m3, true).name());
  EXPECT_EQ(loom::harness::default_output(DType::e4m3), DType::bf16);
  EXPECT_EQ(loom::harness::default_output(InputTypes(DType::e5m2, DType::e4m3)), DType::bf16);
  EXPECT_EQ(loom::harness::default_output(DType::f16), DType::f16);
  for (DType o : {DType::bf16, DType::f16, DType::f32}) {
    EXPECT_TRUE(loom::harness::takes_output(OpKind::gemm, DType::e4m3, o)) << loom::to_string(o);
    EXPECT_TRUE(loom::harness::takes_output(OpKind::gemm, InputTypes(DType::e4m3, DType::e5m2), o));
  }
  EXPECT_FALSE(loom::harness::takes_output(OpKind::gemm, DType::e4m3, DType::e4m3));
  EXPECT_TRUE(loom::harness::takes_output(OpKind::gemm, DType::bf16, DType::f32));
  EXPECT_FALSE(loom::harness::takes_output(OpKind::gemm, DType::bf16, DType::f16));
  EXPECT_FALSE(loom::harness::takes_output(OpKind::gemm, DType::f32, DType::bf16));
  EXPECT_FALSE(loom::harness::takes_output(OpKind::add, DType::bf16, DType::f32));
}

// A sweep of 8-bit inputs: each a case of its own types (B's in b_dtype where it differs), output
// bf16 unless --out-dtypes names others, of the kernels that list both types; count_cases agrees.
TEST(HarnessSweep, ExpandEightBitInputs) {
  using loom::DType;
  using loom::harness::InputTypes;
  loom::harness::SweepSpec s;
  s.op = loom::OpKind::gemm;
  for (auto const& k : loom::kernels())
    if (k.op == loom::OpKind::gemm) s.kernels.push_back(k.name);
  s.dtypes = {DType::bf16, DType::e4m3, InputTypes(DType::e4m3, DType::e5m2), InputTypes(DType::e5m2, DType::e4m3),
              InputTypes(DType::e4m3, DType::e5m2, true)};
  s.layouts = {"rcr"};
  s.m = {128}, s.n = {256}, s.k = {64};
  s.alpha = {1}, s.beta = {0};
  s.ld_pad = {0}, s.misalign = {0};
  auto takes = [](loom::KernelInfo const& k, InputTypes t) {
    auto has = [&](DType d) { return std::find(k.dtypes.begin(), k.dtypes.end(), d) != k.dtypes.end(); };
    return has(t.a) && has(t.b);
  };
  for (std::vector<DType> outs : {std::vector<DType>{}, std::vector<DType>{DType::f16, DType::f32}}) {
    s.out_dtypes = outs;
    std::size_t want = 0;
    for (auto const& name : s.kernels)
      for (InputTypes t : s.dtypes)
        if (takes(*loom::find_kernel(name), t))
          want += outs.empty() ? 1 : loom::is_8bit(t.a) ? 2 : 1;  // bf16: f32 only
    auto const cases = expand(s);
    EXPECT_EQ(cases.size(), want);
    EXPECT_EQ(count_cases(s), want);
    for (auto const& c : cases) {
      loom::Problem const& p = c.problem;
      bool const narrow = loom::is_8bit(p.dtype);
      EXPECT_TRUE(takes(*c.kernel, InputTypes(p.dtype, loom::b_type(p))));
      EXPECT_TRUE(!p.b_dtype || *p.b_dtype != p.dtype) << loom::case_name(c.kernel->name, p);
      EXPECT_EQ(p.fast_accum, loom::input_types(p) == "e4m3xe5m2-fast") << loom::case_name(c.kernel->name, p);
      if (outs.empty()) {
        EXPECT_EQ(p.out_dtype, narrow ? DType::bf16 : p.dtype);
      } else if (!narrow) {
        EXPECT_EQ(p.out_dtype, DType::f32);
      } else {
        EXPECT_TRUE(p.out_dtype == DType::f16 || p.out_dtype == DType::f32);
      }
    }
  }
}

// loom-validate's 8-bit sweep: every case has k-major A and B, leading dimensions of A and B a
// multiple of 16 (the 8-bit path's), aligned pointers, and the three pairs.
TEST(HarnessSweep, DefaultValidateSweep8Bit) {
  using loom::DType;
  using loom::harness::InputTypes;
  loom::harness::SweepSpec const s = loom::harness::default_validate_sweep_8bit();
  EXPECT_EQ(s.op, loom::OpKind::gemm);
  EXPECT_EQ(s.dtypes, (std::vector<InputTypes>{DType::e4m3, InputTypes(DType::e4m3, DType::e5m2),
                                                InputTypes(DType::e5m2, DType::e4m3),
                                                InputTypes(DType::e4m3, DType::e4m3, true)}));
  EXPECT_EQ(s.layouts, (std::vector<std::string>{"rcr", "rcc"}));
  EXPECT_EQ(s.misalign, std::vector<int>{0});
  EXPECT_TRUE(s.out_dtypes.empty());
  for (auto k : s.kernels) EXPECT_EQ(loom::find_kernel(k)->op, loom::OpKind::gemm);
  // The cases of the registered kernels that take 8-bit inputs (none before one does).
  for (auto const& c : expand(s)) {
    loom::Problem const& p = c.problem;
    EXPECT_EQ(p.a, loom::Order::row);
    EXPECT_EQ(p.b, loom::Order::col);
    EXPECT_EQ(p.lda % 16, 0) << loom::case_name(c.kernel->name, p);
    EXPECT_EQ(p.ldb % 16, 0) << loom::case_name(c.kernel->name, p);
    EXPECT_EQ(p.out_dtype, DType::bf16);
  }
  for (auto k : s.k) EXPECT_EQ(k % 16, 0);
  for (auto pad : s.ld_pad) EXPECT_EQ(pad % 16, 0);
}

// An 8-bit pair's seed differs from its single type's, and the repro lines name the pair; an
// output other than bf16 is named in both (--out-dtypes), bf16 in neither.
TEST(HarnessSweep, EightBitSeedsAndRepro) {
  loom::Problem p;
  p.op = loom::OpKind::gemm;
  p.dtype = loom::DType::e4m3;
  p.out_dtype = loom::DType::bf16;
  p.m = 100, p.n = 128, p.k = 272;
  EXPECT_TRUE(loom::parse_layout("rcr", &p));
  p = loom::with_default_lds(p);
  loom::Problem q = p;
  q.b_dtype = loom::DType::e5m2;
  EXPECT_NE(loom::harness::case_seed(7, p, 0), loom::harness::case_seed(7, q, 0));
  EXPECT_EQ(loom::harness::repro_command("gemm", q, 0, 5),
            "loom-validate --kernels=gemm --op=gemm --dtypes=e4m3xe5m2 --layouts=rcr --m=100 --n=128 --k=272 "
            "--ld-pad=0 --misalign=0 --alpha=1 --beta=0 --seed=5");
  EXPECT_EQ(loom::harness::bench_repro_command("gemm", "", q),
            "loom-bench --kernels=gemm --dtypes=e4m3xe5m2 --layouts=rcr --m=100 --n=128 --k=272 --alpha=1 --beta=0");
  // The fast accumulation mode: named in the lines, the same inputs as the accurate mode's.
  loom::Problem f = q;
  f.fast_accum = true;
  EXPECT_EQ(loom::harness::case_seed(7, f, 0), loom::harness::case_seed(7, q, 0));
  EXPECT_NE(loom::harness::bench_repro_command("gemm", "", f).find(" --dtypes=e4m3xe5m2-fast "), std::string::npos);
  q.out_dtype = loom::DType::f32;
  EXPECT_NE(loom::harness::repro_command("gemm", q, 0, 5).find(" --out-dtypes=f32 "), std::string::npos);
  EXPECT_NE(loom::harness::bench_repro_command("gemm", "", q).find(" --dtypes=e4m3xe5m2 --out-dtypes=f32 "),
            std::string::npos);
  q.out_dtype = loom::DType::bf16;  // 8-bit inputs' default output: no option
  EXPECT_EQ(loom::harness::bench_repro_command("gemm", "", q).find("--out-dtypes"), std::string::npos);
}

// Block scales in the input types' names: "-block" after 8-bit types, as input_types() names a
// case's and parse_input_types reads it; never after 16- or 32-bit types, never with "-fast".
TEST(HarnessSweep, BlockScaleInputTypes) {
  using loom::DType;
  using loom::ScaleMode;
  using loom::harness::InputTypes;
  EXPECT_EQ(InputTypes(DType::e4m3, DType::e4m3, false, ScaleMode::block).name(), "e4m3-block");
  EXPECT_EQ(InputTypes(DType::e4m3, DType::e5m2, false, ScaleMode::block).name(), "e4m3xe5m2-block");
  EXPECT_NE(InputTypes(DType::e4m3, DType::e4m3, false, ScaleMode::block), InputTypes(DType::e4m3));
  EXPECT_EQ(InputTypes(DType::bf16, DType::bf16, false, ScaleMode::block).name(), "bf16");  // not 8-bit: no suffix
  loom::Problem p;
  ASSERT_TRUE(loom::parse_input_types("e4m3-block", &p));
  EXPECT_EQ(p.dtype, DType::e4m3);
  EXPECT_FALSE(p.b_dtype);
  EXPECT_EQ(p.scale, ScaleMode::block);
  EXPECT_FALSE(p.fast_accum);
  EXPECT_EQ(loom::input_types(p), "e4m3-block");
  ASSERT_TRUE(loom::parse_input_types("e5m2xe4m3-block", &p));
  EXPECT_EQ(p.dtype, DType::e5m2);
  EXPECT_EQ(p.b_dtype, DType::e4m3);
  EXPECT_EQ(p.scale, ScaleMode::block);
  EXPECT_EQ(loom::input_types(p), InputTypes(DType::e5m2, DType::e4m3, false, ScaleMode::block).name());
  ASSERT_TRUE(loom::parse_input_types("e4m3", &p));  // and back: tensor scales
  EXPECT_EQ(p.scale, ScaleMode::tensor);
  loom::Problem const before = p;
  for (char const* bad : {"bf16-block", "f32-block", "f16-block", "e4m3-fast-block", "e4m3-block-fast", "e4m3-block-block",
                          "-block", "block", "e4m3x-block"}) {
    loom::Problem q = before;
    EXPECT_FALSE(loom::parse_input_types(bad, &q)) << bad;
    EXPECT_EQ(q.scale, ScaleMode::tensor) << bad << ": p changed";
    EXPECT_EQ(q.dtype, DType::e4m3) << bad << ": p changed";
  }
}

// The scale axis (SweepSpec::scales, --scale): a case per mode for each 8-bit input named without
// -block, tensor alone for its -fast form and for 16-bit inputs, block alone for one named -block;
// a case two inputs give alike once; count_cases agrees with expand.
TEST(HarnessSweep, ExpandScaleAxis) {
  using loom::DType;
  using loom::ScaleMode;
  using loom::harness::InputTypes;
  loom::harness::SweepSpec s;
  s.op = loom::OpKind::gemm;
  s.kernels = {"gemm"};  // takes f16, bf16, e4m3 and e5m2
  s.layouts = {"rcr"};
  s.m = {128}, s.n = {256}, s.k = {384};
  s.alpha = {1}, s.beta = {0};
  s.ld_pad = {0}, s.misalign = {0};
  InputTypes const e4m3_block(DType::e4m3, DType::e4m3, false, ScaleMode::block);
  InputTypes const pair_block(DType::e4m3, DType::e5m2, false, ScaleMode::block);
  auto names = [](loom::harness::SweepSpec const& spec) {
    std::multiset<std::string> out;
    for (auto const& c : expand(spec)) {
      loom::Problem const& p = c.problem;
      // The name says the case: "-block" exactly where the problem has block scales, never with -fast.
      EXPECT_EQ(p.scale == ScaleMode::block, loom::input_types(p).find("-block") != std::string::npos);
      EXPECT_FALSE(p.scale == ScaleMode::block && p.fast_accum);
      if (!loom::is_8bit(p.dtype)) {
        EXPECT_EQ(p.scale, ScaleMode::tensor);
      }
      out.insert(loom::input_types(p));
    }
    EXPECT_EQ(count_cases(spec), out.size());
    return out;
  };
  s.dtypes = {DType::bf16, DType::e4m3, InputTypes(DType::e4m3, DType::e4m3, true), pair_block};
  // The default: tensor alone (but for the input named -block).
  EXPECT_EQ(names(s), (std::multiset<std::string>{"bf16", "e4m3", "e4m3-fast", "e4m3xe5m2-block"}));
  s.scales = {ScaleMode::tensor, ScaleMode::block};
  EXPECT_EQ(names(s), (std::multiset<std::string>{"bf16", "e4m3", "e4m3-block", "e4m3-fast", "e4m3xe5m2-block"}));
  s.scales = {ScaleMode::block};
  EXPECT_EQ(names(s), (std::multiset<std::string>{"bf16", "e4m3-block", "e4m3xe5m2-block"}));
  s.scales.clear();  // empty: tensor
  EXPECT_EQ(names(s), (std::multiset<std::string>{"bf16", "e4m3", "e4m3-fast", "e4m3xe5m2-block"}));
  // e4m3 with block scales and e4m3-block are one case.
  s.dtypes = {DType::e4m3, e4m3_block};
  s.scales = {ScaleMode::block, ScaleMode::tensor};
  EXPECT_EQ(names(s), (std::multiset<std::string>{"e4m3-block", "e4m3"}));
  // 16-bit inputs alone: the axis changes nothing.
  s.dtypes = {DType::bf16, DType::f16};
  s.scales = {ScaleMode::block};
  EXPECT_EQ(names(s), (std::multiset<std::string>{"bf16", "f16"}));
  // Block and tensor cases of one problem share their inputs (the seed hashes no scaling), as the
  // fast and accurate modes do, so that their errors compare.
  loom::Problem t, b;
  t.op = b.op = loom::OpKind::gemm;
  t.dtype = b.dtype = DType::e4m3;
  t.m = b.m = 64, t.n = b.n = 64, t.k = b.k = 256;
  b.scale = ScaleMode::block;
  EXPECT_EQ(loom::harness::case_seed(3, t, 0), loom::harness::case_seed(3, b, 0));
}

// The repro lines of a block-scaled case name it by its input types, which both tools read back.
TEST(HarnessSweep, BlockScaleRepro) {
  loom::Problem p;
  p.op = loom::OpKind::gemm;
  p.dtype = loom::DType::e4m3;
  p.out_dtype = loom::DType::bf16;
  p.scale = loom::ScaleMode::block;
  p.m = 100, p.n = 128, p.k = 272;
  EXPECT_TRUE(loom::parse_layout("rcr", &p));
  EXPECT_EQ(loom::harness::repro_command("gemm", p, 0, 5),
            "loom-validate --kernels=gemm --op=gemm --dtypes=e4m3-block --layouts=rcr --m=100 --n=128 --k=272 "
            "--ld-pad=0 --misalign=0 --alpha=1 --beta=0 --seed=5");
  EXPECT_EQ(loom::harness::bench_repro_command("gemm", "cublas", p),
            "loom-bench --kernels=gemm --dtypes=e4m3-block --layouts=rcr --m=100 --n=128 --k=272 --alpha=1 --beta=0 "
            "--providers=cublas");
}
