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
// accumulate 8 rank-1 updates, sync. Global memory is a DynamicLayout per operand; coordinates come
// from static layouts of the tile.
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"
#include "layout/tensor.hpp"

namespace loom {
namespace {

struct SimpleArgs {
  float const* a;
  float const* b;
  float const* c;
  float* d;
  DynamicLayout<2> ga;  // (m, k) -> offset in A
  DynamicLayout<2> gb;  // (n, k) -> offset in B
  DynamicLayout<2> gc;  // (m, n) -> offset in C and in D
  float alpha, beta;
};

struct SimpleConfig {
  static constexpr int kThreads = 256;
  static constexpr int kBM = 128, kBN = 128, kBK = 8;
  static constexpr TiledMMA kMma =
      make_tiled_mma(mma_atom_fma(), make_layout(make_shape(16, 16, 1), make_stride(16, 1, 0)),
                     make_tile(make_layout(make_shape(16, 4), make_stride(4, 1)),
                               make_layout(make_shape(16, 4), make_stride(4, 1)), _));
  // Shared tiles, (m,k) and (n,k) column-major.
  static constexpr Layout kSmemA = make_layout(make_shape(kBM, kBK));
  static constexpr Layout kSmemB = make_layout(make_shape(kBN, kBK));
  // The 256 threads cover a 128x8 operand tile with 4 consecutive m (or n) each.
  static constexpr TiledCopy kCopy =
      make_tiled_copy(copy_atom(1), make_layout(make_shape(32, 8)), make_layout(make_shape(4, 1)));
};
static_assert(SimpleConfig::kMma.size() == SimpleConfig::kThreads);

// Every layout the kernel evaluates, as __device__ constants so that nvcc folds them.
using C = SimpleConfig;
// Operand tile index -> smem offset, and -> (mn, k) coordinate. Both operand tiles are 128x8.
__device__ constexpr TiledCopy::Partition kCopyIdx = C::kCopy.partition_S(make_layout(make_shape(C::kBM, C::kBK)));
__device__ constexpr TiledCopy::Partition kCopySmem = C::kCopy.partition_D(C::kSmemA);
__device__ constexpr Layout kTileMN = make_layout(make_shape(C::kBM, C::kBK), make_stride(1, 0));
__device__ constexpr Layout kTileK = make_layout(make_shape(C::kBM, C::kBK), make_stride(0, 1));
// A thread's operand elements in the shared tiles: (1,(4,2),k).
__device__ constexpr TiledMMA::Partition kPartA = C::kMma.partition_A(C::kSmemA);
__device__ constexpr TiledMMA::Partition kPartB = C::kMma.partition_B(C::kSmemB);
// A thread's accumulators as indices of the column-major C tile, and index -> (m, n).
__device__ constexpr TiledMMA::Partition kPartC = C::kMma.partition_C(make_layout(make_shape(C::kBM, C::kBN)));
__device__ constexpr Layout kTileM = make_layout(make_shape(C::kBM, C::kBN), make_stride(1, 0));
__device__ constexpr Layout kTileN = make_layout(make_shape(C::kBM, C::kBN), make_stride(0, 1));
constexpr Layout kAcc = make_layout(shape(kPartC.layout));  // registers, compact
static_assert(size(kAcc).v == 64 && size(kCopyIdx.layout).v * C::kThreads == C::kBM * C::kBK);

// Global (mn0 + mn, k0 + k) over the tile -> smem, zero outside the matrix.
__device__ __forceinline__ void load_tile(float* smem, float const* g, DynamicLayout<2> const& gl,
                                          i64 mn0, i64 k0) {
  constexpr int N = int(size(kCopyIdx.layout).v);
  i64 const idx = kCopyIdx.offset(threadIdx.x), soff = kCopySmem.offset(threadIdx.x);
#pragma unroll
  for (int v = 0; v < N; ++v) {
    i64 const t = idx + kCopyIdx.layout(v);
    i64 const mn = mn0 + kTileMN(t), k = k0 + kTileK(t);
    smem[soff + kCopySmem.layout(v)] = gl.contains(mn, k) ? g[gl(mn, k)] : 0.f;
  }
}

__global__ void __launch_bounds__(C::kThreads) sgemm_fma_simple_kernel(SimpleArgs const args) {
  __shared__ float sa[C::kBM * C::kBK];
  __shared__ float sb[C::kBN * C::kBK];
  i64 const m0 = i64(blockIdx.x) * C::kBM, n0 = i64(blockIdx.y) * C::kBN;
  i64 const K = args.ga.shape[1];

  Fragment<float, kAcc> acc;
#pragma unroll
  for (int i = 0; i < int(decltype(acc)::kSize); ++i) acc.data[i] = 0.f;

  i64 const pa = kPartA.offset(threadIdx.x), pb = kPartB.offset(threadIdx.x);
  for (i64 k0 = 0; k0 < K; k0 += C::kBK) {
    load_tile(sa, args.a, args.ga, m0, k0);
    load_tile(sb, args.b, args.gb, n0, k0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < C::kBK; ++k)
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc(0, i, j) += sa[pa + kPartA.layout(0, i, k)] * sb[pb + kPartB.layout(0, j, k)];
    __syncthreads();
  }

  i64 const pc = kPartC.offset(threadIdx.x);
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      i64 const t = pc + kPartC.layout(0, i, j);
      i64 const m = m0 + kTileM(t), n = n0 + kTileN(t);
      if (!args.gc.contains(m, n)) continue;
      // beta == 0 means C is not read (it may hold NaNs), as in BLAS.
      float const cv = args.beta == 0.f ? 0.f : args.beta * args.c[args.gc(m, n)];
      args.d[args.gc(m, n)] = args.alpha * acc(0, i, j) + cv;
    }
}

cudaError_t launch(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  SimpleArgs args{static_cast<float const*>(ops.a), static_cast<float const*>(ops.b),
                  static_cast<float const*>(ops.c), static_cast<float*>(ops.d),
                  operand_layout(p.a, p.lda, p.m, p.k, false),   // A(m, k)
                  operand_layout(p.b, p.ldb, p.n, p.k, true),    // B(k, n) seen as (n, k)
                  operand_layout(p.c, p.ldc, p.m, p.n, false),   // C(m, n)
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
          check, launch};
}

}  // namespace loom
