// fma: D = alpha*A*B + beta*C in fp32 on the FFMA pipe (no tensor cores, no TF32), tuned. A (MxK),
// B (KxN) and C/D (MxN) are each row- or column-major with their own leading dimension; C may alias
// D. kernels/sgemm_fma_simple.cu is the same design without the tuning.
//
// Problem: the kernel sees A as (m,k) and B as (n,k), each either mn- or k-contiguous in global
// memory, and D as (m,n), contiguous along m or n. The launcher may compute D^T = B^T A^T instead,
// which swaps the roles of M and N, when that tiles the problem better (small M).
//
// Tiling: a CTA of 16x16 threads owns a 128x128 or a 256x128 tile of D and walks K in steps of 8.
// A TiledMMA of the scalar FMA atom with M and N permuted by (16,4):(4,1) gives each thread 8x8
// (or 16x8) accumulators in runs of 4, so that its operands for one k are 2+2 (or 4+2) float4
// reads from shared memory; a warp is 8x4 of the 16x16 threads, so each read touches 8 or 4
// distinct float4 (one wavefront). (8x4 measured 2-3% faster than 4x8 on every shape of the
// default sweep, and 2x16 5% slower.) Shared tiles are (mn,k) with mn contiguous (A "K-major": a
// thread's M fragment is a float4), rows padded by 4 floats, which makes the transposing stores of
// a k-contiguous operand conflict-free. A TiledCopy moves each operand tile as float4 along
// whichever mode is contiguous in global memory: 16-byte loads when the rows are 16-byte aligned,
// else (and at the matrix edges) predicated scalar loads.
//
// Pipeline: two shared buffers and a register prefetch. While the CTA computes tile t from one
// buffer, its threads hold tile t+1 in registers; they store it to the other buffer at the last k
// of tile t, sync once, and read the first fragments of tile t+1 before the last FMAs of tile t.
// Fragments are double-buffered in registers too: the reads for k+1 go out before the FMAs of k.
// The loop body is one k tile: unrolling two (to make the buffer index a constant) overflowed the
// instruction cache and cost 10% on the H100.
//
// Shapes: 128x128 tiles run 2 CTAs per SM (128 registers a thread), 256x128 tiles one (up to 255
// registers); both reach about 49 TFLOP/s on full H100 waves. The launcher picks the tile and a
// split of K by a model of waves x k tiles per CTA: a split fills the SMs when the tiles are few
// (M=128, N=K=8192 has 32 tiles of 256x128 for 132 SMs, computing D^T) or evens out the last wave.
// With a split, a first kernel writes D = beta*C and each CTA adds alpha*A*B over its K range with
// atomics (16-byte reductions on sm_90).
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"
#include "layout/tensor.hpp"

namespace loom {
namespace {

constexpr int kBK = 8;
constexpr int kPad = 4;  // floats of padding per shared row of kMN: keeps rows 16-byte aligned

struct GemmArgs {
  float const* a;
  float const* b;
  float const* c;
  float* d;
  DynamicLayout<2> ga;  // (m, k) -> offset in A
  DynamicLayout<2> gb;  // (n, k) -> offset in B
  DynamicLayout<2> gc;  // (m, n) -> offset in C and D
  float alpha, beta;
  int k_tiles;          // k tiles per CTA along blockIdx.z (the whole K unless split)
  int vec_c;            // C and D take 16-byte accesses: 0 no, 1 along m, 2 along n
};

// One operand's (kMN, 8) tile: its shared layout and the copy that fills it, one float4 per thread
// along the mode that is contiguous in global memory.
template <int kMN, int kThreads, bool kKContig_>
struct OperandConfig {
  static constexpr bool kKContig = kKContig_;
  static constexpr Layout kSmem = make_layout(make_shape(kMN, kBK), make_stride(1, kMN + kPad));
  static constexpr TiledCopy kCopy =
      kKContig ? make_tiled_copy(copy_atom(4), make_layout(make_shape(kMN, kThreads / kMN), LayoutRight{}),
                                 make_layout(make_shape(1, 4)))
               : make_tiled_copy(copy_atom(4), make_layout(make_shape(kMN / 4, 4 * kThreads / kMN)),
                                 make_layout(make_shape(4, 1)));
  // A thread's elements as indices of the column-major tile, and as shared offsets.
  static constexpr TiledCopy::Partition kIdx = kCopy.partition_S(make_layout(make_shape(kMN, kBK)));
  static constexpr TiledCopy::Partition kSts = kCopy.partition_D(kSmem);
  static constexpr Layout kTileMN = make_layout(make_shape(kMN, kBK), make_stride(1, 0));
  static constexpr Layout kTileK = make_layout(make_shape(kMN, kBK), make_stride(0, 1));
  static constexpr int kVecs = int(size(kIdx.layout).v) / 4;
  static constexpr int kSmemSize = int(cosize(kSmem).v);

  static constexpr bool valid() {  // each float4 is 4 consecutive elements along the contiguous mode
    for (int v = 0; v < 4 * kVecs; ++v) {
      i64 step = kKContig ? kMN : 1, sstep = kKContig ? kMN + kPad : 1;
      if (kIdx.layout(v) != kIdx.layout(v / 4 * 4) + v % 4 * step) return false;
      if (kSts.layout(v) != kSts.layout(v / 4 * 4) + v % 4 * sstep) return false;
    }
    // Coordinates of a vector's elements are the first's plus those of the index difference.
    for (int tid = 0; tid < kThreads; ++tid)
      for (int v = 0; v < 4 * kVecs; ++v) {
        i64 t0 = kIdx.offset(tid) + kIdx.layout(v / 4 * 4), d = kIdx.layout(v) - kIdx.layout(v / 4 * 4);
        if (kTileMN(t0 + d) != kTileMN(t0) + kTileMN(d) || kTileK(t0 + d) != kTileK(t0) + kTileK(d)) return false;
      }
    return size(kIdx.layout).v * kThreads == kMN * kBK;
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
  static constexpr TiledMMA::Partition kPartA = kMma.partition_A(A::kSmem);  // (1,(4,kFM/4),kBK)
  static constexpr TiledMMA::Partition kPartB = kMma.partition_B(B::kSmem);  // (1,(4,kFN/4),kBK)
  static constexpr TiledMMA::Partition kPartC = kMma.partition_C(make_layout(make_shape(kBM, kBN)));
  static constexpr Layout kTileM = make_layout(make_shape(kBM, kBN), make_stride(1, 0));
  static constexpr Layout kTileN = make_layout(make_shape(kBM, kBN), make_stride(0, 1));
  static constexpr Layout kAcc = make_layout(shape(kPartC.layout));

  static constexpr bool valid() {  // fragments are runs of 4 consecutive floats (along m for C)
    for (int k = 0; k < kBK; ++k) {
      for (int i = 0; i < kFM; ++i)
        if (kPartA.layout(0, i, k) != kPartA.layout(0, i / 4 * 4, k) + i % 4) return false;
      for (int j = 0; j < kFN; ++j)
        if (kPartB.layout(0, j, k) != kPartB.layout(0, j / 4 * 4, k) + j % 4) return false;
    }
    for (int i = 0; i < kFM; ++i)
      for (int j = 0; j < kFN; ++j)
        if (kPartC.layout(0, i, j) != kPartC.layout(0, i / 4 * 4, j) + i % 4) return false;
    return kMma.size() == kThreads && size(kAcc).v == kFM * kFN && size(kPartA.layout).v == kFM * kBK &&
           size(kPartB.layout).v == kFN * kBK;
  }
  static_assert(valid());
};

// Device copies of the static layouts: nvcc folds every evaluation of these to constants.
template <class Op> __device__ constexpr TiledCopy::Partition kIdx = Op::kIdx;
template <class Op> __device__ constexpr TiledCopy::Partition kSts = Op::kSts;
template <class Op> __device__ constexpr Layout kTileMN = Op::kTileMN;
template <class Op> __device__ constexpr Layout kTileK = Op::kTileK;
template <class Cfg> __device__ constexpr TiledMMA::Partition kPartA = Cfg::kPartA;
template <class Cfg> __device__ constexpr TiledMMA::Partition kPartB = Cfg::kPartB;
template <class Cfg> __device__ constexpr TiledMMA::Partition kPartC = Cfg::kPartC;
template <class Cfg> __device__ constexpr Layout kTileM = Cfg::kTileM;
template <class Cfg> __device__ constexpr Layout kTileN = Cfg::kTileN;

// The thread's float4s of one operand: pointers to their first elements in the current k tile.
template <class Op>
struct GmemVecs {
  float const* ptr[Op::kVecs];

  __device__ GmemVecs(float const* g, DynamicLayout<2> const& gl, i64 mn0, i64 k0) {
    i64 const base = kIdx<Op>.offset(threadIdx.x);
#pragma unroll
    for (int w = 0; w < Op::kVecs; ++w) {
      i64 const t = base + kIdx<Op>.layout(4 * w);
      ptr[w] = g + gl(mn0 + kTileMN<Op>(t), k0 + kTileK<Op>(t));
    }
  }
  __device__ void next(DynamicLayout<2> const& gl) {
#pragma unroll
    for (int w = 0; w < Op::kVecs; ++w) ptr[w] += gl(0, kBK);
  }
};

// Global -> registers. `whole`: the CTA's tile lies inside the matrix and is 16-byte aligned, so
// every vector is one 16-byte load (uniform across the CTA; false only at the matrix edges or
// without alignment). The branch on it also keeps the loads in a basic block of their own at the
// top of the k tile: when they shared one with the FMAs, ptxas sank them two thirds of the way
// down the tile under register pressure, exposing their latency (-10% on the H100). Otherwise
// each vector is checked against the extents left, mn_left and k_left from the tile's corner, and
// loaded whole or element by element. Offsets within a vector
// are evaluations of the operand's DynamicLayout, read from the kernel's parameters.
template <class Op, bool kVec>
__device__ __forceinline__ void load_gmem(GmemVecs<Op> const& g, DynamicLayout<2> const& gl, bool whole,
                                          i64 mn_left, int k_left, float4 (&r)[Op::kVecs]) {
  if (whole) {
#pragma unroll
    for (int w = 0; w < Op::kVecs; ++w) r[w] = *reinterpret_cast<float4 const*>(g.ptr[w]);
    return;
  }
  i64 const base = kIdx<Op>.offset(threadIdx.x);
#pragma unroll
  for (int w = 0; w < Op::kVecs; ++w) {
    i64 const t = base + kIdx<Op>.layout(4 * w);
    i64 const mn_room = mn_left - kTileMN<Op>(t), k_room = k_left - kTileK<Op>(t);
    // The tile index of element v of the vector, relative to its first: a constant.
    auto d = [w](int v) { return kIdx<Op>.layout(4 * w + v) - kIdx<Op>.layout(4 * w); };
    if (kVec && kTileMN<Op>(d(3)) < mn_room && kTileK<Op>(d(3)) < k_room) {
      r[w] = *reinterpret_cast<float4 const*>(g.ptr[w]);
    } else {
      float e[4];
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        i64 const mn = kTileMN<Op>(d(v)), k = kTileK<Op>(d(v));
        e[v] = mn < mn_room && k < k_room ? g.ptr[w][gl(mn, k)] : 0.f;
      }
      r[w] = make_float4(e[0], e[1], e[2], e[3]);
    }
  }
}

template <class Op>
__device__ __forceinline__ void store_smem(float* s, float4 const (&r)[Op::kVecs]) {
  i64 const base = kSts<Op>.offset(threadIdx.x);
#pragma unroll
  for (int w = 0; w < Op::kVecs; ++w) {
    if constexpr (!Op::kKContig) {
      *reinterpret_cast<float4*>(s + base + kSts<Op>.layout(4 * w)) = r[w];
    } else {  // transposed: 4 scalar stores, conflict-free thanks to the padding
      s[base + kSts<Op>.layout(4 * w + 0)] = r[w].x;
      s[base + kSts<Op>.layout(4 * w + 1)] = r[w].y;
      s[base + kSts<Op>.layout(4 * w + 2)] = r[w].z;
      s[base + kSts<Op>.layout(4 * w + 3)] = r[w].w;
    }
  }
}

// A thread's N operand values for one k: N/4 float4 reads.
template <TiledMMA::Partition P, int N>
__device__ __forceinline__ void load_frag(float (&f)[N], float const* s, int k) {
#pragma unroll
  for (int r = 0; r < N / 4; ++r) {
    float4 const v = *reinterpret_cast<float4 const*>(s + P.layout(0, 4 * r, k));
    f[4 * r + 0] = v.x, f[4 * r + 1] = v.y, f[4 * r + 2] = v.z, f[4 * r + 3] = v.w;
  }
}

// D = alpha*acc + beta*C over the thread's fragment; with kAtomic, D += alpha*acc instead. The
// fragment is runs of 4 consecutive accumulators along m and along n: with kAlongN the runs along
// n, else along m, go out as float4 when D is contiguous that way (args.vec_c) and the run lies
// inside; otherwise element by element.
template <class Cfg, bool kAtomic, bool kAlongN>
__device__ __forceinline__ void store_d(GemmArgs const& args, Fragment<float, Cfg::kAcc> const& acc,
                                        i64 m0, i64 n0) {
  i64 const base = kPartC<Cfg>.offset(threadIdx.x);
  DynamicLayout<2> const& gc = args.gc;
  bool const vec = args.vec_c == (kAlongN ? 2 : 1);
  constexpr int kLines = kAlongN ? Cfg::kFM : Cfg::kFN, kRuns = (kAlongN ? Cfg::kFN : Cfg::kFM) / 4;
#pragma unroll
  for (int l = 0; l < kLines; ++l)
#pragma unroll
    for (int r = 0; r < kRuns; ++r) {
      auto acc_at = [&](int v) -> float const& { return kAlongN ? acc(0, l, 4 * r + v) : acc(0, 4 * r + v, l); };
      auto idx_at = [&](int v) { return base + (kAlongN ? kPartC<Cfg>.layout(0, l, 4 * r + v) : kPartC<Cfg>.layout(0, 4 * r + v, l)); };
      i64 const m = m0 + kTileM<Cfg>(idx_at(0)), n = n0 + kTileN<Cfg>(idx_at(0));
      if (vec && gc.contains(m0 + kTileM<Cfg>(idx_at(3)), n0 + kTileN<Cfg>(idx_at(3)))) {
        float4 v = make_float4(args.alpha * acc_at(0), args.alpha * acc_at(1), args.alpha * acc_at(2),
                               args.alpha * acc_at(3));
        if constexpr (kAtomic) {
#if __CUDA_ARCH__ >= 900
          atomicAdd(reinterpret_cast<float4*>(args.d + gc(m, n)), v);  // one 16-byte reduction
#else
          float* d = args.d + gc(m, n);
          atomicAdd(d, v.x), atomicAdd(d + 1, v.y), atomicAdd(d + 2, v.z), atomicAdd(d + 3, v.w);
#endif
        } else {
          if (args.beta != 0.f) {  // beta == 0: C is not read (it may hold NaNs), as in BLAS
            float4 const c = *reinterpret_cast<float4 const*>(args.c + gc(m, n));
            v.x += args.beta * c.x, v.y += args.beta * c.y, v.z += args.beta * c.z, v.w += args.beta * c.w;
          }
          *reinterpret_cast<float4*>(args.d + gc(m, n)) = v;
        }
        continue;
      }
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        i64 const mv = m0 + kTileM<Cfg>(idx_at(v)), nv = n0 + kTileN<Cfg>(idx_at(v));
        if (!gc.contains(mv, nv)) continue;
        float const x = args.alpha * acc_at(v);
        if (kAtomic) atomicAdd(args.d + gc(mv, nv), x);
        else args.d[gc(mv, nv)] = x + (args.beta == 0.f ? 0.f : args.beta * args.c[gc(mv, nv)]);
      }
    }
}

template <class Cfg, bool kAtomic>
__device__ __forceinline__ void store_d(GemmArgs const& args, Fragment<float, Cfg::kAcc> const& acc,
                                        i64 m0, i64 n0) {
  if (args.vec_c == 2) store_d<Cfg, kAtomic, true>(args, acc, m0, n0);
  else store_d<Cfg, kAtomic, false>(args, acc, m0, n0);
}

template <class Cfg, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) sgemm_fma_kernel(GemmArgs const args) {
  using A = typename Cfg::A;
  using B = typename Cfg::B;
  __shared__ __align__(16) float sa[2][A::kSmemSize];
  __shared__ __align__(16) float sb[2][B::kSmemSize];

  i64 const m0 = i64(blockIdx.x) * Cfg::kBM, n0 = i64(blockIdx.y) * Cfg::kBN;
  i64 const K = args.ga.shape[1];
  i64 const k0 = i64(blockIdx.z) * args.k_tiles * kBK, k1 = ::min(K, k0 + i64(args.k_tiles) * kBK);
  int const tiles = int((k1 - k0 + kBK - 1) / kBK);
  GmemVecs<A> ga(args.a, args.ga, m0, k0);
  GmemVecs<B> gb(args.b, args.gb, n0, k0);
  i64 const m_left = args.ga.shape[0] - m0, n_left = args.gb.shape[0] - n0;
  int k_left = int(k1 - k0);  // from the current tile's first k
  bool const interior = kVec && m_left >= Cfg::kBM && n_left >= Cfg::kBN;

  Fragment<float, Cfg::kAcc> acc;
#pragma unroll
  for (int i = 0; i < int(decltype(acc)::kSize); ++i) acc.data[i] = 0.f;

  float4 ra[A::kVecs], rb[B::kVecs];
  load_gmem<A, kVec>(ga, args.ga, interior && k_left >= kBK, m_left, k_left, ra);
  load_gmem<B, kVec>(gb, args.gb, interior && k_left >= kBK, n_left, k_left, rb);
  store_smem<A>(sa[0], ra);
  store_smem<B>(sb[0], rb);
  __syncthreads();

  int const pa = int(kPartA<Cfg>.offset(threadIdx.x)), pb = int(kPartB<Cfg>.offset(threadIdx.x));
  float fa[2][Cfg::kFM], fb[2][Cfg::kFN];
  load_frag<kPartA<Cfg>>(fa[0], sa[0] + pa, 0);
  load_frag<kPartB<Cfg>>(fb[0], sb[0] + pb, 0);

  for (int tile = 0; tile < tiles; ++tile) {
    // One k tile from shared buffer `cur`, with the next tile on its way from global memory
    // (through registers) to the other buffer. A loop body of one tile keeps the code within the
    // instruction cache.
    int const cur = tile & 1;
    float const* const sa_cur = sa[cur];
    float const* const sb_cur = sb[cur];
    float* const sa_next = sa[cur ^ 1];
    float* const sb_next = sb[cur ^ 1];
    bool const more = tile + 1 < tiles;
    if (more) {
      ga.next(args.ga);
      gb.next(args.gb);
      k_left -= kBK;
      load_gmem<A, kVec>(ga, args.ga, interior && k_left >= kBK, m_left, k_left, ra);
      load_gmem<B, kVec>(gb, args.gb, interior && k_left >= kBK, n_left, k_left, rb);
    }
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      if (k == kBK - 1 && more) {
        store_smem<A>(sa_next, ra);
        store_smem<B>(sb_next, rb);
        __syncthreads();
      }
      // The next k's fragments, from the other buffer after the last k.
      float const* const sa_k = k == kBK - 1 ? sa_next : sa_cur;
      float const* const sb_k = k == kBK - 1 ? sb_next : sb_cur;
      load_frag<kPartA<Cfg>>(fa[(k + 1) % 2], sa_k + pa, (k + 1) % kBK);
      load_frag<kPartB<Cfg>>(fb[(k + 1) % 2], sb_k + pb, (k + 1) % kBK);
#pragma unroll
      for (int i = 0; i < Cfg::kFM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kFN; ++j) acc(0, i, j) += fa[k % 2][i] * fb[k % 2][j];
    }
  }

  if (gridDim.z == 1) store_d<Cfg, false>(args, acc, m0, n0);
  else store_d<Cfg, true>(args, acc, m0, n0);
}

// D = beta*C, before the splits of K add their parts.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) sgemm_scale_kernel(GemmArgs const args) {
  Fragment<float, Cfg::kAcc> zero;
#pragma unroll
  for (int i = 0; i < int(decltype(zero)::kSize); ++i) zero.data[i] = 0.f;
  store_d<Cfg, false>(args, zero, i64(blockIdx.x) * Cfg::kBM, i64(blockIdx.y) * Cfg::kBN);
}

bool aligned16(void const* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

int sm_count() {
  static int cached[64] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 132;
  if (cached[dev] == 0 && cudaDeviceGetAttribute(&cached[dev], cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    cached[dev] = 132;
  return cached[dev];
}

// kScalarToo: also the kernels for operands without 16-byte alignment.
template <int kBM, int kBN, bool kScalarToo>
cudaError_t launch_cfg(GemmArgs const& args, bool k_contig_a, bool k_contig_b, bool vec, i64 split, cudaStream_t s) {
  using C00 = FmaConfig<kBM, kBN, false, false>;
  using C01 = FmaConfig<kBM, kBN, false, true>;
  using C10 = FmaConfig<kBM, kBN, true, false>;
  using C11 = FmaConfig<kBM, kBN, true, true>;
  dim3 const grid{unsigned((args.ga.shape[0] + kBM - 1) / kBM), unsigned((args.gb.shape[0] + kBN - 1) / kBN),
                  unsigned(split)};
  if (split > 1) {  // D = beta*C first; the splits then add their parts
    sgemm_scale_kernel<C00><<<dim3{grid.x, grid.y, 1}, C00::kThreads, 0, s>>>(args);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  auto go = [&](auto kernel) { kernel<<<grid, C00::kThreads, 0, s>>>(args); };
  int const which = int(k_contig_a) * 2 + int(k_contig_b);
  if constexpr (kScalarToo) {
    if (!vec) {
      if (which == 0) go(sgemm_fma_kernel<C00, false>);
      if (which == 1) go(sgemm_fma_kernel<C01, false>);
      if (which == 2) go(sgemm_fma_kernel<C10, false>);
      if (which == 3) go(sgemm_fma_kernel<C11, false>);
      return cudaGetLastError();
    }
  }
  if (which == 0) go(sgemm_fma_kernel<C00, true>);
  if (which == 1) go(sgemm_fma_kernel<C01, true>);
  if (which == 2) go(sgemm_fma_kernel<C10, true>);
  if (which == 3) go(sgemm_fma_kernel<C11, true>);
  return cudaGetLastError();
}

// How to run a problem: which of D = A B and D^T = B^T A^T to compute (the kernel's m is then N),
// the tile (256x128 or 128x128), and the split of K.
struct Plan {
  bool swap = false;
  int bm = 128;
  i64 split = 1;
};

// Picks the plan with the least modelled time: waves of CTAs (an SM holds one 256x128 CTA or two
// 128x128) times the k tiles per CTA, at the measured rates (256x128 tiles reach about 49 TFLOP/s
// on full H100 waves, 128x128 tiles 43), plus, for a split, its atomic adds and the beta*C pass.
// Swapping the operands matters when M is small: M=128 fills half of a 256-row tile, N does not.
Plan plan(i64 M, i64 N, i64 K, bool vec, bool prefer_swap) {
  double const fma_per_sm_s = 128 * 1.6e9;  // 256x128 tiles
  double const bytes_per_s = 1.5e12;         // atomics and the beta pass, through L2
  i64 const sms = sm_count(), k_tiles = (K + kBK - 1) / kBK;
  Plan best;
  double best_t = 1e300;
  for (bool swap : {prefer_swap, !prefer_swap}) {
    i64 const m = swap ? N : M, n = swap ? M : N;
    if ((n + 127) / 128 > 65535) continue;  // the grid's y
    for (int bm : {256, 128}) {
      if (bm == 256 && !vec) continue;  // without 16-byte loads, the 128x128 kernels only
      int const per_sm = bm == 256 ? 1 : 2;
      double const rate = bm == 256 ? 1.0 : 0.88;
      i64 const tiles = ((m + bm - 1) / bm) * ((n + 127) / 128);
      for (i64 split = 1; split <= 16; split *= 2) {
        if (split > 1 && k_tiles < 16 * split) break;
        i64 const per = (k_tiles + split - 1) / split;
        i64 const ctas = tiles * ((k_tiles + per - 1) / per);
        i64 const waves = (ctas + sms * per_sm - 1) / (sms * per_sm);
        double t = double(waves) * per * (double(bm) * 128 * kBK * per_sm / (fma_per_sm_s * rate));
        if (split > 1) t += double(M) * N * 4 * (split + 2) / bytes_per_s + 5e-6;
        if (t < best_t * 0.97) best_t = t, best = {swap, bm, split};
      }
    }
  }
  return best;
}

cudaError_t launch(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  auto const* a = static_cast<float const*>(ops.a);
  auto const* b = static_cast<float const*>(ops.b);
  DynamicLayout<2> ga = operand_layout(p.a, p.lda, p.m, p.k, false);  // A(m, k)
  DynamicLayout<2> gb = operand_layout(p.b, p.ldb, p.n, p.k, true);   // B(k, n) as (n, k)
  DynamicLayout<2> gc = operand_layout(p.c, p.ldc, p.m, p.n, false);  // C(m, n)
  bool ka = p.a == Order::row, kb = p.b == Order::col;               // k-contiguous?
  // 16-byte loads: aligned bases and leading dimensions (the contiguous stride is 1).
  bool const vec = aligned16(a) && aligned16(b) && p.lda % 4 == 0 && p.ldb % 4 == 0;

  Plan const pl = plan(p.m, p.n, p.k, vec, p.c == Order::row);
  if (pl.swap) {  // D^T = B^T A^T
    std::swap(a, b);
    std::swap(ga, gb);
    std::swap(ka, kb);
    gc = operand_layout(p.c, p.ldc, p.n, p.m, true);
  }
  int vec_c = 0;  // 16-byte accesses to C and D, along whichever of m and n is contiguous
  if (aligned16(ops.d) && (p.beta == 0 || aligned16(ops.c)) && p.ldc % 4 == 0)
    vec_c = gc.stride[0] == 1 ? 1 : 2;
  GemmArgs args{a, b, static_cast<float const*>(ops.c), static_cast<float*>(ops.d), ga, gb, gc,
                float(p.alpha), float(p.beta), 0, vec_c};

  i64 const k_tiles = (p.k + kBK - 1) / kBK;
  args.k_tiles = int((k_tiles + pl.split - 1) / pl.split);
  i64 const split = (k_tiles + args.k_tiles - 1) / args.k_tiles;  // no empty splits
  if (pl.bm == 256 && vec) return launch_cfg<256, 128, false>(args, ka, kb, vec, split, stream);
  return launch_cfg<128, 128, true>(args, ka, kb, vec, split, stream);
}

std::string check(Problem const& p) {
  // The grid's y counts the 128-wide tiles of N (or of M, computing D^T).
  if ((std::min(p.m, p.n) + 127) / 128 > 65535) return "M and N both exceed 65535 tiles of 128";
  if (std::max({p.m, p.n, p.k}) > 0x7fffffff - 256) return "M, N and K must be below 2^31";
  return {};
}

}  // namespace

KernelInfo sgemm_fma_kernel_info() {
  return {"fma", OpKind::gemm, {DType::f32}, 80,
          "fp32 GEMM on FFMA: 256x128 or 128x128 tiles, 16x8 or 8x8 per thread, double-buffered smem, split K",
          check, launch};
}

}  // namespace loom
