// fp64 host reference on hand examples, which cases cuBLAS has, the no-GPU error.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "harness/harness.hpp"

namespace {

using namespace loom;
using namespace loom::harness;

TEST(HarnessReference, HostAdd) {
  Problem p;
  p.op = OpKind::add;
  p.m = 2;
  p.n = 2;
  p.alpha = 2;
  p.beta = -0.5;
  // column-major (i, j): A = [1 3; 2 4], B = [8 4; 2 6]
  auto d = reference_host(p, {1, 2, 3, 4}, {8, 2, 4, 6}, {});
  EXPECT_EQ(d, std::vector<double>({-2, 3, 4, 5}));
  p.beta = 0;  // B is not read (as in BLAS)
  d = reference_host(p, {1, 2, 3, 4}, {NAN, NAN, NAN, NAN}, {});
  EXPECT_EQ(d, std::vector<double>({2, 4, 6, 8}));
  EXPECT_THROW(reference_host(p, {1, 2, 3}, {1, 2, 3, 4}, {}), Error);
}

TEST(HarnessReference, HostGemm) {
  Problem p;
  p.op = OpKind::gemm;
  p.m = 2;
  p.n = 2;
  p.k = 3;
  p.alpha = 1;
  p.beta = 0;
  // A (2x3) = [1 2 3; 4 5 6], B (3x2) = [7 8; 9 10; 11 12], column-major vectors
  std::vector<double> A = {1, 4, 2, 5, 3, 6}, B = {7, 9, 11, 8, 10, 12};
  EXPECT_EQ(reference_host(p, A, B, {}), std::vector<double>({58, 139, 64, 154}));
  p.alpha = 0.5;
  p.beta = 2;
  EXPECT_EQ(reference_host(p, A, B, {1, 2, 3, 4}), std::vector<double>({31, 73.5, 38, 85}));
  EXPECT_THROW(reference_host(p, A, B, {}), Error);  // beta != 0 needs C
  p.k = 0;
  EXPECT_THROW(reference_host(p, A, B, {1, 2, 3, 4}), Error);
}

TEST(HarnessReference, WhichCasesCublasHas) {
  Problem p;
  p.op = OpKind::add;
  p.m = p.n = 16;
  EXPECT_EQ(why_no_cublas(p), "");
  p.dtype = p.out_dtype = DType::f16;
  EXPECT_NE(why_no_cublas(p).find("no f16 add"), std::string::npos) << why_no_cublas(p);
  p.dtype = p.out_dtype = DType::bf16;
  EXPECT_NE(why_no_cublas(p).find("no bf16 add"), std::string::npos);
  p.op = OpKind::gemm;
  p.k = 16;
  EXPECT_EQ(why_no_cublas(p), "");
  p.out_dtype = DType::f32;
  EXPECT_EQ(why_no_cublas(p), "");
  p.dtype = DType::f16;
  EXPECT_EQ(why_no_cublas(p), "");
  p.dtype = DType::f32;
  EXPECT_EQ(why_no_cublas(p), "");
  p.out_dtype = DType::f16;
  EXPECT_NE(why_no_cublas(p), "");
  p.out_dtype = DType::f32;
  p.m = std::int64_t(INT_MAX) + 1;
  EXPECT_NE(why_no_cublas(p).find("32-bit"), std::string::npos);
}

// 8-bit gemm: the scales multiply alpha, C's term is as it is.
TEST(HarnessReference, HostGemmWithTensorScales) {
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = DType::e4m3;
  p.b_dtype = DType::e5m2;
  p.out_dtype = DType::bf16;
  p.m = 2, p.n = 2, p.k = 3;
  p.alpha = 0.5;
  p.beta = 2;
  std::vector<double> A = {1, 4, 2, 5, 3, 6}, B = {7, 9, 11, 8, 10, 12};
  // 0.5 * 0.75 * 4 = 1.5 times A B = [58 64; 139 154], plus 2 C.
  EXPECT_EQ(reference_host(p, A, B, {1, 2, 3, 4}, TensorScales{0.75, 4}),
            std::vector<double>({89, 212.5, 102, 239}));
  EXPECT_EQ(reference_host(p, A, B, {1, 2, 3, 4}), std::vector<double>({31, 73.5, 38, 85}));  // no scales: 1
}

// 8-bit gemm with block scales, against the definition computed by hand: D[i,j] = alpha *
// sum_k (A[i,k] sa[i,k/128]) (B[k,j] sb[k/128,j/128]) + beta C, the scales read from GemmScales'
// layouts. M = 3, N = 130 (two columns of B's blocks, the second of 2 columns), K = 300 (three k
// blocks, the last of 44; block_scale_ld 4, so B's array has a NaN padding entry a column).
TEST(HarnessReference, HostGemmWithBlockScales) {
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = DType::e4m3;
  p.out_dtype = DType::bf16;
  p.scale = ScaleMode::block;
  p.m = 3, p.n = 130, p.k = 300;
  p.alpha = 0.5;
  p.beta = -2;
  std::int64_t const M = 3, N = 130, K = 300, kb = 3, ld = 4, nb = 2;
  ASSERT_EQ(block_scale_ld(K), ld);
  BlockScales bs;
  bs.m = M, bs.n = N, bs.k = K;
  // Every scale its own (0.5 to 2 in steps of 1/8 ... dyadic, so every sum below is exact).
  bs.a.resize(std::size_t(M * kb));
  for (std::int64_t j = 0; j < kb; ++j)
    for (std::int64_t i = 0; i < M; ++i) bs.a[std::size_t(i + j * M)] = float(0.5 + 0.125 * double(i + 3 * j));
  bs.b.assign(std::size_t(ld * nb), NAN);
  for (std::int64_t l = 0; l < nb; ++l)
    for (std::int64_t j = 0; j < kb; ++j) bs.b[std::size_t(j + l * ld)] = float(0.75 + 0.25 * double(j + kb * l));
  // A (M x K) and B (K x N), column-major by (i, j), small integers; C likewise.
  std::vector<double> A(std::size_t(M * K)), B(std::size_t(K * N)), C(std::size_t(M * N));
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t i = 0; i < M; ++i) A[std::size_t(i + k * M)] = double((i * 7 + k * 3) % 9 - 4);
  for (std::int64_t j = 0; j < N; ++j)
    for (std::int64_t k = 0; k < K; ++k) B[std::size_t(k + j * K)] = double((k * 5 + j * 11) % 7 - 3);
  for (std::size_t x = 0; x < C.size(); ++x) C[x] = double(x % 5) - 2;
  // By hand, element by element, the scales looked up as the layouts put them.
  std::vector<double> want(std::size_t(M * N));
  for (std::int64_t j = 0; j < N; ++j)
    for (std::int64_t i = 0; i < M; ++i) {
      double sum = 0;
      for (std::int64_t k = 0; k < K; ++k)
        sum += (A[std::size_t(i + k * M)] * double(bs.a[std::size_t(i + (k / 128) * M)])) *
               (B[std::size_t(k + j * K)] * double(bs.b[std::size_t(k / 128 + (j / 128) * ld)]));
      want[std::size_t(i + j * M)] = 0.5 * sum - 2 * C[std::size_t(i + j * M)];
    }
  std::vector<double> const got = reference_host(p, A, B, C, bs);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t x = 0; x < want.size(); ++x) ASSERT_EQ(got[x], want[x]) << "element " << x;
  // The scales matter: with one of A's scales changed, its row changes and no other does; with one
  // of B's, its column of blocks changes (n in [128, 130)) and not the first.
  BlockScales other = bs;
  other.a[std::size_t(1 + 2 * M)] *= 2;  // row 1, k block 2
  std::vector<double> const changed = reference_host(p, A, B, C, other);
  bool row_changed = false;
  for (std::int64_t j = 0; j < N; ++j)
    for (std::int64_t i = 0; i < M; ++i) {
      std::size_t const x = std::size_t(i + j * M);
      if (i == 1) row_changed = row_changed || changed[x] != want[x];
      else EXPECT_EQ(changed[x], want[x]) << "(" << i << ", " << j << ")";
    }
  EXPECT_TRUE(row_changed);
  other = bs;
  other.b[std::size_t(0 + 1 * ld)] *= 2;  // k block 0, n block 1
  std::vector<double> const changed_b = reference_host(p, A, B, C, other);
  for (std::int64_t j = 0; j < 128; ++j) EXPECT_EQ(changed_b[std::size_t(j * M)], want[std::size_t(j * M)]);
  EXPECT_NE(changed_b[std::size_t(129 * M)], want[std::size_t(129 * M)]);
  // Tensor scales alone, or block scales of another problem, are refused for a block case.
  EXPECT_THROW(reference_host(p, A, B, C), Error);
  EXPECT_THROW(reference_host(p, A, B, C, TensorScales{0.75, 4}), Error);
  other = bs;
  other.k = 256;
  EXPECT_THROW(reference_host(p, A, B, C, other), Error);
  other = bs;
  other.b.resize(std::size_t(kb * nb));  // the padding left out
  EXPECT_THROW(reference_host(p, A, B, C, other), Error);
  // typical_rms takes the scales' RMS (B's padding aside) for the tensor scales' product.
  double const rms_a = std::sqrt((0.25 + 0.390625 + 0.5625 + 0.765625 + 1.0 + 1.265625 + 1.5625 + 1.890625 + 2.25) / 9);
  double rb2 = 0;
  for (int x = 0; x < 6; ++x) rb2 += (0.75 + 0.25 * x) * (0.75 + 0.25 * x);
  double const rms_b = std::sqrt(rb2 / 6);
  EXPECT_DOUBLE_EQ(typical_rms(p, bs), std::sqrt(0.25 * rms_a * rms_a * rms_b * rms_b * 300 / 9 + 4.0 / 3));
  EXPECT_THROW(typical_rms(p), Error);
  // random_block_scales' arrays go in as they are, NaN padding and all.
  BlockScales const drawn = random_block_scales(p, 7);
  std::vector<double> const ref = reference_host(p, A, B, C, drawn);
  for (double x : ref) ASSERT_TRUE(std::isfinite(x));
}

// 8-bit gemm goes to cuBLAS through 16-bit copies: any layout, bf16, f16 or f32 output, and the
// copies' bytes; cuBLASLt's FP8 gemm takes "TN" alone, and e5m2 x e5m2 not at all.
TEST(HarnessReference, WhichEightBitCasesCublasAndCublasLtHave) {
  Problem p;
  p.op = OpKind::gemm;
  p.dtype = DType::e4m3;
  p.out_dtype = DType::bf16;
  p.m = 256, p.n = 128, p.k = 64;
  for (char const* l : {"ccc", "rcr", "crc", "rrr"}) {
    ASSERT_TRUE(parse_layout(l, &p));
    EXPECT_EQ(why_no_cublas(p), "") << l;
  }
  for (DType o : {DType::f16, DType::f32}) {
    p.out_dtype = o;
    EXPECT_EQ(why_no_cublas(p), "") << to_string(o);
  }
  p.b_dtype = DType::e5m2;
  EXPECT_EQ(why_no_cublas(p), "");
  p.b_dtype = DType::bf16;  // not a pair the tools make
  EXPECT_NE(why_no_cublas(p), "");
  p.b_dtype.reset();
  // The 16-bit copies: A 256 x 64 and B 64 x 128, two bytes each (rrr: packed rows).
  EXPECT_EQ(reference_cublas_bytes(p), 2u * (256 * 64 + 64 * 128));
  p.lda = 80;  // padded rows of A: the copy spans them, 255 whole rows and the last one's 64
  EXPECT_EQ(reference_cublas_bytes(p), 2u * (80 * 255 + 64 + 64 * 128));
  p.lda = 0;
  Problem q = p;
  q.dtype = q.out_dtype = DType::bf16;
  EXPECT_EQ(reference_cublas_bytes(q), 0u);

  p.out_dtype = DType::bf16;
  ASSERT_TRUE(parse_layout("rcr", &p));
  EXPECT_EQ(why_no_cublaslt(p), "");
  ASSERT_TRUE(parse_layout("rcc", &p));
  EXPECT_EQ(why_no_cublaslt(p), "");
  for (char const* l : {"ccc", "rrr", "crr", "rrc"}) {
    ASSERT_TRUE(parse_layout(l, &p));
    EXPECT_NE(why_no_cublaslt(p).find("k-major A and B only"), std::string::npos) << l << ": " << why_no_cublaslt(p);
  }
  ASSERT_TRUE(parse_layout("rcr", &p));
  p.b_dtype = DType::e5m2;
  EXPECT_EQ(why_no_cublaslt(p), "");
  p.dtype = DType::e5m2;
  p.b_dtype = DType::e4m3;
  EXPECT_EQ(why_no_cublaslt(p), "");
  p.b_dtype.reset();
  EXPECT_EQ(why_no_cublaslt(p), "cuBLASLt has no e5m2 x e5m2 FP8 gemm");
  p.dtype = DType::e4m3;
  p.k = 72;
  EXPECT_NE(why_no_cublaslt(p).find("K=72 is not a multiple of 16"), std::string::npos) << why_no_cublaslt(p);
  p.k = 64;
  p.lda = 72;
  EXPECT_NE(why_no_cublaslt(p).find("lda=72"), std::string::npos) << why_no_cublaslt(p);
  p.lda = 0;
  p.n = 100;  // row-major D: its rows are N = 100 bf16, 200 bytes
  EXPECT_NE(why_no_cublaslt(p).find("ldc=100"), std::string::npos) << why_no_cublaslt(p);
  p.n = 104;
  EXPECT_EQ(why_no_cublaslt(p), "");
  p.m = 7;  // M is free in rcr
  EXPECT_EQ(why_no_cublaslt(p), "");
  ASSERT_TRUE(parse_layout("rcc", &p));  // but D's rows in rcc
  EXPECT_NE(why_no_cublaslt(p), "");
  Problem b = p;
  b.dtype = DType::bf16;
  EXPECT_NE(why_no_cublaslt(b).find("8-bit"), std::string::npos);
  // Block scales: M (the extent of A's scales) a multiple of 4, as cuBLASLt's heuristic wants; the
  // 16-bit copies for the cuBLAS reference are the same.
  ASSERT_TRUE(parse_layout("rcr", &p));
  p.scale = ScaleMode::block;
  p.m = 36;
  EXPECT_EQ(why_no_cublaslt(p), "");
  p.m = 38;
  EXPECT_EQ(why_no_cublaslt(p), "M=38 is not a multiple of 4 (cuBLASLt's FP8 gemm with block scales)");
  EXPECT_EQ(why_no_cublas(p), "");
  EXPECT_EQ(reference_cublas_bytes(p), 2u * (38 * 64 + 64 * 104));
  p.scale = ScaleMode::tensor;
  EXPECT_EQ(why_no_cublaslt(p), "");
}

TEST(HarnessReference, NoGpuIsOneLine) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "a GPU is present";
  cudaGetLastError();
  try {
    query_device(0);
    FAIL() << "query_device did not throw";
  } catch (NoGpu const& e) {
    EXPECT_STREQ(e.what(), "no CUDA GPU found");
  }
  Clocks c = current_clocks(0);
  EXPECT_EQ(c.sm_mhz, -1);
  EXPECT_EQ(c.mem_mhz, -1);
}

TEST(HarnessReference, ErrorMacros) {
  try {
    LOOM_CUDA(cudaErrorInvalidValue);
    FAIL();
  } catch (Error const& e) {
    EXPECT_EQ(std::string(e.what()), std::string("cudaErrorInvalidValue: ") + cudaGetErrorString(cudaErrorInvalidValue));
  }
  try {
    LOOM_CUBLAS(CUBLAS_STATUS_NOT_SUPPORTED);
    FAIL();
  } catch (Error const& e) {
    EXPECT_EQ(std::string(e.what()), "CUBLAS_STATUS_NOT_SUPPORTED: " + std::string(cublas_status_string(CUBLAS_STATUS_NOT_SUPPORTED)));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_NO_THROW(LOOM_CUDA(cudaSuccess));
}

}  // namespace
