// The kernels' own entry points, for the code that calls them: gemm's dispatch (kernels/gemm.cu)
// picks fma, sm80 or sm90, sm90 hands to sm80 the cases TMA cannot read, and the library
// (kernels/api.cpp, <loom/gemm.hpp>) calls the dispatch and the add. None of them goes through the
// catalog (kernels/registry.hpp), which only lists the kernels for the tools.
//
// Each takes a Problem whose leading dimensions may be 0 (the smallest legal value), returns the
// launch's error, and checks nothing the catalog's why_unsupported checks (sizes, leading
// dimensions, dtypes, compute capability): check() says what else the kernel refuses.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/problem.hpp"

namespace loom {

namespace sgemm_fma {  // fp32 on the FFMA pipe (kernels/sgemm_fma.cu)
cudaError_t gemm(Problem const& p, Operands const& ops, cudaStream_t stream);
std::string check(Problem const& p);
}  // namespace sgemm_fma

namespace skinny {  // f16/bf16 with M or N at most 4 on FFMA, the long operand k-contiguous (kernels/gemm_skinny.cu)
cudaError_t gemm(Problem const& p, Operands const& ops, cudaStream_t stream);
std::string check(Problem const& p);
// Whether gemm's dispatch sends p here: skinny takes it, its long side has at least 128 rows (the
// fewest measured), and its strides let both operands move in 16-byte vectors.
bool preferred(Problem const& p);
}  // namespace skinny
namespace sm80 {  // f16/bf16 on mma.sync, any alignment (kernels/gemm_sm80.cu)
cudaError_t gemm(Problem const& p, Operands const& ops, cudaStream_t stream);
std::string check(Problem const& p);
}  // namespace sm80

namespace sm90 {  // f16/bf16 on wgmma and TMA, sm_90a only (kernels/sm90/)
cudaError_t gemm(Problem const& p, Operands const& ops, cudaStream_t stream);
std::string check(Problem const& p);
// The path gemm() takes for these operands ("tma <plan>, <epilogue>" or "sm80 (why)").
std::string path(Problem const& p, Operands const& ops);
// The same from the case alone, for operands at aligned addresses, on `target` (no GPU needed; its
// zero fields: the current GPU's, with its measured cluster residency, else an H100 SXM's), less
// the epilogue.
std::string plan(Problem const& p, PlanTarget const& target);
// The model's `count` best plans for the case on `target` (its choice first), and gemm() with one
// of them (a PlanChoice's spec, LOOM_SM90_PLAN's form) instead of the model's:
// cudaErrorInvalidValue when the spec names no plan or one the operands' majornesses do not take.
std::vector<PlanChoice> ranked_plans(Problem const& p, int count, PlanTarget const& target = {});
// The bytes of Operands::workspace gemm() needs on the current device (split-K's partials and
// counters; 0 for a whole-tile plan), for the model's plan or, with `spec`, that plan's; for
// operands at aligned addresses (others run sm80, which needs none).
std::size_t workspace_size(Problem const& p, std::string const& spec = {});
cudaError_t gemm_plan(Problem const& p, Operands const& ops, cudaStream_t stream, std::string const& spec);
}  // namespace sm90

namespace dispatch {  // gemm's choice among fma, sm80 and sm90 on the current device (kernels/gemm.cu)
// The library's descriptor of a gemm problem (alpha and beta are the call's).
GemmDesc gemm_desc(Problem const& p);
// `cc`: the current device's compute capability (major*10 + minor), which the caller has read.
cudaError_t gemm(Problem const& p, Operands const& ops, cudaStream_t stream, int cc);
std::string check(Problem const& p, int cc);
// The workspace gemm() needs on the current device (Operands::workspace): for p's beta, or with
// `any_beta` for whatever beta a call brings (gemm_workspace_size's promise).
std::size_t workspace_size(Problem p, int cc, bool any_beta = true);
}  // namespace dispatch

namespace elementwise {  // D = alpha*A + beta*B (kernels/add.cu)
cudaError_t add(Problem const& p, Operands const& ops, cudaStream_t stream);
std::string check(Problem const& p);
}  // namespace elementwise

// A CUDA error as the library's Status (kernels/api.cpp): cuda_error, or arch_mismatch for an error
// that says the build holds no code for the device.
Status cuda_status(cudaError_t e);

}  // namespace loom
