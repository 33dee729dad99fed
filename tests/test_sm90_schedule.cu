// sm90's work schedule (kernels/gemm_sm90.cuh: TileScheduler, WorkScheduler), run on the host for
// many grid and problem sizes. The kernel's correctness rests on these invariants, which no GPU
// sweep can cover for every (tiles, clusters, k tiles):
//  - every k tile of every CTA tile is computed exactly once, by exactly one cluster;
//  - each tile has exactly one finisher piece, the one that holds its last k tile, and its
//    contributors' pieces are exactly the tile's k tiles before the finisher's, each a partial;
//  - a cluster writes at most one partial, before its finisher piece (so a finisher never waits
//    on a cluster that is itself waiting);
//  - the tile order is a bijection onto the (M tile, N tile) grid, each cluster's two CTAs taking
//    neighbouring M tiles.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "kernels/gemm_sm90.cuh"

namespace {

using loom::sm90::kClusterM;
using loom::sm90::TileScheduler;
using loom::sm90::WorkScheduler;

struct Piece {
  int cluster, unit, k_begin, k_end;
  bool finisher;
};

void check(int tiles_m, int tiles_n, int k_tiles, bool stream_k, int clusters) {
  SCOPED_TRACE(testing::Message() << "tiles " << tiles_m << "x" << tiles_n << ", k tiles " << k_tiles
                                  << ", stream_k " << stream_k << ", clusters " << clusters);
  std::vector<Piece> pieces;
  std::map<int, std::vector<int>> covered;  // unit -> how often each k tile was computed
  for (int c = 0; c < clusters; ++c) {
    WorkScheduler const w(tiles_m, tiles_n, k_tiles, stream_k, clusters, c);
    int partials = 0;
    bool seen_finisher_sk = false;
    w.for_each_piece([&](int u, int kb, int ke, bool fin) {
      ASSERT_LT(kb, ke);
      ASSERT_GE(kb, 0);
      ASSERT_LE(ke, k_tiles);
      ASSERT_EQ(fin, ke == k_tiles) << "a piece finishes its tile exactly when it holds the last k tile";
      if (u >= w.dp_units) {
        if (!fin) {
          ++partials;
          EXPECT_FALSE(seen_finisher_sk) << "cluster " << c << " computes a partial after a stream-K finisher";
        } else {
          seen_finisher_sk = true;
        }
      } else {
        EXPECT_TRUE(kb == 0 && fin) << "a full-wave tile is computed whole";
      }
      auto& cov = covered[u];
      cov.resize(k_tiles);
      for (int k = kb; k < ke; ++k) ++cov[k];
      pieces.push_back({c, u, kb, ke, fin});
    });
    EXPECT_LE(partials, 1) << "cluster " << c << " writes more than one partial";
  }
  TileScheduler const t(tiles_m, tiles_n);
  ASSERT_EQ(int(covered.size()), t.units);
  for (auto const& [u, cov] : covered)
    for (int k = 0; k < k_tiles; ++k) ASSERT_EQ(cov[k], 1) << "unit " << u << " k tile " << k;

  // Contributors: each finisher's contributors hold exactly [0, k_begin) of its tile, as partials.
  for (Piece const& f : pieces) {
    if (!f.finisher || f.k_begin == 0) continue;
    WorkScheduler const w(tiles_m, tiles_n, k_tiles, stream_k, clusters, f.cluster);
    std::vector<int> cov(k_tiles, 0);
    int last = f.cluster;
    w.for_each_contributor(f.unit, [&](int c) {
      EXPECT_LT(c, last) << "contributors nearest first";
      last = c;
      int found = 0;
      for (Piece const& q : pieces)
        if (q.cluster == c && q.unit == f.unit) {
          EXPECT_FALSE(q.finisher);
          for (int k = q.k_begin; k < q.k_end; ++k) ++cov[k];
          ++found;
        }
      EXPECT_EQ(found, 1) << "contributor " << c << " of unit " << f.unit;
    });
    for (int k = 0; k < k_tiles; ++k) EXPECT_EQ(cov[k], k < f.k_begin ? 1 : 0) << "unit " << f.unit << " k " << k;
  }

  // The tile order covers the grid once (cluster rows padded to kClusterM M tiles).
  std::set<std::pair<int, int>> seen;
  for (int u = 0; u < t.units; ++u)
    for (unsigned r = 0; r < unsigned(kClusterM); ++r) {
      int m, n;
      t.tile(u, r, m, n);
      EXPECT_EQ(m % kClusterM, int(r));
      EXPECT_TRUE(n >= 0 && n < tiles_n && m >= 0 && m < t.rows * kClusterM);
      EXPECT_TRUE(seen.insert({m, n}).second) << "tile (" << m << "," << n << ") twice";
    }
}

TEST(Sm90Schedule, DataParallelOnly) {
  for (int clusters : {1, 7, 66})
    for (int tm : {1, 2, 3, 32})
      for (int tn : {1, 5, 16}) check(tm, tn, 4, false, clusters);
}

TEST(Sm90Schedule, StreamKTail) {
  // 4096^3 and 8192^3 with 128x256 tiles on 66 clusters; small problems (every tile stream-K);
  // k tile counts from 1 up, and clusters from 1 to more than the tiles.
  check(32, 16, 64, true, 66);
  check(64, 32, 128, true, 66);
  check(1, 16, 64, true, 66);
  check(2, 43, 32, true, 66);
  for (int clusters : {1, 2, 3, 10, 66})
    for (int tm : {1, 3, 8})
      for (int tn : {1, 2, 9})
        for (int kt : {1, 2, 3, 7, 64}) check(tm, tn, kt, true, clusters);
}

}  // namespace
