// sm90's main loop: the producer's TMA loads and the consumers' wgmmas for one work unit (a CTA
// tile's k range), over the pipeline's ring of stages (kernels/sm90/pipeline.cuh).
//
// Data path, per CTA tile (m, n) and k tile kt:
//
//   cA = identity (M,K) -> local_tile<(BOX,TK)>(cA, m*BOXES + b, kt): box b's first coordinate, its TMA coords
//   sA (BM,TK,PIPE), 128B swizzle: box b lands at sA(b*BOX, 0, stage)
//   wgmma desc of warpgroup w, k-step s: make_gmma_desc(sA) advanced by gmma_desc_offset(sA, (64w, STEP s, stage))
//   acc = partition_fragment_C(TiledMMA of (BM/64)x1 warpgroups of m64nBNk{STEP}, (BM,BN)): (2,2,BN/8) per thread
//
// TK, STEP: 64 and 16 for f16/bf16, 128 and 32 for e4m3/e5m2 (Config::kTK, OperandConfig::kStepK).
//
// and the same for B, whose boxes the cluster's CTAs along M share out: each loads kBoxes /
// kClusterM of them (a k-major tile is one box a CTA, of any number of rows; box b is rank b %
// kClusterM's, so a tile of one box is rank 0's alone: OperandConfig) and
// multicasts them to every CTA of the cluster (each completes its bytes on the full barrier of
// every CTA it writes), so B's tile crosses L2 once per cluster. A cluster along N shares A's boxes
// the same way.
//
// A consumer warpgroup waits for a stage, issues its four wgmmas (k-steps of STEP), commits them,
// and waits until at most kInFlight groups are left (one or two k tiles stay in flight), then
// releases the stage of the k tile that finished. With two consumer warpgroups both read the same stages, but
// warpgroup 1 runs kLag k tiles behind warpgroup 0 (the `start` barrier sets the lag once, the ring
// keeps it), so that at the end of a tile one warpgroup drains and stores while the other still
// issues wgmmas. Three or four consumer warpgroups (the 192- and 256-row tiles) run in step.
//
// Written by hand, and why: the TMA coordinate order (dimension 0 is the contiguous mode,
// make_tma_desc's rule, so a k-major box takes (k, mn) and an mn-major one (mn, k) from the
// identity tensor's coordinate); the order of waits, wgmmas, commits and releases, which is control
// flow, not indices.
#pragma once

#include <numeric>
#include <utility>

#include "kernels/sm90/config.cuh"
#include "kernels/sm90/params.cuh"
#include "kernels/sm90/pipeline.cuh"
#include "kernels/sm90/ptx.cuh"
#include "kernels/sm90/schedule.hpp"
#include "layout/tensor.hpp"

namespace loom::sm90 {

// Producer load: every TMA load of work unit `wk`, issued by one thread of the CTA.
template <class Cfg>
__device__ __forceinline__ void producer_load(Params const& p, Pipeline<Cfg> const& pipe, TileScheduler::Work const& wk,
                                              unsigned rank, Ring<Cfg::kStages>& ring) {
  using A = typename Cfg::A;
  using B = typename Cfg::B;
  constexpr int kClusterM = Cfg::kClusterM, kClusterN = Cfg::kClusterN;
  // Rank r sits at (r % kClusterM, r / kClusterM) of the cluster (the scheduler's rule). The CTAs
  // along M (same column) share B's tile, those along N (same row) A's: each loads its share of the
  // boxes and multicasts them to the CTAs that share the tile.
  int const rank_m = int(rank) % kClusterM, rank_n = int(rank) / kClusterM;
  unsigned short const mask_a = Pipeline<Cfg>::mask_a(rank), mask_b = Pipeline<Cfg>::mask_b(rank);
  // Box coordinates, innermost TMA dimension first: the contiguous mode (make_tma_desc).
  auto coords = [](Coord<2> const& c, bool k_major, int& c0, int& c1) {
    c0 = int(k_major ? c[1] : c[0]);
    c1 = int(k_major ? c[0] : c[1]);
  };
  auto const cA = make_identity_tensor(p.shape_a);  // (M,K) -> (m,k)
  auto const cB = make_identity_tensor(p.shape_b);  // (N,K) -> (n,k)
  for (int kt = wk.k_begin; kt < wk.k_end; ++kt) {
    int const s = ring.stage;
    pipe.producer_acquire(ring, unsigned(Cfg::kStageBytes));
    int c0, c1;
#pragma unroll
    for (int j = 0; j < A::kBoxesPerCta; ++j) {
      int const b = j * kClusterN + rank_n;
      if (A::kBoxes % kClusterN != 0 && b >= A::kBoxes) break;
      coords(local_tile<A::kBoxTile>(cA, wk.m * A::kBoxes + b, kt).base, A::kKMajor, c0, c1);  // box (BOX_MN,BK)
      SmemBuffer const dst = pipe.smem.a(s).offset(unsigned(b * A::kBoxBytes));
      if constexpr (kClusterN == 1)
        tma_load_2d(dst, &p.tma_a, pipe.smem.full(s), c0, c1);
      else
        tma_load_2d_multicast(dst, &p.tma_a, pipe.smem.full(s), c0, c1, mask_a);
    }
#pragma unroll
    for (int j = 0; j < B::kBoxesPerCta; ++j) {
      int const b = j * kClusterM + rank_m;
      if (B::kBoxes % kClusterM != 0 && b >= B::kBoxes) break;
      coords(local_tile<B::kBoxTile>(cB, wk.n * B::kBoxes + b, kt).base, B::kKMajor, c0, c1);
      SmemBuffer const dst = pipe.smem.b(s).offset(unsigned(b * B::kBoxBytes));
      if constexpr (kClusterM == 1)
        tma_load_2d(dst, &p.tma_b, pipe.smem.full(s), c0, c1);
      else
        tma_load_2d_multicast(dst, &p.tma_b, pipe.smem.full(s), c0, c1, mask_b);
    }
    ring.advance();
  }
}

// Consumer MMA: consumer warpgroup w's part of the main loop, whose state (its descriptors and the
// lag) lasts across work units.
// kType (and kTypeB, B's, for 8-bit inputs, which may differ from A's): the wgmma's input types.
template <class Cfg, WgmmaType kType, WgmmaType kTypeB = kType>
struct ConsumerMma {
  using A = typename Cfg::A;
  using B = typename Cfg::B;
  static constexpr int kStages = Cfg::kStages;
  static constexpr int kWgLag = Cfg::kConsumers == 2 ? kLag : 0;  // three or four warpgroups run in step
  static constexpr int kTransA = A::kKMajor ? 0 : 1, kTransB = B::kKMajor ? 0 : 1;
  static_assert(Cfg::kWgAtoms == 1 || Cfg::kElemBytes == 2, "8-bit loops issue one wgmma a k-step (warpgroups of 64 rows)");

  Pipeline<Cfg> pipe;
  GmmaDesc desc_a, desc_b;  // stage 0's, k-step 0's (A's at this warpgroup's 64 rows)
  // Encoded descriptor d advanced by `units` of 16 bytes: the start address field (bits 0-13) holds
  // a shared-memory address >> 4, below 2^14 for any address of a CTA's 227 KB, so the sum never
  // carries out of it; the low word alone, so that the high word (the layout's constants) stays a
  // constant.
  __device__ static __forceinline__ unsigned long long plus(unsigned long long d, unsigned units) {
    return (d & 0xFFFFFFFF00000000ull) | unsigned(unsigned(d) + units);
  }
  int w;
  int tid;  // the consumers' thread index, 0 to 128 kConsumers - 1
  unsigned rank;
  bool signals;          // the warpgroup's first thread: it arrives on the lag's barrier for the warpgroup
  bool started = false;  // the lag between the warpgroups is set

  // The stage and warpgroup indices broadcast from lane 0 (__shfl_sync) where the warpgroups do not
  // run lagged (one, three or four of them): ptxas then knows them to be warp-uniform and computes
  // the wgmma descriptors on the uniform datapath, as cuBLAS's loop does (R2URs 16 -> 2 a k tile;
  // 64x120_4x2's loop 85 -> 74 SASS instructions, 256x136_2x1's 121 -> 108 and its spills 72 -> 44
  // bytes of loads). Measured on an H200 (docs/tuning/sm90.md, twenty-eighth round): 64x120_4x2,
  // 64x168_4x2 and 256x136_2x1 5.5%, 2% and 1.5% faster with them (and the swapped store's
  // predicated loop). The lagged pair (two warpgroups) was 1-2% slower with them (128x128 at
  // 512 x 4096 x 4096, 128x256 at 4096^3), so it keeps vector indices.
  static constexpr bool kUniform = Cfg::kConsumers != 2;
  __device__ static __forceinline__ int uniform(int v) { return kUniform ? __shfl_sync(0xffffffffu, v, 0) : v; }

  __device__ __forceinline__ ConsumerMma(Pipeline<Cfg> const& pipe_, int w_, int tid_, unsigned rank_)
      : pipe(pipe_), w(uniform(w_)), tid(tid_), rank(rank_) {
    constexpr GmmaDesc kDescA = A::kDesc, kDescB = B::kDesc;  // local copies: device code cannot refer to the members
    desc_a = kDescA.at(pipe.smem.a(0).addr).advanced(w * A::kDescPerRows);
    desc_b = kDescB.at(pipe.smem.b(0).addr);
    signals = tid % 128 == 0;
  }

  // wgmma groups (k tiles) a warpgroup keeps in flight, one or two: tile_in_flight says which tiles
  // take two and why. With one, the tensor pipe runs dry whenever releasing a stage and waiting for
  // the next takes longer than one k tile's wgmmas (a 64x120 k tile is 240 clocks); two hold one
  // more stage out of the producer's reach.
  static constexpr int kInFlight = tile_in_flight(Cfg::T::kTileShape);
  // The descriptors encoded once (two 64-bit registers held across the loop) where one or two
  // consumer warpgroups have 232 registers each; three or four have 152 or 104, and 256x136's four
  // spilled 44 bytes with them, so those build each wgmma's descriptor from its fields.
  static constexpr bool kEncoded = Cfg::kConsumers <= 2;

  // The CTA this thread arrives on when the warpgroup releases a stage (Pipeline::release_target),
  // computed where it is used: held from the constructor on, it was one more register across the
  // loop, and 128x224 spilled 8 bytes.
  __device__ __forceinline__ int release_to() const { return Pipeline<Cfg>::release_target(rank, tid % 128); }

  // acc = A B^T over work unit wk's k tiles; every stage it read is released on return.
  //
  // The path from one k tile's wgmmas to the next is kept short (Nsight Compute at 230 x 3584 x 4096
  // on 64x120_4x2, docs/tuning/sm90.md, twenty-sixth round: a warpgroup's waits for a full stage
  // and ~100 instructions a k tile, where cuBLAS's loop on the same decomposition has ~40): the
  // next stage is tested (test_wait, which never suspends) as soon as this k tile's wgmmas are
  // issued, and waited for only where it had not landed; the descriptors are encoded once and each
  // wgmma's is one addition (plus, where kEncoded), as in the 8-bit accurate loop; the release is one arrival
  // instruction a warp (Pipeline::release_target).
  template <class Acc>
  __device__ __forceinline__ void mma(TileScheduler::Work const& wk, Ring<kStages>& ring, Acc& acc) {
    [[maybe_unused]] unsigned long long const enc_a = desc_a.encode(), enc_b = desc_b.encode();
    int held[2] = {-1, -1};  // the stages of the k tiles whose wgmmas may still be in flight, the oldest first
    bool landed = false;     // the stage at `ring` has landed (tested after the k tile before)
    if (kWgLag > 0 && w == 1 && !started) mbarrier_wait(pipe.smem.start(), 0);
    for (int kt = wk.k_begin; kt < wk.k_end; ++kt) {
      int const s = uniform(ring.stage);
      if (!landed) pipe.consumer_wait(ring);
      wgmma_fence();
#pragma unroll
      for (int step = 0; step < Cfg::kKSteps; ++step) {
        if constexpr (Cfg::kWgAtoms == 1) {
          unsigned long long const da = kEncoded ? plus(enc_a, unsigned(s * A::kDescPerStage + step * A::kDescPerStep))
                                                 : desc_a.advanced(s * A::kDescPerStage + step * A::kDescPerStep).encode();
          unsigned long long const db = kEncoded ? plus(enc_b, unsigned(s * B::kDescPerStage + step * B::kDescPerStep))
                                                 : desc_b.advanced(s * B::kDescPerStage + step * B::kDescPerStep).encode();
          if constexpr (Cfg::kElemBytes == 1)
            wgmma_ss_k32<kType, kTypeB, Cfg::kBN>(acc.data, da, db, (kt != wk.k_begin || step != 0) ? 1 : 0);
          else
            wgmma_ss<kType, Cfg::kBN, kTransA, kTransB>(acc.data, da, db, (kt != wk.k_begin || step != 0) ? 1 : 0);
        } else {
          // Repeat r of a warpgroup of wg_rows rows: the 64 rows 64 kConsumers r below its first,
          // into accumulators [r BN/2, (r+1) BN/2) (Config::kMma's RestM).
          unsigned long long const db = desc_b.advanced(s * B::kDescPerStage + step * B::kDescPerStep).encode();
#pragma unroll
          for (int r = 0; r < Cfg::kWgAtoms; ++r) {
            unsigned long long const da =
                desc_a.advanced(s * A::kDescPerStage + step * A::kDescPerStep + r * Cfg::kConsumers * A::kDescPerRows).encode();
            wgmma_ss<kType, Cfg::kBN, kTransA, kTransB>(*reinterpret_cast<float(*)[Cfg::kBN / 2]>(acc.data + r * (Cfg::kBN / 2)),
                                                       da, db, (kt != wk.k_begin || step != 0) ? 1 : 0);
          }
        }
      }
      wgmma_commit_group();
      if (kWgLag > 0 && w == 0 && !started && kt + 1 - wk.k_begin == kWgLag) {
        if (signals) mbarrier_arrive_cluster(pipe.smem.start(), rank);
        started = true;
      }
      ring.advance();
      landed = kt + 1 < wk.k_end && pipe.consumer_test(ring);
      // The k tile kInFlight back is done with its stage; the later ones stay in flight.
      wgmma_wait_group<kInFlight>();
      pipe.consumer_release(held[0], held[0] >= 0 ? release_to() : -1);  // -1: no arrival (nothing held yet)
      if constexpr (kInFlight == 2) held[0] = held[1], held[1] = s;
      else held[0] = s;
    }
    if (kWgLag > 0 && w == 0 && !started && signals) mbarrier_arrive_cluster(pipe.smem.start(), rank);  // fewer than kLag k tiles
    started = true;
    wgmma_wait_group<0>();
    wgmma_fence_operand(acc.data);
#pragma unroll
    for (int i = 0; i < kInFlight; ++i) pipe.consumer_release(held[i], held[i] >= 0 ? release_to() : -1);
  }

  // The same with promotion (8-bit inputs, the accurate mode): each k tile's four wgmmas start a
  // fresh partial in `part`, which is added into `acc` in fp32 once they are done. Hopper's 8-bit
  // wgmma adds its products into its accumulator with fewer bits than fp32's, so over a long K the
  // error of one accumulator grows with K; promoted every k tile (128 of K), it grows only with the
  // number of k tiles, each partial's error bounded by 128 products. The wait for the partial
  // leaves the tensor cores to the other warpgroup (kLag apart) meanwhile; the stage is released as
  // soon as its wgmmas are done. (cuBLASLt's accurate kernel at 128x128 has the same structure:
  // one partial, a drain each k tile, 168 registers; docs/tuning/fp8.md, fifth round.) With
  // tensor scales, a tile up to 128 wide keeps two partials instead (kTwoPartials): one k tile's
  // wgmmas run while the k tile before is added, so that the drain waits for them alone.
  //
  // A tile wider than 144 columns computes its partial in kPieces column pieces of kPieceN (each
  // m64n<kPieceN>k32 over B's rows [h kPieceN, (h+1) kPieceN), whose accumulators are acc's
  // registers [h kPieceN/2, (h+1) kPieceN/2): the wgmma's D is (2,2,N/8), column groups of 8
  // last), so that `part` holds one piece: 128x192 keeps 96 + 48 accumulators a thread, not 192,
  // and 128x256 128 + 64.
  // acc is zeroed first and every piece added (a first-tile copy instead doubled the code that
  // holds both sets live: 432 bytes of spills at 128x192 against 8).
  static constexpr int kPieces = Cfg::kBN > kWholePartialMaxBN ? 2 : 1;
  static constexpr int kPieceN = Cfg::kBN / kPieces;
  static constexpr i64 kDescPerPiece = Cfg::kElemBytes == 1 ? gmma_desc_offset(B::kSmem, B::kBits, make_shape(kPieceN, 0, 0)) : 0;
  struct Part {
    float data[kPieceN / 2];
  };
  // Block scales (ScaleMode::block, the kBlock kernel): each k tile's partial is added times its
  // scales, acc += part * sA(row, kt) * sB(col / 128, kt), which the k tile of 128 elements makes one
  // scale of A a row and one of B a column block. A thread's accumulators lie on two rows (the D
  // fragment (2,2,BN/8): mode 1 steps 8 rows) and on column groups of 8 that never straddle a
  // multiple of 128 (a tile's first column is a multiple of 16), so a group's block is uniform
  // across the warpgroup: the tile spans kScaleBlocks of B's blocks at most (one where BN divides
  // 128), and group g is in the second from group g1 = (128 - n0 % 128) / 8 on.
  static constexpr int kScaleBlocks = (128 - std::gcd(Cfg::kBN, 128) + Cfg::kBN + 127) / 128;
  // kBlock: the block scales' loop, in a kernel of its own (kernels/sm90/kernel.cuh's kBlock: the
  // launcher picks it by Args::block_scale), so that neither loop is allocated for the other's
  // registers; only where the tile takes block scales.
  static constexpr bool kTakesBlockScales = tile_takes_block_scales(Cfg::T::kTileShape);
  // The tensor scales' loop keeps two partials where they fit the consumers' 232 registers (acc
  // and two partials of up to 64 a thread: 128 wide); with block scales, two partials measured
  // 2-10% slower than one (docs/tuning/fp8.md, tenth round), so that loop keeps one.
  static constexpr bool kTwoPartials = Cfg::kBN <= 128;
  template <bool kBlock, class Acc>
  __device__ __forceinline__ void mma_promoted(TileScheduler::Work const& wk, Ring<kStages>& ring, Acc& acc, Part& part,
                                               Params const& p) {
    static_assert(Cfg::kElemBytes == 1, "promotion is for 8-bit inputs");
    static_assert(Cfg::kBN % (8 * kPieces) == 0 && Cfg::kAccs == kPieces * (kPieceN / 2));
    if (kWgLag > 0 && w == 1 && !started) mbarrier_wait(pipe.smem.start(), 0);
    constexpr bool block = kBlock;
    static_assert(!block || (kTakesBlockScales && kScaleBlocks <= 2), "a tile spans at most two of B's 128-column blocks");
    // k tile kt's scales, loaded two k tiles ahead, so that two k tiles' wgmmas and promotions
    // cover a load from L2 (one k tile of 128x128 is about 512 clocks of tensor work, L2's latency
    // under load more); their offsets are computed once a work unit (a few integers a thread). Read
    // after the wgmmas instead (prefetched into L1 the k tile before), they measured 0.53-0.61x
    // cuBLASLt at 4096³ and 8192³ (docs/tuning/fp8.md, third round): the latency of the load was
    // not hidden. Addressed and loaded after the wgmmas' issue, 3-13% slower; addressed afresh
    // each k tile (from the thread's partition_C, which spared those registers when the loop held
    // more), 0-8% slower than with the offsets kept (fifth round).
    struct Where {
      int r0, r1, b0, b1, g1;
    };
    auto where = [&]() {
      auto const cD = local_tile<Cfg::kTileC>(make_identity_tensor(Coord<2>{{p.shape_a[0], p.shape_b[0]}}), wk.m, wk.n);  // (BM,BN) -> (m,n)
      auto const tCc = partition_C<Cfg::kMma, Offsets::kTabulated>(cD, tid);  // (2,2,BN/8): this thread's accumulators' (m,n)
      int const last_row = int(p.shape_a[0]) - 1, last_block = int((p.shape_b[0] - 1) / 128);
      int const n0 = int(cD.base[1]);  // the tile's first column
      int const nb = ::min(n0 / 128, last_block);  // a cluster's tile past N reads a real block; it stores nothing
      return Where{::min(int(tCc(0)[0]), last_row), ::min(int(tCc(2)[0]), last_row),  // rows past M: a real scale; never stored
                   nb * int(p.b_ld), ::min(nb + 1, last_block) * int(p.b_ld), (128 - n0 % 128) / 8};
    };
    [[maybe_unused]] Where at{};
    if constexpr (block) at = where();
    struct Scales {
      float a0, a1, b0, b1;
    };
    auto load = [&](int kt) {
      float const* const a = p.scale_a + std::size_t(kt) * unsigned(p.a_rows);
      float const* const b = p.scale_b + unsigned(kt);
      return Scales{__ldg(a + at.r0), __ldg(a + at.r1), __ldg(b + at.b0), kScaleBlocks == 2 ? __ldg(b + at.b1) : 0.f};
    };
    Scales next{}, after{};  // k tiles kt + 1 and kt + 2's
    if constexpr (block) {
      next = load(wk.k_begin);
      if (wk.k_begin + 1 < wk.k_end) after = load(wk.k_begin + 1);
    }
#pragma unroll
    for (int i = 0; i < Cfg::kAccs; ++i) acc.data[i] = 0.f;
    // The descriptors encoded once, and each wgmma's by one addition (plus): recomputing and
    // encoding their fields each k tile put ~40 integer instructions a k tile on the path from one
    // k tile's drain to the next k tile's wgmmas (docs/tuning/fp8.md, fifth round). The fast loop
    // (mma) encodes them the same way (its 128x256 spilled 84 bytes so in the fifth round; with
    // nvcc 13.0 and the loop as it is now, none: docs/tuning/sm90.md, twenty-sixth round).
    unsigned long long enc_a = desc_a.encode(), enc_b = desc_b.encode();
    // These and the barriers' base address held in registers (an empty asm makes them values the
    // compiler cannot recompute): rematerialized instead, to spare a few of the 168 registers, the
    // base was read again from %cgactaid (S2UR) in every k tile, on the same path.
    Pipeline<Cfg> pl = pipe;
    asm volatile("" : "+r"(pl.smem.base), "+l"(enc_a), "+l"(enc_b));
    // Whether the next k tile's stage has landed: tried once while this k tile's last wgmmas run,
    // before their drain and addition, so that the try's latency hides under them; waited for
    // only where the try found it not yet there. (Waited for after the addition, on the path from
    // the drain to the next wgmmas, it and the descriptors' arithmetic made the gap between one k
    // tile's wgmmas and the next: docs/tuning/fp8.md, fifth round.)
    if constexpr (!block && kPieces == 1 && kTwoPartials) {
      // Two partials: k tile kt's wgmmas go into one while k tile kt - 1's, in the other, are
      // waited for (wgmma_wait_group<1>) and added, so that a warpgroup keeps a group of wgmmas
      // queued while it adds. The k tiles alternate between the two (part, then other) in a loop
      // unrolled by two so that every register index is a constant; the first k tile is peeled.
      static_assert(kWgLag <= 1, "warpgroup 0 sets the lag after its first k tile");
      Part other;
      // q: which partial (0: part, 1: other), a template argument so that every register is named.
      auto issue = [&]<int q>() {
        Part& dst = q == 0 ? part : other;
        int const s = ring.stage;
        pl.consumer_wait(ring);
        wgmma_fence();
#pragma unroll
        for (int step = 0; step < Cfg::kKSteps; ++step) {
          unsigned long long const da = plus(enc_a, unsigned(s * A::kDescPerStage + step * A::kDescPerStep));
          unsigned long long const db = plus(enc_b, unsigned(s * B::kDescPerStage + step * B::kDescPerStep));
          wgmma_ss_k32<kType, kTypeB, kPieceN>(dst.data, da, db, step != 0 ? 1 : 0);
        }
        wgmma_commit_group();
        ring.advance();
        return s;
      };
      auto add = [&]<int q>(int stage) {
        Part& src = q == 0 ? part : other;
        wgmma_fence_operand(src.data);
        pl.consumer_release_serial(stage, signals, rank);
#pragma unroll
        for (int i = 0; i < kPieceN / 2; ++i) acc.data[i] += src.data[i];
      };
      int stage[2] = {issue.template operator()<0>(), 0};  // each partial's k tile's stage
      if (kWgLag > 0 && w == 0 && !started) {  // warpgroup 0 leads by the k tile just issued (kLag is 1)
        if (signals) mbarrier_arrive_cluster(pipe.smem.start(), rank);
        started = true;
      }
      // k tile kt into partial q while partial 1 - q's k tile is added; true where the k tiles have
      // ended (only the last drain is in the branch: a wgmma issued in a branch made ptxas serialize
      // them all, C7518).
      auto step = [&]<int q>(int& kt) {
        if (kt == wk.k_end) {
          wgmma_wait_group<0>();
          add.template operator()<1 - q>(stage[1 - q]);
          return true;
        }
        stage[q] = issue.template operator()<q>();
        wgmma_wait_group<1>();
        add.template operator()<1 - q>(stage[1 - q]);
        ++kt;
        return false;
      };
      for (int kt = wk.k_begin + 1;;)
        if (step.template operator()<1>(kt) || step.template operator()<0>(kt)) break;
      started = true;  // warpgroup 1 too: the lag is set once
      return;
    }
    // Block scales on a 256-wide tile: four pieces of 64, a partial of 32 registers a thread, not
    // two of 128 (whose 64, beside the scales and 128 accumulators, spilled 64 bytes).
    constexpr int kP = block && Cfg::kBN > 192 ? 4 : kPieces, kPN = Cfg::kBN / kP;
    constexpr i64 kDescPP = kP == kPieces ? kDescPerPiece : gmma_desc_offset(B::kSmem, B::kBits, make_shape(kPN, 0, 0));
    float local_part[kP == kPieces ? 1 : kPN / 2];
    auto& pd = [&]() -> auto& {
      if constexpr (kP == kPieces) return part.data;
      else return local_part;
    }();
    bool landed = false;
    for (int kt = wk.k_begin; kt < wk.k_end; ++kt) {
      int const s = ring.stage;
      [[maybe_unused]] Scales cur{};
      if constexpr (block) {
        cur = next, next = after;
        if (kt + 2 < wk.k_end) after = load(kt + 2);
      }
      if (!landed) pl.consumer_wait(ring);
      // One piece; h is a template argument so that every accumulator index is a constant (an
      // index through a runtime h put acc in local memory).
      auto piece = [&]<int h>() {
        wgmma_fence();
#pragma unroll
        for (int step = 0; step < Cfg::kKSteps; ++step) {
          unsigned long long const da = plus(enc_a, unsigned(s * A::kDescPerStage + step * A::kDescPerStep));
          unsigned long long const db = plus(enc_b, unsigned(s * B::kDescPerStage + step * B::kDescPerStep + h * kDescPP));
          wgmma_ss_k32<kType, kTypeB, kPN>(pd, da, db, step != 0 ? 1 : 0);
        }
        wgmma_commit_group();
        if (h == kP - 1) {
          Ring<kStages> after_this = ring;
          after_this.advance();
          landed = kt + 1 < wk.k_end && pl.consumer_try(after_this);
        }
        wgmma_wait_group<0>();
        wgmma_fence_operand(pd);
        if (h == kP - 1) pl.consumer_release_serial(s, signals, rank);
        constexpr int kBase = h * (kPN / 2);
        if constexpr (block) {
          int const g1 = kScaleBlocks == 2 ? at.g1 : 0;
#pragma unroll
          for (int g = 0; g < kPN / 8; ++g) {  // column group g of the piece: accumulators 4g .. 4g+3
            float const sb = kScaleBlocks == 2 && h * (kPN / 8) + g >= g1 ? cur.b1 : cur.b0;
            float const x0 = cur.a0 * sb, x1 = cur.a1 * sb;
            acc.data[kBase + 4 * g] = fmaf(pd[4 * g], x0, acc.data[kBase + 4 * g]);
            acc.data[kBase + 4 * g + 1] = fmaf(pd[4 * g + 1], x0, acc.data[kBase + 4 * g + 1]);
            acc.data[kBase + 4 * g + 2] = fmaf(pd[4 * g + 2], x1, acc.data[kBase + 4 * g + 2]);
            acc.data[kBase + 4 * g + 3] = fmaf(pd[4 * g + 3], x1, acc.data[kBase + 4 * g + 3]);
          }
        } else {
#pragma unroll
          for (int i = 0; i < kPN / 2; ++i) acc.data[kBase + i] += pd[i];
        }
      };
      [&]<int... h>(std::integer_sequence<int, h...>) {
        (piece.template operator()<h>(), ...);
      }(std::make_integer_sequence<int, kP>{});
      if (kWgLag > 0 && w == 0 && !started && kt + 1 - wk.k_begin == kWgLag) {
        if (signals) mbarrier_arrive_cluster(pipe.smem.start(), rank);
        started = true;
      }
      ring.advance();
    }
    if (kWgLag > 0 && w == 0 && !started && signals) mbarrier_arrive_cluster(pipe.smem.start(), rank);  // fewer than kLag k tiles
    started = true;
  }
};

}  // namespace loom::sm90
