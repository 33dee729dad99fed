// sm90: the registration, the plan, the schedule, the path and the launch. The kernel is
// kernels/sm90/kernel.cuh (its header lists the pieces); kernels/CMakeLists.txt compiles it for
// sm_90a in one generated translation unit per tile shape and pair of majornesses.
//
// A launch: the plan (kernels/sm90/plan.hpp: tile shape, split of K of every tile or of the last
// partial wave, or stream-K over it; swap), then the schedule (kernels/sm90/schedule.hpp) on this
// device's residency, then the workspace the schedule asks for, then the instance's launcher with
// both. The plan is the model's, or LOOM_SM90_PLAN=<shape>:<splits>:<swap>[:<mode>] (e.g. 1:4:0,
// 0:2:0:1 to split only the last wave, 9:1:0:2 for stream-K) for tuning and tests; a forced plan the
// operands cannot take (a narrow tile with an mn-major B, a family tile with an mn-major operand)
// falls back to the model's.
//
// Paths (KernelInfo::path, which launch follows from the same plan, schedule and checks, so that
// what validate and bench report is what ran): "tma <plan>, ..." when TMA can read A and B (16-byte
// aligned bases, leading dimensions multiples of 16 bytes), otherwise "sm80 (why)", the mma.sync
// kernel, which takes any alignment, for 16-bit inputs, and "none (why)" for 8-bit ones, which only
// the TMA path reads (loom::gemm refuses those cases before they launch). On the TMA path the
// epilogue is "tma store" (a tile shape with buffers for it, beta == 0, D unswapped on a tile whose
// rows are whole store boxes or swapped and 16-bit, D's base and row stride multiples of 16 bytes:
// make_tma_store_map) or "direct store (why)", from the registers.
//
// 8-bit inputs (e4m3/e5m2, check() says which): the same plan, schedule (k tiles of 128 elements)
// and kernel, instantiated per pair of input types and accumulation mode (launch_instance_fp8; the
// plan weighs the instances built, kernels/sm90/instances_8bit.hpp); the per-tensor scales ride in
// the parameter block and join alpha in the epilogue. Block scales (ScaleMode::block) run on the
// accurate mode's instances, each k tile's partial scaled as it is promoted, in the one orientation
// where the problem's A (its per-row scales) is the kernel's A: unswapped for a row-major D, swapped
// for a column-major one (PlanInput::block_swap). An mn-major 8-bit A or B (wgmma reads 8-bit
// operands k-major only) is first copied k-major into the front of the workspace by a pass of its
// own (kernels/sm90/transpose8.cuh; KMajorView), which workspace_size counts and path names.
//
// Split-K's partials and arrival counters live in the caller's workspace (Operands::workspace, of
// workspace_size's bytes): a launch allocates nothing, copies nothing from the host and never
// synchronizes, so it can be captured in a CUDA graph. No kernel resets the counters: each launch
// tags them with a generation of its own (next_generation; kernels/sm90/epilogue.cuh's
// split_k_fixup), so a replay, or a workspace last used for something else, starts clean. Against
// the reset kernel launched before the GEMM that it replaced, a split launch on an H200 took 0.35-4.0
// µs less (medians by set; with the reset, one problem's median moved 3 µs between sets:
// docs/tuning/sm90.md, thirtieth round). Where every split unit is its cluster's last (in the plain
// order, not group_by_gpc's), the tile's last split sums the others' partials as their flags (tagged
// the same way) rise, instead of the last to arrive on the counter (split_k_fixup's fixed finisher;
// the workspace holds a word a split and slot for either); LOOM_SM90_SPLIT_FIXUP=counter keeps every
// plan on the counter.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/entry.hpp"
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"
#include "kernels/sm90/launch.cuh"
#include "kernels/sm90/plan.hpp"
#include "kernels/sm90/schedule.hpp"
#include "kernels/sm90/transpose8.cuh"

namespace loom::sm90 {
namespace {

// An operand of one row or one column (M, N or K of 1) never steps along that mode, so its stride
// there is free: it becomes the other mode's neighbour, contiguous-mode extent rounded up to 16
// bytes, which TMA takes whatever the leading dimension was. A 1 x K column-major A (ccc at M = 1,
// lda = 1) is then a k-major row that TMA reads, instead of a case for sm80.
GmemShape tma_view(GmemShape g, int elem_bytes) {
  int const per16 = 16 / elem_bytes;  // elements in 16 bytes
  for (int i = 0; i < 2; ++i)
    if (g.shape[i] == 1 && g.stride[1 - i] == 1) g.stride[i] = (g.shape[1 - i] + per16 - 1) / per16 * per16;
  return g;
}

// The kernel's arguments: the problem as row_major_gemm sees it (A and B in their TMA view), plus
// alpha, beta, D's type and the 8-bit inputs' scales and types (A's and B's as the kernel sees them:
// a column-major D trades A and B).
Args make_args(Problem const& p, Operands const& ops) {
  RowMajorGemm const g = row_major_gemm(p, ops);
  Args args{};
  int const es = int(size_of(p.dtype));
  args.a = g.a, args.b = g.b, args.c = ops.c, args.d = ops.d;
  args.ga = tma_view(g.ga, es), args.gb = tma_view(g.gb, es), args.gd = g.gd;
  bool const traded = p.c == Order::col;  // row_major_gemm's D^T = B^T A^T
  args.scale_a = traded ? ops.scale_b : ops.scale_a, args.scale_b = traded ? ops.scale_a : ops.scale_b;
  args.type_a = traded ? b_type(p) : p.dtype, args.type_b = traded ? p.dtype : b_type(p);
  args.promote = loom::is_8bit(p.dtype) && !p.fast_accum;
  args.block_scale = loom::is_8bit(p.dtype) && p.scale == ScaleMode::block;
  args.rows_scale_a = !traded;
  args.alpha = float(p.alpha), args.beta = float(p.beta);
  args.out = p.out_dtype;
  args.pair_d = g.pair_d;
  return args;
}

// The same arguments for D^T = B^T A^T (a swapped plan): A and B trade places and D is seen
// transposed, m contiguous (the TMA-store epilogue writes it in column boxes where it is 16-bit,
// the direct one otherwise).
Args swapped(Args args) {
  std::swap(args.a, args.b);
  std::swap(args.ga, args.gb);
  std::swap(args.scale_a, args.scale_b);
  std::swap(args.type_a, args.type_b);
  args.rows_scale_a = !args.rows_scale_a;
  args.gd = GmemShape{{args.gd.shape[1], args.gd.shape[0]}, {args.gd.stride[1], args.gd.stride[0]}};
  args.d_col = true;
  args.pair_d = false;
  return args;
}

// Why TMA cannot read one operand (A or B of the problem, in its TMA view), or "": the same rules
// make_tma_desc and the driver apply.
std::string why_no_tma(char const* name, void const* ptr, GmemShape const& g, int elem_bytes) {
  if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0) return std::string(name) + "'s base is not 16-byte aligned";
  i64 const ld = g.stride[0] == 1 ? g.stride[1] : g.stride[0];
  if ((ld * elem_bytes) % 16 != 0)
    return std::string("ld") + char(name[0] - 'A' + 'a') + " is not a multiple of " + std::to_string(16 / elem_bytes) + " elements";
  return {};
}

// A launch of `ctas` CTAs of a probe kernel in clusters of `size`, each CTA with as many threads as
// the two-consumer tiles and the whole of the shared memory a CTA may have: one CTA an SM, as the
// kernels get. Not copyable: cfg points at attr.
struct ProbeLaunch {
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg{};
  ProbeLaunch(int size, int ctas, cudaStream_t stream = nullptr) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = unsigned(size);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(unsigned(ctas));
    cfg.blockDim = dim3(unsigned(tile_threads(kTileShapes[0])));
    cfg.dynamicSmemBytes = kSmemLimit;
    cfg.stream = stream;
  }
  ProbeLaunch(ProbeLaunch const&) = delete;
  ProbeLaunch& operator=(ProbeLaunch const&) = delete;
};

// Stands in for every sm90 kernel in the occupancy query: as many threads as the two-consumer
// tiles and the whole of the shared memory a CTA may have, so one CTA per SM, as the kernels get.
__global__ void residency_probe() {}

// What the model reads of a device: its residency and its card.
struct DeviceFacts {
  Residency res;
  Card card;
};

// The current device's facts, read once per device: the residency measured
// (cudaOccupancyMaxActiveClusters of clusters of 1 to 8 CTAs), the clocks and the bus width
// from its attributes; without a device, an H100 SXM's (the defaults).
DeviceFacts device_facts() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return DeviceFacts{};
  }
  static std::mutex mu;
  static std::map<int, DeviceFacts> known;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = known.find(dev); it != known.end()) return it->second;
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0) {
    cudaGetLastError();
    return DeviceFacts{};
  }
  DeviceFacts facts;
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev) == cudaSuccess && v > 0) facts.card.sm_clock_khz = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev) == cudaSuccess && v > 0) facts.card.mem_clock_khz = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess && v > 0) facts.card.bus_bits = v;
  cudaGetLastError();
  Residency& r = facts.res;
  r = Residency::of_sms(sms);
  if (cudaFuncSetAttribute(residency_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemLimit) == cudaSuccess) {
    for (int size = 1; size <= Residency::kMaxCluster && size <= sms; ++size) {
      ProbeLaunch probe(size, sms / size * size);  // a whole number of clusters, or the query fails
      cudaLaunchConfig_t const& cfg = probe.cfg;
      int n = 0;
      if (cudaOccupancyMaxActiveClusters(&n, residency_probe, &cfg) == cudaSuccess && n > 0) r.clusters[size - 1] = n;
    }
  }
  cudaGetLastError();  // a failed query leaves the SM count's estimate, not a launch error
  known[dev] = facts;
  return facts;
}

// Where the GEMM's clusters run (group_by_gpc): each CTA of a probe launch records its SM, and holds
// it for `hold_ns` (200 µs: far longer than the grid takes to start), so that every cluster of the
// launch is resident at once, as in the GEMM's persistent grid, and none lands on an SM another left
// (a CTA an SM: the probe takes the shared memory a GEMM's CTA may).
__global__ void placement_probe(unsigned* sm_of_cta, unsigned long long hold_ns) {
#if LOOM_SM90A_ENABLED
  unsigned long long const t0 = global_timer_ns();
  if (threadIdx.x == 0) sm_of_cta[blockIdx.x] = sm_id();
  while (global_timer_ns() - t0 < hold_ns) {
  }
#else
  (void)sm_of_cta, (void)hold_ns;
#endif
}

// The GPC of every cluster of a full launch of each size the menu uses (gpc[size - 1][cluster], the
// cluster numbered blockIdx / size, as the GEMM numbers them); empty where not measured.
struct ClusterGpcs {
  std::vector<unsigned char> gpc[Residency::kMaxCluster];
};

// Measures it: probe launches of clusters of every size from 1 to 8, and of 16 where the device
// allows that many, place their CTAs within one GPC each, so that the SMs that shared a cluster in
// any of them (united, union-find) make up a GPC; then each cluster of the menu's sizes takes the
// GPC of its first CTA's SM. The hardware places the clusters of a launch on an idle GPU the same way
// every time (2026-11-28, H100: twice the same in every size), and the GEMM's clusters as the
// probe's; where it places them otherwise, the grouped order computes the same D, only slower.
// Runs on a stream of its own, in the relaxed capture mode, so that it neither joins nor breaks a
// capture in another thread; its failures leave the sizes unmeasured.
ClusterGpcs measure_cluster_gpcs(Residency const& res) {
  ClusterGpcs out;
  int const sms = res.sms;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) {
    cudaGetLastError();
    return out;
  }
  unsigned* d = nullptr;
  cudaStream_t st = nullptr;
  std::vector<int> parent(std::size_t(sms), 0);
  for (int i = 0; i < sms; ++i) parent[std::size_t(i)] = i;
  auto find = [&](int x) {
    while (parent[std::size_t(x)] != x) x = parent[std::size_t(x)] = parent[std::size_t(parent[std::size_t(x)])];
    return x;
  };
  std::vector<unsigned> placed[17];
  if (cudaMalloc(&d, sizeof(unsigned) * std::size_t(sms)) == cudaSuccess &&
      cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess &&
      cudaFuncSetAttribute(placement_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemLimit) == cudaSuccess) {
    cudaFuncSetAttribute(placement_probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaGetLastError();
    for (int size : {1, 2, 3, 4, 5, 6, 7, 8, 16}) {
      ProbeLaunch probe(size, size, st);
      cudaLaunchConfig_t& cfg = probe.cfg;
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, placement_probe, &cfg) != cudaSuccess || clusters <= 0 ||
          clusters * size > sms) {
        cudaGetLastError();
        continue;
      }
      cfg.gridDim = dim3(unsigned(clusters * size));
      std::vector<unsigned> sm(std::size_t(clusters * size));
      if (cudaLaunchKernelEx(&cfg, placement_probe, d, 200000ull) != cudaSuccess ||
          cudaMemcpyAsync(sm.data(), d, sizeof(unsigned) * sm.size(), cudaMemcpyDeviceToHost, st) != cudaSuccess ||
          cudaStreamSynchronize(st) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      bool ok = true;
      for (unsigned v : sm) ok = ok && v < unsigned(sms);
      if (!ok) continue;
      for (int c = 0; c < clusters; ++c)
        for (int r = 1; r < size; ++r) {
          int const a = find(int(sm[std::size_t(c * size)])), b = find(int(sm[std::size_t(c * size + r)]));
          if (a != b) parent[std::size_t(b)] = a;
        }
      placed[size] = std::move(sm);
    }
  }
  if (st) cudaStreamDestroy(st);
  if (d) cudaFree(d);
  cudaGetLastError();
  cudaThreadExchangeStreamCaptureMode(&mode);
  cudaGetLastError();
  // GPC ids, numbered in order of first appearance among the SMs.
  std::vector<int> id(std::size_t(sms), -1);
  int ids = 0;
  for (int s = 0; s < sms; ++s)
    if (id[std::size_t(find(s))] < 0) id[std::size_t(find(s))] = ids++;
  if (ids > 255) return out;
  for (int size = 1; size <= Residency::kMaxCluster; ++size) {
    std::vector<unsigned> const& sm = placed[size];
    for (std::size_t c = 0; c + std::size_t(size) <= sm.size(); c += std::size_t(size))
      out.gpc[size - 1].push_back((unsigned char)id[std::size_t(find(int(sm[c])))]);
  }
  return out;
}

// The current device's cluster GPCs, measured on the first call that may (LOOM_SM90_GPC_ORDER=0
// turns the grouped order off: never measured, every launch in the plain order). Not measured
// while `stream` captures, nor without `measure`: such a call returns null until a call measures.
ClusterGpcs const* cluster_gpcs(cudaStream_t stream, bool measure = true) {
  static bool const off = [] {
    char const* env = std::getenv("LOOM_SM90_GPC_ORDER");
    return env && std::string(env) == "0";
  }();
  if (off) return nullptr;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  static std::mutex mu;
  static std::map<int, ClusterGpcs> known;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = known.find(dev); it != known.end()) return &it->second;
  if (!measure) return nullptr;
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone) {
    cudaGetLastError();
    return nullptr;
  }
  return &(known[dev] = measure_cluster_gpcs(device_facts().res));
}

// The GPC of each cluster for a launch of schedule `s` of plan `plan`, where its order groups the
// readers of a panel by GPC (group_by_gpc), or null. That is a one-wave schedule of a clustered or
// swapped plan: the unswapped plans of one CTA a cluster measured mixed (H100, 2026-11-28: 7% and
// 14% slower at 900 x 3072 x 11008 on 128x192 and 250 x 3072 x 5120 on 64x96, no faster elsewhere)
// and keep the plain order; the others gained up to 16% (docs/tuning/sm90.md, twenty-second round).
std::vector<unsigned char> const* gpc_order_of(Plan const& plan, Schedule const& s, cudaStream_t stream, bool measure) {
  if (s.units > s.grid || s.grid < 2 || s.stream || !(s.cluster_size() >= 2 || plan.swap)) return nullptr;
  ClusterGpcs const* g = cluster_gpcs(stream, measure);
  if (g == nullptr || g->gpc[s.cluster_size() - 1].empty()) return nullptr;
  return &g->gpc[s.cluster_size() - 1];
}

// LOOM_SM90_PLAN, parsed once: shape, splits, swap, tail; shape < 0 when unset or malformed.
Plan env_plan() {
  static Plan const forced = [] {
    Plan f;
    char const* env = std::getenv("LOOM_SM90_PLAN");
    if (!env || !parse_plan_spec(env, &f)) f.shape = -1;
    return f;
  }();
  return forced;
}

// The wgmma type of an 8-bit dtype.
WgmmaType wgmma_type(DType t) { return t == DType::e5m2 ? WgmmaType::kE5M2 : WgmmaType::kE4M3; }

// What the model reads of a problem (with its leading dimensions filled in, `args` its unswapped
// arguments) on a device of residency `res`.
PlanInput plan_input(Problem const& p, Args const& args, Residency const& res) {
  PlanInput in;
  in.m = args.ga.shape[0], in.n = args.gb.shape[0], in.k = args.ga.shape[1];
  in.a_k_major = args.ga.stride[1] == 1, in.b_k_major = args.gb.stride[1] == 1;
  in.res = res;
  in.out_bytes = int(size_of(p.out_dtype));
  in.in_bytes = int(size_of(p.dtype));
  in.promote = in.in_bytes == 1 && !p.fast_accum;
  if (args.block_scale) in.block_swap = !args.rows_scale_a;  // swap back to the per-row scales' operand as A
  if (in.in_bytes == 1) in.type_a = wgmma_type(args.type_a), in.type_b = wgmma_type(args.type_b);
  in.beta = p.beta != 0;
  return in;
}

// Whether plan f's instance is built for these operands.
bool takes(Plan const& f, PlanInput const& in) {
  if (in.block_swap && (*in.block_swap != f.swap || !tile_takes_block_scales(kTileShapes[f.shape]))) return false;
  if (in.in_bytes == 1)
    return in.a_k_major && in.b_k_major &&
           built_8bit(f.shape, f.swap ? in.type_b : in.type_a, f.swap ? in.type_a : in.type_b, in.promote);
  return tile_takes(kTileShapes[f.shape], f.swap ? in.b_k_major : in.a_k_major, f.swap ? in.a_k_major : in.b_k_major);
}

// The model's machine on a card.
Machine machine_of(Card const& card) {
  Machine mc;
  mc.card = card;
  return mc;
}

// The plan for a problem: `forced` (a caller's), else LOOM_SM90_PLAN's where the operands take it,
// else the model's.
Plan choose(Problem const& p, Args const& args, DeviceFacts const& dev, Plan const* forced) {
  PlanInput const in = plan_input(p, args, dev.res);
  if (forced) return *forced;
  Plan const f = env_plan();
  if (f.shape >= 0 && takes(f, in)) return f;
  // The model weighs several hundred configurations (tens of µs of host time, which a timed launch
  // would see as idle GPU): the thread's last plans are kept, keyed by everything the model reads, so
  // that a call asks it once per problem. A launch plans up to three times (the library's workspace
  // check for the call's beta, its size for beta 0 and 1 where the tools ask), and a caller may
  // alternate several layers' shapes: 16 entries, replaced in turn.
  struct Entry {
    PlanInput in;
    Card card;
    Plan plan;
  };
  constexpr int kEntries = 16;
  thread_local Entry cache[kEntries];
  thread_local int filled = 0, next = 0;
  for (int i = 0; i < filled; ++i)
    if (cache[i].in == in && cache[i].card == dev.card) return cache[i].plan;
  Entry& e = cache[next];
  e = Entry{in, dev.card, choose_plan(in, machine_of(dev.card))};
  next = (next + 1) % kEntries, filled = std::min(filled + 1, kEntries);
  return e.plan;
}

// What the path and the launch both start from: why TMA cannot read A or B ("" when it can), and
// then the plan, the kernel's arguments in its orientation, and the schedule.
struct Prepared {
  std::string why;
  Plan plan;
  Args args;
  Schedule sched;
};
Prepared prepare(Problem const& p, Operands const& ops, DeviceFacts const& dev, Plan const* forced = nullptr) {
  Prepared r;
  int const es = int(size_of(p.dtype));
  r.why = why_no_tma("A", ops.a, tma_view(operand_shape(p.a, p.lda, p.m, p.k, false), es), es);
  if (r.why.empty()) r.why = why_no_tma("B", ops.b, tma_view(operand_shape(p.b, p.ldb, p.n, p.k, true), es), es);
  if (!r.why.empty()) return r;
  Args const args = make_args(p, ops);
  r.plan = choose(p, args, dev, forced);
  r.args = r.plan.swap ? swapped(args) : args;
  TileShape const t = kTileShapes[r.plan.shape];
  r.sched = make_schedule(t, r.args.ga.shape[0], r.args.gb.shape[0], r.args.ga.shape[1], r.plan.splits, r.plan.tail,
                          dev.res.wave(tile_cluster(t)), r.plan.stream, k_tile_of(es));
  return r;
}

// The plan as its schedule runs it (a split the schedule clamps, or a tail plan whose waves come out
// whole, is described as it runs).
std::string describe_run(Prepared const& r) {
  Plan run = r.plan;
  run.splits = int(r.sched.splits);
  run.stream = r.sched.stream;
  if (run.splits == 1 || run.stream) run.tail = false;
  return describe(run);
}

// One instance, as a call of F(integral constants...).
template <class F>
auto dispatch(int shape, bool ak, bool bk, F&& f) {
#define LOOM_SM90_CASE(S, AK, BK) \
  if (shape == S && ak == AK && bk == BK) return f(std::integral_constant<int, S>{}, std::bool_constant<AK>{}, std::bool_constant<BK>{});
  LOOM_SM90_INSTANCES(LOOM_SM90_CASE)
#undef LOOM_SM90_CASE
  // Not reached: the plan takes only shapes and majornesses that kernels/CMakeLists.txt lists
  // (test Sm90Instances.EveryPlanHasItsInstance).
  return f(std::integral_constant<int, 0>{}, std::bool_constant<true>{}, std::bool_constant<true>{});
}

// One 8-bit instance (shape, A's type, B's, mode), as a call of F(integral constants...).
template <class F>
auto dispatch_fp8(int shape, WgmmaType ta, WgmmaType tb, bool promote, F&& f) {
#define LOOM_SM90_FP8_CASE(S, TA, TB, P)                                                                        \
  if (shape == S && ta == TA && tb == TB && promote == P)                                                       \
    return f(std::integral_constant<int, S>{}, std::integral_constant<WgmmaType, TA>{}, std::integral_constant<WgmmaType, TB>{}, \
             std::bool_constant<P>{});
  LOOM_SM90_FP8_INSTANCES(LOOM_SM90_FP8_CASE)
#undef LOOM_SM90_FP8_CASE
  // Not reached: check() refuses the pairs that are not built, and the plan takes only the
  // instances that are (built_8bit).
  return f(std::integral_constant<int, 0>{}, std::integral_constant<WgmmaType, WgmmaType::kE4M3>{},
           std::integral_constant<WgmmaType, WgmmaType::kE4M3>{}, std::false_type{});
}

std::string tma_why(Prepared const& r) {
  if (loom::is_8bit(r.args.type_a))
    return dispatch_fp8(r.plan.shape, wgmma_type(r.args.type_a), wgmma_type(r.args.type_b), r.args.promote,
                        [&](auto s, auto a, auto b, auto pr) {
                          CUtensorMap ma, mb;
                          return tma_maps_fp8<decltype(s)::value, decltype(a)::value, decltype(b)::value,
                                              decltype(pr)::value>(r.args, &ma, &mb);
                        });
  bool const ak = r.args.ga.stride[1] == 1, bk = r.args.gb.stride[1] == 1;
  return dispatch(r.plan.shape, ak, bk, [&](auto s, auto a, auto b) {
    CUtensorMap ma, mb;
    return tma_maps<decltype(s)::value, decltype(a)::value, decltype(b)::value>(r.args, &ma, &mb);
  });
}

// The split-K workspace, the caller's (Operands::workspace): the partial tiles from its base, then
// the arrival counters from the next multiple of 256 bytes.
std::size_t counters_offset(Schedule const& s) { return (std::size_t(s.partial_bytes()) + 255) / 256 * 256; }
std::size_t workspace_bytes(Schedule const& s) {
  return s.split_ctas() > 0 ? counters_offset(s) + std::size_t(s.counter_bytes()) : 0;
}

// The split-K counters' tag for one launch (kernels/sm90/epilogue.cuh's split_k_fixup): a process-wide
// sequence in 48 bits, never 0, from a random start, so that no word a caller's workspace held (or
// another process's launch left) is taken for one of this launch's arrivals but by a 2^-48 chance.
unsigned long long next_generation() {
  static std::atomic<unsigned long long> next{[] {
    unsigned long long seed = 0;
    try {
      std::random_device rd;
      seed = (static_cast<unsigned long long>(rd()) << 32) ^ rd();
    } catch (...) {
    }
    return seed ^ static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
  }()};
  for (;;)
    if (unsigned long long const g = next.fetch_add(1, std::memory_order_relaxed) & ((1ull << 48) - 1); g != 0) return g;
}

}  // namespace

namespace {
Operands aligned_operands();
// 8-bit inputs with an mn-major A (column-major) or B (row-major): the problem the kernel runs, on
// k-major copies made by transpose8 at the front of the workspace (kernels/sm90/transpose8.cuh says
// why a pass of its own), and the bytes of each copy. Other problems are their own view.
struct KMajorView {
  Problem p;                         // A row-major, B column-major, their copies' leading dimensions
  std::size_t a_bytes = 0, b_bytes = 0;  // each copy's workspace, a multiple of 256 bytes (0: read in place)
  std::size_t bytes() const { return a_bytes + b_bytes; }
};
KMajorView k_major_view(Problem const& p) {  // p: leading dimensions filled in
  KMajorView v{p};
  if (!loom::is_8bit(p.dtype)) return v;
  auto copy_bytes = [](std::int64_t rows, std::int64_t k) { return (std::size_t(rows) * std::size_t(transposed_ld(k)) + 255) / 256 * 256; };
  if (p.a == Order::col) v.p.a = Order::row, v.p.lda = transposed_ld(p.k), v.a_bytes = copy_bytes(p.m, p.k);
  if (p.b == Order::row) v.p.b = Order::col, v.p.ldb = transposed_ld(p.k), v.b_bytes = copy_bytes(p.n, p.k);
  return v;
}
// What the view's transposes say in a path: "" when none.
std::string transposes_of(KMajorView const& v) {
  if (v.bytes() == 0) return {};
  std::string const which = v.a_bytes && v.b_bytes ? "A and B" : v.a_bytes ? "A" : "B";
  return "k-major copy of " + which + " (mn-major) in the workspace, then ";
}
}  // namespace

std::string check(Problem const& p0) {
  if (std::max({p0.m, p0.n, p0.k}) > 0x7fffffff - 256) return "M, N and K must be below 2^31";
  if (!loom::is_8bit(p0.dtype) && !loom::is_8bit(b_type(p0))) {
    if (p0.b_dtype && *p0.b_dtype != p0.dtype) return "A and B must have the same type unless both are 8-bit";
    return {};
  }
  // 8-bit inputs: what TMA and wgmma read, with no sm80 to fall back on.
  Problem const p = with_default_lds(p0);
  DType const ta = p.dtype, tb = b_type(p);
  if (!loom::is_8bit(ta) || !loom::is_8bit(tb)) return std::string("A ") + to_string(ta) + " with B " + to_string(tb) + ": both must be 8-bit or neither";
  if (ta == DType::e5m2 && tb == DType::e5m2) return "e5m2 x e5m2 is not supported (8-bit pairs: e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3)";
  if (p.out_dtype != DType::bf16 && p.out_dtype != DType::f16 && p.out_dtype != DType::f32)
    return std::string("8-bit inputs write D as bf16, f16 or f32, not ") + to_string(p.out_dtype);
  // A k-major operand, read in place by TMA: every row starts 16-byte aligned (TMA's rule). An
  // mn-major one is copied k-major first (transpose8, which takes any leading dimension).
  if (p.a == Order::row && p.m > 1 && p.lda % 16 != 0) return "8-bit A: lda must be a multiple of 16";
  if (p.b == Order::col && p.n > 1 && p.ldb % 16 != 0) return "8-bit B: ldb must be a multiple of 16";
  if (p.scale == ScaleMode::block && p.fast_accum)
    return "block scales need the accurate mode (each 128 of K's partial scaled as it is promoted), not fast accumulation";
  return {};
}

std::string path(Problem const& p0, Operands const& ops0) {
  KMajorView const v = k_major_view(with_default_lds(p0));
  Problem const& p = v.p;
  Operands ops = ops0;
  if (v.a_bytes) ops.a = aligned_operands().a;  // the copies' (the workspace's, 16-byte aligned)
  if (v.b_bytes) ops.b = aligned_operands().b;
  Prepared const r = prepare(p, ops, device_facts());
  std::string why = r.why;
  if (why.empty()) why = tma_why(r);
  if (!why.empty()) return (loom::is_8bit(p.dtype) ? "none (" : "sm80 (") + why + ")";
  CUtensorMap d;
  std::string const store = make_tma_store_map(r.args, kTileShapes[r.plan.shape], &d);
  // The grouped order as the launch will take it, where the placement is measured already (path()
  // itself launches nothing).
  std::string order;
  if (std::vector<unsigned char> const* slots = gpc_order_of(r.plan, r.sched, nullptr, false)) {
    TileScheduler t(r.sched);
    if (group_by_gpc(t, slots->data(), int(slots->size()))) order = ", readers grouped by GPC";
  }
  return transposes_of(v) + "tma " + describe_run(r) + (store.empty() ? ", tma store" : ", direct store (" + store + ")") + order;
}

namespace {
// The device facts of `target`: the current device's, its nonzero fields replaced (a different SM
// count: every SM takes a cluster's CTA, Residency::of_sms, but where the target names the clusters
// it holds).
DeviceFacts facts_of(PlanTarget const& target) {
  DeviceFacts dev = device_facts();
  if (target.sms > 0) dev.res = Residency::of_sms(target.sms);
  static_assert(sizeof(target.clusters) / sizeof(target.clusters[0]) == Residency::kMaxCluster);
  for (int i = 0; i < Residency::kMaxCluster; ++i)
    if (target.clusters[i] > 0) dev.res.clusters[i] = target.clusters[i];
  if (target.sm_khz > 0) dev.card.sm_clock_khz = target.sm_khz;
  if (target.mem_khz > 0) dev.card.mem_clock_khz = target.mem_khz;
  if (target.bus_bits > 0) dev.card.bus_bits = target.bus_bits;
  return dev;
}

// Operands at an aligned address, never dereferenced: what plan() and ranked_plans() plan for.
Operands aligned_operands() {
  Operands ops{};
  ops.a = ops.b = ops.c = reinterpret_cast<void const*>(std::uintptr_t(256));
  ops.d = reinterpret_cast<void*>(std::uintptr_t(256));
  return ops;
}
}  // namespace

// The path from the case alone: operands at an aligned (never dereferenced) address, and no TMA map
// (the driver's check of a map repeats make_tma_desc's, which prepare()'s rules mirror).
std::string plan(Problem const& p0, PlanTarget const& target) {
  KMajorView const v = k_major_view(with_default_lds(p0));
  Prepared const r = prepare(v.p, aligned_operands(), facts_of(target));
  return r.why.empty() ? transposes_of(v) + "tma " + describe_run(r) : (loom::is_8bit(v.p.dtype) ? "none (" : "sm80 (") + r.why + ")";
}

// Follows path() without building its string or the TMA maps twice: the plan and the schedule once,
// the maps once (in launch_instance, which says when TMA cannot take an operand; then sm80 runs, as
// path() says).
namespace {
cudaError_t launch(Problem const& p, Operands const& ops, cudaStream_t stream, Plan const* forced) {
  Prepared r = prepare(p, ops, device_facts(), forced);
  bool const eight = loom::is_8bit(p.dtype);
  if (!r.why.empty()) return eight ? cudaErrorInvalidValue : sm80::gemm(p, ops, stream);  // 8-bit: loom::gemm checks alignment first
  if (std::size_t const need = workspace_bytes(r.sched); need > 0) {
    if (ops.workspace == nullptr || ops.workspace_bytes < need || reinterpret_cast<std::uintptr_t>(ops.workspace) % 16 != 0)
      return cudaErrorInvalidValue;  // loom::gemm says which (gemm_workspace_size)
    r.args.partials = static_cast<float*>(ops.workspace);
    r.args.arrivals = reinterpret_cast<unsigned long long*>(static_cast<unsigned char*>(ops.workspace) + counters_offset(r.sched));
    r.args.generation = next_generation();
  }
  if (std::vector<unsigned char> const* slots = gpc_order_of(r.plan, r.sched, stream, true)) {
    r.args.slot_gpc = slots->data();
    r.args.slot_count = int(slots->size());
  }
  Refusal refusal;
  if (eight)
    return dispatch_fp8(r.plan.shape, wgmma_type(r.args.type_a), wgmma_type(r.args.type_b), r.args.promote,
                        [&](auto s, auto a, auto b, auto pr) {
                          return launch_instance_fp8<decltype(s)::value, decltype(a)::value, decltype(b)::value,
                                                     decltype(pr)::value>(r.args, r.sched, stream, &refusal);
                        });
  bool const bf16 = p.dtype == DType::bf16;
  bool const ak = r.args.ga.stride[1] == 1, bk = r.args.gb.stride[1] == 1;
  cudaError_t const e = dispatch(r.plan.shape, ak, bk, [&](auto s, auto a, auto b) {
    return launch_instance<decltype(s)::value, decltype(a)::value, decltype(b)::value>(r.args, r.sched, bf16, stream,
                                                                                       &refusal);
  });
  return e != cudaSuccess && refusal.tma ? sm80::gemm(p, ops, stream) : e;
}
}  // namespace

namespace {
// An 8-bit call with mn-major operands: their k-major copies at the front of the workspace (each
// a transpose8 launch in `stream`), then the launch of the view's problem on them, with the rest of
// the workspace; any other call goes straight to launch.
cudaError_t launch_k_major(Problem const& p0, Operands const& ops0, cudaStream_t stream, Plan const* forced) {
  Problem const p = with_default_lds(p0);
  KMajorView const v = k_major_view(p);
  if (v.bytes() == 0) return launch(p, ops0, stream, forced);
  if (ops0.workspace == nullptr || ops0.workspace_bytes < v.bytes() || reinterpret_cast<std::uintptr_t>(ops0.workspace) % 16 != 0)
    return cudaErrorInvalidValue;  // loom::gemm says which (gemm_workspace_size)
  Operands ops = ops0;
  auto* w = static_cast<unsigned char*>(ops0.workspace);
  if (v.a_bytes) {  // A (m,k) m-contiguous is S = (K, M) row-major; its copy is (M, K) k-contiguous
    if (cudaError_t e = transpose8(ops0.a, w, p.k, p.m, p.lda, v.p.lda, stream); e != cudaSuccess) return e;
    ops.a = w, w += v.a_bytes;
  }
  if (v.b_bytes) {  // B (k,n) n-contiguous is S = (K, N) row-major; its copy is (N, K) k-contiguous
    if (cudaError_t e = transpose8(ops0.b, w, p.k, p.n, p.ldb, v.p.ldb, stream); e != cudaSuccess) return e;
    ops.b = w, w += v.b_bytes;
  }
  ops.workspace = w, ops.workspace_bytes = ops0.workspace_bytes - v.bytes();
  if (ops.workspace_bytes == 0) ops.workspace = nullptr;
  return launch(v.p, ops, stream, forced);
}
}  // namespace

cudaError_t gemm(Problem const& p, Operands const& ops, cudaStream_t stream) { return launch_k_major(p, ops, stream, nullptr); }

std::size_t workspace_size(Problem const& p0, std::string const& spec) {
  KMajorView const v = k_major_view(with_default_lds(p0));
  Plan f;
  bool const forced = !spec.empty() && parse_plan_spec(spec, &f);
  Prepared const r = prepare(v.p, aligned_operands(), device_facts(), forced ? &f : nullptr);
  return r.why.empty() ? v.bytes() + workspace_bytes(r.sched) : 0;
}

cudaError_t gemm_plan(Problem const& p0, Operands const& ops, cudaStream_t stream, std::string const& spec) {
  KMajorView const v = k_major_view(with_default_lds(p0));
  Plan f;
  if (!parse_plan_spec(spec, &f)) return cudaErrorInvalidValue;
  if (!takes(f, plan_input(v.p, make_args(v.p, aligned_operands()), device_facts().res))) return cudaErrorInvalidValue;
  return launch_k_major(p0, ops, stream, &f);
}

std::vector<PlanChoice> ranked_plans(Problem const& p0, int count, PlanTarget const& target) {
  Problem const p = k_major_view(with_default_lds(p0)).p;
  Operands const ops = aligned_operands();
  std::vector<PlanChoice> out;
  DeviceFacts const dev = facts_of(target);
  char inputs[200];
  std::snprintf(inputs, sizeof inputs, "sms=%d; clusters=%d/%d/%d/%d/%d/%d/%d/%d; sm_khz=%.0f; mem_khz=%.0f; bus_bits=%d",
                dev.res.sms, dev.res.clusters[0], dev.res.clusters[1], dev.res.clusters[2], dev.res.clusters[3],
                dev.res.clusters[4], dev.res.clusters[5], dev.res.clusters[6], dev.res.clusters[7],
                dev.card.sm_clock_khz, dev.card.mem_clock_khz, dev.card.bus_bits);
  PlanInput in = plan_input(p, make_args(p, ops), dev.res);
  in.forced_only = target.forced_only;
  for (Plan const& q : sm90::ranked_plans(in, count, machine_of(dev.card)))
    out.push_back(PlanChoice{plan_spec(q), describe(q), q.us, inputs});
  return out;
}

}  // namespace loom::sm90

namespace loom {

KernelInfo sm90_kernel_info() {
  KernelInfo k{"sm90", OpKind::gemm, {DType::f16, DType::bf16, DType::e4m3, DType::e5m2}, 90,
               "Hopper wgmma, TMA (multicast over 2-CTA clusters), warp-specialized persistent; tile shape "
               "(64 or 128 rows, 16 to 256 columns), split-K and swap-AB picked per problem by a model; fp32 "
               "accumulation; sm80 where TMA cannot read 16-bit A or B; 8-bit A and B with per-tensor or block scales, an "
               "mn-major one through a k-major copy in the workspace",
               sm90::check, launched<sm90::gemm>};
  k.path = sm90::path;
  k.plan = [](Problem const& p, int, PlanTarget const& target) { return sm90::plan(p, target); };
  k.ranked_plans = [](Problem const& p, int count, PlanTarget const& target) {
    return sm90::ranked_plans(p, count, target);
  };
  k.launch_plan = sm90::gemm_plan;
  k.workspace_size = [](Problem const& p, std::string const& spec) { return sm90::workspace_size(p, spec); };
  k.max_cc = 90;  // sm_90a code (wgmma, setmaxnreg) runs on compute capability 9.0 alone
  return k;
}

}  // namespace loom
