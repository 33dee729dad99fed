// Inline-PTX wrappers for Hopper (sm_90a), the one place Loom's Hopper kernel gets them from: the
// warpgroup MMA (wgmma), mbarriers, TMA loads and stores (cp.async.bulk.tensor), clusters,
// setmaxnreg, named barriers and the proxy fence that orders generic shared-memory writes before
// wgmma or TMA reads them. Each wrapper cites the PTX ISA section it follows (section numbers as in
// PTX ISA 8.x; the names are the stable reference).
//
// The wrappers compile to their instruction only where it exists: sm_90a, i.e. __CUDA_ARCH__ >= 900
// with __CUDA_ARCH_FEAT_SM90_ALL (nvcc -gencode arch=compute_90a,code=sm_90a). The header also
// compiles for other targets (the build does "80;90a", and the host pass): there every wrapper's
// body is a __trap() in device code and empty in the host pass, so a kernel must not reach them
// except on sm_90a. Test LOOM_SM90A_ENABLED to compile a kernel body only where it can run.
//
// Shared memory is named by typed handles, so that arguments in the wrong order do not compile:
// Barrier (an mbarrier), SmemBuffer (the first byte of a TMA box or an operand stage), and
// CUtensorMap const* for a tensor map. wgmma's operands are 64-bit matrix descriptors
// (layout/gmma.hpp's make_gmma_desc(...).at(address).encode()).
//
// API (namespace loom::sm90, all __device__, all warpgroup-collective except the fence and the
// address conversion):
//
//   unsigned smem_u32(void const* p)           shared-window address of a __shared__ pointer
//   void fence_proxy_async_shared_cta()         fence.proxy.async.shared::cta
//   void wgmma_fence()                          wgmma.fence.sync.aligned
//   void wgmma_commit_group()                   wgmma.commit_group.sync.aligned
//   template <int N> void wgmma_wait_group()    wgmma.wait_group.sync.aligned N
//   template <int K> void wgmma_fence_operand(float (&d)[K])
//                                               compiler-only: pins the accumulators' reads after
//                                               the wait (an empty asm on each register)
//   template <WgmmaType T, int N, int kTransA, int kTransB>
//   void wgmma_ss(float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d)
//       wgmma.mma_async.sync.aligned.m64n<N>k16.f32.<T>.<T> with A and B in shared memory:
//       D = A B^T + (scale_d != 0 ? D : 0), A 64x16, B Nx16 (both as M/N x K), D 64xN fp32 in the
//       N/2 registers of each thread in the order of the ISA's D fragment (Loom:
//       mma_atom_sm90_64xNx16(N).c_tv). kTransA/kTransB are imm-trans-a/b: 0 for a K-major
//       operand, 1 for MN-major (GmmaMajor::kMN). imm-scale-a/b are 1 (no negation).
//   template <WgmmaType TA, WgmmaType TB, int N>
//   void wgmma_ss_k32(float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d)
//       wgmma.mma_async.sync.aligned.m64n<N>k32.f32.<TA>.<TB>, TA/TB e4m3 or e5m2, both K-major
//       N in {8, 16, 24, 32, 48, 64, 96, 112, 128, 144, ..., 240, 256} (gen_wgmma.py's NS lists them).
//
// Per-thread (not collective):
//   mbarrier_init(Barrier, count), fence_mbarrier_init_cluster(), mbarrier_arrive_expect_tx(Barrier, bytes),
//   mbarrier_arrive_cluster(Barrier, cta), mbarrier_wait(Barrier, parity)   (brkpt after ~2^36 cycles)
//   mbarrier_try_wait(Barrier, parity)                                 (one try: whether it completed)
//   mbarrier_test_wait(Barrier, parity)                                (the same, never suspending)
//   cluster_ctarank(), cluster_arrive_relaxed(), cluster_wait()         (the last two: every thread)
//   tma_load_2d(SmemBuffer dst, tmap, Barrier, c0, c1), tma_load_2d_multicast(..., cta_mask),
//   tma_store_2d(tmap, SmemBuffer src, c0, c1), bulk_commit_group(), bulk_wait_group_read<N>(),
//   tma_prefetch_descriptor(tmap)
//   setmaxnreg_dec<R>(), setmaxnreg_inc<R>()                          (warpgroup-collective)
//   named_barrier_sync(id, threads), arrive_generation_acq_rel_gpu(p, generation, splits)
//   store_release_gpu(p, v), wait_acquire_gpu(p, v)                   (a flag: st.release, spin on ld.acquire)
//   sm_id(), global_timer_ns()                                         (special registers %smid, %globaltimer)
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include "kernels/sm90/tile_menu.hpp"  // WgmmaType

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LOOM_SM90A_ENABLED 1
#else
#define LOOM_SM90A_ENABLED 0
#endif

// The body of a wrapper where its instruction does not exist: a trap on the device, nothing in the
// host pass (device functions are parsed there but never run).
#if defined(__CUDA_ARCH__)
#define LOOM_SM90A_UNSUPPORTED() __trap()
#else
#define LOOM_SM90A_UNSUPPORTED() ((void)0)
#endif

namespace loom::sm90 {

// The 32-bit shared-state-space address of a generic pointer into shared memory (what a matrix
// descriptor's start address field encodes). PTX ISA "cvta" (cvta.to.shared); the intrinsic emits it.
__device__ __forceinline__ unsigned smem_u32(void const* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// An mbarrier (8 bytes of shared memory), by its 32-bit shared address.
struct Barrier {
  unsigned addr;
};
// A buffer in shared memory (an operand stage, a TMA box, an epilogue buffer), by the 32-bit shared
// address of its first byte. offset() moves within it by bytes.
struct SmemBuffer {
  unsigned addr;
  __device__ __forceinline__ SmemBuffer offset(unsigned bytes) const { return SmemBuffer{addr + bytes}; }
};

// PTX ISA "Parallel Synchronization and Communication Instructions: membar / fence"
// (fence.proxy.async, with the .shared::cta state space) and 9.7.15.4 "Async Proxy": wgmma reads
// shared memory through the async proxy, so generic-proxy writes to its operands (st.shared) must
// be followed by this fence (then a barrier among the writers) before the wgmma that reads them.
__device__ __forceinline__ void fence_proxy_async_shared_cta() {
#if LOOM_SM90A_ENABLED
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// PTX ISA 9.7.15.7.1 "Asynchronous Multiply-and-Accumulate Instruction: wgmma.fence": before the
// first wgmma.mma_async of a warpgroup, and between other accesses to the accumulator registers
// and a wgmma that uses them.
__device__ __forceinline__ void wgmma_fence() {
#if LOOM_SM90A_ENABLED
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// PTX ISA 9.7.15.7.2 "Asynchronous Multiply-and-Accumulate Instruction: wgmma.commit_group":
// commits all prior uncommitted wgmma.mma_async of the executing threads into one wgmma-group.
__device__ __forceinline__ void wgmma_commit_group() {
#if LOOM_SM90A_ENABLED
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// PTX ISA 9.7.15.7.3 "Asynchronous Multiply-and-Accumulate Instruction: wgmma.wait_group": waits
// until at most N of the most recent wgmma-groups are pending (N = 0: all complete). Accessing the
// accumulators of a wgmma before its group completes is undefined behaviour. The "memory" clobber
// keeps the compiler from moving memory accesses across it; it does not order register reads, so
// pass the accumulators through wgmma_fence_operand after it.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group: N is an integer constant in [0, 7]");
#if LOOM_SM90A_ENABLED
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// Not an instruction: an empty asm that takes each accumulator register in and out, so that the
// compiler neither reads an accumulator before wgmma_wait_group (by moving a copy of it above the
// wait: volatile asm statements keep their order, plain register moves do not) nor moves writes to
// it across a wgmma. Call it on the accumulators after wgmma_wait_group and before reading them
// (CUTLASS's warpgroup_fence_operand, for the same reason).
template <int K>
__device__ __forceinline__ void wgmma_fence_operand(float (&d)[K]) {
#pragma unroll
  for (int i = 0; i < K; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The input types of wgmma (WgmmaType, kernels/sm90/tile_menu.hpp, where the host's instance lists
// read it): .bf16 or .f16 for wgmma_ss (A and B the same), .e4m3 or .e5m2 for wgmma_ss_k32 (A and B
// each either).

// ---------------------------------------------------------------------------------------------
// mbarrier (PTX ISA 9.7.13.15 "Parallel Synchronization and Communication Instructions: mbarrier")
// ---------------------------------------------------------------------------------------------
// All take the barrier's 32-bit shared address (smem_u32). A phase completes when its pending
// arrival count reaches 0 and its transaction count (bytes announced by expect_tx, consumed by the
// complete_tx of TMA loads) is 0; waits name the phase by its parity.

// mbarrier.init: `count` arrivals complete a phase. 9.7.13.15.9.
__device__ __forceinline__ void mbarrier_init(Barrier bar, unsigned count) {
#if LOOM_SM90A_ENABLED
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar.addr), "r"(count) : "memory");
#else
  (void)bar, (void)count;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// fence.mbarrier_init.release.cluster (9.7.13.4 "membar / fence"): makes the inits visible to the
// other CTAs of the cluster (and to the async proxy) before a cluster barrier.
__device__ __forceinline__ void fence_mbarrier_init_cluster() {
#if LOOM_SM90A_ENABLED
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// mbarrier.arrive.expect_tx: announces `bytes` of transactions for the current phase, then arrives
// once. 9.7.13.15.11 / 9.7.13.15.13.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(Barrier bar, unsigned bytes) {
#if LOOM_SM90A_ENABLED
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar.addr), "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// One arrival on the barrier at the same shared offset in CTA `cta` of the cluster (mapa gives its
// shared::cluster address; 9.7.9.20 "mapa"); `cta` may be this CTA. 9.7.13.15.13 "mbarrier.arrive",
// with its default semantics (.release at .cta scope): the stage's readers are wgmmas, whose reads
// wgmma.wait_group has completed, so no wider fence is needed. An explicit .release.cluster
// compiles to a MEMBAR.ALL.GPU before every arrival, which halved the kernel's speed.
__device__ __forceinline__ void mbarrier_arrive_cluster(Barrier bar, unsigned cta) {
#if LOOM_SM90A_ENABLED
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar.addr),
      "r"(cta)
      : "memory");
#else
  (void)bar, (void)cta;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// mbarrier.try_wait.parity and mbarrier.test_wait.parity (9.7.13.15.16), once each: whether the
// phase of parity `parity` has completed, with acquire semantics at CTA scope, as for
// mbarrier_wait. try_wait may suspend the thread for a bounded, hardware-chosen time before it
// answers false; test_wait never suspends it.
#define LOOM_MBARRIER_POLL(op)                                                                      \
  "{\n.reg .pred p;\n"                                                                           \
  "mbarrier." op ".parity.shared::cta.b64 p, [%1], %2;\n"                                          \
  "selp.u32 %0, 1, 0, p;\n}\n"
template <bool kTest>
__device__ __forceinline__ bool mbarrier_poll(Barrier bar, unsigned parity) {
#if LOOM_SM90A_ENABLED
  unsigned done = 0;
  if constexpr (kTest)
    asm volatile(LOOM_MBARRIER_POLL("test_wait") : "=r"(done) : "r"(bar.addr), "r"(parity) : "memory");
  else
    asm volatile(LOOM_MBARRIER_POLL("try_wait") : "=r"(done) : "r"(bar.addr), "r"(parity) : "memory");
  return done != 0;
#else
  (void)bar, (void)parity;
  LOOM_SM90A_UNSUPPORTED();
  return false;
#endif
}
#undef LOOM_MBARRIER_POLL
__device__ __forceinline__ bool mbarrier_try_wait(Barrier bar, unsigned parity) { return mbarrier_poll<false>(bar, parity); }
__device__ __forceinline__ bool mbarrier_test_wait(Barrier bar, unsigned parity) { return mbarrier_poll<true>(bar, parity); }

// mbarrier.try_wait.parity until the phase of parity `parity` has completed (9.7.13.15.16).
// A kernel bug that never completes the phase would hang the GPU; after about 2^36 cycles (about
// 35 s at 2 GHz, far beyond any legitimate wait) the wait stops the warp instead, so that the launch
// fails with an error rather than sticking. With 2^32 cycles (2 s), sm90 trapped at random under
// compute-sanitizer's racecheck, whose instrumentation slows every wait.
// The stop is `brkpt` (9.7.19.1), not `trap` (9.7.19.4): both assemble to the same BPT.TRAP, but
// ptxas takes a `trap` as a point the warp never returns from and, for a kernel that has one on a
// consumer's waits, allocated the consumers no more than about 176 registers after setmaxnreg had
// given them 232 (the accurate 8-bit loop with two partials spilled 656 bytes; with `brkpt`, none,
// at 220 registers). Under a debugger, `brkpt` stops there instead.
__device__ __forceinline__ void mbarrier_wait(Barrier bar, unsigned parity) {
#if LOOM_SM90A_ENABLED
  if (mbarrier_try_wait(bar, parity)) return;
  long long const start = clock64();
  while (!mbarrier_try_wait(bar, parity))
    if (clock64() - start > (1ll << 36)) asm volatile("brkpt;");
#else
  (void)bar, (void)parity;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// ---------------------------------------------------------------------------------------------
// Where and when (PTX ISA 10 "Special Registers": %smid, the SM this thread runs on, constant for
// its CTA's lifetime; %globaltimer, a 64-bit nanosecond timer)
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ unsigned sm_id() {
#if LOOM_SM90A_ENABLED
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;\n" : "=r"(r));
  return r;
#else
  LOOM_SM90A_UNSUPPORTED();
  return 0;
#endif
}

__device__ __forceinline__ unsigned long long global_timer_ns() {
#if LOOM_SM90A_ENABLED
  unsigned long long r;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(r));
  return r;
#else
  LOOM_SM90A_UNSUPPORTED();
  return 0;
#endif
}

// ---------------------------------------------------------------------------------------------
// Clusters (PTX ISA 9.7.13.3 "barrier.cluster"; 10 "Special Registers": %cluster_ctarank)
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ unsigned cluster_ctarank() {
#if LOOM_SM90A_ENABLED
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
#else
  LOOM_SM90A_UNSUPPORTED();
  return 0;
#endif
}

// barrier.cluster.arrive.relaxed: arrive without ordering this thread's memory operations (a
// fence before it orders what must be seen, e.g. fence_mbarrier_init_cluster); barrier.cluster.wait
// (.acquire): wait until every thread of every CTA of the cluster has arrived.
__device__ __forceinline__ void cluster_arrive_relaxed() {
#if LOOM_SM90A_ENABLED
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}
__device__ __forceinline__ void cluster_wait() {
#if LOOM_SM90A_ENABLED
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}


// ---------------------------------------------------------------------------------------------
// TMA (PTX ISA 9.7.9.25.5.1 "cp.async.bulk.tensor")
// ---------------------------------------------------------------------------------------------
// The tensor map is a __grid_constant__ kernel parameter (its generic address is what the
// instruction takes; host code builds it, kernels/tma_copy.hpp). Coordinates are in the map's dimension order, innermost first, in elements;
// parts of the box outside the tensor are filled with zeros and still count as transaction bytes.

// A 2-D box at coordinates (c0, c1) into this CTA's shared memory at `dst`, completing its bytes on
// the barrier `bar`.
__device__ __forceinline__ void tma_load_2d(SmemBuffer dst, CUtensorMap const* tmap, Barrier bar, int c0, int c1) {
#if LOOM_SM90A_ENABLED
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst.addr),
      "l"(tmap), "r"(bar.addr), "r"(c0), "r"(c1)
      : "memory");
#else
  (void)dst, (void)tmap, (void)bar, (void)c0, (void)c1;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// The same box written to the same shared offset in every CTA of `cta_mask` (bit r: cluster rank
// r), each completing the bytes on the barrier at `bar`'s offset in that CTA (.multicast::cluster).
__device__ __forceinline__ void tma_load_2d_multicast(SmemBuffer dst, CUtensorMap const* tmap, Barrier bar, int c0, int c1,
                                                      unsigned short cta_mask) {
#if LOOM_SM90A_ENABLED
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst.addr),
      "l"(tmap), "r"(bar.addr), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
#else
  (void)dst, (void)tmap, (void)bar, (void)c0, (void)c1, (void)cta_mask;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// A 2-D box from this CTA's shared memory at `src` to the tensor (the reverse direction; parts of
// the box outside the tensor are not written). Completion is tracked by bulk async-groups
// (.bulk_group): commit with bulk_commit_group, wait with bulk_wait_group(_read). The shared source
// was written by ordinary stores, so each writer must have run fence_proxy_async_shared_cta and a
// barrier must order them before this.
__device__ __forceinline__ void tma_store_2d(CUtensorMap const* tmap, SmemBuffer src, int c0, int c1) {
#if LOOM_SM90A_ENABLED
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(tmap),
               "r"(src.addr), "r"(c0), "r"(c1)
               : "memory");
#else
  (void)tmap, (void)src, (void)c0, (void)c1;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// PTX ISA 9.7.9.25.5.4 / 9.7.9.25.5.5 "cp.async.bulk.commit_group", "cp.async.bulk.wait_group":
// commits the thread's outstanding bulk stores into one group; waits until at most N groups are
// pending in their reads of shared memory (.read: the source may then be overwritten; their
// writes to global memory complete by the end of the grid, which is all the kernel needs).
__device__ __forceinline__ void bulk_commit_group() {
#if LOOM_SM90A_ENABLED
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
#if LOOM_SM90A_ENABLED
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// prefetch.tensormap (9.7.9.25.5.3 / "prefetch"): brings the descriptor into the cache early.
__device__ __forceinline__ void tma_prefetch_descriptor(CUtensorMap const* tmap) {
#if LOOM_SM90A_ENABLED
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmap) : "memory");
#else
  (void)tmap;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// ---------------------------------------------------------------------------------------------
// Register reallocation (PTX ISA 9.7.17.2 "setmaxnreg")
// ---------------------------------------------------------------------------------------------
// Warpgroup-collective; takes effect only under a per-thread register cap at entry
// (__launch_bounds__(threads, 1)). kRegs is a multiple of 8 in [24, 256].
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg: 24..256, a multiple of 8");
#if LOOM_SM90A_ENABLED
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg: 24..256, a multiple of 8");
#if LOOM_SM90A_ENABLED
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#else
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// Named barrier among `threads` threads (a multiple of 32) of the CTA: bar.sync id, threads
// (9.7.13.1 "bar / barrier"). Id 0 is __syncthreads'.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ bool arrive_generation_acq_rel_gpu(unsigned long long* p, unsigned long long generation, unsigned splits) {
#if LOOM_SM90A_ENABLED
  unsigned long long cur = *reinterpret_cast<unsigned long long volatile*>(p);
  for (;;) {
    unsigned long long const next = (cur >> 16) == generation ? cur + 1 : (generation << 16) | 1ull;
    bool const last = (next & 0xffffull) == splits;
    unsigned long long const want = last ? 0ull : next;
    unsigned long long seen;
    asm volatile("atom.acq_rel.gpu.global.cas.b64 %0, [%1], %2, %3;\n" : "=l"(seen) : "l"(p), "l"(cur), "l"(want) : "memory");
    if (seen == cur) return last;
    cur = seen;
  }
#else
  (void)p, (void)generation, (void)splits;
  LOOM_SM90A_UNSUPPORTED();
  return false;
#endif
}

// A flag between the CTAs of a grid: st.release.gpu.global.u64 (9.7.9.8 "st") writes v after every
// write this thread has observed (a named barrier before it makes the warpgroup's writes observed);
// wait_acquire_gpu spins on ld.acquire.gpu.global.u64 (9.7.9.7 "ld") until the word holds v, after
// which the writes released before v are visible to this thread and, through a barrier, to the
// threads it synchronizes with (8.4 "Memory consistency model": release and acquire patterns,
// cumulativity). The spin stops the warp with `brkpt` after about 2^36 cycles, as mbarrier_wait does.
__device__ __forceinline__ void store_release_gpu(unsigned long long* p, unsigned long long v) {
#if LOOM_SM90A_ENABLED
  asm volatile("st.release.gpu.global.u64 [%0], %1;\n" ::"l"(p), "l"(v) : "memory");
#else
  (void)p, (void)v;
  LOOM_SM90A_UNSUPPORTED();
#endif
}
__device__ __forceinline__ void wait_acquire_gpu(unsigned long long* p, unsigned long long v) {
#if LOOM_SM90A_ENABLED
  long long const start = clock64();
  for (;;) {
    unsigned long long seen;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(seen) : "l"(p) : "memory");
    if (seen == v) return;
    if (clock64() - start > (1ll << 36)) asm volatile("brkpt;");
  }
#else
  (void)p, (void)v;
  LOOM_SM90A_UNSUPPORTED();
#endif
}

// wgmma.mma_async for one (type, N): explicit specializations, one fixed asm block each, in
// kernels/sm90/wgmma.inc.cuh (generated by kernels/sm90/gen_wgmma.py; test sm90_wgmma_generated
// checks that the two agree). The primary template is never defined, so an N that
// the generator does not list fails to compile.
template <WgmmaType T, int N>
struct WgmmaSS;
template <WgmmaType TA, WgmmaType TB, int N>
struct WgmmaSSk32;

}  // namespace loom::sm90

#include "kernels/sm90/wgmma.inc.cuh"

namespace loom::sm90 {

// PTX ISA 9.7.15.5.2 "Asynchronous Multiply-and-Accumulate Instruction: wgmma.mma_async"
// (m64nNk16, .f32 accumulators, .bf16/.f16 inputs, A and B from shared-memory descriptors per
// "Matrix Descriptor Format"; the register fragment of D per "Register Fragments and Shared
// Memory Matrix Layouts", both under 9.7.15.5.1). scale-d goes in a register and becomes the
// predicate: 0 gives D = A B^T, nonzero D = A B^T + D.
template <WgmmaType T, int N, int kTransA, int kTransB>
__device__ __forceinline__ void wgmma_ss(float (&d)[N / 2], unsigned long long desc_a, unsigned long long desc_b,
                                         int scale_d) {
  static_assert((kTransA == 0 || kTransA == 1) && (kTransB == 0 || kTransB == 1),
                "wgmma: imm-trans-a/b are 0 (K-major) or 1 (MN-major)");
  WgmmaSS<T, N>::template mma<kTransA, kTransB>(d, desc_a, desc_b, scale_d);
}

// The same instruction for 8-bit inputs (PTX ISA 9.7.15.5.2, m64nNk32, .f32 accumulators, .e4m3 or
// .e5m2 A and B): A 64x32, B Nx32, both K-major, since the instruction has no imm-trans for 8-bit
// types (make_gmma_desc refuses an MN-major 8-bit descriptor); D as m64nNk16's
// (mma_atom_sm90_64xNx32(N).c_tv).
template <WgmmaType TA, WgmmaType TB, int N>
__device__ __forceinline__ void wgmma_ss_k32(float (&d)[N / 2], unsigned long long desc_a, unsigned long long desc_b,
                                             int scale_d) {
  static_assert((TA == WgmmaType::kE4M3 || TA == WgmmaType::kE5M2) && (TB == WgmmaType::kE4M3 || TB == WgmmaType::kE5M2),
                "wgmma k32: A and B are e4m3 or e5m2");
  WgmmaSSk32<TA, TB, N>::mma(d, desc_a, desc_b, scale_d);
}

}  // namespace loom::sm90
