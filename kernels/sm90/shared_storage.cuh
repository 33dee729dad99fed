// sm90's shared memory, as one struct: the operand stages, the epilogue's buffers, the pipeline's
// barriers and the split-K verdicts. The kernel places it at the first 1024-byte boundary of its
// dynamic shared memory (the 128-byte swizzle's repeat: every stage, box and epilogue buffer must
// start on one, which the offsets below keep since each stage is a multiple of 1024 bytes).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/sm90/ptx.cuh"
#include "kernels/sm90/tile_menu.hpp"

namespace loom::sm90 {

template <class Cfg>
struct SharedStorage {
  static constexpr int kStages = Cfg::kStages, kConsumers = Cfg::kConsumers;
  static constexpr int kEpilogueBytes = tile_epilogue_bytes(Cfg::T::kTileShape);

  unsigned char a[kStages][Cfg::A::kStageBytes];  // A's stages, (BM, 64) each
  unsigned char b[kStages][Cfg::B::kStageBytes];  // B's stages, (BN, 64) each
  // The TMA-store epilogue's buffers: tile_epilogue_buffers' per consumer warpgroup (none without
  // it; one byte keeps the array legal).
  unsigned char epilogue[kEpilogueBytes > 0 ? kEpilogueBytes : 1];
  std::uint64_t full[kStages];   // a stage's bytes have landed (the producer's expect_tx, TMA's complete_tx)
  std::uint64_t empty[kStages];  // every consumer of the cluster is done with a stage
  std::uint64_t start;           // warpgroup 0's lead over warpgroup 1 (kernels/sm90/mainloop.cuh)
  int verdict[kConsumers];       // split-K: whether the warpgroup's split arrived last

  // The bytes the kernel asks for: the struct and the slack to align its base to 1024.
  static constexpr int kSmemBytes = int(sizeof(SharedStorage)) + 1024;
};

// The handles of a SharedStorage at shared address `base` (its 32-bit shared-window address) and
// generic pointer `ptr`.
template <class Cfg>
struct Smem {
  using S = SharedStorage<Cfg>;
  unsigned base;
  S* ptr;

  __device__ __forceinline__ SmemBuffer a(int stage) const { return SmemBuffer{base + unsigned(offsetof(S, a) + stage * Cfg::A::kStageBytes)}; }
  __device__ __forceinline__ SmemBuffer b(int stage) const { return SmemBuffer{base + unsigned(offsetof(S, b) + stage * Cfg::B::kStageBytes)}; }
  static constexpr int kEpiStride = S::kEpilogueBytes / Cfg::kConsumers;  // one warpgroup's buffers
  __device__ __forceinline__ SmemBuffer epilogue(int w) const { return SmemBuffer{base + unsigned(offsetof(S, epilogue) + w * kEpiStride)}; }
  __device__ __forceinline__ unsigned char* epilogue_ptr(int w) const { return ptr->epilogue + w * kEpiStride; }
  __device__ __forceinline__ Barrier full(int stage) const { return Barrier{base + unsigned(offsetof(S, full) + 8 * stage)}; }
  __device__ __forceinline__ Barrier empty(int stage) const { return Barrier{base + unsigned(offsetof(S, empty) + 8 * stage)}; }
  __device__ __forceinline__ Barrier start() const { return Barrier{base + unsigned(offsetof(S, start))}; }
  __device__ __forceinline__ volatile int* verdict(int w) const { return ptr->verdict + w; }
};

// The storage's placement is what the TMA boxes, the swizzle and the barriers need.
template <class Cfg>
constexpr bool shared_storage_valid() {
  using S = SharedStorage<Cfg>;
  return offsetof(S, a) == 0 && offsetof(S, b) % 1024 == 0 && offsetof(S, epilogue) % 1024 == 0 &&
         offsetof(S, full) % 8 == 0 && S::kSmemBytes <= kSmemLimit;
}

}  // namespace loom::sm90
