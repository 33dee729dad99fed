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
// once (Residency: measured on the device). The DRAM bandwidth and the peak are the H100's
// published figures; the L2 bandwidth, the per-tile
// efficiencies, the per-SM rate and latency and the fixed costs were fitted to 440 timings of a
// dozen shapes under forced plans (docs/tuning/sm90.md). They are the model's parameters, not a
// table of shapes, and the tests check the choices they lead to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

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
};

// What the model reads of a problem (as row_major_gemm sees it: A (m,k), B (n,k)).
struct PlanInput {
  std::int64_t m = 0, n = 0, k = 0;
  bool a_k_major = true, b_k_major = true;  // the operands' majornesses
  Residency res;        // the device's SMs and resident clusters (default: an H100's 132 SMs)
  int out_bytes = 2;    // bytes per element of D
  bool beta = false;    // C is read
  friend bool operator==(PlanInput const&, PlanInput const&) = default;
};

// The machine the model assumes (H100 SXM): dense bf16/f16 tensor peak and 132 SMs and HBM3
// bandwidth (published); the L2 -> SM bandwidth and per-SM rates fitted like the efficiencies:
// what one SM's TMA loads stream at most and their latency, the split-K fixup's fixed cost and
// rate per wave, and the fixed cost of a wave (pipeline fill from cold L2, epilogue drain).
struct Machine {
  double peak_flops = 989e12;
  double dram_bw = 3.0e12;
  double l2_bw = 9e12;
  double sm_load_bw = 100e9;
  // A stage's TMA round trip: the stages in flight bound an SM's rate. The fit gave 2.0 µs; 1.7
  // since the kernel lost its end-of-launch cluster barrier, after which 64x64 whole measured
  // 18.7-19.5 µs at 128 x 4096 x 4096 against 20.1-20.8 for the 64x128 split 2 that 2.0 picked (the
  // only pick of the llm sweep that 1.7 changes).
  double load_latency_us = 1.7;
  double fixup_us = 1.0;
  double fixup_bw = 35e9;
  double wave_us = 4.0;
  double overlap_loss = 0.1;  // the share of the smaller of compute and memory time not hidden
  std::int64_t workspace_cap = std::int64_t(256) << 20;  // split-K partials, bytes
};

// The estimate of schedule `sc` of tile shape t for a problem (m, n, k) in its orientation.
inline double estimate_us(TileShape t, Schedule const& sc, std::int64_t m, std::int64_t n, std::int64_t k, int out_bytes,
                          bool beta, Machine const& mc = {}) {
  // CTA tiles, in whole clusters; rounds of work units on the busiest cluster; the CTA tiles split.
  std::int64_t const tiles_m = sc.cluster_rows * sc.cluster_m, tiles_n = sc.tiles_n;
  std::int64_t const waves = sc.whole_rounds() + sc.split_rounds(), split = sc.split_ctas();
  std::int64_t const sm_k_tiles = sc.whole_rounds() * sc.k_tiles + sc.split_rounds() * sc.split_k_tiles();
  double const sm_flops = mc.peak_flops / 132.0 * t.efficiency;
  double const ktile_us = 2.0 * t.bm * t.bn * kTileK / sm_flops * 1e6;
  double const compute = double(sm_k_tiles) * ktile_us;
  // DRAM: each operand once, D once (C once more); L2 -> SMs: every tile's panels, B's shared by
  // the cluster's multicast.
  double dram = 2.0 * double(m * k + n * k) + double(out_bytes) * double(m * n) * (beta ? 2 : 1);
  double l2 = 2.0 * double(k) * (double(tiles_m * tiles_n) * t.bm + double(sc.cluster_tiles()) * t.bn);
  double fixup = 0;
  if (sc.splits > 1) {
    double const partial = 4.0 * t.bm * t.bn;
    // Every split writes, the last reads all (the kernel reads one fewer with two splits; the
    // fitted terms count all).
    l2 += double(split) * partial * 2 * double(sc.splits);
    fixup = double(sc.split_rounds()) * (mc.fixup_us + partial * double(sc.splits) / mc.fixup_bw * 1e6);
  }
  // One SM streams at most sm_load_bw, and no more than its stages in flight per load latency: a
  // problem on few SMs cannot reach the DRAM bandwidth, and a small tile's shallow ring less so.
  double const per_sm = double(sm_k_tiles) * kTileK * 2.0 * (t.bm + t.bn);
  double const in_flight = double(std::min(tile_stages(t), kModelStages)) * double(tile_stage_bytes(t));
  double const sm_rate = std::min(mc.sm_load_bw, in_flight / (mc.load_latency_us * 1e-6));
  double const memory = std::max({dram / mc.dram_bw, l2 / mc.l2_bw, per_sm / sm_rate}) * 1e6;
  return std::max(compute, memory) + mc.overlap_loss * std::min(compute, memory) + fixup + double(waves) * mc.wave_us;
}

// The same for a plan's tile shape and split on a device of `sms` SMs, every one of them taking a
// cluster's CTA (Residency::of_sms).
inline double estimate_us(TileShape t, int splits, std::int64_t m, std::int64_t n, std::int64_t k, int sms,
                          int out_bytes, bool beta, Machine const& mc = {}, bool tail = false) {
  Schedule const sc = make_schedule(t, m, n, k, splits, tail, Residency::of_sms(sms).wave(t.cluster_m));
  return estimate_us(t, sc, m, n, k, out_bytes, beta, mc);
}

// The plan the model prefers. Candidates: every tile shape that can take the operands in each
// orientation, whole; for the shapes that split K, every split that leaves each split at least 4 k
// tiles within the workspace cap; and for every shape, the same splits of the last partial wave
// alone (tail) where there are whole waves before it. Ties go to the earlier (bigger) tile, no swap,
// fewer splits, no tail.
inline Plan choose_plan(PlanInput const& in, Machine const& mc = {}) {
  Plan best;
  best.us = -1;
  for (int swap = 0; swap < 2; ++swap) {
    std::int64_t const m = swap ? in.n : in.m, n = swap ? in.m : in.n;
    bool const b_k_major = swap ? in.a_k_major : in.b_k_major;
    for (int t = 0; t < kTileShapeCount; ++t) {
      TileShape const ts = kTileShapes[t];
      if (!b_k_major && !tile_takes_mn_major_b(ts)) continue;
      std::int64_t const wave = in.res.wave(ts.cluster_m);
      std::int64_t const k_tiles = ceil_div(in.k, kTileK);
      auto consider = [&](Schedule const& sc, int s, bool tail) {
        double const us = estimate_us(ts, sc, m, n, in.k, in.out_bytes, in.beta, mc);
        if (best.us < 0 || us < best.us * 0.999) best = Plan{t, s, swap != 0, us, tail};
      };
      Schedule const whole = make_schedule(ts, m, n, in.k, 1, false, wave);
      consider(whole, 1, false);
      for (int s = 2; s <= 16 && k_tiles / s >= 4; ++s) {
        if (ts.split_k) {
          Schedule const sc = make_schedule(ts, m, n, in.k, s, false, wave);
          if (sc.partial_bytes() <= mc.workspace_cap) consider(sc, s, false);
        }
        if (whole.cluster_tiles() > wave) {
          Schedule const sc = make_schedule(ts, m, n, in.k, s, true, wave);
          if (sc.partial_bytes() <= mc.workspace_cap) consider(sc, s, true);
        }
      }
    }
  }
  return best;
}

// The plan in words, e.g. "128x128 swap-AB split-K 2 on the last wave".
inline std::string describe(Plan const& p) {
  std::string s = kTileShapes[p.shape].name;
  if (p.swap) s += " swap-AB";
  if (p.splits > 1) s += " split-K " + std::to_string(p.splits) + (p.tail ? " on the last wave" : "");
  return s;
}

}  // namespace loom::sm90
