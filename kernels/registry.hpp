// Loom kernel registry: one list of kernels that loom-validate and loom-bench both iterate.
//
// A kernel registers its name, the operation and dtypes it implements, the oldest GPU it runs on,
// a check that says why a case is unsupported, and a launcher. Adding a kernel is one file under
// kernels/ plus one line in kernels/registry.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace loom {

enum class DType { f32, f16, bf16 };
enum class Order { col, row };  // col: element (i,j) at i + j*ld; row: at i*ld + j
enum class OpKind { add, gemm };

const char* to_string(DType);
const char* to_string(Order);  // "c" or "r"
const char* to_string(OpKind);
std::size_t size_of(DType);
bool parse_dtype(std::string_view, DType*);
bool parse_op(std::string_view, OpKind*);

// One case. For add, D = alpha*A + beta*B over M x N (k is unused); for gemm,
// D = alpha*A*B + beta*C with A M x K, B K x N, C and D M x N (C may alias D).
struct Problem {
  OpKind op = OpKind::add;
  DType dtype = DType::f32;      // A and B (and C, D for add)
  DType out_dtype = DType::f32;  // C and D
  std::int64_t m = 0, n = 0, k = 0;
  Order a = Order::col, b = Order::col, c = Order::col;  // c: the order of C and D
  std::int64_t lda = 0, ldb = 0, ldc = 0;                // 0: the smallest legal value
  double alpha = 1.0, beta = 0.0;
};

// Rows and columns of each operand as stored, and the smallest legal leading dimension.
std::int64_t rows_a(Problem const&);
std::int64_t cols_a(Problem const&);
std::int64_t rows_b(Problem const&);
std::int64_t cols_b(Problem const&);
std::int64_t min_ld(Order, std::int64_t rows, std::int64_t cols);
// Fill leading dimensions left at 0 with their smallest legal values.
Problem with_default_lds(Problem);
// "<kernel>/<dtype>/<layout>/<M>x<N>x<K>", the NVTX range and benchmark name of a case.
std::string case_name(std::string_view kernel, Problem const&);
// Layout string: the orders of A, B, C, e.g. "ccc" or "rcr".
std::string layout_string(Problem const&);
bool parse_layout(std::string_view, Problem*);

struct Operands {
  void const* a = nullptr;
  void const* b = nullptr;
  void const* c = nullptr;  // gemm only
  void* d = nullptr;
};

struct KernelInfo {
  std::string name;
  OpKind op = OpKind::add;
  std::vector<DType> dtypes;
  int min_cc = 80;  // compute capability, major*10 + minor
  std::string description;
  // Empty when the kernel takes the case, else why it does not.
  std::function<std::string(Problem const&)> check;
  std::function<cudaError_t(Problem const&, Operands const&, cudaStream_t)> launch;
  // For a kernel with more than one path (sm90: TMA, or sm80 where TMA cannot read the operands),
  // the path launch() takes for these operands; launch() follows the same function, so what
  // validate and bench report is what ran. Empty function: one path.
  std::function<std::string(Problem const&, Operands const&)> path;
  // The path path() would name on a device of compute capability `cc` for operands at 256-byte
  // aligned addresses, less the epilogue (which D's address also decides), from the case alone: no
  // GPU, buffers or driver needed (loom-bench --mode=enumerate prints it). Without a GPU, sm90
  // plans for an H100's 132 SMs. Empty function: one path.
  std::function<std::string(Problem const&, int cc)> plan;
  int max_cc = 0;  // the newest compute capability it runs on (0: any); sm_90a code runs on 9.0 alone
};

// The path `k` takes for this case, or "" for a kernel with one path.
std::string kernel_path(KernelInfo const& k, Problem const& p, Operands const& ops);

std::vector<KernelInfo> const& kernels();
KernelInfo const* find_kernel(std::string_view name);

// Why `k` cannot run `p` on a device of compute capability `cc` with these operands (sizes,
// leading dimensions, dtype, GPU generation, the kernel's own check); empty if it can.
std::string why_unsupported(KernelInfo const& k, Problem const& p, int cc);

// Checks, launches, and checks the launch. Returns an empty string on success, else a one-line
// reason (unsupported case or CUDA error).
std::string run_kernel(KernelInfo const& k, Problem const& p, Operands const& ops, cudaStream_t s, int cc);

}  // namespace loom
