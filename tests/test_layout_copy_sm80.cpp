// SM80 copy atoms and MMA-shaped copies: ldmatrix and cp.async atoms, upcast, the TV layouts of a
// TiledMMA, make_tiled_copy_A/B/C, retile, and the swizzled shared-memory layouts the sm80 GEMM
// uses. The expectations are written out independently of the layout algebra: the ldmatrix
// fragment rules of the PTX ISA, the m16n8k16 operand fragments, and bank arithmetic.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "layout/copy.hpp"
#include "layout/mma.hpp"
#include "layout/swizzle.hpp"
#include "layout_test_util.hpp"

namespace {

using namespace loom;
using loomtest::L;
using loomtest::S;
using loomtest::str;

// ---------------------------------------------------------------------------------------------
// upcast
// ---------------------------------------------------------------------------------------------

TEST(CopySm80, UpcastDividesStridesAndTheUnitMode) {
  // CuTe's SM75_U32x4_LDSM_N destination, bits -> 16-bit elements.
  EXPECT_EQ(str(upcast(L(S(32, S(32, 4)), S(32, S(1, 1024))), 16)), "(32,(2,4)):(2,(1,64))");
  // A stride-0 mode is left alone; a unit mode narrower than an element collapses to 1.
  EXPECT_EQ(str(upcast(L(S(S(8, 4), 128), S(S(128, 0), 1)), 16)), "((8,4),8):((8,0),1)");
  EXPECT_EQ(str(upcast(L(S(16, 2), S(1, 128)), 16)), "(1,2):(1,8)");
  // Dynamic strides are divided.
  Layout d = upcast(make_layout(make_shape(4, 8), make_stride(1, dyn(64))), 2);
  EXPECT_EQ(value(get(d.stride, 1)), 32);
  EXPECT_EQ(value(get(d.shape, 0)), 2);
}

// ---------------------------------------------------------------------------------------------
// ldmatrix atoms against the PTX ISA
// ---------------------------------------------------------------------------------------------

// PTX ISA, ldmatrix (.m8n8, 16-bit elements): matrix i's row r is read from the address that thread
// 8i + r supplies. Without .trans, thread t receives elements 2(t%4) and 2(t%4)+1 of row t/4 of
// each matrix, one 32-bit register per matrix; with .trans it receives column t/4, rows 2(t%4) and
// 2(t%4)+1. Returns the (row-supplying thread, element within that row) of register element
// (t, v0) of matrix i.
std::pair<int, int> ptx_ldmatrix_source(int t, int v0, int i, bool trans) {
  if (!trans) return {8 * i + t / 4, 2 * (t % 4) + v0};
  return {8 * i + 2 * (t % 4) + v0, t / 4};
}

TEST(CopySm80, LdmatrixAtomsMatchThePtxFragments) {
  for (int matrices : {1, 2, 4})
    for (bool trans : {false, true}) {
      SCOPED_TRACE(testing::Message() << "x" << matrices << (trans ? ".trans" : ""));
      CopyAtom a = copy_atom_ldsm(matrices, trans);
      EXPECT_EQ(a.num_thr, 32);
      EXPECT_EQ(a.num_val, 2 * matrices);
      EXPECT_EQ(a.op, trans ? CopyOp::kLdsmTrans : CopyOp::kLdsm);
      EXPECT_EQ(a.val_bits, 16);
      ASSERT_EQ(loomtest::sz(get(a.src_tv, 1)), 8);  // one 16-byte row per address
      // Each atom-local element, as src_tv places it: which row (thread) and which element of it.
      std::map<i64, std::pair<int, int>> where;
      for (int s = 0; s < 32; ++s)
        for (int j = 0; j < 8; ++j)
          if (s < 8 * matrices) where[a.src_tv(s, j)] = {s, j};
      ASSERT_EQ(where.size(), size_t(64 * matrices));
      for (int t = 0; t < 32; ++t)
        for (int i = 0; i < matrices; ++i)
          for (int v0 = 0; v0 < 2; ++v0) {
            i64 e = a.dst_tv(make_coord(t, v0 + 2 * i));
            ASSERT_TRUE(where.count(e)) << "thread " << t << " value " << v0 + 2 * i;
            EXPECT_EQ(where[e], ptx_ldmatrix_source(t, v0, i, trans)) << "thread " << t << " matrix " << i << " v" << v0;
          }
      // Threads past the 8*matrices that supply rows alias them (their addresses are ignored).
      for (int s = 8 * matrices; s < 32; ++s) EXPECT_EQ(a.src_tv(s, 0), a.src_tv(s % (8 * matrices), 0));
    }
}

TEST(CopySm80, CpAsyncAtoms) {
  for (int bytes : {4, 8, 16}) {
    CopyAtom a = copy_atom_cp_async(bytes);
    EXPECT_EQ(a.num_thr, 1);
    EXPECT_EQ(a.num_val, bytes / 2);
    EXPECT_EQ(a.op, bytes == 16 ? CopyOp::kCpAsyncCg : CopyOp::kCpAsyncCa);
    EXPECT_EQ(str(a.dst_tv), "(1," + std::to_string(bytes / 2) + "):(0,1)");
  }
  EXPECT_EQ(copy_atom_cp_async(16, 32).num_val, 4);
  EXPECT_THROW(copy_atom_cp_async(2), LayoutError);
  EXPECT_THROW(copy_atom_ldsm(3, false), LayoutError);
  EXPECT_THROW(copy_atom_ldsm(4, true, 32), LayoutError);
}

// ---------------------------------------------------------------------------------------------
// TiledMMA TV layouts and MMA-shaped copies
// ---------------------------------------------------------------------------------------------

TiledMMA single_atom() { return make_tiled_mma(mma_atom_sm80_16x8x16()); }
// The sm80 GEMM's TiledMMA: 2x4 warps, each a contiguous 64x64 block of a 128x256 tile.
TiledMMA warps_2x4() {
  return make_tiled_mma(mma_atom_sm80_16x8x16(), make_layout(make_shape(2, 4, 1)),
                        make_tile(make_layout(make_shape(16, 2, 4), make_stride(1, 64, 16)),
                                  make_layout(make_shape(8, 4, 8), make_stride(1, 64, 8)), 16));
}

TEST(CopySm80, TvLayoutsOfOneAtomAreTheAtoms) {
  TiledMMA m = single_atom();
  MMAAtom a = mma_atom_sm80_16x8x16();
  for (int t = 0; t < 32; ++t) {
    for (int v = 0; v < 8; ++v) EXPECT_EQ(m.get_layoutA_TV()(make_coord(t, v)), a.a_tv(make_coord(t, v)));
    for (int v = 0; v < 4; ++v) {
      EXPECT_EQ(m.get_layoutB_TV()(make_coord(t, v)), a.b_tv(make_coord(t, v)));
      EXPECT_EQ(m.get_layoutC_TV()(make_coord(t, v)), a.c_tv(make_coord(t, v)));
    }
  }
}

// Each thread's (m,k) elements of one 16x16 A atom, (n,k) of an 8x16 B atom, (m,n) of a 16x8 C atom,
// per the PTX ISA's m16n8k16 fragment figures for 16-bit A/B and 32-bit C.
std::set<std::pair<int, int>> ptx_a(int lane) {
  std::set<std::pair<int, int>> r;
  for (int i = 0; i < 8; ++i) r.insert({lane / 4 + 8 * (i / 2 % 2), 2 * (lane % 4) + i % 2 + 8 * (i / 4)});
  return r;
}
std::set<std::pair<int, int>> ptx_b(int lane) {
  std::set<std::pair<int, int>> r;
  for (int i = 0; i < 4; ++i) r.insert({lane / 4, 2 * (lane % 4) + i % 2 + 8 * (i / 2)});
  return r;
}

TEST(CopySm80, TiledMmaTvLayoutsFollowThePermutation) {
  TiledMMA m = warps_2x4();
  Layout a = m.get_layoutA_TV(), b = m.get_layoutB_TV(), c = m.get_layoutC_TV();
  ASSERT_EQ(loomtest::sz(get(a, 0)), 256);
  ASSERT_EQ(loomtest::sz(get(a, 1)), 32);  // 4 atoms of 8 values along M per warp
  ASSERT_EQ(loomtest::sz(get(b, 1)), 32);  // 8 atoms of 4 values along N
  ASSERT_EQ(loomtest::sz(get(c, 1)), 128);
  for (int t = 0; t < 256; ++t) {
    int lane = t % 32, wm = t / 32 % 2, wn = t / 64;
    // Warp (wm, wn) owns rows [64wm, 64wm+64) and columns [64wn, 64wn+64), as 4 x 8 atoms.
    std::set<std::pair<int, int>> got_a, want_a, got_b, want_b;
    for (int v = 0; v < 32; ++v) {
      i64 e = a(make_coord(t, v));
      got_a.insert({int(e % 128), int(e / 128)});
    }
    for (int r = 0; r < 4; ++r)
      for (auto [mm, k] : ptx_a(lane)) want_a.insert({64 * wm + 16 * r + mm, k});
    EXPECT_EQ(got_a, want_a) << "thread " << t;
    for (int v = 0; v < 32; ++v) {
      i64 e = b(make_coord(t, v));
      got_b.insert({int(e % 256), int(e / 256)});
    }
    for (int r = 0; r < 8; ++r)
      for (auto [n, k] : ptx_b(lane)) want_b.insert({64 * wn + 8 * r + n, k});
    EXPECT_EQ(got_b, want_b) << "thread " << t;
    for (int v = 0; v < 128; ++v) {
      i64 e = c(make_coord(t, v));
      int mm = int(e % 128), n = int(e / 128);
      EXPECT_EQ(mm / 64, wm);
      EXPECT_EQ(n / 64, wn);
      EXPECT_EQ(mm % 8, lane / 4);
      EXPECT_EQ(n % 8 / 2, lane % 4);
    }
  }
}

// make_tiled_copy_A/B with an ldmatrix atom: every thread's destination elements of a tile are the
// elements partition_A/B gives it, and retile() lines the register fragment up with the copy:
// destination value i of the copy is fragment element retile(i).
void expect_copy_delivers_fragments(TiledMMA const& mma, bool is_a, bool trans, Layout const& tile) {
  TiledCopy cp = is_a ? make_tiled_copy_A(copy_atom_ldsm(4, trans), mma) : make_tiled_copy_B(copy_atom_ldsm(4, trans), mma);
  TiledMMA::Partition frag = is_a ? mma.partition_A(tile) : mma.partition_B(tile);
  TiledCopy::Partition dst = cp.partition_D(tile);
  Layout regs = make_layout(shape(frag.layout));  // the register fragment: compact, in the MMA's order
  Layout view = cp.retile(regs);
  ASSERT_EQ(loomtest::sz(view), loomtest::sz(regs));
  ASSERT_EQ(loomtest::sz(dst.layout), loomtest::sz(regs));
  for (int t = 0; t < int(mma.size()); ++t) {
    std::vector<i64> from_copy, from_mma;
    for (i64 i = 0; i < loomtest::sz(dst.layout); ++i) {
      from_copy.push_back(dst.offset(t) + dst.layout(i));
      from_mma.push_back(frag.offset(t) + frag.layout(i));
    }
    EXPECT_EQ(loomtest::sorted(from_copy), loomtest::sorted(from_mma)) << "thread " << t;
    for (i64 i = 0; i < loomtest::sz(view); ++i)
      ASSERT_EQ(dst.offset(t) + dst.layout(i), frag.offset(t) + frag.layout(view(i))) << "thread " << t << " value " << i;
  }
}

TEST(CopySm80, TiledCopyAOfOneAtomDeliversPartitionA) {
  TiledMMA m = single_atom();
  for (bool trans : {false, true}) {
    expect_copy_delivers_fragments(m, true, trans, make_layout(make_shape(16, 16)));
    expect_copy_delivers_fragments(m, true, trans, make_layout(make_shape(64, 32), LayoutRight{}));
  }
}

TEST(CopySm80, TiledCopyAAndBOverWarpsDeliverPartitions) {
  TiledMMA m = warps_2x4();
  for (bool trans : {false, true}) {
    expect_copy_delivers_fragments(m, true, trans, make_layout(make_shape(128, 16)));
    expect_copy_delivers_fragments(m, true, trans, make_layout(make_shape(128, 32), LayoutRight{}));
    expect_copy_delivers_fragments(m, false, trans, make_layout(make_shape(256, 16)));
    expect_copy_delivers_fragments(m, false, trans, make_layout(make_shape(256, 32), LayoutRight{}));
  }
}

// The source side: every thread reads whole 16-byte rows (8 consecutive elements of the operand's
// contiguous mode), and the rows of one ldmatrix are the 16x16 block of A (or 16x16 of two B atoms)
// that the destination side fills.
TEST(CopySm80, LdmatrixSourceRowsAreContiguous) {
  TiledMMA m = warps_2x4();
  for (bool k_major : {true, false}) {
    Layout tile = k_major ? make_layout(make_shape(128, 32), LayoutRight{}) : make_layout(make_shape(128, 32));
    TiledCopy cp = make_tiled_copy_A(copy_atom_ldsm(4, !k_major), m);
    TiledCopy::Partition src = cp.partition_S(tile);
    for (int t = 0; t < 256; ++t)
      for (i64 r = 0; r < loomtest::sz(src.layout) / 8; ++r)
        for (int j = 0; j < 8; ++j) EXPECT_EQ(src.layout(8 * r + j), src.layout(8 * r) + j);
    // Source and destination cover the same elements, each once per N-thread.
    std::map<i64, int> s, d;
    TiledCopy::Partition dst = cp.partition_D(tile);
    for (int t = 0; t < 256; ++t)
      for (i64 i = 0; i < loomtest::sz(src.layout); ++i) ++s[src.offset(t) + src.layout(i)], ++d[dst.offset(t) + dst.layout(i)];
    EXPECT_EQ(s, d);
    EXPECT_EQ(s.size(), size_t(128 * 32));
    for (auto [e, n] : s) EXPECT_EQ(n, 4) << e;  // the 4 warps along N load the same A
  }
}

TEST(CopySm80, CopyTvLayoutsOfAnMmaCopy) {
  TiledMMA m = single_atom();
  TiledCopy cp = make_tiled_copy_A(copy_atom_ldsm(4, false), m);
  // Destination side: the MMA's own A layout. Source side: thread s reads row s%16, k 8*(s/16)..+7.
  for (int t = 0; t < 32; ++t)
    for (int v = 0; v < 8; ++v) {
      EXPECT_EQ(cp.get_layoutD_TV()(make_coord(t, v)), m.get_layoutA_TV()(make_coord(t, v)));
      EXPECT_EQ(cp.get_layoutS_TV()(make_coord(t, v)), (t % 16) + 16 * (8 * (t / 16) + v));
    }
  EXPECT_THROW(make_tiled_copy_tv(copy_atom_ldsm(4, false), make_layout(make_shape(16, 4)), make_shape(8, 8)), LayoutError);
}

// ---------------------------------------------------------------------------------------------
// Swizzled shared memory: no bank conflicts
// ---------------------------------------------------------------------------------------------

// 16-byte accesses by 32 threads go in 4 phases of 8; a phase is conflict-free when its 8 addresses
// fall in 8 different 16-byte groups of the 32 banks. Returns the number of extra wavefronts.
int conflicts(TiledCopy::Partition const& p, Swizzle sw, int threads, int elem_bytes = 2) {
  int extra = 0;
  int vec = 16 / elem_bytes;
  for (i64 r = 0; r < loomtest::sz(p.layout) / vec; ++r)
    for (int phase = 0; phase < threads / 8; ++phase) {
      std::set<i64> groups;
      for (int t = 8 * phase; t < 8 * phase + 8; ++t) {
        i64 byte = sw(p.offset(t) + p.layout(vec * r)) * elem_bytes;
        EXPECT_EQ(byte % 16, 0);
        groups.insert(byte / 16 % 8);
      }
      extra += 8 - int(groups.size());
    }
  return extra;
}

struct SmemCase {
  bool k_major;
  int mn, bk;
};
Swizzle smem_swizzle(SmemCase c) { return make_swizzle(c.k_major && c.bk == 32 ? 2 : 3, 3, 3); }
Layout smem_layout(SmemCase c) {
  return c.k_major ? make_layout(make_shape(c.mn, c.bk), LayoutRight{})
                   : blocked_product(make_layout(make_shape(64, 8)), make_layout(make_shape(c.mn / 64, c.bk / 8)));
}

TEST(CopySm80, SwizzledTilesAreConflictFreeForLdmatrixAndCpAsync) {
  TiledMMA m = warps_2x4();
  for (SmemCase c : {SmemCase{true, 128, 32}, SmemCase{true, 256, 32}, SmemCase{true, 128, 64},
                     SmemCase{true, 256, 64}, SmemCase{false, 128, 32}, SmemCase{false, 256, 32},
                     SmemCase{false, 128, 64}, SmemCase{false, 256, 64}}) {
    SCOPED_TRACE(testing::Message() << (c.k_major ? "k-major " : "mn-major ") << c.mn << "x" << c.bk);
    Layout s = smem_layout(c);
    Swizzle sw = smem_swizzle(c);
    // The swizzle permutes each period of the tile.
    std::set<i64> image;
    for (i64 i = 0; i < c.mn * c.bk; ++i) image.insert(sw(s(i)));
    EXPECT_EQ(image.size(), size_t(c.mn * c.bk));
    EXPECT_EQ(*image.rbegin(), c.mn * c.bk - 1);

    bool is_a = c.mn == 128;
    TiledCopy ld = is_a ? make_tiled_copy_A(copy_atom_ldsm(4, !c.k_major), m) : make_tiled_copy_B(copy_atom_ldsm(4, !c.k_major), m);
    EXPECT_EQ(conflicts(ld.partition_S(s), sw, 256), 0);
    EXPECT_GT(conflicts(ld.partition_S(s), Swizzle{}, 256), 0);  // the check does see conflicts

    TiledCopy st = c.k_major ? make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(256 / (c.bk / 8), c.bk / 8), LayoutRight{}),
                                               make_layout(make_shape(1, 8)))
                             : make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(c.mn / 8, 256 / (c.mn / 8))),
                                               make_layout(make_shape(8, 1)));
    EXPECT_EQ(conflicts(st.partition_D(s), sw, 256), 0);
  }
}

}  // namespace
