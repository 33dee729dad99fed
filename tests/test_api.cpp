// The library API, <loom/gemm.hpp>: its statuses (host: every argument fault is named before any
// device is touched), and on a GPU what it promises a caller: a gemm captured in a CUDA graph
// replays right on every path, calls on two streams with a workspace each do not disturb one
// another, and two GPUs driven from two threads each get their own answers.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "harness/harness.hpp"
#include "kernels/entry.hpp"
#include "kernels/registry.hpp"
#include "loom/gemm.hpp"
#include "tests/cublas_check.hpp"
#include "tests/gpu_test_util.hpp"

using namespace loom;
using namespace loom::harness;
using loom::test::have_gpu;

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU"

namespace {

GemmDesc desc_of(Problem const& p) { return dispatch::gemm_desc(p); }

GemmDesc small_desc() {
  GemmDesc d;
  d.m = 64, d.n = 32, d.k = 16;
  return d;
}

// A device address that is never dereferenced: the checks below fail before any launch.
void* fake(std::uintptr_t v = 256) { return reinterpret_cast<void*>(v); }

Status call(GemmDesc const& d, void const* a = fake(), void const* b = fake(), float beta = 0.f, void const* c = nullptr,
            void* out = fake(), void* ws = nullptr, std::size_t ws_bytes = 0) {
  return gemm(d, 1.f, a, b, beta, c, out, ws, ws_bytes, nullptr);
}

std::vector<unsigned char> bytes_of(DeviceMatrix const& m) {
  std::vector<unsigned char> v(m.bytes());
  EXPECT_EQ(cudaMemcpy(v.data(), m.base(), v.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  return v;
}

// A device buffer the test owns.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) {
    if (bytes > 0) {
      EXPECT_EQ(cudaMalloc(&ptr, bytes), cudaSuccess);
    }
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;
};

Problem gemm_case(DType t, DType out, std::int64_t m, std::int64_t n, std::int64_t k, char const* layout, int pad = 0) {
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = t, p.out_dtype = out;
  p.m = m, p.n = n, p.k = k;
  EXPECT_TRUE(parse_layout(layout, &p));
  p = with_default_lds(p);
  p.lda += pad;
  return p;
}

// D of `p` against cuBLAS, every element, within the dtype's tolerance.
void expect_right(Problem const& p, CaseBuffers& buf, std::string const& what) {
  ErrorStats const st = loom::test::compare_with_cublas(p, buf);
  EXPECT_TRUE(st.pass) << what << ": " << st.why;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Statuses (no GPU needed: the arguments are checked before the device)

// gemm's choice of skinny, on the host: a short side of at most 4 against at least 128, the long
// operand k-contiguous, both operands' leading dimensions multiples of 8 elements.
TEST(Api, SkinnyTakesShortSidesWithAKContiguousLongOperand) {
  struct Case {
    DType t;
    std::int64_t m, n, k;
    char const* layout;
    int pad;
    bool want;
  };
  Case const cases[] = {
      {DType::bf16, 1, 4096, 4096, "rcr", 0, true},     // decode: B (N x K) k-contiguous
      {DType::f16, 4, 4096, 4096, "rcr", 0, true},      // the largest short side
      {DType::bf16, 5, 4096, 4096, "rcr", 0, false},    // past it: sm90's tiles were faster at 8
      {DType::bf16, 3, 128, 4096, "rcr", 0, true},      // the fewest rows measured
      {DType::bf16, 3, 127, 4096, "rcr", 0, false},     // fewer: not measured, left to sm90
      {DType::bf16, 4096, 4, 4096, "rcc", 0, true},     // N short: A (M x K) row-major, k-contiguous
      {DType::bf16, 1, 4096, 4096, "ccc", 0, true},     // A of one row; B column-major, k-contiguous
      {DType::bf16, 2, 4096, 4096, "ccc", 0, true},     // A column-major, lda = 2: packed m-contiguous
      {DType::f16, 3, 4096, 4096, "ccr", 0, true},      // the same at 3 columns
      {DType::bf16, 2, 4096, 4096, "ccc", 1, false},    // lda = 3 at M = 2: neither way in vectors
      {DType::bf16, 4096, 3, 4096, "rrr", 0, true},     // N short: B row-major, ldb = 3, packed
      {DType::bf16, 4, 4096, 4096, "rrr", 0, false},    // B row-major: its rows run along N
      {DType::bf16, 4, 4096, 4100, "rcr", 0, false},    // K = 4100: no 16-byte rows
      {DType::bf16, 4, 4096, 4096, "rcr", 3, false},    // lda padded by 3
      {DType::f32, 1, 4096, 4096, "rcr", 0, false},     // fp32 runs on fma
      {DType::e4m3, 1, 4096, 4096, "rcr", 0, false},    // 8-bit runs on sm90
  };
  for (Case const& c : cases) {
    Problem const p = gemm_case(c.t, c.t == DType::e4m3 ? DType::bf16 : c.t, c.m, c.n, c.k, c.layout, c.pad);
    EXPECT_EQ(skinny::preferred(p), c.want) << case_name("gemm", p) << " lda=" << p.lda;
    if (c.want) {
      EXPECT_EQ(skinny::check(p), "") << case_name("gemm", p);
    }
  }
  Problem const wide = gemm_case(DType::bf16, DType::bf16, 64, 4096, 4096, "rcr");
  EXPECT_EQ(skinny::check(wide), "neither M nor N is at most 4");
  Problem const mn_major = gemm_case(DType::bf16, DType::bf16, 4, 4096, 4096, "rrr");
  EXPECT_EQ(skinny::check(mn_major), "the long operand is not k-contiguous (K is not its contiguous dimension)");
}

TEST(Api, StatusHoldsOneLine) {
  Status const ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_STREQ(ok.message(), "");
  Status const bad(StatusCode::invalid_value, "first\nsecond");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), StatusCode::invalid_value);
  EXPECT_STREQ(bad.message(), "first second");
  EXPECT_STREQ(to_string(StatusCode::workspace_too_small), "workspace_too_small");
  std::string const long_msg(1000, 'x');
  EXPECT_EQ(std::strlen(Status(StatusCode::cuda_error, long_msg.c_str()).message()), 255u);
}

TEST(Api, EachBadArgumentIsNamed) {
  struct Bad {
    GemmDesc d;
    char const* needle;
    StatusCode code;
  };
  std::vector<Bad> cases;
  GemmDesc d = small_desc();
  d.m = -1, cases.push_back({d, "m=-1 is negative", StatusCode::invalid_value});
  d = small_desc(), d.k = -5, cases.push_back({d, "k=-5 is negative", StatusCode::invalid_value});
  d = small_desc(), d.lda = 10, cases.push_back({d, "lda=10 is smaller than the 64", StatusCode::invalid_value});
  d = small_desc(), d.b_order = Order::row, d.ldb = 31, cases.push_back({d, "ldb=31 is smaller than the 32", StatusCode::invalid_value});
  d = small_desc(), d.cd_order = Order::row, d.ldc = 16, cases.push_back({d, "ldc=16", StatusCode::invalid_value});
  d = small_desc(), d.lda = -64, cases.push_back({d, "lda=-64 is negative", StatusCode::invalid_value});
  d = small_desc(), d.ab_type = DType::f32, d.cd_type = DType::bf16,
  cases.push_back({d, "ab_type f32 with cd_type bf16 is not supported", StatusCode::not_supported});
  d = small_desc(), d.ab_type = DType::bf16, d.cd_type = DType::f16,
  cases.push_back({d, "ab_type bf16 with cd_type f16", StatusCode::not_supported});
  d = small_desc(), d.k = 0, cases.push_back({d, "k=0", StatusCode::not_supported});
  d = small_desc(), d.ab_type = static_cast<DType>(7), cases.push_back({d, "not a loom::DType", StatusCode::invalid_value});
  // 8-bit inputs: the pairs, outputs, layouts and leading dimensions Hopper's TMA and wgmma read.
  GemmDesc tn = small_desc();
  tn.ab_type = DType::e4m3, tn.a_order = Order::row, tn.b_order = Order::col;
  d = tn, d.ab_type = DType::e5m2, d.b_type = DType::e5m2, cases.push_back({d, "e5m2 x e5m2 is not supported", StatusCode::not_supported});
  d = tn, d.cd_type = DType::e4m3, cases.push_back({d, "ab_type e4m3 with cd_type e4m3", StatusCode::not_supported});
  d = tn, d.lda = 24, cases.push_back({d, "lda must be a multiple of 16", StatusCode::not_supported});
  d = tn, d.k = 40, cases.push_back({d, "lda must be a multiple of 16", StatusCode::not_supported});  // packed: lda = k
  d = tn, d.ab_type = DType::bf16, d.b_type = DType::e4m3, cases.push_back({d, "A and B have one type", StatusCode::not_supported});
  // Block scales: 8-bit inputs in the accurate mode only.
  d = tn, d.scale = ScaleMode::block, d.fast_accum = true, cases.push_back({d, "scale=block with fast_accum", StatusCode::not_supported});
  d = small_desc(), d.scale = ScaleMode::block, cases.push_back({d, "scale=block is for 8-bit inputs", StatusCode::not_supported});
  d = tn, d.scale = static_cast<ScaleMode>(9), cases.push_back({d, "not a loom::ScaleMode", StatusCode::invalid_value});
  for (Bad const& b : cases) {
    Status const s = call(b.d);
    EXPECT_EQ(s.code(), b.code) << b.needle << " / " << s.message();
    EXPECT_NE(std::string(s.message()).find(b.needle), std::string::npos) << s.message();
    std::size_t bytes = 1;
    Status const w = gemm_workspace_size(b.d, &bytes);
    EXPECT_EQ(w.code(), b.code) << w.message();
    EXPECT_EQ(bytes, 0u);
  }
}

TEST(Api, NullPointersAreNamed) {
  GemmDesc const d = small_desc();
  EXPECT_STREQ(call(d, nullptr).message(), "a is null");
  EXPECT_STREQ(call(d, fake(), nullptr).message(), "b is null");
  EXPECT_STREQ(call(d, fake(), fake(), 0.f, nullptr, nullptr).message(), "d is null");
  Status const c = call(d, fake(), fake(), 0.5f, nullptr);
  EXPECT_EQ(c.code(), StatusCode::invalid_value);
  EXPECT_NE(std::string(c.message()).find("c is null and beta=0.5"), std::string::npos) << c.message();
  Status const ws = call(d, fake(), fake(), 0.f, nullptr, fake(), nullptr, 64);
  EXPECT_NE(std::string(ws.message()).find("workspace is null"), std::string::npos) << ws.message();
  EXPECT_EQ(gemm_workspace_size(d, nullptr).code(), StatusCode::invalid_value);
  // Block scales are arrays the kernel reads: both pointers, 16-byte aligned.
  GemmDesc block = small_desc();
  block.ab_type = DType::e4m3, block.a_order = Order::row, block.b_order = Order::col, block.scale = ScaleMode::block;
  auto scaled = [&](float const* sa, float const* sb) {
    return gemm(block, 1.f, fake(), fake(), 0.f, nullptr, fake(), nullptr, 0, nullptr, GemmScales{sa, sb});
  };
  float const* const aligned = static_cast<float const*>(fake());
  EXPECT_STREQ(scaled(nullptr, aligned).message(), "scale=block and scales.a is null");
  EXPECT_STREQ(scaled(aligned, nullptr).message(), "scale=block and scales.b is null");
  Status const misaligned = scaled(aligned, aligned + 1);
  EXPECT_EQ(misaligned.code(), StatusCode::invalid_value);
  EXPECT_NE(std::string(misaligned.message()).find("not 16-byte aligned"), std::string::npos) << misaligned.message();
  AddDesc ad;
  ad.m = 4, ad.n = 4;
  EXPECT_STREQ(add(ad, 1.f, nullptr, 0.f, nullptr, fake(), nullptr).message(), "a is null");
  EXPECT_NE(std::string(add(ad, 1.f, fake(), 1.f, nullptr, fake(), nullptr).message()).find("b is null and beta=1"),
            std::string::npos);
  ad.ldd = 2;
  EXPECT_NE(std::string(add(ad, 1.f, fake(), 1.f, fake(), fake(), nullptr).message()).find("ldd=2 is smaller"),
            std::string::npos);
}

// An empty product (M or N of 0) is a call that does nothing, as in cuBLAS: no pointer is needed.
TEST(Api, AnEmptyProductSucceedsWithoutTouchingAnything) {
  GemmDesc d = small_desc();
  d.m = 0;
  EXPECT_TRUE(call(d, nullptr, nullptr, 0.f, nullptr, nullptr).ok());
  std::size_t bytes = 1;
  EXPECT_TRUE(gemm_workspace_size(d, &bytes).ok());
  EXPECT_EQ(bytes, 0u);
  AddDesc ad;
  ad.m = 3;
  EXPECT_TRUE(add(ad, 1.f, nullptr, 0.f, nullptr, nullptr, nullptr).ok());
}

// Without a GPU a well-formed call says so; it does not crash.
TEST(Api, NoDeviceIsAStatus) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present";
  Status const s = call(small_desc());
  EXPECT_EQ(s.code(), StatusCode::no_device) << s.message();
  std::size_t bytes = 0;
  EXPECT_EQ(gemm_workspace_size(small_desc(), &bytes).code(), StatusCode::no_device);
}

TEST(Api, BuiltArchitecturesAreRecorded) {
  std::string const archs = built_architectures();
  EXPECT_FALSE(archs.empty());
  EXPECT_NE(archs, "unknown");
}

// ---------------------------------------------------------------------------------------------
// On a GPU

TEST(ApiGpu, WorkspaceTooSmallIsNamed) {
  REQUIRE_GPU();
  DeviceInfo const dev = query_device(0);
  if (dev.cc != 90) GTEST_SKIP() << "split-K (which needs a workspace) is sm90's";
  Problem const p = gemm_case(DType::bf16, DType::bf16, 128, 1024, 32768, "rcr");
  std::size_t need = 0;
  ASSERT_TRUE(gemm_workspace_size(desc_of(p), &need).ok());
  ASSERT_GT(need, 0u) << "a 128 x 1024 x 32768 product is expected to split K";
  CaseBuffers buf = make_buffers(p, 0);
  Status const s = gemm(desc_of(p), 1.f, buf.a.data(), buf.b.data(), 0.f, nullptr, buf.d.data(), buf.d.data(), need - 1,
                        nullptr);
  EXPECT_EQ(s.code(), StatusCode::workspace_too_small) << s.message();
  EXPECT_NE(std::string(s.message()).find(std::to_string(need)), std::string::npos) << s.message();
}

// 8-bit mn-major operands run on a k-major copy the call makes in its workspace: the same values
// stored mn-major give the same bits of D as stored k-major (the same plan and kernel read the same
// bytes), for A, B and both, whole and split, ragged, with per-tensor and block scales.
TEST(ApiGpu, EightBitMnMajorOperandsGiveTheKMajorBits) {
  REQUIRE_GPU();
  if (query_device(0).cc != 90) GTEST_SKIP() << "8-bit inputs run on compute capability 9.0";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  struct Shape {
    std::int64_t m, n, k;
    ScaleMode scale;
  };
  // K a multiple of 16: the k-major operands are packed (lda = ldb = K), which TMA reads.
  for (Shape const& sh : {Shape{300, 520, 1008, ScaleMode::tensor}, Shape{129, 1031, 4096, ScaleMode::tensor},
                          Shape{77, 700, 1504, ScaleMode::block}}) {
    Problem p = gemm_case(DType::e4m3, DType::bf16, sh.m, sh.n, sh.k, "rcr");
    p.scale = sh.scale;
    CaseBuffers buf = make_buffers(p, 0);
    Operands const ops = buf.operands();
    GemmScales const scales{ops.scale_a, ops.scale_b};
    // A and B as stored k-major, and the same values mn-major (leading dimensions of 16 bytes).
    std::vector<unsigned char> const a = bytes_of(buf.a), b = bytes_of(buf.b);
    // The mn-major copies' leading dimensions: 16-byte multiples, but for the block case's odd ones
    // (the copy's byte path).
    std::int64_t const lda_mn = sh.scale == ScaleMode::block ? sh.m + 3 : (sh.m + 15) / 16 * 16;
    std::int64_t const ldb_mn = sh.scale == ScaleMode::block ? sh.n + 5 : (sh.n + 15) / 16 * 16;
    DeviceMatrix a_mn(DType::e4m3, sh.m, sh.k, Order::col, lda_mn), b_mn(DType::e4m3, sh.k, sh.n, Order::row, ldb_mn);
    std::vector<unsigned char> ha(a_mn.bytes(), 0), hb(b_mn.bytes(), 0);
    for (std::int64_t i = 0; i < sh.m; ++i)
      for (std::int64_t kk = 0; kk < sh.k; ++kk) ha[std::size_t(a_mn.offset(i, kk))] = a[std::size_t(buf.a.offset(i, kk))];
    for (std::int64_t kk = 0; kk < sh.k; ++kk)
      for (std::int64_t j = 0; j < sh.n; ++j) hb[std::size_t(b_mn.offset(kk, j))] = b[std::size_t(buf.b.offset(kk, j))];
    ASSERT_EQ(cudaMemcpy(a_mn.base(), ha.data(), ha.size(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(b_mn.base(), hb.data(), hb.size(), cudaMemcpyHostToDevice), cudaSuccess);
    auto run = [&](bool a_mn_major, bool b_mn_major) {
      GemmDesc d = desc_of(p);
      if (a_mn_major) d.a_order = Order::col, d.lda = lda_mn;
      if (b_mn_major) d.b_order = Order::row, d.ldb = ldb_mn;
      std::size_t need = 0;
      EXPECT_TRUE(gemm_workspace_size(d, &need).ok());
      void* ws = nullptr;
      if (need > 0) {
        EXPECT_EQ(cudaMalloc(&ws, need), cudaSuccess);
      }
      EXPECT_EQ(cudaMemset(buf.d.base(), 0xFF, buf.d.bytes()), cudaSuccess);
      Status const s = gemm(d, 1.5f, a_mn_major ? a_mn.data() : buf.a.data(), b_mn_major ? b_mn.data() : buf.b.data(), 0.f,
                            nullptr, buf.d.data(), ws, need, nullptr, scales);
      EXPECT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      cudaFree(ws);
      return std::make_pair(bytes_of(buf.d), need);
    };
    auto const [k_major, need_k] = run(false, false);
    for (auto [am, bm] : {std::pair{true, false}, std::pair{false, true}, std::pair{true, true}}) {
      SCOPED_TRACE(case_name("gemm", p) + (am ? " A mn-major" : "") + (bm ? " B mn-major" : ""));
      auto const [mn, need_mn] = run(am, bm);
      EXPECT_TRUE(mn == k_major) << "D differs from the k-major operands' D";
      EXPECT_GE(need_mn, need_k + std::size_t(am ? sh.m * ((sh.k + 15) / 16 * 16) : 0) +
                             std::size_t(bm ? sh.n * ((sh.k + 15) / 16 * 16) : 0));
    }
  }
}

// Every path gemm takes, captured once in a graph and replayed 100 times with new inputs copied in
// between; each replay's D must equal, bit for bit, an eager call's on the same inputs, and the first
// must be right against cuBLAS. The sm90 paths are found among candidate shapes by the plan this
// GPU's model makes for them, so that each is covered on whichever card runs the test.
TEST(ApiGpu, GraphReplaysMatchEagerCallsOnEveryPath) {
  REQUIRE_GPU();
  DeviceInfo const dev = query_device(0);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  KernelInfo const& k = *find_kernel("gemm");
  struct Path {
    char const* name;
    char const* needle;  // in the path gemm reports
    std::vector<Problem> candidates;
  };
  std::vector<Path> paths;
  paths.push_back({"fma", "fma", {gemm_case(DType::f32, DType::f32, 515, 384, 120, "ccc")}});
  paths.push_back({"sm80 fallback", dev.cc == 90 ? "sm80 (" : "sm80",
                   {gemm_case(DType::f16, DType::f16, 300, 200, 264, "rcr", 3)}});
  // Decode: M or N at most 4 (either side short, a ragged K and a row past the last whole CTA).
  paths.push_back({"skinny", "skinny",
                   {gemm_case(DType::bf16, DType::bf16, 4, 4099, 3000, "rcr"),
                    gemm_case(DType::f16, DType::f32, 2051, 3, 1000, "rcc")}});
  // Four rows a CTA at a short side of 3-4 (9001 rows: at least 8 CTAs an SM up to 281 SMs; the
  // last CTA holds one row).
  paths.push_back({"skinny, four rows a CTA", "skinny", {gemm_case(DType::bf16, DType::bf16, 3, 9001, 1000, "rcr")}});
  // The short operand packed m-contiguous (column-major A, lda = M = 3).
  paths.push_back({"skinny, packed short operand", "skinny", {gemm_case(DType::bf16, DType::bf16, 3, 4099, 3000, "ccc")}});
  if (dev.cc == 90) {
    paths.push_back({"whole tiles", "tma 128x256,", {gemm_case(DType::bf16, DType::bf16, 2000, 4096, 1024, "rcr")}});
    paths.push_back({"split-K", " split-K ",
                     {gemm_case(DType::bf16, DType::bf16, 128, 1024, 32768, "rcr"),
                      gemm_case(DType::bf16, DType::bf16, 64, 2048, 16384, "ccc")}});
    paths.push_back({"tail split", "on the last wave",
                     {gemm_case(DType::bf16, DType::bf16, 640, 6144, 4096, "rcr"),
                      gemm_case(DType::bf16, DType::bf16, 640, 10240, 8192, "rcr"),
                      gemm_case(DType::f16, DType::f32, 1024, 14336, 4096, "rcr")}});
    paths.push_back({"swap-AB", "swap-AB",
                     {gemm_case(DType::bf16, DType::f32, 8, 4096, 4096, "rcr"),
                      gemm_case(DType::bf16, DType::bf16, 640, 4096, 4096, "rcr")}});
  }
  std::uint64_t seed = 100;
  for (Path const& path : paths) {
    SCOPED_TRACE(path.name);
    // The first candidate whose path on this GPU is the one wanted (checked on aligned operands).
    Problem p;
    std::string taken;
    for (Problem q : path.candidates) {
      q.alpha = 1.5, q.beta = path.name[0] == 's' ? 0.0 : -0.5;  // C read on some paths, not on others
      CaseBuffers probe = make_buffers(q, 0);
      taken = kernel_path(k, q, probe.operands());
      if (taken.find(path.needle) != std::string::npos) {
        p = q;
        break;
      }
    }
    ASSERT_NE(taken.find(path.needle), std::string::npos) << "no candidate takes this path here; last: " << taken;
    CaseBuffers buf = make_buffers(p, 0);
    DeviceMatrix eager(p.out_dtype, p.m, p.n, p.c, p.ldc, 0);
    std::size_t need = 0;
    ASSERT_TRUE(gemm_workspace_size(desc_of(p), &need).ok());
    DeviceBuffer ws_graph(need), ws_eager(need);
    // The caller's workspace holds anything before a call (split-K's counters need no reset).
    if (need > 0) {
      ASSERT_EQ(cudaMemset(ws_graph.ptr, 0xab, need), cudaSuccess);
      ASSERT_EQ(cudaMemset(ws_eager.ptr, 0x5c, need), cudaSuccess);
    }
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    float const alpha = float(p.alpha), beta = float(p.beta);
    void const* c = p.beta != 0 ? buf.c.data() : nullptr;

    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    Status const captured = gemm(desc_of(p), alpha, buf.a.data(), buf.b.data(), beta, c, buf.d.data(), ws_graph.ptr,
                                 need, s);
    ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
    ASSERT_TRUE(captured.ok()) << captured.message();
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

    // Three sets of inputs, copied in turn into the buffers the graph reads (a device-to-device copy
    // per replay: new inputs at the cost of a copy, not of a fill).
    std::vector<CaseBuffers> sets;
    for (int i = 0; i < 3; ++i) {
      sets.push_back(make_buffers(p, 0));
      fill_random(sets.back().a, seed++);
      fill_random(sets.back().b, seed++);
      if (c) fill_random(sets.back().c, seed++);
    }
    auto copy_in = [&](DeviceMatrix& to, DeviceMatrix const& from) {
      return cudaMemcpyAsync(to.base(), from.base(), to.bytes(), cudaMemcpyDeviceToDevice, s);
    };
    int mismatches = 0;
    for (int replay = 0; replay < 100; ++replay) {
      poison(buf.d);
      poison(eager);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      CaseBuffers const& in = sets[std::size_t(replay % 3)];
      ASSERT_EQ(copy_in(buf.a, in.a), cudaSuccess);
      ASSERT_EQ(copy_in(buf.b, in.b), cudaSuccess);
      if (c) {
        ASSERT_EQ(copy_in(buf.c, in.c), cudaSuccess);
      }
      // Now and then the caller uses its workspaces for something else between calls.
      if (need > 0 && replay % 10 == 5) {
        ASSERT_EQ(cudaMemsetAsync(ws_graph.ptr, replay, need, s), cudaSuccess);
        ASSERT_EQ(cudaMemsetAsync(ws_eager.ptr, 0xff - replay, need, s), cudaSuccess);
      }
      ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
      Status const e = gemm(desc_of(p), alpha, buf.a.data(), buf.b.data(), beta, c, eager.data(), ws_eager.ptr, need, s);
      ASSERT_TRUE(e.ok()) << e.message();
      ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
      if (bytes_of(buf.d) != bytes_of(eager)) ++mismatches;
      if (replay < 3) expect_right(p, buf, std::string(path.name) + " " + case_name("gemm", p) + " (" + taken + ")");
    }
    EXPECT_EQ(mismatches, 0) << case_name("gemm", p) << " (" << taken << "): replays that differ from the eager call";
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
  }
}

// Two streams at once, each with its own workspace, on split-K products: each stream's results
// equal the same calls made one at a time.
TEST(ApiGpu, TwoStreamsWithAWorkspaceEach) {
  REQUIRE_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  Problem const p = gemm_case(DType::bf16, DType::bf16, 128, 1024, 32768, "rcr");
  std::size_t need = 0;
  ASSERT_TRUE(gemm_workspace_size(desc_of(p), &need).ok());
  CaseBuffers in[2] = {make_buffers(p, 0), make_buffers(p, 0)};
  for (int i = 0; i < 2; ++i) fill_random(in[i].a, 11 + i), fill_random(in[i].b, 21 + i);
  DeviceMatrix alone[2] = {DeviceMatrix(p.out_dtype, p.m, p.n, p.c), DeviceMatrix(p.out_dtype, p.m, p.n, p.c)};
  DeviceBuffer ws0(need), ws1(need);
  void* ws[2] = {ws0.ptr, ws1.ptr};
  // One at a time, on the legacy stream.
  for (int i = 0; i < 2; ++i) {
    poison(alone[i]);
    Status const st = gemm(desc_of(p), 1.f, in[i].a.data(), in[i].b.data(), 0.f, nullptr, alone[i].data(), ws[i], need, nullptr);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaStream_t s[2];
  for (auto& x : s) ASSERT_EQ(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking), cudaSuccess);
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 2; ++i) poison(in[i].d);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (int rep = 0; rep < 3; ++rep)  // several in flight on each stream, interleaved
      for (int i = 0; i < 2; ++i) {
        Status const st = gemm(desc_of(p), 1.f, in[i].a.data(), in[i].b.data(), 0.f, nullptr, in[i].d.data(), ws[i], need, s[i]);
        ASSERT_TRUE(st.ok()) << st.message();
      }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (int i = 0; i < 2; ++i) EXPECT_TRUE(bytes_of(in[i].d) == bytes_of(alone[i])) << "stream " << i << " round " << round;
  }
  for (auto& x : s) cudaStreamDestroy(x);
  for (int i = 0; i < 2; ++i) expect_right(p, in[i], "stream " + std::to_string(i));
}

// Two GPUs, one thread each, at once: each GPU's results equal its own calls made alone, and are
// right against cuBLAS (per-device state: function attributes, residency, plans).
TEST(ApiGpu, TwoGpusFromTwoThreads) {
  REQUIRE_GPU();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  if (count < 2) GTEST_SKIP() << "needs two GPUs, this host has " << count;
  std::vector<Problem> const problems = {gemm_case(DType::bf16, DType::bf16, 128, 1024, 32768, "rcr"),
                                         gemm_case(DType::f16, DType::f32, 1000, 3000, 2000, "ccc"),
                                         // K = 120: fma splits longer K with atomic adds, whose order (and last
                                         // bits) vary run to run (<loom/gemm.hpp>)
                                         gemm_case(DType::f32, DType::f32, 300, 500, 120, "rrr")};
  std::vector<std::string> failures[2];
  auto work = [&](int dev) {
    auto fail = [&](std::string const& why) { failures[dev].push_back(why); };
    if (cudaSetDevice(dev) != cudaSuccess) return fail("cudaSetDevice");
    cudaStream_t s = nullptr;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return fail("stream");
    for (Problem const& p : problems) {
      CaseBuffers buf = make_buffers(p, 0);
      fill_random(buf.a, 31 + dev), fill_random(buf.b, 41 + dev);
      std::size_t need = 0;
      if (Status st = gemm_workspace_size(desc_of(p), &need); !st.ok()) return fail(st.message());
      DeviceBuffer ws(need);
      DeviceMatrix first(p.out_dtype, p.m, p.n, p.c);
      for (int rep = 0; rep < 10; ++rep) {
        poison(rep == 0 ? first : buf.d);
        if (cudaDeviceSynchronize() != cudaSuccess) return fail("sync");
        Status const st = gemm(desc_of(p), 1.f, buf.a.data(), buf.b.data(), 0.f, nullptr, rep == 0 ? first.data() : buf.d.data(),
                               ws.ptr, need, s);
        if (!st.ok()) return fail(st.message());
        if (cudaStreamSynchronize(s) != cudaSuccess) return fail("stream sync");
        if (rep > 0 && bytes_of(buf.d) != bytes_of(first)) fail(case_name("gemm", p) + ": a repeat differs");
      }
      cublasHandle_t h = nullptr;
      if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return fail("cublasCreate");
      DeviceMatrix ref(p.out_dtype, p.m, p.n, p.c);
      Operands rops = buf.operands();
      rops.d = ref.data();
      reference_cublas(p, rops, h, nullptr);
      cudaDeviceSynchronize();
      cublasDestroy(h);
      ErrorStats const e = compare(to_host(buf.d), to_host(ref), p.out_dtype, p, typical_rms(p));
      if (!e.pass) fail(case_name("gemm", p) + " on device " + std::to_string(dev) + ": " + e.why);
    }
    cudaStreamDestroy(s);
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join(), t1.join();
  for (int d = 0; d < 2; ++d)
    for (auto const& f : failures[d]) ADD_FAILURE() << "device " << d << ": " << f;
}
