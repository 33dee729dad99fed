// skinny: D = alpha*A*B + beta*C where one of M and N is at most 4 (decode: a few tokens through a
// layer), fp16 or bf16 inputs, fp32 accumulation on the FFMA pipe, C/D in fp16, bf16 or fp32.
//
// Why 4: on an H100 it beat sm90's tiles at every measured shape with a short side of 1, 2 and 4
// (1.11x, 1.06x and 1.04x cuBLAS, geometric means over 25 shapes; sm90 0.92x), and lost at 8 and
// above, where the FFMA work per byte of L grows (this kernel at 8: 0.79x; a tensor-core form on
// mma.sync at 12-32: 0.57-0.72x, removed). docs/tuning/sm90.md, twelfth round.
//
// It is a path of gemm (kernels/gemm.cu sends it the cases skinny::preferred names), not an entry
// of the catalog: loom-validate and loom-bench reach it through gemm, whose label names it.
//
// Why a kernel of its own: such a GEMM reads its long operand once and does 2 flops per element of
// it per short row (8 at 4), so it is bound by DRAM, not by the tensor cores. sm90's TMA tiles
// stream it through few SMs at the rate one SM's TMA issues rows (docs/tuning/sm90.md,
// ninth round: about 26 B/clk), and measured 0.89-0.94x cuBLAS at M = 1 and 4 (`--sweep=llm-wide`).
// Here every SM streams it with plain 16-byte loads from many warps, as a copy does.
//
// The problem as this kernel sees it: the long operand L (K, R) (R rows of K, K contiguous: the
// k-major operand of the long side), the short operand S (K, Sn) with Sn <= kS, and D, C (Sn, R).
// D(s, r) = alpha * sum_k S(k, s) L(k, r) + beta * C(s, r). Either the problem's A is S (M small,
// B k-major) or its B is (N small, A k-major); host code below picks, from row_major_gemm's view.
//
// Tiling: a CTA of kWarps warps owns kR rows of L; warp w takes the 256-element chunks of K
// c = w, w + kWarps, ... (interleaved, so that the CTA's loads in flight cover one stretch of each
// row). A lane holds one 16-byte vector of each of the kR rows and of the kS columns of S per
// chunk, kU chunks in flight. kR grows with kS so that each vector of S read from L1 (and
// converted to fp32) serves several rows (kS / kR times the bytes of L per chunk): at kS = 4, 4
// rows a CTA where that still makes kWideCtasPerSm CTAs an SM, 2 elsewhere. The partial sums are
// added across the lanes by shuffles and across the warps through shared memory, in a fixed order (deterministic).
//
// Every index goes through the layout core: mL (K,R) -> local_tile<(256,kR)>(mL, c, cta) ->
// partition_S<kCopy>(.., lane) = (CPY,1,kR), and the same for S and for the identity tensors that
// predicate the ragged edges. Written by hand: the 16-byte access at a vector's first element (as
// kernels/add.cu), the unpacking of a packed short operand (kPack), and the reduction's shuffles.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "kernels/entry.hpp"
#include "kernels/numeric.cuh"
#include "kernels/operand_layout.hpp"
#include "kernels/per_device.hpp"
#include "layout/tensor.hpp"

namespace loom {
namespace {

constexpr int kMaxShort = 4;    // the largest short side the kernel takes (see the top)
constexpr i64 kMinRows = 128;   // the fewest rows of the long side gemm sends here (see preferred)
constexpr int kWideCtasPerSm = 8;  // kS = 4 takes 4 rows a CTA where that makes this many CTAs an SM (launch)

template <class T, int kS_, bool kWide = false>
struct SkinnyConfig {
  static constexpr int kS = kS_;                     // columns of S the kernel is built for (>= Sn)
  static constexpr int kR = kS >= 4 ? (kWide ? 4 : 2) : 1;  // rows of L per CTA
  static constexpr int kU = kS >= 2 ? 2 : 4;  // chunks in flight per warp
  static constexpr int kWarps = 4, kThreads = 32 * kWarps;
  static constexpr int kV = 16 / sizeof(T);          // elements in 16 bytes
  static constexpr int kChunk = 32 * kV;             // K per warp and chunk
  static constexpr Tile kTileL = make_tile(kChunk, kR), kTileS = make_tile(kChunk, kS);
  // 32 lanes along K, one 16-byte vector each.
  static constexpr TiledCopy kCopy =
      make_tiled_copy(copy_atom(kV), make_layout(make_shape(32, 1)), make_layout(make_shape(kV, 1)));
  // What the kernel relies on: a lane's part of a (kChunk, n) tile is (CPY,1,n), CPY being kV
  // consecutive elements of K.
  static constexpr Layout kPart =
      kCopy.partition_S(local_tile(dynamic_identity_layout<2>(), kTileL, make_coord(_, _)).layout).layout;
  static_assert(rank(kPart) == 5 && is_run_along_mode0(get(kPart, 0), kV) && size(get(kPart, 1)).v == 1 &&
                size(get(kPart, 2)).v == kR);
};

template <class T>
struct SkinnyArgs {
  GmemTensor<T const, 2, 0> l;  // (K,R), K contiguous
  GmemTensor<T const, 2> s;     // (K,Sn)
  void const* c;                // (Sn,R), at d's strides, of D's type
  void* d;
  Coord<2> d_stride;            // of (s, r)
  float alpha, beta;
  bool vec_l, vec_s;            // whole vectors may move with one 16-byte access (S: k-contiguous)
  bool pack_s;                  // S is packed m-contiguous (kPack), from a 16-byte aligned base
};

template <class T>
union Vec {
  uint4 u;
  T e[16 / sizeof(T)];
};

// acc[r][s] += sum over the kV elements of vector pair (l[r], s[s]).
template <class T, int kR, int kS>
__device__ __forceinline__ void fma_vectors(float (&acc)[kR][kS], Vec<T> const (&vl)[kR], Vec<T> const (&vs)[kS]) {
#pragma unroll
  for (int v = 0; v < 16 / int(sizeof(T)); ++v) {
    float sv[kS];
#pragma unroll
    for (int s = 0; s < kS; ++s) sv[s] = to_f32(vs[s].e[v]);
#pragma unroll
    for (int r = 0; r < kR; ++r) {
      float const lv = to_f32(vl[r].e[v]);
#pragma unroll
      for (int s = 0; s < kS; ++s) acc[r][s] = fmaf(lv, sv[s], acc[r][s]);
    }
  }
}

// kVec: L and S move in 16-byte vectors (the host checked their alignment), and every chunk but
// the last partial one (K % 256) is read without predicates: a CTA's rows past R and S's columns
// past Sn read row 0 and column 0 again, whose sums are dropped. The partial chunk, and every
// chunk without kVec, go element by element, each under its predicate.
// kPack: 0 where S is k-contiguous. Otherwise S is packed the other way, its Sn = kPack columns
// contiguous and K's stride kPack (A of a column-major problem at M = 2-4 with lda = M, or a
// row-major B at N = 2-4): a lane's kV values of k for every column are then kPack whole vectors
// from its first element, read as such and unpacked in registers.
template <class T, class TO, int kS, bool kVec, int kPack, bool kWide = false>
__global__ void __launch_bounds__(SkinnyConfig<T, kS, kWide>::kThreads) gemm_skinny_kernel(SkinnyArgs<T> const args) {
  using C = SkinnyConfig<T, kS, kWide>;
  constexpr int V = C::kV, R = C::kR, U = C::kU, W = C::kWarps;
  int const lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  Coord<2> const extent_l = shape(args.l), extent_s = shape(args.s);  // (K,R), (K,Sn)
  i64 const k = extent_l[0];
  i64 const chunks = (k + C::kChunk - 1) / C::kChunk, whole = kVec ? k / C::kChunk : 0;
  i64 const cta = blockIdx.x;
  // The slots inside the matrix: a CTA's rows past R and S's columns past Sn read row and column 0
  // of the tile again (their sums are dropped), so that the whole chunks take no predicates.
  i64 const rows_left = extent_l[1] - cta * R, cols_in = extent_s[1];
  i64 const rows_in = rows_left < R ? rows_left : R;

  float acc[R][kS] = {};
  // Chunk c's vectors of this lane: rows of L past R and columns of S past Sn read row and column 0.
  auto load = [&](i64 c, Vec<T> (&vl)[R], Vec<T> (&vs)[kS]) {
    auto tLgL = partition_S<C::kCopy>(local_tile<C::kTileL>(args.l, c, cta), lane);  // (CPY,1,kR)
    auto tSgS = partition_S<C::kCopy>(local_tile<C::kTileS>(args.s, c, 0), lane);    // (CPY,1,kS)
#pragma unroll
    for (int r = 0; r < R; ++r)
      vl[r].u = __ldg(reinterpret_cast<uint4 const*>(r < rows_in ? &tLgL(0, 0, r) : &tLgL(0, 0, 0)));
    if constexpr (kPack == 0) {
#pragma unroll
      for (int s = 0; s < kS; ++s)
        vs[s].u = __ldg(reinterpret_cast<uint4 const*>(s < cols_in ? &tSgS(0, 0, s) : &tSgS(0, 0, 0)));
    } else {
      Vec<T> raw[kPack];  // element v * kPack + s is S(k + v, s)
#pragma unroll
      for (int j = 0; j < kPack; ++j) raw[j].u = __ldg(reinterpret_cast<uint4 const*>(&tSgS(0, 0, 0)) + j);
#pragma unroll
      for (int s = 0; s < kS; ++s)
#pragma unroll
        for (int v = 0; v < V; ++v) {
          int const e = v * kPack + (s < kPack ? s : 0);
          vs[s].e[v] = raw[e / V].e[e % V];
        }
    }
  };
  i64 c0 = warp;
  for (; c0 + i64(W) * (U - 1) < whole; c0 += i64(W) * U) {  // U whole chunks in flight
    Vec<T> vl[U][R], vs[U][kS];
#pragma unroll
    for (int u = 0; u < U; ++u) load(c0 + u * W, vl[u], vs[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) fma_vectors<T, R, kS>(acc, vl[u], vs[u]);
  }
  // The whole chunks left over (fewer than U per warp), one at a time but still in vectors: element by
  // element they took up to a quarter of K (at K = 3584, 11008) and made those rows 0.6-0.8x cuBLAS.
  for (; c0 < whole; c0 += W) {
    Vec<T> vl[R], vs[kS];
    load(c0, vl, vs);
    fma_vectors<T, R, kS>(acc, vl, vs);
  }
  for (; c0 < chunks; c0 += W) {  // the partial last chunk (and every chunk without kVec), element by element
    auto tLgL = partition_S<C::kCopy>(local_tile<C::kTileL>(args.l, c0, cta), lane);
    auto tLcL = partition_S<C::kCopy>(local_tile<C::kTileL>(make_identity_tensor(extent_l), c0, cta), lane);
    auto tSgS = partition_S<C::kCopy>(local_tile<C::kTileS>(args.s, c0, 0), lane);
    auto tScS = partition_S<C::kCopy>(local_tile<C::kTileS>(make_identity_tensor(extent_s), c0, 0), lane);
    // One element of each vector at a time, so that the slow path holds R + kS values, not vectors.
#pragma unroll 1
    for (int v = 0; v < V; ++v) {
      float lv[R], sv[kS];
#pragma unroll
      for (int r = 0; r < R; ++r) lv[r] = elem_less(tLcL(v, 0, r), extent_l) ? to_f32(tLgL(v, 0, r)) : 0.f;
#pragma unroll
      for (int s = 0; s < kS; ++s) sv[s] = elem_less(tScS(v, 0, s), extent_s) ? to_f32(tSgS(v, 0, s)) : 0.f;
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int s = 0; s < kS; ++s) acc[r][s] = fmaf(lv[r], sv[s], acc[r][s]);
    }
  }
  // Across the lanes, then across the warps (warp 0 first), in a fixed order.
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int s = 0; s < kS; ++s)
#pragma unroll
      for (int o = 16; o > 0; o /= 2) acc[r][s] += __shfl_xor_sync(0xffffffffu, acc[r][s], o);
  __shared__ float part[W][R][kS];
  if (lane == 0)
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int s = 0; s < kS; ++s) part[warp][r][s] = acc[r][s];
  __syncthreads();
  int const t = int(threadIdx.x);
  if (t < R * kS) {
    int const r = t / kS, s = t % kS;
    i64 const row = cta * R + r;
    if (row < extent_l[1] && s < extent_s[1]) {
      float sum = part[0][r][s];
#pragma unroll
      for (int w = 1; w < W; ++w) sum += part[w][r][s];
      Coord<2> const shape_d{{extent_s[1], extent_l[1]}};
      auto mD = make_gmem_tensor(static_cast<TO*>(args.d), shape_d, args.d_stride);        // (Sn,R)
      auto mC = make_gmem_tensor(static_cast<TO const*>(args.c), shape_d, args.d_stride);  // (Sn,R)
      float const alpha = args.alpha, beta = args.beta;
      mD(s, row) = from_f32<TO>(beta != 0.f ? alpha * sum + beta * to_f32(mC(s, row)) : alpha * sum);
    }
  }
}

// The problem as the kernel sees it (row_major_gemm's A (m,k), B (n,k), D (m,n)): which operand is
// short, and whether the long one is k-contiguous. Empty `why` when the kernel takes it.
struct SkinnyView {
  void const* l;
  void const* s;
  GmemShape gl, gs;   // (r,k) and (s,k), as row_major_gemm gives them
  Coord<2> d_stride;  // of (s, r) in D
  std::string why;
};
SkinnyView view_of(Problem const& p, Operands const& ops) {
  RowMajorGemm const g = row_major_gemm(p, ops);
  SkinnyView v{};
  if (g.ga.shape[0] <= g.gb.shape[0]) {  // the kernel's m is the short side: S = A, L = B
    v.s = g.a, v.l = g.b, v.gs = g.ga, v.gl = g.gb;
    v.d_stride = Coord<2>{{g.gd.stride[0], g.gd.stride[1]}};
  } else {
    v.s = g.b, v.l = g.a, v.gs = g.gb, v.gl = g.ga;
    v.d_stride = Coord<2>{{g.gd.stride[1], g.gd.stride[0]}};
  }
  if (v.gs.shape[0] > kMaxShort)
    v.why = "neither M nor N is at most " + std::to_string(kMaxShort);
  else if (v.gl.stride[1] != 1 && v.gl.shape[1] > 1)
    v.why = "the long operand is not k-contiguous (K is not its contiguous dimension)";
  return v;
}

// S of 2-4 columns packed m-contiguous (its columns adjacent, K's stride their count): the kernel's
// kPack form reads it in vectors.
bool packed_short(SkinnyView const& v) {
  i64 const n = v.gs.shape[0];
  return n >= 2 && n <= kMaxShort && v.gs.stride[0] == 1 && v.gs.stride[1] == n;
}
// Whether the strides let L, and S k-contiguous, move in vectors of `vec` elements (their base
// addresses aside: launch checks those, preferred cannot).
bool vector_long(SkinnyView const& v, i64 vec) { return v.gl.stride[0] % vec == 0; }
bool vector_short(SkinnyView const& v, i64 vec) {
  return v.gs.stride[1] == 1 && (v.gs.shape[0] == 1 || v.gs.stride[0] % vec == 0);
}

template <class T, class TO, int kS>
cudaError_t launch(SkinnyView const& v, Problem const& p, Operands const& ops, cudaStream_t stream) {
  constexpr i64 kV = 16 / sizeof(T);
  i64 const k = v.gl.shape[1], rows = v.gl.shape[0], shorts = v.gs.shape[0];
  auto aligned = [](void const* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  SkinnyArgs<T> const args{
      make_gmem_tensor<0>(static_cast<T const*>(v.l), Coord<2>{{k, rows}}, Coord<2>{{1, v.gl.stride[0]}}),
      make_gmem_tensor(static_cast<T const*>(v.s), Coord<2>{{k, shorts}}, Coord<2>{{v.gs.stride[1], v.gs.stride[0]}}),
      ops.c, ops.d, v.d_stride, float(p.alpha), float(p.beta),
      aligned(v.l) && vector_long(v, kV), aligned(v.s) && vector_short(v, kV), aligned(v.s) && packed_short(v)};
  using C = SkinnyConfig<T, kS>;
  unsigned const ctas = unsigned((rows + C::kR - 1) / C::kR);
  if (args.vec_l && args.vec_s) {
    // 4 rows a CTA at kS = 4 where that still makes kWideCtasPerSm CTAs an SM or more: on an H200
    // it ran 4-11% faster than 2 at M = 4 and 6144-28672 rows, and 3-6% slower at 3584 (896 CTAs,
    // 6.8 an SM); docs/tuning/sm90.md, twenty-fifth round.
    if constexpr (kS == 4) {
      using W = SkinnyConfig<T, kS, true>;
      i64 const wide_ctas = (rows + W::kR - 1) / W::kR;
      if (wide_ctas >= i64(kWideCtasPerSm) * device_sm_count()) {
        gemm_skinny_kernel<T, TO, kS, true, 0, true><<<unsigned(wide_ctas), W::kThreads, 0, stream>>>(args);
        return cudaGetLastError();
      }
    }
    gemm_skinny_kernel<T, TO, kS, true, 0><<<ctas, C::kThreads, 0, stream>>>(args);
  } else if (args.vec_l && args.pack_s && kS >= 2) {
    if constexpr (kS == 2) gemm_skinny_kernel<T, TO, 2, true, 2><<<ctas, C::kThreads, 0, stream>>>(args);
    if constexpr (kS == 4) {
      if (shorts == 3) gemm_skinny_kernel<T, TO, 4, true, 3><<<ctas, C::kThreads, 0, stream>>>(args);
      else gemm_skinny_kernel<T, TO, 4, true, 4><<<ctas, C::kThreads, 0, stream>>>(args);
    }
  } else {
    gemm_skinny_kernel<T, TO, kS, false, 0><<<ctas, C::kThreads, 0, stream>>>(args);
  }
  return cudaGetLastError();
}

template <class T, int kS>
cudaError_t launch_out(SkinnyView const& v, Problem const& p, Operands const& ops, cudaStream_t stream) {
  switch (p.out_dtype) {
    case DType::f32: return launch<T, float, kS>(v, p, ops, stream);
    case DType::f16: return launch<T, __half, kS>(v, p, ops, stream);
    case DType::bf16: return launch<T, __nv_bfloat16, kS>(v, p, ops, stream);
    default: return cudaErrorNotSupported;
  }
}

template <class T>
cudaError_t launch_in(SkinnyView const& v, Problem const& p, Operands const& ops, cudaStream_t stream) {
  i64 const shorts = v.gs.shape[0];
  if (shorts <= 1) return launch_out<T, 1>(v, p, ops, stream);
  if (shorts <= 2) return launch_out<T, 2>(v, p, ops, stream);
  return launch_out<T, 4>(v, p, ops, stream);
}

}  // namespace

namespace skinny {

std::string check(Problem const& p) {
  if (p.dtype != DType::f16 && p.dtype != DType::bf16) return "skinny takes f16 and bf16 inputs";
  if (b_type(p) != p.dtype) return "A and B have one type";
  if (p.out_dtype != DType::f32 && p.out_dtype != DType::f16 && p.out_dtype != DType::bf16)
    return "D is f32, f16 or bf16";
  Problem const q = with_default_lds(p);
  if (std::max(q.m, q.n) > 0x7fffffffLL) return "M and N must be below 2^31";
  return view_of(q, Operands{}).why;
}

// At least 128 rows: on an H100 it ran 1.16-2.43x sm90's speed at every measured shape of 128 to
// 1024 rows (K = 1024 to 14336; 64-128 CTAs at 128 rows still beat sm90's split K), and 1.2x
// cuBLAS's there (docs/tuning/sm90.md, twelfth round). Fewer rows were not measured.
// Only where the leading dimensions let both operands move in 16-byte vectors (the long one
// k-contiguous, the short one either way: packed m-contiguous as a column-major A of lda = M is;
// their base addresses are checked at launch): element by element the kernel is far slower than
// the others.
bool preferred(Problem const& p) {
  if (!check(p).empty() || std::max(p.m, p.n) < kMinRows) return false;
  SkinnyView const v = view_of(with_default_lds(p), Operands{});
  i64 const vec = 16 / i64(size_of(p.dtype));
  return vector_long(v, vec) && (vector_short(v, vec) || packed_short(v));
}

cudaError_t gemm(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  SkinnyView const v = view_of(p, ops);
  if (!v.why.empty()) return cudaErrorInvalidValue;
  return p.dtype == DType::f16 ? launch_in<__half>(v, p, ops, stream) : launch_in<__nv_bfloat16>(v, p, ops, stream);
}

}  // namespace skinny

}  // namespace loom
