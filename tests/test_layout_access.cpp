// The shared-memory and global access patterns of Loom's kernels, run through the bank-conflict and
// coalescing model of layout/access.hpp, so that a layout change that adds bank conflicts or
// uncoalesced accesses fails here before any GPU run. Each case rebuilds a kernel's layouts from
// layout/ calls as the kernel declares them (the kernel and what is mirrored are named at each
// case); none includes kernels/.
//
// The model's own rules are tested first, on accesses small enough to count by hand.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "layout/access.hpp"
#include "layout/copy.hpp"
#include "layout/gmma.hpp"
#include "layout/layout.hpp"
#include "layout/mma.hpp"
#include "layout/swizzle.hpp"

using namespace loom;

namespace {

std::vector<i64> lanes(std::function<i64(int)> f) {
  std::vector<i64> a(32);
  for (int l = 0; l < 32; ++l) a[size_t(l)] = f(l);
  return a;
}

// The accesses of a partition: thread t's values are at elem(offset(t) + layout(i)); instruction k
// moves values [k vec, (k+1) vec) of every thread (vec consecutive elements, one vector access).
template <class Part>
TvAccesses part_accesses(Part const& p, i64 threads, i64 vec, int elem_bytes, std::function<i64(i64)> const& elem) {
  TvAccesses r;
  r.threads = threads;
  r.values = vec;
  r.instrs = size(p.layout).v / vec;
  r.bytes = int(vec * elem_bytes);
  for (i64 k = 0; k < r.instrs; ++k)
    for (i64 w = 0; w < r.warps(); ++w) {
      std::vector<i64> a(32, kInactiveLane);
      for (i64 l = 0; l < 32 && 32 * w + l < threads; ++l) {
        i64 const base = p.offset(32 * w + l);
        i64 const first = elem(base + p.layout(IntTuple(k * vec)));
        for (i64 v = 1; v < vec; ++v) EXPECT_EQ(elem(base + p.layout(IntTuple(k * vec + v))), first + v) << "not one vector";
        a[size_t(l)] = first * elem_bytes;
      }
      r.addr.push_back(a);
    }
  return r;
}

i64 identity(i64 x) { return x; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------------

TEST(AccessModel, SharedWordsPerBank) {
  // 32 lanes, 4 bytes, consecutive words: one per bank.
  EXPECT_EQ(shared_access_cost(lanes([](int l) { return 4 * l; }), 4).wavefronts, 1);
  // A stride of 2 words: each even bank twice.
  SharedCost c2 = shared_access_cost(lanes([](int l) { return 8 * l; }), 4);
  EXPECT_EQ(c2.wavefronts, 2);
  EXPECT_EQ(c2.ideal, 1);
  // A stride of 32 words: one bank, 32 words.
  EXPECT_EQ(shared_access_cost(lanes([](int l) { return 128 * l; }), 4).wavefronts, 32);
  // The same word everywhere: broadcast.
  EXPECT_EQ(shared_access_cost(lanes([](int) { return 64; }), 4).wavefronts, 1);
  // Lanes in pairs on one word, the pairs 32 words apart: 16 distinct words in one bank.
  EXPECT_EQ(shared_access_cost(lanes([](int l) { return 128 * (l / 2); }), 4).wavefronts, 16);
  // 2-byte accesses: lanes 2l, 2l+1 share word l.
  EXPECT_EQ(shared_access_cost(lanes([](int l) { return 2 * l; }), 2).wavefronts, 1);
  // Inactive lanes take no part.
  EXPECT_EQ(shared_access_cost(lanes([](int l) { return l < 2 ? 128 * l : kInactiveLane; }), 4).wavefronts, 2);
}

TEST(AccessModel, SharedPhases) {
  // 8 bytes: two half-warps of 128 bytes each, conflict-free.
  SharedCost c8 = shared_access_cost(lanes([](int l) { return 8 * l; }), 8);
  EXPECT_EQ(c8.wavefronts, 2);
  EXPECT_EQ(c8.ideal, 2);
  // 8 bytes, lanes l and l+8 of a half-warp 128 bytes apart: 2 words in each bank a phase.
  EXPECT_EQ(shared_access_cost(lanes([](int l) { return 8 * (l % 8) + 128 * (l / 8); }), 8).wavefronts, 4);
  // 16 bytes: four quarter-warps of 128 bytes.
  SharedCost c16 = shared_access_cost(lanes([](int l) { return 16 * l; }), 16);
  EXPECT_EQ(c16.wavefronts, 4);
  EXPECT_EQ(c16.ideal, 4);
  // 16 bytes, a quarter-warp down a column of 128-byte rows: 8 words per bank, 8 a phase.
  EXPECT_EQ(shared_access_cost(lanes([](int l) { return 128 * (l % 8) + 16 * (l / 8); }), 16).wavefronts, 32);
  // The phases are lanes 0-7, 8-15, ...: lanes 0 and 8 may share banks freely.
  EXPECT_EQ(shared_access_cost(lanes([](int l) { return 16 * (l % 8) + 1024 * (l / 8); }), 16).wavefronts, 4);
}

TEST(AccessModel, GlobalSectors) {
  GlobalCost c = global_access_cost(lanes([](int l) { return 4 * l; }), 4);
  EXPECT_EQ(c.sectors, 4);
  EXPECT_EQ(c.lines, 1);
  EXPECT_EQ(c.sectors_ideal, 4);
  GlobalCost s = global_access_cost(lanes([](int l) { return 128 * l; }), 4);
  EXPECT_EQ(s.sectors, 32);
  EXPECT_EQ(s.lines, 32);
  EXPECT_EQ(s.sectors_ideal, 4);
  // 16 bytes a lane: 512 bytes, 16 sectors, 4 lines.
  GlobalCost v = global_access_cost(lanes([](int l) { return 16 * l; }), 16);
  EXPECT_EQ(v.sectors, 16);
  EXPECT_EQ(v.lines, 4);
}

TEST(AccessModel, TvLayoutsAndErrors) {
  // (thread, value, instr) over a 32x32 row-major tile: one thread a row is 32-way per instruction.
  SwizzleLayout rowmajor{Swizzle{}, 0, make_layout(make_shape(32, 32), make_stride(32, 1))};
  SharedReport bad = shared_report(tv_accesses(make_layout(make_shape(32, 1, 32), make_stride(1, 0, 32)), 4, rowmajor));
  EXPECT_EQ(bad.total.wavefronts, 32 * 32);
  SharedReport good = shared_report(tv_accesses(make_layout(make_shape(32, 1, 32), make_stride(32, 0, 1)), 4, rowmajor));
  EXPECT_EQ(good.total.wavefronts, 32);
  EXPECT_EQ(good.total.excess(), 0);
  // Values that are not consecutive in memory cannot be one vector access.
  // (Index i is row i % 32, column i / 32: a value step of 1 is the next row, 128 bytes on.)
  EXPECT_THROW(tv_accesses(make_layout(make_shape(32, 2), make_stride(32, 1)), 4, rowmajor), LayoutError);
  EXPECT_NO_THROW(tv_accesses(make_layout(make_shape(16, 2), make_stride(64, 32)), 4, rowmajor));
  EXPECT_THROW(shared_access_cost(lanes([](int l) { return 4 * l + 2; }), 4), LayoutError);
}

// ---------------------------------------------------------------------------------------------
// add (kernels/add.cu, AddConfig): make_tiled_copy(copy_atom(V), (32,8), (V,1)) over a (32V, 8)
// tile (one vector per thread), V = 16 bytes of elements, r contiguous in global memory (the vector
// kernel). No shared memory. Each warp's 32 threads read 32 consecutive 16-byte vectors of one
// column: 512 bytes.
// ---------------------------------------------------------------------------------------------

TEST(KernelAccess, AddGlobal) {
  for (int elem : {4, 2}) {
    i64 const V = 16 / elem;
    TiledCopy const copy = make_tiled_copy(copy_atom(V), make_layout(make_shape(32, 8)), make_layout(make_shape(V, 1)));
    // The tile of a column-major (R,S) operand, leading dimension 4096 elements (any multiple of
    // 32 V keeps 128-byte alignment; the kernel's other leading dimensions only move lines).
    Layout const g = make_layout(make_shape(32 * V, 8), make_stride(1, 4096));
    GlobalReport r = global_report(part_accesses(copy.partition_S(g), 256, V, elem, identity));
    EXPECT_EQ(r.total.sectors, r.total.sectors_ideal) << elem;
    EXPECT_EQ(r.total.lines, r.total.lines_ideal) << elem;
    EXPECT_EQ(r.per[0].sectors, 16) << elem;
  }
}

// ---------------------------------------------------------------------------------------------
// fma (kernels/sgemm_fma.cuh, OperandConfig and FmaConfig): kBK 8, rows of kMN + 4 floats, float4
// copies; the TiledMMA of 16x16 threads (warp lanes kLM x 32/kLM) reading float4 runs along m/n.
// ---------------------------------------------------------------------------------------------

namespace {
constexpr int kFmaBK = 8, kFmaPad = 4;
Layout fma_smem(int mn) { return make_layout(make_shape(mn, kFmaBK), make_stride(1, mn + kFmaPad)); }
TiledCopy fma_copy(int mn, bool kcontig) {
  return kcontig ? make_tiled_copy(copy_atom(4), make_layout(make_shape(mn, 256 / mn), LayoutRight{}), make_layout(make_shape(1, 4)))
                 : make_tiled_copy(copy_atom(4), make_layout(make_shape(mn / 4, 4 * 256 / mn)), make_layout(make_shape(4, 1)));
}
TiledMMA fma_mma(int lm = 8) {
  int const ln = 32 / lm, wm = 16 / lm, wn = 16 / ln;
  return make_tiled_mma(mma_atom_fma(),
                        make_layout(make_shape(make_shape(lm, wm), make_shape(ln, wn), 1),
                                    make_stride(make_stride(ln, 32), make_stride(1, 32 * wm), 0)),
                        make_tile(make_layout(make_shape(16, 4), make_stride(4, 1)),
                                  make_layout(make_shape(16, 4), make_stride(4, 1)), _));
}
}  // namespace

TEST(KernelAccess, FmaSharedStoresAndGlobalLoads) {
  for (int mn : {128, 256}) {
    // mn-contiguous operands: float4 along mn, stored as float4 (a 16-byte store per thread).
    TiledCopy const c = fma_copy(mn, false);
    SharedReport st = shared_report(part_accesses(c.partition_D(fma_smem(mn)), 256, 4, 4, identity));
    EXPECT_EQ(st.total.excess(), 0) << mn;
    GlobalReport gl = global_report(part_accesses(c.partition_S(make_layout(make_shape(mn, kFmaBK), make_stride(1, 4096))),
                                                  256, 4, 4, identity));
    EXPECT_EQ(gl.total.sectors, gl.total.sectors_ideal) << mn;
    // k-contiguous operands: a float4 along k in global memory, four scalar stores into four rows
    // of shared memory (the kernel transposes through registers): per store, 32 threads of one
    // warp walk mn consecutively within one k row.
    TiledCopy const k = fma_copy(mn, true);
    TiledCopy::Partition const pk = k.partition_D(fma_smem(mn));
    GlobalReport gk = global_report(part_accesses(k.partition_S(make_layout(make_shape(mn, kFmaBK), make_stride(4096, 1))),
                                                  256, 4, 4, identity));
    // 256 / mn threads share a row of kBK = 8 floats (32 bytes, one sector): with mn = 128 two
    // threads fill it; with mn = 256 each thread reads 16 bytes alone in its sector, half of it
    // used (the other half is the same thread's next k tile, read from L1 or L2 later).
    EXPECT_EQ(gk.total.sectors, (mn == 128 ? 1 : 2) * gk.total.sectors_ideal) << mn;
    SharedReport sk = shared_report(part_accesses(pk, 256, 1, 4, identity));
    EXPECT_EQ(sk.total.excess(), 0) << mn;
  }
}

TEST(KernelAccess, FmaFragmentLoads) {
  // partition_A/B of the stage: (1,(4,kF/4),kBK) per thread; one float4 per (run, k).
  TiledMMA const mma = fma_mma();
  for (int mn : {128, 256}) {
    for (bool a : {true, false}) {
      TiledMMA::Partition const p = a ? mma.partition_A(fma_smem(mn)) : mma.partition_B(fma_smem(mn));
      SharedReport r = shared_report(part_accesses(p, 256, 4, 4, identity));
      EXPECT_EQ(r.total.excess(), 0) << mn << (a ? " A" : " B");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// sm80 (kernels/gemm_sm80.cuh, OperandConfig and MmaConfig): 128 threads, 128x128 tiles, kBK 32 or
// 64; shared tiles k-major (kMN, kBK) row-major under Swizzle<2 or 3,3,3>, or mn-major (64,8)
// blocks under Swizzle<3,3,3>; cp.async of 16 bytes fills them, ldmatrix.x4 (.trans when mn-major)
// reads them: each lane gives one 16-byte row, as 16-byte accesses in quarter-warp phases.
// ---------------------------------------------------------------------------------------------

namespace {
TiledMMA sm80_mma() {
  return make_tiled_mma(mma_atom_sm80_16x8x16(), make_layout(make_shape(2, 2, 1)),
                        make_tile(make_layout(make_shape(16, 2, 4), make_stride(1, 64, 16)),
                                  make_layout(make_shape(8, 2, 8), make_stride(1, 64, 8)), 16));
}
struct Sm80Operand {
  Layout tile;
  Swizzle sw;
  TiledCopy g2s, s2r;
};
Sm80Operand sm80_operand(int mn, int bk, bool kmajor, bool is_a) {
  Sm80Operand o;
  o.sw = make_swizzle(kmajor && bk == 32 ? 2 : 3, 3, 3);
  o.tile = kmajor ? make_layout(make_shape(mn, bk), LayoutRight{})
                  : blocked_product(make_layout(make_shape(64, 8)), make_layout(make_shape(mn / 64, bk / 8)));
  o.g2s = kmajor ? make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(128 / (bk / 8), bk / 8), LayoutRight{}),
                                   make_layout(make_shape(1, 8)))
                 : make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(mn / 8, 128 / (mn / 8))),
                                   make_layout(make_shape(8, 1)));
  o.s2r = is_a ? make_tiled_copy_A(copy_atom_ldsm(4, !kmajor), sm80_mma()) : make_tiled_copy_B(copy_atom_ldsm(4, !kmajor), sm80_mma());
  return o;
}
}  // namespace

TEST(KernelAccess, Sm80SharedAndGlobal) {
  for (int bk : {32, 64})
    for (bool kmajor : {true, false})
      for (bool is_a : {true, false}) {
        Sm80Operand const o = sm80_operand(128, bk, kmajor, is_a);
        auto sw = [&](i64 x) { return o.sw(x); };
        std::string const what = "bk " + std::to_string(bk) + (kmajor ? " k-major" : " mn-major") + (is_a ? " A" : " B");
        // cp.async's 16-byte writes into the swizzled stage.
        SharedReport w = shared_report(part_accesses(o.g2s.partition_D(o.tile), 128, 8, 2, sw));
        EXPECT_EQ(w.total.excess(), 0) << what;
        // ldmatrix.x4: 8 consecutive elements a lane, 16 bytes.
        SharedReport l = shared_report(part_accesses(o.s2r.partition_S(o.tile), 128, 8, 2, sw));
        EXPECT_EQ(l.total.excess(), 0) << what;
        // cp.async's 16-byte reads of the global tile (leading dimension 4096).
        Layout const g = kmajor ? make_layout(make_shape(128, bk), make_stride(4096, 1))
                                : make_layout(make_shape(128, bk), make_stride(1, 4096));
        GlobalReport gr = global_report(part_accesses(o.g2s.partition_S(g), 128, 8, 2, identity));
        EXPECT_EQ(gr.total.sectors, gr.total.sectors_ideal) << what;
      }
}

// ---------------------------------------------------------------------------------------------
// sm90 (kernels/sm90/epilogue.cuh, EpilogueConfig and store_d_tma): one consumer warpgroup's 64 x BN
// accumulators go out in 64-row x 128-byte sub-tiles: the box is the K-major 128-byte GMMA atom
// tiled to (64, 128 / sizeof(T)) under its swizzle; the view (64,(COLS,SUB)):(COLS,(1,0)) puts
// sub-tile j's columns on the buffer, and partition_C of the warpgroup's m64nBNk16 atom places each
// accumulator; each thread stores accumulators (2q, 2q+1) of a sub-tile as one pair (4 bytes for
// bf16/f16, 8 for f32), a warp instruction per q.
// ---------------------------------------------------------------------------------------------

namespace {
SharedReport sm90_epilogue(int elem_bytes, int bn) {
  int const cols = 128 / elem_bytes, subtiles = bn / cols, values = cols / 2;
  SwizzleLayout const box = tile_to_shape(gmma_atom(GmmaMajor::kK, GmmaSwizzle::k128B, elem_bytes * 8), make_shape(64, cols));
  Layout const view = make_layout(make_shape(64, make_shape(cols, subtiles)), make_stride(cols, make_stride(1, 0)));
  TiledMMA const mma = make_tiled_mma(mma_atom_sm90_64xNx16(bn));
  TiledMMA::Partition const p = mma.partition_C(view);
  // The sub-tile view repeats per sub-tile; the accumulators are numbered in partition_C order.
  EXPECT_EQ(size(p.layout).v, bn / 2);
  TvAccesses a = part_accesses(p, 128, 2, elem_bytes, [&](i64 x) { return box.swizzle(x); });
  EXPECT_EQ(a.instrs, i64(subtiles) * values / 2);
  return shared_report(a);
}
}  // namespace

TEST(KernelAccess, Sm90EpilogueSharedStores) {
  for (int bn : {64, 128, 192, 256}) {
    // bf16/f16 output: a warp instruction writes 8 rows (lane / 4) x 16 bytes (lane % 4 pairs), the
    // 8 rows' 16-byte chunks XORed with row % 8 by the 128-byte swizzle: 8 distinct chunks, 32
    // banks: one wavefront, conflict-free.
    SharedReport h = sm90_epilogue(2, bn);
    EXPECT_EQ(h.total.excess(), 0) << bn;
    EXPECT_EQ(h.total.wavefronts, h.total.ideal) << bn;
    // f32 output: 8-byte pairs, two half-warp phases of 4 rows x 32 bytes; the swizzle's XOR with
    // row % 8 maps rows 0,1 (and 2,3) onto the same two 16-byte chunks, so each phase is 2-way:
    // 4 wavefronts an instruction against 2. Pinned so that a change shows; the model's prediction,
    // until Nsight Compute confirms it (tests/bank_conflicts/).
    SharedReport f = sm90_epilogue(4, bn);
    EXPECT_EQ(f.total.wavefronts, 2 * f.total.ideal) << bn;
  }
}

TEST(KernelAccess, Sm90TmaBoxRows) {
  // The TMA boxes (OperandConfig::kBox and EpilogueConfig::kBox): every box row is one 128-byte
  // swizzle row, 64 bf16 of K (K-major operand) or of MN (MN-major), 32 floats of the epilogue. In
  // global memory a row is one 128-byte line, whole sectors: what TMA fetches is all used.
  for (int bits : {16, 32}) {
    SwizzleLayout const atom = gmma_atom(GmmaMajor::kK, GmmaSwizzle::k128B, bits);
    i64 const row_elems = size(get(atom.layout, 1)).v;
    EXPECT_EQ(row_elems * bits / 8, 128);
    // 8 lanes of 16 bytes read one row of a row-major global tile, leading dimension 4096.
    std::vector<i64> a(32, kInactiveLane);
    for (int l = 0; l < 8; ++l) a[size_t(l)] = 16 * l;
    GlobalCost c = global_access_cost(a, 16);
    EXPECT_EQ(c.sectors, 4);
    EXPECT_EQ(c.lines, 1);
  }
}
