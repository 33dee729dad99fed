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

}  // namespace loom::harness
