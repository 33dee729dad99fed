#include "bench/gpu_util.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "harness/harness.hpp"
#include "harness/splitmix64.hpp"
#include "kernels/numeric.cuh"

namespace loom::bench {
namespace {

constexpr int kThreads = 256;

// Reads every 16-byte word of the buffer. The XOR of the (zero) contents is compared with a
// constant it never equals, so the loads cannot be optimized away and nothing is ever written.
__global__ void l2_flush_kernel(uint4 const* __restrict__ p, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    uint4 const v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

using loom::splitmix64;

// Element i: k = hash(seed, i) mod (2^(bits+1) + 1) - 2^bits, a value in [-2^bits, 2^bits];
// the element is k * 2^-bits, or 0.5 for k = 0. harness::random_values hashes the same way but
// maps the hash to k by a multiply-high, and indexes logical column-major elements, so its
// values differ from these.
// The 8-bit formats as one byte each: the grid's value rounded to the format (nearest even), one
// that rounds to 0 giving 0.5, as harness::random_values does.
template <__nv_fp8_interpretation_t Format>
struct Fp8 {
  std::uint8_t bits;
};
static_assert(sizeof(Fp8<__NV_E4M3>) == 1 && alignof(Fp8<__NV_E4M3>) == 1, "one byte per element");

template <class T>
__device__ T from_grid(float x) {
  return loom::from_f32<T>(x);
}
template <__nv_fp8_interpretation_t Format>
__device__ Fp8<Format> fp8_from_grid(float x) {
  std::uint8_t const bits = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, Format);
  return {(bits & 0x7F) ? bits : std::uint8_t(__nv_cvt_float_to_fp8(0.5f, __NV_SATFINITE, Format))};
}
template <>
__device__ Fp8<__NV_E4M3> from_grid<Fp8<__NV_E4M3>>(float x) {
  return fp8_from_grid<__NV_E4M3>(x);
}
template <>
__device__ Fp8<__NV_E5M2> from_grid<Fp8<__NV_E5M2>>(float x) {
  return fp8_from_grid<__NV_E5M2>(x);
}

template <class T>
__global__ void fill_kernel(T* p, std::int64_t n, std::uint64_t key, int bits) {
  std::uint64_t const range = (std::uint64_t(1) << (bits + 1)) + 1;
  float const scale = 1.0f / float(1 << bits);
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t const r = splitmix64(key ^ (std::uint64_t(i) * 0xD1B54A32D192ED03ull));
    std::int64_t const k = std::int64_t(r % range) - (std::int64_t(1) << bits);
    p[i] = from_grid<T>(k == 0 ? 0.5f : float(k) * scale);
  }
}

template <class T>
cudaError_t launch_fill(void* data, std::int64_t count, std::uint64_t seed, int bits, cudaStream_t s) {
  if (count <= 0) return cudaSuccess;
  unsigned const blocks = unsigned(std::min<std::int64_t>((count + kThreads - 1) / kThreads, 65536));
  fill_kernel<T><<<blocks, kThreads, 0, s>>>(static_cast<T*>(data), count, splitmix64(seed), bits);
  return cudaGetLastError();
}

}  // namespace

std::size_t L2Flusher::bytes_for(std::size_t l2_bytes) {
  std::size_t const b = std::max<std::size_t>(2 * l2_bytes, std::size_t(1) << 20);
  return (b + 15) / 16 * 16;
}

L2Flusher::L2Flusher(std::size_t l2_bytes, int sm_count) {
  bytes_ = bytes_for(l2_bytes);
  LOOM_CUDA(cudaMalloc(&buf_, bytes_));
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&sink_), sizeof(unsigned));
  if (e == cudaSuccess) e = cudaMemset(buf_, 0, bytes_);
  if (e == cudaSuccess) e = cudaMemset(sink_, 0, sizeof(unsigned));
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    cudaFree(buf_);
    if (sink_) cudaFree(sink_);
    harness::throw_cuda(e, "L2Flusher: allocating the flush buffer");
  }
  blocks_ = std::max(1, sm_count) * 8;  // enough warps in flight to read at full bandwidth
}

L2Flusher::~L2Flusher() {
  cudaFree(buf_);
  cudaFree(sink_);
}

cudaError_t L2Flusher::flush(cudaStream_t stream) {
  l2_flush_kernel<<<blocks_, kThreads, 0, stream>>>(static_cast<uint4 const*>(buf_), bytes_ / 16, sink_);
  return cudaGetLastError();
}

cudaError_t fill_random_device(void* data, DType dtype, std::int64_t count, std::uint64_t seed,
                               cudaStream_t stream) {
  switch (dtype) {
    case DType::f32: return launch_fill<float>(data, count, seed, 23, stream);
    case DType::f16: return launch_fill<__half>(data, count, seed, 11, stream);
    case DType::bf16: return launch_fill<__nv_bfloat16>(data, count, seed, 8, stream);
    case DType::e4m3: return launch_fill<Fp8<__NV_E4M3>>(data, count, seed, 23, stream);
    case DType::e5m2: return launch_fill<Fp8<__NV_E5M2>>(data, count, seed, 23, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace loom::bench
