// sm90's schedule: every decision about which CTA computes what, taken once on the host and read by
// everything else. make_schedule turns a plan (tile shape, splits, tail) and a problem into a
// Schedule: the tile counts, the split of K, the work units, the persistent grid and the split-K
// workspace's layout. The plan's model (kernels/sm90/plan.hpp) estimates a schedule, the launcher
// (kernels/sm90/launch.cuh) sizes the grid and the workspace from it, and the kernel's tile
// scheduler (TileScheduler, below) walks it; none of them derives a count of its own. Plain C++
// that compiles for host and device: tests/test_sm90_schedule.cpp walks TileScheduler on the host
// and checks that every (CTA tile, k range) is computed exactly once.
//
// Work units, in order: cluster tiles [0, split_from) whole, one unit each; then unit
// split_from + v is split v % splits of cluster tile split_from + v / splits. Split s of a tile
// takes k tiles [s K/S, (s+1) K/S). Cluster c of the grid takes units c, c + grid, c + 2 grid, ...
// With the tail plan, split_from is a whole number of waves: every cluster runs its whole tiles
// first, and the last, partial wave is split across the clusters that would otherwise idle, so a
// problem of 3.4 waves takes about 3.4 waves' time instead of 4.
//
// Stream-K (Osama et al., 2023) instead deals the partial wave's k tiles out evenly: its cluster
// tiles' T = tiles * k_tiles iterations, in order, are cut into `grid` equal ranges, cluster c
// taking [c T / grid, (c + 1) T / grid). A range crosses tile boundaries, so cluster c's pieces are
// its range's parts in consecutive tiles: unit split_from + j * grid + c is its j-th piece, empty
// past its last (every role skips an empty unit). A tile's contributors are the clusters whose
// ranges meet it, in k order; its split s is the s-th of them, so the fixup sums the partials in
// k order, as with split-K: the same bits run after run. No cluster waits on another: the last
// contributor to arrive sums. The partial wave then takes T / grid iterations on every cluster,
// where split-K's equal splits of each tile leave the wave's rounds ragged.
//
// Tile order: cluster tiles go in groups of kGroupM cluster rows, column by column within a group,
// so that the clusters in flight share A and B panels in L2; the CTA of cluster rank r takes CTA
// tile (cluster_m * row + r % cluster_m, cluster_n * column + r / cluster_m). The last group is
// ragged (cluster_rows % kGroupM rows): four lines of arithmetic, rather than a layout over a tile
// grid padded with idle clusters.
//
// Readers grouped by GPC (group_by_gpc, host only; which launches take it: kernels/sm90/sm90.cu
// gpc_order_of, one-wave schedules of clustered or swapped plans): cluster c may run
// another unit than c, so that the clusters that read one panel of the shared operand (the weights
// of a layer, read by every tile row of tokens) run in one GPC. The L2 request coalescer merges
// the requests of SMs that ask for the same sectors at about the same time, and clusters of one
// GPC keep in step: at 384 x 6144 x 4096 (128x144_1x2, H100) the weights' L2 reads fell from 4.8
// to 2.0 million sectors, cuBLAS's count, and the kernel from 42.5 to 34.0 µs
// (docs/tuning/sm90.md, twenty-second round). Which GPC runs cluster c is measured per device
// (kernels/sm90/sm90.cu: cluster_gpcs); the order is a permutation of the units, so a launch
// placed otherwise (another kernel running beside it) computes the same D, only slower.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/sm90/tile_menu.hpp"
#include "layout/config.hpp"

namespace loom::sm90 {

constexpr int kMaxSplits = 64;  // the most ways K is split (LOOM_SM90_PLAN's bound; the model tries 16)

// How many clusters of each size a GPU holds at once with one CTA per SM (the kernel's shared
// memory allows no more): the persistent grid's size and the plan's wave. Measured per device with
// cudaOccupancyMaxActiveClusters (kernels/sm90/sm90.cu) for every size from 1 to 8: a cluster runs
// within one GPC, so the GPCs' SM counts decide it (an H100 SXM holds 132, 66 and 30 clusters of
// 1, 2 and 4, measured 2026-11-26: 30, not 132 / 4). Without a GPU, of_sms() assumes every SM
// takes part (the SM count over the cluster size).
struct Residency {
  static constexpr int kMaxCluster = kMaxClusterSize;
  int sms = 132;
  int clusters[kMaxCluster] = {132, 66, 44, 33, 26, 22, 18, 16};  // clusters of 1, 2, ..., 8 CTAs
  static constexpr Residency of_sms(int sms) {
    Residency r;
    r.sms = sms;
    for (int i = 0; i < kMaxCluster; ++i) r.clusters[i] = sms / (i + 1);
    return r;
  }
  // Clusters of `size` CTAs (1 to 8) resident at once, at least 1.
  constexpr int wave(int size) const {
    int const i = (size < 1 ? 1 : size > kMaxCluster ? kMaxCluster : size) - 1;
    return clusters[i] > 0 ? clusters[i] : 1;
  }
  friend constexpr bool operator==(Residency const&, Residency const&) = default;
};

// The schedule of one launch. Counts are 64-bit so that the model can weigh any problem; a launch
// needs them to fit in 32 bits (fits_kernel), which the kernel's tile scheduler uses.
struct Schedule {
  std::int64_t cluster_m = 1;     // CTAs per cluster, along M
  std::int64_t cluster_n = 1;     // CTAs per cluster, along N
  std::int64_t consumers = 1;     // consumer warpgroups per CTA (wg_rows rows of the CTA tile each)
  std::int64_t wg_rows = 64;      // rows of the CTA tile a consumer warpgroup computes
  std::int64_t bn = 0;            // the CTA tile's columns
  std::int64_t tiles_m = 0;       // CTA tiles along M; the last cluster row's CTAs past it skip their epilogue
  std::int64_t tiles_n = 0;       // CTA tiles along N; the last cluster column's CTAs past it skip their epilogue
  std::int64_t cluster_rows = 0;  // cluster tiles along M: ceil(tiles_m / cluster_m)
  std::int64_t cluster_cols = 0;  // cluster tiles along N: ceil(tiles_n / cluster_n)
  std::int64_t k_tiles = 0;       // k tiles of K (128 bytes of it each: k_tile_of; the last one ragged)
  std::int64_t splits = 1;        // K is split this many ways in the split cluster tiles (1: none)
  std::int64_t split_from = 0;    // the first split cluster tile (cluster_tiles() when none is)
  std::int64_t units = 0;         // work units
  std::int64_t wave = 1;          // clusters resident at once
  std::int64_t grid = 0;          // clusters launched: min(units, wave)
  bool stream = false;            // the split cluster tiles are dealt out by stream-K (splits: the most contributors to a tile)
  std::int64_t stream_iters = 0;  // stream-K: the split cluster tiles' k tiles, all of them

  LOOM_HD constexpr std::int64_t cluster_tiles() const { return cluster_rows * cluster_cols; }
  LOOM_HD constexpr std::int64_t cluster_size() const { return cluster_m * cluster_n; }
  // Rounds of work on the busiest cluster: whole tiles, then split units.
  LOOM_HD constexpr std::int64_t whole_rounds() const {
    return splits > 1 ? split_from / wave : (cluster_tiles() + wave - 1) / wave;
  }
  LOOM_HD constexpr std::int64_t split_rounds() const {
    if (stream) return 1;
    return splits > 1 ? ((cluster_tiles() - split_from) * splits + wave - 1) / wave : 0;
  }
  // The k tiles of one unit of each kind (the longest split: ceil(K / S)); stream-K: of one
  // cluster's range.
  LOOM_HD constexpr std::int64_t split_k_tiles() const {
    return stream ? (stream_iters + grid - 1) / grid : (k_tiles + splits - 1) / splits;
  }

  // Split-K workspace: one slot per split CTA tile and consumer warpgroup, holding `splits` partial
  // accumulator tiles of 64 x bn fp32 (the warpgroup's registers, in their own order), and one
  // arrival counter per slot.
  LOOM_HD constexpr std::int64_t split_ctas() const {
    return splits > 1 || stream ? (cluster_tiles() - split_from) * cluster_size() : 0;
  }
  LOOM_HD constexpr std::int64_t slots() const { return split_ctas() * consumers; }
  LOOM_HD constexpr std::int64_t slot_floats() const { return wg_rows * bn; }
  LOOM_HD constexpr std::int64_t partial_bytes() const { return slots() * splits * slot_floats() * 4; }
  // Split-K's words: splits a slot, 64 bits each (the arrival counter takes the first, the fixed
  // finisher's flags the first splits - 1: split_k_fixup).
  LOOM_HD constexpr std::int64_t counter_bytes() const { return slots() * splits * 8; }
  // Whether each split unit is the last its cluster runs (one round of split units, after any
  // whole ones): then a split may wait for its peers without anything waiting on it in turn, and the
  // last split of each tile sums the others' partials as they land (split_k_fixup's fixed finisher).
  // In the plain order its cluster then follows every peer's (group_by_gpc's order turns it off).
  LOOM_HD constexpr bool finisher_waits() const { return splits > 1 && !stream && units - split_from <= grid; }

  // Whether the kernel's 32-bit tile scheduler can walk it.
  constexpr bool fits_kernel() const {
    std::int64_t const lim = 0x7fffffff;
    // Stream-K's range bounds c * T / grid are taken in 32 bits.
    return units <= lim && tiles_m * cluster_m <= lim && tiles_n * cluster_n <= lim && cluster_tiles() <= lim &&
           k_tiles * splits <= lim &&
           (stream_iters + 1) * grid <= lim;
  }
};

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The most clusters a GPC-grouped order places (TileScheduler::slot_unit): one per SM of the
// largest Hopper part.
constexpr int kMaxSlots = 144;

// The schedule of tile shape t for a problem (m, n, k) in the kernel's orientation, K split
// `splits` ways (of every cluster tile, or with `tail` of the cluster tiles past the last whole
// wave only), on a GPU that holds `wave` clusters of t at once. What the plan asks for becomes what
// runs here, and only here:
// - splits are clamped to [1, min(k tiles, kMaxSplits)], so that no split has an empty k range;
// - the tail plan splits every cluster tile when there is less than a wave of them, and none when
//   the waves come out whole.
constexpr Schedule make_schedule(TileShape t, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t splits,
                                 bool tail, std::int64_t wave, bool stream = false, int k_tile = kTileK) {
  Schedule s;
  s.cluster_m = t.cluster_m;
  s.cluster_n = t.cluster_n;
  s.consumers = tile_consumers(t);
  s.wg_rows = t.wg_rows;
  s.bn = t.bn;
  s.tiles_m = ceil_div(m, t.bm);
  s.tiles_n = ceil_div(n, t.bn);
  s.cluster_rows = ceil_div(s.tiles_m, t.cluster_m);
  s.cluster_cols = ceil_div(s.tiles_n, t.cluster_n);
  s.k_tiles = ceil_div(k, k_tile);
  s.wave = wave > 0 ? wave : 1;
  std::int64_t const cap = s.k_tiles < kMaxSplits ? s.k_tiles : kMaxSplits;
  s.splits = splits < 1 ? 1 : splits > cap ? (cap < 1 ? 1 : cap) : splits;
  std::int64_t const tiles = s.cluster_tiles();
  s.split_from = 0;
  if (s.splits > 1 && tail && tiles > s.wave) {
    s.split_from = tiles / s.wave * s.wave;
    if (s.split_from == tiles) s.splits = 1;
  }
  if (s.splits == 1) s.split_from = tiles;
  s.units = s.split_from + (tiles - s.split_from) * s.splits;
  s.grid = s.units < s.wave ? s.units : s.wave;
  if (stream) {
    // Stream-K over the partial wave (all of it under a wave), every resident cluster taking a
    // range, unless the waves come out whole.
    s.split_from = tiles / s.wave * s.wave;
    if (s.split_from == tiles) {
      s.splits = 1, s.units = tiles, s.grid = tiles < s.wave ? tiles : s.wave;
      return s;
    }
    std::int64_t const iters = (tiles - s.split_from) * s.k_tiles;
    // Every range must hold a k tile (a tile counts the clusters between its first and last
    // contributor as contributors): fewer k tiles than clusters shrink the grid, or, behind whole
    // waves, leave the tiles whole.
    if (iters < s.wave && s.split_from > 0) {
      s.split_from = tiles, s.splits = 1, s.units = tiles, s.grid = s.wave;
      return s;
    }
    s.stream = true;
    s.grid = iters < s.wave ? iters : s.wave;
    s.stream_iters = iters;
    // A range of ceil(T / grid) k tiles meets at most ceil(that / k_tiles) + 1 tiles; a tile meets
    // at most ceil(k_tiles grid / T) + 1 ranges.
    std::int64_t const per = (s.stream_iters + s.grid - 1) / s.grid;
    std::int64_t const most = (s.k_tiles * s.grid + s.stream_iters - 1) / s.stream_iters + 1;
    s.splits = most < s.grid ? most : s.grid;
    s.units = s.split_from + ((per + s.k_tiles - 1) / s.k_tiles + 1) * s.grid;
  }
  return s;
}

// The kernel's view of a Schedule, in 32-bit integers (a 64-bit division in the consumers' loop
// puts their accumulators on the stack): which work units a cluster takes, and what each one is.
struct TileScheduler {
  int cluster_m, cluster_n, tiles_m, cluster_rows, tiles_n, cluster_cols, k_tiles, splits, split_from, units, grid,
      consumers, slot_floats;
  int stream_iters;  // stream-K: the split cluster tiles' k tiles (0: no stream-K)
  int finisher;      // Schedule::finisher_waits: the last split of a tile sums (else the last to arrive)
  // Cluster c < slots runs unit slot_unit[c] (group_by_gpc); slots == 0: cluster c runs unit c.
  int slots = 0;
  unsigned short slot_unit[kMaxSlots] = {};

  TileScheduler() = default;
  LOOM_HD explicit TileScheduler(Schedule const& s)
      : cluster_m(int(s.cluster_m)), cluster_n(int(s.cluster_n)), tiles_m(int(s.tiles_m)),
        cluster_rows(int(s.cluster_rows)), tiles_n(int(s.tiles_n)), cluster_cols(int(s.cluster_cols)), k_tiles(int(s.k_tiles)), splits(int(s.splits)), split_from(int(s.split_from)), units(int(s.units)),
        grid(int(s.grid)), consumers(int(s.consumers)), slot_floats(int(s.slot_floats())),
        stream_iters(s.stream ? int(s.stream_iters) : 0), finisher(s.finisher_waits() ? 1 : 0) {}

  struct Work {
    int tile;                           // the cluster tile
    int m, n;                           // this CTA's tile
    int split, splits, k_begin, k_end;  // the unit's split of its tile, of `splits`, and its k tiles (empty: skip it)
  };

  // The first unit of cluster `cluster` (blockIdx.x / the cluster's size) and the step to its next one.
  LOOM_HD int first(int cluster) const { return cluster; }
  LOOM_HD int step() const { return grid; }

  // Unit u as the CTA of cluster rank `rank` sees it.
  LOOM_HD Work work(int u, unsigned rank) const {
    if (u < slots) u = slot_unit[u];
    Work w;
    bool streamed = false;
    if (u < split_from) {
      w.tile = u, w.split = 0, w.splits = 1;
    } else if (stream_iters > 0) {
      // Piece j of cluster c's range [b, e), in tile `rel` of the streamed ones: k tiles [lo, hi)
      // of its [ts, ts + k_tiles). Its contributors are the clusters holding its first and last k
      // tile, and those between: cluster of iteration i = ((i + 1) grid - 1) / T (32-bit:
      // fits_kernel).
      unsigned const T = unsigned(stream_iters), G = unsigned(grid), K = unsigned(k_tiles);
      unsigned const v = unsigned(u - split_from), c = v % G, j = v / G;
      unsigned const b = c * T / G, e = (c + 1) * T / G;
      unsigned const rel = b / K + j, ts = rel * K;
      unsigned const lo = b > ts ? b : ts, hi = e < ts + K ? e : ts + K;
      streamed = true;
      if (lo >= hi || rel * K >= T) {  // past the range's last piece
        w.tile = split_from, w.split = 0, w.splits = 1, w.k_begin = w.k_end = 0;
      } else {
        unsigned const first = ((ts + 1) * G - 1) / T, last = ((ts + K) * G - 1) / T;
        w.tile = split_from + int(rel);
        w.split = int(c - first), w.splits = int(last - first + 1);
        w.k_begin = int(lo - ts), w.k_end = int(hi - ts);
      }
    } else {
      w.tile = split_from + (u - split_from) / splits;
      w.split = u - split_from - (w.tile - split_from) * splits;
      w.splits = splits;
    }
    int const per_group = kGroupM * cluster_cols, first_row = w.tile / per_group * kGroupM, in_group = w.tile % per_group;
    int const group_rows = cluster_rows - first_row < kGroupM ? cluster_rows - first_row : kGroupM;
    w.m = (first_row + in_group % group_rows) * cluster_m + int(rank % unsigned(cluster_m));
    w.n = in_group / group_rows * cluster_n + int(rank / unsigned(cluster_m));
    if (!streamed) {
      // 32-bit: k_tiles * splits < 2^31 (fits_kernel).
      w.k_begin = int(unsigned(w.split) * unsigned(k_tiles) / unsigned(w.splits));
      w.k_end = int(unsigned(w.split + 1) * unsigned(k_tiles) / unsigned(w.splits));
    }
    return w;
  }

  // The workspace slot of consumer warpgroup `wg` of a split unit's CTA, and the offset (in floats)
  // of its split s's partial tile (Schedule::partial_bytes holds them all).
  LOOM_HD std::size_t slot(Work const& w, unsigned rank, int wg) const {
    return (std::size_t(w.tile - split_from) * unsigned(cluster_m * cluster_n) + rank) * unsigned(consumers) + unsigned(wg);
  }
  LOOM_HD std::size_t partial(std::size_t slot, int s) const {
    return (slot * unsigned(splits) + unsigned(s)) * unsigned(slot_floats);
  }
};

// Readers grouped by GPC (see the tile order above): fills ts's slot_unit so that the clusters of a
// one-wave schedule that read one panel of the shared operand run in one GPC, where the GPC of
// cluster c is gpc_of_slot[c] (c < count: the clusters of this size a launch holds, as measured).
// The shared operand is the one whose panels have fewer readers: B's panel (a cluster column) is
// read by cluster_rows clusters, A's (a cluster row) by cluster_cols; a split unit shares only
// with the same split of the other tiles. Panels go whole into the GPC with the fewest free slots
// that takes them, the largest first; those that fit nowhere fill the free slots in GPC order.
// Leaves ts unchanged, and returns false, where no panel has two readers, the schedule takes more
// than one wave or is stream-K's, or the placement does not cover its clusters.
inline bool group_by_gpc(TileScheduler& ts, unsigned char const* gpc_of_slot, int count) {
  int const units = ts.units;
  if (gpc_of_slot == nullptr || ts.stream_iters > 0 || units > ts.grid || units > count || units > kMaxSlots || units < 2)
    return false;
  bool const by_col = ts.cluster_rows <= ts.cluster_cols;  // readers of a B panel: one cluster column
  if ((by_col ? ts.cluster_rows : ts.cluster_cols) < 2) return false;
  ts.slots = 0;
  // Each unit's panel: (split, splits, panel index), as one key.
  std::int64_t key[kMaxSlots];
  for (int u = 0; u < units; ++u) {
    TileScheduler::Work const w = ts.work(u, 0);
    std::int64_t const panel = by_col ? w.n / ts.cluster_n : w.m / ts.cluster_m;
    key[u] = (std::int64_t(w.splits) * kMaxSplits + w.split) * 0x40000000ll + panel;
  }
  // Panels: their units in unit order, panels ordered by size (largest first), then first unit.
  int order[kMaxSlots], start[kMaxSlots + 1], size[kMaxSlots], panels = 0;
  bool seen[kMaxSlots] = {};
  int n = 0;
  for (int u = 0; u < units; ++u) {
    if (seen[u]) continue;
    start[panels] = n;
    for (int v = u; v < units; ++v)
      if (!seen[v] && key[v] == key[u]) seen[v] = true, order[n++] = v;
    size[panels] = n - start[panels];
    ++panels;
  }
  int rank[kMaxSlots];
  for (int i = 0; i < panels; ++i) rank[i] = i;
  for (int i = 1; i < panels; ++i)  // stable insertion sort, largest first
    for (int j = i; j > 0 && size[rank[j]] > size[rank[j - 1]]; --j) std::swap(rank[j], rank[j - 1]);
  // GPCs: the slots of each, in slot order.
  int gpc_count = 0, gpc_id[kMaxSlots], free_slots[kMaxSlots] = {};
  for (int c = 0; c < units; ++c) {
    int g = 0;
    while (g < gpc_count && gpc_id[g] != gpc_of_slot[c]) ++g;
    if (g == gpc_count) gpc_id[gpc_count++] = gpc_of_slot[c];
    ++free_slots[g];
  }
  int next_slot[kMaxSlots] = {};  // the next unused slot of each GPC: scanned from 0
  auto take = [&](int g) {
    int c = next_slot[g];
    while (gpc_of_slot[c] != gpc_id[g]) ++c;
    next_slot[g] = c + 1;
    --free_slots[g];
    return c;
  };
  bool placed[kMaxSlots] = {};
  int filled = 0;
  for (int i = 0; i < panels; ++i) {
    int const p = rank[i];
    int best = -1;
    for (int g = 0; g < gpc_count; ++g)
      if (free_slots[g] >= size[p] && (best < 0 || free_slots[g] < free_slots[best])) best = g;
    if (best < 0) continue;
    for (int j = 0; j < size[p]; ++j) ts.slot_unit[take(best)] = (unsigned short)order[start[p] + j];
    placed[p] = true;
    filled += size[p];
  }
  int g = 0;
  for (int i = 0; i < panels; ++i) {
    int const p = rank[i];
    if (placed[p]) continue;
    for (int j = 0; j < size[p]; ++j) {
      while (free_slots[g] == 0) ++g;
      ts.slot_unit[take(g)] = (unsigned short)order[start[p] + j];
    }
    filled += size[p];
  }
  if (filled != units) return false;
  ts.slots = units;
  // In this order a tile's last split may run on a lower cluster than a peer it would wait for; the
  // fixed finisher waits only where each peer's cluster comes first (the plain order), so that the
  // peer was dispatched before it even where the grid does not fit at once (split_k_fixup).
  ts.finisher = 0;
  return true;
}

}  // namespace loom::sm90
