#include "harness/widen.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <type_traits>

namespace loom::harness {
namespace {

constexpr int kThreads = 256;

// The 8-bit value through fp32 (exact: fp32 holds every e4m3 and e5m2 value) into the 16-bit type,
// exact again.
template <__nv_fp8_interpretation_t From, class To>
__global__ void widen_kernel(std::uint8_t const* __restrict__ src, To* __restrict__ dst, std::int64_t n) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    __half_raw const h = __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(src[i]), From);
    float const f = __half2float(__half(h));
    if constexpr (std::is_same_v<To, __half>)
      dst[i] = __float2half_rn(f);
    else
      dst[i] = __float2bfloat16_rn(f);
  }
}

// The same, each element of the logical rows x cols operand times its block scale; the padding
// between its rows or columns (storage index past the contiguous extent) unscaled.
template <__nv_fp8_interpretation_t From, class To>
__global__ void widen_scaled_kernel(std::uint8_t const* __restrict__ src, To* __restrict__ dst, std::int64_t n,
                                    std::int64_t contig, std::int64_t ld, bool col, ScaleIndex si) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    __half_raw const h = __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(src[i]), From);
    float f = __half2float(__half(h));
    std::int64_t const inner = i % ld, outer = i / ld;
    if (inner < contig) {
      std::int64_t const r = col ? inner : outer, c = col ? outer : inner;
      f *= si.scale[(r / si.row_block) * si.row_stride + (c / si.col_block) * si.col_stride];
    }
    if constexpr (std::is_same_v<To, __half>)
      dst[i] = __float2half_rn(f);
    else
      dst[i] = __float2bfloat16_rn(f);
  }
}

template <__nv_fp8_interpretation_t From, class To>
cudaError_t launch_scaled(void const* src, void* dst, std::int64_t rows, std::int64_t cols, Order order,
                          std::int64_t ld, ScaleIndex si, cudaStream_t s) {
  bool const col = order == Order::col;
  std::int64_t const contig = col ? rows : cols, outer = col ? cols : rows;
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  std::int64_t const count = ld * (outer - 1) + contig;
  unsigned const blocks = unsigned(std::min<std::int64_t>((count + kThreads - 1) / kThreads, 65536));
  widen_scaled_kernel<From, To><<<blocks, kThreads, 0, s>>>(static_cast<std::uint8_t const*>(src), static_cast<To*>(dst),
                                                            count, contig, ld, col, si);
  return cudaGetLastError();
}

template <__nv_fp8_interpretation_t From, class To>
cudaError_t launch(void const* src, void* dst, std::int64_t count, cudaStream_t s) {
  if (count <= 0) return cudaSuccess;
  unsigned const blocks = unsigned(std::min<std::int64_t>((count + kThreads - 1) / kThreads, 65536));
  widen_kernel<From, To><<<blocks, kThreads, 0, s>>>(static_cast<std::uint8_t const*>(src), static_cast<To*>(dst),
                                                     count);
  return cudaGetLastError();
}

}  // namespace

cudaError_t widen_8bit(void const* src, DType from, void* dst, DType to, std::int64_t count, cudaStream_t stream) {
  if (from == DType::e4m3 && to == DType::bf16) return launch<__NV_E4M3, __nv_bfloat16>(src, dst, count, stream);
  if (from == DType::e4m3 && to == DType::f16) return launch<__NV_E4M3, __half>(src, dst, count, stream);
  if (from == DType::e5m2 && to == DType::bf16) return launch<__NV_E5M2, __nv_bfloat16>(src, dst, count, stream);
  if (from == DType::e5m2 && to == DType::f16) return launch<__NV_E5M2, __half>(src, dst, count, stream);
  return cudaErrorInvalidValue;
}

cudaError_t widen_8bit_scaled(void const* src, DType from, void* dst, DType to, std::int64_t rows, std::int64_t cols,
                              Order order, std::int64_t ld, ScaleIndex scale, cudaStream_t stream) {
  if (!scale.scale || scale.row_block <= 0 || scale.col_block <= 0) return cudaErrorInvalidValue;
  auto go = [&](auto launcher) { return launcher(src, dst, rows, cols, order, ld, scale, stream); };
  if (from == DType::e4m3 && to == DType::bf16) return go(launch_scaled<__NV_E4M3, __nv_bfloat16>);
  if (from == DType::e4m3 && to == DType::f16) return go(launch_scaled<__NV_E4M3, __half>);
  if (from == DType::e5m2 && to == DType::bf16) return go(launch_scaled<__NV_E5M2, __nv_bfloat16>);
  if (from == DType::e5m2 && to == DType::f16) return go(launch_scaled<__NV_E5M2, __half>);
  return cudaErrorInvalidValue;
}

}  // namespace loom::harness
