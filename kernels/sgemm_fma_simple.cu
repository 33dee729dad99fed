// fma_simple: D = alpha*A*B + beta*C in fp32 on the FFMA pipe (no tensor cores, no TF32). A (MxK),
// B (KxN) and C/D (MxN) are each row- or column-major with their own leading dimension; C may alias
// D. The readable reference for kernels/sgemm_fma.cu, which is the same design tuned.
//
// Tiling: a CTA owns a 128x128 tile of D and walks K in steps of 8. A TiledMMA of the scalar FMA
// atom, 16x16 threads, with M and N permuted by (16,4):(4,1), gives each of the 256 threads a
// (1,(4,2),(4,2)) accumulator fragment: 4x4 blocks at 4 places of the tile, so that a thread's
// operands for one k are two runs of 4 consecutive elements in shared memory. The A and B tiles are
// stored (m,k) and (n,k), m and n contiguous. A TiledCopy of 256 threads, 4 elements each, moves
// each 128x8 operand tile from global to shared memory.
//
// Pipeline: one stage. Load the tile (scalar loads, predicated against the matrix edges), sync,
// accumulate 8 rank-1 updates, sync.
//
// Every index goes through the layout core, as a chain from the problem to the atom: the global
// matrices mA, mB, mC; the CTA's tiles gA = local_tile(mA) and so on; the thread's parts
// tAgA = partition_S(gA) of the copy and tCsA = partition_A(sA) of the MMA; and identity tensors
// tiled and partitioned the same way, whose coordinates predicate the edges.
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"
#include "layout/tensor.hpp"

namespace loom {
namespace {

struct SimpleArgs {
  GmemTensor<float const, 2> a;  // (M,K)
  GmemTensor<float const, 2> b;  // (N,K)
  GmemTensor<float const, 2> c;  // (M,N)
  GmemTensor<float, 2> d;        // (M,N)
  float alpha, beta;
};

struct SimpleConfig {
  static constexpr int kThreads = 256;
  static constexpr int kBM = 128, kBN = 128, kBK = 8;
  static constexpr TiledMMA kMma =
      make_tiled_mma(mma_atom_fma(), make_layout(make_shape(16, 16, 1), make_stride(16, 1, 0)),
                     make_tile(make_layout(make_shape(16, 4), make_stride(4, 1)),
                               make_layout(make_shape(16, 4), make_stride(4, 1)), _));
  static constexpr Tile kTileA = make_tile(kBM, kBK), kTileB = make_tile(kBN, kBK), kTileC = make_tile(kBM, kBN);
  // Shared tiles, (m,k) and (n,k) column-major.
  static constexpr Layout kSmemA = make_layout(make_shape(kBM, kBK));
  static constexpr Layout kSmemB = make_layout(make_shape(kBN, kBK));
  // The 256 threads cover a 128x8 operand tile with 4 consecutive m (or n) each.
  static constexpr TiledCopy kCopy =
      make_tiled_copy(copy_atom(1), make_layout(make_shape(32, 8)), make_layout(make_shape(4, 1)));
};
static_assert(SimpleConfig::kMma.size() == SimpleConfig::kThreads);
using C = SimpleConfig;

// Global (BM or BN, BK) tile -> shared, zero outside the matrix.
template <class GTile, class CTile, class STile>
__device__ __forceinline__ void load_tile(GTile const& tgA, CTile const& tcA, STile const& tsA, Coord<2> const& extent) {
  constexpr int N = int(size(tsA.layout).v);
  // Every load goes out before the first store: a store waits for its load, and loads behind it
  // in program order would wait too. The addresses are formed whether or not the element is inside,
  // so that the predicate guards the load alone.
  float r[N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
    float const* p = &tgA(i);
    r[i] = elem_less(tcA(i), extent) ? *p : 0.f;
  }
#pragma unroll
  for (int i = 0; i < N; ++i) tsA(i) = r[i];
}

__global__ void __launch_bounds__(C::kThreads, 2) sgemm_fma_simple_kernel(SimpleArgs const args) {
  __shared__ float smem_a[C::kBM * C::kBK];
  __shared__ float smem_b[C::kBN * C::kBK];
  int const tid = int(threadIdx.x), m = int(blockIdx.x), n = int(blockIdx.y);

  auto gA = local_tile<C::kTileA>(args.a, m, _);  // (BM,BK,k)
  auto gB = local_tile<C::kTileB>(args.b, n, _);  // (BN,BK,k)
  auto cA = local_tile<C::kTileA>(make_identity_tensor(shape(args.a)), m, _);  // (BM,BK,k) -> (m,k)
  auto cB = local_tile<C::kTileB>(make_identity_tensor(shape(args.b)), n, _);  // (BN,BK,k) -> (n,k)
  auto sA = make_tensor<C::kSmemA>(PtrEngine<float>{smem_a});  // (BM,BK)
  auto sB = make_tensor<C::kSmemB>(PtrEngine<float>{smem_b});  // (BN,BK)

  auto tAgA = partition_S<C::kCopy>(gA, tid);  // (CPY,CPY_M,CPY_K,k)
  auto tAcA = partition_S<C::kCopy>(cA, tid);
  auto tAsA = partition_D<C::kCopy>(sA, tid);  // (CPY,CPY_M,CPY_K)
  auto tBgB = partition_S<C::kCopy>(gB, tid);
  auto tBcB = partition_S<C::kCopy>(cB, tid);
  auto tBsB = partition_D<C::kCopy>(sB, tid);

  auto tCsA = partition_A<C::kMma>(sA, tid);  // (MMA,MMA_M,MMA_K) = (1,(4,2),8)
  auto tCsB = partition_B<C::kMma>(sB, tid);  // (MMA,MMA_N,MMA_K) = (1,(4,2),8)
  auto tCgC = partition_C<C::kMma>(local_tile<C::kTileC>(args.c, m, n), tid);  // (MMA,MMA_M,MMA_N)
  auto tCgD = partition_C<C::kMma>(local_tile<C::kTileC>(args.d, m, n), tid);
  auto tCcC = partition_C<C::kMma>(local_tile<C::kTileC>(make_identity_tensor(shape(args.c)), m, n), tid);
  auto acc = make_fragment_like<float>(tCgC);  // (1,(4,2),(4,2))
#pragma unroll
  for (int i = 0; i < int(decltype(acc)::kSize); ++i) acc.data[i] = 0.f;

  int const k_tiles = int((shape(args.a)[1] + C::kBK - 1) / C::kBK);
  for (int kt = 0; kt < k_tiles; ++kt) {
    load_tile(tAgA(_, _, _, kt), tAcA(_, _, _, kt), tAsA, shape(args.a));
    load_tile(tBgB(_, _, _, kt), tBcB(_, _, _, kt), tBsB, shape(args.b));
    __syncthreads();
#pragma unroll
    for (int k = 0; k < C::kBK; ++k)
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc(0, i, j) += tCsA(0, i, k) * tCsB(0, j, k);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < int(decltype(acc)::kSize); ++i) {
    if (!elem_less(tCcC(i), shape(args.c))) continue;
    // beta == 0 means C is not read (it may hold NaNs), as in BLAS.
    float const cv = args.beta == 0.f ? 0.f : args.beta * tCgC(i);
    tCgD(i) = args.alpha * acc(i) + cv;
  }
}

cudaError_t launch(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  SimpleArgs args{operand_tensor(static_cast<float const*>(ops.a), p.a, p.lda, p.m, p.k, false),  // A(m, k)
                  operand_tensor(static_cast<float const*>(ops.b), p.b, p.ldb, p.n, p.k, true),   // B(k, n) as (n, k)
                  operand_tensor(static_cast<float const*>(ops.c), p.c, p.ldc, p.m, p.n, false),  // C(m, n)
                  operand_tensor(static_cast<float*>(ops.d), p.c, p.ldc, p.m, p.n, false),        // D(m, n)
                  float(p.alpha), float(p.beta)};
  dim3 grid(unsigned((p.m + C::kBM - 1) / C::kBM), unsigned((p.n + C::kBN - 1) / C::kBN));
  sgemm_fma_simple_kernel<<<grid, C::kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

std::string check(Problem const& p) {
  if ((p.m + C::kBM - 1) / C::kBM > 0x7fffffff) return "M is too large for the grid";
  if ((p.n + C::kBN - 1) / C::kBN > 65535) return "N is too large for the grid (at most 65535 tiles of 128)";
  return {};
}

}  // namespace

KernelInfo sgemm_fma_simple_kernel_info() {
  return {"fma_simple", OpKind::gemm, {DType::f32}, 80,
          "fp32 GEMM on FFMA: 128x128x8 tiles, TiledMMA of the FMA atom, one stage, scalar loads",
          check, launched<launch>};
}

}  // namespace loom
