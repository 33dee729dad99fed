// sm90's kernel parameters: the one block the host fills (kernels/sm90/launch.cuh) and every piece
// of the kernel reads. The schedule in it was decided on the host (kernels/sm90/schedule.hpp); the
// kernel derives no count of its own: it reads the tile scheduler's fields from this block.
#pragma once

#include <cuda.h>

#include "kernels/epilogue.cuh"
#include "kernels/problem.hpp"
#include "kernels/sm90/schedule.hpp"
#include "layout/tensor.hpp"

namespace loom::sm90 {

struct Params {
  CUtensorMap tma_a;          // A (m, k) in boxes of Config::A::kBox
  CUtensorMap tma_b;          // B (n, k) in boxes of Config::B::kBox
  CUtensorMap tma_d;          // D (m, n) in boxes of EpilogueConfig<T>::kBox, when tma_store
  Coord<2> shape_a, shape_b;  // (M, K), (N, K)
  EpilogueArgs ep;            // C and D for the direct epilogue (and D's shape for both)
  TileScheduler sched;        // the host's Schedule, in the kernel's 32-bit form
  DType out;                  // D's type
  bool tma_store;             // the epilogue stores D with TMA (else straight from the registers)
  float* partials;            // split-K: Schedule::partial_bytes of fp32 partial tiles
  unsigned long long* arrivals;  // split-K: one counter word per slot (epilogue.cuh's split_k_fixup)
  unsigned long long generation;  // split-K: this launch's tag in those words (1 to 2^48 - 1)
  // 8-bit inputs: the per-tensor scales of A and B (device pointers, read at the kernel's start, so
  // that a captured graph takes new ones): D = alpha sA sB A B. Unused for 16-bit inputs.
  float const* scale_a;
  float const* scale_b;
  // 8-bit block scales (ScaleMode::block, the accurate mode only), in place of the tensor scales:
  // scale_a holds one fp32 per row of A and k tile, row r's k tile kt at scale_a[r + kt*a_rows]; scale_b
  // one per 128 x 128 block of B, block (n/128, kt) at scale_b[(n/128)*b_ld + kt]. The kernel's k tile
  // is 128 of K, so each tile's partial takes one scale of A a row and one of B a block of columns.
  // A swapped plan never carries them (the plan keeps A the operand of the per-row scales). Read by
  // the block scales' kernel alone (gemm_sm90_kernel's kBlock, which the launcher picks for them).
  int a_rows;  // M as the kernel sees it: the k tile stride of scale_a
  int b_ld;    // loom::block_scale_ld(K)
};

}  // namespace loom::sm90
