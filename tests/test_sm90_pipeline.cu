// The stage handshake of sm90's cluster pipeline (kernels/sm90/pipeline.cuh), on the host (no GPU
// needed): for the cluster of every tile shape of the menu, each CTA's consumer warpgroup arrives
// once on the empty barrier of every CTA whose producer multicasts into it (the CTAs its mask_a or
// mask_b names), and on no other, whether its threads arrive one a destination (release_target)
// or its first thread arrives on all (writer, the 8-bit accurate loops'); and each CTA's empty
// barrier hears exactly the count it is initialized with, kWriters a consumer warpgroup, from the
// CTAs it multicasts into. A count one short lets a producer overwrite a stage still being read;
// one too many hangs the kernel.
#include <gtest/gtest.h>

#include <bit>
#include <set>
#include <utility>
#include <vector>

#include "kernels/sm90/pipeline.cuh"
#include "kernels/sm90/tile_menu.hpp"

namespace loom::sm90 {
namespace {

// The configuration members Pipeline reads to release and multicast: the cluster's shape.
template <int kM, int kN>
struct ClusterOnly {
  static constexpr int kClusterM = kM, kClusterN = kN, kStages = 2;
};

template <int kShape>
void check_shape() {
  constexpr TileShape t = kTileShapes[kShape];
  using P = Pipeline<ClusterOnly<t.cluster_m, t.cluster_n>>;
  SCOPED_TRACE(t.name);
  int const size = t.cluster_m * t.cluster_n;
  std::vector<int> heard(size_t(size), 0);
  for (int y = 0; y < size; ++y) {
    std::set<int> writers;  // the CTAs whose loads land in y
    for (int x = 0; x < size; ++x)
      if (((unsigned(P::mask_a(unsigned(x))) | P::mask_b(unsigned(x))) >> y) & 1u) writers.insert(x);
    std::multiset<int> targets;
    for (int thread = 0; thread < 128; ++thread)
      if (int const d = P::release_target(unsigned(y), thread); d >= 0) targets.insert(d);
    EXPECT_EQ(std::set<int>(targets.begin(), targets.end()), writers) << "CTA " << y;
    EXPECT_EQ(int(targets.size()), int(writers.size())) << "CTA " << y << ": a writer hears twice";
    std::set<int> serial;
    for (int q = 0; q < P::kWriters; ++q) serial.insert(P::writer(unsigned(y), q));
    EXPECT_EQ(serial, writers) << "CTA " << y;
    for (int d : targets) ++heard[size_t(d)];
  }
  for (int x = 0; x < size; ++x) {
    EXPECT_EQ(heard[size_t(x)], P::kWriters) << "CTA " << x;
    EXPECT_EQ(std::popcount(unsigned(P::mask_a(unsigned(x))) | P::mask_b(unsigned(x))), P::kWriters) << "CTA " << x;
  }
}

template <int... kShapes>
void check_all(std::integer_sequence<int, kShapes...>) {
  (check_shape<kShapes>(), ...);
}

TEST(Sm90Pipeline, ReleasesReachEveryWriterOnceAndNoOther) { check_all(std::make_integer_sequence<int, kTileShapeCount>{}); }

}  // namespace
}  // namespace loom::sm90
