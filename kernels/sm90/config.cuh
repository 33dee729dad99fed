// sm90's compile-time configuration: for one tile shape of the menu and one pair of operand
// majornesses, every layout the kernel uses, computed at compile time from the layout core and
// checked there (each struct's valid()).
//
// Shared memory: each operand's stage is the canonical 128-byte swizzled GMMA atom tiled over
// (MN, a k tile of 128 bytes) with tile_to_shape (k-major: rows of 64 16-bit or 128 8-bit elements
// of K; mn-major, 16-bit only: 64-element columns of MN, K first, so that each 64 x 64 block is
// contiguous). One TMA box fills one such block, or the
// whole k-major tile: make_tma_desc (kernels/sm90/launch.cuh) reads its dims, box and swizzle off
// the global operand and the box's smem layout. The wgmma descriptors come from make_gmma_desc over
// the stage layout, and move between warpgroups, k-steps and stages by gmma_desc_offset, checked
// here to be linear in the stage and warpgroup.
//
// The TiledMMA: the tile's consumer warpgroups (one to four) along M, each m64nBNk16 (8-bit:
// m64nBNk32) over 64 x BN (one wgmma per k-step of 32 bytes of K, BN/2 fp32 accumulators per thread);
// where a warpgroup computes 128 or 192 rows (TileShape::wg_rows), the 64 x consumers rows the
// warpgroups cover repeat down the tile (the partition's RestM), so that warpgroup w issues a k-step's
// wgmmas at rows 64 (w + consumers r) for r < wg_rows / 64, into BN/2 accumulators each.
#pragma once

#include "kernels/sm90/tile_menu.hpp"
#include "layout/gmma.hpp"
#include "layout/tensor.hpp"

namespace loom::sm90 {

// Tile shape kShape of the menu, as compile-time constants.
template <int kShape_>
struct TileConfig {
  static constexpr int kShape = kShape_;
  static constexpr TileShape kTileShape = kTileShapes[kShape];
  static constexpr int kBM = kTileShape.bm, kBN = kTileShape.bn, kClusterM = kTileShape.cluster_m;
  static constexpr int kClusterN = kTileShape.cluster_n, kCluster = tile_cluster(kTileShape);
  static constexpr int kConsumers = tile_consumers(kTileShape);  // warpgroups, wg_rows rows of the tile each
  static constexpr int kWgAtoms = tile_wg_atoms(kTileShape);     // wgmmas a warpgroup issues a k-step, 64 rows apart x kConsumers
  static constexpr int kThreads = tile_threads(kTileShape);
  static constexpr int kStages = tile_stages(kTileShape);
  static constexpr bool kTmaStore = tile_has_col_tma_store(kTileShape);  // a swapped plan's D at least
  static constexpr bool kRowTmaStore = tile_has_tma_store(kTileShape);   // any D
  static constexpr int kConsumerRegs = tile_consumer_regs(kTileShape);  // setmaxnreg's, per consumer thread
  static_assert(kConsumers >= 1 && kConsumers <= 4 && kStages >= 2);
  static_assert(kWgAtoms >= 1 && kWgAtoms <= 3 && 64 * kWgAtoms * kConsumers == kBM, "whole warpgroups of 64-row wgmmas");
  static_assert(kCluster <= kMaxClusterSize, "a portable cluster");
};

// One operand's (kMN, kTK) stage, its TMA boxes and its wgmma descriptors, for elements of
// kElemBytes bytes: 2 (f16, bf16) or 1 (e4m3, e5m2). A k tile is the 128-byte swizzle's width,
// kTK = 128 / kElemBytes elements (64 or 128), so a stage has the same bytes at either width; one
// wgmma reads 32 bytes of it (k16 or k32), kKSteps = 4 of them. kWgmmaMN: the rows one wgmma reads
// (64 for A, kBN for B). kShare: CTAs that share the tile (each loads kBoxes / kShare boxes and
// multicasts them). An 8-bit operand is k-major only: wgmma has no transpose for it.
template <int kMN, bool kKMajor_, int kWgmmaMN, int kShare, int kStages, int kElemBytes = 2>
struct OperandConfig {
  static_assert(kElemBytes == 2 || (kElemBytes == 1 && kKMajor_), "an 8-bit operand is k-major");
  static constexpr bool kKMajor = kKMajor_;
  static constexpr int kBits = 8 * kElemBytes;
  static constexpr int kTK = 128 / kElemBytes, kStepK = 32 / kElemBytes, kKSteps = kTK / kStepK;
  static constexpr GmmaMajor kMajor = kKMajor ? GmmaMajor::kK : GmmaMajor::kMN;
  static constexpr SwizzleLayout kAtom = gmma_atom(kMajor, GmmaSwizzle::k128B, kBits);
  // The atom repeats along K first when mn-major, so that each 64-row block of MN is one box.
  static constexpr IntTuple kOrder = kKMajor ? make_shape(0, 1) : make_shape(1, 0);
  static constexpr SwizzleLayout kStage = tile_to_shape(kAtom, make_shape(kMN, kTK), kOrder);
  static constexpr i64 kStageElems = cosize(kStage.layout).v;
  // (MN, BK, PIPE): the stages one after the other.
  static constexpr SwizzleLayout kSmem = {kStage.swizzle, 0,
                                          append(kStage.layout, make_layout(IntTuple(kStages), IntTuple(kStageElems)))};

  // TMA boxes: a k-major tile is one box of (a k tile) x (MN / kShare), so that each sharing CTA
  // loads one; an mn-major one is (64 of MN) x (64 of K), the swizzle's width, so several. TMA
  // swizzles by the shared-memory address (the 128-byte swizzle XORs address bits 4-6 with bits
  // 7-9), and the stage starts on a whole repeat (1 KB), so a box may start at any row: 104 rows
  // shared by four CTAs are four boxes of 26, each landing where the stage's swizzled layout puts
  // those rows. Only where MN does not divide among the CTAs is the tile one box, which the CTA of
  // rank 0 loads and multicasts: box b is loaded by the CTA of rank b % kShare. (Boxes of 8 rows,
  // 13 of them shared out, made 4.25 TMA loads per CTA and k tile where cuBLAS issues 2, and
  // measured 13% slower at 300 x 5120 x 13824 on 128x104_4x1 than the tile as one box loaded by
  // rank 0: docs/tuning/sm90.md, twenty-third round.)
  static constexpr int kBoxMN = !kKMajor ? 64 : kMN % kShare == 0 ? kMN / kShare : kMN;
  static constexpr int kBoxes = kMN / kBoxMN;
  static constexpr int kBoxesPerCta = (kBoxes + kShare - 1) / kShare;
  static constexpr Tile kBoxTile = make_tile(kBoxMN, kTK);
  // A k-major box is row-major (kBoxMN, kTK) under the stage's swizzle (rows of 128 bytes, any
  // number of them); an mn-major one the atom tiled over (64, 64).
  static constexpr SwizzleLayout kBox = kKMajor ? SwizzleLayout{kStage.swizzle, 0, make_layout(make_shape(kBoxMN, kTK), make_stride(kTK, 1))}
                                                : tile_to_shape(kAtom, make_shape(kBoxMN, kTK), kOrder);
  static constexpr int kBoxBytes = kBoxMN * kTK * kElemBytes;
  static constexpr int kStageBytes = int(kStageElems) * kElemBytes;

  // wgmma descriptors: at the origin, and the steps (in 16-byte units) per warpgroup (kWgmmaMN
  // rows), per k-step (kStepK) and per stage.
  static constexpr GmmaDesc kDesc = make_gmma_desc(kSmem, kMajor, kBits, kWgmmaMN);
  static constexpr i64 kDescPerRows = kMN > kWgmmaMN ? gmma_desc_offset(kSmem, kBits, make_shape(kWgmmaMN, 0, 0)) : 0;
  static constexpr i64 kDescPerStep = gmma_desc_offset(kSmem, kBits, make_shape(0, kStepK, 0));
  static constexpr i64 kDescPerStage = gmma_desc_offset(kSmem, kBits, make_shape(0, 0, 1));

  static constexpr bool valid() {
    // Box b is the box layout at the stage's offset of its first row, which is a whole number of
    // 128-byte rows (TMA's alignment for a shared-memory destination); the swizzle is the stage's,
    // applied to the offset in the stage (the hardware's, to the address: the same function, the
    // stage being on a whole repeat).
    if (!(kBox.swizzle == kStage.swizzle)) return false;
    for (int b = 0; b < kBoxes; ++b) {
      i64 const first = kStage.layout(make_shape(b * kBoxMN, 0));
      if ((first * kElemBytes) % 128 != 0) return false;
      // Both are sums of an (MN) and a (K) mode's offsets, so rows at k = 0 and k's at the first row suffice.
      for (int r = 0; r < kBoxMN; ++r)
        if (kStage.layout(make_shape(b * kBoxMN + r, 0)) != first + kBox.layout(make_shape(r, 0))) return false;
      for (int k = 0; k < kTK; ++k)
        if (kStage.layout(make_shape(b * kBoxMN, k)) != first + kBox.layout(make_shape(0, k))) return false;
    }
    // The descriptor steps are linear: any warpgroup, k-step and stage is the sum of the three.
    for (int w = 0; w < kMN / kWgmmaMN; ++w)
      for (int s = 0; s < kKSteps; ++s)
        for (int p = 0; p < kStages; ++p)
          if (gmma_desc_offset(kSmem, kBits, make_shape(w * kWgmmaMN, kStepK * s, p)) !=
              w * kDescPerRows + s * kDescPerStep + p * kDescPerStage)
            return false;
    return kBoxes * kBoxMN == kMN && (kBoxes >= kShare || kBoxes == 1) && (kStageBytes % 1024) == 0 && kBoxBytes * kBoxes == kStageBytes &&
           kStageBytes == kMN * 128 && kKSteps == 4;
  }
  static_assert(valid());
};

// Tile shape Tc (a TileConfig) with a k-major (kAKMajor) or mn-major A and a k-major (kBKMajor) or
// mn-major B, of kElemBytes-byte elements (2: f16/bf16, m64nNk16; 1: e4m3/e5m2, m64nNk32, k-major
// only). A's tile is shared by the cluster's CTAs along N, B's by those along M. A stage has the
// same bytes at either width (tile_stage_bytes), so the ring and the shared storage are the same.
template <class Tc, bool kAKMajor, bool kBKMajor, int kElemBytes_ = 2>
struct Config {
  using T = Tc;
  static constexpr int kElemBytes = kElemBytes_;
  static constexpr int kBM = Tc::kBM, kBN = Tc::kBN, kStages = Tc::kStages, kConsumers = Tc::kConsumers;
  static constexpr int kClusterM = Tc::kClusterM, kClusterN = Tc::kClusterN, kCluster = Tc::kCluster;
  static constexpr int kThreads = Tc::kThreads, kConsumerRegs = Tc::kConsumerRegs, kWgAtoms = Tc::kWgAtoms;
  using A = OperandConfig<kBM, kAKMajor, 64, kClusterN, kStages, kElemBytes>;
  using B = OperandConfig<kBN, kBKMajor, kBN, kClusterM, kStages, kElemBytes>;
  static constexpr int kTK = A::kTK, kKSteps = A::kKSteps;  // elements of K per stage, wgmmas per stage
  // What one stage's full barrier waits for: all of A and B land in every CTA.
  static constexpr int kStageBytes = A::kStageBytes + B::kStageBytes;
  // The wgmma atom (m64nBNk16 or m64nBNk32) and the TiledMMA: the consumer warpgroups along M, each
  // over 64 x BN, repeated kWgAtoms times down the tile.
  static constexpr MMAAtom kAtom = kElemBytes == 2 ? mma_atom_sm90_64xNx16(kBN) : mma_atom_sm90_64xNx32(kBN);
  static constexpr TiledMMA kMma = make_tiled_mma(kAtom, make_layout(make_shape(kConsumers, 1, 1)));
  static constexpr Tile kTileC = make_tile(kBM, kBN);
  static constexpr Layout kAcc = decltype(partition_fragment_C<float, kMma, make_layout(make_shape(kBM, kBN))>())::layout;
  static constexpr int kAccs = int(size(kAcc).v);

  static constexpr bool valid() {
    // Accumulator i is register i % (BN/2) of the wgmma of repeat r = i / (BN/2) (the atom's C TV
    // layout in register order, 64 kConsumers r rows down), and values 2j, 2j+1 are neighbouring
    // columns (the epilogue's paired stores).
    Layout const part_c = kMma.partition_C(make_layout(make_shape(kBM, kBN), make_stride(basis(0), basis(1)))).layout;
    Layout const atom_c = kAtom.c_tv;
    for (int i = 0; i < kAccs; ++i) {
      Coord<2> const c = crd2idx_flat<Coord<2>>(i, part_c.shape, part_c.stride);
      int const v = i % (kBN / 2), r = i / (kBN / 2);
      i64 const mn = atom_c(make_shape(0, v));
      if (c[0] != mn % 64 + 64 * kConsumers * r || c[1] != mn / 64 || kAcc(i) != i) return false;
      if (i % 2 == 1) {
        Coord<2> const c0 = crd2idx_flat<Coord<2>>(i - 1, part_c.shape, part_c.stride);
        if (c[0] != c0[0] || c[1] != c0[1] + 1) return false;
      }
    }
    return kAccs == kWgAtoms * kBN / 2 && kAccs % 4 == 0 && kMma.size() == 128 * kConsumers &&
           kStageBytes == tile_stage_bytes(Tc::kTileShape);
  }
  static_assert(valid());
};

}  // namespace loom::sm90
