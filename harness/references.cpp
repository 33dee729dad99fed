// References: cuBLAS and fp64 on the host.
#include "harness/harness.hpp"
#include "harness/parallel.hpp"
#include "harness/widen.hpp"

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
#include <memory>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace loom::harness {

// =============================================================================================
// References

namespace {

// Elements from an operand's first to its last stored one (DeviceMatrix::span_elements).
std::int64_t span(Order o, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  return o == Order::col ? ld * (cols - 1) + rows : ld * (rows - 1) + cols;
}

// The 16-bit type reference_cublas widens 8-bit inputs to: bf16, or f16 for f16 output (cuBLAS's
// GemmEx has no bf16 gemm writing f16).
DType widened_type(Problem const& p) { return p.out_dtype == DType::f16 ? DType::f16 : DType::bf16; }

// Device memory that is freed when it goes out of scope (after the device's work: cudaFree waits
// for it).
struct Scratch {
  void* p = nullptr;
  explicit Scratch(std::size_t bytes) { LOOM_CUDA(cudaMalloc(&p, bytes)); }
  ~Scratch() { cudaFree(p); }
  Scratch(Scratch const&) = delete;
  Scratch& operator=(Scratch const&) = delete;
};

// reference_host for block scales (sizes checked): each 128 of K's partial sum in fp64 (exact for
// random_values' inputs: products of at most 8 significant bits between 2^-32 and 1, 128 of them),
// times A's row's scale and B's block's (exactly: 6 significant bits at most), then summed over
// the k blocks.
std::vector<double> reference_host_block(Problem const& p, std::vector<double> const& A, std::vector<double> const& B,
                                         std::vector<double> const& C, BlockScales const& bs) {
  std::size_t const M = std::size_t(p.m), N = std::size_t(p.n), K = std::size_t(p.k);
  std::vector<double> D(M * N);
  std::int64_t const per_column = std::int64_t(M * K);
  parallel_for(std::int64_t(N), std::max<std::int64_t>(1, kGrain / per_column), [&](std::int64_t jb, std::int64_t je) {
    std::vector<double> acc(M), part(M);
    for (std::size_t j = std::size_t(jb); j < std::size_t(je); ++j) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t k0 = 0; k0 < K; k0 += 128) {
        std::fill(part.begin(), part.end(), 0.0);
        for (std::size_t l = k0; l < std::min(K, k0 + 128); ++l) {
          double const b = B[l + j * K];
          double const* a = &A[l * M];
          for (std::size_t i = 0; i < M; ++i) part[i] += a[i] * b;
        }
        double const sb = bs.b_at(std::int64_t(k0), std::int64_t(j));
        for (std::size_t i = 0; i < M; ++i) acc[i] += part[i] * (bs.a_at(std::int64_t(i), std::int64_t(k0)) * sb);
      }
      for (std::size_t i = 0; i < M; ++i)
        D[i + j * M] = p.alpha * acc[i] + (p.beta == 0 ? 0.0 : p.beta * C[i + j * M]);
    }
  });
  return D;
}

}  // namespace

std::uint64_t reference_cublas_bytes(Problem const& p0) {
  if (p0.op != OpKind::gemm || !is_8bit(p0.dtype)) return 0;
  Problem const p = with_default_lds(p0);
  std::uint64_t const a = std::uint64_t(span(p.a, rows_a(p), cols_a(p), p.lda));
  std::uint64_t const b = std::uint64_t(span(p.b, rows_b(p), cols_b(p), p.ldb));
  return 2 * (a + b);
}

cudaDataType_t cuda_data_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::e4m3: return CUDA_R_8F_E4M3;
    case DType::e5m2: return CUDA_R_8F_E5M2;
  }
  return CUDA_R_32F;
}

bool fits_cublas_ints(Problem const& p0) {
  Problem const p = with_default_lds(p0);
  for (std::int64_t v : {p.m, p.n, p.k, p.lda, p.ldb, p.ldc})
    if (v < 0 || v > INT_MAX) return false;
  return true;
}

std::string why_no_cublas(Problem const& p0) {
  Problem const p = with_default_lds(p0);
  if (!fits_cublas_ints(p)) return "cuBLAS takes 32-bit sizes and leading dimensions";
  if (p.op == OpKind::add) {
    if (p.dtype != DType::f32 || p.out_dtype != DType::f32)
      return std::string("cuBLAS has no ") + to_string(p.dtype) + " add (geam is fp32/fp64 only)";
    return {};
  }
  if (is_8bit(p.dtype) || is_8bit(b_type(p))) {
    // Widened to 16 bits first (reference_cublas), so any layout; the outputs the 8-bit path writes.
    if (!is_8bit(p.dtype) || !is_8bit(b_type(p)))
      return "cuBLAS has no gemm of " + input_types(p) + " (8-bit A and B go together)";
    if (p.out_dtype != DType::bf16 && p.out_dtype != DType::f16 && p.out_dtype != DType::f32)
      return "cuBLAS has no " + input_types(p) + " gemm with " + to_string(p.out_dtype) + " output";
    return {};
  }
  if (b_type(p) != p.dtype) return "cuBLAS has no gemm of " + input_types(p);
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
  float alpha = float(p.alpha);
  float const beta = float(p.beta);
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
  cudaDataType_t in = cuda_data_type(p.dtype);
  cudaDataType_t const out = cuda_data_type(p.out_dtype);
  void const* a = ops.a;
  void const* b = ops.b;
  // 8-bit: A and B widened, exactly, into 16-bit copies of the same layout and leading dimensions
  // (padding included, NaN where it was), and the scales folded into alpha. Exact products summed in
  // fp32: the reference the 8-bit kernels' shortened accumulation is measured against.
  std::unique_ptr<Scratch> wide_a, wide_b;
  if (is_8bit(p.dtype)) {
    DType const wide = widened_type(p);
    std::int64_t const na = span(p.a, rows_a(p), cols_a(p), p.lda), nb = span(p.b, rows_b(p), cols_b(p), p.ldb);
    wide_a = std::make_unique<Scratch>(std::size_t(na) * 2);
    wide_b = std::make_unique<Scratch>(std::size_t(nb) * 2);
    if (p.scale == ScaleMode::block) {
      // Block scales: each element times its own (GemmScales' layouts), in the copy; alpha alone.
      if (!ops.scale_a || !ops.scale_b)
        throw Error("no cuBLAS reference for " + case_name("cublas", p) + ": block scales, and scale_a or scale_b is null");
      // A (M x K): row i, k block j at a[i + j*M]; B (K x N): block (j, l) at b[j + l*block_scale_ld(K)].
      ScaleIndex const sa{ops.scale_a, 1, 1, 128, p.m};
      ScaleIndex const sb{ops.scale_b, 128, 1, 128, block_scale_ld(p.k)};
      LOOM_CUDA(widen_8bit_scaled(ops.a, p.dtype, wide_a->p, wide, rows_a(p), cols_a(p), p.a, p.lda, sa, s));
      LOOM_CUDA(widen_8bit_scaled(ops.b, b_type(p), wide_b->p, wide, rows_b(p), cols_b(p), p.b, p.ldb, sb, s));
    } else {
      LOOM_CUDA(widen_8bit(ops.a, p.dtype, wide_a->p, wide, na, s));
      LOOM_CUDA(widen_8bit(ops.b, b_type(p), wide_b->p, wide, nb, s));
      float scale[2] = {1, 1};
      if (ops.scale_a) LOOM_CUDA(cudaMemcpyAsync(&scale[0], ops.scale_a, sizeof(float), cudaMemcpyDeviceToHost, s));
      if (ops.scale_b) LOOM_CUDA(cudaMemcpyAsync(&scale[1], ops.scale_b, sizeof(float), cudaMemcpyDeviceToHost, s));
      LOOM_CUDA(cudaStreamSynchronize(s));
      alpha = float(p.alpha * double(scale[0]) * double(scale[1]));
    }
    a = wide_a->p, b = wide_b->p, in = cuda_data_type(wide);
  }
  if (ccol) {
    // C (M x N) = op(A) op(B); a row-major operand is its transpose in column-major storage.
    auto opa = p.a == Order::col ? CUBLAS_OP_N : CUBLAS_OP_T;
    auto opb = p.b == Order::col ? CUBLAS_OP_N : CUBLAS_OP_T;
    LOOM_CUBLAS(cublasGemmEx(h, opa, opb, int(p.m), int(p.n), int(p.k), &alpha, a, in, int(p.lda),
                             b, in, int(p.ldb), &beta, ops.d, out, int(p.ldc), compute,
                             CUBLAS_GEMM_DEFAULT));
  } else {
    // C^T (N x M) = B^T A^T; a row-major operand is already transposed in column-major storage.
    auto opb = p.b == Order::row ? CUBLAS_OP_N : CUBLAS_OP_T;
    auto opa = p.a == Order::row ? CUBLAS_OP_N : CUBLAS_OP_T;
    LOOM_CUBLAS(cublasGemmEx(h, opb, opa, int(p.n), int(p.m), int(p.k), &alpha, b, in, int(p.ldb),
                             a, in, int(p.lda), &beta, ops.d, out, int(p.ldc), compute,
                             CUBLAS_GEMM_DEFAULT));
  }
  // The 16-bit copies are freed on return: the gemm must be done with them first.
  if (wide_a) LOOM_CUDA(cudaStreamSynchronize(s));
}

std::vector<double> reference_host(Problem const& p, std::vector<double> const& A,
                                   std::vector<double> const& B, std::vector<double> const& C,
                                   CaseScales const& scales) {
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
  if (p.scale == ScaleMode::block && is_8bit(p.dtype)) {
    BlockScales const* bs = scales.block;
    if (!bs) throw Error("reference_host: a block-scaled case needs its block scales");
    if (bs->m != p.m || bs->n != p.n || bs->k != p.k ||
        bs->a.size() != std::size_t(p.m * bs->k_blocks()) || bs->b.size() != std::size_t(bs->ld() * ((p.n + 127) / 128)))
      throw Error("reference_host: the block scales are not of this case's M, N and K");
    return reference_host_block(p, A, B, C, *bs);
  }
  // The scales fold into alpha: exact in fp64 (a few significant bits each), and 1 but for 8-bit
  // inputs, so that other cases' references are what they were bit for bit.
  double const alpha = p.alpha * scales.tensor.a * scales.tensor.b;
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
        D[i + j * M] = alpha * acc[i] + (p.beta == 0 ? 0.0 : p.beta * C[i + j * M]);
    }
  });
  return D;
}

}  // namespace loom::harness
