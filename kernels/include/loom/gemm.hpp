// <loom/gemm.hpp>: Loom as a library. GEMM and elementwise add on the GPU of the calling thread
// (cudaSetDevice), in the caller's stream, with the caller's workspace.
//
//   D = alpha * A * B + beta * C      loom::gemm  (cublasGemmEx's semantics, fp32 compute)
//   D = alpha * A + beta * B          loom::add   (cublas<t>geam's)
//
// Every operand is row- or column-major with its own leading dimension: cuBLAS's column-major
// op(A) = A^T is Loom's Order::row with the same pointer and leading dimension. A and B are f32, f16
// or bf16; D and C are the input's type, or f32 for f16 and bf16 inputs. C may alias D.
//
// 8-bit inputs (e4m3, e5m2; compute capability 9.0): D = alpha * (scale_a A)(scale_b B) + beta*C,
// the scales per tensor or per block (GemmDesc::scale, GemmScales), accumulation in fp32, D and C
// bf16, f16 or f32. A and B are e4m3 x e4m3, e4m3 x e5m2 or e5m2 x e4m3 (GemmDesc::b_type), in any
// order, with 16-byte aligned bases. k-major A (row-major) and B (column-major), cuBLASLt's "TN",
// are read in place, their leading dimensions a multiple of 16; an mn-major one (any leading
// dimension) is first copied k-major into the workspace by a pass of its own (Hopper's wgmma reads
// 8-bit operands k-major only), which gemm_workspace_size counts. Other 8-bit cases are
// not_supported.
//
// What a call promises:
//   - It returns a Status: ok(), or a code and a one-line message that names the argument at fault
//     (a null pointer, a size, a leading dimension too small, an unsupported combination, a
//     workspace too small) or the CUDA error. It never prints, exits, aborts or throws.
//   - It only enqueues work on `stream`: no allocation, no memset, no host synchronization and no
//     host-to-device copy, so it can be captured in a CUDA graph and replayed any number of times.
//     Kernel launches are asynchronous: a fault inside a kernel shows in a later CUDA call.
//   - gemm needs gemm_workspace_size()'s bytes of workspace for this problem on this device (0 for
//     many problems; then the pointer may be null). Calls in flight at once, on different streams,
//     need a workspace each; calls in one stream may share one.
//   - f16 and bf16 give the same bits run after run (a split of K is summed in a fixed order). fp32
//     (the FFMA kernel) splits a long K with atomic additions into D, so its last bits may differ
//     between runs.
//   - Each call reads the calling thread's current device. What Loom keeps per device (its
//     properties, the last plan) is keyed by device and guarded, so threads and devices may call at
//     once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace loom {

enum class DType { f32, f16, bf16, e4m3, e5m2 };  // e4m3: OCP E4M3FN; e5m2: OCP E5M2
enum class Order { col, row };  // col: element (i,j) at i + j*ld; row: at i*ld + j
enum class ScaleMode { tensor, block };  // 8-bit inputs' scales: one per tensor, or per block (GemmScales)

enum class StatusCode {
  success = 0,
  invalid_value,        // an argument out of range: a null pointer, a negative size, a leading dimension too small
  not_supported,        // a valid combination Loom does not run (dtypes, K = 0, sizes past its limits)
  workspace_too_small,  // gemm_workspace_size() says how much the call needs
  no_device,            // no CUDA device, or the calling thread's device cannot be used
  arch_mismatch,        // this build holds no code for the device (built_architectures())
  cuda_error,           // a CUDA call or launch failed (cuda_error() says which)
};

// The result of a call. Copyable, no allocation: the message is held in place (truncated past 255
// characters).
class Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, char const* message, cudaError_t cuda = cudaSuccess) noexcept;
  bool ok() const noexcept { return code_ == StatusCode::success; }
  StatusCode code() const noexcept { return code_; }
  char const* message() const noexcept { return message_; }  // one line; "" when ok()
  cudaError_t cuda_error() const noexcept { return cuda_; }   // the CUDA error behind cuda_error, else cudaSuccess

 private:
  StatusCode code_ = StatusCode::success;
  cudaError_t cuda_ = cudaSuccess;
  char message_[256] = {};
};

char const* to_string(StatusCode code) noexcept;  // "success", "invalid_value", ...

// A GEMM's shape, types, storage orders and leading dimensions: A is m x k, B k x n, C and D m x n
// (D and C share dtype, order and leading dimension). A leading dimension of 0 means the smallest
// legal one (the operand packed).
struct GemmDesc {
  std::int64_t m = 0, n = 0, k = 0;
  DType ab_type = DType::bf16;  // A and B
  DType cd_type = DType::bf16;  // C and D
  std::optional<DType> b_type;  // B's type where it differs from A's (ab_type): the 8-bit pairs
  // 8-bit inputs: false (the default), each 128 of K's partial sum is added into fp32 accumulators
  // (Hopper's 8-bit MMA keeps fewer bits than fp32 as it accumulates, so the error of one long sum
  // grows with K); true, the tensor cores accumulate all of K (faster; cuBLASLt's FAST_ACCUM).
  bool fast_accum = false;
  // 8-bit inputs: what GemmScales' pointers hold. block (DeepSeek-V3's recipe, cuBLASLt's VEC128_32F
  // for A with BLK128x128_32F for B) needs the promotion: fast_accum with block is not_supported.
  ScaleMode scale = ScaleMode::tensor;
  Order a_order = Order::col, b_order = Order::col, cd_order = Order::col;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
};

// The bytes of workspace gemm() needs for `desc` on the current device, whatever alpha, beta and the
// pointers' alignment (16-byte aligned, e.g. from cudaMalloc).
Status gemm_workspace_size(GemmDesc const& desc, std::size_t* bytes) noexcept;

// 8-bit inputs' scales: device pointers to fp32, read when the kernel runs (so a captured graph
// replays with the values of the moment). Ignored for other inputs.
//   ScaleMode::tensor: one value each; null means 1.
//   ScaleMode::block: both required, 16-byte aligned. With kb = ceil(K/128) k blocks (the last one
//   partial when 128 does not divide K):
//     a: one scale per 128-element run of a row of A along K, kb x M values, m contiguous: row i's
//        run j (k in [128j, 128j + 128)) at a[i + j*M] (cuBLASLt's VEC128_32F);
//     b: one scale per 128 x 128 block of B, k blocks contiguous, each column of blocks
//        block_scale_ld(K) apart: B's block (j, l) (k in [128j, 128j + 128), n in [128l, 128l + 128))
//        at b[j + l*block_scale_ld(K)] (cuBLASLt's BLK128x128_32F).
//   D = alpha * sum_j (sA_j A_j)(sB_j B_j) + beta*C, each 128 of K's partial sum scaled in fp32.
struct GemmScales {
  float const* a = nullptr;
  float const* b = nullptr;
};
// The distance between B's columns of block scales: ceil(K/128) rounded up to a multiple of 4.
constexpr std::int64_t block_scale_ld(std::int64_t k) { return ((k + 127) / 128 + 3) / 4 * 4; }

// D = alpha * A * B + beta * C in `stream` (8-bit A and B scaled by `scales`). C is not read when
// beta == 0 (it may then be null). An M or N of 0 is a call that does nothing. `workspace` holds
// workspace_bytes bytes the call may use until it completes in the stream.
Status gemm(GemmDesc const& desc, float alpha, void const* a, void const* b, float beta, void const* c, void* d,
            void* workspace, std::size_t workspace_bytes, cudaStream_t stream, GemmScales const& scales = {}) noexcept;

// D = alpha * A + beta * B over m x n, all three of one dtype, each with its own order and leading
// dimension (0: packed). B is not read when beta == 0 (it may then be null).
struct AddDesc {
  std::int64_t m = 0, n = 0;
  DType type = DType::f32;
  Order a_order = Order::col, b_order = Order::col, d_order = Order::col;
  std::int64_t lda = 0, ldb = 0, ldd = 0;
};
Status add(AddDesc const& desc, float alpha, void const* a, float beta, void const* b, void* d,
           cudaStream_t stream) noexcept;

// The CUDA architectures this build of Loom holds code for, as CMake named them (e.g. "80;90a").
char const* built_architectures() noexcept;

}  // namespace loom
