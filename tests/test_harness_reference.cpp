// fp64 host reference on hand examples, which cases cuBLAS has, the no-GPU error.
#include <gtest/gtest.h>

#include <climits>

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
