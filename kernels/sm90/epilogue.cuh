// sm90's epilogue: what a consumer warpgroup does with its accumulators once a work unit's main
// loop is done. Split units first go through the split-K fixup; then D is stored with TMA through
// shared memory, or straight from the registers.
//
// TMA store (store_d_tma), when the tile shape has buffers for it (tile_epilogue_buffers), beta ==
// 0, D's base and row stride are multiples of 16 bytes, and D is either not swapped, with a width that
// is whole row sub-tiles (tile_has_tma_store: BN a multiple of 32), or swapped and 16-bit (the
// launcher decides: Params::tma_store): each warpgroup writes its 64 x BN accumulators, times alpha
// and converted to D's type, into shared memory one 64-row x 128-byte sub-tile at a time (under the
// 128-byte swizzle, placed by partition_C of a swizzled smem view: conflict-free; 64-byte sub-tiles
// under the 64-byte swizzle where BN's row of D is not a whole number of 128 bytes, e.g. 96 or 160
// bf16 columns: epilogue_row_bytes), fences the async proxy, and one thread TMA-stores the
// sub-tile, which clips at D's edges. A swapped plan's D is column-major as the kernel sees it: its
// sub-tiles are MN-major, 64 m (128 bytes) by up to 64 n (EpilogueColConfig). Up to two buffers per
// warpgroup: a buffer is rewritten once the store that read it that many sub-tiles ago has
// finished reading (cp.async.bulk.wait_group.read), and the next tile's wgmmas start while the last
// stores drain.
//
//   rows:    sD (64,(COLS,SUB)) -> partition_C of one warpgroup's atom: where each accumulator goes in a buffer
//            cD = identity (M,N) -> local_tile<(64,COLS)>(cD, (BM/64)m+w, n*SUB + j): sub-tile j's TMA store coords
//   columns: sD (64,(COLS,1)) -> partition_C of a 64 x COLS atom: accumulators start(j)/2 on
//            cD -> local_tile<(64,BN)>(cD, (BM/64)m+w, n), plus start(j) columns: sub-tile j's coords
//
// Direct store: kernels/epilogue.cuh's store_d, mD (M,N) -> local_tile<(BM,BN)>(mD, m, n) ->
// partition_C, reading C where beta != 0 (column-major D, a swapped plan's: one element a store).
//
// Split-K fixup (split_k_fixup): the workspace slot and the k range of a split are the schedule's
// (kernels/sm90/schedule.hpp); the partial's layout is the fragment's register order itself.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <type_traits>

#include "kernels/epilogue.cuh"
#include "kernels/sm90/config.cuh"
#include "kernels/sm90/params.cuh"
#include "kernels/sm90/ptx.cuh"
#include "kernels/sm90/schedule.hpp"
#include "kernels/sm90/shared_storage.cuh"
#include "layout/gmma.hpp"
#include "layout/tensor.hpp"
#include "layout/tma.hpp"

namespace loom::sm90 {

// The bytes of a row of one TMA-store sub-tile for a tile kBN wide of elem_bytes elements: 128 (the
// 128-byte swizzle), or 64 (the 64-byte swizzle) where the tile's row is not a whole number of 128
// bytes. The kernel's buffers and the launcher's map of D (make_tma_store_map) both read it.
constexpr int epilogue_row_bytes(int bn, int elem_bytes) { return (bn * elem_bytes) % 128 == 0 ? 128 : 64; }
// D's TMA-store box for that sub-tile: (64 rows, the row's columns) row-major, the K-major GMMA
// atom of that swizzle tiled over it.
constexpr SwizzleLayout epilogue_box(int bn, int elem_bytes) {
  int const row = epilogue_row_bytes(bn, elem_bytes);
  return tile_to_shape(gmma_atom(GmmaMajor::kK, row == 128 ? GmmaSwizzle::k128B : GmmaSwizzle::k64B, elem_bytes * 8),
                       make_shape(64, row / elem_bytes));
}

// What both TMA-store configurations rely on, checked when they are built: a warpgroup's (64, bn)
// tile in sub-tiles of `cols` columns, sub-tile j holding its accumulators [j cols/2, (j+1) cols/2)
// (partition_C's order: column groups of 8 last), and `view`, the tile seen through one buffer, equal
// to the TMA box's layout in each sub-tile.
constexpr bool epilogue_layouts_agree(TiledMMA const& mma, int bn, int cols, Layout const& view, SwizzleLayout const& box) {
  Layout const part = mma.partition_C(make_layout(make_shape(64, bn), make_stride(basis(0), basis(1)))).layout;
  for (int v = 0; v < bn / 2; ++v) {
    Coord<2> const c = crd2idx_flat<Coord<2>>(v, part.shape, part.stride);
    if (c[1] / cols != v / (cols / 2)) return false;
  }
  for (int r = 0; r < 64; r += 7)
    for (int c = 0; c < bn; c += 3)
      if (view(make_shape(r, make_shape(c % cols, c / cols))) != box.layout(make_shape(r, c % cols))) return false;
  return bn % cols == 0;
}

// The TMA-store epilogue of output type T: one consumer warpgroup's 64 x kBN accumulators go out in
// sub-tiles of 64 rows x kCols columns (128 or 64 bytes), each written to a shared buffer under the
// swizzle of that width (conflict-free for 128: the 8 rows of a store instruction land in 8
// different 16-byte chunks) and stored by one TMA box, which clips at D's edges.
template <class T, int kBN>
struct EpilogueConfig {
  static constexpr int kBits = int(sizeof(T)) * 8;
  static constexpr int kRowBytes = epilogue_row_bytes(kBN, int(sizeof(T)));
  static constexpr int kCols = kRowBytes / int(sizeof(T));
  static constexpr int kSubtiles = kBN / kCols;
  static constexpr Tile kSubtile = make_tile(64, kCols);
  static constexpr SwizzleLayout kBox = epilogue_box(kBN, int(sizeof(T)));
  // The warpgroup's (64, kBN) tile seen through one buffer: sub-tile j's columns land on it (the
  // sub-tile index has stride 0; the base picks the buffer).
  static constexpr Layout kView = make_layout(make_shape(64, make_shape(kCols, kSubtiles)), make_stride(kCols, make_stride(1, 0)));
  // One warpgroup's MMA (its accumulators, in partition_C order, are the consumer's registers).
  static constexpr TiledMMA kMma = make_tiled_mma(mma_atom_sm90_64xNx16(kBN));
  static constexpr int kValues = kCols / 2;  // accumulators of one sub-tile per thread

  static constexpr bool valid() {
    GmmaSwizzle const sw = kRowBytes == 128 ? GmmaSwizzle::k128B : GmmaSwizzle::k64B;
    return epilogue_layouts_agree(kMma, kBN, kCols, kView, kBox) && kBox.swizzle == gmma_swizzle(sw, kBits) &&
           64 * kRowBytes <= kEpiBufferBytes;
  }
  static_assert(valid());
};

// A swapped plan's D (EpilogueArgs::d_col: the kernel's m, the weights' index, is D's contiguous
// mode), 16-bit: sub-tiles of 64 m (128 bytes, one 128-byte swizzle row) by kCols n, MN-major, n at
// a pitch of 64 elements; kCols is the tile's (tile_col_store_cols: 64 or 32 where it divides the
// width, else what one buffer holds). Sub-tile j covers the columns [start(j), start(j) + kCols):
// where kCols does not divide the width, the last one ends at the tile's last column and stores
// some columns of the one before again, the same values, so that no box reaches into the next
// tile's columns. Its element pairs are neighbours along n, 128 bytes apart here: each accumulator
// is one 2-byte store (a warp's store covers four 16-byte chunks of four swizzled rows: no bank
// conflict).
constexpr SwizzleLayout epilogue_col_box(int cols, int elem_bytes) {
  return tile_to_shape(gmma_atom(GmmaMajor::kMN, GmmaSwizzle::k128B, elem_bytes * 8), make_shape(64, cols));
}
template <class T, int kBN, int kCols_>
struct EpilogueColConfig {
  static_assert(sizeof(T) == 2, "a column-major D goes out by TMA in 16-bit types only (f32: direct stores)");
  static constexpr int kCols = kCols_;
  static constexpr int kSubtiles = (kBN + kCols - 1) / kCols;
  static constexpr int start(int j) { return j * kCols < kBN - kCols ? j * kCols : kBN - kCols; }
  static constexpr SwizzleLayout kBox = epilogue_col_box(kCols, int(sizeof(T)));
  // One sub-tile seen through its buffer, m contiguous (one sub-tile of its own width).
  static constexpr Layout kView = make_layout(make_shape(64, make_shape(kCols, 1)), make_stride(1, make_stride(64, 0)));
  // The sub-tile's MMA: partition_C of the warpgroup's whole tile lists the accumulators in
  // column groups of 8 last, so sub-tile j's are that MMA's values from start(j) / 2 on, in its order
  // (windows_agree checks it).
  static constexpr TiledMMA kMma = make_tiled_mma(mma_atom_sm90_64xNx16(kCols));
  static constexpr int kValues = kCols / 2;  // accumulators of one sub-tile per thread

  static constexpr bool windows_agree() {
    TiledMMA const whole = make_tiled_mma(mma_atom_sm90_64xNx16(kBN));
    Layout const all = whole.partition_C(make_layout(make_shape(64, kBN), make_stride(basis(0), basis(1)))).layout;
    Layout const one = kMma.partition_C(make_layout(make_shape(64, kCols), make_stride(basis(0), basis(1)))).layout;
    for (int j = 0; j < kSubtiles; ++j) {
      if (start(j) % 8 != 0 || start(j) < 0) return false;
      for (int q = 0; q < kValues; ++q) {
        Coord<2> const c = crd2idx_flat<Coord<2>>(start(j) / 2 + q, all.shape, all.stride);
        Coord<2> const d = crd2idx_flat<Coord<2>>(q, one.shape, one.stride);
        if (c[0] != d[0] || c[1] != d[1] + start(j)) return false;
      }
    }
    return start(kSubtiles - 1) + kCols == kBN;
  }
  static constexpr bool valid() {
    // The launcher's map of a column-major D takes this box (make_tma_store_map): dimension 0 is m,
    // 64 of it, under the 128-byte swizzle (a D of 1000 x 300 at ldd 1008, as an example).
    TmaDesc const d = make_tma_desc(make_shape(1000, 300), make_shape(1, 1008), 2, kBox, make_shape(64, kCols));
    return kCols % 8 == 0 && kCols <= kBN && epilogue_layouts_agree(kMma, kCols, kCols, kView, kBox) && windows_agree() &&
           kBox.swizzle == gmma_swizzle(GmmaSwizzle::k128B, 16) && d.mode_of_dim[0] == 0 && d.box_dim[0] == 64 &&
           d.box_dim[1] == unsigned(kCols) && d.swizzle_bytes == 128;
  }
  static_assert(valid());
};

// D = alpha * acc (beta == 0) for warpgroup w's rows of CTA tile (m, n), through the warpgroup's
// kBuffers buffers of kBufferBytes (`buffers`, `buffers_ptr`: the same bytes as a shared address and
// a pointer), in row sub-tiles, or in column sub-tiles kColCols wide (kColCols > 0: a swapped plan's
// D); `stores` counts the warpgroup's TMA stores so far (each buffer is reused kBuffers stores
// later, once that store has read it). The warpgroup's first thread issues and waits; named barrier
// 1 + w syncs the warpgroup.
template <class T, int kBN, int kConsumers, int kBuffers, int kBufferBytes, int kColCols = 0, class Acc>
__device__ __forceinline__ void store_d_tma(Params const& p, Acc const& acc, int m, int n, int w, int tid,
                                            SmemBuffer buffers, unsigned char* buffers_ptr, int& stores, float alpha) {
  constexpr bool kCol = kColCols > 0;
  using E = std::conditional_t<kCol, EpilogueColConfig<T, kBN, (kCol ? kColCols : 8)>, EpilogueConfig<T, kBN>>;
  static_assert(64 * E::kCols * int(sizeof(T)) <= kBufferBytes, "a sub-tile fits its buffer");
  using P = typename Pair<T>::type;
  bool const leader = tid % 128 == 0;
  auto const cD = make_identity_tensor(p.ep.cd_shape);  // (M,N) -> (m,n)
#pragma unroll
  for (int j = 0; j < E::kSubtiles; ++j) {
    int const buf = stores % kBuffers;
    // The store that last read this buffer is done reading it.
    if (leader) bulk_wait_group_read<kBuffers - 1>();
    named_barrier_sync(1 + w, 128);
    auto sD = make_tensor<E::kView>(SwizzledPtrEngine<T, E::kBox.swizzle>{
        reinterpret_cast<T*>(buffers_ptr + buf * kBufferBytes)});  // (64,(COLS,SUB)), or (64,(COLS,1)) for columns -> buffer
    auto tCsD = partition_C<E::kMma, Offsets::kTabulated>(sD, tid % 128);  // the accumulators' places
    if constexpr (kCol) {
#pragma unroll
      for (int q = 0; q < E::kValues; ++q) tCsD(q) = from_f32<T>(alpha * acc(E::start(j) / 2 + q));
    } else {
#pragma unroll
      for (int q = 0; q < E::kValues / 2; ++q) {
        int const v = j * E::kValues + 2 * q;
        *reinterpret_cast<P*>(&tCsD(v)) = pair_from<T>(alpha * acc(v), alpha * acc(v + 1));
      }
    }
    fence_proxy_async_shared_cta();  // generic-proxy writes -> the TMA engine's reads
    named_barrier_sync(1 + w, 128);
    if (leader) {
      // The map's dimension 0 is D's contiguous mode: n, or m where D is column-major.
      if constexpr (kCol) {
        Coord<2> const c = local_tile<make_tile(64, kBN)>(cD, kConsumers * m + w, n).base;  // the warpgroup's (row, col)
        tma_store_2d(&p.tma_d, buffers.offset(unsigned(buf * kBufferBytes)), int(c[0]), int(c[1]) + E::start(j));
      } else {
        Coord<2> const c = local_tile<E::kSubtile>(cD, kConsumers * m + w, n * E::kSubtiles + j).base;  // (row, col)
        tma_store_2d(&p.tma_d, buffers.offset(unsigned(buf * kBufferBytes)), int(c[1]), int(c[0]));
      }
      bulk_commit_group();
    }
    ++stores;
  }
}

// Split-K: the warpgroup's partial tile goes to its slot of the workspace, and one split sums the
// partials into acc and returns true (it stores D); the others return false. In either of two ways,
// the schedule's (TileScheduler::finisher):
// - A fixed finisher, where every split unit is the last its cluster runs (Schedule::finisher_waits)
//   and the clusters run in the plain order (not group_by_gpc's): the tile's last split never writes
//   its partial. Each other split writes its own and raises its flag (words[s] = the launch's
//   generation, a release); the last split waits for every flag (an acquire), adds the partials to
//   its registers in split order (own + p0 + p1 + ...), and lowers the flags to 0, so that a
//   graph's replay (the same generation) waits again. Its path from its main loop to its store is a
//   flag's round trip and a read of the partials. No wait can close a cycle: a split waits only for
//   peers whose units are their clusters' last, and those wait for nothing; and each peer runs on an
//   earlier cluster, dispatched before it, so the wait ends even where the grid does not fit on the
//   GPU at once. Against the counter on an H200, split plans at
//   M = 8-192 ran 7.8% faster together (41 rows, none slower by 2%; docs/tuning/sm90.md,
//   thirty-first round).
// - The arrival counter elsewhere (several rounds of split units, where a split waiting for a peer
//   could hold up its own cluster's next unit that another peer waits on; stream-K): every split
//   writes its partial and arrives on words[0], and the split that arrives last sums. Its order is
//   fixed whichever split that is, so D's bits do not depend on timing: with two splits the last
//   adds the other's partial to its own registers (fp32 addition commutes, so p0 + p1 and p1 + p0
//   are the same bits); with more it reads its own back too and adds all of them from split 0 on.
//   No kernel resets the counters: each word is tagged with the launch's generation
//   (arrive_generation_acq_rel_gpu), so what it held counts as no arrival, and the last arrival
//   leaves it 0. Only the warpgroup's first thread fences, in its atomic: the named barrier orders
//   every thread's partial before that release, and that acquire before every thread's reads (the
//   memory model's cumulativity). Against a fence in every thread and both partials read back, the
//   two together measured 0.6-2.6 µs faster a launch on forced split plans (docs/tuning/sm90.md).
// The workspace is the caller's, its contents unknown: a flag matches the generation by a 2^-48
// chance at most. `slots`: the slot's first partial (split 0's); `words`: the slot's splits words;
// `verdict`: the warpgroup's word of shared memory.
template <int kAccs, class Acc>
__device__ __forceinline__ bool split_k_fixup(Acc& acc, float* slots, int slot_stride, int split, int splits,
                                              unsigned long long* words, unsigned long long generation, volatile int* verdict,
                                              int w, int tid, bool finisher) {
  int const t = tid % 128;
  auto const slot = [&](int s) { return reinterpret_cast<float4*>(slots + std::size_t(s) * unsigned(slot_stride)); };
  float4* const mine = slot(split);
  if (finisher) {
    if (split != splits - 1) {
#pragma unroll
      for (int i = 0; i < kAccs / 4; ++i)
        __stcg(mine + i * 128 + t, make_float4(acc.data[4 * i], acc.data[4 * i + 1], acc.data[4 * i + 2], acc.data[4 * i + 3]));
      named_barrier_sync(1 + w, 128);
      if (t == 0) store_release_gpu(words + split, generation);
      return false;
    }
    if (t == 0)
      for (int s = 0; s < splits - 1; ++s) wait_acquire_gpu(words + s, generation);
    named_barrier_sync(1 + w, 128);
    // own + p0 + p1 + ..., in that order every time; one split's loads all issued before its adds.
    for (int s = 0; s < splits - 1; ++s) {
      float4 const* const part = slot(s);
#pragma unroll
      for (int i = 0; i < kAccs / 4; ++i) {
        float4 const v = __ldcg(part + i * 128 + t);
        acc.data[4 * i] += v.x, acc.data[4 * i + 1] += v.y, acc.data[4 * i + 2] += v.z, acc.data[4 * i + 3] += v.w;
      }
    }
    if (t == 0)
      for (int s = 0; s < splits - 1; ++s) words[s] = 0;  // the next launch starts after this one ends
    return true;
  }
  unsigned long long* const arrival = words;
#pragma unroll
  for (int i = 0; i < kAccs / 4; ++i)
    __stcg(mine + i * 128 + t, make_float4(acc.data[4 * i], acc.data[4 * i + 1], acc.data[4 * i + 2], acc.data[4 * i + 3]));
  named_barrier_sync(1 + w, 128);
  if (t == 0) {
    *verdict = arrive_generation_acq_rel_gpu(arrival, generation, unsigned(splits));
  }
  named_barrier_sync(1 + w, 128);
  if (!*verdict) return false;
  if (splits > 2) {
#pragma unroll
    for (int i = 0; i < kAccs; ++i) acc.data[i] = 0.f;
  }
  for (int s = 0; s < splits; ++s) {
    if (splits == 2 && s == split) continue;  // already in acc
    float4 const* const part = slot(s);
#pragma unroll
    for (int i = 0; i < kAccs / 4; ++i) {
      float4 const v = __ldcg(part + i * 128 + t);
      acc.data[4 * i] += v.x, acc.data[4 * i + 1] += v.y, acc.data[4 * i + 2] += v.z, acc.data[4 * i + 3] += v.w;
    }
  }
  return true;
}

// The epilogue of consumer warpgroup w for CTA tile (m, n): D = alpha acc (+ beta C) by TMA store
// or direct store, in D's type. alpha: p.ep.alpha, times the 8-bit inputs' scales. `stores` counts
// the warpgroup's TMA stores (store_d_tma).
template <class Cfg, class Acc>
__device__ __forceinline__ void store_tile(Params const& p, Smem<Cfg> const& smem, Acc const& acc, int m, int n, int w,
                                           int tid, int& stores, float alpha) {
  constexpr int kBN = Cfg::kBN, kConsumers = Cfg::kConsumers;
  EpilogueArgs ep = p.ep;
  ep.alpha = alpha;
  if constexpr (Cfg::T::kTmaStore) {
    if (p.tma_store) {
      constexpr EpilogueBuffers kBuf = tile_epilogue_buffers(Cfg::T::kTileShape);
      constexpr int kColCols = tile_col_store_cols(Cfg::T::kTileShape);
      SmemBuffer const buffers = smem.epilogue(w);
      unsigned char* const buffers_ptr = smem.epilogue_ptr(w);
      if (p.ep.d_col) {  // a swapped plan's D: 16-bit only (the launcher's make_tma_store_map)
        if (p.out == DType::f16)
          store_d_tma<__half, kBN, kConsumers, kBuf.count, kBuf.bytes, kColCols>(p, acc, m, n, w, tid, buffers, buffers_ptr, stores, alpha);
        else
          store_d_tma<__nv_bfloat16, kBN, kConsumers, kBuf.count, kBuf.bytes, kColCols>(p, acc, m, n, w, tid, buffers, buffers_ptr, stores,
                                                                                         alpha);
        return;
      }
      if constexpr (Cfg::T::kRowTmaStore) {  // else the launcher never sets tma_store for a D that is not swapped
        switch (p.out) {
          case DType::f32: store_d_tma<float, kBN, kConsumers, kBuf.count, kBuf.bytes>(p, acc, m, n, w, tid, buffers, buffers_ptr, stores, alpha); break;
          case DType::f16: store_d_tma<__half, kBN, kConsumers, kBuf.count, kBuf.bytes>(p, acc, m, n, w, tid, buffers, buffers_ptr, stores, alpha); break;
          case DType::bf16:
            store_d_tma<__nv_bfloat16, kBN, kConsumers, kBuf.count, kBuf.bytes>(p, acc, m, n, w, tid, buffers, buffers_ptr, stores, alpha);
            break;
          default: break;  // D is never 8-bit (kernels/sm90/sm90.cu's check)
        }
        return;
      }
    }
  }
  // 8-bit kernels: the indices unsigned (kernels/epilogue.cuh's store_d says why); the 16-bit
  // kernels keep ints, their code as it was measured.
  using Index = std::conditional_t<Cfg::kElemBytes == 1, unsigned, int>;
  Index const mi = Index(m), ni = Index(n);
  if (p.ep.d_col) {
    constexpr bool kSplitBeta = kConsumers <= 2;  // store_d says why
    switch (p.out) {
      case DType::f32: store_d<Cfg::kMma, Cfg::kTileC, float, true, kSplitBeta>(ep, acc, mi, ni, tid); break;
      case DType::f16: store_d<Cfg::kMma, Cfg::kTileC, __half, true, kSplitBeta>(ep, acc, mi, ni, tid); break;
      case DType::bf16: store_d<Cfg::kMma, Cfg::kTileC, __nv_bfloat16, true, kSplitBeta>(ep, acc, mi, ni, tid); break;
      default: break;
    }
  } else {
    switch (p.out) {
      case DType::f32: store_d<Cfg::kMma, Cfg::kTileC, float>(ep, acc, mi, ni, tid); break;
      case DType::f16: store_d<Cfg::kMma, Cfg::kTileC, __half>(ep, acc, mi, ni, tid); break;
      case DType::bf16: store_d<Cfg::kMma, Cfg::kTileC, __nv_bfloat16>(ep, acc, mi, ni, tid); break;
      default: break;
    }
  }
}

}  // namespace loom::sm90
