#include "kernels/registry.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace loom {

// The catalog, in the order the tools list it: one entry per kernel, whose file defines
// KernelInfo <entry>_kernel_info().
#define LOOM_KERNELS(X) X(add) X(sgemm_fma_simple) X(sgemm_fma) X(sm80) X(sm90) X(gemm)

#define LOOM_DECLARE_KERNEL(name) KernelInfo name##_kernel_info();
LOOM_KERNELS(LOOM_DECLARE_KERNEL)
#undef LOOM_DECLARE_KERNEL

std::vector<KernelInfo> const& kernels() {
#define LOOM_LIST_KERNEL(name) name##_kernel_info(),
  static std::vector<KernelInfo> const all = {LOOM_KERNELS(LOOM_LIST_KERNEL)};
#undef LOOM_LIST_KERNEL
  return all;
}

KernelInfo const* find_kernel(std::string_view name) {
  for (auto const& k : kernels())
    if (k.name == name) return &k;
  return nullptr;
}

std::string why_unsupported(KernelInfo const& k, Problem const& p, int cc) {
  if (p.op != k.op) return k.name + " computes " + to_string(k.op) + ", not " + to_string(p.op);
  bool dtype_ok = false;
  for (DType t : k.dtypes) dtype_ok = dtype_ok || t == p.dtype;
  if (!dtype_ok) return k.name + " does not support dtype " + to_string(p.dtype);
  if (p.m <= 0 || p.n <= 0 || (p.op == OpKind::gemm && p.k <= 0))
    return "sizes must be positive (M=" + std::to_string(p.m) + " N=" + std::to_string(p.n) +
           (p.op == OpKind::gemm ? " K=" + std::to_string(p.k) : std::string()) + ")";
  if (p.lda < min_ld(p.a, rows_a(p), cols_a(p)))
    return "lda=" + std::to_string(p.lda) + " is smaller than a row of A (" +
           std::to_string(min_ld(p.a, rows_a(p), cols_a(p))) + ")";
  if (p.ldb < min_ld(p.b, rows_b(p), cols_b(p)))
    return "ldb=" + std::to_string(p.ldb) + " is smaller than a row of B (" +
           std::to_string(min_ld(p.b, rows_b(p), cols_b(p))) + ")";
  if (p.ldc < min_ld(p.c, p.m, p.n))
    return "ldc=" + std::to_string(p.ldc) + " is smaller than a row of C (" +
           std::to_string(min_ld(p.c, p.m, p.n)) + ")";
  if (cc < k.min_cc)
    return k.name + " needs compute capability " + std::to_string(k.min_cc / 10) + "." +
           std::to_string(k.min_cc % 10) + ", this GPU has " + std::to_string(cc / 10) + "." +
           std::to_string(cc % 10);
  if (k.max_cc > 0 && cc > k.max_cc)
    return k.name + " needs compute capability " +
           (k.max_cc == k.min_cc ? std::to_string(k.min_cc / 10) + "." + std::to_string(k.min_cc % 10) + " exactly"
                                 : "at most " + std::to_string(k.max_cc / 10) + "." + std::to_string(k.max_cc % 10)) +
           ", this GPU has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  return k.check ? k.check(p) : std::string();
}

std::string kernel_path(KernelInfo const& k, Problem const& p, Operands const& ops) {
  return k.path ? k.path(p, ops) : std::string();
}

namespace {

// The tools' workspace for launches on (device, stream): allocated when a case first needs more
// than it holds. The old buffer is freed after the stream's queued work, which may still use it.
std::string with_workspace(KernelInfo const& k, Problem const& p, std::string const& spec, cudaStream_t s,
                           Operands* ops) {
  if (!k.workspace_size || ops->workspace != nullptr) return {};
  std::size_t const need = k.workspace_size(p, spec);
  if (need == 0) return {};
  int dev = 0;
  if (cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return std::string("workspace: ") + cudaGetErrorString(e);
  struct Buffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
  };
  static std::mutex mu;
  static std::map<std::pair<int, cudaStream_t>, Buffer> buffers;
  std::lock_guard<std::mutex> lock(mu);
  Buffer& b = buffers[{dev, s}];
  if (b.bytes < need) {
    if (b.ptr) {
      if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) return std::string("workspace: ") + cudaGetErrorString(e);
      cudaFree(b.ptr);
      b = Buffer{};
    }
    if (cudaError_t e = cudaMalloc(&b.ptr, need); e != cudaSuccess) {
      cudaGetLastError();
      return "workspace: cannot allocate " + std::to_string(need) + " bytes (" + cudaGetErrorString(e) + ")";
    }
    b.bytes = need;
  }
  ops->workspace = b.ptr, ops->workspace_bytes = b.bytes;
  return {};
}

}  // namespace

std::string run_kernel(KernelInfo const& k, Problem const& p, Operands const& ops0, cudaStream_t s, int cc) {
  std::string why = why_unsupported(k, p, cc);
  if (!why.empty()) return why;
  Operands ops = ops0;
  if (std::string err = with_workspace(k, p, {}, s, &ops); !err.empty()) return k.name + ": " + err;
  Status const st = k.launch(p, ops, s);
  if (!st.ok()) return k.name + ": " + st.message();
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return k.name + ": " + cudaGetErrorString(e);
  return {};
}

std::string run_kernel_plan(KernelInfo const& k, Problem const& p, Operands const& ops0, cudaStream_t s, int cc,
                            std::string const& spec) {
  if (!k.launch_plan) return k.name + " has no plans to choose from";
  std::string why = why_unsupported(k, p, cc);
  if (!why.empty()) return why;
  Operands ops = ops0;
  if (std::string err = with_workspace(k, p, spec, s, &ops); !err.empty()) return k.name + ": " + err;
  cudaError_t e = k.launch_plan(p, ops, s, spec);
  if (e == cudaErrorInvalidValue) return k.name + ": plan " + spec + " is not one this case can take";
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) return k.name + " (plan " + spec + "): " + cudaGetErrorString(e);
  return {};
}

}  // namespace loom
