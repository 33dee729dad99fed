// sm90's tile menu and the constants the kernel is built from: plain C++, read by the host (the
// plan, the schedule, the launcher, the tests) and by the kernel's compile-time configuration
// (kernels/sm90/config.cuh).
//
// Names used throughout kernels/sm90/:
// - a tile shape is one entry of the menu (bm x bn of D per CTA, and the CTAs of a cluster), named
//   by its index `shape` (LOOM_SM90_PLAN's first field, Plan::shape, the template parameter kShape);
// - a CTA tile is the bm x bn block of D one CTA computes, at CTA-tile coordinates (m, n);
// - a cluster tile is the cluster_m x cluster_n CTA tiles that one cluster computes together (the
//   CTAs along M share B's tile by multicast, those along N A's), numbered in the tile scheduler's
//   order (kernels/sm90/schedule.hpp). Most clusters lie along one dimension (cluster_m or
//   cluster_n is 1); a 2-D one shares both operands.
#pragma once

namespace loom::sm90 {

// A min_m no problem reaches: the plan never offers the shape, which LOOM_SM90_PLAN alone runs (a
// shape built but not yet measured).
inline constexpr int kForcedOnly = 1 << 30;

// One tile shape of the menu: bm x bn of D per CTA (bm = 64 per consumer warpgroup), and the CTAs
// of a cluster along M (they share B's tile by multicast) and along N (they share A's).
struct TileShape {
  int bm, bn, cluster_m;
  char const* name;
  bool split_k;       // the plan may split K for every tile (any shape may split its last wave: Plan::tail)
  bool k_major_only;  // built for k-major A and B alone (rcr, and its swap): the family's widths
  // The plan offers the shape only where the kernel's M (the problem's, or N when swapped) is at
  // least this: the steps of 16 were fitted where their 128 rows were full (M = 160-900), and on
  // decode rows (M = 1-4 unswapped) their picks measured 7-12% slower than 128x16 swapped.
  int min_m = 0;
  int cluster_n = 1;
  // The plan offers the shape only where the kernel's N (the tokens, swapped) is in [min_n, max_n]
  // (max_n 0: no bound): a shape is not offered beyond the N its fit data covers.
  int min_n = 0, max_n = 0;
  // Rows of the tile each consumer warpgroup computes: 64 (one wgmma a k-step), or 128 and 192
  // (two or three wgmmas a k-step, 64 x consumers rows apart, into as many sets of accumulators), so that a
  // tall tile runs on two consumer warpgroups as cuBLAS's do, not on four of 64 rows.
  int wg_rows = 64;
};
// The menu. 128x256: big problems; 128x128: twice the tiles; 128x64 and 128x16: a small N (a small M
// swapped), one CTA per cluster since B's tile is small. The 64-row tiles (one consumer warpgroup)
// give a problem of few 128-row tiles more CTAs without splitting K: at M = 128 on a 4096 x 4096
// layer, 64x64 makes 128 tiles where 128x128 makes 32, and every SM streams its own panels instead
// of a quarter of them waiting on a split-K fixup. What each shape sustains is the plan model's
// (kernels/sm90/plan.hpp's Machine::efficiency, fitted). 128x256 and 128x192 never split every tile: 128x256's 128 KB partial tile per CTA
// made every such split measured slower than the 128x128 tile whole (their last wave alone may still
// be split). 128x192 fills the SMs where 128x256 leaves a third idle or spills into a second wave
// (11008 columns: 58 tiles across against 43).
//
// The family (indices 8 on): the widths between, in steps of 32, so that the planner can size the
// tile to the problem, as cuBLAS does: a width that makes the tiles fill the SMs (640 x 4096:
// 5 x 26 tiles of 128x160 against 5 x 32 of 128x128, 1.2 waves), or one that holds a small M of a
// swapped plan with less padding (M = 96: one 96-wide tile, not a 128-wide one). They are built for
// k-major operands only (the transformer layer's rcr and its swap), one translation unit each:
// about 11 s of compile each on one core (docs/tuning/sm90.md). Indices 16 on fill the 128-row
// widths in to steps of 16 (112 to 240): at 384 x 6144 cuBLAS's 144-wide tiles make 129 tiles for
// 132 SMs, where Loom's widths of 32 made 96 or 117, or 144 in two waves (seventh round). They
// run one CTA per cluster (no multicast), so that an odd number of 128-row tiles (M = 384, 640)
// does not pad a cluster, and only where the kernel's M is at least min_m. A width that is not a
// multiple of 32 stores an unswapped D from the registers, a swapped plan's 16-bit D by TMA in
// column boxes (tile_epilogue_buffers).
//
// Indices 21 on are 128-row tiles on clusters of two CTAs along N, which share A's tile by
// multicast (the names' _1x2): at M = 160-1024 the A and B panels every CTA streams from L2 bound
// the one-CTA-cluster widths (384 x 6144 x 4096 in 128x144 tiles: 129 tiles, 287 MB across L2, 32
// µs at 9 TB/s, where cuBLAS takes 28 µs), and a cluster along M would pad an odd number of 128-row
// tiles. Along N a cluster pads at most one column of tiles, and A crosses L2 once per cluster.
//
// Indices 30 and 31 are 128-row tiles on clusters of three CTAs along M, which share B's tile by
// multicast: at M = 257-384 one cluster holds every row of the problem, so each column of B crosses
// L2 once. An H100 holds 39 such clusters (117 SMs; 30 of four, 22 of five: a cluster stays in one
// GPC, and its GPCs are uneven), so 128x192_3x1 fills them at N = 6144 (32 clusters) where
// 128x144_3x1 (43) runs two waves. Forced on an H100 at M = 384 beside the model's picks,
// 128x192_3x1 measured 2-11% faster on five of six (N, K) pairs (docs/tuning/sm90.md, twentieth
// round). 128x192_3x1 splits K (unlike 128x192: its partial tiles fill the 39 slots where the
// whole ones fill half, 384 x 3584 x 18944 in 81.8 µs against 122.7 for the pick before it, cuBLAS
// 76.6); 128x144_3x1 was faster than the pick at 384 x 4096 x 11008 (66.3 against 72.4 µs)
// and 384 x 3584 x 18944 (107.1 against 122.7), though the model does not rate it above the pick
// there. Index 32, 64x80 on 2x2 clusters (both operands multicast, as cuBLAS's 64x80 on 4x2 at
// M = 160), is for a swapped plan of at most 160 tokens: min_m 1024 keeps it off unswapped small
// M, where it measured 4-45% slower than the pick.
//
// Indices 33-35 are 128-row tiles on clusters of four along M, for swapped plans of a few hundred
// tokens: the weights' rows are the kernel's M, four CTAs of them share each token tile by
// multicast, and the token tile's width is sized to the tokens (M = 300 in three tiles of 104,
// 450 in three of 152). That is cuBLAS's own decomposition there (Nsight Compute on an H100:
// nvjet 128x104 on 4x1 at 300 x 5120 x 6912 and 13824, 120 CTAs). Forced against the model's picks
// at M = 200-800 on 30 (N, K) pairs, 300 x 5120 x 13824 took 79.9 µs against 122.5 (cuBLAS 65.1);
// docs/tuning/sm90.md, twenty-first round. Each of the four CTAs loads a quarter of the token tile
// (26, 34 or 38 rows) and multicasts it (OperandConfig).
//
// Indices 36-41 are cuBLAS's own picks on the weak band, read off its kernel names on an H200 (bf16
// rcr, cuBLAS 13.1; docs/tuning/sm90.md, twenty-third round), each swapped (the weights' rows are
// the kernel's M, the tokens its N): 128x184 on 4x1 and on 2x1 (M = 900 in five token tiles of 184),
// 192x88 and 192x176 on 1x2 (M = 350 and 700 in tiles of 88 and 176, two CTAs along the tokens
// sharing the weights' tile), 256x104 on 4x1 (M = 520 at N = 6144) and 256x136 on 2x1 (M = 900 at
// N = 9216). The 192- and 256-row tiles run three and four consumer warpgroups of 64 rows each
// (tile_consumer_regs gives them the registers the launch's pool leaves). Validated forced on an
// H200 and timed there on 72 problems at M = 200-1000 (twenty-fourth round), they are offered
// between 192 and 1024 tokens (min_n, max_n), the range those timings cover.
//
// Indices 42-51 are the rest of cuBLAS's picks on the H200's weak rows (Nsight Compute, bf16 rcr,
// cuBLAS 13.1, `nvjet_sm90_tst_<rows>x<cols>_..._<cluster>` read as the weights' rows by the tokens'
// columns: docs/tuning/sm90.md, twenty-fifth round), each as Loom runs it: swapped where cuBLAS's
// kernel is (its TNT names), unswapped where it is not (TNN: the tokens' 128 rows are the kernel's
// M). Few tokens on clusters of eight: 64x120 and 64x168 on 4x2 (230 and 330 tokens on a
// 3584-wide layer: two token tiles, each multicast to four CTAs and each weights tile to two),
// 128x80 on 4x2 (160 tokens); 64x96 and 64x32 on 4x1 and 64x32 on 1x2 (96, 32 and 64 tokens);
// 256x88 on 2x1 (780 tokens: nine tiles of 88); unswapped, 128x168 on 2x1 and 1x2 (an 11008- or 28672-wide layer in whole waves of 168-wide
// tiles) and 128x96 on 1x4 (one token tile, four CTAs sharing it). Timed forced on an H200 at
// M = 32-1024 (twenty-fifth round), they ran cuBLAS's decompositions 3-37% slower than cuBLAS, and
// beat the plans already offered only at a few hundred tokens on narrow layers: 64x168_4x2 is
// offered at 170-336 tokens (two token tiles), the others stayed forced only (kForcedOnly).
// Retimed on the kernels of 2026-11-28 (3d5368b's loop, the swapped store without branches, the
// lane-0 broadcasts) on an H200, at 250 problems of M = 96-1024 (docs/tuning/sm90.md, twenty-eighth
// round), three of them beat every offered plan where they hold the tokens in one or two tiles:
// 64x120_4x2 at 200-250 tokens on layers up to 3840 wide (230 x 3584 x 4096: 17.3 us against the
// offered best 20.7; the pick was 23.8), 128x80_4x2 at 140-160 and 64x96_4x1 at 96. They are
// offered there (min_n, max_n: two tiles of 120 and of 80, one of 96), swapped. (cuBLAS's 192x208 at 610 and 780 tokens is not among them:
// as three warpgroups of 64 rows it needs more than the 128 registers a thread that ptxas compiles
// 512 threads for (C7602); it wants two warpgroups of 96 rows.)
//
// Index 52 is 256x88 on 2x1 as cuBLAS's kernel runs it: 384 threads, two consumer warpgroups of 128
// rows, where index 45 runs four of 64 (Nsight Compute on an H200: 4.4 times cuBLAS's instructions
// at 780 x 3584 x 4096; docs/tuning/sm90.md, twenty-fifth round), so that the two can be timed on
// the same decomposition. Forced only: on an H200 it ran 780 x 3584 and 7168 x 4096 2.5-3.3% faster
// than 45, still 0.74-0.80x cuBLAS (docs/tuning/sm90.md, twenty-sixth round). It stores D from the registers
// (the TMA-store epilogue stages 64-row sub-tiles of one warpgroup's 64 rows). 256x104 on 4x1 and
// 256x136 on 2x1 the same way spilled 132 and 860 bytes (ptxas compiles 384 threads to 168
// registers a thread), and 384x104 as two warpgroups of 192 rows 676: not built.
//
// Indices are LOOM_SM90_PLAN's, so new shapes go at the end; kernels/CMakeLists.txt instantiates
// each with the operand majornesses it takes (tile_takes).
inline constexpr TileShape kTileShapes[] = {{128, 256, 2, "128x256", false, false},
                                            {128, 128, 2, "128x128", true, false},
                                            {128, 64, 1, "128x64", true, false},
                                            {128, 16, 1, "128x16", true, false},
                                            {64, 128, 2, "64x128", true, false},
                                            {64, 64, 2, "64x64", true, false},
                                            {64, 16, 1, "64x16", true, false},
                                            {128, 192, 2, "128x192", false, false},
                                            {128, 96, 2, "128x96", true, true},
                                            {128, 160, 2, "128x160", true, true},
                                            {128, 224, 2, "128x224", false, true},
                                            {128, 32, 1, "128x32", true, true},
                                            {64, 32, 1, "64x32", true, true},
                                            {64, 96, 2, "64x96", true, true},
                                            {64, 192, 2, "64x192", true, true},
                                            {64, 256, 2, "64x256", true, true},
                                            {128, 112, 1, "128x112", true, true, 64},
                                            {128, 144, 1, "128x144", true, true, 64},
                                            {128, 176, 1, "128x176", false, true, 64},
                                            {128, 208, 1, "128x208", false, true, 64},
                                            {128, 240, 1, "128x240", false, true, 64},
                                            {128, 112, 1, "128x112_1x2", true, true, 64, 2},
                                            {128, 128, 1, "128x128_1x2", true, true, 64, 2},
                                            {128, 144, 1, "128x144_1x2", true, true, 64, 2},
                                            {128, 160, 1, "128x160_1x2", true, true, 64, 2},
                                            {128, 176, 1, "128x176_1x2", false, true, 64, 2},
                                            {128, 192, 1, "128x192_1x2", false, true, 64, 2},
                                            {128, 208, 1, "128x208_1x2", false, true, 64, 2},
                                            {128, 240, 1, "128x240_1x2", false, true, 64, 2},
                                            {128, 256, 1, "128x256_1x2", false, true, 64, 2},
                                            {128, 144, 3, "128x144_3x1", true, true, 64},
                                            {128, 192, 3, "128x192_3x1", true, true, 64},
                                            {64, 80, 2, "64x80_2x2", true, true, 1024, 2},
                                            {128, 104, 4, "128x104_4x1", true, true, 64},
                                            {128, 136, 4, "128x136_4x1", true, true, 64},
                                            {128, 152, 4, "128x152_4x1", true, true, 64},
                                            {128, 184, 4, "128x184_4x1", true, true, 64, 1, 192, 1024},
                                            {128, 184, 2, "128x184_2x1", true, true, 64, 1, 192, 1024},
                                            {192, 88, 1, "192x88_1x2", true, true, 64, 2, 192, 1024},
                                            {192, 176, 1, "192x176_1x2", true, true, 64, 2, 192, 1024},
                                            {256, 104, 4, "256x104_4x1", true, true, 64, 1, 192, 1024},
                                            {256, 136, 2, "256x136_2x1", true, true, 64, 1, 192, 1024},
                                            {64, 120, 4, "64x120_4x2", true, true, 64, 2, 170, 240},
                                            {64, 168, 4, "64x168_4x2", true, true, 64, 2, 170, 336},
                                            {128, 80, 4, "128x80_4x2", true, true, 64, 2, 121, 160},
                                            {256, 88, 2, "256x88_2x1", true, true, kForcedOnly},
                                            {128, 168, 2, "128x168", true, true, kForcedOnly},
                                            {128, 168, 1, "128x168_1x2", true, true, kForcedOnly, 2},
                                            {128, 96, 1, "128x96_1x4", true, true, kForcedOnly, 4},
                                            {64, 96, 4, "64x96_4x1", true, true, 64, 1, 65, 96},
                                            {64, 32, 4, "64x32_4x1", true, true, kForcedOnly},
                                            {64, 32, 1, "64x32_1x2", true, true, kForcedOnly, 2},
                                            {256, 88, 2, "256x88_2x1_wg128", true, true, kForcedOnly, 1, 0, 0, 128}};
inline constexpr int kTileShapeCount = int(sizeof(kTileShapes) / sizeof(kTileShapes[0]));

constexpr int kTileK = 64;  // K per stage: one k tile, the 128-byte swizzle's width in 16-bit elements
// The k tile in elements of in_bytes bytes (2: f16/bf16; 1: e4m3/e5m2): always 128 bytes of K.
constexpr int k_tile_of(int in_bytes) { return 128 / in_bytes; }
// Rings of up to 16 stages: 64x64 gets 13 (2-5% faster than 8 at 128 x 4096 x 4096), 64x16 16,
// 128x16 12; the other tiles are bound by shared memory first (docs/tuning/sm90.md).
constexpr int kMaxStages = 16;
constexpr int kSmemLimit = 227 * 1024;  // dynamic shared memory a CTA may have on sm_90
// The TMA-store epilogue stages D through shared memory in sub-tiles of 64 rows x 128 bytes,
// double-buffered per consumer warpgroup, where the width is whole row sub-tiles; the other tiles'
// buffers are what their stages leave (tile_epilogue_buffers).
constexpr int kEpiBuffers = 2, kEpiBufferBytes = 64 * 128;

// Register budgets per role (setmaxnreg): the consumers hold up to 128 fp32 accumulators a thread.
// setmaxnreg.inc takes registers from the CTA's own pool (PTX ISA, setmaxnreg: it blocks until the
// pool has them), which holds what the launch allocated: each thread the most __launch_bounds__
// leaves, 64K over the threads rounded down to the allocation's multiple of 8 (168 for 384
// threads, 128 for 512, 96 for 640). With two consumer warpgroups (or one) they get kConsumerRegs;
// with three or four (the 192- and 256-row tiles) what that pool leaves beside the producer, rounded
// down to 8: 152 and 104. Four at 112, 1,024 registers more than the pool of 640 threads at 96, hung
// at their setmaxnreg on an H200 (docs/tuning/sm90.md, twenty-fourth round).
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
constexpr int launch_pool(int warpgroups) {
  int const per_thread = 65536 / (128 * warpgroups) / 8 * 8;
  return (per_thread > 248 ? 248 : per_thread) * 128 * warpgroups;
}
constexpr int consumer_regs(int consumers) {
  int const left = (launch_pool(consumers + 1) - kProducerRegs * 128) / (128 * consumers) / 8 * 8;
  return left < kConsumerRegs ? left : kConsumerRegs;
}
static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * 2 <= launch_pool(3), "setmaxnreg: more than the launch's registers");
static_assert(consumer_regs(1) == kConsumerRegs && consumer_regs(2) == kConsumerRegs && consumer_regs(3) == 152 &&
              consumer_regs(4) == 104);
// k tiles warpgroup 1 runs behind warpgroup 0 (0 and 2 measured no faster; kernels/sm90/mainloop.cuh),
// in a tile of two consumer warpgroups; three or four run in step.
constexpr int kLag = 1;
// Cluster rows per group of the tile order (2, 4 and 16 measured slower; kernels/sm90/schedule.hpp).
constexpr int kGroupM = 8;

// Whether the TMA-store epilogue takes a D that is not swapped (row sub-tiles), and so any D: it
// stores sub-tiles of 128 bytes of a row, and bn must hold whole ones of every output type (64
// bf16/f16, 32 f32). A swapped plan's D needs only buffers (tile_has_col_tma_store). An mn-major
// B tile is loaded in 64-row blocks (the 128-byte swizzle's width), and the cluster's CTAs share
// them out, so each must get whole blocks.
// A width of an odd number of 64-column sub-tiles stores in sub-tiles of 64 bytes (32 bf16/f16
// columns, the 64-byte swizzle) instead (kernels/sm90/epilogue.cuh).
constexpr bool tile_has_tma_store(TileShape t) { return t.bn % 32 == 0 && t.wg_rows == 64; }
constexpr bool tile_takes_mn_major_b(TileShape t) { return t.bn % (64 * t.cluster_m) == 0; }
constexpr bool tile_takes_mn_major_a(TileShape t) { return t.bm % (64 * t.cluster_n) == 0; }
// The CTAs of a cluster: the launch's (1-D) cluster, rank r at (r % cluster_m, r / cluster_m).
constexpr int tile_cluster(TileShape t) { return t.cluster_m * t.cluster_n; }
// The most CTAs a cluster may have without the non-portable opt-in (the launch and the residency
// query use portable sizes only).
constexpr int kMaxClusterSize = 8;
// 8-bit inputs' accurate mode: a tile up to this wide computes each k tile's partial whole; a wider
// one in two column pieces (kernels/sm90/mainloop.cuh's mma_promoted).
constexpr int kWholePartialMaxBN = 144;
// Whether the tile takes 8-bit block scales: every accurate tile. 128x192's two pieces of 96 beside
// the scales compile without a spill in the block scales' own kernel (kernels/sm90/kernel.cuh's
// kBlock); 128x256's block loop computes its partial in four pieces of 64 (mainloop.cuh), since two
// of 128 spilled 64 bytes, some in the k loop; four spill nothing since the epilogue takes the tile
// indices unsigned (kernels/epilogue.cuh; docs/tuning/fp8.md, fourteenth round). (While the watchdog
// was a `trap` and both loops shared one kernel, the two-piece 128x192 spilled 100-150 bytes with
// block scales: docs/tuning/fp8.md, tenth round.)
constexpr bool tile_takes_block_scales(TileShape t) { return t.bn <= 256; }
// Whether tile shape t is built for A and B of these majornesses (k-major or not), so that the plan
// may take it: the list kernels/CMakeLists.txt instantiates (test Sm90Instances checks it).
constexpr bool tile_takes(TileShape t, bool a_k_major, bool b_k_major) {
  if (t.k_major_only) return a_k_major && b_k_major;
  return (b_k_major || tile_takes_mn_major_b(t)) && (a_k_major || tile_takes_mn_major_a(t));
}
// The input types of wgmma, A's and B's: bf16 or f16 (the same for both), e4m3 or e5m2 (each
// either). The 8-bit instances are named by them (kernels/CMakeLists.txt), so the host reads them.
enum class WgmmaType { kBF16, kF16, kE4M3, kE5M2 };

constexpr int tile_consumers(TileShape t) { return t.bm / t.wg_rows; }
constexpr int tile_wg_atoms(TileShape t) { return t.wg_rows / 64; }  // wgmmas a consumer warpgroup issues a k-step
constexpr int tile_consumer_regs(TileShape t) { return consumer_regs(tile_consumers(t)); }
constexpr int tile_threads(TileShape t) { return 128 * (1 + tile_consumers(t)); }
constexpr int tile_stage_bytes(TileShape t) { return (t.bm + t.bn) * kTileK * 2; }
// As many stages as fit beside `reserved` bytes, the barriers (2 x 16 + 1 of 8 bytes, and a word per
// consumer) and 1 KB of alignment slack (kernels/sm90/shared_storage.cuh checks the sum).
constexpr int stages_beside(TileShape t, int reserved) {
  int const s = (kSmemLimit - reserved - 1024 - 512) / tile_stage_bytes(t);
  return s < kMaxStages ? s : kMaxStages;
}
// The TMA-store epilogue's buffers, per consumer warpgroup: `count` of `bytes` each (0: no TMA store).
// A tile whose rows are whole store sub-tiles (tile_has_tma_store) has kEpiBuffers of kEpiBufferBytes,
// set aside before its stages are counted, and stores D by TMA either way round. Any other tile of
// 64-row warpgroups stores only a swapped plan's D by TMA (column sub-tiles of 64 m by up to 64 n,
// kernels/sm90/epilogue.cuh's EpilogueColConfig), in buffers cut from the shared memory its stages
// leave, so that its ring keeps the depth it was measured with: two of 8 KB, one of 8 KB, or one of
// the 1 KB multiples left (8 n columns each), at least 3 KB; none below (256x104_4x1's stages
// leave 3 KB for four warpgroups). A column sub-tile is never wider than the tile.
struct EpilogueBuffers {
  int count = 0, bytes = 0;
};
constexpr EpilogueBuffers tile_epilogue_buffers(TileShape t) {
  if (t.wg_rows != 64) return {};
  if (tile_has_tma_store(t)) return {kEpiBuffers, kEpiBufferBytes};
  int const widest = (t.bn < 64 ? t.bn : 64) * 128;  // a column sub-tile as wide as the tile, at most 64 n
  int const left = (kSmemLimit - 1024 - 512 - stages_beside(t, 0) * tile_stage_bytes(t)) / tile_consumers(t) / 1024 * 1024;
  if (left >= 2 * widest) return {2, widest};
  if (left >= widest) return {1, widest};
  if (left >= 3 * 1024) return {1, left};
  return {};
}
// Whether the tile stores D by TMA at all: a swapped plan's, at least (tile_has_tma_store: any D).
constexpr bool tile_has_col_tma_store(TileShape t) { return tile_epilogue_buffers(t).count > 0; }
// The columns (n) of one column sub-tile: 64 or 32 where they divide the width (the tiles with row
// sub-tiles, as measured before the others had buffers), else what one buffer holds.
constexpr int tile_col_store_cols(TileShape t) {
  if (tile_has_tma_store(t)) return t.bn % 64 == 0 ? 64 : 32;
  return tile_epilogue_buffers(t).bytes / 128;
}
constexpr int tile_epilogue_bytes(TileShape t) {
  EpilogueBuffers const b = tile_epilogue_buffers(t);
  return tile_consumers(t) * b.count * b.bytes;
}
constexpr int tile_stages(TileShape t) { return stages_beside(t, tile_has_tma_store(t) ? tile_epilogue_bytes(t) : 0); }
// wgmma groups (k tiles) a consumer warpgroup keeps in flight in the main loop without promotion
// (kernels/sm90/mainloop.cuh's mma: 16-bit inputs, and 8-bit with fast accumulation): two keep the tensor pipe fed while the warpgroup releases a stage and
// waits for the next, one hands each stage back a k tile sooner. Two only where the ring has six
// stages or more (128x256's four measured 6% slower with two), and not on clusters of four or more
// CTAs nor on 128x96: with one, on an H200 (docs/tuning/sm90.md, twenty-seventh round, both built
// side by side), the 4x1 and 4x2 tiles ran 1-4% faster and 128x96 swapped 6-11% (four problems),
// where 128x128, 64x128, 128x64 and 128x144 ran 2-20% slower. A stage that a cluster of four or
// eight shares is refilled only once the consumers of every CTA along its row and column have
// released it, so the stage held one k tile longer costs those rings the most.
constexpr int tile_in_flight(TileShape t) {
  if (tile_stages(t) < 6 || tile_cluster(t) >= 4 || (t.bm == 128 && t.bn == 96)) return 1;
  return 2;
}

}  // namespace loom::sm90
