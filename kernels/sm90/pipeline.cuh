// sm90's pipeline: the ring of kStages shared stages between the producer (TMA loads) and the
// consumers (wgmma), each stage with a full and an empty mbarrier, written once here.
//
// - The producer acquires a stage: it waits until the stage is empty in every CTA its loads go to
//   (its A boxes to the CTAs along N of it, which share A's tile, its B boxes to those along M),
//   then announces the stage's bytes on its full barrier (arrive.expect_tx), and its TMA loads
//   complete those bytes.
// - A consumer warpgroup waits for the stage to be full, issues its wgmmas, and once they are done
//   with the stage releases it: one arrival on the stage's empty barrier in every CTA that
//   multicasts into it, the CTAs along M and along N of it (so a CTA's empty barrier counts the
//   consumer warpgroups of those CTAs alone: 5 of a 4x2 cluster's 8; all of a 1-D cluster). The
//   arrivals come from one thread a destination, spread over the warpgroup's four warps
//   (release_target), so that each warp issues one arrival instruction and no warp issues them all
//   in series.
// - The producer's tail: before the CTA exits, the producer waits for every stage's last release,
//   so that no peer of the cluster still arrives on this CTA's barriers. This replaces a cluster
//   barrier at the kernel's end, which cost 1 µs a launch (every warp waited for the slowest CTA of
//   the cluster behind a release fence).
//
// Both sides walk the same sequence of (stage, phase) with a Ring, whose phase bit carries across
// work units, so the ring never drains between tiles.
#pragma once

#include "kernels/sm90/ptx.cuh"
#include "kernels/sm90/shared_storage.cuh"

namespace loom::sm90 {

// A position in the ring of stages: the stage index and the parity of its current phase.
template <int kStages>
struct Ring {
  int stage = 0;
  unsigned phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == kStages) stage = 0, phase ^= 1u;
  }
};

template <class Cfg>
struct Pipeline {
  static constexpr int kStages = Cfg::kStages, kCluster = Cfg::kCluster;
  // The CTAs whose producers write into a CTA's stages (and whose consumers it writes into): those
  // along M and along N of it, itself once.
  static constexpr int kWriters = Cfg::kClusterM + Cfg::kClusterN - 1;
  static_assert(kWriters <= 32 * 4, "one destination a thread of the warpgroup");

  // Destination q (0 to kWriters - 1) of a release by a consumer warpgroup of CTA `rank`: q <
  // kClusterM the CTAs along M of it (rank_m = q, its rank_n), then those along N but itself (its
  // rank_m, rank_n = j, j != its rank_n). Rank r sits at (r % kClusterM, r / kClusterM).
  static __host__ __device__ constexpr int writer(unsigned rank, int q) {
    int const rank_m = int(rank) % Cfg::kClusterM, rank_n = int(rank) / Cfg::kClusterM;
    if (q < Cfg::kClusterM) return q + rank_n * Cfg::kClusterM;
    int const j = q - Cfg::kClusterM;
    return rank_m + (j < rank_n ? j : j + 1) * Cfg::kClusterM;
  }
  // The CTA that thread `t` (0-127) of the warpgroup arrives on, or -1: destination q = t / 32 +
  // 4 (t % 32), the warps first, then the lanes.
  static __host__ __device__ constexpr int release_target(unsigned rank, int t) {
    int const q = t / 32 + 4 * (t % 32);
    return q < kWriters ? writer(rank, q) : -1;
  }
  // The CTAs that CTA `rank`'s A boxes go to (those along N of it, which share A's tile) and its B
  // boxes (those along M): cp.async.bulk.tensor's ctaMask, the producer's (producer_load).
  static __host__ __device__ constexpr unsigned short mask_a(unsigned rank) {
    int const rank_m = int(rank) % Cfg::kClusterM;
    unsigned short m = 0;
#pragma unroll
    for (int j = 0; j < Cfg::kClusterN; ++j) m = (unsigned short)(m | (1u << (rank_m + j * Cfg::kClusterM)));
    return m;
  }
  static __host__ __device__ constexpr unsigned short mask_b(unsigned rank) {
    int const rank_n = int(rank) / Cfg::kClusterM;
    unsigned short m = 0;
#pragma unroll
    for (int i = 0; i < Cfg::kClusterM; ++i) m = (unsigned short)(m | (1u << (rank_n * Cfg::kClusterM + i)));
    return m;
  }
  Smem<Cfg> smem;

  // One thread of the CTA, before the cluster barrier that makes the inits visible to the peers.
  __device__ __forceinline__ void init() const {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(smem.full(s), 1);                                           // the producer
      mbarrier_init(smem.empty(s), unsigned(Cfg::kConsumers * kWriters));  // the consumers along M and N of it
    }
  }

  // Producer: the stage at `ring` may be overwritten in every CTA of the cluster; `bytes` will land
  // on its full barrier.
  __device__ __forceinline__ void producer_acquire(Ring<kStages> const& ring, unsigned bytes) const {
    mbarrier_wait(smem.empty(ring.stage), ring.phase ^ 1u);
    mbarrier_arrive_expect_tx(smem.full(ring.stage), bytes);
  }
  // Producer, after its last stage: wait for every stage's last release by every consumer.
  __device__ __forceinline__ void producer_tail(Ring<kStages> ring) const {
    for (int i = 0; i < kStages; ++i) {
      mbarrier_wait(smem.empty(ring.stage), ring.phase ^ 1u);
      ring.advance();
    }
  }

  // Consumer: whether the stage at `ring` has landed, after one bounded try.
  __device__ __forceinline__ bool consumer_try(Ring<kStages> const& ring) const { return mbarrier_try_wait(smem.full(ring.stage), ring.phase); }
  // Consumer: the stage at `ring` has landed.
  __device__ __forceinline__ void consumer_wait(Ring<kStages> const& ring) const { mbarrier_wait(smem.full(ring.stage), ring.phase); }
  // Consumer: whether the stage at `ring` has landed, without waiting (test_wait).
  __device__ __forceinline__ bool consumer_test(Ring<kStages> const& ring) const { return mbarrier_test_wait(smem.full(ring.stage), ring.phase); }
  // Consumer: this warpgroup is done with `stage`; `target` is the thread's release_target (each
  // thread of the warpgroup calls this after the wgmma wait that ends the stage's reads). The
  // arrival keeps mbarrier.arrive's default .release at CTA scope (kernels/sm90/ptx.cuh says why
  // that suffices).
  __device__ __forceinline__ void consumer_release(int stage, int target) const {
    if (target >= 0) mbarrier_arrive_cluster(smem.empty(stage), unsigned(target));
  }
  // The same arrivals from one thread (`signals`: the warpgroup's first), in series: the 8-bit
  // accurate loops', whose registers are tighter (one arrival a thread spilled 8 bytes in the 8-bit
  // 128x256 block-scales kernel).
  __device__ __forceinline__ void consumer_release_serial(int stage, bool signals, unsigned rank) const {
    if (signals)
#pragma unroll
      for (int q = 0; q < kWriters; ++q) mbarrier_arrive_cluster(smem.empty(stage), unsigned(writer(rank, q)));
  }
};

}  // namespace loom::sm90
