// sm90: the registration, the plan, the path and the launcher. The kernel is kernels/gemm_sm90.cuh
// (its header says how it works); kernels/CMakeLists.txt compiles it for sm_90a in one translation
// unit per tile shape and pair of majornesses (LOOM_SM90_INSTANCES).
//
// Plan (kernels/gemm_sm90_plan.hpp): the model picks a tile shape, a split of K (of every tile, or
// of the last partial wave's alone) and whether to swap A and B, from the problem's sizes and the SM
// count. LOOM_SM90_PLAN=<tile>:<splits>:<swap>[:<tail>] (e.g. 1:4:0, or 0:2:0:1 to split only the
// last wave) overrides it for tuning and tests; a plan the operands cannot take (a narrow tile with
// an mn-major B) falls back to the model's.
//
// Paths (KernelInfo::path, which launch() follows from the same plan and the same checks, so that
// what validate and bench report is what ran): "tma <plan>, ..." when TMA can read A and B (16-byte
// aligned bases, leading dimensions a multiple of 8 elements), otherwise "sm80 (why)", the
// mma.sync kernel, which takes any alignment.
// On the TMA path the epilogue is "tma store" (a tile shape that has it, beta == 0, D unswapped,
// D's base and row stride multiples of 16 bytes) or "direct store (why)", from the registers.
//
// Split-K's partials live in a workspace per stream (allocated on first use, grown when a bigger
// plan needs it, never shrunk): launches on one stream are ordered, so they never share one in
// flight. Its arrival counters start at zero and every launch leaves them at zero.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

#include "kernels/gemm_sm90.cuh"
#include "kernels/gemm_sm90_plan.hpp"
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"

namespace loom {
namespace {

// The kernel's arguments: the problem as row_major_gemm sees it, swapped to D^T = B^T A^T when the
// plan says so, plus alpha, beta and D's type.
sm90::Args make_args(Problem const& p, Operands const& ops, bool swap) {
  RowMajorGemm const g = row_major_gemm(p, ops);
  sm90::Args args{};
  args.a = g.a, args.b = g.b, args.c = ops.c, args.d = ops.d;
  args.ga = g.ga, args.gb = g.gb, args.gd = g.gd;
  args.alpha = float(p.alpha), args.beta = float(p.beta);
  args.out = p.out_dtype;
  args.pair_d = g.pair_d;
  args.splits = 1;
  if (swap) {
    std::swap(args.a, args.b);
    std::swap(args.ga, args.gb);
    args.gd = GmemShape{{g.gd.shape[1], g.gd.shape[0]}, {g.gd.stride[1], g.gd.stride[0]}};
    args.d_col = true;
    args.pair_d = false;
  }
  return args;
}

// Why TMA cannot read one operand, or "": the same rules make_tma_desc and the driver apply.
std::string why_no_tma(char const* name, void const* ptr, GmemShape const& g) {
  if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0) return std::string(name) + "'s base is not 16-byte aligned";
  i64 const ld = g.stride[0] == 1 ? g.stride[1] : g.stride[0];
  if ((ld * 2) % 16 != 0) return std::string("ld") + char(name[0] - 'A' + 'a') + " is not a multiple of 8 elements";
  return {};
}

int sm_count() {
  static int const sms = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      return 0;
    return n;
  }();
  return sms;
}

// LOOM_SM90_PLAN, parsed once: tile, splits, swap, tail; tile < 0 when unset or malformed.
sm90::Plan forced_plan() {
  static sm90::Plan const forced = [] {
    sm90::Plan f;
    f.tile = -1;
    char const* env = std::getenv("LOOM_SM90_PLAN");
    int t = 0, s = 0, w = 0, l = 0, used = 0, used4 = 0;
    bool ok = env && std::sscanf(env, "%d:%d:%d%n", &t, &s, &w, &used) == 3;
    if (ok && env[used] == ':') ok = std::sscanf(env + used, ":%d%n", &l, &used4) == 1 && env[used + used4] == 0;
    else ok = ok && env[used] == 0;
    if (ok && t >= 0 && t < sm90::kTileShapeCount && s >= 1 && s <= 64 && (w == 0 || w == 1) && (l == 0 || l == 1))
      f = sm90::Plan{t, s, w == 1, 0, l == 1};
    return f;
  }();
  return forced;
}

// The plan for a problem (with its leading dimensions filled in).
sm90::Plan choose_plan(Problem const& p, Operands const& ops) {
  sm90::Args const args = make_args(p, ops, false);
  sm90::PlanInput in;
  in.m = args.ga.shape[0], in.n = args.gb.shape[0], in.k = args.ga.shape[1];
  in.a_k_major = args.ga.stride[1] == 1, in.b_k_major = args.gb.stride[1] == 1;
  in.sms = sm_count() > 0 ? sm_count() : 132;
  in.out_bytes = int(size_of(p.out_dtype));
  in.beta = p.beta != 0;
  sm90::Plan const f = forced_plan();
  if (f.tile >= 0 && ((f.swap ? in.a_k_major : in.b_k_major) || sm90::tile_takes_mn_major_b(sm90::kTileShapes[f.tile])))
    return f;
  // The model weighs a few hundred configurations (about 2 µs of host time); a caller that launches
  // one shape again and again gets its last plan back.
  thread_local sm90::PlanInput last_in;
  thread_local sm90::Plan last_plan;
  thread_local bool have_last = false;
  if (!have_last || !(in == last_in)) last_in = in, last_plan = sm90::plan(in), have_last = true;
  return last_plan;
}

// What path() and launch() both start from: why TMA cannot read A or B ("" when it can), and then
// the plan and the kernel's arguments in its orientation.
struct Prepared {
  std::string why;
  sm90::Plan plan;
  sm90::Args args;
};
Prepared prepare(Problem const& p, Operands const& ops) {
  Prepared r;
  r.why = why_no_tma("A", ops.a, operand_shape(p.a, p.lda, p.m, p.k, false));
  if (r.why.empty()) r.why = why_no_tma("B", ops.b, operand_shape(p.b, p.ldb, p.n, p.k, true));
  if (!r.why.empty()) return r;
  r.plan = choose_plan(p, ops);
  r.args = make_args(p, ops, r.plan.swap);
  return r;
}

// One tile shape and pair of majornesses, as a call of F(integral constants...).
template <class F>
auto dispatch(int tile, bool ak, bool bk, F&& f) {
#define LOOM_SM90_CASE(T, AK, BK) \
  if (tile == T && ak == AK && bk == BK) return f(std::integral_constant<int, T>{}, std::bool_constant<AK>{}, std::bool_constant<BK>{});
  LOOM_SM90_INSTANCES(LOOM_SM90_CASE)
#undef LOOM_SM90_CASE
  return f(std::integral_constant<int, 0>{}, std::bool_constant<true>{}, std::bool_constant<true>{});  // not reached
}

std::string tma_why(sm90::Plan const& plan, sm90::Args const& args) {
  bool const ak = args.ga.stride[1] == 1, bk = args.gb.stride[1] == 1;
  return dispatch(plan.tile, ak, bk, [&](auto t, auto a, auto b) {
    CUtensorMap ma, mb;
    return sm90::tma_maps<decltype(t)::value, decltype(a)::value, decltype(b)::value>(args, &ma, &mb);
  });
}

std::string path(Problem const& p0, Operands const& ops) {
  Problem const p = with_default_lds(p0);
  Prepared const r = prepare(p, ops);
  std::string why = r.why;
  if (why.empty()) why = tma_why(r.plan, r.args);
  if (!why.empty()) return "sm80 (" + why + ")";
  std::string store = sm90::tile_has_tma_store(sm90::kTileShapes[r.plan.tile]) ? "" : "the tile is narrower than a store box";
  CUtensorMap d;
  if (store.empty()) store = sm90::make_tma_store_map(r.args, &d);
  return "tma " + sm90::describe(r.plan) + (store.empty() ? ", tma store" : ", direct store (" + store + ")");
}

// The split-K workspace of a stream: the partials, and the arrival counters (kept zero).
struct Workspace {
  void* partials = nullptr;
  std::size_t partial_bytes = 0;
  void* arrivals = nullptr;
  std::size_t arrival_bytes = 0;
};

// Makes *buf at least `need` bytes (zeroed on allocation when `zero`).
cudaError_t grow(cudaStream_t stream, void** buf, std::size_t* have, std::size_t need, bool zero) {
  if (*have >= need) return cudaSuccess;
  if (*buf) {
    // Launches already queued on this stream may still use the old buffer.
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e == cudaSuccess) e = cudaFree(*buf);
    *buf = nullptr, *have = 0;
    if (e != cudaSuccess) return e;
  }
  if (cudaError_t e = cudaMalloc(buf, need); e != cudaSuccess) return e;
  *have = need;
  return zero ? cudaMemsetAsync(*buf, 0, need, stream) : cudaSuccess;
}

cudaError_t workspace_for(cudaStream_t stream, std::size_t partial_bytes, std::size_t counters, float** partials,
                          unsigned** arrivals) {
  static std::mutex mu;
  static std::map<cudaStream_t, Workspace> spaces;
  std::lock_guard<std::mutex> lock(mu);
  Workspace& ws = spaces[stream];
  if (cudaError_t e = grow(stream, &ws.partials, &ws.partial_bytes, partial_bytes, false); e != cudaSuccess) return e;
  if (cudaError_t e = grow(stream, &ws.arrivals, &ws.arrival_bytes, counters * sizeof(unsigned), true); e != cudaSuccess)
    return e;
  *partials = static_cast<float*>(ws.partials);
  *arrivals = static_cast<unsigned*>(ws.arrivals);
  return cudaSuccess;
}

// Follows path() without building its string or the TMA maps twice: the plan once, the maps once
// (in launch_tiling, which says when TMA cannot take an operand; then sm80 runs, as path() says).
cudaError_t launch(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  auto const sm80 = [&] {
    KernelInfo const* k = find_kernel("sm80");
    return k ? k->launch(p, ops, stream) : cudaErrorNotSupported;
  };
  Prepared r = prepare(p, ops);
  if (!r.why.empty()) return sm80();
  if (sm_count() <= 0) return cudaErrorInvalidDevice;
  sm90::Plan const plan = r.plan;
  sm90::Args& args = r.args;
  args.sm_count = sm_count();
  args.splits = plan.splits;
  args.tail = plan.tail;
  if (plan.splits > 1) {
    sm90::TileShape const t = sm90::kTileShapes[plan.tile];
    i64 const m = args.ga.shape[0], n = args.gb.shape[0];
    std::size_t const tiles = std::size_t(sm90::split_tiles(t, m, n, plan.tail, sm_count()));
    if (cudaError_t e = workspace_for(stream, std::size_t(sm90::workspace_bytes(t, m, n, plan.splits, plan.tail, sm_count())),
                                      tiles * std::size_t(sm90::tile_consumers(t)), &args.partials, &args.arrivals);
        e != cudaSuccess)
      return e;
  }
  bool const bf16 = p.dtype == DType::bf16;
  bool const ak = args.ga.stride[1] == 1, bk = args.gb.stride[1] == 1;
  std::string why;
  cudaError_t const e = dispatch(plan.tile, ak, bk, [&](auto t, auto a, auto b) {
    return sm90::launch_tiling<decltype(t)::value, decltype(a)::value, decltype(b)::value>(args, bf16, stream, &why);
  });
  return e != cudaSuccess && !why.empty() ? sm80() : e;
}

std::string check(Problem const& p) {
  if (std::max({p.m, p.n, p.k}) > 0x7fffffff - 256) return "M, N and K must be below 2^31";
  return {};
}

// path() from the case alone: operands at an aligned (never dereferenced) address, and no TMA map
// (the driver's check of a map repeats make_tma_desc's, which prepare()'s rules mirror).
std::string plan_only(Problem const& p0, int) {
  Problem const p = with_default_lds(p0);
  Operands ops{};
  ops.a = ops.b = ops.c = reinterpret_cast<void const*>(std::uintptr_t(256));
  ops.d = reinterpret_cast<void*>(std::uintptr_t(256));
  Prepared const r = prepare(p, ops);
  return r.why.empty() ? "tma " + sm90::describe(r.plan) : "sm80 (" + r.why + ")";
}

}  // namespace

KernelInfo sm90_kernel_info() {
  KernelInfo k{"sm90", OpKind::gemm, {DType::f16, DType::bf16}, 90,
               "Hopper wgmma, TMA (multicast over 2-CTA clusters), warp-specialized persistent; tile shape "
               "(128x256, 128x192, 128x128, 128x64, 128x16, 64x128, 64x64, 64x16), split-K and swap-AB picked per problem by a model; fp32 "
               "accumulation; sm80 where TMA cannot read A or B",
               check, launch};
  k.path = path;
  k.plan = plan_only;
  k.max_cc = 90;  // sm_90a code (wgmma, setmaxnreg) runs on compute capability 9.0 alone
  return k;
}

}  // namespace loom
