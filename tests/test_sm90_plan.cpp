// sm90's cost model (kernels/sm90/plan.hpp): the choices it makes on the shapes of transformer
// layers and beyond, and the limits every choice keeps.
#include <gtest/gtest.h>

#include <random>

#include "kernels/sm90/plan.hpp"
#include "kernels/sm90/schedule.hpp"

namespace loom::sm90 {
namespace {

Plan plan_of(std::int64_t m, std::int64_t n, std::int64_t k, bool a_k_major = true, bool b_k_major = true) {
  PlanInput in;
  in.m = m, in.n = n, in.k = k;
  in.a_k_major = a_k_major, in.b_k_major = b_k_major;
  return choose_plan(in);
}

TEST(Sm90Plan, BigProblemsTakeTheBigTileWhole) {
  for (std::int64_t s : {4096, 8192}) {
    Plan const p = plan_of(s, s, s);
    EXPECT_EQ(std::string(kTileShapes[p.shape].name), "128x256") << s;
    EXPECT_EQ(p.splits, 1) << s;
    EXPECT_FALSE(p.swap) << s;
  }
}

TEST(Sm90Plan, SmallMIsSwappedOntoANarrowTile) {
  // A few tokens: M becomes wgmma's N, the narrowest tile that holds it.
  for (std::int64_t m : {1, 8, 16}) {
    Plan const p = plan_of(m, 4096, 4096);
    EXPECT_TRUE(p.swap) << m;
    EXPECT_EQ(kTileShapes[p.shape].bn, 16) << m;
  }
  // At M = 64 the 64 rows are one tile either way round: 64x32 unswapped, 128 tiles whole (a
  // split's fixup costs more than it saves there: fixup_us).
  Plan const p = plan_of(64, 4096, 4096);
  EXPECT_EQ(kTileShapes[p.shape].bm, 64);
  EXPECT_EQ(p.splits, 1);
  // The same problem transposed (a small N) needs no swap.
  Plan const q = plan_of(4096, 16, 4096);
  EXPECT_FALSE(q.swap);
  EXPECT_EQ(kTileShapes[q.shape].bn, 16);
}

TEST(Sm90Plan, ThreeRowTilesShareBOnAClusterOfThreeWhereTheClustersFit) {
  // M = 384 is three 128-row tiles: a cluster of three along M multicasts each column of B to all of
  // them. On an H100 (39 clusters of three) 384 x 3584 x 18944 takes 128x192 on 3x1 split 2 (38
  // clusters; measured 81.8 µs against 122.7 for the pick before it).
  PlanInput in;
  in.m = 384, in.n = 3584, in.k = 18944;
  int const h100[Residency::kMaxCluster] = {132, 66, 39, 30, 22, 17, 15, 15};
  for (int i = 0; i < Residency::kMaxCluster; ++i) in.res.clusters[i] = h100[i];
  Plan const p = choose_plan(in);
  EXPECT_EQ(std::string(kTileShapes[p.shape].name), "128x192_3x1");
  EXPECT_EQ(p.splits, 2);
  // Where the GPU holds fewer such clusters than the split needs, it runs something else.
  in.res.clusters[2] = 20;
  EXPECT_NE(tile_cluster(kTileShapes[choose_plan(in).shape]), 3);
}

TEST(Sm90Plan, FewTilesSplitK) {
  // 16 x 4096 has at most 64 tiles of any shape for 132 SMs: a long K is split.
  EXPECT_GT(plan_of(16, 4096, 14336).splits, 1);
  // A short K is never split below 4 k tiles a split.
  EXPECT_EQ(plan_of(128, 4096, 256).splits, 1);
}

TEST(Sm90Plan, FewTilesTakeHalfHeightTilesBeforeSplitting) {
  // 256 x 4096: 128x128 makes 64 tiles for 132 SMs; 64x128 makes 128 whole ones, no fixup.
  Plan const p = plan_of(256, 4096, 4096);
  EXPECT_EQ(kTileShapes[p.shape].bm, 64) << describe(p);
  EXPECT_EQ(p.splits, 1) << describe(p);
  // 128 x 4096: 64x64 makes 128 whole tiles.
  Plan const q = plan_of(128, 4096, 4096);
  EXPECT_EQ(std::string(kTileShapes[q.shape].name), "64x64") << describe(q);
  EXPECT_EQ(q.splits, 1) << describe(q);
  // 11008 columns: 128x256 makes 2 x 43 = 86 tiles, leaving a third of the SMs idle; the pick is a
  // narrower width that fills one wave (128x192: 116 tiles, 128x176: 126), whole.
  Plan const r = plan_of(256, 11008, 4096);
  TileShape const t = kTileShapes[r.shape];
  std::int64_t const tiles = (256 + t.bm - 1) / t.bm * ((11008 + t.bn - 1) / t.bn);
  EXPECT_EQ(t.bm, 128) << describe(r);
  EXPECT_EQ(r.splits, 1) << describe(r);
  EXPECT_GE(tiles, 116) << describe(r);
  EXPECT_LE(tiles, 132) << describe(r);
}

TEST(Sm90Plan, APartialLastWaveIsSplitAlone) {
  // 2048 x 11008 on 128x256: 16 x 44 = 704 CTA tiles are 5.3 waves of 132; the last 0.3 wave is
  // split, the five whole waves are not.
  Plan const p = plan_of(2048, 11008, 4096);
  EXPECT_TRUE(p.tail) << describe(p);
  EXPECT_GT(p.splits, 1) << describe(p);
  EXPECT_NE(describe(p).find("on the last wave"), std::string::npos) << describe(p);
  EXPECT_LT(p.us, estimate_us(p.shape, 1, 2048, 11008, 4096, 132, 2, false));
  // Waves that come out whole have no tail: the estimate is the whole tiles' (8448 x 2048 on
  // 128x128 is 66 x 16 = 1056 CTA tiles, 8 whole waves).
  EXPECT_DOUBLE_EQ(estimate_us(1, 2, 8448, 2048, 4096, 132, 2, false, {}, true),
                   estimate_us(1, 1, 8448, 2048, 4096, 132, 2, false));
  // Less than a wave: the tail is every tile, the classic split.
  EXPECT_DOUBLE_EQ(estimate_us(1, 2, 256, 4096, 4096, 132, 2, false, {}, true),
                   estimate_us(1, 2, 256, 4096, 4096, 132, 2, false));
}

TEST(Sm90Plan, NarrowTilesNeedAKMajorB) {
  // ccc with a small M: B (as the kernel sees it after the swap) is mn-major, so no 128x16.
  for (std::int64_t m : {1, 16, 64}) {
    Plan const p = plan_of(m, 4096, 4096, /*a_k_major=*/false, /*b_k_major=*/true);
    bool const a_k_major = p.swap ? true : false, b_k_major = p.swap ? false : true;
    EXPECT_TRUE(tile_takes(kTileShapes[p.shape], a_k_major, b_k_major)) << m << ": " << describe(p);
  }
}

TEST(Sm90Plan, ATokenCountThatFillsEightyEightWideTilesTakesTheTallTile) {
  // 350 and 700 tokens are four and eight token tiles of 88 (352, 704): on an H200, 192x88 on 1x2,
  // swapped, whose two CTAs along the tokens share the weights' tile (measured 35.7 µs at
  // 350 x 6144 x 5120 against 42.1 for the 128x176 it replaced, docs/tuning/sm90.md twenty-fourth
  // round). The tall tiles are offered only at the 192-1024 tokens their timings cover.
  PlanInput in;
  in.n = 6144, in.k = 5120;
  int const h200[Residency::kMaxCluster] = {132, 66, 39, 30, 22, 17, 15, 15};
  for (int i = 0; i < Residency::kMaxCluster; ++i) in.res.clusters[i] = h200[i];
  Machine mc;
  mc.card.mem_clock_khz = 3201000, mc.card.bus_bits = 6016;
  for (std::int64_t m : {350, 700}) {
    in.m = m;
    Plan const p = choose_plan(in, mc);
    EXPECT_TRUE(p.swap) << m;
    EXPECT_EQ(kTileShapes[p.shape].bm, 192) << m << ": " << describe(p);
  }
  for (std::int64_t m : {1, 96, 160, 1536, 4096}) {
    in.m = m;
    Plan const p = choose_plan(in, mc);
    EXPECT_LE(kTileShapes[p.shape].bm, 128) << m << ": " << describe(p);
  }
}

TEST(Sm90Plan, EveryChoiceKeepsItsLimits) {
  std::mt19937_64 rng(20261123);
  std::uniform_int_distribution<int> log_dim(0, 15);
  Machine const mc;
  for (int i = 0; i < 3000; ++i) {
    std::int64_t const m = 1 + (std::int64_t(1) << log_dim(rng)) + rng() % 97;
    std::int64_t const n = 1 + (std::int64_t(1) << log_dim(rng)) + rng() % 97;
    std::int64_t const k = 1 + (std::int64_t(1) << log_dim(rng)) + rng() % 97;
    bool const ak = rng() % 2, bk = rng() % 2;
    Plan const p = plan_of(m, n, k, ak, bk);
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + ": " + describe(p));
    ASSERT_GE(p.shape, 0);
    ASSERT_LT(p.shape, kTileShapeCount);
    TileShape const t = kTileShapes[p.shape];
    EXPECT_TRUE(tile_takes(t, p.swap ? bk : ak, p.swap ? ak : bk));
    EXPECT_GE(p.splits, 1);
    if (p.splits > 1) {
      EXPECT_GE(ceil_div(k, kTileK) / p.splits, 4);
    }
    std::int64_t const km = p.swap ? n : m, kn = p.swap ? m : n;
    // Offered only within the M and N its timings cover.
    EXPECT_GE(km, t.min_m);
    EXPECT_GE(kn, t.min_n);
    if (t.max_n) {
      EXPECT_LE(kn, t.max_n);
    }
    Schedule const sc = make_schedule(t, km, kn, k, p.splits, p.tail, Residency{}.wave(tile_cluster(t)), p.stream);
    EXPECT_LE(sc.partial_bytes(), mc.workspace_cap);
    // The tail plan keeps at most one wave's partials: fewer CTA tiles than SMs.
    if (p.tail) {
      EXPECT_LE(sc.split_ctas(), 132);
    }
    // No candidate the model rejected is estimated faster than the choice.
    EXPECT_LE(p.us, estimate_us(0, 1, m, n, k, 132, 2, false) * 1.0011);
  }
}

TEST(Sm90Plan, TileShapesFitSharedMemory) {
  for (TileShape const& t : kTileShapes) {
    SCOPED_TRACE(t.name);
    EXPECT_GE(tile_stages(t), 3);
    EXPECT_LE(tile_stages(t) * tile_stage_bytes(t) + tile_epilogue_bytes(t) + 1024 + 512, kSmemLimit);
    EXPECT_EQ(t.bm % 64, 0);
    EXPECT_TRUE(t.bn % 8 == 0 && t.bn >= 8 && t.bn <= 256);
  }
  // The big tile keeps the 4 stages it was tuned with; 64x64's ring is 13 deep (kMaxStages 16).
  EXPECT_EQ(tile_stages(kTileShapes[0]), 4);
  EXPECT_EQ(tile_stages(kTileShapes[5]), 13);
  for (TileShape const& t : kTileShapes) EXPECT_LE(tile_stages(t), kMaxStages);
}

// The column store's buffers come out of what a tile's stages leave: a tile without row sub-tiles
// keeps the ring it had without them; its sub-tiles are whole swizzle atoms (8 n columns, 1 KB),
// never wider than the tile, and every buffer starts on a 1024-byte repeat.
TEST(Sm90Plan, ColumnStoreBuffersLeaveTheRingAlone) {
  int with = 0;
  for (TileShape const& t : kTileShapes) {
    SCOPED_TRACE(t.name);
    EpilogueBuffers const b = tile_epilogue_buffers(t);
    if (!tile_has_tma_store(t)) {
      EXPECT_EQ(tile_stages(t), stages_beside(t, 0));
    }
    if (t.wg_rows != 64) {
      EXPECT_FALSE(tile_has_col_tma_store(t));
    }
    if (!tile_has_col_tma_store(t)) continue;
    ++with;
    int const cols = tile_col_store_cols(t);
    EXPECT_TRUE(b.count == 1 || b.count == 2);
    EXPECT_EQ(b.bytes % 1024, 0);
    EXPECT_EQ(cols % 8, 0);
    EXPECT_GE(cols, 8);
    EXPECT_LE(cols, std::min(t.bn, 64));
    EXPECT_LE(64 * cols * 2, b.bytes);
    if (tile_has_tma_store(t)) {
      EXPECT_EQ(t.bn % cols, 0);
    }
  }
  // Every shape the plan offers on swapped small M but 256x104_4x1 (3 KB left for four warpgroups)
  // has them; the forced-only 128x168 pair and the 128-row warpgroups do not.
  for (char const* name : {"128x104_4x1", "128x136_4x1", "128x152_4x1", "64x120_4x2", "128x80_4x2", "128x16", "192x176_1x2"}) {
    bool found = false;
    for (TileShape const& t : kTileShapes)
      if (std::string(t.name) == name) {
        found = true;
        EXPECT_TRUE(tile_has_col_tma_store(t)) << name;
      }
    EXPECT_TRUE(found) << name;
  }
  for (TileShape const& t : kTileShapes)
    if (std::string(t.name) == "256x104_4x1") {
      EXPECT_FALSE(tile_has_col_tma_store(t));
    }
  EXPECT_GE(with, 40);
}

// Two wgmma groups in flight only on rings of six stages or more, off clusters of four or more and
// off 128x96 (tile_in_flight's measurements).
TEST(Sm90Plan, InFlightGroupsFollowTheRing) {
  auto in_flight = [](char const* name) {
    for (TileShape const& t : kTileShapes)
      if (std::string(t.name) == name) return tile_in_flight(t);
    ADD_FAILURE() << name << " is not on the menu";
    return 0;
  };
  EXPECT_EQ(in_flight("128x256"), 1);      // four stages
  EXPECT_EQ(in_flight("128x128"), 2);      // six, on 2x1
  EXPECT_EQ(in_flight("64x128"), 2);
  EXPECT_EQ(in_flight("128x96"), 1);
  EXPECT_EQ(in_flight("64x120_4x2"), 1);   // nine stages, a cluster of eight
  EXPECT_EQ(in_flight("128x104_4x1"), 1);
  for (TileShape const& t : kTileShapes) {
    SCOPED_TRACE(t.name);
    int const n = tile_in_flight(t);
    EXPECT_TRUE(n == 1 || n == 2);
    if (n == 2) {
      EXPECT_GE(tile_stages(t), 6);
    }
  }
}

TEST(Sm90Plan, DescribeNamesTheConfiguration) {
  EXPECT_EQ(describe(Plan{0, 1, false, 0}), "128x256");
  EXPECT_EQ(describe(Plan{3, 4, true, 0}), "128x16 swap-AB split-K 4");
}

// The model reads the card: an H200's memory clock and bus (3201 MHz, 6016 bits, as its driver
// reports them) give it 44% more DRAM bandwidth than an H100 SXM's, so a memory-bound decode GEMM
// is estimated that much faster, and a compute-bound one no faster (the same SM clock).
TEST(Sm90Plan, TheModelReadsTheCard) {
  Machine h100, h200;
  h200.card.mem_clock_khz = 3201000, h200.card.bus_bits = 6016;
  EXPECT_NEAR(h100.dram_bw() / 1e12, 3.0, 0.01);
  EXPECT_NEAR(h200.dram_bw() / h100.dram_bw(), 3201000.0 * 6016 / (2619000.0 * 5120), 1e-9);
  PlanInput decode;
  decode.m = 1, decode.n = 8192, decode.k = 8192;
  double const t100 = choose_plan(decode, h100).us, t200 = choose_plan(decode, h200).us;
  EXPECT_LT(t200, t100 * 0.85) << t200 << " us on an H200 against " << t100 << " on an H100";
  PlanInput big;
  big.m = big.n = big.k = 8192;
  EXPECT_NEAR(choose_plan(big, h200).us / choose_plan(big, h100).us, 1.0, 0.02);
  // The tensor peak follows the SM clock.
  Machine slow;
  slow.card.sm_clock_khz = 1755000;
  EXPECT_NEAR(slow.sm_peak_flops() / h100.sm_peak_flops(), 1755.0 / 1980.0, 1e-9);
}

// A machine whose 8-bit parameters are its 16-bit ones, and whose D stores from the registers cost
// nothing: what the model was for 8-bit inputs before they had parameters of their own.
Machine eight_as_sixteen() {
  Machine mc;
  for (int s = 0; s < kTileShapeCount; ++s) mc.efficiency_8bit[s] = mc.efficiency_8bit_accurate[s] = mc.efficiency[s];
  mc.load_latency_us_8bit = mc.load_latency_us;
  mc.fixup_us_8bit = mc.fixup_us;
  mc.direct_store_bw = 1e300;
  return mc;
}

TEST(Sm90Plan, EightBitInputsAreSixteenBitOnesOfHalfTheKButForTheirParameters) {
  // A k tile is 128 bytes of K at either width, and 8-bit wgmma runs at twice the 16-bit rate: with
  // the 16-bit parameters, an e4m3/e5m2 problem of K weighs, plan for plan, what a bf16 one of K / 2
  // does (the same k tiles, bytes and time), over the instances built for 8-bit inputs
  // (built_8bit). 8-bit operands are k-major only.
  Machine const mc = eight_as_sixteen();
  std::mt19937_64 rng(24);
  for (int i = 0; i < 300; ++i) {
    PlanInput f8, f16;
    f8.m = f16.m = 1 + std::int64_t(rng() % 6000);
    f8.n = f16.n = 1 + std::int64_t(rng() % 30000);
    f16.k = 1 + std::int64_t(rng() % 8000);
    f8.k = 2 * f16.k;
    f8.in_bytes = 1;
    f8.promote = i % 2 == 1;
    f8.type_b = i % 3 == 1 ? WgmmaType::kE5M2 : WgmmaType::kE4M3;
    f8.out_bytes = f16.out_bytes = int(1 + rng() % 2) * 2;
    std::vector<Plan> a, b;
    for_each_plan(f8, mc, [&](Plan const& p) { a.push_back(p); });
    for_each_plan(f16, mc, [&](Plan const& p) {
      if (built_8bit(p.shape, p.swap ? f8.type_b : f8.type_a, p.swap ? f8.type_a : f8.type_b, f8.promote)) b.push_back(p);
    });
    ASSERT_FALSE(a.empty());
    ASSERT_EQ(a.size(), b.size()) << f8.m << "x" << f8.n << "x" << f8.k;
    for (std::size_t j = 0; j < a.size(); ++j) {
      EXPECT_EQ(plan_spec(a[j]), plan_spec(b[j]));
      EXPECT_NEAR(a[j].us, b[j].us, 1e-9 * b[j].us) << describe(a[j]) << " at " << f8.m << "x" << f8.n << "x" << f8.k;
    }
  }
  PlanInput mn;
  mn.m = mn.n = mn.k = 4096;
  mn.in_bytes = 1;
  mn.b_k_major = false;
  int offered = 0;
  for_each_plan(mn, Machine{}, [&](Plan const&) { ++offered; });
  EXPECT_EQ(offered, 0);
}

TEST(Sm90Plan, BlockScalesTakeOneOrientation) {
  // 8-bit block scales: the kernel reads per-row scales for its A only, so every plan keeps the
  // orientation block_swap names, and only tiles that take them (tile_takes_block_scales); the
  // accurate mode without block scales offers both orientations.
  std::mt19937_64 rng(25);
  for (int i = 0; i < 200; ++i) {
    PlanInput in;
    in.m = 1 + std::int64_t(rng() % 6000), in.n = 1 + std::int64_t(rng() % 30000), in.k = 1 + std::int64_t(rng() % 20000);
    in.in_bytes = 1, in.promote = true;
    in.block_swap = i % 2 == 1;
    int offered = 0;
    for_each_plan(in, Machine{}, [&](Plan const& p) {
      ++offered;
      EXPECT_EQ(p.swap, *in.block_swap) << describe(p);
      EXPECT_TRUE(tile_takes_block_scales(kTileShapes[p.shape])) << describe(p);
    });
    EXPECT_GT(offered, 0) << in.m << "x" << in.n << "x" << in.k;
    Plan const p = choose_plan(in);
    EXPECT_EQ(p.swap, *in.block_swap);
  }
  PlanInput tensor;
  tensor.m = tensor.n = tensor.k = 8192, tensor.in_bytes = 1, tensor.promote = true;
  bool swapped = false;
  for_each_plan(tensor, Machine{}, [&](Plan const& p) { swapped |= p.swap; });
  EXPECT_TRUE(swapped);
}

TEST(Sm90Plan, SixteenBitPlansDoNotReadTheEightBitParameters) {
  // The 8-bit parameters were fitted on 8-bit timings alone: changing every one of them moves no
  // 16-bit estimate, while the 8-bit ones move.
  Machine other = eight_as_sixteen();
  for (int s = 0; s < kTileShapeCount; ++s) other.efficiency_8bit[s] *= 0.5, other.efficiency_8bit_accurate[s] *= 0.25;
  other.load_latency_us_8bit *= 3;
  other.direct_store_bw = 1e9;
  std::mt19937_64 rng(90);
  int moved = 0;
  for (int i = 0; i < 300; ++i) {
    PlanInput in;
    in.m = 1 + std::int64_t(rng() % 6000);
    in.n = 1 + std::int64_t(rng() % 30000);
    in.k = 1 + std::int64_t(rng() % 16000);
    in.out_bytes = int(1 + rng() % 2) * 2;
    in.beta = rng() % 2 == 1;
    std::vector<Plan> a, b;
    for_each_plan(in, Machine{}, [&](Plan const& p) { a.push_back(p); });
    for_each_plan(in, other, [&](Plan const& p) { b.push_back(p); });
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t j = 0; j < a.size(); ++j) EXPECT_EQ(a[j].us, b[j].us) << describe(a[j]);
    in.in_bytes = 1;
    in.promote = i % 2 == 1;
    moved += estimate_plan(in, choose_plan(in), Machine{}) != estimate_plan(in, choose_plan(in), other);
  }
  EXPECT_EQ(moved, 300);
}

TEST(Sm90Plan, EightBitDStoredFromTheRegistersCostsItsBytes) {
  // 8-bit inputs: a swapped plan of a tile with a TMA store writes D^T from the registers, and
  // costs D's bytes at direct_store_bw more than the same schedule would unswapped; at M = N the
  // two orientations' schedules are the same, so that is the whole difference.
  PlanInput in;
  in.m = in.n = 3072;
  in.k = 3072;
  in.in_bytes = 1;
  Machine mc;
  mc.direct_store_bw = 2e10;
  Plan whole{0, 1, false}, swapped{0, 1, true};
  double const d = estimate_plan(in, swapped, mc) - estimate_plan(in, whole, mc);
  Schedule const sc = make_schedule(kTileShapes[0], in.m, in.n, in.k, 1, false, in.res.wave(tile_cluster(kTileShapes[0])),
                                    false, k_tile_of(1));
  double const rounds = double(sc.whole_rounds() + sc.split_rounds());
  EXPECT_NEAR(d, rounds * 128 * 256 * 2 / mc.direct_store_bw * 1e6, 1e-9 * d);
  EXPECT_GT(d, 0);
  // A tile narrower than a store box pays it in either orientation; 16-bit inputs in neither.
  Plan narrow{17, 1, false}, narrow_swapped{17, 1, true};
  EXPECT_NEAR(estimate_plan(in, narrow, mc), estimate_plan(in, narrow_swapped, mc), 1e-9);
  in.in_bytes = 2;
  EXPECT_NEAR(estimate_plan(in, swapped, mc), estimate_plan(in, whole, mc), 1e-9);
}

}  // namespace
}  // namespace loom::sm90
