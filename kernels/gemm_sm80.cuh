// sm80: D = alpha*A*B + beta*C on tensor cores with mma.sync.m16n8k16 (SM80+, so it runs on A100
// and H100). A and B are fp16 or bf16, accumulation is fp32, and C/D are fp16, bf16 or fp32
// (Problem::out_dtype). Every operand is row- or column-major with its own leading dimension; C may
// alias D. Any M, N, K >= 1.
//
// Files: this header holds the kernel and its launcher, launch_majors<kAK, kBK, kBF16>, instantiated
// once per pair of operand majornesses (k-major or mn-major A, then B) and input type in a generated
// translation unit (kernels/CMakeLists.txt's loom_instances(sm80 ...)), so that the 16 kernels (4
// majornesses x 2 dtypes x 16-byte copies or not) compile in eight translation units side by side; gemm_sm80.cu
// registers the kernel and picks the launcher; kernels/ptx_sm80.cuh holds its PTX.
//
// Problem: a column-major D is computed as D^T = B^T A^T, so the kernel always writes a row-major D
// (the accumulator fragments hold pairs of neighbouring columns) and sees A as (m,k) and B as
// (n,k), each either k-major or mn-major in global memory.
//
// Tiling: a CTA of 4 warps owns a 128x128 tile of D and walks K in steps of 32; two CTAs share an
// SM. The TiledMMA repeats the m16n8k16 atom over 2x2 warps, and its M and N permutations give every
// warp a contiguous 64x64 block, so that each k-step of 16 a warp loads 4 A and 8 B atoms (two
// ldmatrix.x4 per 16x16 of A or B) and issues 32 MMAs. Shared tiles keep the global majorness: a
// k-major tile is (mn, 32) row-major under Swizzle<2,3,3> (64-byte rows), an mn-major one is built
// from (64, 8) column-major atoms under Swizzle<3,3,3>. make_tiled_copy_A/B over the TiledMMA with
// ldmatrix.x4 (.trans for mn-major tiles) moves shared memory into exactly the MMA fragments, and
// the swizzles make both its row addresses and the cp.async stores conflict-free.
//
// Data path: every index is the layout core's, as a chain from the problem to the atoms (the
// layouts are computed at compile time in OperandConfig and Config; run-time values are only the
// tile coordinates, the k tile, the pipeline stage and each thread's offsets, one table load per
// partition):
//
//   mA (M,K) -> gA = local_tile(mA, m, _) (BM,BK,k) -> tAgA = partition_S<kG2S>(gA)  (CPY,CPY_M,CPY_K,k)
//   sA (BM,BK,PIPE), swizzled                       -> tAsA = partition_D<kG2S>(sA)  (CPY,CPY_M,CPY_K,PIPE)
//        cp.async: tAgA(_,_,_,kt) -> tAsA(_,_,_,stage), chunk c = elements [8c, 8c+8)
//   sA -> tCsA = partition_S<kS2R>(sA) ((8,4),1,2,PIPE), kS2R = make_tiled_copy_A(ldmatrix.x4, TiledMMA)
//        ldmatrix: tCsA(_,_,_,stage) -> tCrA_copy, the registers of tCrA in the copy's order (retile)
//   tCrA: the MMA's A registers for a whole k tile ((1,2,2),4,2) (32-bit registers, element pairs)
//   mma.sync: acc(_,i,j) += tCrA(_,i,s) * tCrB(_,j,s);  acc laid out as partition_C of the C tile
//   mD (M,N) -> tCgD = partition_C(local_tile(mD, m, n)); the epilogue writes acc there
//
// Identity tensors tiled and partitioned the same way (tAcA, tCcD) give the coordinates of every
// chunk and every accumulator, hence the edge predicates. The pipeline stages are the last mode of
// the shared tensors, and the ring buffer's stage index slices it. The swizzle is sA's engine
// (SwizzledPtrEngine); its partitions are tensors over SwizzledPartEngine, which swizzle a
// thread's offset once (a front-end table) and reach every element by an XOR with a constant and
// an add, the core having checked at compile time that this is exact for every thread and element
// (layout/tensor.hpp). smem_address() gives the 32-bit shared addresses that cp.async and
// ldmatrix take. The global tiles of the copies are walked one k tile at a time
// (walk_last_mode), which moves a pointer instead of re-evaluating the tile's coordinates.
//
// Pipeline: 4 shared stages filled by cp.async (16 bytes, .cg) with one commit group per k tile;
// the CTA waits for the oldest stage with wait_group(stages-2) and one __syncthreads per k tile.
// Register fragments hold a whole k tile, so they are double-buffered across its two k-steps: the
// ldmatrix of step s+1 (or of step 0 of the next tile) is issued before the MMAs of step s, and the
// next tile's global copies go out with the first k-step. While the tiles being copied lie wholly
// inside the matrix, the copies take no predicates; the last tiles and the edge CTAs use
// zero-filling cp.async. Rows or leading dimensions that are not 16-byte aligned take 8- or 4-byte
// cp.async or 2-byte loads, chosen per operand by the launcher; those instantiations share
// everything else.
//
// Epilogue: kernels/epilogue.cuh's store_d, straight from the accumulators, two neighbouring columns
// per store (4 or 8 bytes) where aligned, predicated at the edges; beta == 0 never reads C.
//
// What remains written by hand, and why:
// - The PTX of cp.async, ldmatrix and mma.sync: the core's copy and MMA atoms are layouts, and no
//   device code dispatches on them.
// - The schedule: the ring buffer's stage counters (read, write), the split of the k loop into the
//   predicate-free interior and the predicated tail, the order of copies, ldmatrix and MMAs within
//   a k tile. These are control flow, not indices.
// - The zero-fill count of an edge chunk: how many of its 8 elements lie inside the matrix along
//   the contiguous mode, from the chunk's identity coordinate, as cp.async's src-size operand.
// - The tile order: CTAs walk the tiles in groups of 16 tile rows, column by column within a group,
//   so that the CTAs in flight share A and B panels in L2. It is not a layout over the tile grid
//   because the last group is ragged (tiles_m % 16 rows): a layout would need a grid padded with
//   idle CTAs or a second layout for the tail, and four lines of arithmetic are simpler than either.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/epilogue.cuh"
#include "kernels/numeric.cuh"
#include "kernels/operand_layout.hpp"
#include "kernels/per_device.hpp"
#include "kernels/problem.hpp"
#include "kernels/ptx_sm80.cuh"
#include "layout/tensor.hpp"
#include "kernels/sm80_instances.inc"

namespace loom::sm80 {

// What the launcher knows of a problem, after the transposition for a column-major D.
struct Args {
  void const* a;        // (m, k)
  void const* b;        // (n, k)
  void const* c;
  void* d;
  GmemShape ga;  // (m, k) -> offset in A; one stride is 1 (the contiguous mode)
  GmemShape gb;  // (n, k) -> offset in B
  GmemShape gd;  // (m, n) -> offset in C and D; n is contiguous
  float alpha, beta;
  int bytes_a, bytes_b;  // copy width of each operand when not 16 (8, 4 or 2)
  DType out;
  bool pair_d;           // C and D take one store per two neighbouring columns
};

// Launches the kernels for a k-major (kAK) or mn-major A and a k-major (kBK) or mn-major B, of bf16
// (kBF16) or f16.
template <bool kAK, bool kBK, bool kBF16>
cudaError_t launch_majors(Args const& args, bool fast, cudaStream_t stream);
// The instances (kernels/CMakeLists.txt lists them; each compiles in a generated translation unit).
#define LOOM_SM80_EXTERN(AK, BK, BF16) extern template cudaError_t launch_majors<AK, BK, BF16>(Args const&, bool, cudaStream_t);
LOOM_SM80_INSTANCES(LOOM_SM80_EXTERN)
#undef LOOM_SM80_EXTERN

constexpr int kBM = 128, kBN = 128;
constexpr int kGroupM = 16;  // tile rows per group of the rasterization

// ---------------------------------------------------------------------------------------------
// Configuration: every layout, computed at compile time
// ---------------------------------------------------------------------------------------------

// Two CTAs of 4 warps per SM: each warp's 64x64 accumulators take most of 255 registers, and
// two independent CTAs keep the tensor pipe busy while one of them waits at its barrier.
constexpr int kThreads = 128;
constexpr int kMinBlocksPerSm = 2;

// The TiledMMA: 2x2 warps of m16n8k16, each warp a contiguous 64x64 block of the 128x128 tile.
struct MmaConfig {
  static constexpr TiledMMA kMma = make_tiled_mma(
      mma_atom_sm80_16x8x16(), make_layout(make_shape(2, 2, 1)),
      make_tile(make_layout(make_shape(16, 2, 4), make_stride(1, 64, 16)),
                make_layout(make_shape(8, 2, 8), make_stride(1, 64, 8)), 16));
  static_assert(kMma.size() == kThreads && kMma.tile_size_mnk(0) == kBM && kMma.tile_size_mnk(1) == kBN);
};

// One operand's (kMN, kBK) tiles: global, shared (kStages of them, swizzled), and the registers of
// the MMA; the cp.async copy that fills shared memory and the ldmatrix copy that empties it.
template <int kMN, int kBK_, int kStages, bool kKMajor_, bool kIsA>
struct OperandConfig {
  static constexpr bool kKMajor = kKMajor_;
  static constexpr int kBK = kBK_;
  static constexpr int kUnit = kKMajor ? 1 : 0;  // the mode of (mn, k) with unit stride in global memory
  static constexpr Tile kTile = make_tile(kMN, kBK);

  // 8 rows of 16-byte chunks per swizzle period: chunk c of row r lands in bank group c ^ (r % 8)
  // (for 64-byte k-major rows, two rows share a 128-byte line and the pattern is (r / 2) % 4).
  static constexpr Swizzle kSwizzle = make_swizzle(kKMajor && kBK == 32 ? 2 : 3, 3, 3);
  static constexpr Layout kSmemTile =
      kKMajor ? make_layout(make_shape(kMN, kBK), LayoutRight{})
              : blocked_product(make_layout(make_shape(64, 8)), make_layout(make_shape(kMN / 64, kBK / 8)));
  static constexpr i64 kSmemElems = cosize(kSmemTile).v;
  // (MN, BK, PIPE): the stages one after the other. Each starts on a whole swizzle period, so that
  // a run-time stage index adds to a thread's swizzled offset without touching the swizzle.
  static constexpr Layout kSmem = append(kSmemTile, make_layout(IntTuple(kStages), IntTuple(kSmemElems)));
  static_assert(kSmemElems % swizzle_period(kSwizzle) == 0, "stages must start on a swizzle period");

  // Global -> shared: each thread moves chunks of kVec elements (16 bytes) along the contiguous mode.
  static constexpr int kVec = 8;
  static constexpr TiledCopy kG2S =
      kKMajor ? make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(kThreads / (kBK / kVec), kBK / kVec), LayoutRight{}),
                                make_layout(make_shape(1, kVec)))
              : make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(kMN / kVec, kThreads / (kMN / kVec))),
                                make_layout(make_shape(kVec, 1)));
  static constexpr int kChunks = int(size(kG2S.partition_D(kSmemTile).layout).v) / kVec;

  // Shared -> registers, one k-step of 16 at a time: ((8, ldmatrix per step), 1, k-steps) per stage.
  static constexpr TiledCopy kS2R = kIsA ? make_tiled_copy_A(copy_atom_ldsm(4, !kKMajor), MmaConfig::kMma)
                                         : make_tiled_copy_B(copy_atom_ldsm(4, !kKMajor), MmaConfig::kMma);
  static constexpr Layout kLdsm = kS2R.partition_S(kSmemTile).layout;
  static constexpr int kLdsmPerStep = int(size(get(kLdsm, 0)).v) / 8;
  static constexpr int kSteps = kBK / 16;

  // The MMA's fragment of this operand over the (kMN, kBK) tile, ((2,2,2),4,2) for A and ((2,2),8,2)
  // for B, as 32-bit registers that hold element pairs: kRegs for the MMA, kRegsCopy the same
  // registers in the ldmatrix copy's order (kS2R.retile).
  static constexpr Layout kFrag = make_layout(shape(
      kIsA ? MmaConfig::kMma.partition_A(make_layout(make_shape(kMN, kBK))).layout
           : MmaConfig::kMma.partition_B(make_layout(make_shape(kMN, kBK))).layout));
  static constexpr Layout kFragCopy = kS2R.retile(kFrag);
  static constexpr Layout kRegs = upcast(kFrag, 2);
  static constexpr Layout kRegsCopy = upcast(kFragCopy, 2);
  static constexpr int kAtoms = int(size(get(kFrag, 1)).v);  // MMA atoms along mn per warp

  static constexpr bool valid() {
    TiledCopy::Partition const g2s_d = kG2S.partition_D(kSmemTile);
    TiledCopy::Partition const g2s_s =
        kG2S.partition_S(make_layout(make_shape(kMN, kBK), make_stride(basis(0), basis(1))));
    TiledCopy::Partition const ldsm = kS2R.partition_S(kSmemTile);
    // A chunk is kVec consecutive elements along the contiguous mode of the global tile and of the
    // shared tile, starting on a multiple of kVec (so the swizzle, which keeps the low
    // kSwizzle.base bits, keeps it whole).
    if (size(get(g2s_d.layout, 0)).v != kVec || (i64(1) << kSwizzle.base) < kVec) return false;
    for (int c = 0; c < kChunks; ++c)
      for (int v = 0; v < kVec; ++v) {
        Coord<2> const d0 = crd2idx_flat<Coord<2>>(kVec * c, g2s_s.layout.shape, g2s_s.layout.stride);
        Coord<2> const dv = crd2idx_flat<Coord<2>>(kVec * c + v, g2s_s.layout.shape, g2s_s.layout.stride);
        if (dv[kUnit] != d0[kUnit] + v || dv[1 - kUnit] != d0[1 - kUnit]) return false;
        if (g2s_d.layout(kVec * c + v) != g2s_d.layout(kVec * c) + v || g2s_d.layout(kVec * c) % kVec != 0) return false;
      }
    for (int t = 0; t < kThreads; ++t)
      if (g2s_d.offset(t) % kVec != 0 || g2s_s.offset<Coord<2>>(t)[kUnit] % kVec != 0 || ldsm.offset(t) % 8 != 0) return false;
    // ldmatrix: every thread's 8 source elements are one 16-byte row; the registers of one ldmatrix
    // are element pairs of the fragment, as are the MMA's operand registers.
    for (int r = 0; r < kLdsmPerStep; ++r)
      for (int v = 0; v < 8; ++v)
        if (kLdsm(8 * r + v) != kLdsm(8 * r) + v) return false;
    for (int i = 0; i < int(size(kFragCopy).v); i += 2) {
      i64 const e = kFragCopy(i);
      if (e % 2 != 0 || kFragCopy(i + 1) != e + 1 || kRegsCopy(i / 2) != e / 2) return false;
    }
    for (int i = 0; i < int(size(kFrag).v); i += 2)
      if (kFrag(i) % 2 != 0 || kFrag(i + 1) != kFrag(i) + 1 || kRegs(i / 2) != kFrag(i) / 2) return false;
    return kChunks * kVec * kThreads == kSmemElems && size(kFragCopy) == size(kFrag) && rank(kLdsm) == 3 &&
           size(get(kLdsm, 1)).v == 1 && size(get(kLdsm, 2)).v == kSteps && rank(kRegsCopy) == 3 &&
           size(get(kRegsCopy, 0)).v == 4 * kLdsmPerStep;
  }
  static_assert(valid());
};

// k tiles of 32 in 4 stages (measured against 64 in 3, 32 in 3 and 5: no faster, or slower).
template <bool kAKMajor, bool kBKMajor, int kBK_ = 32, int kStages_ = 4>
struct Config {
  static constexpr int kBK = kBK_, kStages = kStages_;
  static constexpr TiledMMA kMma = MmaConfig::kMma;
  using A = OperandConfig<kBM, kBK, kStages, kAKMajor, true>;
  using B = OperandConfig<kBN, kBK, kStages, kBKMajor, false>;
  static constexpr int kSteps = A::kSteps;
  static constexpr Tile kTileC = make_tile(kBM, kBN);
  static constexpr Layout kAcc = make_layout(shape(kMma.partition_C(make_layout(make_shape(kBM, kBN))).layout));
  static constexpr int kSmemBytes = int(cosize(A::kSmem).v + cosize(B::kSmem).v) * 2;
  static constexpr int kPairs = int(size(kAcc).v) / 2;
  static constexpr int kAtomsM = int(size(get(kAcc, 1)).v), kAtomsN = int(size(get(kAcc, 2)).v);

  static constexpr bool valid() {
    // Accumulator values 2j and 2j+1 are neighbouring columns (one 4- or 8-byte store), and an
    // atom's A, B and C registers are contiguous in their fragments, in the PTX operand order.
    Layout const part_c = kMma.partition_C(make_layout(make_shape(kBM, kBN), make_stride(basis(0), basis(1)))).layout;
    for (int i = 0; i < int(size(kAcc).v); i += 2) {
      Coord<2> const c0 = crd2idx_flat<Coord<2>>(i, part_c.shape, part_c.stride);
      Coord<2> const c1 = crd2idx_flat<Coord<2>>(i + 1, part_c.shape, part_c.stride);
      if (c1[0] != c0[0] || c1[1] != c0[1] + 1 || kAcc(i + 1) != kAcc(i) + 1) return false;
    }
    return rank(kAcc) == 3 && get(kAcc, 0) == make_layout(make_shape(2, 2)) && kAtomsM == A::kAtoms &&
           kAtomsN == B::kAtoms && size(get(A::kRegs, 0)).v == 4 && size(get(B::kRegs, 0)).v == 2 &&
           A::kRegs(1, 0, 0) == 1 && A::kRegs(2, 0, 0) == 2 && A::kRegs(3, 0, 0) == 3 && B::kRegs(1, 0, 0) == 1 &&
           size(get(A::kRegs, 2)).v == kSteps && size(get(B::kRegs, 2)).v == kSteps;
  }
  static_assert(valid());
};

// ---------------------------------------------------------------------------------------------
// Global -> shared
// ---------------------------------------------------------------------------------------------

// Chunks [kFirst, kEnd) of one operand's k tile: src, crd and dst are the thread's (CPY,CPY_M,CPY_K)
// parts of the global tile, of its identity (coordinates) and of the shared stage; chunk c is
// elements [c*kVec, (c+1)*kVec). kBytes is the copy width: 16, or 0 for the operand's width in
// `bytes` (16, 8, 4 or 2). A chunk holds `valid` elements of the matrix (0 past an edge); cp.async
// zero-fills the rest. `any` is an address inside the matrix, for copies that read nothing.
template <class Op, int kBytes, int kFirst, int kEnd, class Src, class Crd, class Dst>
__device__ __forceinline__ void copy_g2s(Src const& src, Crd const& crd, Dst const& dst, Coord<2> const& extent,
                                         std::uint16_t const* any, int bytes, bool whole) {
  constexpr int kVec = Op::kVec, kUnit = Op::kUnit;
  if (kBytes == 16 && whole) {  // the CTA's whole tile lies inside the matrix: no predicates
#pragma unroll
    for (int c = kFirst; c < kEnd; ++c) cp_async_16(smem_address(dst, c * kVec), &src(c * kVec));
    return;
  }
#pragma unroll
  for (int c = kFirst; c < kEnd; ++c) {
    int const i = c * kVec;
    Coord<2> const x = crd(i);
    // Elements of the chunk inside the matrix, along the contiguous mode (the other mode's
    // coordinate is the same for all of them). Extents are below 2^31 (the launcher checks).
    int const room = int(x[1 - kUnit]) < int(extent[1 - kUnit]) ? int(extent[kUnit]) - int(x[kUnit]) : 0;
    int const valid = room < 0 ? 0 : room > kVec ? kVec : room;
    std::uint16_t const* const p = valid > 0 ? &src(i) : any;
    std::uint32_t const d = smem_address(dst, i);
    if (kBytes == 16 || bytes == 16) {
      cp_async<16>(d, p, 2 * valid);
    } else if (bytes == 8) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        int const v = valid - 4 * j;
        cp_async<8>(smem_address(dst, i + 4 * j), v > 0 ? &src(i + 4 * j) : any, v <= 0 ? 0 : v >= 4 ? 8 : 2 * v);
      }
    } else if (bytes == 4) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        int const v = valid - 2 * j;
        cp_async<4>(smem_address(dst, i + 2 * j), v > 0 ? &src(i + 2 * j) : any, v <= 0 ? 0 : v >= 2 ? 4 : 2);
      }
    } else {  // 2-byte aligned only: plain loads, stored before the stage's barrier like the rest
#pragma unroll
      for (int e = 0; e < kVec; ++e) dst(i + e) = e < valid ? src(i + e) : std::uint16_t(0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Shared -> registers, and the MMAs
// ---------------------------------------------------------------------------------------------

// k-step kStep of an operand from one shared stage: src is the stage's ((8,R),1,kSteps) part, regs
// the fragment in the copy's order ((4,R),1,kSteps); each ldmatrix.x4 moves one 8-element row per
// thread of four 8x8 matrices into four registers.
template <class Op, int kStep, class Src, class Regs>
__device__ __forceinline__ void copy_s2r(Src const& src, Regs const& regs) {
#pragma unroll
  for (int r = 0; r < Op::kLdsmPerStep; ++r)
    ldmatrix_x4<!Op::kKMajor>(regs(4 * r, 0, kStep), regs(4 * r + 1, 0, kStep), regs(4 * r + 2, 0, kStep),
                              regs(4 * r + 3, 0, kStep), smem_address(src, 8 * r, 0, kStep));
}

// The MMAs of k-step kStep: atom (i, j) accumulates A atom i times B atom j, i outer.
template <class Cfg, bool kBf16, int kStep, class Acc, class RA, class RB>
__device__ __forceinline__ void mma_step(Acc& acc, RA const& ra, RB const& rb) {
#pragma unroll
  for (int i = 0; i < Cfg::kAtomsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kAtomsN; ++j)
      mma_16816<kBf16>(acc(0, i, j), acc(1, i, j), acc(2, i, j), acc(3, i, j), ra(0, i, kStep), ra(1, i, kStep),
                       ra(2, i, kStep), ra(3, i, kStep), rb(0, j, kStep), rb(1, j, kStep));
}

// ---------------------------------------------------------------------------------------------
// Kernel
// ---------------------------------------------------------------------------------------------

// The kernel's arguments: A and B as global tensors, with the static unit stride on their
// contiguous modes; C and D by pointer (their dtype is a run-time choice), (m, n) with n contiguous.
template <class Cfg>
struct Params {
  GmemTensor<std::uint16_t const, 2, Cfg::A::kUnit> a;  // (m, k)
  GmemTensor<std::uint16_t const, 2, Cfg::B::kUnit> b;  // (n, k)
  void const* c;
  void* d;
  Coord<2> cd_shape;    // (M, N)
  i64 ldd;              // the stride of m in C and D
  float alpha, beta;
  int tiles_m, tiles_n;
  int bytes_a, bytes_b;
  DType out;
  bool pair_d;
};

// kFast: both operands take 16-byte copies; otherwise each takes its width from args.
template <class Cfg, bool kBf16, bool kFast>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm) gemm_sm80_kernel(Params<Cfg> const args) {
  using A = typename Cfg::A;
  using B = typename Cfg::B;
  constexpr int kStages = Cfg::kStages, kSteps = Cfg::kSteps;
  constexpr int kParts = kSteps > 1 ? kSteps - 1 : 1;  // a tile's copies go out over the first steps
  extern __shared__ __align__(128) std::uint16_t smem[];
  int const tid = int(threadIdx.x);

  // Grouped rasterization (see the header): consecutive CTAs walk kGroupM tile rows column by column.
  int const tile = int(blockIdx.x), per_group = kGroupM * args.tiles_n;
  int const first_m = tile / per_group * kGroupM, in_group = tile % per_group;
  int const rows = ::min(args.tiles_m - first_m, kGroupM);
  int const m = first_m + in_group % rows, n = in_group / rows;

  auto const& mA = args.a;  // (M,K)
  auto const& mB = args.b;  // (N,K)
  auto gA = local_tile<A::kTile>(mA, m, _);  // (BM,BK,k)
  auto gB = local_tile<B::kTile>(mB, n, _);  // (BN,BK,k)
  auto cA = local_tile<A::kTile>(make_identity_tensor(shape(mA)), m, _);  // (BM,BK,k) -> (m,k)
  auto cB = local_tile<B::kTile>(make_identity_tensor(shape(mB)), n, _);  // (BN,BK,k) -> (n,k)
  auto sA = make_tensor<A::kSmem>(SwizzledPtrEngine<std::uint16_t, A::kSwizzle>{smem});  // (BM,BK,PIPE)
  auto sB = make_tensor<B::kSmem>(SwizzledPtrEngine<std::uint16_t, B::kSwizzle>{smem + cosize(A::kSmem).v});

  auto tAgA = partition_S<A::kG2S, Offsets::kTabulated>(gA, tid);  // (CPY,CPY_M,CPY_K,k)
  auto tAcA = partition_S<A::kG2S, Offsets::kTabulated>(cA, tid);
  auto tAsA = partition_D<A::kG2S>(sA, tid);  // (CPY,CPY_M,CPY_K,PIPE)
  auto tBgB = partition_S<B::kG2S, Offsets::kTabulated>(gB, tid);
  auto tBcB = partition_S<B::kG2S, Offsets::kTabulated>(cB, tid);
  auto tBsB = partition_D<B::kG2S>(sB, tid);

  auto tCsA = partition_S<A::kS2R>(sA, tid);  // ((8,4),1,2,PIPE)
  auto tCsB = partition_S<B::kS2R>(sB, tid);
  Fragment<std::uint32_t, A::kRegs> tCrA;     // ((1,2,2),4,2): the MMA's A registers, a whole k tile
  Fragment<std::uint32_t, B::kRegs> tCrB;     // ((1,2),8,2)
  auto tCrA_copy = make_tensor<A::kRegsCopy>(PtrEngine<std::uint32_t>{tCrA.data});  // ((4,4),1,2)
  auto tCrB_copy = make_tensor<B::kRegsCopy>(PtrEngine<std::uint32_t>{tCrB.data});
  Fragment<float, Cfg::kAcc> acc;             // ((2,2),4,8), laid out as partition_C
#pragma unroll
  for (int i = 0; i < int(decltype(acc)::kSize); ++i) acc.data[i] = 0.f;

  int const k_tiles = int((shape(mA)[1] + Cfg::kBK - 1) / Cfg::kBK);
  // The k tiles that lie inside K, when the CTA's tile lies inside M and N; their copies need no
  // predicates (0 otherwise). The branch on it is uniform across the CTA.
  bool const inside = elem_less(cA(kBM - 1, 0, 0), shape(mA)) && elem_less(cB(kBN - 1, 0, 0), shape(mB));
  int const whole_tiles = inside ? int(shape(mA)[1] / Cfg::kBK) : 0;
  // The global tiles the copies read, one k tile after the other: tAgA(_,_,_,kt) for the next kt.
  auto tAgA_k = walk_last_mode(tAgA, 0);
  auto tBgB_k = walk_last_mode(tBgB, 0);
  // Part `part` of k tile `kt`'s copies (kParts parts), into `stage`.
  auto load = [&](auto part, int stage, int kt, auto whole_) {
    constexpr int kP = decltype(part)::value;
    constexpr bool kWhole = decltype(whole_)::value;
    copy_g2s<A, kFast ? 16 : 0, A::kChunks * kP / kParts, A::kChunks * (kP + 1) / kParts>(
        tAgA_k.view, tAcA(_, _, _, kt), tAsA(_, _, _, stage), shape(mA), mA.engine.ptr, args.bytes_a, kWhole);
    copy_g2s<B, kFast ? 16 : 0, B::kChunks * kP / kParts, B::kChunks * (kP + 1) / kParts>(
        tBgB_k.view, tBcB(_, _, _, kt), tBsB(_, _, _, stage), shape(mB), mB.engine.ptr, args.bytes_b, kWhole);
    if constexpr (kP == kParts - 1) {
      tAgA_k.next();
      tBgB_k.next();
    }
  };
  auto load_all = [&](int stage, int kt) {
    [&]<int... kP>(std::integer_sequence<int, kP...>) {
      (load(std::integral_constant<int, kP>{}, stage, kt, std::false_type{}), ...);
    }(std::make_integer_sequence<int, kParts>{});
  };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_all(s, s);
    cp_async_commit();  // empty groups too, so that wait_group counts tiles
  }

  // k-step `step` of the tile in `stage` into the registers.
  auto frags = [&](auto step, int stage) {
    constexpr int kS = decltype(step)::value;
    copy_s2r<A, kS>(tCsA(_, _, _, stage), tCrA_copy);
    copy_s2r<B, kS>(tCsB(_, _, _, stage), tCrB_copy);
  };

  cp_async_wait<kStages - 2>();
  __syncthreads();
  frags(std::integral_constant<int, 0>{}, 0);

  bool more = kStages - 1 < k_tiles;  // is there a tile kt+kStages-1 to copy?
  // One k-step of 16 of tile kt, in stage `rd`: the registers of the next step (of the next tile,
  // after the last step) are loaded before this step's MMAs, and so are this tile's share of the
  // copies of tile kt+kStages-1, into stage `wr`, which every warp finished reading before the
  // last barrier.
  auto step = [&](auto s_, auto whole_, int kt, int rd, int wr) {
    constexpr int s = decltype(s_)::value;
    int from = rd;
    if constexpr (s == kSteps - 1) {
      // Tile kt+1 has landed, and every warp is done with the stage the next copies overwrite.
      cp_async_wait<kStages - 2>();
      __syncthreads();
      from = rd + 1 == kStages ? 0 : rd + 1;
    }
    frags(std::integral_constant<int, (s + 1) % kSteps>{}, from);
    if constexpr (s < kParts) {
      if (more) load(std::integral_constant<int, s>{}, wr, kt + kStages - 1, whole_);
      if constexpr (s == kParts - 1) cp_async_commit();
    }
    mma_step<Cfg, kBf16, s>(acc, tCrA, tCrB);
  };
  auto tile_steps = [&](auto whole_, int kt, int rd, int wr) {
    [&]<int... kS>(std::integer_sequence<int, kS...>) {
      (step(std::integral_constant<int, kS>{}, whole_, kt, rd, wr), ...);
    }(std::make_integer_sequence<int, kSteps>{});
  };
  int kt = 0, read = 0, write = kStages - 1;  // the ring buffer: the stages tile kt is read from and tile kt+kStages-1 written to
  auto advance = [&] {
    read = read + 1 == kStages ? 0 : read + 1;
    write = write + 1 == kStages ? 0 : write + 1;
  };
  // While the tiles being copied lie inside the matrix, a loop whose copies take no predicates:
  // the predicated copies cost as many issue slots as the MMAs they feed (measured: 20% of the
  // speed at 4096^3 on the H100). (Unrolling it over the stages, to make the stage offsets
  // constants, measured no faster.)
  more = true;
  for (int const end = whole_tiles - (kStages - 1); kt < end; ++kt) {
    tile_steps(std::true_type{}, kt, read, write);
    advance();
  }
  for (; kt < k_tiles; ++kt) {
    more = kt + kStages - 1 < k_tiles;
    tile_steps(std::false_type{}, kt, read, write);
    advance();
  }
  cp_async_wait<0>();

  EpilogueArgs const ep{args.c, args.d, args.cd_shape, args.ldd, args.alpha, args.beta, args.pair_d};
  switch (args.out) {
    case DType::f32: store_d<Cfg::kMma, Cfg::kTileC, float>(ep, acc, m, n, tid); break;
    case DType::f16: store_d<Cfg::kMma, Cfg::kTileC, __half>(ep, acc, m, n, tid); break;
    case DType::bf16: store_d<Cfg::kMma, Cfg::kTileC, __nv_bfloat16>(ep, acc, m, n, tid); break;
  }
}

// ---------------------------------------------------------------------------------------------
// Launcher
// ---------------------------------------------------------------------------------------------

template <class Cfg, bool kBf16, bool kFast>
cudaError_t launch_kernel(Args const& args, cudaStream_t stream) {
  auto* kernel = gemm_sm80_kernel<Cfg, kBf16, kFast>;
  static std::atomic<std::uint64_t> attr_set{0};  // per device: kernels/per_device.hpp
  if (cudaError_t const e = once_per_device(attr_set, [&] {
        return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes);
      });
      e != cudaSuccess)
    return e;
  // The launcher (gemm_sm80.cu) chose the majornesses by which stride is 1.
  auto gmem = [](void const* p, GmemShape const& g, auto unit) {
    return make_gmem_tensor<decltype(unit)::value>(static_cast<std::uint16_t const*>(p), Coord<2>{{g.shape[0], g.shape[1]}},
                                                   Coord<2>{{g.stride[0], g.stride[1]}});
  };
  Params<Cfg> p{gmem(args.a, args.ga, std::integral_constant<int, Cfg::A::kUnit>{}),
                gmem(args.b, args.gb, std::integral_constant<int, Cfg::B::kUnit>{}),
                args.c,
                args.d,
                Coord<2>{{args.gd.shape[0], args.gd.shape[1]}},
                args.gd.stride[0],
                args.alpha,
                args.beta,
                int((args.ga.shape[0] + kBM - 1) / kBM),
                int((args.gb.shape[0] + kBN - 1) / kBN),
                args.bytes_a,
                args.bytes_b,
                args.out,
                args.pair_d};
  unsigned const grid = unsigned(p.tiles_m) * unsigned(p.tiles_n);
  kernel<<<grid, kThreads, Cfg::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

template <bool kAK, bool kBK, bool kBF16>
cudaError_t launch_majors(Args const& args, bool fast, cudaStream_t stream) {
  using Cfg = Config<kAK, kBK>;
  return fast ? launch_kernel<Cfg, kBF16, true>(args, stream) : launch_kernel<Cfg, kBF16, false>(args, stream);
}

}  // namespace loom::sm80

// One instance's explicit instantiation (the generated translation units expand it).
#define LOOM_SM80_INSTANTIATE(AK, BK, BF16) \
  namespace loom::sm80 {                    \
  template cudaError_t launch_majors<AK, BK, BF16>(Args const&, bool, cudaStream_t); \
  }
