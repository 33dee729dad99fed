// cuBLASLt's FP8 gemm, loom-bench's baseline of 8-bit cases (harness.hpp, "References":
// why_no_cublaslt, cublaslt_gemm).
//
// cuBLASLt is column-major and takes FP8 operands only as "TN": op(A) = A^T, op(B) = B. In Loom's
// terms that is a k-major A (row-major M x K is a column-major K x M) and a k-major B (column-major
// K x N). A column-major D is then D = A^T B directly; a row-major D is its transpose, computed as
// D^T = B^T A^T, so cuBLASLt's A is Loom's B and its B Loom's A, each with its own type and scale.
//
// Block scales (Problem::scale == block) follow their operands the same way: Loom's A carries one
// scale per row and 128 of K (CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F), Loom's B one per 128 x 128
// block (BLK128x128_32F), whichever of cuBLASLt's A and B each is. Both operands are k-major, so an
// operand's scale array is laid out alike in either role (GemmScales': A's k blocks m-contiguous,
// B's k blocks contiguous within each column of blocks, block_scale_ld(K) apart), and the arrays
// Loom's kernel reads are passed as they are.
#include "harness/harness.hpp"

#include <cublasLt.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace loom::harness {

namespace {

// What a call may use (CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES): the 32 MiB cuBLAS itself keeps
// per handle on Hopper.
constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;
// Plans kept per process; past it the cache starts over (a sweep of more shapes than this).
constexpr std::size_t kMaxPlans = 1024;

// The case in cuBLASLt's terms: D (m x n, column-major, ld ldc) = op(A) op(B), A stored k x m
// (ld lda), B stored k x n (ld ldb).
struct LtCase {
  void const* a = nullptr;
  void const* b = nullptr;
  float const* scale_a = nullptr;
  float const* scale_b = nullptr;
  DType ta = DType::e4m3, tb = DType::e4m3;
  std::int64_t m = 0, n = 0, lda = 0, ldb = 0;
  // CUBLASLT_MATMUL_DESC_A/B_SCALE_MODE (cublasLtMatmulMatrixScale_t as int32_t).
  std::int32_t mode_a = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F, mode_b = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
};

LtCase lt_case(Problem const& p, Operands const& ops) {
  // Each operand's scale mode: per tensor, or (block scales) A's per row and 128 of K, B's per block.
  bool const block = p.scale == ScaleMode::block;
  std::int32_t const loom_a = block ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  std::int32_t const loom_b = block ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  LtCase c;
  if (p.c == Order::col) {  // D = A^T B: Loom's A, then B
    c.a = ops.a, c.b = ops.b, c.scale_a = ops.scale_a, c.scale_b = ops.scale_b;
    c.ta = p.dtype, c.tb = b_type(p);
    c.m = p.m, c.n = p.n, c.lda = p.lda, c.ldb = p.ldb;
    c.mode_a = loom_a, c.mode_b = loom_b;
  } else {  // D^T = B^T A^T: Loom's B, then A
    c.a = ops.b, c.b = ops.a, c.scale_a = ops.scale_b, c.scale_b = ops.scale_a;
    c.ta = b_type(p), c.tb = p.dtype;
    c.m = p.n, c.n = p.m, c.lda = p.ldb, c.ldb = p.lda;
    c.mode_a = loom_b, c.mode_b = loom_a;
  }
  return c;
}

// The largest power of two up to 256 that divides the address: what the heuristic is told the
// pointer is aligned to (it assumes 256 bytes unless told otherwise).
std::uint32_t alignment(void const* p) {
  auto const a = reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t al = 256;
  while (al > 1 && a % al != 0) al /= 2;
  return al;
}

// One cuBLASLt handle and its workspace per device, made on first use and kept for the process:
// destroyed at exit they would outlive the CUDA runtime's own teardown.
struct Device {
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
};

// The descriptors and algorithm of one problem (and its pointers' alignment and scale pointers).
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;  // C and D share a layout
  cublasLtMatmulAlgo_t algo{};
  Plan() = default;
  Plan(Plan const&) = delete;
  Plan& operator=(Plan const&) = delete;
  ~Plan() {  // no throw from a destructor; a failure here leaks a small host object at worst
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

std::mutex mu;
std::map<int, Device> devices;
std::map<std::string, std::shared_ptr<Plan const>> plans;

Device& device(int ordinal) {
  auto it = devices.find(ordinal);
  if (it != devices.end()) return it->second;
  Device d;
  LOOM_CUBLAS(cublasLtCreate(&d.handle));
  if (cudaError_t e = cudaMalloc(&d.workspace, kWorkspaceBytes); e != cudaSuccess) {
    cublasLtDestroy(d.handle);
    throw_cuda(e, "cudaMalloc(cuBLASLt workspace, 32 MiB)");
  }
  return devices.emplace(ordinal, d).first->second;
}

std::shared_ptr<Plan const> make_plan(Device const& dev, Problem const& p, LtCase const& lc, void const* c,
                                      void const* d) {
  auto plan = std::make_shared<Plan>();
  LOOM_CUBLAS(cublasLtMatmulDescCreate(&plan->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t const transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  LOOM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
  LOOM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
  // Null scale pointers are cuBLASLt's default, 1, as they are Loom's.
  LOOM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &lc.scale_a,
                                             sizeof lc.scale_a));
  LOOM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &lc.scale_b,
                                             sizeof lc.scale_b));
  // Per-tensor scales are cuBLASLt's default mode (SCALAR_32F): set only for block scales, so that
  // the descriptors of tensor-scaled cases stay what they were.
  if (p.scale == ScaleMode::block) {
    LOOM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &lc.mode_a,
                                               sizeof lc.mode_a));
    LOOM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &lc.mode_b,
                                               sizeof lc.mode_b));
  }
  // Fast accumulation as the case's, so that each mode is timed against its like: off (cuBLASLt's
  // default) promotes the partial sums to fp32 as it goes, on leaves them in the tensor cores. Block
  // scales are the accurate mode's alone (Problem::fast_accum is false there).
  std::int8_t const fast_accum = p.fast_accum && p.scale != ScaleMode::block ? 1 : 0;
  LOOM_CUBLAS(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                             sizeof fast_accum));
  LOOM_CUBLAS(cublasLtMatrixLayoutCreate(&plan->a, cuda_data_type(lc.ta), std::uint64_t(p.k), std::uint64_t(lc.m), lc.lda));
  LOOM_CUBLAS(cublasLtMatrixLayoutCreate(&plan->b, cuda_data_type(lc.tb), std::uint64_t(p.k), std::uint64_t(lc.n), lc.ldb));
  LOOM_CUBLAS(cublasLtMatrixLayoutCreate(&plan->c, cuda_data_type(p.out_dtype), std::uint64_t(lc.m), std::uint64_t(lc.n),
                                         p.ldc));

  cublasLtMatmulPreference_t pref = nullptr;
  LOOM_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  struct Release {
    cublasLtMatmulPreference_t p;
    ~Release() { cublasLtMatmulPreferenceDestroy(p); }
  } release{pref};
  std::size_t const ws = kWorkspaceBytes;
  LOOM_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  for (auto [attr, ptr] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, lc.a},
                           std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, lc.b},
                           std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, c},
                           std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, d}}) {
    std::uint32_t const al = alignment(ptr);
    LOOM_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, attr, &al, sizeof al));
  }
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  // The heuristic answers CUBLAS_STATUS_NOT_SUPPORTED, rather than no algorithm, for some cases it
  // refuses (block scales with M = 37 in rcr, cuBLAS 13.0 on an H100): both are its "no".
  cublasStatus_t const st = cublasLtMatmulAlgoGetHeuristic(dev.handle, plan->desc, plan->a, plan->b, plan->c, plan->c,
                                                           pref, 1, &result, &found);
  if (st != CUBLAS_STATUS_SUCCESS && st != CUBLAS_STATUS_NOT_SUPPORTED) throw_cublas(st, "cublasLtMatmulAlgoGetHeuristic");
  if (st != CUBLAS_STATUS_SUCCESS || found < 1 || result.state != CUBLAS_STATUS_SUCCESS)
    throw Error("cuBLASLt offers no FP8 algorithm for " + case_name("cublas", p) +
                (p.scale == ScaleMode::block ? " (block scales: VEC128_32F x BLK128x128_32F)" : ""));
  plan->algo = result.algo;
  return plan;
}

}  // namespace

std::string why_no_cublaslt(Problem const& p0) {
  Problem const p = with_default_lds(p0);
  if (p.op != OpKind::gemm || !is_8bit(p.dtype) || !is_8bit(b_type(p)))
    return "cuBLASLt's FP8 gemm is for 8-bit A and B";
  if (p.a != Order::row || p.b != Order::col)
    return "cuBLASLt's FP8 gemm takes k-major A and B only (row-major A, column-major B: layouts rcc, rcr), not " +
           layout_string(p);
  if (p.dtype == DType::e5m2 && b_type(p) == DType::e5m2) return "cuBLASLt has no e5m2 x e5m2 FP8 gemm";
  if (p.out_dtype != DType::bf16 && p.out_dtype != DType::f16 && p.out_dtype != DType::f32)
    return std::string("cuBLASLt's FP8 gemm writes no ") + to_string(p.out_dtype);
  if (!fits_cublas_ints(p)) return "cuBLASLt takes 32-bit sizes and leading dimensions";
  // cuBLAS's FP8 requirements (cublasLtMatmul): every operand's rows and leading dimension a
  // multiple of 16 bytes; here A's and B's rows are K elements of one byte, D's cuBLASLt's m. On an
  // H100 (cuBLAS 13.1) the heuristic offers no algorithm otherwise (K = 1028 or 1032, m = 1025 or
  // 1028 for bf16 D), but for m = 1, which it takes and this refuses: a baseline missed, never a
  // failed one.
  std::int64_t const es = std::int64_t(size_of(p.out_dtype));
  std::int64_t const d_rows = p.c == Order::col ? p.m : p.n;
  if (p.k % 16) return "K=" + std::to_string(p.k) + " is not a multiple of 16 (cuBLASLt's FP8 gemm)";
  if (p.lda % 16) return "lda=" + std::to_string(p.lda) + " is not a multiple of 16 (cuBLASLt's FP8 gemm)";
  if (p.ldb % 16) return "ldb=" + std::to_string(p.ldb) + " is not a multiple of 16 (cuBLASLt's FP8 gemm)";
  if ((p.ldc * es) % 16)
    return "ldc=" + std::to_string(p.ldc) + " is not a multiple of 16 bytes of " + to_string(p.out_dtype) +
           " (cuBLASLt's FP8 gemm)";
  if ((d_rows * es) % 16)
    return std::string(p.c == Order::col ? "M=" : "N=") + std::to_string(d_rows) + " is not a multiple of 16 bytes of " +
           to_string(p.out_dtype) + " (D's contiguous extent, cuBLASLt's FP8 gemm)";
  // Block scales: on an H100 (cuBLAS 13.0) the heuristic refuses every M that is not a multiple of
  // 4 (1, 37, 38 with N from 8 to 264, K 640, rcr and rcc, bf16 and f32 D) and takes every other
  // case the rules above let through (N and K of any multiple of 16): M is the extent of A's scales
  // (m-contiguous, VEC128_32F), whose columns cuBLASLt wants 16 bytes apart.
  if (p.scale == ScaleMode::block && p.m % 4)
    return "M=" + std::to_string(p.m) + " is not a multiple of 4 (cuBLASLt's FP8 gemm with block scales)";
  return {};
}

std::function<void(cudaStream_t)> cublaslt_gemm_call(Problem const& p0, Operands const& ops) {
  Problem const p = with_default_lds(p0);
  if (std::string const why = why_no_cublaslt(p); !why.empty())
    throw Error("no cuBLASLt FP8 gemm for " + case_name("cublas", p) + ": " + why);
  void const* const c = p.beta != 0 && ops.c ? ops.c : ops.d;
  for (void const* ptr : {ops.a, ops.b, c, static_cast<void const*>(ops.d)})
    if (alignment(ptr) < 16)
      throw Error("cuBLASLt's FP8 gemm needs 16-byte aligned A, B, C and D (" + case_name("cublas", p) + ")");
  // Scale pointers 4 bytes apart make cublasLtMatmul answer CUBLAS_STATUS_NOT_SUPPORTED (cuBLAS 13.1,
  // H100), though the heuristic offers an algorithm: refused here with the reason instead.
  for (float const* ptr : {ops.scale_a, ops.scale_b})
    if (ptr && alignment(ptr) < 16)
      throw Error("cuBLASLt's FP8 gemm needs 16-byte aligned scale pointers (" + case_name("cublas", p) + ")");
  LtCase const lc = lt_case(p, ops);
  int ordinal = 0;
  LOOM_CUDA(cudaGetDevice(&ordinal));

  std::lock_guard<std::mutex> lock(mu);
  Device const dev = device(ordinal);
  // Everything the descriptors and the heuristic's choice depend on; alpha and beta are the call's.
  char key[320];
  std::snprintf(key, sizeof key, "%d|%s|%s|%s|%lld|%lld|%lld|%lld|%lld|%lld|%p|%p|%u|%u|%u|%u", ordinal,
                input_types(p).c_str(), to_string(p.out_dtype), layout_string(p).c_str(), (long long)p.m,
                (long long)p.n, (long long)p.k, (long long)p.lda, (long long)p.ldb, (long long)p.ldc,
                static_cast<void const*>(lc.scale_a), static_cast<void const*>(lc.scale_b), alignment(lc.a),
                alignment(lc.b), alignment(c), alignment(ops.d));
  auto it = plans.find(key);
  if (it == plans.end()) {
    if (plans.size() >= kMaxPlans) plans.clear();
    it = plans.emplace(key, make_plan(dev, p, lc, c, ops.d)).first;
  }
  // The call holds its plan (the cache may start over meanwhile) and everything it passes.
  return [dev, plan = it->second, lc, c, d = ops.d, alpha = float(p.alpha), beta = float(p.beta)](cudaStream_t stream) {
    LOOM_CUBLAS(cublasLtMatmul(dev.handle, plan->desc, &alpha, lc.a, plan->a, lc.b, plan->b, &beta, c, plan->c, d,
                               plan->c, &plan->algo, dev.workspace, kWorkspaceBytes, stream));
  };
}

void cublaslt_gemm(Problem const& p, Operands const& ops, cudaStream_t stream) { cublaslt_gemm_call(p, ops)(stream); }

std::string why_cublaslt_heuristic_refuses(Problem const& p0) {
  Problem const p = with_default_lds(p0);
  if (std::string const why = why_no_cublaslt(p); !why.empty())
    throw Error("no cuBLASLt FP8 gemm for " + case_name("cublas", p) + ": " + why);
  // Stand-in pointers, 256-byte aligned as cudaMalloc's are (the heuristic reads only their
  // alignment; nothing is launched), the scale pointers non-null as a case's are.
  auto const fake = reinterpret_cast<void const*>(std::uintptr_t(1) << 20);
  Operands ops;
  ops.a = ops.b = ops.c = fake;
  ops.d = const_cast<void*>(fake);
  ops.scale_a = ops.scale_b = static_cast<float const*>(fake);
  LtCase const lc = lt_case(p, ops);
  int ordinal = 0;
  LOOM_CUDA(cudaGetDevice(&ordinal));
  std::lock_guard<std::mutex> lock(mu);
  Device const dev = device(ordinal);
  try {
    make_plan(dev, p, lc, fake, fake);
  } catch (Error const& e) {
    return e.what();
  }
  return {};
}

}  // namespace loom::harness
