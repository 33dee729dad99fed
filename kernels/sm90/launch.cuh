// sm90's host launcher for one instance (a tile shape and a pair of operand majornesses): the TMA
// maps of A, B and D, the parameter block, and the launch of the schedule it is given. It follows
// the schedule and the plan exactly: anything it cannot follow is an error with a reason, never a
// different launch. The instances are listed in kernels/CMakeLists.txt (loom_instances(sm90 ...)),
// one generated sm_90a-only translation unit each; kernels/sm90/sm90.cu picks one.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <string>

#include "kernels/operand_layout.hpp"
#include "kernels/per_device.hpp"
#include "kernels/problem.hpp"
#include "kernels/sm90/config.cuh"
#include "kernels/sm90/epilogue.cuh"
#include "kernels/sm90/kernel.cuh"
#include "kernels/sm90/params.cuh"
#include "kernels/sm90/schedule.hpp"
#include "kernels/sm90/shared_storage.cuh"
#include "kernels/sm90/instances_8bit.hpp"
#include "kernels/sm90_instances.inc"
#include "kernels/tma_copy.hpp"
#include "layout/tma.hpp"

namespace loom::sm90 {

// What the launcher knows of a problem, in the orientation the kernel computes it (after
// row_major_gemm's transposition for a column-major D, and the plan's swap).
struct Args {
  void const* a;  // (m, k)
  void const* b;  // (n, k)
  void const* c;
  void* d;
  GmemShape ga;  // (m, k) -> offset in A; one stride is 1 (the contiguous mode)
  GmemShape gb;  // (n, k) -> offset in B
  GmemShape gd;  // (m, n) -> offset in C and D; n is contiguous, or m when d_col
  float alpha, beta;
  DType out;
  bool pair_d;
  bool d_col;          // D's m is contiguous (a swapped row-major D): column boxes or direct stores
  float* partials;     // split-K: Schedule::partial_bytes
  unsigned long long* arrivals;   // split-K: Schedule::counter_bytes
  unsigned long long generation;  // split-K: the launch's tag in them (next_generation)
  float const* scale_a = nullptr;  // 8-bit inputs: Params::scale_a, scale_b
  float const* scale_b = nullptr;
  DType type_a = DType::bf16, type_b = DType::bf16;  // A's and B's types (the 8-bit path's pair)
  bool promote = false;  // 8-bit inputs: the accurate mode (launch_instance_fp8's kPromote)
  // 8-bit block scales (the kBlock kernel, Params::a_rows and b_ld): scale_a and scale_b are the
  // arrays of loom/gemm.hpp's GemmScales; rows_scale_a: scale_a is the per-row one (the problem's A
  // as the kernel's A), which the kernel needs (a swapped or traded orientation flips it).
  bool block_scale = false;
  bool rows_scale_a = true;
  // Readers grouped by GPC (group_by_gpc): the GPC of each cluster of a launch of this schedule's
  // cluster size, as measured on the device (kernels/sm90/sm90.cu: cluster_gpcs); null: the plain order.
  unsigned char const* slot_gpc = nullptr;
  int slot_count = 0;
};

// Why an instance did not launch. `tma`: TMA cannot read A or B (the caller runs sm80 instead, as
// its path says); otherwise the schedule or the workspace is not one this instance can follow (a
// bug in the caller: cudaErrorInvalidConfiguration).
struct Refusal {
  bool tma = false;
  std::string why;
};

// Launches instance (kShape, kAK, kBK) on schedule `sched` (make_schedule of kShape for this
// problem). Returns the launch's error; cudaErrorInvalidValue or cudaErrorInvalidConfiguration
// with *refusal filled when it refuses.
template <int kShape, bool kAK, bool kBK>
cudaError_t launch_instance(Args const& args, Schedule const& sched, bool bf16, cudaStream_t stream, Refusal* refusal);
// Both operands' TMA maps for tile shape kShape, or why TMA cannot read them.
template <int kShape, bool kAK, bool kBK>
std::string tma_maps(Args const& args, CUtensorMap* a, CUtensorMap* b);

#define LOOM_SM90_EXTERN(S, AK, BK)                                                                                \
  extern template cudaError_t launch_instance<S, AK, BK>(Args const&, Schedule const&, bool, cudaStream_t,           \
                                                        Refusal*);                                                \
  extern template std::string tma_maps<S, AK, BK>(Args const&, CUtensorMap*, CUtensorMap*);
LOOM_SM90_INSTANCES(LOOM_SM90_EXTERN)
#undef LOOM_SM90_EXTERN

// The 8-bit instances (kernels/CMakeLists.txt's loom_instances(sm90_fp8 ...), kInstances8Bit): tile
// shape kShape with A of wgmma type kTA and B of kTB, both k-major, in the fast (kPromote false) or
// the accurate mode.
template <int kShape, WgmmaType kTA, WgmmaType kTB, bool kPromote>
cudaError_t launch_instance_fp8(Args const& args, Schedule const& sched, cudaStream_t stream, Refusal* refusal);
template <int kShape, WgmmaType kTA, WgmmaType kTB, bool kPromote>
std::string tma_maps_fp8(Args const& args, CUtensorMap* a, CUtensorMap* b);

#define LOOM_SM90_FP8_EXTERN(S, TA, TB, P)                                                                          \
  extern template cudaError_t launch_instance_fp8<S, TA, TB, P>(Args const&, Schedule const&, cudaStream_t, Refusal*); \
  extern template std::string tma_maps_fp8<S, TA, TB, P>(Args const&, CUtensorMap*, CUtensorMap*);
LOOM_SM90_FP8_INSTANCES(LOOM_SM90_FP8_EXTERN)
#undef LOOM_SM90_FP8_EXTERN

// The TMA map of one operand, from its global shape and the box's smem layout, in elements of
// the operand config's width (2 bytes, or 1 for e4m3/e5m2: tma_copy maps them as UINT8).
template <class Op>
std::string operand_tma(void const* ptr, GmemShape const& g, CUtensorMap* map) {
#if defined(__CUDA_ARCH__)  // host code; the device pass only parses it
  (void)ptr, (void)g, (void)map;
  return {};
#else
  TmaDesc d;
  try {
    d = make_tma_desc(make_shape(g.shape[0], g.shape[1]), make_shape(g.stride[0], g.stride[1]), Op::kBits / 8, Op::kBox,
                      make_shape(Op::kBoxMN, Op::kTK));
  } catch (LayoutError const& e) {
    return e.what();
  }
  return make_tma_copy(d, ptr, true, map);
#endif
}

// D's TMA map for the epilogue's boxes, or why the epilogue cannot store D with TMA (then it
// stores straight from the registers): tile shape t has no buffers for it, beta != 0 (C is read by
// the direct path), D is swapped (its m is its contiguous mode) and f32 (16-bit D takes column
// boxes: EpilogueColConfig), D is not swapped and t's rows are not whole store sub-tiles, or D's
// base or row stride is not a multiple of 16 bytes. LOOM_SM90_COL_TMA_STORE=0 keeps a swapped D on
// the direct stores, =rows on the tiles without row sub-tiles only (experiment switches, read once).
inline std::string make_tma_store_map(Args const& args, TileShape t, CUtensorMap* map) {
#if defined(__CUDA_ARCH__)
  (void)args, (void)t, (void)map;
  return {};
#else
  if (!tile_has_col_tma_store(t)) return "the tile has no store buffers";
  if (args.beta != 0.f) return "beta != 0";
  int const es = int(size_of(args.out));
  if (args.d_col) {
    static std::string const env = [] {
      char const* e = std::getenv("LOOM_SM90_COL_TMA_STORE");
      return std::string(e ? e : "");
    }();
    if (env == "0") return "D is transposed (LOOM_SM90_COL_TMA_STORE=0)";
    if (env == "rows" && !tile_has_tma_store(t)) return "D is transposed (LOOM_SM90_COL_TMA_STORE=rows)";
    if (es != 2) return "D is transposed and f32";
    if (args.gd.stride[0] != 1) return "D's m is not contiguous";
    if (reinterpret_cast<std::uintptr_t>(args.d) % 16 != 0) return "D's base is not 16-byte aligned";
    if (args.gd.shape[1] > 1 && (args.gd.stride[1] * es) % 16 != 0) return "ldc is not a multiple of 16 bytes";
    TmaDesc d;
    int const cols = tile_col_store_cols(t);
    try {  // (m, n) with m contiguous: dimension 0 is m, 64 a box (EpilogueColConfig<T, bn, cols>::kBox)
      d = make_tma_desc(make_shape(args.gd.shape[0], args.gd.shape[1]),
                        make_shape(1, args.gd.shape[1] > 1 ? args.gd.stride[1] : 64), es, epilogue_col_box(cols, es),
                        make_shape(64, cols));
    } catch (LayoutError const& e) {
      return e.what();
    }
    return make_tma_copy(d, args.d, true, map);
  }
  if (!tile_has_tma_store(t)) return "the tile's rows are not whole store boxes";
  int const bn = t.bn;
  SwizzleLayout const box = epilogue_box(bn, es);  // EpilogueConfig<T, bn>::kBox
  int const cols = epilogue_row_bytes(bn, es) / es;
  if (reinterpret_cast<std::uintptr_t>(args.d) % 16 != 0) return "D's base is not 16-byte aligned";
  if (args.gd.shape[0] > 1 && (args.gd.stride[0] * es) % 16 != 0) return "ldc is not a multiple of 16 bytes";
  TmaDesc d;
  try {
    d = make_tma_desc(make_shape(args.gd.shape[0], args.gd.shape[1]), make_shape(args.gd.shape[0] > 1 ? args.gd.stride[0] : cols, 1),
                      es, box, make_shape(64, cols));
  } catch (LayoutError const& e) {
    return e.what();
  }
  return make_tma_copy(d, args.d, true, map);
#endif
}

// A's and B's TMA maps for configuration Cfg, or why TMA cannot read one of them.
template <class Cfg>
std::string operand_maps(Args const& args, CUtensorMap* a, CUtensorMap* b) {
  std::string err = operand_tma<typename Cfg::A>(args.a, args.ga, a);
  return err.empty() ? operand_tma<typename Cfg::B>(args.b, args.gb, b) : err;
}

template <int kShape, bool kAK, bool kBK>
std::string tma_maps(Args const& args, CUtensorMap* a, CUtensorMap* b) {
  return operand_maps<Config<TileConfig<kShape>, kAK, kBK>>(args, a, b);
}

template <class Cfg, WgmmaType kType, WgmmaType kTypeB = kType, bool kPromote = false, bool kBlock = false>
cudaError_t launch_kernel(Params const& p, cudaStream_t stream) {
  auto* kernel = gemm_sm90_kernel<Cfg, kType, kTypeB, kPromote, kBlock>;
  constexpr int kSmemBytes = SharedStorage<Cfg>::kSmemBytes;
  static std::atomic<std::uint64_t> attr_set{0};  // per device: kernels/per_device.hpp
  if (cudaError_t const e = once_per_device(attr_set, [&] {
        return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
      });
      e != cudaSuccess)
    return e;
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = Cfg::kCluster;  // 1-D: rank r at (r % kClusterM, r / kClusterM)
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  cfg.attrs = attrs;
  cfg.numAttrs = 1;
  cfg.gridDim = dim3(unsigned(Cfg::kCluster * p.sched.grid));  // the schedule's clusters
  cfg.blockDim = dim3(Cfg::kThreads);
  cfg.dynamicSmemBytes = kSmemBytes;
  cfg.stream = stream;
  return cudaLaunchKernelEx(&cfg, kernel, p);
}

// Instance Cfg's parameter block for `args` under `sched`, or why it cannot launch (refusal).
template <class Cfg>
cudaError_t fill_params(Args const& args, Schedule const& sched, Refusal* refusal, Params* p) {
  auto fail = [&](std::string const& reason) {
    if (refusal) refusal->tma = false, refusal->why = reason;
    return cudaErrorInvalidConfiguration;
  };
  if (sched.cluster_m != Cfg::kClusterM || sched.cluster_n != Cfg::kClusterN || sched.bn != Cfg::kBN || sched.consumers != Cfg::kConsumers)
    return fail("sm90: the schedule is not tile shape " + std::string(Cfg::T::kTileShape.name) + "'s");
  if (!sched.fits_kernel()) return fail("sm90: too many tiles for the kernel's 32-bit tile scheduler");
  if (sched.splits > 1 && (args.partials == nullptr || args.arrivals == nullptr))
    return fail("sm90: a split schedule without its workspace");
  // A counter word counts a tile's arrivals in its low 16 bits (arrive_generation_acq_rel_gpu).
  if (sched.splits > 0xffff) return fail("sm90: more than 65535 splits of one tile");
  if (std::string const err = operand_maps<Cfg>(args, &p->tma_a, &p->tma_b); !err.empty()) {
    if (refusal) refusal->tma = true, refusal->why = err;
    return cudaErrorInvalidValue;
  }
  p->tma_store = Cfg::T::kTmaStore && make_tma_store_map(args, Cfg::T::kTileShape, &p->tma_d).empty();
  p->shape_a = Coord<2>{{args.ga.shape[0], args.ga.shape[1]}};
  p->shape_b = Coord<2>{{args.gb.shape[0], args.gb.shape[1]}};
  p->ep = EpilogueArgs{args.c, args.d, Coord<2>{{args.gd.shape[0], args.gd.shape[1]}},
                       args.d_col ? args.gd.stride[1] : args.gd.stride[0], args.alpha, args.beta, args.pair_d, args.d_col};
  p->sched = TileScheduler(sched);
  // LOOM_SM90_SPLIT_FIXUP=counter: every split plan sums on the arrival counter, as before the fixed
  // finisher (the A/B's baseline; kernels/sm90/epilogue.cuh's split_k_fixup).
  static bool const counter_only = [] {
    char const* e = std::getenv("LOOM_SM90_SPLIT_FIXUP");
    return e != nullptr && std::string(e) == "counter";
  }();
  if (counter_only) p->sched.finisher = 0;
  group_by_gpc(p->sched, args.slot_gpc, args.slot_count);
  p->out = args.out;
  p->partials = args.partials;
  p->arrivals = args.arrivals;
  p->generation = args.generation;
  p->scale_a = args.scale_a;
  p->scale_b = args.scale_b;
  if (args.block_scale) {
    if (!args.rows_scale_a) return fail("sm90: block scales with B's per-row scales as the kernel's A (a plan of the wrong orientation)");
    p->a_rows = int(args.ga.shape[0]);
    p->b_ld = int(block_scale_ld(args.ga.shape[1]));
  }
  return cudaSuccess;
}

template <int kShape, bool kAK, bool kBK>
cudaError_t launch_instance(Args const& args, Schedule const& sched, bool bf16, cudaStream_t stream, Refusal* refusal) {
  using Cfg = Config<TileConfig<kShape>, kAK, kBK>;
  Params p{};
  if (cudaError_t const e = fill_params<Cfg>(args, sched, refusal, &p); e != cudaSuccess) return e;
  return bf16 ? launch_kernel<Cfg, WgmmaType::kBF16>(p, stream)
              : launch_kernel<Cfg, WgmmaType::kF16>(p, stream);
}

// 8-bit inputs: tile shape kShape with e4m3/e5m2 A (kTA) and B (kTB), both k-major, scaled by
// args.scale_a and args.scale_b (null: 1); the schedule's k tiles are k_tile_of(1) = 128 elements
// of K; kPromote: the accurate mode (args.promote must say the same).
template <int kShape, WgmmaType kTA, WgmmaType kTB, bool kPromote>
cudaError_t launch_instance_fp8(Args const& args, Schedule const& sched, cudaStream_t stream, Refusal* refusal) {
  using Cfg = Config<TileConfig<kShape>, true, true, 1>;
  static_assert(tile_takes(Cfg::T::kTileShape, true, true));
  if (args.promote != kPromote) {
    if (refusal) refusal->tma = false, refusal->why = "sm90: the 8-bit instance's accumulation mode is not the call's";
    return cudaErrorInvalidConfiguration;
  }
  if (args.block_scale && !(kPromote && tile_takes_block_scales(Cfg::T::kTileShape))) {
    if (refusal)
      refusal->tma = false, refusal->why = kPromote ? std::string("sm90: tile ") + Cfg::T::kTileShape.name + " takes no block scales"
                                                    : std::string("sm90: block scales need the accurate mode, not the fast one");
    return cudaErrorInvalidConfiguration;
  }
  Params p{};
  if (cudaError_t const e = fill_params<Cfg>(args, sched, refusal, &p); e != cudaSuccess) return e;
  if constexpr (kPromote && tile_takes_block_scales(Cfg::T::kTileShape))
    if (args.block_scale) return launch_kernel<Cfg, kTA, kTB, true, true>(p, stream);
  return launch_kernel<Cfg, kTA, kTB, kPromote>(p, stream);
}

template <int kShape, WgmmaType kTA, WgmmaType kTB, bool kPromote>
std::string tma_maps_fp8(Args const& args, CUtensorMap* a, CUtensorMap* b) {
  return operand_maps<Config<TileConfig<kShape>, true, true, 1>>(args, a, b);
}

}  // namespace loom::sm90

// One 8-bit instance's explicit instantiation.
#define LOOM_SM90_FP8_INSTANTIATE(S, TA, TB, P)                                                                  \
  namespace loom::sm90 {                                                                                            \
  template cudaError_t launch_instance_fp8<S, TA, TB, P>(Args const&, Schedule const&, cudaStream_t, Refusal*);     \
  template std::string tma_maps_fp8<S, TA, TB, P>(Args const&, CUtensorMap*, CUtensorMap*);                        \
  }

// One instance's explicit instantiation (the generated translation units expand it).
#define LOOM_SM90_INSTANTIATE(S, AK, BK)                                                                           \
  namespace loom::sm90 {                                                                                           \
  template cudaError_t launch_instance<S, AK, BK>(Args const&, Schedule const&, bool, cudaStream_t, Refusal*);     \
  template std::string tma_maps<S, AK, BK>(Args const&, CUtensorMap*, CUtensorMap*);                              \
  }
