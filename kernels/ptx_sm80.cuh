// Inline-PTX wrappers for the Ampere tensor-core path (sm_80 and later), the one place Loom's sm80
// kernel gets them from: cp.async (global -> shared, with zero fill), ldmatrix and mma.sync
// m16n8k16. Each cites the PTX ISA section it follows by name (the section numbers move between
// ISA versions). The Hopper wrappers are kernels/sm90/ptx.cuh.
//
// All shared addresses are 32-bit shared-window addresses (the layout core's smem_address()).
#pragma once

#include <cstdint>

namespace loom::sm80 {

// PTX ISA "Data Movement and Conversion Instructions: cp.async": an asynchronous copy of kBytes
// (4, 8 or 16) from global to shared memory; the bytes past src_bytes (0 .. kBytes) are zero-filled
// and not read (the src-size operand). 16-byte copies take .cg (bypass L1: the tile is read once
// per CTA), the narrower ones .ca, the only form they have.
template <int kBytes>
__device__ __forceinline__ void cp_async(std::uint32_t dst, void const* src, int src_bytes) {
  if constexpr (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(kBytes), "r"(src_bytes));
}
// The same, 16 bytes, all of them read.
__device__ __forceinline__ void cp_async_16(std::uint32_t dst, void const* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
// PTX ISA "Data Movement and Conversion Instructions: cp.async.commit_group" and
// "...: cp.async.wait_group": the thread's cp.asyncs so far form one group; wait until at most
// kPending groups are pending.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory"); }

// PTX ISA "Warp Level Matrix Load Instruction: ldmatrix": four 8x8 matrices of 16-bit elements
// from shared memory, each thread naming one row's address (threads 8i..8i+7: matrix i); .trans
// transposes each matrix (an mn-major operand tile). Register j of a thread holds its two elements
// of matrix j.
template <bool kTrans>
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t& r0, std::uint32_t& r1, std::uint32_t& r2, std::uint32_t& r3,
                                            std::uint32_t addr) {
  if constexpr (kTrans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}

// PTX ISA "Warp Level Matrix Multiply-Accumulate Instructions: mma"
// (mma.sync.aligned.m16n8k16.row.col, .f32 accumulators, .bf16 or .f16 inputs): D = A B + D for a
// 16x16 A (four registers of element pairs), a 16x8 B (two) and a 16x8 fp32 D (four), in the
// fragments of "Matrix Fragments for mma.m16n8k16" (Loom: mma_atom_sm80_16x8x16()).
template <bool kBf16>
__device__ __forceinline__ void mma_16816(float& d0, float& d1, float& d2, float& d3, std::uint32_t a0, std::uint32_t a1,
                                          std::uint32_t a2, std::uint32_t a3, std::uint32_t b0, std::uint32_t b1) {
  if constexpr (kBf16)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

}  // namespace loom::sm80
