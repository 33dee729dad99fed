// Loom's problem vocabulary: the operation, its dtypes and storage orders (Problem), the device
// pointers it runs on (Operands), and the leading-dimension rules. Every kernel, the catalog
// (kernels/registry.hpp) and both tools speak it; it knows nothing of which kernels exist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "loom/gemm.hpp"  // DType, Order: the library's

namespace loom {

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
  std::optional<DType> b_dtype;  // gemm: B's type where it differs from A's (the 8-bit pairs e4m3 x e5m2)
  bool fast_accum = false;       // gemm, 8-bit inputs: no promotion of the partial sums (GemmDesc::fast_accum)
  ScaleMode scale = ScaleMode::tensor;  // gemm, 8-bit inputs: per-tensor or block scales (GemmDesc::scale)
  std::int64_t m = 0, n = 0, k = 0;
  Order a = Order::col, b = Order::col, c = Order::col;  // c: the order of C and D
  std::int64_t lda = 0, ldb = 0, ldc = 0;                // 0: the smallest legal value
  double alpha = 1.0, beta = 0.0;
};

// B's type: b_dtype, else dtype.
inline DType b_type(Problem const& p) { return p.b_dtype.value_or(p.dtype); }
// Whether A (and so B) is an 8-bit type: e4m3 or e5m2.
inline bool is_8bit(DType t) { return t == DType::e4m3 || t == DType::e5m2; }

// Rows and columns of each operand as stored, and the smallest legal leading dimension.
std::int64_t rows_a(Problem const&);
std::int64_t cols_a(Problem const&);
std::int64_t rows_b(Problem const&);
std::int64_t cols_b(Problem const&);
std::int64_t min_ld(Order, std::int64_t rows, std::int64_t cols);
// Fill leading dimensions left at 0 with their smallest legal values.
Problem with_default_lds(Problem);
// The input types as a case names them: A's dtype ("bf16", "e4m3"), or "<A>x<B>" where B's differs
// ("e4m3xe5m2"), and after 8-bit types "-fast" in the fast accumulation mode ("e4m3-fast") or
// "-block" with block scales ("e4m3-block").
std::string input_types(Problem const&);
// Sets dtype, b_dtype, fast_accum and scale from input_types()'s form; false (p unchanged) on an
// unknown name, or "-fast" or "-block" after 16- or 32-bit types.
bool parse_input_types(std::string_view, Problem* p);
// "<kernel>/<input types>/<layout>/<M>x<N>x<K>", the NVTX range and benchmark name of a case.
std::string case_name(std::string_view kernel, Problem const&);
// Layout string: the orders of A, B, C, e.g. "ccc" or "rcr".
std::string layout_string(Problem const&);
bool parse_layout(std::string_view, Problem*);

struct Operands {
  void const* a = nullptr;
  void const* b = nullptr;
  void const* c = nullptr;  // gemm only
  void* d = nullptr;
  // Scratch the caller owns, 16-byte aligned, of at least the kernel's workspace size
  // (KernelInfo::workspace_size): gemm's split-K partials and counters. A launch keeps nothing in
  // it between calls; two launches in flight at once need one each.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  // 8-bit gemm inputs' scales (GemmScales): per tensor, one fp32 each (null: 1); per block, the
  // arrays loom/gemm.hpp lays out.
  float const* scale_a = nullptr;
  float const* scale_b = nullptr;
};

// The GPU a kernel's model plans for when no GPU is asked (loom-bench --mode=enumerate's --sms and
// --card): a field of 0 is the current GPU's, else an H100 SXM's.
struct PlanTarget {
  int sms = 0;          // multiprocessors
  double sm_khz = 0;    // the highest SM clock
  double mem_khz = 0;   // the memory clock
  int bus_bits = 0;     // the memory bus width
  // Clusters of 1, 2, ..., 8 CTAs (of a whole SM each) resident at once, as the card measured them
  // (a cluster stays in one GPC, so sizes 3 and up hold fewer than the SMs over the size); 0: the
  // current GPU's, or the SM count over the size.
  int clusters[8] = {};
  // Weigh too the tile shapes the model never offers (sm90: min_m kForcedOnly, kernels/sm90/tile_menu.hpp),
  // and every shape beyond the tokens it is offered at (min_n, max_n), so that `loom-bench --plans
  // --plan-shapes` can time them for the fit data before or beyond their offer.
  bool forced_only = false;
};

// One plan of a kernel that plans each problem (sm90): its spec (what the kernel's launch_plan
// takes), the plan in words, and the kernel's model's estimate of its time.
struct PlanChoice {
  std::string spec, description;
  double estimate_us = 0;
  std::string inputs;  // what the model read of the device, as key=value pairs separated by "; "
};

}  // namespace loom
