// sm80 kernels for a k-major A and an mn-major B (kernels/gemm_sm80.cuh):
// bf16 and fp16, 16-byte copies or narrower ones.
#include "kernels/gemm_sm80.cuh"

namespace loom::sm80 {
template cudaError_t launch_majors<true, false>(Args const&, bool, bool, cudaStream_t);
}  // namespace loom::sm80
