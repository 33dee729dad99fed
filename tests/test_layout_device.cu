// Device test: kernels partition counting, identity and global tensors through the layout core's
// device data path (layout/tensor.hpp), each thread writes the offsets or coordinates of its
// elements, and the host checks them against the ownership rules written out independently
// (thread grid arithmetic; the PTX ISA's mma.m16n8k16 accumulator fragment; the copy's thread
// arrangement).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "layout/tensor.hpp"
#include "tests/gpu_test_util.hpp"

namespace {

using namespace loom;

using loom::test::have_gpu;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

// A (64,32) column-major tile over 128 threads arranged (16,8) row-major.
constexpr Layout kTile = make_layout(make_shape(64, 32));
constexpr Layout kThreads = make_layout(make_shape(16, 8), LayoutRight{});
constexpr LocalPartition kPart = make_local_partition(kTile, kThreads);
constexpr i64 kVals = size(kPart.layout).v;
static_assert(is_static(kPart.layout) && kVals == 16);
static_assert(kPart.layout == make_layout(make_shape(4, 4), make_stride(16, 512)));

__global__ void partition_counting(i64* out) {
  int tid = threadIdx.x;
  auto mine = local_partition<kThreads>(make_tensor<kTile>(CountingEngine{}), tid);
#pragma unroll
  for (int v = 0; v < kVals; ++v) out[tid * kVals + v] = mine(v);
}

TEST(LayoutGpu, LocalPartitionOfCountingTensor) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU";
  i64* d = nullptr;
  CUDA_OK(cudaMalloc(&d, 128 * kVals * sizeof(i64)));
  CUDA_OK(cudaMemset(d, 0xff, 128 * kVals * sizeof(i64)));  // poison: -1 everywhere
  partition_counting<<<1, 128>>>(d);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<i64> got(128 * kVals);
  CUDA_OK(cudaMemcpy(got.data(), d, got.size() * sizeof(i64), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d));

  std::vector<int> hits(64 * 32, 0);
  for (int tid = 0; tid < 128; ++tid) {
    int r = tid / 8, c = tid % 8;  // row-major thread grid
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        int m = r + 16 * i, n = c + 8 * j;
        i64 want = m + 64 * n;
        ASSERT_EQ(got[tid * kVals + i + 4 * j], want) << "thread " << tid << " value " << i + 4 * j;
        ++hits[want];
      }
  }
  for (int h : hits) ASSERT_EQ(h, 1);
}

// Two by two warps of the m16n8k16 atom on a (32,16) column-major C tile.
constexpr TiledMMA kMma = make_tiled_mma(mma_atom_sm80_16x8x16(), make_layout(make_shape(2, 2, 1)));
constexpr Layout kC = make_layout(make_shape(32, 16));
constexpr TiledMMA::Partition kPartC = kMma.partition_C(kC);
static_assert(is_static(kPartC.layout) && size(kPartC.layout).v == 4);

__global__ void partition_mma_c(i64* out) {
  int tid = threadIdx.x;
  auto mine = partition_C<kMma>(make_tensor<kC>(CountingEngine{}), tid);
#pragma unroll
  for (int v = 0; v < 4; ++v) out[tid * 4 + v] = mine(v);
}

TEST(LayoutGpu, TiledMmaPartitionCMatchesPtxFragment) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU";
  i64* d = nullptr;
  CUDA_OK(cudaMalloc(&d, 128 * 4 * sizeof(i64)));
  CUDA_OK(cudaMemset(d, 0xff, 128 * 4 * sizeof(i64)));
  partition_mma_c<<<1, 128>>>(d);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<i64> got(128 * 4);
  CUDA_OK(cudaMemcpy(got.data(), d, got.size() * sizeof(i64), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d));

  for (int tid = 0; tid < 128; ++tid) {
    int warp = tid / 32, lane = tid % 32;
    int wm = warp % 2, wn = warp / 2;  // warps tile (2,2) column-major over M and N
    for (int v = 0; v < 4; ++v) {
      // PTX: c0,c1 at row lane/4, columns 2*(lane%4)+{0,1}; c2,c3 eight rows further down.
      int m = 16 * wm + lane / 4 + 8 * (v / 2);
      int n = 8 * wn + 2 * (lane % 4) + (v % 2);
      ASSERT_EQ(got[tid * 4 + v], m + 32 * n) << "thread " << tid << " value " << v;
    }
  }
}

// The whole chain on a ragged problem: mA (M,K) in global memory, the CTA's (32,8,k) tiles, a copy
// of 64 threads with 4 consecutive m each; every thread writes the coordinate (from the identity
// tensor) and the value (from global memory, which holds m + 1000 k) of each element it would copy,
// or -1 past the edge.
constexpr i64 kM = 45, kK = 19, kLd = 50;  // ragged in both modes, padded leading dimension
constexpr Tile kCta = make_tile(32, 8);
constexpr TiledCopy kCopy = make_tiled_copy(copy_atom(4), make_layout(make_shape(8, 8)), make_layout(make_shape(4, 1)));

__global__ void gmem_chain(float const* a, i64* out) {
  int const tid = threadIdx.x, m = blockIdx.x;
  auto mA = make_gmem_tensor<0>(a, Coord<2>{{kM, kK}}, Coord<2>{{1, kLd}});  // (M,K)
  auto gA = local_tile<kCta>(mA, m, _);                                      // (32,8,k)
  auto cA = local_tile<kCta>(make_identity_tensor(shape(mA)), m, _);         // (32,8,k) -> (m,k)
  auto tAgA = partition_S<kCopy>(gA, tid);                                   // (CPY,CPY_M,CPY_K,k)
  auto tAcA = partition_S<kCopy>(cA, tid);
  static_assert(size(tAgA(_, _, _, 0).layout).v == 4);
  for (int kt = 0; kt < 3; ++kt)
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      i64* o = out + (((m * 3 + kt) * 64 + tid) * 4 + v) * 3;
      Coord<2> const c = tAcA(_, _, _, kt)(v);
      bool const in = elem_less(c, shape(mA));
      o[0] = c[0], o[1] = c[1], o[2] = in ? i64(tAgA(_, _, _, kt)(v)) : -1;
    }
}

TEST(LayoutGpu, GmemChainGivesCoordinatesAndElements) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU";
  std::vector<float> host(kLd * kK, -7.f);
  for (i64 k = 0; k < kK; ++k)
    for (i64 m = 0; m < kM; ++m) host[m + kLd * k] = float(m + 1000 * k);
  float* a = nullptr;
  i64* d = nullptr;
  constexpr int kTilesM = 2, kOut = kTilesM * 3 * 64 * 4 * 3;
  CUDA_OK(cudaMalloc(&a, host.size() * sizeof(float)));
  CUDA_OK(cudaMemcpy(a, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMalloc(&d, kOut * sizeof(i64)));
  CUDA_OK(cudaMemset(d, 0xff, kOut * sizeof(i64)));
  gmem_chain<<<kTilesM, 64>>>(a, d);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<i64> got(kOut);
  CUDA_OK(cudaMemcpy(got.data(), d, got.size() * sizeof(i64), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(d));

  for (int m = 0; m < kTilesM; ++m)
    for (int kt = 0; kt < 3; ++kt)
      for (int tid = 0; tid < 64; ++tid)
        for (int v = 0; v < 4; ++v) {
          // Threads (8,8) column-major over the (32,8) tile, 4 consecutive m each.
          i64 const wm = 32 * m + 4 * (tid % 8) + v, wk = 8 * kt + tid / 8;
          i64 const* o = &got[(((m * 3 + kt) * 64 + tid) * 4 + v) * 3];
          ASSERT_EQ(o[0], wm) << "tile " << m << "," << kt << " thread " << tid << " value " << v;
          ASSERT_EQ(o[1], wk) << "tile " << m << "," << kt << " thread " << tid << " value " << v;
          ASSERT_EQ(o[2], wm < kM && wk < kK ? wm + 1000 * wk : -1) << "thread " << tid << " value " << v;
        }
}

}  // namespace
