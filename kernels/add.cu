// Elementwise add: D = alpha*A + beta*B over an M x N matrix, cuBLAS geam semantics. A, B and D are
// each row- or column-major with their own leading dimension; fp32, fp16 or bf16, computed in fp32.
//
// Tiling: the problem is seen in D's storage order as R x S, r being D's contiguous mode. A CTA
// owns a (32V, 64) tile, where V is the number of elements in 16 bytes. A TiledCopy of 32 x 8
// threads, each holding V consecutive elements, covers the tile in eight steps along s. The copy's
// partition of the tile's index layout gives every thread its elements, and two coordinate layouts
// turn a tile index into (r, s). Global memory is a DynamicLayout per operand, and identity
// coordinates predicate the ragged edges.
//
// Pipeline: every load of a thread is issued before any arithmetic, giving 16 independent 16-byte
// loads in flight per thread; fewer (a 32-deep tile) left bf16 at 0.89x of fp32's bandwidth on
// the H100, and streaming cache hints cost 2%. When every operand is
// contiguous along r with 16-byte aligned rows, whole vectors move with 16-byte accesses;
// otherwise, and at a vector that straddles the edge, elements move one at a time.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/numeric.cuh"
#include "kernels/registry.hpp"
#include "layout/tensor.hpp"

namespace loom {
namespace {

template <class T>
struct AddArgs {
  T const* a;
  T const* b;
  T* d;
  DynamicLayout<2> ga, gb, gd;  // (r, s) -> offset, in D's storage order
  float alpha, beta;
};

template <class T>
struct AddConfig {
  static constexpr int kV = 16 / sizeof(T);
  static constexpr int kThreads = 256;
  static constexpr i64 kTileR = 32 * kV, kTileS = 64;
  static constexpr TiledCopy kCopy =
      make_tiled_copy(copy_atom(kV), make_layout(make_shape(32, 8)), make_layout(make_shape(kV, 1)));
  // Each thread's elements as indices into the column-major (kTileR, kTileS) tile.
  static constexpr TiledCopy::Partition kPart = kCopy.partition_S(make_layout(make_shape(kTileR, kTileS)));
  // Tile index -> r and -> s: the two components of the tile's identity layout.
  static constexpr Layout kR = make_layout(make_shape(kTileR, kTileS), make_stride(1, 0));
  static constexpr Layout kS = make_layout(make_shape(kTileR, kTileS), make_stride(0, 1));
  static_assert(size(kPart.layout).v * kThreads == kTileR * kTileS);
  static_assert(rank(kPart.layout) == 3 && size(get(kPart.layout, 0)).v == kV);
};

// One 16-byte vector of T.
template <class T>
union Vec {
  uint4 u;
  T e[16 / sizeof(T)];
};

// Static layouts enter as template arguments so that nvcc folds every offset to a constant.
template <class T, bool kVector, TiledCopy::Partition P, Layout kR, Layout kS>
__device__ __forceinline__ void add_tile(AddArgs<T> const& args, i64 r0, i64 s0) {
  constexpr int V = 16 / sizeof(T);
  constexpr int N1 = int(size(get(P.layout, 1)).v), N2 = int(size(get(P.layout, 2)).v);
  i64 const base = P.offset(threadIdx.x);

  Vec<T> va[N1][N2], vb[N1][N2];
  bool whole[N1][N2];
#pragma unroll
  for (int i = 0; i < N1; ++i)
#pragma unroll
    for (int j = 0; j < N2; ++j) {
      i64 t = base + P.layout(0, i, j);
      i64 r = r0 + kR(t), s = s0 + kS(t);
      whole[i][j] = kVector && args.gd.contains(r + V - 1, s);
      if (whole[i][j]) {
        va[i][j].u = *reinterpret_cast<uint4 const*>(args.a + args.ga(r, s));
        vb[i][j].u = *reinterpret_cast<uint4 const*>(args.b + args.gb(r, s));
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) {
          i64 tv = base + P.layout(v, i, j);
          i64 rv = r0 + kR(tv), sv = s0 + kS(tv);
          if (args.gd.contains(rv, sv)) {
            va[i][j].e[v] = args.a[args.ga(rv, sv)];
            vb[i][j].e[v] = args.b[args.gb(rv, sv)];
          }
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
        out.e[v] = from_f32<T>(args.alpha * to_f32(va[i][j].e[v]) + args.beta * to_f32(vb[i][j].e[v]));
      i64 t = base + P.layout(0, i, j);
      i64 r = r0 + kR(t), s = s0 + kS(t);
      if (whole[i][j]) {
        *reinterpret_cast<uint4*>(args.d + args.gd(r, s)) = out.u;
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) {
          i64 tv = base + P.layout(v, i, j);
          i64 rv = r0 + kR(tv), sv = s0 + kS(tv);
          if (args.gd.contains(rv, sv)) args.d[args.gd(rv, sv)] = out.e[v];
        }
      }
    }
}

template <class T, bool kVector>
__global__ void __launch_bounds__(AddConfig<T>::kThreads) add_kernel(AddArgs<T> args) {
  using C = AddConfig<T>;
  i64 const r0 = i64(blockIdx.x) * C::kTileR;
  // gridDim.y is capped at 65535, so CTAs step through the s tiles.
  for (i64 st = blockIdx.y; st * C::kTileS < args.gd.shape[1]; st += gridDim.y)
    add_tile<T, kVector, C::kPart, C::kR, C::kS>(args, r0, st * C::kTileS);
}

template <class T>
cudaError_t launch_add(Problem const& p, Operands const& ops, cudaStream_t stream) {
  using C = AddConfig<T>;
  bool const col = p.c == Order::col;
  i64 const R = col ? p.m : p.n, S = col ? p.n : p.m;
  auto in_d_order = [&](Order o, i64 ld) {
    DynamicLayout<2> g;
    g.shape[0] = R;
    g.shape[1] = S;
    g.stride[0] = o == p.c ? 1 : ld;
    g.stride[1] = o == p.c ? ld : 1;
    return g;
  };
  AddArgs<T> args{static_cast<T const*>(ops.a), static_cast<T const*>(ops.b), static_cast<T*>(ops.d),
                  in_d_order(p.a, p.lda), in_d_order(p.b, p.ldb), in_d_order(p.c, p.ldc),
                  float(p.alpha), float(p.beta)};

  auto aligned = [](void const* ptr, DynamicLayout<2> const& g) {
    return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0 && g.stride[0] == 1 &&
           (g.stride[1] * i64(sizeof(T))) % 16 == 0;
  };
  bool const vector = aligned(ops.a, args.ga) && aligned(ops.b, args.gb) && aligned(ops.d, args.gd);

  dim3 grid(unsigned((R + C::kTileR - 1) / C::kTileR),
            unsigned(std::min<i64>((S + C::kTileS - 1) / C::kTileS, 65535)));
  if (vector)
    add_kernel<T, true><<<grid, C::kThreads, 0, stream>>>(args);
  else
    add_kernel<T, false><<<grid, C::kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launch(Problem const& p, Operands const& ops, cudaStream_t stream) {
  switch (p.dtype) {
    case DType::f32: return launch_add<float>(p, ops, stream);
    case DType::f16: return launch_add<__half>(p, ops, stream);
    case DType::bf16: return launch_add<__nv_bfloat16>(p, ops, stream);
  }
  return cudaErrorInvalidValue;
}

std::string check(Problem const& p) {
  i64 const R = p.c == Order::col ? p.m : p.n;
  if ((R + AddConfig<float>::kTileR - 1) / AddConfig<float>::kTileR > i64(0x7fffffff))
    return "the contiguous extent of D is too large for the grid";
  return {};
}

}  // namespace

KernelInfo add_kernel_info() {
  return {"add", OpKind::add, {DType::f32, DType::f16, DType::bf16}, 80,
          "D = alpha*A + beta*B, 16-byte vectors where aligned", check, launch};
}

}  // namespace loom
