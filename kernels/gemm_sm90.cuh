// sm90: D = alpha*A*B + beta*C on Hopper tensor cores (sm_90a only): wgmma with both operands in
// shared memory, TMA loads (multicast across a cluster of two CTAs for the wide tiles), a
// warp-specialized and persistent pipeline, split-K with a deterministic fixup. A and B are fp16 or bf16, accumulation is fp32, C/D are fp16, bf16 or fp32
// (Problem::out_dtype). Every operand is row- or column-major with its own leading dimension; C may
// alias D. Any M, N, K >= 1 whose A and B TMA can read (16-byte aligned bases and leading
// dimensions); gemm_sm90.cu sends the rest to sm80 and says so (KernelInfo::path).
//
// Files: this header holds the kernel and its launcher, launch_tiling<kTile, kAK, kBK>, for a tile
// shape of kernels/gemm_sm90_plan.hpp's menu and a pair of operand majornesses (k-major or mn-major
// A, then B); kernels/CMakeLists.txt generates one sm_90a-only translation unit per entry of
// LOOM_SM90_INSTANCES. gemm_sm90.cu registers the kernel, asks the plan (tile shape, split, swap)
// and picks the path and the instantiation.
//
// Problem: as in sm80, a column-major D is computed as D^T = B^T A^T (row_major_gemm), so the kernel
// sees A as (m,k), B as (n,k) and a row-major D. A swapped plan (a small M) trades A and B once
// more, and then D is column-major as the kernel sees it (Args::d_col: m contiguous), which only the
// direct epilogue writes. The operands are never copied or transposed: wgmma reads an mn-major
// tile through its descriptor's transpose bit.
//
// Tiling (Tiling<kTile>): a CTA owns a BM x BN tile of D (the menu of gemm_sm90_plan.hpp: BM 128
// or 64, BN 256 down to 16) and walks K in steps of 64. Its BM/64 consumer warpgroups (two or one)
// each own 64 x BN (one wgmma m64nBNk16 per k-step of 16, BN/2 fp32 accumulators per thread); a
// producer warpgroup issues the TMA loads. For the wide tiles two CTAs along M form a cluster and
// share B's tile: each loads half of it and multicasts it to both, so B crosses L2 once per
// cluster. The narrow tiles (a small N) run one CTA per cluster and fit more stages (up to 16) in
// shared memory.
//
// Split-K (Params::splits > 1): the work units are (cluster tile, split); split s computes k tiles
// [s K/S, (s+1) K/S) of its tile, writes its fp32 partial tile to a global workspace and arrives on
// the tile's counter; the split that arrives last sums every partial in split order (its own read
// back too, so the order never depends on which split is last) and runs the epilogue
// (split_k_fixup). No CTA waits on another, so any grid size is safe, and D's bits are the same run
// after run. The tail plan (Args::tail) splits only the cluster tiles of the last, partial wave
// (Params::split_from onward); the whole waves before it run unsplit, so a problem of 3.4 waves
// takes about 3.4 waves' time instead of 4.
//
// Shared memory (Config, all from the layout core): each operand's stage is the canonical 128-byte
// swizzled GMMA atom tiled over (MN, 64) with tile_to_shape (k-major: 64-element rows of K;
// mn-major: 64-element columns of MN, K first, so that each 64 x 64 block is contiguous). One TMA
// box fills one such block, or the whole k-major tile: make_tma_desc reads its dims, box and
// swizzle off the global operand and the box's smem layout. The wgmma descriptors come from
// make_gmma_desc over the stage layout, and move between warpgroups, k-steps and stages by
// gmma_desc_offset, checked at compile time to be linear in the stage and warpgroup.
//
// Data path, per CTA tile (m, n) and k tile kt:
//
//   cA = identity (M,K) -> local_tile<(BOX,64)>(cA, m*BOXES + b, kt): box b's first coordinate, its TMA coords
//   sA (BM,64,PIPE), 128B swizzle: box b lands at sA(b*BOX, 0, stage)
//   wgmma desc of warpgroup w, k-step s: make_gmma_desc(sA) advanced by gmma_desc_offset(sA, (64w, 16s, stage))
//   acc = partition_fragment_C(TiledMMA of (BM/64)x1 warpgroups of m64nBNk16, (BM,BN)): (2,2,BN/8) per thread
//   sD (64,(COLS,SUB)) -> partition_C of one warpgroup's atom: where each accumulator goes in a buffer
//   cD = identity (M,N) -> local_tile<(64,COLS)>(cD, (BM/64)m+w, n*SUB + j): sub-tile j's TMA store coords
//   (direct path: mD (M,N) -> local_tile<(BM,BN)>(mD, m, n) -> partition_C, kernels/epilogue.cuh)
//   split-K partial of warpgroup w: float4 i of thread t at slot + 4 (128 i + t), the fragment's own order
//
// Pipeline: kStages stages, each with a full and an empty mbarrier, as a ring whose phase bits
// carry across tiles. The producer waits for a stage to be empty in every CTA of the cluster (one
// or two), announces the stage's bytes on its full barrier, and issues its A boxes (local) and its
// share of B's boxes (multicast to every CTA of the cluster; each completes bytes on the full
// barrier of every CTA it writes). A consumer warpgroup waits for full, issues its four wgmmas,
// commits them, and waits for the previous k tile's group only (one group stays in flight across
// k tiles), then releases that previous stage by arriving on the empty barrier of every CTA of the
// cluster. setmaxnreg gives the consumers 232 registers and the producer 40.
//
// Persistent: the grid is as many clusters as fit on the GPU at once; each walks work units
// (cluster tiles of kClusterM M tiles and one N tile, times the splits) in steps of the cluster
// count. Tile order (TileScheduler): groups of kGroupM cluster rows, column by column within a
// group, so that the clusters in flight share A and B panels in L2.
//
// With two consumer warpgroups both read the same stages, but warpgroup 1 runs one k tile behind
// warpgroup 0 (kLag; a `start` barrier sets the lag once, the stage ring keeps it), so that at the
// end of a tile one warpgroup drains and stores while the other still issues wgmmas.
//
// Epilogue (store_d_tma), when the tile has it (BN a multiple of 64), beta == 0, D is not swapped
// and D's base and row stride are multiples of 16 bytes: each warpgroup writes its 64 x BN accumulators, times alpha and converted to D's type, into
// shared memory one 64-row x 128-byte sub-tile at a time (under the 128-byte swizzle, placed by
// partition_C of a swizzled smem view: conflict-free), fences the async proxy, and one thread TMA
// stores the sub-tile, which clips at D's edges. Two buffers per warpgroup: a buffer is rewritten
// once the store that read it two sub-tiles ago has finished reading (cp.async.bulk.wait_group.read),
// and the next tile's wgmmas start while the last stores drain. Otherwise kernels/epilogue.cuh's
// store_d writes straight from the registers, reading C (column-major D: one element a store).
// gemm_sm90.cu's path says which epilogue runs.
//
// What remains written by hand, and why:
// - The PTX (kernels/ptx_sm90.cuh): the core's atoms are layouts; no device code dispatches on them.
// - The schedule: the ring's stage index and phase, which warpgroup does what, the order of waits,
//   wgmmas, commits and releases. These are control flow, not indices.
// - The TMA coordinate order: dimension 0 is the contiguous mode (make_tma_desc's rule), so a
//   k-major box takes (k, mn) and an mn-major one (mn, k) from the identity tensor's coordinate.
// - The tile order's ragged last group: as in sm80, four lines of arithmetic rather than a layout
//   over a padded tile grid.
// - The shared-memory carve-up (stages, epilogue buffers, barriers) as byte offsets, and the
//   epilogue's buffer index and store count: control flow and allocation, not tensor indices.
// - The split-K workspace slots (tile, CTA, warpgroup, split) and the k range of a split: an
//   allocation and a schedule. The partial's layout is the fragment's register order itself.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "kernels/epilogue.cuh"
#include "kernels/gemm_sm90_plan.hpp"
#include "kernels/operand_layout.hpp"
#include "kernels/ptx_sm90.cuh"
#include "kernels/registry.hpp"
#include "kernels/tma_copy.hpp"
#include "layout/gmma.hpp"
#include "layout/tensor.hpp"
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
  bool d_col;    // D's m is contiguous (a swapped row-major D): direct stores only
  int sm_count;  // multiprocessors of the device (the persistent grid's bound)
  int splits;    // K split this many ways (1: whole tiles)
  bool tail;     // split only the cluster tiles of the last, partial wave (the others run whole)
  float* partials;     // split-K: fp32 partial tiles (workspace_bytes of the plan)
  unsigned* arrivals;  // split-K: one counter per CTA tile and warpgroup, zero between launches
};

constexpr int kGroupM = 8;  // cluster rows per group of the tile order (2, 4 and 16 measured slower)
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
constexpr int kLag = 1;  // k tiles warpgroup 1 runs behind warpgroup 0 (0 and 2 measured no faster)
static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * 2 <= 65536, "setmaxnreg: more than the SM's registers");

// One tile shape of the menu (kernels/gemm_sm90_plan.hpp), as compile-time constants.
template <int kIndex>
struct Tiling {
  static constexpr TileShape kShape = kTileShapes[kIndex];
  static constexpr int kBM = kShape.bm, kBN = kShape.bn, kClusterM = kShape.cluster_m;
  static constexpr int kConsumers = tile_consumers(kShape);  // warpgroups, 64 rows of the tile each
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kStages = tile_stages(kShape);
  static constexpr bool kTmaStore = tile_has_tma_store(kShape);
  static_assert(kConsumers >= 1 && kConsumers <= 2 && kStages >= 2);
};

// Launches tile shape kTile for a k-major (kAK) or mn-major A and a k-major (kBK) or mn-major B.
// Returns a CUDA error, or cudaErrorInvalidValue with *why set when the operands cannot take TMA.
template <int kTile, bool kAK, bool kBK>
cudaError_t launch_tiling(Args const& args, bool bf16, cudaStream_t stream, std::string* why);
// Both operands' TMA maps for tile shape kTile, or why TMA cannot read them.
template <int kTile, bool kAK, bool kBK>
std::string tma_maps(Args const& args, CUtensorMap* a, CUtensorMap* b);

// The instantiations, one translation unit each (kernels/CMakeLists.txt generates them): every
// tile shape with every pair of majornesses it takes (tile_takes_mn_major_b: a B tile narrower than
// 64 rows per CTA of the cluster must be k-major).
#define LOOM_SM90_INSTANCES(X)                                                                     \
  X(0, true, true) X(0, true, false) X(0, false, true) X(0, false, false)                          \
  X(1, true, true) X(1, true, false) X(1, false, true) X(1, false, false)                          \
  X(2, true, true) X(2, true, false) X(2, false, true) X(2, false, false)                          \
  X(3, true, true) X(3, false, true)                                                               \
  X(4, true, true) X(4, true, false) X(4, false, true) X(4, false, false)                          \
  X(5, true, true) X(5, false, true)                                                               \
  X(6, true, true) X(6, false, true)                                                               \
  X(7, true, true) X(7, false, true)
#define LOOM_SM90_EXTERN(T, AK, BK)                                                                \
  extern template cudaError_t launch_tiling<T, AK, BK>(Args const&, bool, cudaStream_t, std::string*); \
  extern template std::string tma_maps<T, AK, BK>(Args const&, CUtensorMap*, CUtensorMap*);
LOOM_SM90_INSTANCES(LOOM_SM90_EXTERN)
#undef LOOM_SM90_EXTERN

// ---------------------------------------------------------------------------------------------
// Configuration: every layout, computed at compile time
// ---------------------------------------------------------------------------------------------

// One operand's (kMN, kBK) stage, its TMA boxes and its wgmma descriptors. kWgmmaMN: the rows one
// wgmma reads (64 for A, kBN for B). kShare: CTAs that share the tile (each loads kBoxes / kShare
// boxes and multicasts them).
template <int kMN, bool kKMajor_, int kWgmmaMN, int kShare, int kStages>
struct OperandConfig {
  static constexpr bool kKMajor = kKMajor_;
  static constexpr int kUnit = kKMajor ? 1 : 0;  // the mode of (mn, k) with unit stride in global memory
  static constexpr GmmaMajor kMajor = kKMajor ? GmmaMajor::kK : GmmaMajor::kMN;
  static constexpr SwizzleLayout kAtom = gmma_atom(kMajor, GmmaSwizzle::k128B, 16);
  // The atom repeats along K first when mn-major, so that each 64-row block of MN is one box.
  static constexpr IntTuple kOrder = kKMajor ? make_shape(0, 1) : make_shape(1, 0);
  static constexpr Tile kTile = make_tile(kMN, kBK);
  static constexpr SwizzleLayout kStage = tile_to_shape(kAtom, make_shape(kMN, kBK), kOrder);
  static constexpr i64 kStageElems = cosize(kStage.layout).v;
  // (MN, BK, PIPE): the stages one after the other.
  static constexpr SwizzleLayout kSmem = {kStage.swizzle, 0,
                                          append(kStage.layout, make_layout(IntTuple(kStages), IntTuple(kStageElems)))};

  // TMA boxes: a k-major tile is one box of (64 of K) x (MN / kShare), so that each sharing CTA
  // loads one; an mn-major one is (64 of MN) x (64 of K), the swizzle's width, so several.
  static constexpr int kBoxMN = kKMajor ? kMN / kShare : 64;
  static constexpr int kBoxes = kMN / kBoxMN;
  static constexpr Tile kBoxTile = make_tile(kBoxMN, kBK);
  static constexpr SwizzleLayout kBox = tile_to_shape(kAtom, make_shape(kBoxMN, kBK), kOrder);
  static constexpr int kBoxBytes = kBoxMN * kBK * 2;
  static constexpr int kStageBytes = int(kStageElems) * 2;

  // wgmma descriptors: at the origin, and the steps (in 16-byte units) per warpgroup (kWgmmaMN
  // rows), per k-step of 16 and per stage.
  static constexpr GmmaDesc kDesc = make_gmma_desc(kSmem, kMajor, 16, kWgmmaMN);
  static constexpr i64 kDescPerRows = kMN > kWgmmaMN ? gmma_desc_offset(kSmem, 16, make_shape(kWgmmaMN, 0, 0)) : 0;
  static constexpr i64 kDescPerStep = gmma_desc_offset(kSmem, 16, make_shape(0, 16, 0));
  static constexpr i64 kDescPerStage = gmma_desc_offset(kSmem, 16, make_shape(0, 0, 1));

  static constexpr bool valid() {
    // Box b is the box layout at the stage's offset of its first row, on a whole swizzle repeat.
    Layout const boxes = zipped_divide(kStage.layout, make_tile(kBoxMN, kBK));  // ((BOX_MN,BK),(boxes,1))
    if (!(coalesce(get(boxes, 0)) == coalesce(kBox.layout)) || size(get(boxes, 1)).v != kBoxes) return false;
    for (int b = 0; b < kBoxes; ++b)
      if (get(boxes, 1)(b) != kStage.layout(make_shape(b * kBoxMN, 0)) || (get(boxes, 1)(b) * 2) % 1024 != 0)
        return false;
    // The descriptor steps are linear: any warpgroup, k-step and stage is the sum of the three.
    for (int w = 0; w < kMN / kWgmmaMN; ++w)
      for (int s = 0; s < kBK / 16; ++s)
        for (int p = 0; p < kStages; ++p)
          if (gmma_desc_offset(kSmem, 16, make_shape(w * kWgmmaMN, 16 * s, p)) !=
              w * kDescPerRows + s * kDescPerStep + p * kDescPerStage)
            return false;
    return kBoxes % kShare == 0 && (kStageBytes % 1024) == 0 && kBoxBytes * kBoxes == kStageBytes;
  }
  static_assert(valid());
};

template <class Tl, bool kAKMajor, bool kBKMajor>
struct Config {
  using T = Tl;
  static constexpr int kBM = Tl::kBM, kBN = Tl::kBN, kStages = Tl::kStages, kConsumers = Tl::kConsumers;
  using A = OperandConfig<kBM, kAKMajor, 64, 1, kStages>;
  using B = OperandConfig<kBN, kBKMajor, kBN, Tl::kClusterM, kStages>;
  // What one stage's full barrier waits for: all of A and B land in every CTA.
  static constexpr int kStageBytes = A::kStageBytes + B::kStageBytes;
  // The TiledMMA: the consumer warpgroups along M, each m64nBNk16 over 64 x BN.
  static constexpr TiledMMA kMma = make_tiled_mma(mma_atom_sm90_64xNx16(kBN), make_layout(make_shape(kConsumers, 1, 1)));
  static constexpr Tile kTileC = make_tile(kBM, kBN);
  static constexpr Layout kAcc = decltype(partition_fragment_C<float, kMma, make_layout(make_shape(kBM, kBN))>())::layout;
  static constexpr int kAccs = int(size(kAcc).v);
  // Shared memory: A's stages, B's, the epilogue's buffers (kEpiBuffers of kEpiBufferBytes per
  // consumer, with the TMA store), the barriers (a full and an empty per stage, and `start`), then
  // one word per consumer (the split-K fixup's verdict); 1 KB of slack to align the base to the
  // 128-byte swizzle's 1024-byte repeat.
  static constexpr int kEpiOffset = kStages * kStageBytes;
  static constexpr int kBarrierOffset = kEpiOffset + tile_epilogue_bytes(Tl::kShape);
  static constexpr int kWordOffset = kBarrierOffset + (2 * kStages + 1) * 8;
  static constexpr int kSmemBytes = kWordOffset + 4 * kConsumers + 1024;

  static constexpr bool valid() {
    // Accumulator i is the wgmma's D register i (the atom's C TV layout in register order), and
    // values 2j, 2j+1 are neighbouring columns (the epilogue's paired stores).
    Layout const part_c = kMma.partition_C(make_layout(make_shape(kBM, kBN), make_stride(basis(0), basis(1)))).layout;
    Layout const atom_c = mma_atom_sm90_64xNx16(kBN).c_tv;
    for (int i = 0; i < kAccs; ++i) {
      Coord<2> const c = crd2idx_flat<Coord<2>>(i, part_c.shape, part_c.stride);
      i64 const mn = atom_c(make_shape(0, i));
      if (c[0] != mn % 64 || c[1] != mn / 64 || kAcc(i) != i) return false;
      if (i % 2 == 1) {
        Coord<2> const c0 = crd2idx_flat<Coord<2>>(i - 1, part_c.shape, part_c.stride);
        if (c[0] != c0[0] || c[1] != c0[1] + 1) return false;
      }
    }
    return kAccs == kBN / 2 && kAccs % 4 == 0 && kMma.size() == 128 * kConsumers && kSmemBytes <= kSmemLimit;
  }
  static_assert(valid());
};

// ---------------------------------------------------------------------------------------------
// Kernel parameters and the tile scheduler
// ---------------------------------------------------------------------------------------------

struct Params {
  CUtensorMap tma_a;  // A (m, k) in boxes of Config::A::kBox
  CUtensorMap tma_b;  // B (n, k)
  CUtensorMap tma_d;  // D (m, n) in boxes of EpilogueConfig<T>::kBox, when tma_store
  Coord<2> shape_a, shape_b;  // (M, K), (N, K)
  EpilogueArgs ep;
  int tiles_m, tiles_n, k_tiles, splits;
  int split_from;  // the first cluster tile that is split (0: all of them, with splits > 1)
  DType out;
  bool tma_store;  // the epilogue stores D with TMA (else straight from the registers)
  float* partials;     // split-K
  unsigned* arrivals;  // split-K
};

// Work units in order: cluster tiles [0, split_from) whole, one unit each; then unit
// split_from + v is split v % splits of cluster tile split_from + v / splits. Cluster tiles are
// (cluster row, N tile) within groups of kGroupM cluster rows, column by column; the CTA of cluster
// rank r takes M tile kClusterM * row + r. Split s takes k tiles [s K / S, (s+1) K / S). With
// split_from a whole number of waves (the tail plan), every cluster runs its whole tiles first
// and the last, partial wave is split across the clusters that would otherwise idle.
template <int kClusterM>
struct TileScheduler {
  int rows, tiles_n, splits, k_tiles, split_from, units;  // cluster rows, N tiles, splits, k tiles, first split tile, work units
  __device__ TileScheduler(int tiles_m, int tiles_n_, int splits_, int k_tiles_, int split_from_)
      : rows((tiles_m + kClusterM - 1) / kClusterM), tiles_n(tiles_n_), splits(splits_), k_tiles(k_tiles_),
        split_from(splits_ > 1 ? split_from_ : rows * tiles_n_),
        units(split_from + (rows * tiles_n_ - split_from) * splits_) {}
  struct Work {
    int tile;  // the cluster tile
    int m, n;  // this CTA's tile
    int split, splits, k_begin, k_end;  // the unit's split of its tile, of `splits`
  };
  __device__ Work work(int u, unsigned rank) const {
    Work w;
    if (u < split_from) {
      w.tile = u, w.split = 0, w.splits = 1;
    } else {
      w.tile = split_from + (u - split_from) / splits;
      w.split = u - split_from - (w.tile - split_from) * splits;
      w.splits = splits;
    }
    int const per_group = kGroupM * tiles_n, first = w.tile / per_group * kGroupM, in_group = w.tile % per_group;
    int const group_rows = ::min(rows - first, kGroupM);
    w.m = (first + in_group % group_rows) * kClusterM + int(rank);
    w.n = in_group / group_rows;
    // 32-bit: k_tiles * splits < 2^31 (K < 2^31, splits <= 16); a 64-bit division here would put
    // the consumers' accumulators on the stack.
    w.k_begin = int(unsigned(w.split) * unsigned(k_tiles) / unsigned(w.splits));
    w.k_end = int(unsigned(w.split + 1) * unsigned(k_tiles) / unsigned(w.splits));
    return w;
  }
};

// The TMA-store epilogue of output type T: one consumer warpgroup's 64 x kBN accumulators go out in
// sub-tiles of 64 rows x kCols columns (128 bytes), each written to a shared buffer under the
// 128-byte swizzle (conflict-free: the 8 rows of a store instruction land in 8 different 16-byte
// chunks) and stored by one TMA box, which clips at D's edges.
template <class T, int kBN>
struct EpilogueConfig {
  static constexpr int kBits = int(sizeof(T)) * 8;
  static constexpr int kCols = 128 / int(sizeof(T));
  static constexpr int kSubtiles = kBN / kCols;
  static constexpr Tile kSubtile = make_tile(64, kCols);
  // The box: (64 rows, kCols) row-major, the K-major 128-byte GMMA atom's layout and swizzle.
  static constexpr SwizzleLayout kBox = tile_to_shape(gmma_atom(GmmaMajor::kK, GmmaSwizzle::k128B, kBits), make_shape(64, kCols));
  // The warpgroup's (64, kBN) tile seen through one buffer: sub-tile j's columns land on it (the
  // sub-tile index has stride 0; the base picks the buffer).
  static constexpr Layout kView = make_layout(make_shape(64, make_shape(kCols, kSubtiles)), make_stride(kCols, make_stride(1, 0)));
  // One warpgroup's MMA (its accumulators, in partition_C order, are the consumer's registers).
  static constexpr TiledMMA kMma = make_tiled_mma(mma_atom_sm90_64xNx16(kBN));
  static constexpr int kValues = kCols / 2;  // accumulators of one sub-tile per thread

  static constexpr bool valid() {
    // The view is the box in each sub-tile, and sub-tile j is accumulators [j kValues, (j+1) kValues).
    Layout const part = kMma.partition_C(make_layout(make_shape(64, kBN), make_stride(basis(0), basis(1)))).layout;
    for (int v = 0; v < kBN / 2; ++v) {
      Coord<2> const c = crd2idx_flat<Coord<2>>(v, part.shape, part.stride);
      if (c[1] / kCols != v / kValues) return false;
    }
    for (int r = 0; r < 64; r += 7)
      for (int c = 0; c < kBN; c += 3)
        if (kView(make_shape(r, make_shape(c % kCols, c / kCols))) != kBox.layout(make_shape(r, c % kCols))) return false;
    return kBN % kCols == 0 && kBox.swizzle == gmma_swizzle(GmmaSwizzle::k128B, kBits) &&
           64 * kCols * int(sizeof(T)) == kEpiBufferBytes;
  }
  static_assert(valid());
};

// D = alpha * acc (beta == 0) for warpgroup w's rows of tile (m, n), through the warpgroup's
// buffers at shared address `buffers`; `stores` counts the warpgroup's TMA stores so far (each
// buffer is reused two stores later, once that store has read it). Thread `leader` of the
// warpgroup (tid % 128 == 0) issues and waits; named barrier 1 + w syncs the warpgroup.
template <class T, int kBN, int kConsumers, class Acc>
__device__ __forceinline__ void store_d_tma(Params const& p, Acc const& acc, int m, int n, int w, int tid,
                                            unsigned buffers, unsigned char* buffers_ptr, int& stores) {
  using E = EpilogueConfig<T, kBN>;
  using P = typename Pair<T>::type;
  bool const leader = tid % 128 == 0;
  auto const cD = make_identity_tensor(p.ep.cd_shape);  // (M,N) -> (m,n)
  float const alpha = p.ep.alpha;
#pragma unroll
  for (int j = 0; j < E::kSubtiles; ++j) {
    int const buf = stores % kEpiBuffers;
    // The store that last read this buffer is done reading it.
    if (leader) bulk_wait_group_read<kEpiBuffers - 1>();
    named_barrier_sync(1 + w, 128);
    auto sD = make_tensor<E::kView>(SwizzledPtrEngine<T, E::kBox.swizzle>{
        reinterpret_cast<T*>(buffers_ptr + buf * kEpiBufferBytes)});  // (64,(COLS,SUB)) -> buffer
    auto tCsD = partition_C<E::kMma, Offsets::kTabulated>(sD, tid % 128);  // (2,2,BN/8): the accumulators' places
#pragma unroll
    for (int q = 0; q < E::kValues / 2; ++q) {
      int const v = j * E::kValues + 2 * q;
      *reinterpret_cast<P*>(&tCsD(v)) = pair_from<T>(alpha * acc(v), alpha * acc(v + 1));
    }
    fence_proxy_async_shared_cta();  // generic-proxy writes -> the TMA engine's reads
    named_barrier_sync(1 + w, 128);
    if (leader) {
      Coord<2> const c = local_tile<E::kSubtile>(cD, kConsumers * m + w, n * E::kSubtiles + j).base;  // (row, col)
      tma_store_2d(&p.tma_d, buffers + unsigned(buf * kEpiBufferBytes), int(c[1]), int(c[0]));
      bulk_commit_group();
    }
    ++stores;
  }
}

// Split-K: the warpgroup's partial tile goes to its slot of the workspace; the split that arrives
// last on the tile's counter sums the partials in split order into acc and returns true (it stores
// D); the others return false. The sum's order is fixed whichever split is last, so D's bits do not
// depend on timing: with two splits the last adds the other's partial to its own registers (fp32
// addition commutes, so p0 + p1 and p1 + p0 are the same bits); with more it reads its own back too
// and adds all of them from split 0 on. The counter wraps to zero on the last arrival (atom.inc),
// ready for the next launch. Only the warpgroup's first thread fences, in its atomic: the named
// barrier orders every thread's partial before that release, and that acquire before every
// thread's reads (the memory model's cumulativity). Against a fence in every thread and both
// partials read back, the two together measured 0.6-2.6 µs faster a launch on forced split plans
// (docs/tuning/sm90.md). `verdict`: the warpgroup's word of shared memory.
template <int kAccs, class Acc>
__device__ __forceinline__ bool split_k_fixup(Acc& acc, float* slots, int slot_stride, int split, int splits,
                                              unsigned* arrival, volatile int* verdict, int w, int tid) {
  int const t = tid % 128;
  auto const slot = [&](int s) { return reinterpret_cast<float4*>(slots + std::size_t(s) * unsigned(slot_stride)); };
  float4* const mine = slot(split);
#pragma unroll
  for (int i = 0; i < kAccs / 4; ++i)
    __stcg(mine + i * 128 + t, make_float4(acc.data[4 * i], acc.data[4 * i + 1], acc.data[4 * i + 2], acc.data[4 * i + 3]));
  named_barrier_sync(1 + w, 128);
  if (t == 0) *verdict = atomic_inc_acq_rel_gpu(arrival, unsigned(splits - 1)) == unsigned(splits - 1);
  named_barrier_sync(1 + w, 128);
  if (!*verdict) return false;
  if (splits > 2) {
#pragma unroll
    for (int i = 0; i < kAccs; ++i) acc.data[i] = 0.f;
  }
  for (int s = 0; s < splits; ++s) {
    if (splits == 2 && s == split) continue;  // already in acc
    float4 const* const part = slot(s);
#pragma unroll
    for (int i = 0; i < kAccs / 4; ++i) {
      float4 const v = __ldcg(part + i * 128 + t);
      acc.data[4 * i] += v.x, acc.data[4 * i + 1] += v.y, acc.data[4 * i + 2] += v.z, acc.data[4 * i + 3] += v.w;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Roles
// ---------------------------------------------------------------------------------------------

// The ring of stages: index and phase, the same sequence in the producer and the consumers.
template <int kStages>
struct Ring {
  int stage = 0;
  unsigned phase = 0;
  __device__ void advance() {
    if (++stage == kStages) stage = 0, phase ^= 1u;
  }
};

// Producer load: one thread issues every TMA load of the CTA.
template <class Cfg>
__device__ __forceinline__ void producer_load(Params const& p, unsigned smem, unsigned bars, unsigned rank) {
  using A = typename Cfg::A;
  using B = typename Cfg::B;
  constexpr int kStages = Cfg::kStages, kClusterM = Cfg::T::kClusterM;
  unsigned const sA = smem, sB = smem + kStages * A::kStageBytes;
  auto full = [&](int s) { return bars + 8u * unsigned(s); };
  auto empty = [&](int s) { return bars + 8u * unsigned(kStages + s); };
  // Box coordinates, innermost TMA dimension first: the contiguous mode (make_tma_desc).
  auto coords = [](Coord<2> const& c, bool k_major, int& c0, int& c1) {
    c0 = int(k_major ? c[1] : c[0]);
    c1 = int(k_major ? c[0] : c[1]);
  };
  TileScheduler<kClusterM> const sched(p.tiles_m, p.tiles_n, p.splits, p.k_tiles, p.split_from);
  Ring<kStages> ring;
  for (int u = int(blockIdx.x) / kClusterM; u < sched.units; u += int(gridDim.x) / kClusterM) {
    auto const wk = sched.work(u, rank);
    auto const cA = make_identity_tensor(p.shape_a);  // (M,K) -> (m,k)
    auto const cB = make_identity_tensor(p.shape_b);  // (N,K) -> (n,k)
    for (int kt = wk.k_begin; kt < wk.k_end; ++kt) {
      int const s = ring.stage;
      // The consumers of every CTA this stage's B boxes go to are done with it.
      mbarrier_wait(empty(s), ring.phase ^ 1u);
      mbarrier_arrive_expect_tx(full(s), unsigned(Cfg::kStageBytes));
      int c0, c1;
#pragma unroll
      for (int b = 0; b < A::kBoxes; ++b) {
        coords(local_tile<A::kBoxTile>(cA, wk.m * A::kBoxes + b, kt).base, A::kKMajor, c0, c1);  // box (BOX_MN,BK)
        tma_load_2d(sA + unsigned(s * A::kStageBytes + b * A::kBoxBytes), &p.tma_a, full(s), c0, c1);
      }
#pragma unroll
      for (int j = 0; j < B::kBoxes / kClusterM; ++j) {
        int const b = j * kClusterM + int(rank);
        coords(local_tile<B::kBoxTile>(cB, wk.n * B::kBoxes + b, kt).base, B::kKMajor, c0, c1);
        if constexpr (kClusterM == 1)
          tma_load_2d(sB + unsigned(s * B::kStageBytes + b * B::kBoxBytes), &p.tma_b, full(s), c0, c1);
        else
          tma_load_2d_multicast(sB + unsigned(s * B::kStageBytes + b * B::kBoxBytes), &p.tma_b, full(s), c0, c1,
                                (unsigned short)((1u << kClusterM) - 1));
      }
      ring.advance();
    }
  }
  // Producer tail: wait until every stage's last use is released by the consumers of every CTA of
  // the cluster. Then no peer can still arrive on this CTA's barriers, and the CTA may exit without
  // a cluster barrier at the end (which cost 1 µs a launch: every warp waited for the slowest CTA
  // of the cluster behind a release fence).
  for (int i = 0; i < kStages; ++i) {
    mbarrier_wait(empty(ring.stage), ring.phase ^ 1u);
    ring.advance();
  }
}

// Consumer MMA and epilogue: warpgroup w of the tile's rows [64w, 64w + 64).
template <class Cfg, WgmmaType kType>
__device__ __forceinline__ void consumer_mma(Params const& p, unsigned smem, unsigned char* smem_ptr, unsigned bars,
                                             unsigned rank, int w, int tid) {
  using A = typename Cfg::A;
  using B = typename Cfg::B;
  using Tl = typename Cfg::T;
  constexpr int kStages = Cfg::kStages, kClusterM = Tl::kClusterM, kConsumers = Cfg::kConsumers;
  constexpr int kBN = Cfg::kBN, kAccs = Cfg::kAccs;
  constexpr int kTransA = A::kKMajor ? 0 : 1, kTransB = B::kKMajor ? 0 : 1;
  constexpr int kWgLag = kConsumers > 1 ? kLag : 0;
  unsigned const sA = smem, sB = smem + kStages * A::kStageBytes;
  constexpr GmmaDesc kDescA = A::kDesc, kDescB = B::kDesc;  // local copies: device code cannot refer to the members
  GmmaDesc const desc_a = kDescA.at(sA).advanced(w * A::kDescPerRows);
  GmmaDesc const desc_b = kDescB.at(sB);
  auto full = [&](int s) { return bars + 8u * unsigned(s); };
  auto empty = [&](int s) { return bars + 8u * unsigned(kStages + s); };
  bool const signals = tid % 128 == 0;  // one arrival per warpgroup and CTA of the cluster
  auto release = [&](int s) {
    if (signals)
#pragma unroll
      for (int r = 0; r < kClusterM; ++r) mbarrier_arrive_cluster(empty(s), unsigned(r));
  };

  // This warpgroup's epilogue buffers, and its TMA stores so far.
  unsigned const buffers = smem + unsigned(Cfg::kEpiOffset + w * kEpiBuffers * kEpiBufferBytes);
  unsigned char* const buffers_ptr = smem_ptr + Cfg::kEpiOffset + w * kEpiBuffers * kEpiBufferBytes;
  int stores = 0;
  volatile int* const verdict = reinterpret_cast<volatile int*>(smem_ptr + Cfg::kWordOffset) + w;

  // Warpgroup 1 starts kLag k tiles after warpgroup 0 and keeps that lag, so that one warpgroup's
  // drain and epilogue at the end of a tile overlap the other's last wgmmas instead of idling the
  // tensor cores. `start` is the barrier warpgroup 0 arrives on once it has issued kLag k tiles.
  unsigned const start = bars + 8u * unsigned(2 * kStages);
  bool started = false;

  auto acc = partition_fragment_C<float, Cfg::kMma, make_layout(make_shape(Cfg::kBM, kBN))>();  // (2,2,BN/8): the wgmma's D registers
  TileScheduler<kClusterM> const sched(p.tiles_m, p.tiles_n, p.splits, p.k_tiles, p.split_from);
  Ring<kStages> ring;
  for (int u = int(blockIdx.x) / kClusterM; u < sched.units; u += int(gridDim.x) / kClusterM) {
    auto const wk = sched.work(u, rank);
    int prev = -1;
    if (kWgLag > 0 && w == 1 && !started) mbarrier_wait(start, 0);
    for (int kt = wk.k_begin; kt < wk.k_end; ++kt) {
      int const s = ring.stage;
      mbarrier_wait(full(s), ring.phase);
      wgmma_fence();
#pragma unroll
      for (int step = 0; step < kBK / 16; ++step) {
        unsigned long long const da = desc_a.advanced(s * A::kDescPerStage + step * A::kDescPerStep).encode();
        unsigned long long const db = desc_b.advanced(s * B::kDescPerStage + step * B::kDescPerStep).encode();
        wgmma_ss<kType, kBN, kTransA, kTransB>(acc.data, da, db, (kt != wk.k_begin || step != 0) ? 1 : 0);
      }
      wgmma_commit_group();
      if (kWgLag > 0 && w == 0 && !started && kt + 1 - wk.k_begin == kWgLag) {
        if (signals) mbarrier_arrive_cluster(start, rank);
        started = true;
      }
      // The previous k tile's wgmmas are done with their stage; this tile's stay in flight.
      wgmma_wait_group<1>();
      if (prev >= 0) release(prev);
      prev = s;
      ring.advance();
    }
    if (kWgLag > 0 && w == 0 && !started && signals) mbarrier_arrive_cluster(start, rank);  // fewer than kLag k tiles
    started = true;
    wgmma_wait_group<0>();
    wgmma_fence_operand(acc.data);
    if (prev >= 0) release(prev);

    if (wk.m >= p.tiles_m) continue;  // the cluster's second M tile may lie past M
    if (wk.splits > 1) {
      std::size_t const slot = (std::size_t(wk.tile - sched.split_from) * kClusterM + rank) * kConsumers + unsigned(w);
      constexpr int kSlotFloats = kAccs * 128;
      if (!split_k_fixup<kAccs>(acc, p.partials + slot * unsigned(p.splits) * unsigned(kSlotFloats), kSlotFloats,
                                wk.split, p.splits, p.arrivals + slot, verdict, w, tid))
        continue;
    }
    if constexpr (Tl::kTmaStore) {
      if (p.tma_store) {
        switch (p.out) {
          case DType::f32: store_d_tma<float, kBN, kConsumers>(p, acc, wk.m, wk.n, w, tid, buffers, buffers_ptr, stores); break;
          case DType::f16: store_d_tma<__half, kBN, kConsumers>(p, acc, wk.m, wk.n, w, tid, buffers, buffers_ptr, stores); break;
          case DType::bf16: store_d_tma<__nv_bfloat16, kBN, kConsumers>(p, acc, wk.m, wk.n, w, tid, buffers, buffers_ptr, stores); break;
        }
        continue;
      }
    }
    if (p.ep.d_col) {
      switch (p.out) {
        case DType::f32: store_d<Cfg::kMma, Cfg::kTileC, float, true>(p.ep, acc, wk.m, wk.n, tid); break;
        case DType::f16: store_d<Cfg::kMma, Cfg::kTileC, __half, true>(p.ep, acc, wk.m, wk.n, tid); break;
        case DType::bf16: store_d<Cfg::kMma, Cfg::kTileC, __nv_bfloat16, true>(p.ep, acc, wk.m, wk.n, tid); break;
      }
    } else {
      switch (p.out) {
        case DType::f32: store_d<Cfg::kMma, Cfg::kTileC, float>(p.ep, acc, wk.m, wk.n, tid); break;
        case DType::f16: store_d<Cfg::kMma, Cfg::kTileC, __half>(p.ep, acc, wk.m, wk.n, tid); break;
        case DType::bf16: store_d<Cfg::kMma, Cfg::kTileC, __nv_bfloat16>(p.ep, acc, wk.m, wk.n, tid); break;
      }
    }
  }
  // The last TMA stores have read their buffers before the CTA's shared memory goes (their writes
  // to D complete by the end of the grid).
  if (Tl::kTmaStore && tid % 128 == 0) bulk_wait_group_read<0>();
}

// The kernel: barriers, a cluster barrier after their init (no CTA may multicast into, or arrive
// on, a peer that has not initialized its barriers), then the roles. No cluster barrier at the
// end: a CTA's consumers have waited for every multicast into it, and its producer tail for every
// peer's last arrival on it, so no peer touches its shared memory once it exits.
template <class Cfg, WgmmaType kType>
__global__ void __launch_bounds__(Cfg::T::kThreads, 1) gemm_sm90_kernel(__grid_constant__ Params const p) {
#if LOOM_SM90A_ENABLED
  constexpr int kStages = Cfg::kStages;
  extern __shared__ unsigned char smem_raw[];
  unsigned const raw = smem_u32(smem_raw);
  unsigned const smem = (raw + 1023u) & ~1023u;  // the 128-byte swizzle's repeat
  unsigned const bars = smem + unsigned(Cfg::kBarrierOffset);
  unsigned const rank = cluster_ctarank();
  int const tid = int(threadIdx.x);
  if (tid == 0) {
    tma_prefetch_descriptor(&p.tma_a);
    tma_prefetch_descriptor(&p.tma_b);
    if (p.tma_store) tma_prefetch_descriptor(&p.tma_d);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(bars + 8u * unsigned(s), 1);  // full: the producer
      mbarrier_init(bars + 8u * unsigned(kStages + s), unsigned(Cfg::kConsumers * Cfg::T::kClusterM));  // empty: every consumer
    }
    mbarrier_init(bars + 8u * unsigned(2 * kStages), 1);  // start: warpgroup 0's lead (consumer_mma)
    fence_mbarrier_init_cluster();
  }
  // The inits' fence orders them before the arrival, so the arrival itself can be relaxed (a
  // release arrival fences every warp's memory: 0.5 µs a launch).
  cluster_arrive_relaxed();

  int const wg = tid / 128;
  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    cluster_wait();
    if (tid == 0) producer_load<Cfg>(p, smem, bars, rank);
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    cluster_wait();
    consumer_mma<Cfg, kType>(p, smem, smem_raw + (smem - raw), bars, rank, wg - 1, tid - 128);
  }
#else
  (void)p;
#endif
}

// ---------------------------------------------------------------------------------------------
// Launcher
// ---------------------------------------------------------------------------------------------

// The TMA map of one operand, from its global shape and the box's smem layout.
template <class Op>
std::string operand_tma(void const* ptr, GmemShape const& g, CUtensorMap* map) {
#if defined(__CUDA_ARCH__)  // host code; the device pass only parses it
  (void)ptr, (void)g, (void)map;
  return {};
#else
  TmaDesc d;
  try {
    d = make_tma_desc(make_shape(g.shape[0], g.shape[1]), make_shape(g.stride[0], g.stride[1]), 2, Op::kBox,
                      make_shape(Op::kBoxMN, kBK));
  } catch (LayoutError const& e) {
    return e.what();
  }
  return make_tma_copy(d, ptr, true, map);
#endif
}

// D's TMA map for the epilogue's boxes, or why the epilogue cannot store D with TMA (then it
// stores straight from the registers): beta != 0 (C is read by the direct path), D's m is its
// contiguous mode (swapped), or D's base or row stride is not a multiple of 16 bytes. (Whether
// the tile shape has the TMA-store epilogue at all is the caller's part: gemm_sm90.cu.)
inline std::string make_tma_store_map(Args const& args, CUtensorMap* map) {
#if defined(__CUDA_ARCH__)
  (void)args, (void)map;
  return {};
#else
  if (args.beta != 0.f) return "beta != 0";
  if (args.d_col) return "D is transposed";
  int const es = int(size_of(args.out));
  SwizzleLayout const box = args.out == DType::f32 ? EpilogueConfig<float, 64>::kBox : EpilogueConfig<__half, 64>::kBox;
  int const cols = 128 / es;
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

template <int kTile, bool kAK, bool kBK>
std::string tma_maps(Args const& args, CUtensorMap* a, CUtensorMap* b) {
  using Cfg = Config<Tiling<kTile>, kAK, kBK>;
  std::string err = operand_tma<typename Cfg::A>(args.a, args.ga, a);
  return err.empty() ? operand_tma<typename Cfg::B>(args.b, args.gb, b) : err;
}

template <class Cfg, WgmmaType kType>
cudaError_t launch_kernel(Args const& args, Params& p, cudaStream_t stream) {
  using Tl = typename Cfg::T;
  constexpr int kClusterM = Tl::kClusterM;
  p.shape_a = Coord<2>{{args.ga.shape[0], args.ga.shape[1]}};
  p.shape_b = Coord<2>{{args.gb.shape[0], args.gb.shape[1]}};
  p.ep = EpilogueArgs{args.c, args.d, Coord<2>{{args.gd.shape[0], args.gd.shape[1]}},
                      args.d_col ? args.gd.stride[1] : args.gd.stride[0], args.alpha, args.beta, args.pair_d, args.d_col};
  p.tiles_m = int((args.ga.shape[0] + Tl::kBM - 1) / Tl::kBM);
  p.tiles_n = int((args.gb.shape[0] + Tl::kBN - 1) / Tl::kBN);
  p.k_tiles = int((args.ga.shape[1] + kBK - 1) / kBK);
  p.splits = args.splits < 1 ? 1 : (args.splits > p.k_tiles ? p.k_tiles : args.splits);
  p.partials = args.partials;
  p.arrivals = args.arrivals;
  p.out = args.out;
  if (p.splits > 1 && (p.partials == nullptr || p.arrivals == nullptr)) return cudaErrorInvalidValue;

  auto* kernel = gemm_sm90_kernel<Cfg, kType>;
  static cudaError_t const attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes);
  if (attr != cudaSuccess) return attr;

  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = kClusterM;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  cfg.attrs = attrs;
  cfg.numAttrs = 1;
  cfg.blockDim = dim3(Tl::kThreads);
  cfg.dynamicSmemBytes = Cfg::kSmemBytes;
  cfg.stream = stream;
  // As many clusters as can be resident at once (one CTA per SM), never more than there are work
  // units.
  static int const max_clusters = [&] {
    cudaLaunchConfig_t q = cfg;
    q.gridDim = dim3(kClusterM * args.sm_count);
    int n = 0;
    return cudaOccupancyMaxActiveClusters(&n, kernel, &q) == cudaSuccess && n > 0 ? n : args.sm_count / kClusterM;
  }();
  // The tail plan splits only what is left after whole waves of the grid: the cluster tiles past
  // the last multiple of the resident cluster count (all of them when there are fewer; none when
  // the waves come out whole). The workspace holds one wave's partials (gemm_sm90.cu).
  long long const tiles = (long long)((p.tiles_m + kClusterM - 1) / kClusterM) * p.tiles_n;
  p.split_from = 0;
  if (p.splits > 1 && args.tail && tiles > max_clusters) {
    p.split_from = int(tiles / max_clusters * max_clusters);
    if (p.split_from == tiles) p.splits = 1;
  }
  long long const units = p.splits > 1 ? p.split_from + (tiles - p.split_from) * p.splits : tiles;
  cfg.gridDim = dim3(unsigned(kClusterM * (units < max_clusters ? units : max_clusters)));
  return cudaLaunchKernelEx(&cfg, kernel, p);
}

template <int kTile, bool kAK, bool kBK>
cudaError_t launch_tiling(Args const& args, bool bf16, cudaStream_t stream, std::string* why) {
  using Cfg = Config<Tiling<kTile>, kAK, kBK>;
  Params p{};
  std::string const err = tma_maps<kTile, kAK, kBK>(args, &p.tma_a, &p.tma_b);
  if (!err.empty()) {
    if (why) *why = err;
    return cudaErrorInvalidValue;
  }
  p.tma_store = Tiling<kTile>::kTmaStore && make_tma_store_map(args, &p.tma_d).empty();
  return bf16 ? launch_kernel<Cfg, WgmmaType::kBF16>(args, p, stream)
              : launch_kernel<Cfg, WgmmaType::kF16>(args, p, stream);
}

}  // namespace loom::sm90
