// sm90's configurations and the model that picks one per problem (host code, plain C++: the tests
// run it without a GPU).
//
// A configuration is a tile shape from the menu, a split of K, and an orientation. The kernel sees
// the problem as A (m,k), B (n,k), D (m,n) (kernels/operand_layout.hpp's row_major_gemm); swapped,
// it computes D^T = B^T A^T instead, so that a small M becomes wgmma's N (8 to 256) and the large N
// fills the 64-row M of the instruction.
//
// The model (plan): for every tile shape, orientation and split, an estimated time
//   max(compute, memory) + overlap_loss * min(compute, memory) + fixup + waves * per-wave latency
// where
//   compute = waves * (k tiles per split) * (one k tile's flops / (an SM's peak * the tile's efficiency))
//   memory  = max(DRAM bytes / DRAM bandwidth, L2->SM bytes / L2 bandwidth, the busiest SM's
//             bytes / one SM's load rate), with the split-K partials' traffic added; an SM's
//             rate is capped, and bounded by its stages in flight over a load's latency,
//   fixup   = per wave, a fixed cost plus every split's partial tile read by the last split,
// and the smallest wins. Waves count units (tiles times splits, whole clusters) over the SMs. The
// DRAM bandwidth and the peak are the H100's published figures; the L2 bandwidth, the per-tile
// efficiencies, the per-SM rate and latency and the fixed costs were fitted to 440 timings of a
// dozen shapes under forced plans (docs/tuning/sm90.md). They are the model's parameters, not a
// table of shapes, and the tests check the choices they lead to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

namespace loom::sm90 {

// One tile shape of the menu: bm x bn of D per CTA (bm = 64 per consumer warpgroup), and the CTAs
// along M of a cluster (they share B's tile by multicast).
struct TileShape {
  int bm, bn, cluster_m;
  char const* name;
  double efficiency;  // the share of the tensor pipe's peak one CTA of this shape sustains
  bool split_k;       // K may be split for every tile (any shape may split its last wave: Plan::tail)
};
// The menu. 128x256: big problems; 128x128: twice the tiles; 128x64 and 128x16: a small N (a small M
// swapped), one CTA per cluster since B's tile is small. The 64-row tiles (one consumer warpgroup)
// give a problem of few 128-row tiles more CTAs without splitting K: at M = 128 on a 4096 x 4096
// layer, 64x64 makes 128 tiles where 128x128 makes 32, and every SM streams its own panels instead
// of a quarter of them waiting on a split-K fixup. The efficiencies are fitted to timings of every
// shape under forced plans (docs/tuning/sm90.md); a narrow N spends wgmma's shared-memory reads of A
// on fewer flops. 128x256 and 128x192 never split every tile: 128x256's 128 KB partial tile per CTA
// made every such split measured slower than the 128x128 tile whole (their last wave alone may still
// be split). 128x192 fills the SMs where 128x256 leaves a third idle or
// spills into a second wave (11008 columns: 58 tiles across against 43); its efficiency is 0.90,
// not the fit's 0.85, since the fit underrated it against 128x256 (512 x 11008 x 4096: 68.9 µs
// whole, 74.9 on 128x256's tail plan, which 0.85 picked). Indices are
// LOOM_SM90_PLAN's, so new shapes go at the end.
inline constexpr TileShape kTileShapes[] = {{128, 256, 2, "128x256", 0.90, false},
                                            {128, 128, 2, "128x128", 0.80, true},
                                            {128, 64, 1, "128x64", 0.45, true},
                                            {128, 16, 1, "128x16", 0.15, true},
                                            {64, 128, 2, "64x128", 0.55, true},
                                            {64, 64, 2, "64x64", 0.60, true},
                                            {64, 16, 1, "64x16", 0.30, true},
                                            {128, 192, 2, "128x192", 0.90, false}};
inline constexpr int kTileShapeCount = int(sizeof(kTileShapes) / sizeof(kTileShapes[0]));

constexpr int kBK = 64;                 // K per stage
// Rings of up to 16 stages: 64x64 gets 13 (2-5% faster than 8 at 128 x 4096 x 4096), 64x16 16,
// 128x16 12; the other tiles are bound by shared memory first (docs/tuning/sm90.md). The model's
// per-SM load rate was fitted to rings of at most 8 stages, so it counts at most kModelStages of
// them: counting the deeper rings, it picked unsplit narrow tiles at M <= 128 that measured 4-14%
// slower than its picks with 8.
constexpr int kMaxStages = 16;
constexpr int kModelStages = 8;
constexpr int kSmemLimit = 227 * 1024;  // dynamic shared memory a CTA may have on sm_90
// The TMA-store epilogue stages D through shared memory in sub-tiles of 64 rows x 128 bytes,
// double-buffered per consumer warpgroup.
constexpr int kEpiBuffers = 2, kEpiBufferBytes = 64 * 128;

// The TMA-store epilogue stores sub-tiles of 128 bytes of a row: bn must hold whole ones of every
// output type (64 bf16/f16, 32 f32). An mn-major B tile is loaded in 64-row blocks (the 128-byte
// swizzle's width), and the cluster's CTAs share them out, so each must get whole blocks.
constexpr bool tile_has_tma_store(TileShape t) { return t.bn % 64 == 0; }
constexpr bool tile_takes_mn_major_b(TileShape t) { return t.bn % (64 * t.cluster_m) == 0; }
constexpr int tile_consumers(TileShape t) { return t.bm / 64; }
constexpr int tile_stage_bytes(TileShape t) { return (t.bm + t.bn) * kBK * 2; }
constexpr int tile_epilogue_bytes(TileShape t) {
  return tile_has_tma_store(t) ? tile_consumers(t) * kEpiBuffers * kEpiBufferBytes : 0;
}
// As many stages as fit beside the epilogue's buffers, the barriers (2 x 16 + 1 of 8 bytes, and a
// word per consumer) and 1 KB of alignment slack.
constexpr int tile_stages(TileShape t) {
  int const s = (kSmemLimit - tile_epilogue_bytes(t) - 1024 - 512) / tile_stage_bytes(t);
  return s < kMaxStages ? s : kMaxStages;
}

// A configuration.
struct Plan {
  int tile = 0;     // index into kTileShapes
  int splits = 1;   // K is split this many ways (deterministic fixup; gemm_sm90.cuh)
  bool swap = false;  // computes D^T = B^T A^T
  double us = 0;    // the model's estimate
  bool tail = false;  // split only the tiles of the last, partial wave; the whole waves run unsplit
};

// What the model reads of a problem (as row_major_gemm sees it: A (m,k), B (n,k)).
struct PlanInput {
  std::int64_t m = 0, n = 0, k = 0;
  bool a_k_major = true, b_k_major = true;  // the operands' majornesses
  int sms = 132;
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

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// CTA tiles whose partials a plan keeps (one slot per CTA tile and warpgroup): every tile, or
// with the tail plan at most one wave's worth of them (fewer than the SMs).
inline std::int64_t split_tiles(TileShape t, std::int64_t m, std::int64_t n, bool tail, int sms) {
  std::int64_t const tiles = ceil_div(ceil_div(m, t.bm), t.cluster_m) * t.cluster_m * ceil_div(n, t.bn);
  return tail ? std::min(tiles, std::int64_t(sms / t.cluster_m * t.cluster_m)) : tiles;
}

// Bytes of split-K partials (fp32 accumulator tiles, one per split CTA tile and split) a plan needs.
inline std::int64_t workspace_bytes(TileShape t, std::int64_t m, std::int64_t n, int splits, bool tail = false,
                                    int sms = 132) {
  if (splits <= 1) return 0;
  return split_tiles(t, m, n, tail, sms) * splits * t.bm * t.bn * 4;
}

// The estimate of one configuration for a problem already in its orientation (m, n, k). With
// `tail`, only the cluster tiles past the last whole wave are split (all of them when there is
// less than a wave; the estimate of the whole tiles when the waves come out even).
inline double estimate_us(TileShape t, int splits, std::int64_t m, std::int64_t n, std::int64_t k, int sms,
                          int out_bytes, bool beta, Machine const& mc = {}, bool tail = false) {
  std::int64_t const tiles_m = ceil_div(ceil_div(m, t.bm), t.cluster_m) * t.cluster_m, tiles_n = ceil_div(n, t.bn);
  std::int64_t const k_tiles = ceil_div(k, kBK);
  std::int64_t const slots = sms / t.cluster_m * t.cluster_m;
  // Rounds of whole tiles and of split units on the busiest SM, and the CTA tiles that are split.
  std::int64_t whole_waves = 0, split_waves = ceil_div(tiles_m * tiles_n * splits, slots), split = tiles_m * tiles_n;
  if (splits > 1 && tail && tiles_m * tiles_n > slots) {
    whole_waves = tiles_m * tiles_n / slots;
    split = tiles_m * tiles_n - whole_waves * slots;
    split_waves = ceil_div(split * splits, slots);
    if (split == 0) splits = 1;
  }
  if (splits == 1) whole_waves = ceil_div(tiles_m * tiles_n, slots), split_waves = 0, split = 0;
  std::int64_t const waves = whole_waves + split_waves;
  std::int64_t const sm_k_tiles = whole_waves * k_tiles + split_waves * ceil_div(k_tiles, splits);
  double const sm_flops = mc.peak_flops / 132.0 * t.efficiency;
  double const ktile_us = 2.0 * t.bm * t.bn * kBK / sm_flops * 1e6;
  double const compute = double(sm_k_tiles) * ktile_us;
  // DRAM: each operand once, D once (C once more); L2 -> SMs: every tile's panels, B's shared by
  // the cluster's multicast.
  double dram = 2.0 * double(m * k + n * k) + double(out_bytes) * double(m * n) * (beta ? 2 : 1);
  double l2 = 2.0 * double(k) * (double(tiles_m * tiles_n) * t.bm + double(tiles_m / t.cluster_m * tiles_n) * t.bn);
  double fixup = 0;
  if (splits > 1) {
    double const partial = 4.0 * t.bm * t.bn;
    // Every split writes, the last reads all (the kernel reads one fewer with two splits; the
    // fitted terms count all).
    l2 += double(split) * partial * 2 * splits;
    fixup = double(split_waves) * (mc.fixup_us + partial * splits / mc.fixup_bw * 1e6);
  }
  // One SM streams at most sm_load_bw, and no more than its stages in flight per load latency: a
  // problem on few SMs cannot reach the DRAM bandwidth, and a small tile's shallow ring less so.
  double const per_sm = double(sm_k_tiles) * kBK * 2.0 * (t.bm + t.bn);
  double const in_flight = double(std::min(tile_stages(t), kModelStages)) * double(tile_stage_bytes(t));
  double const sm_rate = std::min(mc.sm_load_bw, in_flight / (mc.load_latency_us * 1e-6));
  double const memory = std::max({dram / mc.dram_bw, l2 / mc.l2_bw, per_sm / sm_rate}) * 1e6;
  return std::max(compute, memory) + mc.overlap_loss * std::min(compute, memory) + fixup + double(waves) * mc.wave_us;
}

// The configuration the model prefers. Candidates: every tile shape that can take the operands in
// each orientation, whole; for the shapes that split K, every split that leaves each split at
// least 4 k tiles within the workspace cap; and for every shape, the same splits of the last
// partial wave alone (tail). Ties go to the earlier (bigger) tile, no swap, fewer splits, no tail.
inline Plan plan(PlanInput const& in, Machine const& mc = {}) {
  Plan best;
  best.us = -1;
  for (int swap = 0; swap < 2; ++swap) {
    std::int64_t const m = swap ? in.n : in.m, n = swap ? in.m : in.n;
    bool const b_k_major = swap ? in.a_k_major : in.b_k_major;
    for (int t = 0; t < kTileShapeCount; ++t) {
      TileShape const ts = kTileShapes[t];
      if (!b_k_major && !tile_takes_mn_major_b(ts)) continue;
      std::int64_t const k_tiles = ceil_div(in.k, kBK);
      auto consider = [&](int s, bool tail) {
        double const us = estimate_us(ts, s, m, n, in.k, in.sms, in.out_bytes, in.beta, mc, tail);
        if (best.us < 0 || us < best.us * 0.999) best = Plan{t, s, swap != 0, us, tail};
      };
      consider(1, false);
      for (int s = 2; s <= 16 && k_tiles / s >= 4; ++s) {
        if (ts.split_k && workspace_bytes(ts, m, n, s) <= mc.workspace_cap) consider(s, false);
        // Only when there are whole waves before the tail (else it is the split above).
        if (split_tiles(ts, m, n, false, in.sms) > std::int64_t(in.sms / ts.cluster_m * ts.cluster_m) &&
            workspace_bytes(ts, m, n, s, true, in.sms) <= mc.workspace_cap)
          consider(s, true);
      }
    }
  }
  return best;
}

inline std::string describe(Plan const& p) {
  std::string s = kTileShapes[p.tile].name;
  if (p.swap) s += " swap-AB";
  if (p.splits > 1) s += " split-K " + std::to_string(p.splits) + (p.tail ? " on the last wave" : "");
  return s;
}

}  // namespace loom::sm90
