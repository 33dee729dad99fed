// Elementwise add: D = alpha*A + beta*B over an M x N matrix, cuBLAS geam semantics. A, B and D are
// each row- or column-major with their own leading dimension; fp32, fp16 or bf16, computed in fp32
// with kernels/numeric.cuh's conversions.
//
// Tiling: the problem is seen in D's storage order as (R,S), r being D's contiguous mode (its row
// index when D is column-major, its column index when row-major). A CTA owns the (32V, 64) tiles at
// r-tile index blockIdx.x, where V is the number of elements in 16 bytes, and steps through their
// s tiles from blockIdx.y by gridDim.y (which is capped at 65535). A TiledCopy of 32 x 8 threads,
// each holding V consecutive r, covers a tile in eight steps along s: a thread's part of a tile is
// (CPY,CPY_R,CPY_S) = (V,1,8), eight 16-byte vectors per operand.
//
// Every index goes through the layout core, as a chain from the problem to the element: the (R,S)
// operand tensors of operand_tensor() (kernels/operand_layout.hpp); the CTA's tiles
// gA = local_tile(mA) = (BR,BS,s); the thread's parts tAgA = partition_S(gA) = (CPY,CPY_R,CPY_S,s);
// sliced at the s tile and evaluated at (v,i,j), the element. The identity tensor of (R,S), tiled
// and partitioned the same way, gives each element's (r,s), which predicates the ragged edges.
//
// Pipeline: every load of a thread is issued before any arithmetic, giving 16 independent 16-byte
// loads in flight per thread; fewer (a 32-deep tile) left bf16 at 0.89x of fp32's bandwidth on
// the H100, and streaming cache hints cost 2%. When every operand is contiguous along r with
// 16-byte aligned rows (the host checks; then the vector kernel runs), a vector whose last element
// is inside the matrix moves with one 16-byte access; otherwise, and at a vector that straddles the
// edge, elements move one at a time, each under its own predicate.
//
// What is still written by hand, and why:
// - The 16-byte access itself: the address of a vector's first element, &tAgA(0,i,j), is read or
//   written as a uint4, and the registers are Vec unions rather than a Fragment, since the core has
//   no copy that executes a vector atom. AddConfig checks at compile time that CPY is V consecutive
//   elements along r, which is what makes this legal.
// - In the vector kernel A and B have a static unit stride along r (GmemTensor<T,2,0>), but D keeps
//   its run-time stride 1: with a static one the store address has known low bits (r starts at
//   blockIdx.x*32V) and NVVM (CUDA 13.0) then splits the union's 16-byte store into narrower ones.
//   In the scalar kernel D, contiguous along r by definition, has the static unit stride.
// - __launch_bounds__(256, 1): without the 1, ptxas squeezes the 16-bit vector kernels into 128
//   registers with 16-24 bytes of spills (two CTAs per SM); with it every variant runs one CTA per
//   SM, as the kernel always did, with no spills.
// - The bound of the CTA's loop over s tiles is a ceiling division of D's extent S by the tile.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/entry.hpp"
#include "kernels/numeric.cuh"
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"
#include "layout/tensor.hpp"

namespace loom {
namespace {

// The operands as (r, s) in D's storage order; r is D's contiguous mode, so D's stride on r is 1,
// and in the vector kernel every operand's is. kUnitAB/kUnitD name the modes whose stride 1 is
// static (-1: none); why D's is not static in the vector kernel is explained at the top.
template <class T, bool kVector>
struct AddArgs {
  static constexpr int kUnitAB = kVector ? 0 : -1;
  static constexpr int kUnitD = kVector ? -1 : 0;
  GmemTensor<T const, 2, kUnitAB> a;  // (R,S)
  GmemTensor<T const, 2, kUnitAB> b;  // (R,S)
  GmemTensor<T, 2, kUnitD> d;         // (R,S)
  float alpha, beta;
};

template <class T>
struct AddConfig {
  static constexpr int kV = 16 / sizeof(T);  // elements in 16 bytes
  static constexpr int kThreads = 256;
  static constexpr i64 kTileR = 32 * kV, kTileS = 64;
  static constexpr Tile kTile = make_tile(kTileR, kTileS);
  // 32 x 8 threads, V consecutive r each: the (32V, 8) slab is copied eight times along s.
  static constexpr TiledCopy kCopy =
      make_tiled_copy(copy_atom(kV), make_layout(make_shape(32, 8)), make_layout(make_shape(kV, 1)));
  static_assert(kCopy.size() == kThreads);

  // What add_tile relies on, checked on the layout a thread's part of a tile has: (CPY,CPY_R,CPY_S,s)
  // with CPY the V elements of one 16-byte vector, consecutive along r.
  static constexpr Layout kPart =
      kCopy.partition_S(local_tile(dynamic_identity_layout<2>(), kTile, make_coord(0, _)).layout).layout;
  static constexpr bool cpy_is_r_vector() {
    Layout const cpy = get(kPart, 0);
    if (size(cpy).v != kV) return false;
    for (i64 v = 0; v < kV; ++v)
      if (!(crd2idx_flat<Coord<2>>(v, cpy.shape, cpy.stride) == Coord<2>{{v, 0}})) return false;
    return true;
  }
  static_assert(rank(kPart) == 4 && cpy_is_r_vector());
  static_assert(size(get(kPart, 1)).v * size(get(kPart, 2)).v * kV * kThreads == kTileR * kTileS);
};

// One 16-byte vector of T, the register side of a CPY mode.
template <class T>
union Vec {
  uint4 u;
  T e[16 / sizeof(T)];
};

// One (BR,BS) tile, given each tensor's (CPY,CPY_R,CPY_S) part of it for this thread: tAgA, tBgB
// and tDgD hold the operands, tDcD the (r,s) coordinates. Every load is issued before any
// arithmetic: 2 x CPY_R x CPY_S = 16 independent 16-byte loads in flight per thread.
template <class T, bool kVector, class TA, class TB, class TD, class TC>
__device__ __forceinline__ void add_tile(TA const& tAgA, TB const& tBgB, TD const& tDgD, TC const& tDcD,
                                         Coord<2> const& extent, float alpha, float beta) {
  constexpr int V = 16 / sizeof(T);
  constexpr int N1 = int(size(get(TD::layout, 1)).v), N2 = int(size(get(TD::layout, 2)).v);

  Vec<T> va[N1][N2], vb[N1][N2];
  bool whole[N1][N2];  // the vector's last element, hence all of it, is inside the matrix
  bool const read_b = beta != 0.f;  // as geam: B is not read when beta is 0 (it may be null, or hold NaN)
#pragma unroll
  for (int i = 0; i < N1; ++i)
#pragma unroll
    for (int j = 0; j < N2; ++j) {
      whole[i][j] = kVector && elem_less(tDcD(V - 1, i, j), extent);
      if (whole[i][j]) {
        va[i][j].u = *reinterpret_cast<uint4 const*>(&tAgA(0, i, j));
        if (read_b) vb[i][j].u = *reinterpret_cast<uint4 const*>(&tBgB(0, i, j));
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (elem_less(tDcD(v, i, j), extent)) {
            va[i][j].e[v] = tAgA(v, i, j);
            if (read_b) vb[i][j].e[v] = tBgB(v, i, j);
          }
      }
    }

#pragma unroll
  for (int i = 0; i < N1; ++i)
#pragma unroll
    for (int j = 0; j < N2; ++j) {
      Vec<T> out;
#pragma unroll
      for (int v = 0; v < V; ++v)
        out.e[v] = from_f32<T>(read_b ? alpha * to_f32(va[i][j].e[v]) + beta * to_f32(vb[i][j].e[v])
                                      : alpha * to_f32(va[i][j].e[v]));
      if (whole[i][j]) {
        *reinterpret_cast<uint4*>(&tDgD(0, i, j)) = out.u;
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (elem_less(tDcD(v, i, j), extent)) tDgD(v, i, j) = out.e[v];
      }
    }
}

template <class T, bool kVector>
__global__ void __launch_bounds__(AddConfig<T>::kThreads, 1) add_kernel(AddArgs<T, kVector> const args) {
  using C = AddConfig<T>;
  int const tid = int(threadIdx.x);
  i64 const r = blockIdx.x;

  auto gA = local_tile<C::kTile>(args.a, r, _);  // (BR,BS,s)
  auto gB = local_tile<C::kTile>(args.b, r, _);
  auto gD = local_tile<C::kTile>(args.d, r, _);
  auto cD = local_tile<C::kTile>(make_identity_tensor(shape(args.d)), r, _);  // (BR,BS,s) -> (r,s)

  auto tAgA = partition_S<C::kCopy>(gA, tid);  // (CPY,CPY_R,CPY_S,s)
  auto tBgB = partition_S<C::kCopy>(gB, tid);
  auto tDgD = partition_D<C::kCopy>(gD, tid);
  auto tDcD = partition_D<C::kCopy>(cD, tid);

  // gridDim.y is capped at 65535, so CTAs step through the s tiles.
  i64 const s_tiles = (shape(args.d)[1] + C::kTileS - 1) / C::kTileS;
  for (i64 s = blockIdx.y; s < s_tiles; s += gridDim.y)
    add_tile<T, kVector>(tAgA(_, _, _, s), tBgB(_, _, _, s), tDgD(_, _, _, s), tDcD(_, _, _, s),
                         shape(args.d), args.alpha, args.beta);
}

template <class T, bool kVector>
cudaError_t launch_kernel(Problem const& p, Operands const& ops, cudaStream_t stream) {
  using C = AddConfig<T>;
  constexpr int kUnitAB = AddArgs<T, kVector>::kUnitAB, kUnitD = AddArgs<T, kVector>::kUnitD;
  // r is D's contiguous mode: its row index when D is column-major, its column index when row-major.
  bool const tr = p.c == Order::row;
  i64 const R = tr ? p.n : p.m, S = tr ? p.m : p.n;
  AddArgs<T, kVector> args{operand_tensor<kUnitAB>(static_cast<T const*>(ops.a), p.a, p.lda, R, S, tr),
                           operand_tensor<kUnitAB>(static_cast<T const*>(ops.b), p.b, p.ldb, R, S, tr),
                           operand_tensor<kUnitD>(static_cast<T*>(ops.d), p.c, p.ldc, R, S, tr),
                           float(p.alpha), float(p.beta)};
  dim3 grid(unsigned((R + C::kTileR - 1) / C::kTileR),
            unsigned(std::min<i64>((S + C::kTileS - 1) / C::kTileS, 65535)));
  add_kernel<T, kVector><<<grid, C::kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_add(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  bool const tr = p.c == Order::row;
  // 16-byte vectors: the operand is contiguous along r, and its base and every s-line are aligned.
  auto vectors = [&](void const* ptr, Order order, i64 ld) {
    return x_contiguous(order, tr) && reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0 &&
           (ld * i64(sizeof(T))) % 16 == 0;
  };
  if (vectors(ops.a, p.a, p.lda) && vectors(ops.b, p.b, p.ldb) && vectors(ops.d, p.c, p.ldc))
    return launch_kernel<T, true>(p, ops, stream);
  return launch_kernel<T, false>(p, ops, stream);
}

}  // namespace

namespace elementwise {

cudaError_t add(Problem const& p, Operands const& ops, cudaStream_t stream) {
  switch (p.dtype) {
    case DType::f32: return launch_add<float>(p, ops, stream);
    case DType::f16: return launch_add<__half>(p, ops, stream);
    case DType::bf16: return launch_add<__nv_bfloat16>(p, ops, stream);
  }
  return cudaErrorInvalidValue;
}

std::string check(Problem const& p) {
  i64 const R = p.c == Order::row ? p.n : p.m;
  if ((R + AddConfig<float>::kTileR - 1) / AddConfig<float>::kTileR > i64(0x7fffffff))
    return "the contiguous extent of D is too large for the grid";
  return {};
}

}  // namespace elementwise

// The catalog's add is the library's loom::add: what validate checks and bench times is what a
// user calls.
KernelInfo add_kernel_info() {
  auto launch = [](Problem const& p, Operands const& ops, cudaStream_t stream) {
    AddDesc d;
    d.m = p.m, d.n = p.n, d.type = p.dtype;
    d.a_order = p.a, d.b_order = p.b, d.d_order = p.c;
    d.lda = p.lda, d.ldb = p.ldb, d.ldd = p.ldc;
    return loom::add(d, float(p.alpha), ops.a, float(p.beta), ops.b, ops.d, stream);
  };
  return {"add", OpKind::add, {DType::f32, DType::f16, DType::bf16}, 80,
          "D = alpha*A + beta*B, 16-byte vectors where aligned", elementwise::check, launch};
}

}  // namespace loom
