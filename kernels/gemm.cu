// gemm: the GEMM a user calls. It takes every case cublasGemmEx takes for these dtypes (fp32, fp16,
// bf16 inputs; any M, N, K >= 1; any storage orders, leading dimensions and alignments; any alpha
// and beta; C may alias D) and runs the Loom kernel for it:
//   fp32                                  -> fma
//   fp16, bf16 with M or N at most 4 and the long operand k-contiguous (decode) -> skinny
//   fp16, bf16 on compute capability 9.0  -> sm90 (which picks its tile shape, split-K and swap, and
//                                            falls back to sm80 where TMA cannot read A or B)
//   fp16, bf16 elsewhere (8.x, and 9.x+ without an sm_90a build)  -> sm80
//   e4m3, e5m2 (per-tensor scales)        -> sm90 on compute capability 9.0 only
// Its path (validate's [path], bench's path=) names the kernel and that kernel's own path. The
// library's loom::gemm (kernels/api.cpp) checks the arguments and calls dispatch::gemm; the catalog's
// entry calls loom::gemm.
#include <algorithm>
#include <string>

#include "loom/gemm.hpp"

#include "kernels/entry.hpp"
#include "kernels/registry.hpp"

namespace loom {
namespace {

// The current device's compute capability (major*10 + minor), 0 without one.
int device_cc() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    cudaGetLastError();  // a failed query is not this kernel's launch error
    return 0;
  }
  return major * 10 + minor;
}

// The kernel a case runs on: fp32 on fma; f16/bf16 with a short side on skinny (any GPU); the other
// f16/bf16 on sm90 where sm_90a code runs (compute capability 9.0 exactly), else on sm80.
enum class Target { fma, skinny, sm80, sm90 };
Target target(Problem const& p, int cc) {
  if (p.dtype == DType::f32) return Target::fma;
  if (is_8bit(p.dtype)) return Target::sm90;  // check() refuses it elsewhere
  if (skinny::preferred(p)) return Target::skinny;
  return cc == 90 ? Target::sm90 : Target::sm80;
}
// The compute capability target() needs for p: none for fp32, which runs on fma everywhere.
int cc_for(Problem const& p) { return p.dtype == DType::f32 ? 0 : device_cc(); }
Target target(Problem const& p) { return target(p, cc_for(p)); }
char const* name(Target t) {
  switch (t) {
    case Target::fma: return "fma";
    case Target::skinny: return "skinny";
    case Target::sm80: return "sm80";
    case Target::sm90: return "sm90";
  }
  return "";
}

std::string path(Problem const& p, Operands const& ops) {
  Target const t = target(p);
  return t == Target::sm90 ? std::string("sm90: ") + sm90::path(p, ops) : name(t);
}

std::string plan(Problem const& p, int cc, PlanTarget const& gpu) {
  Target const t = target(p, cc);
  return t == Target::sm90 ? std::string("sm90: ") + sm90::plan(p, gpu) : name(t);
}

// The catalog's gemm is the library's: what validate checks and bench times is what a user calls.
GemmDesc desc_of(Problem const& p) { return dispatch::gemm_desc(p); }

Status launch(Problem const& p, Operands const& ops, cudaStream_t stream) {
  return loom::gemm(desc_of(p), float(p.alpha), ops.a, ops.b, float(p.beta), ops.c, ops.d, ops.workspace,
                    ops.workspace_bytes, stream, GemmScales{ops.scale_a, ops.scale_b});
}

std::size_t workspace(Problem const& p, std::string const&) {
  std::size_t bytes = 0;
  return loom::gemm_workspace_size(desc_of(p), &bytes).ok() ? bytes : 0;
}

}  // namespace

namespace dispatch {

GemmDesc gemm_desc(Problem const& p) {
  GemmDesc d;
  d.m = p.m, d.n = p.n, d.k = p.k;
  d.ab_type = p.dtype, d.cd_type = p.out_dtype;
  d.b_type = p.b_dtype;
  d.fast_accum = p.fast_accum;
  d.scale = p.scale;
  d.a_order = p.a, d.b_order = p.b, d.cd_order = p.c;
  d.lda = p.lda, d.ldb = p.ldb, d.ldc = p.ldc;
  return d;
}

std::string check(Problem const& p, int cc) {
  if (b_type(p) != p.dtype && !(is_8bit(p.dtype) && is_8bit(b_type(p))))
    return std::string("A ") + to_string(p.dtype) + " with B " + to_string(b_type(p)) +
           ": A and B have one type, unless both are 8-bit (e4m3, e5m2)";
  // cc 0: no device to ask (loom-bench --mode=enumerate on a machine without one), whose plan the
  // caller names; loom::gemm always passes the current device's.
  if ((is_8bit(p.dtype) || is_8bit(b_type(p))) && cc != 90 && cc != 0)
    return "8-bit inputs (e4m3, e5m2) run on compute capability 9.0 only (sm_90a's wgmma)";
  switch (target(p, cc)) {
    case Target::fma: return sgemm_fma::check(p);
    case Target::skinny: return skinny::check(p);
    case Target::sm80: return sm80::check(p);
    case Target::sm90: return sm90::check(p);
  }
  return {};
}

cudaError_t gemm(Problem const& p, Operands const& ops, cudaStream_t stream, int cc) {
  switch (target(p, cc)) {
    case Target::fma: return sgemm_fma::gemm(p, ops, stream);
    case Target::skinny: return skinny::gemm(p, ops, stream);
    case Target::sm80: return sm80::gemm(p, ops, stream);
    case Target::sm90: return sm90::gemm(p, ops, stream);
  }
  return cudaErrorNotSupported;
}

// Only sm90 splits K (fma's split adds into D, sm80 has none). The plan weighs beta 0 and beta != 0
// differently: for any beta, the larger of the two plans' workspaces.
std::size_t workspace_size(Problem p, int cc, bool any_beta) {
  if (target(p, cc) != Target::sm90) return 0;
  if (!any_beta) return sm90::workspace_size(p);
  p.beta = 0;
  std::size_t const zero = sm90::workspace_size(p);
  p.beta = 1;
  return std::max(zero, sm90::workspace_size(p));
}

}  // namespace dispatch

KernelInfo gemm_kernel_info() {
  KernelInfo k{"gemm", OpKind::gemm, {DType::f32, DType::f16, DType::bf16, DType::e4m3, DType::e5m2}, 80,
               "the entry point: fma for fp32; for fp16 and bf16, skinny where M or N is at most 4 (the other at least 128), else sm90 on "
               "compute capability 9.0, else sm80; "
               "sm90 for e4m3 and e5m2 (compute capability 9.0, per-tensor scales)",
               [](Problem const& p) { return dispatch::check(p, cc_for(p)); }, launch};
  k.workspace_size = workspace;
  k.path = path;
  k.plan = plan;
  return k;
}

}  // namespace loom
