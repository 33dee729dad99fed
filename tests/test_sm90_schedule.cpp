// sm90's schedule (kernels/sm90/schedule.hpp), walked on the host exactly as the kernel walks it:
// every CTA tile of D gets every k tile exactly once, split units own distinct workspace slots, the
// grid's rounds are the ones the plan's model counts, and the tail plan splits only the last wave.
// And the instance list (kernels/CMakeLists.txt) holds exactly the plans the model may choose.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "kernels/sm90/plan.hpp"
#include "kernels/sm90/schedule.hpp"
#include "kernels/sm90/tile_menu.hpp"
#include "kernels/sm90/instances_8bit.hpp"
#include "kernels/sm90_instances.inc"

namespace loom::sm90 {
namespace {

// Walks `s` as the grid does: cluster c takes units c, c + grid, ...; every rank of the cluster
// sees each unit. Fails the test on any tile computed twice or missed, on a k range that is not
// its split's, or on a workspace slot shared or out of range.
// With `gpc`, the order first groups the readers of each panel by GPC (group_by_gpc), cluster c
// running on GPC gpc[c] for c < count.
void walk(Schedule const& s, std::string const& what, unsigned char const* gpc = nullptr, int count = 0) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(s.fits_kernel());
  TileScheduler sched(s);
  if (gpc) group_by_gpc(sched, gpc, count);
  ASSERT_EQ(sched.units, s.units);
  ASSERT_GE(s.grid, 1);
  ASSERT_LE(s.grid, s.wave);
  // (m, n) -> the k tiles computed for it, in order of their first k tile.
  std::map<std::pair<int, int>, std::map<int, int>> ks;
  std::set<std::pair<std::size_t, int>> partials;  // (slot, split)
  std::int64_t busiest = 0, busiest_k = 0;
  // Stream-K: per split cluster tile, the contributors' (split, k range), and the splits they name.
  std::map<int, std::map<int, std::pair<int, int>>> pieces;
  std::map<int, std::set<int>> named_splits;
  std::map<int, std::map<int, int>> split_cluster;  // split tile -> split -> the cluster that runs it
  for (int c = 0; c < sched.grid; ++c) {
    std::int64_t taken = 0, taken_k = 0;
    bool waited = false;  // the cluster ran a split unit that may wait for its peers (the fixed finisher)
    for (int u = sched.first(c); u < sched.units; u += sched.step()) {
      ++taken;
      // A split that waits for its peers must be its cluster's last unit: else a peer could wait on
      // a unit of this cluster that the wait holds up (split_k_fixup).
      ASSERT_FALSE(waited) << "cluster " << c << " runs unit " << u << " after a split unit that waits";
      waited = sched.finisher != 0 && sched.work(u, 0).splits > 1;
      if (waited) split_cluster[sched.work(u, 0).tile][sched.work(u, 0).split] = c;
      for (unsigned rank = 0; rank < unsigned(sched.cluster_m * sched.cluster_n); ++rank) {
        TileScheduler::Work const w = sched.work(u, rank);
        if (s.stream && u >= s.split_from) {
          ASSERT_LE(w.k_begin, w.k_end);
          if (w.k_begin == w.k_end) continue;  // past the range's last piece: every role skips it
          ASSERT_GE(w.splits, 1);
          ASSERT_LE(w.splits, s.splits);
          if (rank == 0) {
            taken_k += w.k_end - w.k_begin;
            ASSERT_TRUE(pieces[w.tile].emplace(w.split, std::make_pair(w.k_begin, w.k_end)).second)
                << "tile " << w.tile << " split " << w.split << " twice";
            named_splits[w.tile].insert(w.splits);
          }
        } else {
          ASSERT_EQ(w.splits, u < s.split_from ? 1 : s.splits);
          if (rank == 0) taken_k += w.k_end - w.k_begin;
        }
        ASSERT_GE(w.m, 0);
        ASSERT_LT(w.m, s.cluster_rows * s.cluster_m);
        ASSERT_GE(w.n, 0);
        ASSERT_LT(w.n, s.cluster_cols * s.cluster_n);
        ASSERT_LE(w.k_begin, w.k_end);
        if (w.splits > 1) {
          for (int wg = 0; wg < sched.consumers; ++wg) {
            std::size_t const slot = sched.slot(w, rank, wg);
            ASSERT_LT(std::int64_t(slot), s.slots());
            ASSERT_TRUE(partials.insert({slot, w.split}).second) << "slot " << slot << " split " << w.split << " twice";
            ASSERT_LE(std::int64_t(sched.partial(slot, w.split) + std::size_t(sched.slot_floats)) * 4, s.partial_bytes());
          }
        }
        if (w.m >= s.tiles_m || w.n >= s.tiles_n) continue;  // past M or N: computes nothing the epilogue stores
        auto& mine = ks[{w.m, w.n}];
        ASSERT_TRUE(mine.emplace(w.k_begin, w.k_end).second) << "tile (" << w.m << "," << w.n << ") k " << w.k_begin << " twice";
      }
    }
    busiest = std::max(busiest, taken);
    busiest_k = std::max(busiest_k, taken_k);
  }
  // The fixed finisher (the last split) runs on a later cluster than every peer it waits for.
  for (auto const& [tile, clusters] : split_cluster) {
    ASSERT_EQ(int(clusters.size()), s.splits) << "tile " << tile;
    int const finisher = clusters.rbegin()->second;
    for (auto const& [split, c] : clusters)
      if (split != s.splits - 1) {
        ASSERT_LT(c, finisher) << "tile " << tile << " split " << split;
      }
  }
  // Stream-K: each split tile's contributors are splits 0..S-1, all naming S, in k order.
  for (auto const& [tile, parts] : pieces) {
    ASSERT_EQ(named_splits[tile].size(), 1u) << "tile " << tile << ": contributors disagree on their count";
    ASSERT_EQ(int(parts.size()), *named_splits[tile].begin()) << "tile " << tile;
    int next = 0, expect = 0;
    for (auto const& [split, range] : parts) {
      ASSERT_EQ(split, expect++) << "tile " << tile;
      ASSERT_EQ(range.first, next) << "tile " << tile << " split " << split;
      next = range.second;
    }
  }
  // Every CTA tile inside D, each k tile once: its ranges chain from 0 to k_tiles.
  ASSERT_EQ(std::int64_t(ks.size()), s.tiles_m * s.tiles_n);
  for (auto const& [tile, ranges] : ks) {
    int next = 0;
    for (auto const& [b, e] : ranges) {
      if (b == e) continue;  // an empty split (not made: make_schedule clamps splits to the k tiles)
      ASSERT_EQ(b, next) << "tile (" << tile.first << "," << tile.second << ")";
      next = e;
    }
    ASSERT_EQ(next, s.k_tiles) << "tile (" << tile.first << "," << tile.second << ")";
  }
  // The rounds the model counts are the busiest cluster's units (stream-K: they include its empty
  // ones), and no cluster takes more k tiles than the model counts (the longest split's in each
  // round; stream-K: a range's, ceil(T / grid)).
  if (!s.stream) {
    EXPECT_EQ(busiest, s.whole_rounds() + s.split_rounds());
  }
  EXPECT_LE(busiest_k, s.whole_rounds() * s.k_tiles + s.split_rounds() * s.split_k_tiles());
  if (s.stream) {
    EXPECT_GE(busiest_k, s.whole_rounds() * s.k_tiles + s.stream_iters / s.grid);
    EXPECT_LE(std::int64_t(partials.size()), s.slots() * s.splits);  // splits: the most contributors a tile may have
  } else {
    EXPECT_EQ(std::int64_t(partials.size()), s.slots() * s.splits);
  }
}

TEST(Sm90Schedule, EveryTileAndKTileOnceOnEveryPlan) {
  std::mt19937_64 rng(20261126);
  int walked = 0;
  for (int i = 0; i < 1200; ++i) {
    std::int64_t const m = 1 + std::int64_t(rng() % 3000), n = 1 + std::int64_t(rng() % 6000);
    std::int64_t const k = 1 + std::int64_t(rng() % 5000);
    int const shape = int(rng() % kTileShapeCount);
    int const splits = 1 + int(rng() % 9);
    int const mode = int(rng() % 3);  // split every tile, the tail alone, stream-K
    int const sms = int(std::vector<int>{132, 114, 78, 16, 7}[rng() % 5]);
    TileShape const t = kTileShapes[shape];
    Schedule const s = make_schedule(t, m, n, k, splits, mode == 1, Residency::of_sms(sms).wave(tile_cluster(t)), mode == 2);
    walk(s, std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + t.name + " split " +
                std::to_string(splits) + (mode == 1 ? " tail" : mode == 2 ? " stream-K" : "") + " on " +
                std::to_string(sms) + " SMs");
    ++walked;
  }
  EXPECT_EQ(walked, 1200);
}

// Where an H100 SXM runs each cluster of 2 and of 4 CTAs, numbered as the GEMM numbers them
// (blockIdx / size): one GPC id per cluster, from cluster launches of 2 to 16 CTAs (the SMs of one
// cluster share a GPC) on the device tool's card, 2026-11-28 (docs/tuning/sm90.md, twenty-second
// round). 12 ids: four TPCs never shared a cluster with another in those launches.
constexpr unsigned char kH100Pairs[66] = {8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1,
                                          2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 1,
                                          2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 6, 7};
constexpr unsigned char kH100Fours[30] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6,
                                          7, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7};

TEST(Sm90Schedule, GroupedByGpcEveryTileAndKTileOnce) {
  // The grouped order is a permutation of the units: the walk's checks hold on every plan, one
  // wave or not (several waves keep the plain order), on the measured map and on random ones.
  std::mt19937_64 rng(20261128);
  std::vector<unsigned char> random_map(kMaxSlots);
  for (int i = 0; i < 1200; ++i) {
    std::int64_t const m = 1 + std::int64_t(rng() % 1500), n = 1 + std::int64_t(rng() % 9000);
    std::int64_t const k = 1 + std::int64_t(rng() % 5000);
    int const shape = int(rng() % kTileShapeCount);
    int const splits = 1 + int(rng() % 5);
    int const mode = int(rng() % 3);
    TileShape const t = kTileShapes[shape];
    int const size = tile_cluster(t);
    Residency const res = Residency::of_sms(132);
    Schedule const s = make_schedule(t, m, n, k, splits, mode == 1, res.wave(size), mode == 2);
    unsigned char const* map = nullptr;
    int count = 0;
    if (size == 2 && rng() % 2) map = kH100Pairs, count = 66;
    else if (size == 4 && rng() % 2) map = kH100Fours, count = 30;
    else {
      for (auto& g : random_map) g = (unsigned char)(rng() % 9);
      map = random_map.data(), count = int(rng() % 2 ? res.wave(size) : s.units / 2);  // a short map: left as it is
    }
    walk(s, std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + t.name + " split " +
                std::to_string(splits) + (mode == 1 ? " tail" : mode == 2 ? " stream-K" : "") + " grouped by GPC",
         map, count);
  }
}

// The menu's index of the tile shape named `name`, or -1.
int shape_index(std::string_view name) {
  for (int i = 0; i < kTileShapeCount; ++i)
    if (name == kTileShapes[i].name) return i;
  return -1;
}

// The GPC (on the measured map) of the clusters that read each panel of the shared operand.
std::map<std::int64_t, std::set<int>> panel_gpcs(TileScheduler const& ts, unsigned char const* map, bool by_col) {
  std::map<std::int64_t, std::set<int>> gpcs;
  for (int c = 0; c < ts.grid; ++c) {
    TileScheduler::Work const w = ts.work(c, 0);
    std::int64_t const panel = by_col ? w.n / ts.cluster_n : w.m / ts.cluster_m;
    gpcs[(std::int64_t(w.split) << 32) + panel].insert(map[c]);
  }
  return gpcs;
}

TEST(Sm90Schedule, GroupedByGpcPutsEachPanelsReadersInOneGpc) {
  // 384 x 6144 x 4096 on 128x144_1x2: 3 x 22 cluster tiles on the 66 pairs, each weights panel
  // (a cluster column) read by 3 clusters. The GPCs hold 4 to 9 pairs: 17 panels fit whole, the
  // other 5 fill the slots left.
  int const shape = shape_index("128x144_1x2");
  ASSERT_GE(shape, 0);
  Schedule const s = make_schedule(kTileShapes[shape], 384, 6144, 4096, 1, false, 66);
  TileScheduler plain(s), grouped(s);
  ASSERT_TRUE(group_by_gpc(grouped, kH100Pairs, 66));
  int whole = 0, whole_plain = 0;
  for (auto const& [panel, g] : panel_gpcs(grouped, kH100Pairs, true)) whole += g.size() == 1;
  for (auto const& [panel, g] : panel_gpcs(plain, kH100Pairs, true)) whole_plain += g.size() == 1;
  EXPECT_EQ(whole, 17);
  EXPECT_EQ(whole_plain, 0);
  // 300 x 5120 x 13824 swapped (the kernel's M = 5120) on 128x104_4x1: 10 x 3 cluster tiles on
  // the 30 clusters of four; each weights panel (a cluster row) is read by the 3 token tiles.
  int const four = shape_index("128x104_4x1");
  ASSERT_GE(four, 0);
  Schedule const s4 = make_schedule(kTileShapes[four], 5120, 300, 13824, 1, false, 30);
  TileScheduler g4(s4);
  ASSERT_TRUE(group_by_gpc(g4, kH100Fours, 30));
  int whole4 = 0;
  for (auto const& [panel, g] : panel_gpcs(g4, kH100Fours, false)) whole4 += g.size() == 1;
  EXPECT_EQ(whole4, 7);  // GPCs 1-7 hold 4 clusters each, GPC 0 two
  // More than a wave, or stream-K: the plain order.
  Schedule const two = make_schedule(kTileShapes[shape], 4096, 4096, 4096, 1, false, 66);
  TileScheduler t2(two);
  EXPECT_FALSE(group_by_gpc(t2, kH100Pairs, 66));
  EXPECT_EQ(t2.slots, 0);
}

TEST(Sm90Schedule, TheTailSplitsOnlyTheLastWave) {
  // 1024 x 14336 on 128x256: 4 x 56 = 224 cluster tiles of 2 CTAs on 66 clusters: 3 whole waves
  // (198 tiles), then 26 tiles split 3 ways.
  Schedule const s = make_schedule(kTileShapes[0], 1024, 14336, 4096, 3, true, 66);
  EXPECT_EQ(s.split_from, 198);
  EXPECT_EQ(s.units, 198 + 26 * 3);
  EXPECT_EQ(s.whole_rounds(), 3);
  EXPECT_EQ(s.split_rounds(), 2);  // 78 split units on 66 clusters
  EXPECT_EQ(s.split_ctas(), 52);
  TileScheduler const sched(s);
  for (int c = 0; c < sched.grid; ++c) {
    int round = 0;
    for (int u = sched.first(c); u < sched.units; u += sched.step(), ++round)
      EXPECT_EQ(sched.work(u, 0).splits > 1, round >= 3) << "cluster " << c << " round " << round;
  }
  walk(s, "1024x14336x4096 128x256 tail 3");
  // Whole waves and no remainder: nothing to split. Less than a wave: every tile split.
  Schedule const whole = make_schedule(kTileShapes[1], 8448, 2048, 4096, 2, true, 66);
  EXPECT_EQ(whole.splits, 1);
  EXPECT_EQ(whole.units, whole.cluster_tiles());
  Schedule const small = make_schedule(kTileShapes[1], 256, 4096, 4096, 2, true, 66);
  EXPECT_EQ(small.split_from, 0);
  EXPECT_EQ(small.units, small.cluster_tiles() * 2);
}

TEST(Sm90Schedule, OnlyLastUnitsWaitForTheirPeers) {
  // One round of split units: the last split of each tile waits for the others' flags.
  Schedule const one = make_schedule(kTileShapes[1], 256, 4096, 4096, 2, false, 66);  // 32 tiles x 2 = 64 units
  EXPECT_TRUE(one.finisher_waits());
  EXPECT_EQ(TileScheduler(one).finisher, 1);
  EXPECT_EQ(one.counter_bytes(), one.slots() * 2 * 8);  // a word a split and slot
  walk(one, "256x4096x4096 128x128 split 2");
  // The readers grouped by GPC: the order no longer runs each peer first, so the counter sums.
  Schedule const grouped = make_schedule(kTileShapes[1], 512, 2048, 4096, 2, false, 66);  // 2 x 16 tiles x 2
  ASSERT_TRUE(grouped.finisher_waits());
  TileScheduler g(grouped);
  ASSERT_TRUE(group_by_gpc(g, kH100Pairs, 66));
  EXPECT_EQ(g.finisher, 0);
  walk(grouped, "512x2048x4096 128x128 split 2, grouped by GPC", kH100Pairs, 66);
  // Two rounds of split units (and the tail's whole waves before them): the counter.
  Schedule const two = make_schedule(kTileShapes[0], 1024, 14336, 4096, 3, true, 66);
  EXPECT_FALSE(two.finisher_waits());
  EXPECT_EQ(TileScheduler(two).finisher, 0);
  // A tail whose split units fit one round, after whole waves: each is its cluster's last.
  Schedule const tail = make_schedule(kTileShapes[0], 1024, 9216, 4096, 2, true, 66);  // 132 whole, 12 x 2 split
  EXPECT_EQ(tail.split_rounds(), 1);
  EXPECT_TRUE(tail.finisher_waits());
  walk(tail, "1024x9216x4096 128x256 tail 2");
  // Stream-K and whole plans never wait.
  EXPECT_FALSE(make_schedule(kTileShapes[1], 256, 4096, 4096, 1, false, 66, true).finisher_waits());
  EXPECT_FALSE(make_schedule(kTileShapes[1], 256, 4096, 4096, 1, false, 66).finisher_waits());
}

TEST(Sm90Schedule, SplitsAreClampedToTheKTiles) {
  // K = 100: two k tiles, so a split of 8 runs as 2 (no split without k tiles of its own).
  Schedule const s = make_schedule(kTileShapes[5], 64, 4096, 100, 8, false, 66);
  EXPECT_EQ(s.k_tiles, 2);
  EXPECT_EQ(s.splits, 2);
  walk(s, "64x4096x100 64x64 split 8");
  EXPECT_EQ(make_schedule(kTileShapes[5], 64, 4096, 1 << 20, 1000, false, 66).splits, kMaxSplits);
}

TEST(Sm90Schedule, ResidencyOfSmsIsTheSmCountOverTheClusterSize) {
  Residency const r = Residency::of_sms(132);
  EXPECT_EQ(r.wave(1), 132);
  EXPECT_EQ(r.wave(2), 66);
  EXPECT_EQ(r.wave(3), 44);
  EXPECT_EQ(r.wave(4), 33);
  EXPECT_EQ(r.wave(8), 16);
  EXPECT_EQ(Residency::of_sms(1).wave(2), 1);  // never 0
}

// The instances kernels/CMakeLists.txt lists, as the host dispatch sees them.
std::set<std::tuple<int, bool, bool>> instances() {
  std::set<std::tuple<int, bool, bool>> all;
#define LOOM_TEST_INSTANCE(S, AK, BK) all.insert({S, AK, BK});
  LOOM_SM90_INSTANCES(LOOM_TEST_INSTANCE)
#undef LOOM_TEST_INSTANCE
  return all;
}

TEST(Sm90Instances, EveryPlanHasItsInstanceAndNoOtherIsBuilt) {
  std::set<std::tuple<int, bool, bool>> const built = instances();
  std::set<std::tuple<int, bool, bool>> takes;
  for (int s = 0; s < kTileShapeCount; ++s)
    for (bool ak : {true, false})
      for (bool bk : {true, false})
        if (tile_takes(kTileShapes[s], ak, bk)) takes.insert({s, ak, bk});
  EXPECT_EQ(built, takes);
}

// The 8-bit instances: each a shape built for k-major operands, once; every pair cuBLASLt takes
// (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3) in both modes, each pair both ways round (a swapped plan
// trades A's and B's types).
TEST(Sm90Instances, The8BitInstancesCoverEveryPairAndMode) {
  std::set<std::tuple<int, WgmmaType, WgmmaType, bool>> seen;
  for (Instance8Bit const& i : kInstances8Bit) {
    ASSERT_TRUE(i.shape >= 0 && i.shape < kTileShapeCount);
    EXPECT_TRUE(tile_takes(kTileShapes[i.shape], true, true)) << kTileShapes[i.shape].name;
    EXPECT_TRUE(seen.insert({i.shape, i.a, i.b, i.promote}).second) << "built twice: " << kTileShapes[i.shape].name;
    EXPECT_FALSE(i.a == WgmmaType::kE5M2 && i.b == WgmmaType::kE5M2);
  }
  constexpr WgmmaType k43 = WgmmaType::kE4M3, k52 = WgmmaType::kE5M2;
  for (auto [a, b] : {std::pair{k43, k43}, std::pair{k43, k52}, std::pair{k52, k43}})
    for (bool promote : {false, true}) {
      // Some 128-row and some 64-row tile for every pair and mode (the plan needs a candidate).
      bool rows128 = false, rows64 = false;
      for (int s = 0; s < kTileShapeCount; ++s)
        if (built_8bit(s, a, b, promote)) (kTileShapes[s].bm == 128 ? rows128 : rows64) = true;
      EXPECT_TRUE(rows128 && rows64) << int(a) << " x " << int(b) << (promote ? " accurate" : " fast");
    }
}

}  // namespace
}  // namespace loom::sm90
