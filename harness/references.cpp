// References: cuBLAS and fp64 on the host.
#include "harness/harness.hpp"
#include "harness/parallel.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <bit>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fnmatch.h>
#include <limits>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace loom::harness {

// =============================================================================================
// References

namespace {

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
  }
  return CUDA_R_32F;
}

bool fits_int(std::int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace

std::string why_no_cublas(Problem const& p0) {
  Problem const p = with_default_lds(p0);
  if (!fits_int(p.m) || !fits_int(p.n) || !fits_int(p.k) || !fits_int(p.lda) || !fits_int(p.ldb) ||
      !fits_int(p.ldc))
    return "cuBLAS takes 32-bit sizes and leading dimensions";
  if (p.op == OpKind::add) {
    if (p.dtype != DType::f32 || p.out_dtype != DType::f32)
      return std::string("cuBLAS has no ") + to_string(p.dtype) + " add (geam is fp32/fp64 only)";
    return {};
  }
  if (p.dtype == DType::f32 && p.out_dtype != DType::f32)
    return std::string("cuBLAS has no f32 gemm with ") + to_string(p.out_dtype) + " output";
  if (p.dtype != DType::f32 && p.out_dtype != p.dtype && p.out_dtype != DType::f32)
    return std::string("cuBLAS has no ") + to_string(p.dtype) + " gemm with " + to_string(p.out_dtype) +
           " output";
  return {};
}

void reference_cublas(Problem const& p0, Operands const& ops, cublasHandle_t h, cudaStream_t s) {
  Problem const p = with_default_lds(p0);
  std::string const why = why_no_cublas(p);
  if (!why.empty()) throw Error("no cuBLAS reference for " + case_name("cublas", p) + ": " + why);
  LOOM_CUBLAS(cublasSetStream(h, s));
  LOOM_CUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  float const alpha = float(p.alpha), beta = float(p.beta);
  bool const ccol = p.c == Order::col;
  // Everything is expressed in C's storage order: for row-major C, compute C^T (N x M).
  if (p.op == OpKind::add) {
    // C = alpha*op(A) + beta*op(B). An operand stored in C's order needs no transpose.
    auto op = [&](Order o) { return o == p.c ? CUBLAS_OP_N : CUBLAS_OP_T; };
    int const m = int(ccol ? p.m : p.n), n = int(ccol ? p.n : p.m);
    LOOM_CUBLAS(cublasSgeam(h, op(p.a), op(p.b), m, n, &alpha, static_cast<float const*>(ops.a),
                            int(p.lda), &beta, static_cast<float const*>(ops.b), int(p.ldb),
                            static_cast<float*>(ops.d), int(p.ldc)));
    return;
  }
  // gemm: cuBLAS updates C in place, so D starts as a copy of C when beta reads it.
  if (p.beta != 0 && ops.c && ops.c != ops.d) {
    std::size_t const es = size_of(p.out_dtype);
    std::int64_t const contig = ccol ? p.m : p.n, outer = ccol ? p.n : p.m;
    LOOM_CUDA(cudaMemcpy2DAsync(ops.d, std::size_t(p.ldc) * es, ops.c, std::size_t(p.ldc) * es,
                                std::size_t(contig) * es, std::size_t(outer), cudaMemcpyDeviceToDevice, s));
  }
  cublasComputeType_t const compute =
      p.dtype == DType::f32 ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
  cudaDataType_t const in = cuda_type(p.dtype), out = cuda_type(p.out_dtype);
  if (ccol) {
    // C (M x N) = op(A) op(B); a row-major operand is its transpose in column-major storage.
    auto opa = p.a == Order::col ? CUBLAS_OP_N : CUBLAS_OP_T;
    auto opb = p.b == Order::col ? CUBLAS_OP_N : CUBLAS_OP_T;
    LOOM_CUBLAS(cublasGemmEx(h, opa, opb, int(p.m), int(p.n), int(p.k), &alpha, ops.a, in, int(p.lda),
                             ops.b, in, int(p.ldb), &beta, ops.d, out, int(p.ldc), compute,
                             CUBLAS_GEMM_DEFAULT));
  } else {
    // C^T (N x M) = B^T A^T; a row-major operand is already transposed in column-major storage.
    auto opb = p.b == Order::row ? CUBLAS_OP_N : CUBLAS_OP_T;
    auto opa = p.a == Order::row ? CUBLAS_OP_N : CUBLAS_OP_T;
    LOOM_CUBLAS(cublasGemmEx(h, opb, opa, int(p.n), int(p.m), int(p.k), &alpha, ops.b, in, int(p.ldb),
                             ops.a, in, int(p.lda), &beta, ops.d, out, int(p.ldc), compute,
                             CUBLAS_GEMM_DEFAULT));
  }
}

std::vector<double> reference_host(Problem const& p, std::vector<double> const& A,
                                   std::vector<double> const& B, std::vector<double> const& C) {
  std::size_t const M = std::size_t(p.m), N = std::size_t(p.n);
  if (p.m <= 0 || p.n <= 0 || (p.op == OpKind::gemm && p.k <= 0))
    throw Error("reference_host: sizes must be positive");
  std::vector<double> D(M * N);
  if (p.op == OpKind::add) {
    if (A.size() != M * N || B.size() != M * N) throw Error("reference_host: A or B has the wrong size");
    parallel_for(std::int64_t(M * N), kGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i)
        D[std::size_t(i)] = p.alpha * A[std::size_t(i)] + (p.beta == 0 ? 0.0 : p.beta * B[std::size_t(i)]);
    });
    return D;
  }
  std::size_t const K = std::size_t(p.k);
  if (A.size() != M * K || B.size() != K * N) throw Error("reference_host: A or B has the wrong size");
  if (p.beta != 0 && C.size() != M * N) throw Error("reference_host: C has the wrong size");
  std::int64_t const per_column = std::int64_t(M * K);
  parallel_for(std::int64_t(N), std::max<std::int64_t>(1, kGrain / per_column), [&](std::int64_t jb, std::int64_t je) {
    std::vector<double> acc(M);
    for (std::size_t j = std::size_t(jb); j < std::size_t(je); ++j) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t l = 0; l < K; ++l) {
        double const b = B[l + j * K];
        double const* a = &A[l * M];
        for (std::size_t i = 0; i < M; ++i) acc[i] += a[i] * b;
      }
      for (std::size_t i = 0; i < M; ++i)
        D[i + j * M] = p.alpha * acc[i] + (p.beta == 0 ? 0.0 : p.beta * C[i + j * M]);
    }
  });
  return D;
}

}  // namespace loom::harness
