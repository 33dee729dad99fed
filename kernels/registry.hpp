// Loom's kernel catalog: one list of kernels that loom-validate and loom-bench both iterate. The
// problem vocabulary it speaks (DType, Problem, Operands) is kernels/problem.hpp; no kernel header
// includes this file, and kernels call each other through kernels/entry.hpp, never by name.
//
// A kernel registers its name, the operation and dtypes it implements, the oldest GPU it runs on,
// a check that says why a case is unsupported, and a launcher. Adding a kernel is one file under
// kernels/ plus one entry in kernels/registry.cpp's LOOM_KERNELS.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/entry.hpp"
#include "kernels/problem.hpp"

namespace loom {

struct KernelInfo {
  std::string name;
  OpKind op = OpKind::add;
  std::vector<DType> dtypes;
  int min_cc = 80;  // compute capability, major*10 + minor
  std::string description;
  // Empty when the kernel takes the case, else why it does not.
  std::function<std::string(Problem const&)> check;
  // Launches the case (Operands::workspace holding workspace_size's bytes). gemm and add are the
  // library's loom::gemm and loom::add; the other kernels' launchers return a cudaError_t
  // (launched<F> makes it a Status).
  std::function<Status(Problem const&, Operands const&, cudaStream_t)> launch;
  // For a kernel with more than one path (sm90: TMA, or sm80 where TMA cannot read the operands),
  // the path launch() takes for these operands; launch() follows the same function, so what
  // validate and bench report is what ran. Empty function: one path.
  std::function<std::string(Problem const&, Operands const&)> path;
  // The path path() would name on a device of compute capability `cc` (and, for a kernel whose
  // model reads them, the SMs, clocks and bus of `target`) for operands at 256-byte aligned
  // addresses, less the epilogue (which D's address also decides), from the case alone: no GPU,
  // buffers or driver needed (loom-bench --mode=enumerate prints it). Empty function: one path.
  std::function<std::string(Problem const&, int cc, PlanTarget const& target)> plan;
  int max_cc = 0;  // the newest compute capability it runs on (0: any); sm_90a code runs on 9.0 alone
  // For a kernel that plans each problem with a model (sm90): the model's `count` best plans for the
  // case on `target` (its zero fields: the current GPU's), its choice first, and launch() with one
  // of them instead of the model's (loom-bench --plans times them). Empty functions: no plans.
  std::function<std::vector<PlanChoice>(Problem const&, int count, PlanTarget const& target)> ranked_plans;
  std::function<cudaError_t(Problem const&, Operands const&, cudaStream_t, std::string const& spec)> launch_plan;
  // The bytes of Operands::workspace a launch of the case needs on the current device (with `spec`:
  // launch_plan's of that plan). Empty function: none.
  std::function<std::size_t(Problem const&, std::string const& spec)> workspace_size;
};

// A launcher that returns a cudaError_t as a KernelInfo::launch.
template <auto F>
Status launched(Problem const& p, Operands const& ops, cudaStream_t stream) {
  return cuda_status(F(p, ops, stream));
}

// The path `k` takes for this case, or "" for a kernel with one path.
std::string kernel_path(KernelInfo const& k, Problem const& p, Operands const& ops);

std::vector<KernelInfo> const& kernels();
KernelInfo const* find_kernel(std::string_view name);

// Why `k` cannot run `p` on a device of compute capability `cc` with these operands (sizes,
// leading dimensions, dtype, GPU generation, the kernel's own check); empty if it can.
std::string why_unsupported(KernelInfo const& k, Problem const& p, int cc);

// Checks, launches, and checks the launch. Returns an empty string on success, else a one-line
// reason (unsupported case or CUDA error). A kernel that needs a workspace gets the tools' own: one
// per device and stream, grown (outside the library call) when a case needs more.
std::string run_kernel(KernelInfo const& k, Problem const& p, Operands const& ops, cudaStream_t s, int cc);
// The same with plan `spec` (one of k.ranked_plans's) instead of the kernel's own choice.
std::string run_kernel_plan(KernelInfo const& k, Problem const& p, Operands const& ops, cudaStream_t s, int cc,
                            std::string const& spec);

}  // namespace loom
