// gemm: the GEMM a user calls. It takes every case cublasGemmEx takes for these dtypes (fp32, fp16,
// bf16 inputs; any M, N, K >= 1; any storage orders, leading dimensions and alignments; any alpha
// and beta; C may alias D) and runs the Loom kernel for it:
//   fp32                                  -> fma
//   fp16, bf16 on compute capability 9.0  -> sm90 (which picks its tile shape, split-K and swap, and
//                                            falls back to sm80 where TMA cannot read A or B)
//   fp16, bf16 elsewhere (8.x, and 9.x+ without an sm_90a build)  -> sm80
// Its path (validate's [path], bench's path=) names the kernel and that kernel's own path.
#include <string>

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

KernelInfo const* target(Problem const& p, int cc) {
  if (p.dtype == DType::f32) return find_kernel("fma");
  // sm_90a code runs on compute capability 9.0 only.
  return find_kernel(cc == 90 ? "sm90" : "sm80");
}
KernelInfo const* target(Problem const& p) { return target(p, p.dtype == DType::f32 ? 0 : device_cc()); }

std::string check(Problem const& p) {
  KernelInfo const* k = target(p);
  if (!k) return "gemm: no kernel for dtype " + std::string(to_string(p.dtype));
  return k->check ? k->check(p) : std::string();
}

cudaError_t launch(Problem const& p, Operands const& ops, cudaStream_t stream) {
  KernelInfo const* k = target(p);
  return k ? k->launch(p, ops, stream) : cudaErrorNotSupported;
}

std::string path(Problem const& p, Operands const& ops) {
  KernelInfo const* k = target(p);
  if (!k) return "none";
  std::string const sub = kernel_path(*k, p, ops);
  return sub.empty() ? k->name : k->name + ": " + sub;
}

std::string plan(Problem const& p, int cc) {
  KernelInfo const* k = target(p, cc);
  if (!k) return "none";
  std::string const sub = k->plan ? k->plan(p, cc) : std::string();
  return sub.empty() ? k->name : k->name + ": " + sub;
}

}  // namespace

KernelInfo gemm_kernel_info() {
  KernelInfo k{"gemm", OpKind::gemm, {DType::f32, DType::f16, DType::bf16}, 80,
               "the entry point: fma for fp32; sm90 on compute capability 9.0, else sm80, for fp16 and bf16",
               check, launch};
  k.path = path;
  k.plan = plan;
  return k;
}

}  // namespace loom
