// sm90 for an mn-major A and a k-major B (k: k-major, m: mn-major); see gemm_sm90.cuh. Built for sm_90a only.
#include "kernels/gemm_sm90.cuh"

namespace loom::sm90 {
template cudaError_t launch_majors<false, true>(Args const&, bool, cudaStream_t, std::string*);
}
