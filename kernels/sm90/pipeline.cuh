// sm90's pipeline: the ring of kStages shared stages between the producer (TMA loads) and the
// consumers (wgmma), each stage with a full and an empty mbarrier, written once here.
//
// - The producer acquires a stage: it waits until the stage is empty in every CTA of the cluster
//   (its B boxes go to all of them), then announces the stage's bytes on its full barrier
//   (arrive.expect_tx), and its TMA loads complete those bytes.
// - A consumer warpgroup waits for the stage to be full, issues its wgmmas, and once they are done
//   with the stage releases it: one arrival on the stage's empty barrier in every CTA of the
//   cluster, from the warpgroup's first thread (the empty barrier counts every consumer warpgroup
//   of the cluster).
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
  Smem<Cfg> smem;

  // One thread of the CTA, before the cluster barrier that makes the inits visible to the peers.
  __device__ __forceinline__ void init() const {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(smem.full(s), 1);                                           // the producer
      mbarrier_init(smem.empty(s), unsigned(Cfg::kConsumers * kCluster));  // every consumer of the cluster
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
  // Consumer: this warpgroup is done with `stage`; `signals` is true in its first thread only. The
  // arrival keeps mbarrier.arrive's default .release at CTA scope (kernels/sm90/ptx.cuh says why
  // that suffices).
  __device__ __forceinline__ void consumer_release(int stage, bool signals) const {
    if (signals)
#pragma unroll
      for (int r = 0; r < kCluster; ++r) mbarrier_arrive_cluster(smem.empty(stage), unsigned(r));
  }
};

}  // namespace loom::sm90
