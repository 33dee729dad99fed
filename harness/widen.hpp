// Device-side widening of 8-bit matrices to 16 bits, for reference_cublas's route of 8-bit gemm
// (cuBLAS's GemmEx takes no 8-bit input). Internal to the harness.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/problem.hpp"

namespace loom::harness {

// Writes dst[i] = src[i] for i < count, src e4m3 or e5m2 (`from`), dst bf16 or f16 (`to`), in
// `stream`. Exact: every e4m3 and e5m2 value, NaN aside, is a bf16 and an f16 value. A NaN (the
// poisoned padding) stays a NaN. Returns the launch error, or cudaErrorInvalidValue for other types.
cudaError_t widen_8bit(void const* src, DType from, void* dst, DType to, std::int64_t count, cudaStream_t stream);

// Where an operand's block scales are: element (r, c) of a rows x cols operand takes
// scale[(r / row_block) * row_stride + (c / col_block) * col_stride].
struct ScaleIndex {
  float const* scale = nullptr;  // device
  std::int64_t row_block = 1, row_stride = 0, col_block = 1, col_stride = 0;
};

// widen_8bit over a rows x cols operand stored in `order` with leading dimension ld (its storage
// from the first element to the last, padding included), each element times its block scale
// (`scale`): dst = src * scale in fp32 (exact: at most 4 significant bits times the scale's), then
// rounded to the 16-bit type once (exact for random_block_scales' scales, buffers.cpp). The
// padding between rows or columns is widened unscaled (a NaN stays a NaN).
cudaError_t widen_8bit_scaled(void const* src, DType from, void* dst, DType to, std::int64_t rows, std::int64_t cols,
                              Order order, std::int64_t ld, ScaleIndex scale, cudaStream_t stream);

}  // namespace loom::harness
