#include "kernels/registry.hpp"

#include <cstdio>

namespace loom {

// One line per kernel.
KernelInfo add_kernel_info();
KernelInfo sgemm_fma_simple_kernel_info();
KernelInfo sgemm_fma_kernel_info();
KernelInfo sm80_kernel_info();
KernelInfo sm90_kernel_info();
KernelInfo gemm_kernel_info();

std::vector<KernelInfo> const& kernels() {
  static std::vector<KernelInfo> const all = {
      add_kernel_info(),
      sgemm_fma_simple_kernel_info(),
      sgemm_fma_kernel_info(),
      sm80_kernel_info(),
      sm90_kernel_info(),
      gemm_kernel_info(),
  };
  return all;
}

KernelInfo const* find_kernel(std::string_view name) {
  for (auto const& k : kernels())
    if (k.name == name) return &k;
  return nullptr;
}

const char* to_string(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
  }
  return "?";
}
const char* to_string(Order o) { return o == Order::col ? "c" : "r"; }
const char* to_string(OpKind o) { return o == OpKind::add ? "add" : "gemm"; }

std::size_t size_of(DType t) { return t == DType::f32 ? 4 : 2; }

bool parse_dtype(std::string_view s, DType* t) {
  if (s == "f32" || s == "fp32" || s == "float") { *t = DType::f32; return true; }
  if (s == "f16" || s == "fp16" || s == "half") { *t = DType::f16; return true; }
  if (s == "bf16") { *t = DType::bf16; return true; }
  return false;
}
bool parse_op(std::string_view s, OpKind* o) {
  if (s == "add") { *o = OpKind::add; return true; }
  if (s == "gemm") { *o = OpKind::gemm; return true; }
  return false;
}

std::int64_t rows_a(Problem const& p) { return p.m; }
std::int64_t cols_a(Problem const& p) { return p.op == OpKind::add ? p.n : p.k; }
std::int64_t rows_b(Problem const& p) { return p.op == OpKind::add ? p.m : p.k; }
std::int64_t cols_b(Problem const& p) { return p.n; }
std::int64_t min_ld(Order o, std::int64_t rows, std::int64_t cols) {
  std::int64_t ld = o == Order::col ? rows : cols;
  return ld > 0 ? ld : 1;
}

Problem with_default_lds(Problem p) {
  if (p.lda == 0) p.lda = min_ld(p.a, rows_a(p), cols_a(p));
  if (p.ldb == 0) p.ldb = min_ld(p.b, rows_b(p), cols_b(p));
  if (p.ldc == 0) p.ldc = min_ld(p.c, p.m, p.n);
  return p;
}

std::string layout_string(Problem const& p) {
  return std::string(to_string(p.a)) + to_string(p.b) + to_string(p.c);
}

bool parse_layout(std::string_view s, Problem* p) {
  if (s.size() != 3) return false;
  Order o[3];
  for (int i = 0; i < 3; ++i) {
    if (s[i] == 'c') o[i] = Order::col;
    else if (s[i] == 'r') o[i] = Order::row;
    else return false;
  }
  p->a = o[0];
  p->b = o[1];
  p->c = o[2];
  return true;
}

std::string case_name(std::string_view kernel, Problem const& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.*s/%s/%s/%lldx%lldx%lld", int(kernel.size()), kernel.data(),
                to_string(p.dtype), layout_string(p).c_str(), (long long)p.m, (long long)p.n,
                (long long)p.k);
  return buf;
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

std::string run_kernel(KernelInfo const& k, Problem const& p, Operands const& ops, cudaStream_t s, int cc) {
  std::string why = why_unsupported(k, p, cc);
  if (!why.empty()) return why;
  cudaError_t e = k.launch(p, ops, s);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) return k.name + ": " + cudaGetErrorString(e);
  return {};
}

}  // namespace loom
