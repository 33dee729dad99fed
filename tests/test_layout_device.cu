// Device test: kernels partition counting tensors through the layout core, each thread writes the
// offsets of its elements, and the host checks them against the ownership rules written out
// independently (thread grid arithmetic; the PTX ISA's mma.m16n8k16 accumulator fragment).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "layout/tensor.hpp"

namespace {

using namespace loom;

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

// A (64,32) column-major tile over 128 threads arranged (16,8) row-major.
constexpr Layout kTile = make_layout(make_shape(64, 32));
constexpr Layout kThreads = make_layout(make_shape(16, 8), LayoutRight{});
// __device__ constexpr: one object for host static_asserts and device code, folded by nvcc.
__device__ constexpr LocalPartition kPart = make_local_partition(kTile, kThreads);
constexpr i64 kVals = size(kPart.layout).v;
static_assert(is_static(kPart.layout) && kVals == 16);
static_assert(kPart.layout == make_layout(make_shape(4, 4), make_stride(16, 512)));

__global__ void partition_counting(i64* out) {
  int tid = threadIdx.x;
  StaticTensor<kPart.layout, CountingIterator> mine{CountingIterator{kPart.offset(tid)}};
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
__device__ constexpr TiledMMA::Partition kPartC = kMma.partition_C(kC);
static_assert(is_static(kPartC.layout) && size(kPartC.layout).v == 4);

__global__ void partition_mma_c(i64* out) {
  int tid = threadIdx.x;
  StaticTensor<kPartC.layout, CountingIterator> mine{CountingIterator{kPartC.offset(tid)}};
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

}  // namespace
