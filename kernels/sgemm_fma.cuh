// fma: D = alpha*A*B + beta*C in fp32 on the FFMA pipe (no tensor cores, no TF32), tuned. A (MxK),
// B (KxN) and C/D (MxN) are each row- or column-major with their own leading dimension; C may alias
// D. kernels/sgemm_fma_simple.cu is the same design without the tuning.
//
// Files: this header holds the configurations and the kernel; launch_majorness<kAK, kBKc> is
// instantiated once per majorness of A and B (k-contiguous or not) in a generated translation unit
// (kernels/CMakeLists.txt's loom_instances(sgemm_fma ...)), so that no translation unit takes long
// to build; sgemm_fma.cu has the launcher (plan, D^T swap, split of K) and the registration.
//
// Problem: the kernel sees A as (m,k) and B as (n,k), each either mn- or k-contiguous in global
// memory, and D as (m,n), contiguous along m or n. The launcher may compute D^T = B^T A^T instead,
// which swaps the roles of M and N, when that tiles the problem better (small M). Majorness is a
// template parameter: A and B are GmemTensor<float const, 2, kUnit> with the static unit stride on
// the contiguous mode, so offsets along it cost no multiply. C and D are one tensor over two
// pointers (rebind below; they share ldc); the split's beta*C pass also takes them with the unit
// stride on their contiguous mode.
//
// Tiling: a CTA of 16x16 threads owns a 128x128 or a 256x128 tile of D and walks K in steps of 8.
// A TiledMMA of the scalar FMA atom with M and N permuted by (16,4):(4,1) gives each thread 8x8
// (or 16x8) accumulators in runs of 4, so that its operands for one k are 2+2 (or 4+2) float4
// reads from shared memory; a warp is 8x4 of the 16x16 threads, so each read touches 8 or 4
// distinct float4 (one wavefront). (8x4 measured 2-3% faster than 4x8 on every shape of the
// default sweep, and 2x16 5% slower.) Shared tiles are (mn,k,stage) with mn contiguous (A
// "K-major": a thread's M fragment is a float4), rows padded by 4 floats, which makes the
// transposing stores of a k-contiguous operand conflict-free. A TiledCopy moves each operand tile
// as float4 along whichever mode is contiguous in global memory: 16-byte loads when the rows are
// 16-byte aligned, else (and at the matrix edges) predicated scalar loads.
//
// Data path (layout/tensor.hpp), as in fma_simple: mA -> gA = local_tile(mA, (BM,BK), (m,_)) ->
// tAgA = partition_S(copy, gA) (CPY,CPY_M,CPY_K,k) -> registers -> tAsA = partition_D(copy, sA)
// (CPY,CPY_M,CPY_K,stage); sA -> tCsA = partition_A(mma, sA) (MMA,MMA_M,MMA_K,stage) -> register
// fragments; the accumulators -> tCgD = partition_C(mma, local_tile(mD, (BM,BN), (m,n))). The CTA's
// origin is local_tile's; every thread's position comes from the partitions. Identity tensors
// (make_identity_tensor(shape(mA)), tiled and partitioned the same way) give the coordinates that
// predicate the edges, and the corner tests that pick the fast path. Static checks (valid() below)
// prove from the layouts that each float4 is 4 contiguous, 16-byte aligned elements.
//
// Pipeline: two shared stages and a register prefetch. While the CTA computes k tile t from one
// stage, its threads hold tile t+1 in registers; they store it to the other stage at the last k
// of tile t, sync once, and read the first fragments of tile t+1 before the last FMAs of tile t.
// Fragments are double-buffered in registers too: the reads for k+1 go out before the FMAs of k.
// The loop body is one k tile: unrolling two (to make the stage index a constant) overflowed the
// instruction cache and cost 10% on the H100.
//
// Shapes: 128x128 tiles run 2 CTAs per SM (128 registers a thread), 256x128 tiles one (up to 255
// registers); both reach about 49 TFLOP/s on full H100 waves. The launcher picks the tile and a
// split of K by a model of waves x k tiles per CTA: a split fills the SMs when the tiles are few
// (M=128, N=K=8192 has 32 tiles of 256x128 for 132 SMs, computing D^T) or evens out the last wave.
// With a split, a first kernel writes D = beta*C and each CTA adds alpha*A*B over its k tiles with
// atomics (16-byte reductions on sm_90); CTA z of the split takes the k tiles [z*k_tiles,
// (z+1)*k_tiles) of gA and gB, i.e. the slices gA(_,_,kt) of those kt.
//
// What is still written by hand, and why:
// - The 16-byte accesses: the core has no vectorizing copy, so a float4 is a reinterpret_cast of
//   the reference to its first element (vec4 below; the static checks prove the other three
//   follow it and that it is aligned). The transposing stores of a k-contiguous operand are 4
//   scalar stores of the float4's lanes.
// - The walk over k tiles: walk_last_mode(tAgA, kt0) (added to layout/tensor.hpp for this) is
//   tAgA(_,_,_,kt0) whose next() moves it one k tile. tAgA(_,_,_,kt) in the loop recomputed the
//   base's offset from its coordinate every tile (a 64-bit multiply by the leading dimension that
//   NVVM does not strength-reduce), and the extra live values spilled 24-60 bytes in every
//   128x128 kernel; the walker folds the base into the pointer once and adds one precomputed step
//   per tile, as the old per-vector pointers did. The identity tensors walk the same way.
// - The range of k tiles of a split, [kt0, kt1), is index arithmetic on the k-tile index (CuTe's
//   k_tile_start), and the loop counts tiles with it.
// - The fast-path test `whole`: the CTA's tiles lie inside along m and n (tested once from the
//   identity tensors' corners) and the k tile along k; the k test compares the corner's k
//   coordinate in 32 bits (check() keeps K below 2^31), one compare per tile as before, where the
//   64-bit compare of the coordinate cost five uniform instructions a tile.
// - The stage mode of the shared layouts has an extent marked dynamic (dyn(2)), which keeps it out
//   of the layout's table: selecting a stage at run time is one multiply.
// - The launcher (sgemm_fma.cu) is host code: the plan, the swap to D^T = B^T A^T, the grid.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/operand_layout.hpp"
#include "kernels/problem.hpp"
#include "kernels/sgemm_fma_instances.inc"
#include "layout/tensor.hpp"

namespace loom {
namespace sgemm_fma {

constexpr int kBK = 8;
constexpr int kPad = 4;     // floats of padding per shared row of kMN: keeps rows 16-byte aligned
constexpr int kStages = 2;  // shared buffers

// A matrix as the kernel sees it: (x, y) of extents (nx, ny), x its row index unless transposed.
struct MatrixView {
  void const* ptr;
  Order order;
  i64 ld, nx, ny;
  bool transposed;

  bool y_contiguous() const { return !x_contiguous(order, transposed); }
  // As a GmemTensor with the static unit stride on mode kUnit (-1: none).
  template <int kUnit, class T>
  GmemTensor<T, 2, kUnit> tensor() const {
    return operand_tensor<kUnit>(static_cast<T*>(const_cast<void*>(ptr)), order, ld, nx, ny, transposed);
  }
};

// The problem as the kernel computes it (after a swap, D^T = B^T A^T).
struct KernelProblem {
  MatrixView a, b, c;  // (m,k), (n,k), (m,n); D has C's layout
  void* d;
  float alpha, beta;
  int k_tiles;  // k tiles per CTA along blockIdx.z (all of them unless K is split)
  int d_unit;   // the contiguous mode of C and D: 0 (m) or 1 (n)
  bool vec_c;   // C and D take 16-byte accesses along that mode
};

// The fma kernels of one majorness (A k-contiguous or not, then B), one generated translation unit
// each: the tile bm x 128 (256 only with 16-byte loads), with or without 16-byte loads, over
// `split` slices of K.
template <bool kAK, bool kBKc>
cudaError_t launch_majorness(KernelProblem const& p, int bm, bool vec, i64 split, cudaStream_t s);
#define LOOM_SGEMM_FMA_EXTERN(AK, BK) \
  extern template cudaError_t launch_majorness<AK, BK>(KernelProblem const&, int, bool, i64, cudaStream_t);
LOOM_SGEMM_FMA_INSTANCES(LOOM_SGEMM_FMA_EXTERN)
#undef LOOM_SGEMM_FMA_EXTERN
// D = beta*C over the bm x 128 tiles, before the slices of a split add their parts.
cudaError_t launch_scale(KernelProblem const& p, int bm, cudaStream_t s);

// The value of layout l at flat index i, as a coordinate (l has basis strides), at compile time.
constexpr Coord<2> crd_at(Layout const& l, i64 i) { return crd2idx_flat<Coord<2>>(i, l.shape, l.stride); }

// One operand's (kMN, kBK) tile: its global tensor type, its shared layout and the copy that fills
// it, one float4 per thread along the mode that is contiguous in global memory.
template <int kMN, int kThreads, bool kKContig_>
struct OperandConfig {
  static constexpr bool kKContig = kKContig_;
  static constexpr int kUnit = kKContig ? 1 : 0;  // the mode of stride 1 in global memory
  using Gmem = GmemTensor<float const, 2, kUnit>;
  static constexpr Tile kTile = make_tile(kMN, kBK);
  // (mn,k,stage), mn contiguous, each k row padded by kPad. The stage mode's extent is marked
  // dynamic, which keeps it out of the layout's table: selecting a stage is one multiply.
  static constexpr int kStageSize = (kBK - 1) * (kMN + kPad) + kMN;
  static constexpr Layout kSmem =
      make_layout(make_shape(kMN, kBK, dyn(kStages)), make_stride(1, kMN + kPad, kStageSize));
  static constexpr TiledCopy kCopy =
      kKContig ? make_tiled_copy(copy_atom(4), make_layout(make_shape(kMN, kThreads / kMN), LayoutRight{}),
                                 make_layout(make_shape(1, 4)))
               : make_tiled_copy(copy_atom(4), make_layout(make_shape(kMN / 4, 4 * kThreads / kMN)),
                                 make_layout(make_shape(4, 1)));
  // The copy of a coordinate tile (mn,k):(1@0,1@1) and of the shared stages, for the checks below.
  static constexpr TiledCopy::Partition kCrd =
      kCopy.partition_S(make_layout(make_shape(kMN, kBK), make_stride(basis(0), basis(1))));
  static constexpr TiledCopy::Partition kSts = kCopy.partition_D(kSmem);
  static constexpr int kVecs = int(size(kCrd.layout).v) / 4;

  static constexpr bool valid() {
    // Each group of 4 values of a thread is one float4: 4 consecutive elements along the mode that
    // is contiguous in global memory, the first at a multiple of 4 there; in shared memory 4
    // consecutive floats at a 16-byte boundary (mn-contiguous), or 4 rows (k-contiguous). Values
    // and thread offsets are checked apart (the offsets at multiples of 4), which suffices.
    for (int v = 0; v < 4 * kVecs; ++v) {
      Coord<2> c = crd_at(kCrd.layout, v / 4 * 4);
      if (c[kUnit] % 4 != 0) return false;
      c[kUnit] += v % 4;
      if (!(crd_at(kCrd.layout, v) == c)) return false;
      i64 const s0 = kSts.layout(v / 4 * 4);
      if (kSts.layout(v) != s0 + v % 4 * (kKContig ? kMN + kPad : 1) || (!kKContig && s0 % 4 != 0)) return false;
    }
    for (int tid = 0; tid < kThreads; ++tid)
      if (kCrd.offset<Coord<2>>(tid)[kUnit] % 4 != 0 || (!kKContig && kSts.offset(tid) % 4 != 0)) return false;
    return size(kCrd.layout).v * kThreads == kMN * kBK && kStageSize % 4 == 0;
  }
  static_assert(valid());
};

// kBM x kBN tiles (each 128 or 256) on 16x16 threads, each holding (kBM/16) x (kBN/16) accumulators
// as runs of 4 along m and n; kAK / kBKc: A / B k-contiguous in global memory. A warp's lanes are
// kLM x (32/kLM) of the 16x16 threads, so that its fragment reads are few distinct float4.
template <int kBM_, int kBN_, bool kAK, bool kBKc, int kLM = 8>
struct FmaConfig {
  static constexpr int kBM = kBM_, kBN = kBN_, kThreads = 256;
  static constexpr int kFM = kBM / 16, kFN = kBN / 16;  // accumulators per thread along m and n
  // 128 registers per thread for 8x8 accumulators (2 CTAs per SM), up to 255 for 16x8.
  static constexpr int kMinBlocks = kFM * kFN <= 64 ? 2 : 1;
  static constexpr int kLN = 32 / kLM, kWM = 16 / kLM, kWN = 16 / kLN;
  static constexpr TiledMMA kMma = make_tiled_mma(
      mma_atom_fma(),
      make_layout(make_shape(make_shape(kLM, kWM), make_shape(kLN, kWN), 1),
                  make_stride(make_stride(kLN, 32), make_stride(1, 32 * kWM), 0)),
      make_tile(make_layout(make_shape(16, 4), make_stride(4, 1)), make_layout(make_shape(16, 4), make_stride(4, 1)), _));
  using A = OperandConfig<kBM, kThreads, kAK>;
  using B = OperandConfig<kBN, kThreads, kBKc>;
  static constexpr Tile kTileC = make_tile(kBM, kBN);
  // For the checks below and the accumulators' shape.
  static constexpr TiledMMA::Partition kPartA = kMma.partition_A(A::kSmem);  // (1,(4,kFM/4),kBK,stage)
  static constexpr TiledMMA::Partition kPartB = kMma.partition_B(B::kSmem);  // (1,(4,kFN/4),kBK,stage)
  static constexpr TiledMMA::Partition kPartCm = kMma.partition_C(make_layout(make_shape(kBM, kBN)));
  static constexpr TiledMMA::Partition kPartCn = kMma.partition_C(make_layout(make_shape(kBM, kBN), LayoutRight{}));
  static constexpr Layout kAcc = make_layout(shape(kPartCm.layout));  // (1,(4,kFM/4),(4,kFN/4))

  static constexpr bool valid() {
    // A thread's fragments are runs of 4 consecutive floats at 16-byte boundaries: the operands in
    // shared memory along m (n), and the accumulators in D along m, or along n when D is row-major.
    // Values and thread offsets are checked apart (the offsets at multiples of 4), which suffices.
    for (int k = 0; k < kBK; ++k) {
      for (int i = 0; i < kFM; ++i) {
        i64 const s0 = kPartA.layout(0, i / 4 * 4, k, 0);
        if (kPartA.layout(0, i, k, 0) != s0 + i % 4 || s0 % 4 != 0) return false;
      }
      for (int j = 0; j < kFN; ++j) {
        i64 const s0 = kPartB.layout(0, j / 4 * 4, k, 0);
        if (kPartB.layout(0, j, k, 0) != s0 + j % 4 || s0 % 4 != 0) return false;
      }
    }
    for (int i = 0; i < kFM; ++i)
      for (int j = 0; j < kFN; ++j) {
        i64 const m0 = kPartCm.layout(0, i / 4 * 4, j), n0 = kPartCn.layout(0, i, j / 4 * 4);
        if (kPartCm.layout(0, i, j) != m0 + i % 4 || m0 % 4 != 0) return false;
        if (kPartCn.layout(0, i, j) != n0 + j % 4 || n0 % 4 != 0) return false;
      }
    for (int tid = 0; tid < kThreads; ++tid)
      if (kPartA.offset(tid) % 4 || kPartB.offset(tid) % 4 || kPartCm.offset(tid) % 4 || kPartCn.offset(tid) % 4)
        return false;
    return kMma.size() == kThreads && size(kAcc).v == kFM * kFN;
  }
  static_assert(valid());
};

// The kernel's parameters: A as (m,k) and B as (n,k), each with the static unit stride on its
// contiguous mode; D as (m,n), whose unit stride is mode d_unit, and C as D's tensor over C's
// pointer (rebind below).
template <class Cfg>
struct GemmArgs {
  typename Cfg::A::Gmem a;  // (m,k)
  typename Cfg::B::Gmem b;  // (n,k)
  GmemTensor<float, 2> d;   // (m,n)
  float const* c;
  float alpha, beta;
  int k_tiles;  // k tiles per CTA along blockIdx.z (all of them unless K is split)
  int d_unit;   // the contiguous mode of C and D: 0 (m) or 1 (n)
  bool vec_c;   // C and D take 16-byte accesses along it
};

template <class Cfg>
GemmArgs<Cfg> make_args(KernelProblem const& p) {
  return {p.a.tensor<Cfg::A::kUnit, float const>(), p.b.tensor<Cfg::B::kUnit, float const>(),
          MatrixView{p.d, p.c.order, p.c.ld, p.c.nx, p.c.ny, p.c.transposed}.tensor<-1, float>(),
          static_cast<float const*>(p.c.ptr), p.alpha, p.beta, p.k_tiles, p.d_unit, p.vec_c};
}

// t's extents, strides and base over pointer ptr, with the static unit stride on mode kUnit (t's
// stride there must be 1): C as D's tensor (they share ldc), so that each offset is computed once
// for both, and either as the tensor of its majorness, so that offsets along it cost no multiply.
template <int kUnit, class T, class U, int R, int K>
LOOM_HD GmemTensor<T, R, kUnit> rebind(GmemTensor<U, R, K> const& t, T* ptr) {
  return {{ptr, t.engine.shape, t.engine.stride}, t.base};
}

// Element i of t and the three after it, as one float4 (the static checks say that they are
// contiguous and 16-byte aligned).
template <class T>
__device__ __forceinline__ auto& vec4(T const& t, int i) {
  using V = std::conditional_t<std::is_const_v<std::remove_reference_t<decltype(t(i))>>, float4 const, float4>;
  return reinterpret_cast<V&>(t(i));
}

// Global -> registers: one k tile of the thread's copy partition, g (CPY,CPY_M,CPY_K), and its
// coordinates c. `whole`: the CTA's tile lies inside the matrix and is 16-byte aligned, so every
// vector is one 16-byte load (uniform across the CTA; false only at the matrix edges or without
// alignment). The branch on it also keeps the loads in a basic block of their own at the top of
// the k tile: when they shared one with the FMAs, ptxas sank them two thirds of the way down the
// tile under register pressure, exposing their latency (-10% on the H100). Otherwise each vector
// is checked by the coordinate of its last element, and loaded whole or element by element.
template <bool kVec, class G, class Cr, class F>
__device__ __forceinline__ void load_gmem(G const& g, Cr const& c, Coord<2> const& extent, bool whole, F& r) {
  constexpr int kVecs = int(F::kSize) / 4;
  if (whole) {
#pragma unroll
    for (int w = 0; w < kVecs; ++w) {
      float4 const v = vec4(g, 4 * w);
      r(4 * w + 0) = v.x, r(4 * w + 1) = v.y, r(4 * w + 2) = v.z, r(4 * w + 3) = v.w;
    }
    return;
  }
#pragma unroll
  for (int w = 0; w < kVecs; ++w) {
    if (kVec && elem_less(c(4 * w + 3), extent)) {
      float4 const v = vec4(g, 4 * w);
      r(4 * w + 0) = v.x, r(4 * w + 1) = v.y, r(4 * w + 2) = v.z, r(4 * w + 3) = v.w;
    } else {
#pragma unroll
      for (int v = 0; v < 4; ++v) r(4 * w + v) = elem_less(c(4 * w + v), extent) ? g(4 * w + v) : 0.f;
    }
  }
}

// Registers -> one shared stage s (CPY,CPY_M,CPY_K): a float4 store per vector when mn is the
// contiguous mode in global memory; else the vector runs along k, and goes out as 4 scalar stores
// (conflict-free thanks to the padding).
template <bool kKContig, class S, class F>
__device__ __forceinline__ void store_smem(S const& s, F const& r) {
  constexpr int kVecs = int(F::kSize) / 4;
#pragma unroll
  for (int w = 0; w < kVecs; ++w) {
    if constexpr (!kKContig) {
      vec4(s, 4 * w) = make_float4(r(4 * w + 0), r(4 * w + 1), r(4 * w + 2), r(4 * w + 3));
    } else {
#pragma unroll
      for (int v = 0; v < 4; ++v) s(4 * w + v) = r(4 * w + v);
    }
  }
}

// A thread's operand values for one k, from s (MMA,MMA_M) of the MMA partition of a shared stage:
// runs of 4, one float4 read each.
template <class S, class F>
__device__ __forceinline__ void load_frag(F& f, S const& s) {
#pragma unroll
  for (int r = 0; r < int(F::kSize) / 4; ++r) {
    float4 const v = vec4(s, 4 * r);
    f(4 * r + 0) = v.x, f(4 * r + 1) = v.y, f(4 * r + 2) = v.z, f(4 * r + 3) = v.w;
  }
}

// D = alpha*acc + beta*C over the thread's fragment (args: GemmArgs or ScaleArgs); with kAtomic,
// D += alpha*acc instead. The fragment is runs of 4 consecutive accumulators along m and along n;
// kAlongN: D is n-contiguous, and the runs along n, else those along m, go out as float4 when D
// takes 16-byte accesses (args.vec_c) and the run lies inside; otherwise element by element.
template <class Cfg, bool kAtomic, bool kStaticUnit, bool kAlongN, class Args>
__device__ __forceinline__ void store_d(Args const& args, Fragment<float, Cfg::kAcc> const& acc) {
  constexpr int kUnitD = !kStaticUnit ? -1 : kAlongN ? 1 : 0;
  int const tid = int(threadIdx.x), m = int(blockIdx.x), n = int(blockIdx.y);
  auto const mD = rebind<kUnitD>(args.d, args.d.engine.ptr);
  auto const mC = rebind<kUnitD>(args.d, args.c);
  auto tCgD = partition_C<Cfg::kMma, Offsets::kTabulated>(local_tile<Cfg::kTileC>(mD, m, n), tid);  // (MMA,MMA_M,MMA_N)
  auto tCgC = partition_C<Cfg::kMma, Offsets::kTabulated>(local_tile<Cfg::kTileC>(mC, m, n), tid);
  auto tCcC = partition_C<Cfg::kMma, Offsets::kTabulated>(local_tile<Cfg::kTileC>(make_identity_tensor(shape(mD)), m, n), tid);
  Coord<2> const extent = shape(mD);
  bool const vec = args.vec_c;
  constexpr int kLines = kAlongN ? Cfg::kFM : Cfg::kFN, kRuns = (kAlongN ? Cfg::kFN : Cfg::kFM) / 4;
#pragma unroll
  for (int l = 0; l < kLines; ++l)
#pragma unroll
    for (int r = 0; r < kRuns; ++r) {
      // Element v of the run, in any of the (MMA,MMA_M,MMA_N) tensors.
      auto at = [&](auto const& t, int v) -> decltype(auto) { return kAlongN ? t(0, l, 4 * r + v) : t(0, 4 * r + v, l); };
      if (vec && elem_less(at(tCcC, 3), extent)) {
        float4 v = make_float4(args.alpha * at(acc, 0), args.alpha * at(acc, 1), args.alpha * at(acc, 2),
                               args.alpha * at(acc, 3));
        float4& d = reinterpret_cast<float4&>(at(tCgD, 0));
        if constexpr (kAtomic) {
#if __CUDA_ARCH__ >= 900
          atomicAdd(&d, v);  // one 16-byte reduction
#else
          atomicAdd(&d.x, v.x), atomicAdd(&d.y, v.y), atomicAdd(&d.z, v.z), atomicAdd(&d.w, v.w);
#endif
        } else {
          if (args.beta != 0.f) {  // beta == 0: C is not read (it may hold NaNs), as in BLAS
            float4 const c = reinterpret_cast<float4 const&>(at(tCgC, 0));
            v.x += args.beta * c.x, v.y += args.beta * c.y, v.z += args.beta * c.z, v.w += args.beta * c.w;
          }
          d = v;
        }
        continue;
      }
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        if (!elem_less(at(tCcC, v), extent)) continue;
        float const x = args.alpha * at(acc, v);
        if (kAtomic) atomicAdd(&at(tCgD, v), x);
        else at(tCgD, v) = x + (args.beta == 0.f ? 0.f : args.beta * at(tCgC, v));
      }
    }
}

template <class Cfg, bool kAtomic, bool kStaticUnit, class Args>
__device__ __forceinline__ void store_d(Args const& args, Fragment<float, Cfg::kAcc> const& acc) {
  if (args.d_unit == 1) store_d<Cfg, kAtomic, kStaticUnit, true>(args, acc);
  else store_d<Cfg, kAtomic, kStaticUnit, false>(args, acc);
}

// One k's FFMAs on the 16x8 fragment of the 256x128 tiles, acc(i, j) += a(i) * b(j): each half of
// the 8 columns in turn, rows outer in a serpentine over all 16, the half's 4 columns serpentine
// within. ptxas schedules the FFMAs and assigns their registers, but the order they are written in
// steers both: how many FFMAs read all three operands from the register file (no operand reuse; two
// in one bank stall at dispatch) and how soon the fragments loaded from shared memory are needed
// (short scoreboard). On an H100 this was the fastest of the fourteen orders measured over three
// rounds: 1% faster than the one before it (halves of the rows in turn, columns outer) at 4096^3 and
// 8192^3 ccc, the same in rcr (docs/tuning/fma.md, fourth round). The 8x8 fragment of the 128x128 tiles
// keeps rows outer, columns inner (the kernel below): no other order was measured for it.
template <class Acc, class FA, class FB>
__device__ __forceinline__ void fma_16x8(Acc& acc, FA const& fa, FB const& fb) {
#pragma unroll
  for (int c = 0; c < 2; ++c)
#pragma unroll
    for (int ii = 0; ii < 16; ++ii) {
      int const i = c % 2 ? 15 - ii : ii;
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        int const j = c * 4 + (ii % 2 ? 3 - jj : jj);
        acc(0, i, j) += fa(0, i) * fb(0, j);
      }
    }
}

template <class Cfg, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) sgemm_fma_kernel(GemmArgs<Cfg> const args) {
  using A = typename Cfg::A;
  using B = typename Cfg::B;
  __shared__ __align__(16) float smem_a[kStages * A::kStageSize];
  __shared__ __align__(16) float smem_b[kStages * B::kStageSize];
  int const tid = int(threadIdx.x), m = int(blockIdx.x), n = int(blockIdx.y);

  // The CTA's tiles, their coordinates, and the shared stages.
  auto gA = local_tile<A::kTile>(args.a, m, _);                               // (BM,BK,k)
  auto gB = local_tile<B::kTile>(args.b, n, _);                               // (BN,BK,k)
  auto cA = local_tile<A::kTile>(make_identity_tensor(shape(args.a)), m, _);  // (BM,BK,k) -> (m,k)
  auto cB = local_tile<B::kTile>(make_identity_tensor(shape(args.b)), n, _);  // (BN,BK,k) -> (n,k)
  auto sA = make_tensor<A::kSmem>(PtrEngine<float>{smem_a});                  // (BM,BK,stage)
  auto sB = make_tensor<B::kSmem>(PtrEngine<float>{smem_b});                  // (BN,BK,stage)

  // The thread's parts: of the copies global -> shared, and of the MMA.
  auto tAgA = partition_S<A::kCopy, Offsets::kTabulated>(gA, tid);    // (CPY,CPY_M,CPY_K,k)
  auto tAcA = partition_S<A::kCopy, Offsets::kTabulated>(cA, tid);    // (CPY,CPY_M,CPY_K,k) -> (m,k)
  auto tAsA = partition_D<A::kCopy, Offsets::kTabulated>(sA, tid);    // (CPY,CPY_M,CPY_K,stage)
  auto tBgB = partition_S<B::kCopy, Offsets::kTabulated>(gB, tid);
  auto tBcB = partition_S<B::kCopy, Offsets::kTabulated>(cB, tid);
  auto tBsB = partition_D<B::kCopy, Offsets::kTabulated>(sB, tid);
  auto tCsA = partition_A<Cfg::kMma, Offsets::kTabulated>(sA, tid);  // (MMA,MMA_M,MMA_K,stage) = (1,(4,kFM/4),kBK,stage)
  auto tCsB = partition_B<Cfg::kMma, Offsets::kTabulated>(sB, tid);  // (MMA,MMA_N,MMA_K,stage) = (1,(4,kFN/4),kBK,stage)

  // This CTA's slice of the k tiles, [kt0, kt1).
  i64 const k_tiles = (shape(args.a)[1] + kBK - 1) / kBK;
  i64 const kt0 = i64(blockIdx.z) * args.k_tiles, kt1 = ::min(k_tiles, kt0 + args.k_tiles);
  Coord<2> const extent_a = shape(args.a), extent_b = shape(args.b);
  // A k tile is whole when the CTA's tiles lie inside along m and n (interior: their last rows,
  // tested once) and the k tile along k (its last k, in 32 bits: K < 2^31).
  bool const interior = kVec && cA(Cfg::kBM - 1, 0, 0)[0] < extent_a[0] && cB(Cfg::kBN - 1, 0, 0)[0] < extent_b[0];
  auto whole = [&](i64 kt) { return interior && int(cA(0, kBK - 1, kt)[1]) < int(extent_a[1]); };

  Fragment<float, Cfg::kAcc> acc;  // (MMA,MMA_M,MMA_N)
#pragma unroll
  for (int i = 0; i < int(decltype(acc)::kSize); ++i) acc.data[i] = 0.f;

  // The copies' k tiles one after the other from kt0: gk_a.view is tAgA(_,_,_,kt), and so on.
  auto gk_a = walk_last_mode(tAgA, kt0);
  auto gk_b = walk_last_mode(tBgB, kt0);
  auto ck_a = walk_last_mode(tAcA, kt0);
  auto ck_b = walk_last_mode(tBcB, kt0);
  auto ra = make_fragment_like<float>(gk_a.view);  // (CPY,CPY_M,CPY_K)
  auto rb = make_fragment_like<float>(gk_b.view);
  load_gmem<kVec>(gk_a.view, ck_a.view, extent_a, whole(kt0), ra);
  load_gmem<kVec>(gk_b.view, ck_b.view, extent_b, whole(kt0), rb);
  store_smem<A::kKContig>(tAsA(_, _, _, 0), ra);
  store_smem<B::kKContig>(tBsB(_, _, _, 0), rb);
  __syncthreads();

  // The operands of one k, double-buffered: fa[k % 2] (MMA,MMA_M) and fb[k % 2] (MMA,MMA_N).
  decltype(make_fragment_like<float>(tCsA(_, _, 0, 0))) fa[2];
  decltype(make_fragment_like<float>(tCsB(_, _, 0, 0))) fb[2];
  load_frag(fa[0], tCsA(_, _, 0, 0));
  load_frag(fb[0], tCsB(_, _, 0, 0));

  int cur = 0;  // the shared stage of tile kt
  for (i64 kt = kt0; kt < kt1; ++kt, cur ^= 1) {
    // One k tile from shared stage `cur`, with the next tile on its way from global memory
    // (through registers) to the other stage. A loop body of one tile keeps the code within the
    // instruction cache.
    int const nxt = cur ^ 1;
    bool const more = kt + 1 < kt1;
    if (more) {
      gk_a.next(), gk_b.next(), ck_a.next(), ck_b.next();
      load_gmem<kVec>(gk_a.view, ck_a.view, extent_a, whole(kt + 1), ra);
      load_gmem<kVec>(gk_b.view, ck_b.view, extent_b, whole(kt + 1), rb);
    }
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      if (k == kBK - 1 && more) {
        store_smem<A::kKContig>(tAsA(_, _, _, nxt), ra);
        store_smem<B::kKContig>(tBsB(_, _, _, nxt), rb);
        __syncthreads();
      }
      // The next k's fragments, from the other stage after the last k.
      int const stage = k == kBK - 1 ? nxt : cur;
      load_frag(fa[(k + 1) % 2], tCsA(_, _, (k + 1) % kBK, stage));
      load_frag(fb[(k + 1) % 2], tCsB(_, _, (k + 1) % kBK, stage));
      if constexpr (Cfg::kFM == 16 && Cfg::kFN == 8) {
        fma_16x8(acc, fa[k % 2], fb[k % 2]);
      } else {
#pragma unroll
        for (int i = 0; i < Cfg::kFM; ++i)
#pragma unroll
          for (int j = 0; j < Cfg::kFN; ++j) acc(0, i, j) += fa[k % 2](0, i) * fb[k % 2](0, j);
      }
    }
  }

  if (gridDim.z == 1) store_d<Cfg, false, false>(args, acc);
  else store_d<Cfg, true, false>(args, acc);
}

// D = beta*C, before the splits of K add their parts.
struct ScaleArgs {
  GmemTensor<float, 2> d;  // (m,n)
  float const* c;          // with D's layout
  float alpha, beta;
  int d_unit;
  bool vec_c;
};
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) sgemm_scale_kernel(ScaleArgs const args) {
  Fragment<float, Cfg::kAcc> zero;
#pragma unroll
  for (int i = 0; i < int(decltype(zero)::kSize); ++i) zero.data[i] = 0.f;
  store_d<Cfg, false, true>(args, zero);
}

inline dim3 grid_of(KernelProblem const& p, int bm, int bn, i64 split) {
  return {unsigned((p.a.nx + bm - 1) / bm), unsigned((p.b.nx + bn - 1) / bn), unsigned(split)};
}

// The kernels of one majorness; the generated translation units instantiate them.
template <bool kAK, bool kBKc>
cudaError_t launch_majorness(KernelProblem const& p, int bm, bool vec, i64 split, cudaStream_t s) {
  auto go = [&](auto cfg, auto kernel) {
    using Cfg = decltype(cfg);
    kernel<<<grid_of(p, Cfg::kBM, Cfg::kBN, split), Cfg::kThreads, 0, s>>>(make_args<Cfg>(p));
    return cudaGetLastError();
  };
  using C256 = FmaConfig<256, 128, kAK, kBKc>;
  using C128 = FmaConfig<128, 128, kAK, kBKc>;
  if (bm == 256 && vec) return go(C256{}, sgemm_fma_kernel<C256, true>);
  if (vec) return go(C128{}, sgemm_fma_kernel<C128, true>);
  return go(C128{}, sgemm_fma_kernel<C128, false>);  // without 16-byte loads: 128x128 only
}

}  // namespace sgemm_fma
}  // namespace loom

// One instance's explicit instantiation (the generated translation units expand it).
#define LOOM_SGEMM_FMA_INSTANTIATE(AK, BK) \
  namespace loom::sgemm_fma {              \
  template cudaError_t launch_majorness<AK, BK>(KernelProblem const&, int, bool, i64, cudaStream_t); \
  }
