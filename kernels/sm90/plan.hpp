// sm90's plans and the cost model that picks one per problem (host code, plain C++: the tests run
// it without a GPU).
//
// A plan is a tile shape from the menu (kernels/sm90/tile_menu.hpp), a split of K, and an
// orientation. The kernel sees the problem as A (m,k), B (n,k), D (m,n) (kernels/operand_layout.hpp's
// row_major_gemm); swapped, it computes D^T = B^T A^T instead, so that a small M becomes wgmma's N
// (8 to 256) and the large N fills the 64-row M of the instruction. make_schedule
// (kernels/sm90/schedule.hpp) turns a plan into the schedule that runs; the model estimates that
// schedule, so that what it weighs is what the kernel does.
//
// The model (choose_plan): for every tile shape, orientation and split, an estimated time
//   max(compute, memory) + overlap_loss * min(compute, memory) + fixup + waves * per-wave latency
// where
//   compute = waves * (k tiles per split) * (one k tile's flops / (an SM's peak * the tile's efficiency))
//   memory  = max(DRAM bytes / DRAM bandwidth, L2->SM bytes / L2 bandwidth, the busiest SM's
//             bytes / one SM's load rate), with the split-K partials' traffic added; an SM's
//             rate is capped, and bounded by its stages in flight over a load's latency,
//   fixup   = per wave, a fixed cost plus every split's partial tile read by the last split,
// and the smallest wins. Waves are the schedule's rounds of work units over the clusters resident at
// once (Residency: measured on the device). The peak, the DRAM and the L2 bandwidths follow the
// card's clocks and bus (Card, read per device); the shares of them, the per-tile efficiencies,
// the per-SM rate and latency and the fixed costs are fitted parameters (Machine), not a table of
// shapes. 8-bit inputs have efficiencies of their own per accumulation mode, a load latency of
// their own, and an epilogue term for D stored from the registers; 16-bit plans do not read them.
// kernels/sm90/fit/ holds the timings they are checked against (test Sm90Fit) and the tool that
// refits them; the tests check the choices they lead to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/sm90/instances_8bit.hpp"
#include "kernels/sm90/schedule.hpp"
#include "kernels/sm90/tile_menu.hpp"

namespace loom::sm90 {

// The model's per-SM load rate was fitted to rings of at most 8 stages, so it counts at most
// kModelStages of them: counting the deeper rings (kMaxStages), it picked unsplit narrow tiles at
// M <= 128 that measured 4-14% slower than its picks with 8.
constexpr int kModelStages = 8;


// A plan.
struct Plan {
  int shape = 0;      // index into kTileShapes
  int splits = 1;     // K is split this many ways (deterministic fixup; kernels/sm90/epilogue.cuh)
  bool swap = false;  // computes D^T = B^T A^T
  double us = 0;      // the model's estimate
  bool tail = false;  // split only the tiles of the last, partial wave; the whole waves run unsplit
  bool stream = false;  // deal the last, partial wave out by stream-K (splits unused); the whole waves run unsplit
};

// What the model reads of a problem (as row_major_gemm sees it: A (m,k), B (n,k)).
struct PlanInput {
  std::int64_t m = 0, n = 0, k = 0;
  bool a_k_major = true, b_k_major = true;  // the operands' majornesses
  Residency res;        // the device's SMs and resident clusters (default: an H100's 132 SMs)
  int out_bytes = 2;    // bytes per element of D
  int in_bytes = 2;     // bytes per element of A and B: 2 (f16, bf16) or 1 (e4m3, e5m2: k-major only)
  // 8-bit inputs: A's and B's types and the accurate mode, which name the instances built for
  // them (built_8bit, kernels/sm90/instances_8bit.hpp).
  WgmmaType type_a = WgmmaType::kE4M3, type_b = WgmmaType::kE4M3;
  bool promote = false;
  // 8-bit block scales: the one orientation the kernel takes them in (swap or not: the operand with
  // per-row scales must be the kernel's A); unset for every other problem.
  std::optional<bool> block_swap;
  bool beta = false;    // C is read
  // Weigh the shapes never offered (min_m kForcedOnly) as well, at any M, and every shape beyond
  // its min_n and max_n: fit data for a shape is timed this way (loom-bench --plan-shapes), before
  // or beyond the range it is offered in.
  bool forced_only = false;
  friend bool operator==(PlanInput const&, PlanInput const&) = default;
};

// What the model reads of the card (cudaDeviceGetAttribute, kernels/sm90/sm90.cu): its highest SM
// clock, its memory clock and bus width. The defaults are an H100 SXM's (80 GB HBM3) as the driver
// reports them. The SM count and the clusters resident are the Residency's.
struct Card {
  double sm_clock_khz = 1980000;   // cudaDevAttrClockRate
  double mem_clock_khz = 2619000;  // cudaDevAttrMemoryClockRate
  int bus_bits = 5120;             // cudaDevAttrGlobalMemoryBusWidth
  friend bool operator==(Card const&, Card const&) = default;
  // DRAM bytes a second the bus carries at most: two transfers a memory clock.
  constexpr double dram_peak() const { return mem_clock_khz * 1e3 * 2.0 * bus_bits / 8.0; }
};

// The machine the model assumes: the card's facts, and what was fitted on timings. From the card:
// an SM's tensor peak (sm_90's 4096 dense bf16/f16 flops a clock, at a share of the highest clock:
// 989 TFLOP/s on an H100 SXM's 132 SMs, as published), the DRAM bandwidth (a share of the bus's),
// the L2 -> SM bandwidth (bytes per SM clock). Fitted: those shares and rates, what one SM's TMA
// loads stream at most and their latency, the split-K fixup's fixed cost and rate per wave, the
// fixed cost of a wave (pipeline fill from cold L2, epilogue drain), and each tile shape's
// efficiency.
//
// The values were fitted on an H100 (2026-11-23: 440 timings of a dozen shapes under forced
// plans; the shares then were the H100's 989 TFLOP/s and 3.0 TB/s, which the card's clocks now
// give), but for the family's efficiencies (2026-11-26). On kernels/sm90/fit/data (an H100's and an
// H200's timings of the model's best plans on 210 problems) the model's pick among the timed plans
// is on average 2.7% slower than the fastest timed one. A refit of every parameter there scores
// 1.9%, but measured worse on the llm sweeps on the same H100 (docs/tuning/sm90.md, sixth round:
// the fit sees only the plans that were timed), so these stay until a refit measures better.
struct Machine {
  Card card;
  double clock_share = 0.924;    // the SM clock under a sustained GEMM over the highest: 1830 / 1980 MHz
  double dram_share = 0.895;     // of the bus's peak: 3.0 of an H100's 3.35 TB/s, 4.3 of an H200's 4.81
  double l2_bytes_per_clk = 4545;  // 9 TB/s at 1980 MHz
  double sm_load_bw = 100e9;
  // A stage's TMA round trip: the stages in flight bound an SM's rate. The fit gave 2.0 µs; 1.7
  // since the kernel lost its end-of-launch cluster barrier, after which 64x64 whole measured
  // 18.7-19.5 µs at 128 x 4096 x 4096 against 20.1-20.8 for the 64x128 split 2 that 2.0 picked.
  double load_latency_us = 1.7;
  // The split-K fixup's fixed cost a round: the partials' round trip through L2 (and, when this was
  // fitted, the counters' reset kernel and its launch, which the generation-tagged counters have
  // since removed: 0.35-4.0 µs a split launch on an H200, medians by set; not refitted). 1.0 (the H100 fit of 2026-11-23) picked 128-row split-2 plans
  // where 64-row whole tiles on as many CTAs measured up to 21% faster at M = 1-80 on an H200.
  // loom-sm90-fit --only=fixup_us over the H100 and H200 files gave 2.744 (regret on held-out H200
  // timings at the ends of M 4.53% -> 2.40%); through gemm on an H200, the 58 picks it changed on a
  // grid no fit saw (M = 8-384, N = 2560-6144, K = 2560-8192) ran 10% faster together, 49 faster
  // and 4 slower by more than 2% (docs/tuning/sm90.md, thirtieth round). Fitted on the arrival
  // counter's fixup: a plan whose split units run in one round (in the plain order) now sums on a
  // fixed finisher (kernels/sm90/epilogue.cuh's split_k_fixup), which measured 7.8% faster on such
  // split plans at M = 8-192 (thirty-first round), so the model charges them more than they take;
  // not refitted.
  // The 8-bit shares were
  // fitted beside 1.0 (the H100's 8-bit timings; no 8-bit split has been timed since), so 8-bit
  // plans keep it.
  double fixup_us = 2.744;
  double fixup_us_8bit = 1.0;
  double fixup_bw = 35e9;
  double wave_us = 4.0;
  double overlap_loss = 0.1;  // the share of the smaller of compute and memory time not hidden
  // Per tile shape (kTileShapes' order): the share of an SM's tensor peak one CTA of it sustains in
  // its main loop; a narrow N spends wgmma's shared-memory reads of A on fewer flops. The first
  // eight were fitted on an H100 (docs/tuning/sm90.md, second round); the family's (indices 8 to
  // 15) are interpolated in width between them, but 128x224's, which loom-sm90-fit --only fitted on the
  // fit data (0.873, below 128x256's: as 0.90 it took 128x224 over 128x256 at M = 4096-8192, which
  // measured 1-10% slower there). The steps of 16 (indices 16 on, one CTA per cluster) were
  // fitted together by loom-sm90-fit --only on their forced-plan timings (M = 160-900 on nine (N, K)
  // pairs, an H100, docs/tuning/sm90.md seventh round) and rounded; 128x176's fitted 0.95, above
  // every wider tile's, is held at its interpolation (0.88). The clusters of three along M and
  // 64x80 on 2x2 (indices 30-32) have the share at which the model's estimate met the time of each
  // forced at M = 160-384 on nine (N, K) pairs, where compute bound it (an H100, docs/tuning/sm90.md
  // twentieth round): 0.79-0.93, 0.91-0.98 and 0.38-0.55. The clusters of four along M (33-35)
  // were fitted alone by loom-sm90-fit --only on their forced-plan timings (every plan kind at
  // M = 200-1000 on 12 (N, K) pairs, an H100, twenty-first round): the multicast token tile's share
  // is above the one-CTA tiles' of the same width, since the per-SM load term counts the bytes an SM
  // receives, not the fewer it fetches. Indices 36-41 (cuBLAS's weak-band picks: 128x184, and the
  // 192- and 256-row tiles) were timed on an H200 at M = 200-1000 on 72 problems (docs/tuning/sm90.md,
  // twenty-fourth round) and are offered only at the 192-1024 tokens that data covers
  // (TileShape::min_n, max_n). loom-sm90-fit --only fitted the four taller ones (regret 2.70% ->
  // 2.65%). Fitted too, 128x184's two came out at 0.93 and 0.95, above 128x256's, and took 128x184 at
  // 8192^3 where no data reaches; held, the data's regret is the same anywhere in 0.80-0.87, and at
  // 0.87 they took M = 900 rows of the outside grid where forced they measured 1-7% slower than the
  // plan before; 0.84 is in the flat band and below that. Indices 42-51 (the rest of
  // cuBLAS's picks on the H200's weak rows) were timed forced on an H200 on 55 problems (M = 32-1024;
  // docs/tuning/sm90.md, twenty-fifth round); only 64x168_4x2 was faster than every plan offered by
  // more than the runs' spread (330 x 3584 x 4096: 22.6-23.2 us against 24.2-25.0), and is offered
  // at 170-336 tokens. Its share hardly moves its estimate there (memory bounds it; fitted, it went
  // to the 0.98 cap, on which the picks are those of 0.85). 64x120_4x2, 128x80_4x2 and 64x96_4x1,
  // retimed on the kernels of 2026-11-28, are offered in the token ranges where they won
  // (twenty-eighth round; their shares move no pick anywhere in 0.6-0.9) and hold 0.70, as do the
  // forced-only rest and 52 (two consumer warpgroups of 128 rows; 2.5-3.3% faster than 45 where
  // timed, twenty-sixth round).
  double efficiency[kTileShapeCount] = {0.90, 0.80, 0.45, 0.15, 0.55, 0.60, 0.30, 0.90,
                                        0.65, 0.86, 0.873, 0.25, 0.45, 0.58, 0.60, 0.60,
                                        0.62, 0.68, 0.88, 0.72, 0.77, 0.62, 0.68, 0.66,
                                        0.74, 0.73, 0.87, 0.63, 0.72, 0.90,
                                        0.85, 0.93, 0.53, 0.6695, 0.859625, 0.82382,
                                        0.84, 0.84, 0.757, 0.854, 0.721, 0.805,
                                        0.70, 0.85, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70,
                                        0.70};
  // The same for 8-bit inputs (e4m3/e5m2), per tile shape, in each accumulation mode: the share of
  // an SM's 8-bit tensor peak (twice the 16-bit one) a CTA sustains. Fast (the tensor cores sum all
  // of K) and accurate (each k tile's partial added into fp32 registers: a second set of
  // accumulators and a wait a k tile, kernels/sm90/mainloop.cuh) differ by tile, and neither is the
  // 16-bit value: weighed with those, the model took 128x192 for the accurate mode where its two
  // pieces on a 2x1 cluster measured 10-25% slower than 128x144, and underrated the narrow tiles
  // of the fast mode. Fitted by loom-sm90-fit --only=8bit --rms-weight=1 (the accurate share held
  // at or below the fast one) on 22,000 forced e4m3 x e4m3 plans of 622 problems, every built
  // shape whole and split, on an H100 (docs/tuning/fp8.md, second round: the regret on the timed
  // plans halved, fast 2.0% -> 1.1%, accurate 1.9% -> 0.9%, but `--sweep=llm` through gemm
  // measured the same as with the 16-bit values). The accurate shares of the six widest accurate
  // shapes were refitted on the fifth round's kernels, whose accurate tiles sped up unevenly: their
  // rows of kernels/sm90/fit/data/h100_8bit.csv (90 problems) were retimed, the mean regret went
  // 1.16% -> 0.85% there and 1.77% -> 1.03% on the held-out llm rows, and the 13 llm picks it
  // changed measured 2.4% faster in one run (fp8.md, seventh round). Refitted again on the tenth
  // round's two partials and the accurate 128x256 (both files' accurate rows retimed on an H100:
  // 1.81% -> 0.91% on the data; `--sweep=llm` e4m3 through gemm 0.965x -> 0.966-0.973x cuBLASLt,
  // its lowest row 0.766x -> 0.834-0.851x; fp8.md, eleventh round). The shares of shapes that
  // bound neither compute nor the choice (the 16-wide ones at M = 1-64, where DRAM does) came out
  // near 1 and mean little. Shapes not built for a mode (kernels/sm90/instances_8bit.hpp) are
  // never weighed, and keep the 16-bit value.
  double efficiency_8bit[kTileShapeCount] = {0.873, 0.744, 0.9742, 0.9927, 0.9759, 0.6826, 0.9751, 0.873,
                                             0.65, 0.7998, 0.873, 0.25, 0.45, 0.58, 0.6, 0.6,
                                             0.62, 0.7431, 0.88, 0.72, 0.77, 0.62, 0.68, 0.66,
                                             0.74, 0.73, 0.87, 0.63, 0.72, 0.8119,
                                             0.85, 0.93, 0.53, 0.6695, 0.859625, 0.82382,
                                             0.84, 0.84, 0.757, 0.854, 0.721, 0.805,
                                             0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70,
                                             0.70};
  double efficiency_8bit_accurate[kTileShapeCount] = {0.7665, 0.728884, 0.945004, 0.4112, 0.953904, 0.6686, 0.9751, 0.734109,
                                                      0.65, 0.86, 0.873, 0.25, 0.45, 0.58, 0.6, 0.6,
                                                      0.62, 0.621457, 0.88, 0.72, 0.77, 0.62, 0.68, 0.66,
                                                      0.74, 0.73, 0.87, 0.63, 0.72, 0.9,
                                                      0.85, 0.93, 0.53, 0.6695, 0.859625, 0.82382,
                                                      0.84, 0.84, 0.757, 0.854, 0.721, 0.805,
                                                      0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70,
                                                      0.70};
  // 8-bit inputs: the rate at which one SM stores a tile of D from its registers (estimate_us's
  // epilogue term: a swapped plan's transposed D, or a tile narrower than a store box). Forced on an
  // H100, a swapped plan of a TMA-store tile measured 4-8% slower than the same plan unswapped at
  // M = N and K = 16384, and 20-39% at K = 3072: a cost of D's size, not K's. Fitted with the
  // shares above.
  double direct_store_bw = 2.711e+10;
  // 8-bit inputs: the TMA round trip that bounds an SM's rate with its stages in flight
  // (load_latency_us for 16-bit inputs), fitted with the shares above.
  double load_latency_us_8bit = 1.4;
  std::int64_t workspace_cap = std::int64_t(256) << 20;  // split-K partials, bytes
  // Whether stream-K plans are candidates. They are not: timed on an H100 (docs/tuning/sm90.md,
  // sixth round), the best stream-K plan was slower than the best other plan on 118 of 126
  // problems, by 10% at the median and 30-65% where the model expected it to win most (sub-wave
  // problems); LOOM_SM90_PLAN still forces one.
  bool stream_k = false;

  static constexpr double kFlopsPerClock = 4096;  // dense bf16/f16 wgmma flops per SM per clock on sm_90
  constexpr double sm_peak_flops() const { return kFlopsPerClock * card.sm_clock_khz * 1e3 * clock_share; }
  constexpr double dram_bw() const { return dram_share * card.dram_peak(); }
  constexpr double l2_bw() const { return l2_bytes_per_clk * card.sm_clock_khz * 1e3; }
  // The share of the peak tile `shape` sustains with inputs of in_bytes bytes (promote: 8-bit's
  // accurate mode).
  constexpr double efficiency_of(int shape, int in_bytes, bool promote) const {
    if (in_bytes != 1) return efficiency[shape];
    return promote ? efficiency_8bit_accurate[shape] : efficiency_8bit[shape];
  }
};

// The estimate of schedule `sc` of tile shape `shape` for a problem (m, n, k) in its orientation.
// It has no epilogue term: one that charged swapped plans their direct stores measured worse
// (docs/tuning/sm90.md, sixth round).
inline double estimate_us(int shape, Schedule const& sc, std::int64_t m, std::int64_t n, std::int64_t k, int out_bytes,
                          bool beta, Machine const& mc = {}, int in_bytes = 2, bool promote = false, bool swap = false) {
  TileShape const t = kTileShapes[shape];
  // CTA tiles, in whole clusters; rounds of work units on the busiest cluster; the CTA tiles split.
  std::int64_t const tiles_m = sc.cluster_rows * sc.cluster_m, tiles_n = sc.cluster_cols * sc.cluster_n;
  std::int64_t const waves = sc.whole_rounds() + sc.split_rounds(), split = sc.split_ctas();
  std::int64_t const sm_k_tiles = sc.whole_rounds() * sc.k_tiles + sc.split_rounds() * sc.split_k_tiles();
  // 8-bit inputs run at twice the 16-bit tensor rate on sm_90, over a k tile twice as deep: at the
  // same efficiency a k tile takes the same time at either width.
  double const sm_flops = mc.sm_peak_flops() * (2.0 / in_bytes) * mc.efficiency_of(shape, in_bytes, promote);
  double const ktile_us = 2.0 * t.bm * t.bn * k_tile_of(in_bytes) / sm_flops * 1e6;
  double const compute = double(sm_k_tiles) * ktile_us;
  // DRAM: each operand once, D once (C once more); L2 -> SMs: every tile's panels, A's shared by
  // the cluster's CTAs along N and B's by those along M (multicast).
  double dram = double(in_bytes) * double(m * k + n * k) + double(out_bytes) * double(m * n) * (beta ? 2 : 1);
  double l2 = double(in_bytes) * double(k) * (double(tiles_m * sc.cluster_cols) * t.bm + double(sc.cluster_rows * tiles_n) * t.bn);
  double fixup = 0;
  if (sc.splits > 1) {
    double const partial = 4.0 * t.bm * t.bn;
    // Every split writes, the last reads all (the kernel reads one fewer with two splits; the
    // fitted terms count all).
    l2 += double(split) * partial * 2 * double(sc.splits);
    fixup = double(sc.split_rounds()) * ((in_bytes == 1 ? mc.fixup_us_8bit : mc.fixup_us) + partial * double(sc.splits) / mc.fixup_bw * 1e6);
  }
  // One SM streams at most sm_load_bw, and no more than its stages in flight per load latency: a
  // problem on few SMs cannot reach the DRAM bandwidth, and a small tile's shallow ring less so.
  double const per_sm = double(sm_k_tiles) * 128.0 * (t.bm + t.bn);  // 128 bytes of K a k tile
  double const in_flight = double(std::min(tile_stages(t), kModelStages)) * double(tile_stage_bytes(t));
  double const latency_us = in_bytes == 1 ? mc.load_latency_us_8bit : mc.load_latency_us;
  double const sm_rate = std::min(mc.sm_load_bw, in_flight / (latency_us * 1e-6));
  double const memory = std::max({dram / mc.dram_bw(), l2 / mc.l2_bw(), per_sm / sm_rate}) * 1e6;
  // 8-bit inputs: D stored from the registers (a swapped plan's transposed D, or a tile narrower than
  // a store box) costs each tile's bytes at direct_store_bw, not hidden behind the next tile's main
  // loop. 16-bit plans have no such term (kept as they were fitted: docs/tuning/sm90.md, sixth round).
  // Since 80606e6 a swapped plan's 16-bit D on a tile with the TMA store goes out by TMA too (column
  // boxes); the term still charges it, as fitted on the direct stores, until the 8-bit data's
  // swapped rows are retimed (docs/tuning/sm90.md, twenty-ninth round).
  double epilogue = 0;
  if (in_bytes == 1 && (swap || !tile_has_tma_store(t)))
    epilogue = double(waves) * double(t.bm * t.bn) * out_bytes * (beta ? 2 : 1) / mc.direct_store_bw * 1e6;
  return std::max(compute, memory) + mc.overlap_loss * std::min(compute, memory) + fixup + epilogue +
         double(waves) * mc.wave_us;
}

// The same for a plan's tile shape and split on a device of `sms` SMs, every one of them taking a
// cluster's CTA (Residency::of_sms).
inline double estimate_us(int shape, int splits, std::int64_t m, std::int64_t n, std::int64_t k, int sms,
                          int out_bytes, bool beta, Machine const& mc = {}, bool tail = false) {
  TileShape const t = kTileShapes[shape];
  Schedule const sc = make_schedule(t, m, n, k, splits, tail, Residency::of_sms(sms).wave(tile_cluster(t)));
  return estimate_us(shape, sc, m, n, k, out_bytes, beta, mc);
}

// The estimate of plan p for a problem as the model reads it (the schedule make_schedule makes of it
// on in.res).
inline double estimate_plan(PlanInput const& in, Plan const& p, Machine const& mc = {}) {
  TileShape const t = kTileShapes[p.shape];
  std::int64_t const m = p.swap ? in.n : in.m, n = p.swap ? in.m : in.n;
  Schedule const sc =
      make_schedule(t, m, n, in.k, p.splits, p.tail, in.res.wave(tile_cluster(t)), p.stream, k_tile_of(in.in_bytes));
  return estimate_us(p.shape, sc, m, n, in.k, in.out_bytes, in.beta, mc, in.in_bytes, in.promote, p.swap);
}

// Whether the model weighs shape `ts` where the kernel's M and N are m and n: M at least its min_m
// and N within [min_n, max_n]; forced_only (PlanInput's) adds the shapes never offered and drops
// the N range.
inline bool offered(TileShape const& ts, std::int64_t m, std::int64_t n, bool forced_only) {
  if (forced_only) return ts.min_m == kForcedOnly || m >= ts.min_m;
  return m >= ts.min_m && n >= ts.min_n && (ts.max_n == 0 || n <= ts.max_n);
}

// Every plan the model weighs for a problem, with its estimate, in a fixed order: every tile shape
// built for the operands' majornesses (tile_takes) in each orientation where it is offered
// (offered: the orientation's M and N), whole; for the shapes that split K, every split that
// leaves each split at least 4 k tiles within the workspace cap; and for every shape, the same splits of the last partial wave alone (tail) where there are whole waves
// before it, and stream-K over the last partial wave (all of a problem under a wave) where there is
// one.
template <class F>
void for_each_plan(PlanInput const& in, Machine const& mc, F&& f) {
  for (int swap = 0; swap < 2; ++swap) {
    if (in.block_swap && *in.block_swap != (swap != 0)) continue;
    std::int64_t const m = swap ? in.n : in.m, n = swap ? in.m : in.n;
    bool const a_k_major = swap ? in.b_k_major : in.a_k_major, b_k_major = swap ? in.a_k_major : in.b_k_major;
    for (int t = 0; t < kTileShapeCount; ++t) {
      TileShape const ts = kTileShapes[t];
      if (!tile_takes(ts, a_k_major, b_k_major) || !offered(ts, m, n, in.forced_only)) continue;
      if (in.block_swap && !tile_takes_block_scales(ts)) continue;
      // wgmma reads 8-bit operands k-major only, and only some shapes are built for them.
      if (in.in_bytes == 1 && !(a_k_major && b_k_major &&
                                built_8bit(t, swap ? in.type_b : in.type_a, swap ? in.type_a : in.type_b, in.promote)))
        continue;
      std::int64_t const wave = in.res.wave(tile_cluster(ts));
      int const kt = k_tile_of(in.in_bytes);
      std::int64_t const k_tiles = ceil_div(in.k, kt);
      auto consider = [&](Schedule const& sc, int s, bool tail, bool stream = false) {
        f(Plan{t, s, swap != 0, estimate_us(t, sc, m, n, in.k, in.out_bytes, in.beta, mc, in.in_bytes, in.promote, swap != 0),
               tail, stream});
      };
      Schedule const whole = make_schedule(ts, m, n, in.k, 1, false, wave, false, kt);
      consider(whole, 1, false);
      if (mc.stream_k && whole.cluster_tiles() % wave != 0) {
        Schedule const sc = make_schedule(ts, m, n, in.k, 1, false, wave, true, kt);
        if (sc.stream && sc.fits_kernel() && sc.partial_bytes() <= mc.workspace_cap) consider(sc, 1, false, true);
      }
      for (int s = 2; s <= 16 && k_tiles / s >= 4; ++s) {
        if (ts.split_k) {
          Schedule const sc = make_schedule(ts, m, n, in.k, s, false, wave, false, kt);
          if (sc.partial_bytes() <= mc.workspace_cap) consider(sc, s, false);
        }
        if (whole.cluster_tiles() > wave) {
          Schedule const sc = make_schedule(ts, m, n, in.k, s, true, wave, false, kt);
          if (sc.partial_bytes() <= mc.workspace_cap) consider(sc, s, true);
        }
      }
    }
  }
}

// The plan the model prefers: the smallest estimate of for_each_plan's, ties (within 0.1%) to the
// earlier one (the bigger tile, no swap, fewer splits, no tail). A wider band (1%, ties to the
// least padded math) measured worse at M <= 32 (docs/tuning/sm90.md, sixth round).
inline Plan choose_plan(PlanInput const& in, Machine const& mc = {}) {
  Plan best;
  best.us = -1;
  for_each_plan(in, mc, [&](Plan const& p) {
    if (best.us < 0 || p.us < best.us * 0.999) best = p;
  });
  return best;
}

// The model's `count` best plans, its choice first, then by estimate (loom-bench --plans times
// them, so that the model's pick can be checked against the plans it passed over).
inline std::vector<Plan> ranked_plans(PlanInput const& in, int count, Machine const& mc = {}) {
  Plan const best = choose_plan(in, mc);
  std::vector<Plan> all{best};
  for_each_plan(in, mc, [&](Plan const& p) {
    if (!(p.shape == best.shape && p.splits == best.splits && p.swap == best.swap && p.tail == best.tail &&
          p.stream == best.stream))
      all.push_back(p);
  });
  std::stable_sort(all.begin() + 1, all.end(), [](Plan const& a, Plan const& b) { return a.us < b.us; });
  if (count >= 0 && std::size_t(count) < all.size()) all.resize(std::size_t(count));
  return all;
}

// A plan as LOOM_SM90_PLAN writes it: "<shape>:<splits>:<swap>:<mode>", mode 0 (split every tile),
// 1 (split the last wave alone: tail) or 2 (stream-K over the last wave; splits unused).
inline std::string plan_spec(Plan const& p) {
  return std::to_string(p.shape) + ":" + std::to_string(p.splits) + ":" + (p.swap ? "1" : "0") + ":" +
         (p.stream ? "2" : p.tail ? "1" : "0");
}
// The plan a spec names ("<shape>:<splits>:<swap>[:<mode>]", each a decimal number in range), or
// false when it names none.
inline bool parse_plan_spec(std::string const& spec, Plan* out) {
  int f[4] = {0, 0, 0, 0}, n = 0;
  std::size_t i = 0;
  while (n < 4) {
    std::size_t j = i;
    long v = 0;
    while (j < spec.size() && spec[j] >= '0' && spec[j] <= '9' && j - i < 6) v = v * 10 + (spec[j++] - '0');
    if (j == i) return false;
    f[n++] = int(v);
    if (j == spec.size()) break;
    if (spec[j] != ':') return false;
    i = j + 1;
  }
  if (n < 3 || (n == 4 && i < spec.size() && spec.find(':', i) != std::string::npos)) return false;
  if (f[0] >= kTileShapeCount || f[1] < 1 || f[1] > kMaxSplits || f[2] > 1 || f[3] > 2) return false;
  *out = Plan{f[0], f[3] == 2 ? 1 : f[1], f[2] == 1, 0, f[3] == 1, f[3] == 2};
  return true;
}

// The plan in words, e.g. "128x128 swap-AB split-K 2 on the last wave".
inline std::string describe(Plan const& p) {
  std::string s = kTileShapes[p.shape].name;
  if (p.swap) s += " swap-AB";
  if (p.stream) s += " stream-K on the last wave";
  else if (p.splits > 1) s += " split-K " + std::to_string(p.splits) + (p.tail ? " on the last wave" : "");
  return s;
}

}  // namespace loom::sm90
