// fma kernels for A m-contiguous and B k-contiguous in global memory (A as (m,k) and B as (n,k),
// as the kernel sees them after any D^T swap): 256x128 and 128x128 tiles with 16-byte loads,
// 128x128 without. The kernel is in sgemm_fma.cuh, the launcher and registration in sgemm_fma.cu.
#include "kernels/sgemm_fma.cuh"

namespace loom::sgemm_fma {

cudaError_t launch_01(KernelProblem const& p, int bm, bool vec, i64 split, cudaStream_t s) {
  return launch_majorness<false, true>(p, bm, vec, split, s);
}

}  // namespace loom::sgemm_fma
