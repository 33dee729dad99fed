// Harness on a GPU: buffers, fill/poison/to_host, cuBLAS against the fp64 reference, the add
// kernel through the registry, the event timer. Every test skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <regex>
#include <thread>
#include <tuple>
#include <vector>

#include "harness/harness.hpp"
#include "tests/cublas_check.hpp"
#include "tests/gpu_test_util.hpp"

namespace {

using namespace loom;
using namespace loom::harness;

using loom::test::have_gpu;

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU"

TEST(HarnessGpu, QueryDevice) {
  REQUIRE_GPU();
  DeviceInfo d = query_device(0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.cc, 50);
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.peak_dram_gbs, 100);
  EXPECT_GT(d.peak_fp32_tflops, 1);
  EXPECT_GT(d.cublas_version, 0);
  std::string s = describe(d);
  EXPECT_NE(s.find(d.name), std::string::npos);
  EXPECT_NE(s.find("GB/s"), std::string::npos);
  std::printf("%s\n", s.c_str());
  Clocks c = current_clocks(0);
  std::printf("current clocks: SM %d MHz, memory %d MHz\n", c.sm_mhz, c.mem_mhz);
  EXPECT_THROW(query_device(1000), Error);
}

TEST(HarnessGpu, FillPoisonToHost) {
  REQUIRE_GPU();
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::e4m3, DType::e5m2})
    for (Order o : {Order::col, Order::row})
      for (int mis : {0, 1, 3}) {
        std::int64_t const R = 37, C = 5, pad = 3;
        std::int64_t const ld = min_ld(o, R, C) + pad;
        DeviceMatrix m(t, R, C, o, ld, mis);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m.data()) - reinterpret_cast<std::uintptr_t>(m.base()),
                  std::uintptr_t(mis) * size_of(t));
        poison(m);
        for (double x : to_host(m)) ASSERT_TRUE(std::isnan(x));
        fill_random(m, 99);
        EXPECT_EQ(to_host(m), random_values(t, R * C, 99));
        // Padding, the misalignment gap and the slack stay poisoned (all bytes 0xFF).
        std::vector<unsigned char> raw(m.bytes());
        LOOM_CUDA(cudaMemcpy(raw.data(), m.base(), m.bytes(), cudaMemcpyDeviceToHost));
        std::vector<bool> stored(m.bytes(), false);
        for (std::int64_t i = 0; i < R; ++i)
          for (std::int64_t j = 0; j < C; ++j)
            for (std::size_t b = 0; b < size_of(t); ++b)
              stored[std::size_t(mis + m.offset(i, j)) * size_of(t) + b] = true;
        for (std::size_t b = 0; b < raw.size(); ++b)
          if (!stored[b]) {
            ASSERT_EQ(raw[b], 0xFF) << "byte " << b;
          }
        // from_host writes logical column-major values (8-bit: signed powers of two, exact in both).
        std::vector<double> v(std::size_t(R * C));
        for (std::size_t i = 0; i < v.size(); ++i)
          v[i] = is_8bit(t) ? std::ldexp(i % 2 ? -1.0 : 1.0, int(i % 9) - 4) : double(i % 97) - 48;
        from_host(m, v);
        EXPECT_EQ(to_host(m), v);
      }
  EXPECT_THROW(DeviceMatrix(DType::f32, 4, 4, Order::col, 3), Error);
  EXPECT_THROW(DeviceMatrix(DType::f32, 0, 4, Order::col), Error);
}

// cuBLAS (geam, GemmEx) agrees with the fp64 host reference on every layout, padded and
// misaligned: the reference path itself is right.
TEST(HarnessGpu, CublasMatchesHostReference) {
  REQUIRE_GPU();
  cublasHandle_t h;
  LOOM_CUBLAS(cublasCreate(&h));
  std::uint64_t seed = 1;
  int checked = 0;
  for (OpKind op : {OpKind::add, OpKind::gemm})
    for (DType t : {DType::f32, DType::f16, DType::bf16})
      for (char const* layout : {"ccc", "ccr", "crc", "crr", "rcc", "rcr", "rrc", "rrr"})
        for (int pad : {0, 3})
          for (int mis : {0, 1}) {
            Problem p;
            p.op = op;
            p.dtype = p.out_dtype = t;
            p.m = 37;
            p.n = 19;
            p.k = op == OpKind::gemm ? 45 : 0;
            p.alpha = 0.5;
            p.beta = -2;
            ASSERT_TRUE(parse_layout(layout, &p));
            p = with_default_lds(p);
            p.lda += pad;
            p.ldb += pad;
            p.ldc += pad;
            if (!why_no_cublas(p).empty()) continue;
            CaseBuffers buf = make_buffers(p, mis);
            fill_random(buf.a, seed++);
            fill_random(buf.b, seed++);
            if (!buf.c.empty()) fill_random(buf.c, seed++);
            poison(buf.d);
            reference_cublas(p, buf.operands(), h, nullptr);
            LOOM_CUDA(cudaDeviceSynchronize());
            auto ref = reference_host(p, to_host(buf.a), to_host(buf.b),
                                      buf.c.empty() ? std::vector<double>{} : to_host(buf.c));
            ErrorStats st = compare(to_host(buf.d), ref, t, p);
            EXPECT_TRUE(st.pass) << case_name("cublas", p) << " pad " << pad << " mis " << mis << ": " << st.why;
            ++checked;
          }
  cublasDestroy(h);
  EXPECT_EQ(checked, 8 * 2 * 2 * (1 + 3));  // f32 add and all three gemms
}

// An 8-bit gemm case: inputs t, output `out`, `layout` (three letters of r and c), default leading
// dimensions.
Problem gemm_8bit(InputTypes t, DType out, char const* layout, std::int64_t m, std::int64_t n, std::int64_t k,
                  double alpha, double beta) {
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = t.a;
  if (t.b != t.a) p.b_dtype = t.b;
  p.out_dtype = out;
  p.m = m, p.n = n, p.k = k;
  p.alpha = alpha;
  p.beta = beta;
  EXPECT_TRUE(parse_layout(layout, &p)) << layout;
  return with_default_lds(p);
}

// cuBLASLt's FP8 gemm twice on fresh A, B and C (D poisoned before each): the same bits both
// times, and within the 8-bit tolerance of the fp64 reference with `scales` (`typical`: the RMS the
// tolerance floors at).
void check_cublaslt_twice(Problem const& p, CaseBuffers& buf, std::uint64_t& seed, CaseScales const& scales,
                          double typical, std::string const& what) {
  fill_random(buf.a, seed++);
  fill_random(buf.b, seed++);
  fill_random(buf.c, seed++);
  std::vector<std::vector<double>> runs;
  for (int run = 0; run < 2; ++run) {
    poison(buf.d);
    cublaslt_gemm(p, buf.operands(), nullptr);
    LOOM_CUDA(cudaDeviceSynchronize());
    runs.push_back(to_host(buf.d));
  }
  EXPECT_TRUE(runs[0] == runs[1]) << what;
  auto const ref = reference_host(p, to_host(buf.a), to_host(buf.b), to_host(buf.c), scales);
  ErrorStats const st = compare(runs[0], ref, p.out_dtype, p, typical);
  EXPECT_TRUE(st.pass) << what << ": " << st.why;
  std::printf("%s: rel_fro %.3g (tolerance %.3g)\n", what.c_str(), st.rel_fro, st.tol);
}

// 8-bit gemm: fresh A, B and C (the padding NaN: read, it would show), then cuBLAS over the
// exactly widened inputs (reference_cublas) against the fp64 reference with the case's `scales`:
// exact products summed in fp32 against fp64, as close as 16-bit inputs' gemm is held to (for
// 16-bit outputs, within a few of their own roundings); the reference of `unscaled` (the scales
// taken in another place, or none) must not pass. `rms_scales`: what typical_rms reads.
void check_widened_cublas(Problem const& p, CaseBuffers& buf, cublasHandle_t h, CaseScales const& scales,
                          CaseScales const& rms_scales, Problem const& unscaled, std::uint64_t& seed, int mis) {
  DType const out = p.out_dtype;
  poison(buf.a), poison(buf.b), poison(buf.d);
  fill_random(buf.a, seed++);
  fill_random(buf.b, seed++);
  fill_random(buf.c, seed++);
  reference_cublas(p, buf.operands(), h, nullptr);
  LOOM_CUDA(cudaDeviceSynchronize());
  std::vector<double> const A = to_host(buf.a), B = to_host(buf.b), C = to_host(buf.c), D = to_host(buf.d);
  std::string const what = case_name("cublas", p) + ">" + to_string(out) + " mis " + std::to_string(mis);
  ErrorStats st = compare(D, reference_host(p, A, B, C, scales), out, p, typical_rms(p, rms_scales));
  EXPECT_TRUE(st.pass) << what << ": " << st.why;
  EXPECT_LE(st.rel_fro, out == DType::f32 ? tolerance(DType::bf16, out, OpKind::gemm, p.k) : 4 * unit_roundoff(out))
      << what;
  EXPECT_FALSE(compare(D, reference_host(unscaled, A, B, C), out, p, typical_rms(p, rms_scales)).pass) << what;
}

// 8-bit gemm: cuBLAS over the exactly widened inputs, with the tensor scales, agrees with the fp64
// reference on every layout, padded and misaligned, for each pair and output (both accumulate
// exact products, in fp32 and fp64), and a reference without the scales does not.
TEST(HarnessGpu, CublasMatchesHostReference8Bit) {
  REQUIRE_GPU();
  cublasHandle_t h;
  LOOM_CUBLAS(cublasCreate(&h));
  std::uint64_t seed = 1;
  int checked = 0;
  for (InputTypes t : {InputTypes(DType::e4m3), InputTypes(DType::e4m3, DType::e5m2),
                       InputTypes(DType::e5m2, DType::e4m3), InputTypes(DType::e5m2)})
    for (DType out : {DType::bf16, DType::f16, DType::f32})
      for (char const* layout : {"ccc", "ccr", "crc", "crr", "rcc", "rcr", "rrc", "rrr"})
        for (int mis : {0, 3}) {
          Problem p = gemm_8bit(t, out, layout, 37, 19, 45, 0.5, mis ? -2 : 0);
          p.lda += mis, p.ldb += mis, p.ldc += mis;
          ASSERT_EQ(why_no_cublas(p), "");
          CaseBuffers buf = make_buffers(p, mis, seed);
          ASSERT_NE(buf.scales.a, 1.0);
          Operands const ops = buf.operands();
          ASSERT_EQ(reinterpret_cast<std::uintptr_t>(ops.scale_a) % 16, 0u);  // as cuBLASLt needs them
          ASSERT_EQ(reinterpret_cast<std::uintptr_t>(ops.scale_b) % 16, 0u);
          float dev[2] = {0, 0};
          LOOM_CUDA(cudaMemcpy(&dev[0], ops.scale_a, 4, cudaMemcpyDeviceToHost));
          LOOM_CUDA(cudaMemcpy(&dev[1], ops.scale_b, 4, cudaMemcpyDeviceToHost));
          ASSERT_EQ(double(dev[0]), buf.scales.a);
          ASSERT_EQ(double(dev[1]), buf.scales.b);
          check_widened_cublas(p, buf, h, buf.scales, {}, p, seed, mis);
          ++checked;
        }
  cublasDestroy(h);
  EXPECT_EQ(checked, 4 * 3 * 8 * 2);
}

// cuBLASLt's FP8 gemm (loom-bench's baseline of 8-bit cases) on a Hopper GPU: right against the
// fp64 reference with the 8-bit tolerance, both k-major layouts, each pair and output, C read or
// not; a second call (the cached plan) gives the same bits; what why_no_cublaslt refuses throws.
TEST(HarnessGpu, CublasLtFp8MatchesHostReference) {
  REQUIRE_GPU();
  if (query_device(0).cc != 90) GTEST_SKIP() << "cuBLASLt's FP8 gemm is timed on compute capability 9.0";
  std::uint64_t seed = 100;
  for (InputTypes t : {InputTypes(DType::e4m3), InputTypes(DType::e4m3, DType::e5m2), InputTypes(DType::e5m2, DType::e4m3)})
    for (DType out : {DType::bf16, DType::f16, DType::f32})
      for (char const* layout : {"rcr", "rcc"})
        for (double beta : {0.0, 0.5}) {
          Problem const p = gemm_8bit(t, out, layout, 136, 264, 1040, 1.5, beta);
          std::string const what = case_name("cublas", p) + ">" + to_string(out) + " beta " + std::to_string(beta);
          ASSERT_EQ(why_no_cublaslt(p), "") << what;
          CaseBuffers buf = make_buffers(p, 0, seed);
          check_cublaslt_twice(p, buf, seed, buf.scales, typical_rms(p), what);
        }
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = DType::e4m3;
  p.out_dtype = DType::bf16;
  p.m = p.n = p.k = 64;
  ASSERT_TRUE(parse_layout("ccc", &p));
  CaseBuffers buf = make_buffers(p, 0, 1);
  EXPECT_THROW(cublaslt_gemm(p, buf.operands(), nullptr), Error);
}

// 8-bit gemm with block scales: make_buffers puts the case's block scales on the device as they
// are on the host (16-byte aligned, NaN padding and all), and cuBLAS over A and B widened times
// their scales agrees with the fp64 reference on every layout, padded and misaligned, for each pair
// and output, as closely as the tensor-scaled case does; references that take the scales in
// another place (none, or the tensor mode's) do not.
TEST(HarnessGpu, CublasMatchesHostReference8BitBlockScales) {
  REQUIRE_GPU();
  cublasHandle_t h;
  LOOM_CUBLAS(cublasCreate(&h));
  std::uint64_t seed = 500;
  int checked = 0;
  for (InputTypes t : {InputTypes(DType::e4m3), InputTypes(DType::e4m3, DType::e5m2),
                       InputTypes(DType::e5m2, DType::e4m3), InputTypes(DType::e5m2)})
    for (DType out : {DType::bf16, DType::f16, DType::f32})
      for (char const* layout : {"ccc", "crr", "rcc", "rcr", "rrc"})
        for (int mis : {0, 3}) {
          // M of 37 (not a multiple of 4), N of 200 (two columns of B's blocks, the second
          // partial), K of 300 (three k blocks, the last partial; B's array padded to 4).
          Problem p = gemm_8bit(t, out, layout, 37, 200, 300, 0.5, mis ? -2 : 0);
          p.scale = ScaleMode::block;
          p.lda += mis, p.ldb += mis, p.ldc += mis;
          ASSERT_EQ(why_no_cublas(p), "");
          CaseBuffers buf = make_buffers(p, mis, seed);
          ASSERT_FALSE(buf.block.empty());
          ASSERT_TRUE(buf.scale_buf.empty());
          Operands const ops = buf.operands();
          ASSERT_EQ(ops.scale_a, static_cast<float const*>(buf.block_a.data()));
          ASSERT_EQ(ops.scale_b, static_cast<float const*>(buf.block_b.data()));
          ASSERT_EQ(reinterpret_cast<std::uintptr_t>(ops.scale_a) % 16, 0u);
          ASSERT_EQ(reinterpret_cast<std::uintptr_t>(ops.scale_b) % 16, 0u);
          std::vector<float> da(buf.block.a.size()), db(buf.block.b.size());
          LOOM_CUDA(cudaMemcpy(da.data(), ops.scale_a, da.size() * 4, cudaMemcpyDeviceToHost));
          LOOM_CUDA(cudaMemcpy(db.data(), ops.scale_b, db.size() * 4, cudaMemcpyDeviceToHost));
          ASSERT_EQ(std::memcmp(da.data(), buf.block.a.data(), da.size() * 4), 0);
          ASSERT_EQ(std::memcmp(db.data(), buf.block.b.data(), db.size() * 4), 0);  // NaN padding too
          Problem tensor = p;
          tensor.scale = ScaleMode::tensor;
          check_widened_cublas(p, buf, h, buf.host_scales(), buf.host_scales(), tensor, seed, mis);
          ++checked;
        }
  cublasDestroy(h);
  EXPECT_EQ(checked, 4 * 3 * 5 * 2);
}

// cuBLASLt's FP8 gemm with block scales (loom-bench's baseline of block-scaled cases) on a Hopper
// GPU, on the very arrays Loom's kernel reads: where its heuristic takes the case, right against
// the fp64 reference with the 8-bit tolerance, in both k-major layouts (rcc: cuBLASLt's A is Loom's
// A; rcr: it is Loom's B, the scale modes swapped with the operands), K a multiple of 128 or not. A
// layout or mode mix-up shows as a failure (rel_fro near 1); a case the heuristic refuses is
// printed and left. M not a multiple of 4 is refused by why_no_cublaslt (the heuristic refuses it
// on an H100, cuBLAS 13.0: 2026-11-27).
TEST(HarnessGpu, CublasLtBlockScalesMatchHostReference) {
  REQUIRE_GPU();
  if (query_device(0).cc != 90) GTEST_SKIP() << "cuBLASLt's FP8 gemm is timed on compute capability 9.0";
  std::uint64_t seed = 900;
  int ran = 0, refused = 0;
  struct Shape {
    char const* layout;
    std::int64_t m, n, k;
  };
  for (Shape const& sh : {Shape{"rcr", 256, 384, 1024}, Shape{"rcc", 256, 384, 1024}, Shape{"rcr", 136, 264, 1040},
                          Shape{"rcc", 136, 264, 1040}, Shape{"rcr", 37, 264, 640}, Shape{"rcc", 264, 136, 400},
                          Shape{"rcr", 36, 264, 640}})
    for (InputTypes t : {InputTypes(DType::e4m3), InputTypes(DType::e4m3, DType::e5m2), InputTypes(DType::e5m2, DType::e4m3)})
      for (DType out : {DType::bf16, DType::f32})
        for (double beta : {0.0, 0.5}) {
          Problem p = gemm_8bit(t, out, sh.layout, sh.m, sh.n, sh.k, 1.5, beta);
          p.scale = ScaleMode::block;
          std::string const what = case_name("cublas", p) + ">" + to_string(out) + " beta " + std::to_string(beta);
          if (sh.m % 4) {
            EXPECT_NE(why_no_cublaslt(p).find("not a multiple of 4"), std::string::npos) << what;
            continue;
          }
          ASSERT_EQ(why_no_cublaslt(p), "") << what;
          if (std::string const why = why_cublaslt_heuristic_refuses(p); !why.empty()) {
            std::printf("%s: refused: %s\n", what.c_str(), why.c_str());
            ++refused;
            continue;
          }
          CaseBuffers buf = make_buffers(p, 0, seed);
          check_cublaslt_twice(p, buf, seed, buf.host_scales(), typical_rms(p, buf.host_scales()), what);
          ++ran;
        }
  std::printf("cuBLASLt block scales: %d cases ran, %d refused by its heuristic\n", ran, refused);
  EXPECT_GT(ran, 0) << "cuBLASLt took no block-scaled case";
}

TEST(HarnessGpu, AddKernelThroughRegistry) {
  REQUIRE_GPU();
  DeviceInfo d = query_device(0);
  KernelInfo const& k = *find_kernel("add");
  if (d.cc < k.min_cc) GTEST_SKIP() << "GPU too old for add";
  Problem p;
  p.op = OpKind::add;
  p.dtype = p.out_dtype = DType::bf16;
  p.m = 130;
  p.n = 67;
  p.alpha = 1.25;
  p.beta = 0.75;
  ASSERT_TRUE(parse_layout("rcr", &p));
  p = with_default_lds(p);
  CaseBuffers buf = make_buffers(p, 1);
  fill_random(buf.a, 5);
  fill_random(buf.b, 6);
  poison(buf.d);
  {
    NvtxRange r(case_name(k.name, p));
    ASSERT_EQ(run_kernel(k, p, buf.operands(), nullptr, d.cc), "");
    LOOM_CUDA(cudaGetLastError());
    LOOM_CUDA(cudaDeviceSynchronize());
  }
  auto ref = reference_host(p, to_host(buf.a), to_host(buf.b), {});
  ErrorStats st = compare(to_host(buf.d), ref, p.out_dtype, p);
  EXPECT_TRUE(st.pass) << st.why;
  EXPECT_EQ(st.unwritten, 0);
}

// sm90 gives the same bits run after run: each output tile is one cluster's, and a split-K tile's
// partials are summed in split order by whichever split arrives last (kernels/sm90/epilogue.cuh). The
// shapes are LLM layers, each under a forced plan (LOOM_SM90_PLAN's spec: shape:splits:swap:tail)
// so that every split mode is covered whatever the model picks on this card: split-K of every
// tile, of the last wave alone, stream-K, with and without swap-AB, on menu and family tiles (the steps of 16
// and the clusters along N among them); each run must
// also be right (against cuBLAS within bf16 tolerance).
// Runs `p` on kernel k with plan `plan` twice, from random inputs (and, for 8-bit inputs, the
// case's scales), and expects the same bits both times and a pass against the reference.
void expect_repeatable_and_right(KernelInfo const& k, Problem const& p, int cc, char const* plan, std::string const& what) {
  SCOPED_TRACE(what + " plan " + plan);
  CaseBuffers buf = make_buffers(p, 0, 11);
  fill_random(buf.a, 7);
  fill_random(buf.b, 8);
  std::vector<std::vector<unsigned char>> bits;
  for (int run = 0; run < 2; ++run) {
    poison(buf.d);
    ASSERT_EQ(run_kernel_plan(k, p, buf.operands(), nullptr, cc, plan), "");
    LOOM_CUDA(cudaGetLastError());
    LOOM_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned char> b(std::size_t(buf.d.bytes()));
    LOOM_CUDA(cudaMemcpy(b.data(), buf.d.data(), b.size(), cudaMemcpyDeviceToHost));
    bits.push_back(std::move(b));
  }
  EXPECT_TRUE(bits[0] == bits[1]) << "two runs differ";
  ErrorStats const st = loom::test::compare_with_cublas(p, buf);
  EXPECT_TRUE(st.pass) << st.why;
}

// One bf16 problem under a forced plan (LOOM_SM90_PLAN's spec).
struct ForcedCase {
  int m, n, k;
  char const* layout;
  char const* plan;
};

// Each case through expect_repeatable_and_right on sm90 (skipped off compute capability 9.0).
void expect_forced_cases(std::initializer_list<ForcedCase> cases) {
  DeviceInfo d = query_device(0);
  KernelInfo const& k = *find_kernel("sm90");
  if (d.cc != 90) GTEST_SKIP() << "sm90 needs compute capability 9.0";
  for (ForcedCase const& s : cases) {
    Problem p;
    p.op = OpKind::gemm;
    p.dtype = p.out_dtype = DType::bf16;
    p.m = s.m, p.n = s.n, p.k = s.k;
    ASSERT_TRUE(parse_layout(s.layout, &p));
    p = with_default_lds(p);
    expect_repeatable_and_right(k, p, d.cc, s.plan, std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
  }
}

TEST(HarnessGpu, Sm90IsDeterministic) {
  REQUIRE_GPU();
  expect_forced_cases({{128, 4096, 11008, "rcr", "1:4:0:0"}, {128, 14336, 4096, "rcr", "5:1:1:0"},
                       {16, 4096, 4096, "rcr", "3:3:1:0"}, {64, 4096, 14336, "ccc", "1:3:0:0"},
                       {1, 4096, 11008, "rcr", "6:5:1:0"}, {1024, 14336, 4096, "rcr", "0:2:0:1"},
                       {300, 5120, 5120, "rcr", "9:3:0:1"}, {96, 5120, 5120, "rcr", "13:3:1:0"},
                       {300, 5120, 13824, "rcr", "9:1:1:2"}, {512, 11008, 4096, "rcr", "10:1:0:2"},
                       {1000, 4096, 3000, "ccc", "1:1:0:2"}, {384, 6144, 4096, "rcr", "17:2:1:1"},
                       {300, 5120, 5120, "rcr", "16:3:1:0"}, {640, 6144, 4096, "rcr", "23:2:0:1"},
                       {200, 3072, 3072, "rcr", "22:3:1:0"}});
}

// The shapes of cuBLAS's weak-band picks (tile_menu.hpp's indices 36-41: 128x184 on 4x1 and 2x1,
// 192-row tiles on 1x2, 256-row tiles: three and four consumer warpgroups), each forced on ragged
// problems, swapped as they are meant to run and unswapped, whole, split for every tile and split on
// the last wave: right against cuBLAS, and the same bits twice.
TEST(HarnessGpu, Sm90WeakBandShapesAreRightAndRepeatable) {
  REQUIRE_GPU();
  expect_forced_cases({{901, 3072, 1000, "rcr", "36:1:1:0"}, {899, 2000, 777, "rcr", "36:2:0:0"},
                       {900, 6144, 1000, "rcr", "37:2:1:1"}, {351, 6144, 1000, "rcr", "38:1:1:0"},
                       {177, 1000, 500, "rcr", "38:3:0:0"}, {700, 6144, 1000, "rcr", "39:1:1:0"},
                       {701, 3000, 999, "rcr", "39:2:1:1"}, {520, 6144, 1000, "rcr", "40:1:1:0"},
                       {333, 2000, 700, "rcr", "40:2:0:0"}, {900, 9216, 1000, "rcr", "41:1:1:0"},
                       {257, 3001, 1000, "rcr", "41:3:1:1"}});
}

// The rest of cuBLAS's picks on the H200's weak rows (tile_menu.hpp's indices 42-51: clusters of
// eight and four for few tokens, 256x88, 128x168 on 2x1 and 1x2, 128x96 on 1x4), forced the same
// way: in the orientation each is meant to run and the other, whole, split, and split on the last
// wave, on ragged problems; a token tile shared by four CTAs is four boxes, one a CTA, of 30, 42,
// 20 and 24 rows (most not whole 8-row swizzle repeats), and the clusters of eight are the first of
// that size.
TEST(HarnessGpu, Sm90FewTokenShapesAreRightAndRepeatable) {
  REQUIRE_GPU();
  expect_forced_cases({{231, 3584, 1000, "rcr", "42:1:1:0"}, {229, 3000, 4097, "rcr", "42:3:1:0"},
                       {331, 3584, 999, "rcr", "43:1:1:0"}, {500, 1000, 700, "rcr", "43:2:0:1"},
                       {161, 6144, 1000, "rcr", "44:1:1:0"}, {157, 2001, 1100, "rcr", "44:2:0:0"},
                       {781, 3584, 1000, "rcr", "45:1:1:0"}, {777, 7000, 600, "rcr", "45:2:1:1"},
                       {1023, 11008, 520, "rcr", "46:1:0:0"}, {385, 5000, 1000, "rcr", "47:2:0:1"},
                       {127, 11008, 1000, "rcr", "48:1:0:0"}, {100, 3000, 1500, "rcr", "48:3:0:0"},
                       {95, 6144, 1000, "rcr", "49:1:1:0"}, {31, 4608, 1000, "rcr", "50:2:1:0"},
                       {63, 4096, 1000, "rcr", "51:1:1:0"}, {65, 999, 700, "rcr", "51:2:0:0"}});
}

// 256x88 on 2x1 with two consumer warpgroups of 128 rows (tile_menu.hpp's index 52: two wgmmas a
// k-step each, 128 rows apart, into two sets of accumulators), forced as above: both orientations,
// whole, split and split on the last wave, ragged.
TEST(HarnessGpu, Sm90TallWarpgroupsAreRightAndRepeatable) {
  REQUIRE_GPU();
  expect_forced_cases({{781, 3584, 1000, "rcr", "52:1:1:0"}, {777, 7000, 600, "rcr", "52:2:1:1"},
                       {500, 1000, 700, "rcr", "52:2:0:0"}, {257, 3001, 999, "rcr", "52:1:0:0"},
                       {90, 300, 4100, "rcr", "52:3:1:0"}});
}

// The same for 8-bit inputs: split plans of both accumulation modes and a mixed pair, swapped and
// not, give the same bits run after run and agree with the reference.
TEST(HarnessGpu, Sm90IsDeterministic8Bit) {
  REQUIRE_GPU();
  DeviceInfo d = query_device(0);
  KernelInfo const& k = *find_kernel("sm90");
  if (d.cc != 90) GTEST_SKIP() << "sm90 needs compute capability 9.0";
  struct Shape {
    int m, n, k;
    char const* types;  // parse_input_types's form
    char const* plan;   // the plan forced
  };
  for (Shape const s : {Shape{128, 4096, 11008, "e4m3", "1:4:0:0"}, Shape{128, 4096, 11008, "e4m3-fast", "1:4:0:0"},
                        Shape{1024, 14336, 4096, "e4m3-fast", "0:2:0:1"}, Shape{1024, 14336, 4096, "e4m3", "7:2:0:1"},
                        Shape{96, 5120, 5120, "e4m3xe5m2", "5:3:1:0"}, Shape{300, 5120, 13824, "e5m2xe4m3-fast", "3:3:1:0"}}) {
    Problem p;
    p.op = OpKind::gemm;
    ASSERT_TRUE(parse_input_types(s.types, &p)) << s.types;
    p.out_dtype = DType::bf16;
    p.m = s.m, p.n = s.n, p.k = s.k;
    ASSERT_TRUE(parse_layout("rcr", &p));
    p = with_default_lds(p);
    expect_repeatable_and_right(k, p, d.cc, s.plan, s.types);
  }
}

// device_bytes counts what make_buffers allocates, matrix by matrix, so that the tools' memory
// pre-check holds a case to what it will really take.
TEST(HarnessGpu, DeviceBytesIsWhatMakeBuffersAllocates) {
  REQUIRE_GPU();
  for (char const* layout : {"ccc", "rcr", "rrr"})
    for (OpKind op : {OpKind::add, OpKind::gemm}) {
      Problem p;
      p.op = op;
      p.dtype = DType::bf16;
      p.out_dtype = op == OpKind::gemm ? DType::f32 : DType::bf16;
      p.m = 300, p.n = 77, p.k = op == OpKind::gemm ? 130 : 0;
      ASSERT_TRUE(parse_layout(layout, &p));
      p = with_default_lds(p);
      p.lda += 5, p.ldb += 1;
      CaseBuffers buf = make_buffers(p, 3);
      std::uint64_t got = 0;
      for (DeviceMatrix const* m : {&buf.a, &buf.b, &buf.c, &buf.d}) got += m->bytes();
      EXPECT_EQ(device_bytes(p, 3), got) << to_string(op) << " " << layout;
      // 8-bit inputs, B of its own type, and the scales.
      if (op == OpKind::add) continue;
      p.dtype = DType::e4m3;
      p.b_dtype = DType::e5m2;
      CaseBuffers narrow = make_buffers(p, 3);
      EXPECT_EQ(narrow.b.dtype(), DType::e5m2);
      EXPECT_FALSE(narrow.scale_buf.empty());
      got = 0;
      for (DeviceMatrix const* m : {&narrow.a, &narrow.b, &narrow.c, &narrow.d, &narrow.scale_buf}) got += m->bytes();
      EXPECT_EQ(device_bytes(p, 3), got) << layout;
      // Block scales in place of the two: A's and B's arrays, no tensor scales.
      p.scale = ScaleMode::block;
      CaseBuffers block = make_buffers(p, 3);
      EXPECT_TRUE(block.scale_buf.empty());
      EXPECT_FALSE(block.block_a.empty());
      got = 0;
      for (DeviceMatrix const* m : {&block.a, &block.b, &block.c, &block.d, &block.block_a, &block.block_b})
        got += m->bytes();
      EXPECT_EQ(device_bytes(p, 3), got) << layout << " block";
    }
}

// A case far beyond any GPU's memory (f32 gemm, M = N = K = 2^18: four operands of 256 GiB) is
// refused by the check the tools make before allocating, with the one-line reason they report.
TEST(HarnessGpu, ACaseThatCannotFitIsRefusedBeforeAllocating) {
  REQUIRE_GPU();
  LOOM_CUDA(cudaSetDevice(0));
  Problem p;
  p.op = OpKind::gemm;
  p.m = p.n = p.k = std::int64_t(1) << 18;
  std::uint64_t const need = device_bytes(p, 0);
  EXPECT_GT(need, std::uint64_t(200) << 30);
  std::uint64_t const free = free_device_bytes();
  EXPECT_GT(free, 0u);
  std::string const why = why_no_memory(need, free);
  EXPECT_TRUE(std::regex_match(why, std::regex("needs 1024\\.0 GiB, the device has [0-9]+\\.[0-9] GiB free")))
      << why;
  // A small case passes the same check.
  Problem q = p;
  q.m = q.n = q.k = 64;
  EXPECT_EQ(why_no_memory(device_bytes(q, 0), free_device_bytes()), "");
}

// The stream waits for a host function between the two events, so the timer must report at least
// the host's sleep (to within the events' resolution of about half a microsecond) and not much
// more. A timer that ignored its stream, or did not wait for the stop event, would read about 0 or
// throw.
void CUDART_CB sleep_ms(void* ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms)));
}

TEST(HarnessGpu, TimerMeasuresAKnownWaitOnItsStream) {
  REQUIRE_GPU();
  cudaStream_t s = nullptr;
  LOOM_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  struct Destroy {
    cudaStream_t s;
    ~Destroy() { cudaStreamDestroy(s); }
  } destroy{s};
  Timer t(s);
  for (int ms : {5, 40}) {
    t.start();
    LOOM_CUDA(cudaLaunchHostFunc(s, sleep_ms, &ms));
    t.stop();
    float const got = t.elapsed_ms();
    EXPECT_GE(got, float(ms) - 0.01f) << ms << " ms sleep";
    EXPECT_LT(got, float(ms) + 250.0f) << ms << " ms sleep";
  }
}

}  // namespace
