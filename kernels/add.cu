// Elementwise add: D = alpha*A + beta*B over an M x N matrix, cuBLAS geam semantics. A, B and D are
// each row- or column-major with their own leading dimension; fp32, fp16 or bf16, computed in fp32
// with kernels/numeric.cuh's conversions.
//
// Tiling: the problem is seen in D's storage order as (R,S), r being D's contiguous mode (its row
// index when D is column-major, its column index when row-major). A CTA of kThrR x kThrS threads
// owns one (kThrR*V, kThrS*kBatch) tile, V being the number of elements in 16 bytes; a thread holds
// V consecutive r of kBatch s-lines, kBatch 16-byte vectors per operand. The grid is one CTA per
// tile (one-shot), its linear index r-fastest, so that the CTAs in flight at once cover a compact
// stretch of every operand.
//
// Why this shape (docs/tuning/add.md has the measurements): the kernel before it gave each thread
// 8 vectors per operand (16 loads in flight) at 150 registers, one CTA of 8 warps per SM. Each SM
// then loaded 64 KB, waited, stored and only then started its next CTA, and at 2048^2 the grid was
// two such lockstep waves: bf16 reached 0.89x of a device-to-device copy of the same bytes.
// With one vector per operand per thread, 30 registers and eight CTAs (64 warps) per SM, the SMs
// hold as many bytes in flight (64 KB of loads per SM) and refill them as each CTA retires.
// A persistent grid-stride loop (a grid sized to the SMs) measured 2-5% slower than one-shot at
// 8192^2 and 16384^2, and more vectors per thread did not help the small sizes.
//
// Every index goes through the layout core, as a chain from the problem to the element: the (R,S)
// operand tensors of operand_tensor() (kernels/operand_layout.hpp); the CTA's tile
// gA = local_tile(mA) = (BR,BS); the thread's part tAgA = partition_S(gA) = (CPY,CPY_R,CPY_S),
// evaluated at (v,0,u), the element. The identity tensor of (R,S), tiled and partitioned the same
// way, gives each element's (r,s), which predicates the ragged edges.
//
// When every operand is contiguous along r with 16-byte aligned rows (the host checks; then the
// vector kernel runs), a vector whose last element is inside the matrix moves with one 16-byte
// access; otherwise, and at a vector that straddles the edge, elements move one at a time, each
// under its own predicate. When the tiles cover D exactly (kEven), no predicate is evaluated.
//
// What is still written by hand, and why:
// - The 16-byte access itself: the address of a vector's first element, &tAgA(0,0,u), is read or
//   written as a uint4, and the registers are Vec unions rather than a Fragment, since the core has
//   no copy that executes a vector atom. AddConfig checks at compile time that CPY is V consecutive
//   elements along r, which is what makes this legal.
// - In the vector kernel A and B have a static unit stride along r (GmemTensor<T,2,0>), but D keeps
//   its run-time stride 1: with a static one the store address has known low bits and NVVM (CUDA
//   13.0) then splits the union's 16-byte store into narrower ones.
//   In the scalar kernel D, contiguous along r by definition, has the static unit stride.
// - The tile's (r, s) index from the linear CTA index is one 32-bit division by the number of
//   r tiles (the grid is one-dimensional, so that it is not capped at 65535 along s).
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
  static constexpr int kThrR = 32, kThrS = 8, kBatch = 1;
  static constexpr int kThreads = kThrR * kThrS;
  // CTAs per SM the vector kernels are built for (registers: 65536 / (kThreads * kMinBlocks) each).
  static constexpr int kMinBlocks = 8;
  static constexpr i64 kTileR = kThrR * kV, kTileS = kThrS * kBatch;
  static constexpr Tile kTile = make_tile(kTileR, kTileS);
  // kThrR x kThrS threads, V consecutive r each: the (kThrR*V, kThrS) slab is copied kBatch times
  // along s.
  static constexpr TiledCopy kCopy =
      make_tiled_copy(copy_atom(kV), make_layout(make_shape(kThrR, kThrS)), make_layout(make_shape(kV, 1)));
  static_assert(kCopy.size() == kThreads);

  // What add_kernel relies on, checked on the layout a thread's part of a tile has:
  // (CPY,CPY_R,CPY_S,r,s) with CPY the V elements of one 16-byte vector, consecutive along r,
  // CPY_R = 1 and CPY_S = kBatch.
  static constexpr Layout kPart =
      kCopy.partition_S(local_tile(dynamic_identity_layout<2>(), kTile, make_coord(_, _)).layout).layout;
  static_assert(rank(kPart) == 5 && is_run_along_mode0(get(kPart, 0), kV));
  static_assert(size(get(kPart, 1)).v == 1 && size(get(kPart, 2)).v == kBatch);
};

// One 16-byte vector of T, the register side of a CPY mode.
template <class T>
union Vec {
  uint4 u;
  T e[16 / sizeof(T)];
};

// kEven: the tiles cover D exactly, so every vector is whole and no predicate is evaluated (the
// vector kernel only). The scalar kernel is built for half the CTAs per SM: its per-element
// predicates and addresses spilled at the vector kernels' 32 registers.
template <class T, bool kVector, bool kEven>
__global__ void __launch_bounds__(AddConfig<T>::kThreads, kVector ? AddConfig<T>::kMinBlocks : AddConfig<T>::kMinBlocks / 2)
    add_kernel(AddArgs<T, kVector> const args, std::uint32_t const r_tiles) {
  using C = AddConfig<T>;
  constexpr int V = C::kV, U = C::kBatch;
  static_assert(kVector || !kEven);
  int const tid = int(threadIdx.x);
  std::uint32_t const rt = blockIdx.x % r_tiles, st = blockIdx.x / r_tiles;

  auto gA = local_tile<C::kTile>(args.a, rt, st);  // (BR,BS)
  auto gB = local_tile<C::kTile>(args.b, rt, st);
  auto gD = local_tile<C::kTile>(args.d, rt, st);
  auto cD = local_tile<C::kTile>(make_identity_tensor(shape(args.d)), rt, st);  // (BR,BS) -> (r,s)

  auto tAgA = partition_S<C::kCopy>(gA, tid);  // (CPY,CPY_R,CPY_S)
  auto tBgB = partition_S<C::kCopy>(gB, tid);
  auto tDgD = partition_D<C::kCopy>(gD, tid);
  auto tDcD = partition_D<C::kCopy>(cD, tid);

  Coord<2> const extent = shape(args.d);
  float const alpha = args.alpha, beta = args.beta;
  bool const read_b = beta != 0.f;  // as geam: B is not read when beta is 0 (it may be null, or hold NaN)

  // Every load is issued before any arithmetic: 2 x kBatch independent 16-byte loads per thread.
  Vec<T> va[U], vb[U];
  bool whole[U];  // the vector's last element, hence all of it, is inside the matrix
#pragma unroll
  for (int u = 0; u < U; ++u) {
    whole[u] = kEven || (kVector && elem_less(tDcD(V - 1, 0, u), extent));
    if (whole[u]) {
      va[u].u = *reinterpret_cast<uint4 const*>(&tAgA(0, 0, u));
      if (read_b) vb[u].u = *reinterpret_cast<uint4 const*>(&tBgB(0, 0, u));
    } else if constexpr (!kEven) {
#pragma unroll
      for (int v = 0; v < V; ++v)
        if (elem_less(tDcD(v, 0, u), extent)) {
          va[u].e[v] = tAgA(v, 0, u);
          if (read_b) vb[u].e[v] = tBgB(v, 0, u);
        }
    }
  }

#pragma unroll
  for (int u = 0; u < U; ++u) {
    Vec<T> out;
#pragma unroll
    for (int v = 0; v < V; ++v)
      out.e[v] = from_f32<T>(read_b ? alpha * to_f32(va[u].e[v]) + beta * to_f32(vb[u].e[v])
                                    : alpha * to_f32(va[u].e[v]));
    if (whole[u]) {
      *reinterpret_cast<uint4*>(&tDgD(0, 0, u)) = out.u;
    } else if constexpr (!kEven) {
#pragma unroll
      for (int v = 0; v < V; ++v)
        if (elem_less(tDcD(v, 0, u), extent)) tDgD(v, 0, u) = out.e[v];
    }
  }
}

template <class T, bool kVector, bool kEven>
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
  i64 const r_tiles = (R + C::kTileR - 1) / C::kTileR, tiles = r_tiles * ((S + C::kTileS - 1) / C::kTileS);
  add_kernel<T, kVector, kEven><<<unsigned(tiles), C::kThreads, 0, stream>>>(args, std::uint32_t(r_tiles));
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_add(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  using C = AddConfig<T>;
  Problem const p = with_default_lds(p0);
  bool const tr = p.c == Order::row;
  // 16-byte vectors: the operand is contiguous along r, and its base and every s-line are aligned.
  auto vectors = [&](void const* ptr, Order order, i64 ld) {
    return x_contiguous(order, tr) && reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0 &&
           (ld * i64(sizeof(T))) % 16 == 0;
  };
  if (vectors(ops.a, p.a, p.lda) && vectors(ops.b, p.b, p.ldb) && vectors(ops.d, p.c, p.ldc)) {
    i64 const R = tr ? p.n : p.m, S = tr ? p.m : p.n;
    if (R % C::kTileR == 0 && S % C::kTileS == 0) return launch_kernel<T, true, true>(p, ops, stream);
    return launch_kernel<T, true, false>(p, ops, stream);
  }
  return launch_kernel<T, false, false>(p, ops, stream);
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
  // One CTA per tile on a one-dimensional grid (fp32's tiles, the narrowest, are the most).
  using C = AddConfig<float>;
  i64 const R = p.c == Order::row ? p.n : p.m, S = p.c == Order::row ? p.m : p.n;
  i64 const r_tiles = (R + C::kTileR - 1) / C::kTileR, s_tiles = (S + C::kTileS - 1) / C::kTileS;
  if (r_tiles > i64(0x7fffffff) || s_tiles > i64(0x7fffffff) || r_tiles * s_tiles > i64(0x7fffffff))
    return "the matrix has more tiles than the grid has CTAs (2^31 - 1)";
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
