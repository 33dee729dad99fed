// sm80: D = alpha*A*B + beta*C on tensor cores with mma.sync.m16n8k16 (SM80+, so it runs on A100
// and H100). A and B are fp16 or bf16, accumulation is fp32, and C/D are fp16, bf16 or fp32
// (Problem::out_dtype). Every operand is row- or column-major with its own leading dimension; C may
// alias D. Any M, N, K >= 1.
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
// Pipeline: 4 shared stages filled by cp.async (16 bytes, .cg) with one commit group per k tile;
// the CTA waits for the oldest stage with wait_group(stages-2) and one __syncthreads per k tile.
// Register fragments are double-buffered across the two k-steps of a tile: the ldmatrix of step
// s+1 (or of the next tile) is issued before the MMAs of step s, and the next tile's global copies
// go out with the first k-step. While the tiles being copied lie wholly inside the matrix, the
// copies take no predicates; the last tiles and the edge CTAs use zero-filling cp.async. Rows or
// leading dimensions that are not 16-byte aligned take 8- or 4-byte cp.async or 2-byte loads,
// chosen per operand by the launcher; those instantiations share everything else.
//
// Epilogue: straight from the accumulators, two neighbouring columns per store (4 or 8 bytes) where
// aligned, predicated at the edges; beta == 0 never reads C. CTAs walk the tiles in groups of 16
// tile rows, so that the CTAs in flight share A and B panels in L2.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kernels/numeric.cuh"
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"
#include "layout/swizzle.hpp"
#include "layout/tensor.hpp"

namespace loom {
namespace {

// Two CTAs of 4 warps per SM: each warp's 64x64 accumulators take most of 255 registers, and
// two independent CTAs keep the tensor pipe busy while one of them waits at its barrier.
constexpr int kThreads = 128;
constexpr int kMinBlocksPerSm = 2;

// One operand's (kMN, kBK) shared tile: its swizzled layout, the cp.async copy that fills it and the
// ldmatrix copy that empties it into the MMA fragments of one k-step.
template <int kMN, int kBK_, bool kKMajor_, class Mma>
struct OperandConfig {
  static constexpr bool kKMajor = kKMajor_;
  static constexpr bool kIsA = Mma::kIsA;
  static constexpr int kBK = kBK_;
  static constexpr int kSmemElems = kMN * kBK;

  // 8 rows of 16-byte chunks per swizzle period: chunk c of row r lands in bank group c ^ (r % 8)
  // (for 64-byte k-major rows, two rows share a 128-byte line and the pattern is (r / 2) % 4).
  static constexpr Swizzle kSwizzle = make_swizzle(kKMajor && kBK == 32 ? 2 : 3, 3, 3);
  static constexpr Layout kSmem =
      kKMajor ? make_layout(make_shape(kMN, kBK), LayoutRight{})
              : blocked_product(make_layout(make_shape(64, 8)), make_layout(make_shape(kMN / 64, kBK / 8)));
  static_assert(kSmemElems % swizzle_period(kSwizzle) == 0, "stages must start on a swizzle period");

  // Global -> shared: each thread moves 8-element chunks along the contiguous mode.
  static constexpr TiledCopy kG2S =
      kKMajor ? make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(kThreads / (kBK / 8), kBK / 8), LayoutRight{}),
                                make_layout(make_shape(1, 8)))
              : make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(kMN / 8, kThreads / (kMN / 8))),
                                make_layout(make_shape(8, 1)));
  static constexpr TiledCopy::Partition kG2SIdx = kG2S.partition_S(make_layout(make_shape(kMN, kBK)));
  static constexpr TiledCopy::Partition kG2SSts = kG2S.partition_D(kSmem);
  static constexpr Layout kTileMN = make_layout(make_shape(kMN, kBK), make_stride(1, 0));
  static constexpr Layout kTileK = make_layout(make_shape(kMN, kBK), make_stride(0, 1));
  static constexpr int kChunks = int(size(kG2SIdx.layout).v) / 8;

  // Shared -> registers.
  static constexpr TiledCopy kS2R = kIsA ? make_tiled_copy_A(copy_atom_ldsm(4, !kKMajor), Mma::kMma)
                                         : make_tiled_copy_B(copy_atom_ldsm(4, !kKMajor), Mma::kMma);
  static constexpr TiledCopy::Partition kLdsm = kS2R.partition_S(kSmem);  // ((8, rest), 1, k-steps)
  // One k-step's fragment, as the TiledMMA lays it out, and the same registers in the copy's order.
  static constexpr Layout kFrag = make_layout(shape(
      kIsA ? Mma::kMma.partition_A(make_layout(make_shape(kMN, 16))).layout
           : Mma::kMma.partition_B(make_layout(make_shape(kMN, 16))).layout));
  static constexpr Layout kFragCopy = kS2R.retile(kFrag);
  static constexpr int kFragRegs = int(size(kFrag).v) / 2;  // 32-bit registers: element pairs
  static constexpr int kLdsmPerStep = int(size(get(kLdsm.layout, 0)).v) / 8;
  static constexpr int kSteps = kBK / 16;
  static constexpr int kAtoms = int(size(get(kFrag, 1)).v);  // MMA atoms along mn per warp

  // The static layouts above evaluated at every index the kernel's unrolled loops use, by the
  // front end. (nvcc also folds L(i) at an unrolled i, but only after unrolling the loops over L's
  // node arrays; for this kernel's thousand-odd evaluations that took cicc minutes per
  // instantiation, against seconds for these tables.)
  struct Tables {
    int chunk_mn[kChunks], chunk_k[kChunks];  // chunk c's tile coordinates relative to the thread's
    int chunk_sts[kChunks];                   // and its shared offset (before the swizzle)
    int ldsm[kSteps][kLdsmPerStep];           // ldmatrix r of k-step s: shared offset
    int copy_reg[kLdsmPerStep][4];            // its 4 registers' places in the fragment
    int frag_reg[kAtoms];                     // atom i's first register in the fragment
  };
  static constexpr Tables make_tables() {
    Tables t{};
    for (int c = 0; c < kChunks; ++c) {
      i64 const d = kG2SIdx.layout(8 * c);
      t.chunk_mn[c] = int(kTileMN(d));
      t.chunk_k[c] = int(kTileK(d));
      t.chunk_sts[c] = int(kG2SSts.layout(8 * c));
    }
    for (int s = 0; s < kSteps; ++s)
      for (int r = 0; r < kLdsmPerStep; ++r) t.ldsm[s][r] = int(kLdsm.layout(8 * r, 0, s));
    for (int r = 0; r < kLdsmPerStep; ++r)
      for (int j = 0; j < 4; ++j) t.copy_reg[r][j] = int(kFragCopy(8 * r + 2 * j) / 2);
    for (int i = 0; i < kAtoms; ++i) t.frag_reg[i] = int(kFrag(0, i, 0) / 2);
    return t;
  }
  static constexpr Tables kTab = make_tables();

  // A constant offset c added to a thread's offset x before the swizzle: swz(x + c) is
  // (swz(x) ^ lo) + hi, hi being c's whole swizzle periods and lo the rest, when lo only has bits the
  // swizzle writes (and never reads) and no thread's x has them. Then each access costs an XOR and
  // an add on the thread's swizzled offset instead of a swizzle.
  static constexpr bool splits(TiledCopy::Partition const& p, i64 c) {
    i64 const lo = c % swizzle_period(kSwizzle);
    if ((lo & ~kSwizzle.zzz_mask()) != 0) return false;
    for (int t = 0; t < kThreads; ++t)
      if ((p.offset(t) & lo) != 0) return false;
    return true;
  }

  static constexpr bool valid() {
    for (int c = 0; c < kChunks; ++c)
      if (!splits(kG2SSts, kG2SSts.layout(8 * c))) return false;
    for (int r = 0; r < kLdsmPerStep; ++r)
      for (int s = 0; s < kSteps; ++s)
        if (!splits(kLdsm, kLdsm.layout(8 * r, 0, s))) return false;
    // Each chunk is 8 consecutive elements along the contiguous mode, in shared memory as in the tile.
    for (int c = 0; c < kChunks; ++c)
      for (int v = 0; v < 8; ++v) {
        i64 const d = kG2SIdx.layout(8 * c + v) - kG2SIdx.layout(8 * c);
        if (d != (kKMajor ? v * kMN : v) || kG2SSts.layout(8 * c + v) - kG2SSts.layout(8 * c) != v) return false;
      }
    // Chunk coordinates are the thread's plus the chunk's: no carries between the modes.
    for (int t = 0; t < kThreads; ++t)
      for (int c = 0; c < kChunks; ++c) {
        i64 const b = kG2SIdx.offset(t), d = kG2SIdx.layout(8 * c);
        if (kTileMN(b + d) != kTileMN(b) + kTileMN(d) || kTileK(b + d) != kTileK(b) + kTileK(d)) return false;
      }
    // ldmatrix: every thread's 8 source elements are one 16-byte row; the registers of one ldmatrix
    // are element pairs of the fragment.
    for (int r = 0; r < kLdsmPerStep; ++r)
      for (int v = 0; v < 8; ++v) {
        if (kLdsm.layout(8 * r + v) != kLdsm.layout(8 * r) + v) return false;
        if (v % 2 == 1 && kFragCopy(8 * r + v) != kFragCopy(8 * r + v - 1) + 1) return false;
        if (v % 2 == 0 && kFragCopy(8 * r + v) % 2 != 0) return false;
      }
    return kChunks * 8 * kThreads == kSmemElems && size(kFragCopy) == size(kFrag) &&
           rank(kLdsm.layout) == 3 && size(get(kLdsm.layout, 2)).v == kSteps;
  }
  static_assert(valid());
};

// The TiledMMA: 2x2 warps of m16n8k16, each warp a contiguous 64x64 block of the 128x128 tile.
struct MmaConfig {
  static constexpr int kBM = 128, kBN = 128;
  static constexpr TiledMMA kMma = make_tiled_mma(
      mma_atom_sm80_16x8x16(), make_layout(make_shape(2, 2, 1)),
      make_tile(make_layout(make_shape(16, 2, 4), make_stride(1, 64, 16)),
                make_layout(make_shape(8, 2, 8), make_stride(1, 64, 8)), 16));
  static_assert(kMma.size() == kThreads && kMma.tile_size_mnk(0) == kBM && kMma.tile_size_mnk(1) == kBN);
};
struct MmaA : MmaConfig { static constexpr bool kIsA = true; };
struct MmaB : MmaConfig { static constexpr bool kIsA = false; };

// k tiles of 32 in 4 stages (measured against 64 in 3, 32 in 3 and 5: no faster, or slower).
template <bool kAKMajor, bool kBKMajor, int kBK_ = 32, int kStages_ = 4>
struct Config {
  static constexpr int kBM = MmaConfig::kBM, kBN = MmaConfig::kBN, kBK = kBK_, kStages = kStages_;
  static constexpr int kGroupM = 16;  // tile rows per group of the rasterization
  static constexpr TiledMMA kMma = MmaConfig::kMma;
  using A = OperandConfig<kBM, kBK, kAKMajor, MmaA>;
  using B = OperandConfig<kBN, kBK, kBKMajor, MmaB>;
  static constexpr TiledMMA::Partition kPartC = kMma.partition_C(make_layout(make_shape(kBM, kBN)));
  static constexpr Layout kAcc = make_layout(shape(kPartC.layout));  // ((2,2), 4, 8)
  static constexpr Layout kTileM = make_layout(make_shape(kBM, kBN), make_stride(1, 0));
  static constexpr Layout kTileN = make_layout(make_shape(kBM, kBN), make_stride(0, 1));
  static constexpr int kSmemBytes = kStages * (A::kSmemElems + B::kSmemElems) * 2;
  static constexpr int kPairs = int(size(kAcc).v) / 2;
  static constexpr int kAtomsM = int(size(get(kAcc, 1)).v), kAtomsN = int(size(get(kAcc, 2)).v);

  // Front-end evaluations for the epilogue and the MMAs (see OperandConfig::Tables).
  struct Tables {
    int pair[kPairs];                    // accumulator pair p (values 2p, 2p+1): tile index past the thread's
    int acc[kAtomsM][kAtomsN];           // atom (i, j)'s first accumulator
  };
  static constexpr Tables make_tables() {
    Tables t{};
    for (int p = 0; p < kPairs; ++p) t.pair[p] = int(kPartC.layout(2 * p));
    for (int i = 0; i < kAtomsM; ++i)
      for (int j = 0; j < kAtomsN; ++j) t.acc[i][j] = int(kAcc(0, i, j));
    return t;
  }
  static constexpr Tables kTab = make_tables();

  static constexpr bool valid() {
    // Accumulator values 2j and 2j+1 are neighbouring columns (one 4- or 8-byte store), and an
    // atom's A, B and C values are contiguous in their fragments, in the PTX operand order.
    for (int i = 0; i < int(size(kAcc).v); i += 2)
      if (kPartC.layout(i + 1) != kPartC.layout(i) + kBM || kAcc(i + 1) != kAcc(i) + 1) return false;
    return rank(kAcc) == 3 && size(get(kAcc, 0)).v == 4 && size(get(A::kFrag, 0)).v == 8 &&
           size(get(B::kFrag, 0)).v == 4 && get(kAcc, 0) == make_layout(make_shape(2, 2)) &&
           stride(get(A::kFrag, 0)) == make_stride(1, 2, 4) && stride(get(B::kFrag, 0)) == make_stride(1, 2);
  }
  static_assert(valid());
};

// Device copies of the static layouts: nvcc folds every evaluation of these to constants.
template <class Op> __device__ constexpr TiledCopy::Partition kG2SIdx = Op::kG2SIdx;
template <class Op> __device__ constexpr TiledCopy::Partition kG2SSts = Op::kG2SSts;
template <class Op> __device__ constexpr TiledCopy::Partition kLdsm = Op::kLdsm;
template <class Op> __device__ constexpr Layout kTileMN = Op::kTileMN;
template <class Op> __device__ constexpr Layout kTileK = Op::kTileK;
template <class Cfg> __device__ constexpr TiledMMA::Partition kPartC = Cfg::kPartC;
template <class Cfg> __device__ constexpr Layout kTileM = Cfg::kTileM;
template <class Cfg> __device__ constexpr Layout kTileN = Cfg::kTileN;
template <class X> __device__ constexpr typename X::Tables kTab = X::kTab;

struct GemmArgs {
  void const* a;        // (m, k) after the transposition for a column-major D
  void const* b;        // (n, k)
  void const* c;
  void* d;
  DynamicLayout<2> ga;  // (m, k) -> offset in A
  DynamicLayout<2> gb;  // (n, k) -> offset in B
  DynamicLayout<2> gd;  // (m, n) -> offset in C and D; n is contiguous
  float alpha, beta;
  int tiles_m, tiles_n;
  int bytes_a, bytes_b;  // copy width of each operand when not 16 (8, 4 or 2)
  DType out;
  bool pair_d;           // C and D take one store per two neighbouring columns
};

// ---------------------------------------------------------------------------------------------
// PTX
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ std::uint32_t smem_addr(void const* p) {
  return std::uint32_t(__cvta_generic_to_shared(p));
}

// cp.async of kBytes; bytes past src_bytes (0 .. kBytes) are zero-filled and not read.
template <int kBytes>
__device__ __forceinline__ void cp_async(std::uint32_t dst, void const* src, int src_bytes) {
  if constexpr (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(kBytes), "r"(src_bytes));
}
// 16 bytes, all of them read.
__device__ __forceinline__ void cp_async_16(std::uint32_t dst, void const* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory"); }

template <bool kTrans>
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  if constexpr (kTrans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

template <bool kBf16>
__device__ __forceinline__ void mma_16816(float* d, std::uint32_t const* a, std::uint32_t const* b) {
  if constexpr (kBf16)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The swizzle on 32-bit shared offsets (elements), and a thread's swizzled offset x moved by a
// constant c that OperandConfig::splits() has checked.
template <class Op>
__device__ __forceinline__ int swizzled(int x) {
  constexpr int kMask = int(Op::kSwizzle.yyy_mask()), kShift = Op::kSwizzle.shift;
  return x ^ ((x & kMask) >> kShift);
}
template <class Op>
__device__ __forceinline__ int swizzled_plus(int sx, int c) {
  constexpr int kPeriod = int(swizzle_period(Op::kSwizzle));
  return (sx ^ (c % kPeriod)) + (c - c % kPeriod);
}

// ---------------------------------------------------------------------------------------------
// Global -> shared
// ---------------------------------------------------------------------------------------------

// A thread's copies of one operand: its first chunk, and how much of the matrix lies ahead of that
// chunk along mn and k. The other chunks are at constant tile offsets from the first.
template <class Op>
struct G2S {
  std::uint16_t const* ptr;  // the first chunk in the current k tile
  int mn_room, k_room;
  int sts;                   // the first chunk's swizzled shared offset
  i64 ld;                    // the stride of the operand's other mode (the contiguous one's is 1)

  __device__ __forceinline__ G2S(std::uint16_t const* src, DynamicLayout<2> const& g, i64 mn0) {
    int const t = int(kG2SIdx<Op>.offset(threadIdx.x));
    int const mn = int(kTileMN<Op>(t)), k = int(kTileK<Op>(t));
    ptr = src + g(mn0 + mn, k);
    mn_room = int(g.shape[0] - mn0 - mn);
    k_room = int(g.shape[1] - k);
    sts = swizzled<Op>(int(kG2SSts<Op>.offset(threadIdx.x)));
    ld = Op::kKMajor ? g.stride[0] : g.stride[1];
  }
  // Offset of the chunk at tile offset (dmn, dk) from the first: the launcher has made the
  // contiguous mode's stride 1, which the general layout evaluation cannot know.
  __device__ __forceinline__ i64 offset(int dmn, int dk) const {
    return Op::kKMajor ? dmn * ld + dk : dk * ld + dmn;
  }
  __device__ __forceinline__ void next() {
    ptr += offset(0, Op::kBK);
    k_room -= Op::kBK;
  }
};

// Copies the thread's chunks of the current k tile into one shared stage. kBytes is the copy width:
// 16, or 0 for the operand's width in `bytes` (16, 8, 4 or 2). A chunk holds `valid` elements of
// the matrix (0 past an edge); cp.async zero-fills the rest.
template <class Op, int kBytes, int kFirst, int kEnd>
__device__ __forceinline__ void load_tile(G2S<Op> const& g2s, std::uint16_t* stage, std::uint16_t const* src,
                                          int bytes, bool whole) {
  std::uint32_t const dst0 = smem_addr(stage);
  if (kBytes == 16 && whole) {  // the CTA's whole tile lies inside the matrix: no predicates
#pragma unroll
    for (int c = kFirst; c < kEnd; ++c)
      cp_async_16(dst0 + 2 * swizzled_plus<Op>(g2s.sts, kTab<Op>.chunk_sts[c]),
                  g2s.ptr + g2s.offset(kTab<Op>.chunk_mn[c], kTab<Op>.chunk_k[c]));
    return;
  }
#pragma unroll
  for (int c = kFirst; c < kEnd; ++c) {
    int const dmn = kTab<Op>.chunk_mn[c], dk = kTab<Op>.chunk_k[c];
    int const mn_room = g2s.mn_room - dmn, k_room = g2s.k_room - dk;
    int const room = Op::kKMajor ? (mn_room > 0 ? k_room : 0) : (k_room > 0 ? mn_room : 0);
    int const valid = room < 0 ? 0 : room > 8 ? 8 : room;
    // Past the edge nothing is read, but the address must still be a global one.
    std::uint16_t const* const in = g2s.ptr + g2s.offset(dmn, dk);
    std::uint16_t const* const p = valid > 0 ? in : src;
    int const off = swizzled_plus<Op>(g2s.sts, kTab<Op>.chunk_sts[c]);
    std::uint32_t const dst = dst0 + 2 * off;
    if (kBytes == 16 || bytes == 16) {
      cp_async<16>(dst, p, 2 * valid);
    } else if (bytes == 8) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        int const v = valid - 4 * j;
        cp_async<8>(dst + 8 * j, v > 0 ? p + 4 * j : src, v <= 0 ? 0 : v >= 4 ? 8 : 2 * v);
      }
    } else if (bytes == 4) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        int const v = valid - 2 * j;
        cp_async<4>(dst + 4 * j, v > 0 ? p + 2 * j : src, v <= 0 ? 0 : v >= 2 ? 4 : 2);
      }
    } else {  // 2-byte aligned only: plain loads, stored before the stage's barrier like the rest
#pragma unroll
      for (int e = 0; e < 8; ++e) stage[off + e] = e < valid ? p[e] : std::uint16_t(0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Shared -> registers
// ---------------------------------------------------------------------------------------------

// One k-step of an operand's fragments from a shared stage: kLdsmPerStep ldmatrix.x4, whose four
// registers go where the copy's retiled view of the fragment puts them.
template <class Op>
__device__ __forceinline__ void load_frag(std::uint32_t (&f)[Op::kFragRegs], std::uint32_t stage, int thr, int step) {
#pragma unroll
  for (int r = 0; r < Op::kLdsmPerStep; ++r) {
    std::uint32_t x[4];
    ldmatrix_x4<!Op::kKMajor>(x, stage + 2 * swizzled_plus<Op>(thr, kTab<Op>.ldsm[step][r]));
#pragma unroll
    for (int j = 0; j < 4; ++j) f[kTab<Op>.copy_reg[r][j]] = x[j];
  }
}

// ---------------------------------------------------------------------------------------------
// Epilogue
// ---------------------------------------------------------------------------------------------

template <class T> struct Pair;
template <> struct Pair<float> { using type = float2; };
template <> struct Pair<__half> { using type = __half2; };
template <> struct Pair<__nv_bfloat16> { using type = __nv_bfloat162; };

template <class T>
__device__ __forceinline__ typename Pair<T>::type pair_from(float x, float y) {
  if constexpr (std::is_same_v<T, float>) return make_float2(x, y);
  else if constexpr (std::is_same_v<T, __half>) return __floats2half2_rn(x, y);
  else return __floats2bfloat162_rn(x, y);
}
template <class T>
__device__ __forceinline__ float2 pair_to(typename Pair<T>::type v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else if constexpr (std::is_same_v<T, __half>) return __half22float2(v);
  else return __bfloat1622float2(v);
}

// D = alpha*acc + beta*C over the thread's fragment, two neighbouring columns at a time.
template <class Cfg, class T>
__device__ __forceinline__ void store_d(GemmArgs const& args, float const (&acc)[Cfg::kPairs * 2], i64 m0, i64 n0) {
  T* d = static_cast<T*>(args.d);
  T const* c = static_cast<T const*>(args.c);
  DynamicLayout<2> const& gd = args.gd;
  int const base = int(kPartC<Cfg>.offset(threadIdx.x));
  float const alpha = args.alpha, beta = args.beta;
#pragma unroll
  for (int p = 0; p < Cfg::kPairs; ++p) {
    int const t = base + kTab<Cfg>.pair[p];
    i64 const m = m0 + kTileM<Cfg>(t), n = n0 + kTileN<Cfg>(t);
    float x = alpha * acc[2 * p], y = alpha * acc[2 * p + 1];
    if (args.pair_d && gd.contains(m, n + 1)) {
      i64 const o = gd(m, n);
      if (beta != 0.f) {  // beta == 0: C is not read (it may hold NaNs), as in BLAS
        float2 const cv = pair_to<T>(*reinterpret_cast<typename Pair<T>::type const*>(c + o));
        x += beta * cv.x, y += beta * cv.y;
      }
      *reinterpret_cast<typename Pair<T>::type*>(d + o) = pair_from<T>(x, y);
    } else {
      if (gd.contains(m, n)) {
        i64 const o = gd(m, n);
        d[o] = from_f32<T>(beta != 0.f ? x + beta * to_f32(c[o]) : x);
      }
      if (gd.contains(m, n + 1)) {
        i64 const o = gd(m, n + 1);
        d[o] = from_f32<T>(beta != 0.f ? y + beta * to_f32(c[o]) : y);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Kernel
// ---------------------------------------------------------------------------------------------

// kFast: both operands take 16-byte copies; otherwise each takes its width from args.
template <class Cfg, bool kBf16, bool kFast>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm) gemm_sm80_kernel(GemmArgs const args) {
  using A = typename Cfg::A;
  using B = typename Cfg::B;
  constexpr int kStages = Cfg::kStages, kSteps = A::kSteps;
  constexpr int kParts = kSteps > 1 ? kSteps - 1 : 1;  // a tile's copies go out over the first steps
  extern __shared__ __align__(128) std::uint16_t smem[];
  std::uint16_t* const sa = smem;
  std::uint16_t* const sb = smem + kStages * A::kSmemElems;

  // Grouped rasterization: consecutive CTAs walk kGroupM tile rows column by column.
  int const tile = int(blockIdx.x), per_group = Cfg::kGroupM * args.tiles_n;
  int const first_m = tile / per_group * Cfg::kGroupM, in_group = tile % per_group;
  int const rows = ::min(args.tiles_m - first_m, Cfg::kGroupM);
  i64 const m0 = i64(first_m + in_group % rows) * Cfg::kBM, n0 = i64(in_group / rows) * Cfg::kBN;

  auto const* a = static_cast<std::uint16_t const*>(args.a);
  auto const* b = static_cast<std::uint16_t const*>(args.b);
  G2S<A> ga(a, args.ga, m0);
  G2S<B> gb(b, args.gb, n0);
  int const k_tiles = int((args.ga.shape[1] + Cfg::kBK - 1) / Cfg::kBK);
  // The k tiles that lie inside K, when the CTA's tile lies inside M and N; their copies need no
  // predicates (0 otherwise). The branch on it is uniform across the CTA.
  bool const inside = m0 + Cfg::kBM <= args.ga.shape[0] && n0 + Cfg::kBN <= args.gb.shape[0];
  int const whole_tiles = inside ? int(args.ga.shape[1] / Cfg::kBK) : 0;
  // Part `part` of the next k tile's copies (kParts parts), into `stage`.
  auto load = [&](auto part, int stage, auto whole_) {
    constexpr int kP = decltype(part)::value;
    constexpr bool kWhole = decltype(whole_)::value;
    load_tile<A, kFast ? 16 : 0, A::kChunks * kP / kParts, A::kChunks * (kP + 1) / kParts>(
        ga, sa + stage * A::kSmemElems, a, args.bytes_a, kWhole);
    load_tile<B, kFast ? 16 : 0, B::kChunks * kP / kParts, B::kChunks * (kP + 1) / kParts>(
        gb, sb + stage * B::kSmemElems, b, args.bytes_b, kWhole);
    if constexpr (kP == kParts - 1) {
      ga.next();
      gb.next();
    }
  };
  auto load_all = [&](int stage) {
    [&]<int... kP>(std::integer_sequence<int, kP...>) {
      (load(std::integral_constant<int, kP>{}, stage, std::false_type{}), ...);
    }(std::make_integer_sequence<int, kParts>{});
  };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_all(s);
    cp_async_commit();  // empty groups too, so that wait_group counts tiles
  }

  float acc[Cfg::kPairs * 2];  // the accumulators, laid out by kAcc
#pragma unroll
  for (int i = 0; i < Cfg::kPairs * 2; ++i) acc[i] = 0.f;

  std::uint32_t fa[2][A::kFragRegs], fb[2][B::kFragRegs];
  int const la = swizzled<A>(int(kLdsm<A>.offset(threadIdx.x))), lb = swizzled<B>(int(kLdsm<B>.offset(threadIdx.x)));
  std::uint32_t const sa0 = smem_addr(sa), sb0 = smem_addr(sb);
  auto frags = [&](int stage, int step, int buf) {
    load_frag<A>(fa[buf], sa0 + 2 * stage * A::kSmemElems, la, step);
    load_frag<B>(fb[buf], sb0 + 2 * stage * B::kSmemElems, lb, step);
  };

  cp_async_wait<kStages - 2>();
  __syncthreads();
  frags(0, 0, 0);

  bool more = kStages - 1 < k_tiles;  // is there a tile kt+kStages-1 to copy?
  // One k-step of 16 of the tile in stage `rd`: the fragments of the next step (of the next tile,
  // after the last step) go out before this step's MMAs, and so do this tile's share of the copies
  // of tile kt+kStages-1, into stage `wr`, which every warp finished reading before the last
  // barrier. rd and wr are ints, or integral_constants where the loop is unrolled over the stages.
  auto step = [&](auto s_, auto whole_, auto rd, auto wr) {
    constexpr int s = decltype(s_)::value;
    int from = rd;
    if constexpr (s == kSteps - 1) {
      // Tile kt+1 has landed, and every warp is done with the stage the next copies overwrite.
      cp_async_wait<kStages - 2>();
      __syncthreads();
      from = rd + 1 == kStages ? 0 : rd + 1;
    }
    frags(from, (s + 1) % kSteps, (s + 1) % 2);
    if constexpr (s < kParts) {
      if (more) load(std::integral_constant<int, s>{}, wr, whole_);
      if constexpr (s == kParts - 1) cp_async_commit();
    }
#pragma unroll
    for (int i = 0; i < Cfg::kAtomsM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kAtomsN; ++j)
        mma_16816<kBf16>(&acc[kTab<Cfg>.acc[i][j]], &fa[s % 2][kTab<A>.frag_reg[i]], &fb[s % 2][kTab<B>.frag_reg[j]]);
  };
  auto tile_steps = [&](auto whole_, auto rd, auto wr) {
    [&]<int... kS>(std::integer_sequence<int, kS...>) {
      (step(std::integral_constant<int, kS>{}, whole_, rd, wr), ...);
    }(std::make_integer_sequence<int, kSteps>{});
  };
  int kt = 0, read = 0, write = kStages - 1;
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
    tile_steps(std::true_type{}, read, write);
    advance();
  }
  for (; kt < k_tiles; ++kt) {
    more = kt + kStages - 1 < k_tiles;
    tile_steps(std::false_type{}, read, write);
    advance();
  }
  cp_async_wait<0>();

  switch (args.out) {
    case DType::f32: store_d<Cfg, float>(args, acc, m0, n0); break;
    case DType::f16: store_d<Cfg, __half>(args, acc, m0, n0); break;
    case DType::bf16: store_d<Cfg, __nv_bfloat16>(args, acc, m0, n0); break;
  }
}

// ---------------------------------------------------------------------------------------------
// Launcher
// ---------------------------------------------------------------------------------------------

// The widest copy (16, 8, 4 or 2 bytes) that keeps every 8-element chunk of the operand aligned:
// the base pointer and the stride between its rows (when there is more than one) must allow it.
int copy_bytes(void const* p, DynamicLayout<2> const& g) {
  bool const k_major = g.stride[1] == 1;
  i64 const ld = k_major ? g.stride[0] : g.stride[1];
  i64 const rows = k_major ? g.shape[0] : g.shape[1];
  auto const addr = reinterpret_cast<std::uintptr_t>(p);
  for (int w : {16, 8, 4})
    if (addr % w == 0 && (rows == 1 || (2 * ld) % w == 0)) return w;
  return 2;
}

template <class Cfg, bool kBf16, bool kFast>
cudaError_t launch_kernel(GemmArgs const& args, cudaStream_t stream) {
  auto* kernel = gemm_sm80_kernel<Cfg, kBf16, kFast>;
  static cudaError_t const attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes);
  if (attr != cudaSuccess) return attr;
  unsigned const grid = unsigned(args.tiles_m) * unsigned(args.tiles_n);
  kernel<<<grid, kThreads, Cfg::kSmemBytes, stream>>>(args);
  return cudaGetLastError();
}

template <bool kAK, bool kBK>
cudaError_t launch_majors(GemmArgs const& args, bool bf16, bool fast, cudaStream_t stream) {
  using Cfg = Config<kAK, kBK>;
  if (bf16) return fast ? launch_kernel<Cfg, true, true>(args, stream) : launch_kernel<Cfg, true, false>(args, stream);
  return fast ? launch_kernel<Cfg, false, true>(args, stream) : launch_kernel<Cfg, false, false>(args, stream);
}

cudaError_t launch(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  void const* a = ops.a;
  void const* b = ops.b;
  DynamicLayout<2> ga = operand_layout(p.a, p.lda, p.m, p.k, false);  // A(m, k)
  DynamicLayout<2> gb = operand_layout(p.b, p.ldb, p.n, p.k, true);   // B(k, n) as (n, k)
  DynamicLayout<2> gd = operand_layout(p.c, p.ldc, p.m, p.n, false);
  if (p.c == Order::col) {  // D^T = B^T A^T: D^T is row-major
    std::swap(a, b);
    std::swap(ga, gb);
    gd = operand_layout(p.c, p.ldc, p.n, p.m, true);
  }
  using Cfg = Config<true, true>;
  GemmArgs args{};
  args.a = a, args.b = b, args.c = ops.c, args.d = ops.d;
  args.ga = ga, args.gb = gb, args.gd = gd;
  args.alpha = float(p.alpha), args.beta = float(p.beta);
  args.tiles_m = int((ga.shape[0] + Cfg::kBM - 1) / Cfg::kBM);
  args.tiles_n = int((gb.shape[0] + Cfg::kBN - 1) / Cfg::kBN);
  args.bytes_a = copy_bytes(a, ga);
  args.bytes_b = copy_bytes(b, gb);
  args.out = p.out_dtype;
  std::size_t const es = size_of(p.out_dtype);
  auto aligned = [&](void const* q) { return reinterpret_cast<std::uintptr_t>(q) % (2 * es) == 0; };
  args.pair_d = aligned(ops.d) && (p.beta == 0 || aligned(ops.c)) && (gd.shape[0] == 1 || gd.stride[0] % 2 == 0);

  bool const bf16 = p.dtype == DType::bf16, fast = args.bytes_a == 16 && args.bytes_b == 16;
  bool const ak = ga.stride[1] == 1, bk = gb.stride[1] == 1;
  if (ak && bk) return launch_majors<true, true>(args, bf16, fast, stream);
  if (ak) return launch_majors<true, false>(args, bf16, fast, stream);
  if (bk) return launch_majors<false, true>(args, bf16, fast, stream);
  return launch_majors<false, false>(args, bf16, fast, stream);
}

std::string check(Problem const& p) {
  if (std::max({p.m, p.n, p.k}) > 0x7fffffff - 256) return "M, N and K must be below 2^31";
  i64 const tiles = (p.m + 127) / 128 * ((p.n + 127) / 128);
  if (tiles > 0x7fffffff) return "too many 128x128 tiles for the grid";
  return {};
}

}  // namespace

KernelInfo sm80_kernel_info() {
  return {"sm80", OpKind::gemm, {DType::f16, DType::bf16}, 80,
          "tensor-core mma.sync m16n8k16, ldmatrix, 4-stage cp.async, 128x128x32 tiles; fp32 accumulation",
          check, launch};
}

}  // namespace loom
