// SM90 TMA on the host (layout/tma.hpp): the cuTensorMapEncodeTiled arguments derived from the
// global tensor, the shared stage layout (gmma.hpp's atoms through tile_to_shape) and the CTA tile;
// every rejected case with its message; box coordinates against local_tile of identity tensors and
// layouts; multicast slices and masks against examples written out by hand; tma_partition against
// CuTe 4.7.0's output.
//
// Expected descriptors are written out from the driver API's rules (dimension 0 innermost,
// globalStrides in bytes for dimensions 1.., boxDim per dimension, swizzle span) applied by hand to
// each case, not computed by the code under test.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "layout/print.hpp"
#include "layout/tensor.hpp"
#include "layout/tma.hpp"
#include "layout_test_util.hpp"

namespace {

using namespace loom;

using loomtest::expect_rejects;

struct Want {
  int rank;
  unsigned long long dim[5];
  unsigned long long stride_bytes[5];
  unsigned box[5];
  int mode_of_dim[5];
  int swizzle_bytes;
  int elem_bytes;
};

void expect_desc(TmaDesc const& d, Want const& w) {
  ASSERT_EQ(d.rank, w.rank);
  EXPECT_EQ(d.swizzle_bytes, w.swizzle_bytes);
  EXPECT_EQ(d.elem_bytes, w.elem_bytes);
  long long box_elems = 1;
  for (int i = 0; i < w.rank; ++i) {
    EXPECT_EQ(d.global_dim[i], w.dim[i]) << "dim " << i;
    EXPECT_EQ(d.global_stride_bytes[i], w.stride_bytes[i]) << "dim " << i;
    EXPECT_EQ(d.box_dim[i], w.box[i]) << "dim " << i;
    EXPECT_EQ(d.mode_of_dim[i], w.mode_of_dim[i]) << "dim " << i;
    EXPECT_EQ(d.element_strides[i], 1u) << "dim " << i;
    box_elems *= w.box[i];
  }
  EXPECT_EQ(d.box_bytes(), box_elems * w.elem_bytes);
}

constexpr IntTuple S(i64 a, i64 b) { return make_shape(a, b); }

// ---------------------------------------------------------------------------------------------
// Descriptors
// ---------------------------------------------------------------------------------------------

// A (M,K) = (512,1024) bf16, K-major (row-major, ld 1024); the 128x64 stage tile of the K-major
// 128-byte atom. TMA dimension 0 is K (64 elements = 128 bytes = the swizzle), dimension 1 is M.
TEST(TmaDesc, Bf16KMajorSw128_128x64) {
  SwizzleLayout const smem = tile_to_shape(gmma_atom_k_sw128(16), S(128, 64));
  TmaDesc const d = make_tma_desc(S(512, 1024), S(1024, 1), 2, smem, S(128, 64));
  expect_desc(d, {2, {1024, 512}, {2, 2048}, {64, 128}, {1, 0}, 128, 2});
  EXPECT_EQ(d.box_bytes(), 16384);
  EXPECT_EQ(d.swizzle_enum(), 3);
}

TEST(TmaDesc, Bf16KMajorSw128_256x64) {
  SwizzleLayout const smem = tile_to_shape(gmma_atom_k_sw128(16), S(256, 64));
  TmaDesc const d = make_tma_desc(S(4096, 4096), S(4096, 1), 2, smem, S(256, 64));
  expect_desc(d, {2, {4096, 4096}, {2, 8192}, {64, 256}, {1, 0}, 128, 2});
  EXPECT_EQ(d.box_bytes(), 32768);
}

// MN-major: A (M,K) = (256,512) column-major (ld 256), M contiguous: dimension 0 is M.
TEST(TmaDesc, Bf16MNMajorSw128_64x64) {
  SwizzleLayout const smem = tile_to_shape(gmma_atom_mn_sw128(16), S(64, 64));
  TmaDesc const d = make_tma_desc(S(256, 512), S(1, 256), 2, smem, S(64, 64));
  expect_desc(d, {2, {256, 512}, {2, 512}, {64, 64}, {0, 1}, 128, 2});
}

TEST(TmaDesc, Fp32Cases) {
  // K-major SW128: 32 fp32 = 128 bytes of K.
  TmaDesc const a = make_tma_desc(S(1000, 64), S(64, 1), 4, tile_to_shape(gmma_atom_k_sw128(32), S(128, 32)), S(128, 32));
  expect_desc(a, {2, {64, 1000}, {4, 256}, {32, 128}, {1, 0}, 128, 4});
  // K-major SW64: 16 fp32 = 64 bytes.
  TmaDesc const b = make_tma_desc(S(64, 48), S(48, 1), 4, tile_to_shape(gmma_atom_k_sw64(32), S(64, 16)), S(64, 16));
  expect_desc(b, {2, {48, 64}, {4, 192}, {16, 64}, {1, 0}, 64, 4});
  // MN-major SW128 32x32, and SW32 8x16 (8 fp32 = 32 bytes of MN).
  TmaDesc const c = make_tma_desc(S(96, 40), S(1, 96), 4, tile_to_shape(gmma_atom_mn_sw128(32), S(32, 32)), S(32, 32));
  expect_desc(c, {2, {96, 40}, {4, 384}, {32, 32}, {0, 1}, 128, 4});
  TmaDesc const e = make_tma_desc(S(96, 40), S(1, 96), 4, tile_to_shape(gmma_atom_mn_sw32(32), S(8, 16)), S(8, 16));
  expect_desc(e, {2, {96, 40}, {4, 384}, {8, 16}, {0, 1}, 32, 4});
  EXPECT_EQ(e.swizzle_enum(), 1);
}

// No swizzle: a plain row-major (16,32) bf16 tile (64-byte rows).
TEST(TmaDesc, Unswizzled) {
  Layout const smem = make_layout(S(16, 32), S(32, 1));
  TmaDesc const d = make_tma_desc(S(64, 32), S(32, 1), 2, smem, S(16, 32));
  expect_desc(d, {2, {32, 64}, {2, 64}, {32, 16}, {1, 0}, 0, 2});
  EXPECT_EQ(d.swizzle_enum(), 0);
}

// Pipeline stages as a third smem mode, and a batch mode in the global tensor (box 1).
TEST(TmaDesc, StagesAndBatch) {
  SwizzleLayout const smem = tile_to_shape(gmma_atom_k_sw128(16), make_shape(128, 64, 4));
  TmaDesc const d = make_tma_desc(make_shape(512, 1024, 3), make_shape(1024, 1, 512 * 1024), 2, smem, S(128, 64));
  expect_desc(d, {3, {1024, 512, 3}, {2, 2048, 1048576}, {64, 128, 1}, {1, 0, 2}, 128, 2});
}

// The descriptor is a constant expression, like the rest of layout/.
constexpr TmaDesc kDesc = make_tma_desc(S(512, 1024), S(1024, 1), 2, tile_to_shape(gmma_atom_k_sw128(16), S(128, 64)), S(128, 64));
static_assert(kDesc.box_dim[0] == 64 && kDesc.box_dim[1] == 128 && kDesc.swizzle_bytes == 128);
static_assert(kDesc.global_stride_bytes[1] == 2048 && kDesc.mode_of_dim[0] == 1);

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

TEST(TmaDesc, Errors) {
  SwizzleLayout const k128 = tile_to_shape(gmma_atom_k_sw128(16), S(128, 64));
  expect_rejects([&] { make_tma_desc(S(1024, 1024), S(1024, 1), 2, tile_to_shape(gmma_atom_k_sw128(16), S(512, 64)), S(512, 64)); },
                 "tma: a box dimension is over 256");
  // 64 bf16 = 128 bytes of K under a 64-byte swizzle; and 128 bf16 under the 128-byte one.
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(1024, 1), 2, tile_to_shape(gmma_atom_k_sw64(16), S(64, 64)), S(64, 64)); },
                 "tma: the inner box is wider than the swizzle");
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(1024, 1), 2, tile_to_shape(gmma_atom_k_sw128(16), S(128, 128)), S(128, 128)); },
                 "tma: the inner box is wider than the swizzle");
  // 4 bf16 = 8 bytes.
  expect_rejects([&] { make_tma_desc(S(64, 64), S(64, 1), 2, make_layout(S(8, 4), S(4, 1)), S(8, 4)); },
                 "tma: the inner box is not a multiple of 16 bytes");
  // ld 1001 bf16 = 2002 bytes.
  expect_rejects([&] { make_tma_desc(S(512, 1001), S(1001, 1), 2, k128, S(128, 64)); },
                 "tma: a global stride is not a positive multiple of 16 bytes");
  expect_rejects([&] { make_tma_desc(make_shape(2, 2, 2, 2, 2, 64), make_shape(64, 128, 256, 512, 1024, 1), 2, k128, S(128, 64)); },
                 "tma: the global tensor has more than 5 modes");
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(2048, 2), 2, k128, S(128, 64)); },
                 "tma: no global mode has stride 1");
  // K-major no-swizzle atoms tiled: core matrices, not one row-major box.
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(1024, 1), 2, tile_to_shape(gmma_atom_k_inter(16), S(64, 32)), S(64, 32)); },
                 "tma: the smem tile is not box-compatible");
  // An MN-major stage for a K-major global tensor.
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(1024, 1), 2, tile_to_shape(gmma_atom_mn_sw128(16), S(64, 64)), S(64, 64)); },
                 "tma: the smem tile is not box-compatible");
  // CuTe's byte-address form of the swizzle (Swizzle<3,4,3>) is not Loom's element-offset form.
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(1024, 1), 2, SwizzleLayout{make_swizzle(3, 4, 3), 0, k128.layout}, S(128, 64)); },
                 "tma: the smem swizzle is not a TMA swizzle");
  // Stages 8256 elements (16512 bytes) apart: not on a 1024-byte repeat.
  SwizzleLayout const bad_stage{make_swizzle(3, 3, 3), 0, make_layout(make_shape(128, 64, 2), make_shape(64, 1, 8256))};
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(1024, 1), 2, bad_stage, S(128, 64)); },
                 "tma: a smem stage does not start on a whole swizzle repeat");
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(1024, 1), 2, k128, S(128, 32)); },
                 "tma: the smem tile's extents are not the CTA tile's");
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(1024, 1), 3, k128, S(128, 64)); },
                 "tma: the element width must be");
  expect_rejects([&] { make_tma_desc(S((i64(1) << 32) + 1, 1024), S(1024, 1), 2, k128, S(128, 64)); },
                 "tma: a global extent is not in 1..2^32");
  expect_rejects([&] { make_tma_desc(S(512, 1024), S(i64(1) << 39, 1), 2, k128, S(128, 64)); },
                 "tma: a global stride is 2^40 bytes or more");
  expect_rejects([&] { make_tma_desc(make_shape(512, 1024, 8), make_shape(8192, 8, 1), 2, k128, S(128, 64)); },
                 "tma: the contiguous global mode is not a mode of the CTA tile");
}

// ---------------------------------------------------------------------------------------------
// Box coordinates: the same algebra as local_tile of an identity tensor
// ---------------------------------------------------------------------------------------------

constexpr Tile kCta = make_tile(128, 64);

TEST(TmaCoords, EqualLocalTileOfIdentity) {
  TmaDesc const d = make_tma_desc(S(512, 1024), S(1024, 1), 2, tile_to_shape(gmma_atom_k_sw128(16), S(128, 64)), S(128, 64));
  auto const cA = make_identity_tensor(Coord<2>{{512, 1024}});
  Layout const id = make_layout(S(512, 1024), make_stride(basis(0), basis(1)));
  for (int m = 0; m < 4; ++m)
    for (int k = 0; k < 16; ++k) {
      TmaCoord const c = tma_box_coords(d, make_coord(m, k));
      ASSERT_EQ(c.rank, 2);
      // TMA dimension 0 is K, dimension 1 is M.
      Coord<2> const first = local_tile<kCta>(cA, m, k).base;
      EXPECT_EQ(c.c[0], first[1]) << m << "," << k;
      EXPECT_EQ(c.c[1], first[0]) << m << "," << k;
      EXPECT_EQ(c.c[0], 64 * k);
      EXPECT_EQ(c.c[1], 128 * m);
    }
  // The plain layout: local_tile keeps (128,64):(1@0,1@1) and its offset is the tile's first
  // coordinate (one basis at a time: an offset is a single value).
  for (int m = 0; m < 4; ++m) {
    OffsetLayout const t = local_tile(id, kCta, make_coord(m, 0));
    EXPECT_EQ(to_string(t.layout), "(128,64):(1@0,1@1)");
    EXPECT_EQ(tma_box_coords(d, make_coord(m, 0)).c[1], t.offset);
  }
  for (int k = 0; k < 16; ++k)
    EXPECT_EQ(tma_box_coords(d, make_coord(0, k)).c[0], local_tile(id, kCta, make_coord(0, k)).offset);
}

TEST(TmaCoords, MNMajorAndBatch) {
  TmaDesc const mn = make_tma_desc(S(256, 512), S(1, 256), 2, tile_to_shape(gmma_atom_mn_sw128(16), S(64, 64)), S(64, 64));
  TmaCoord const c = tma_box_coords(mn, make_coord(3, 5));
  EXPECT_EQ(c.c[0], 192);  // M
  EXPECT_EQ(c.c[1], 320);  // K
  SwizzleLayout const smem = tile_to_shape(gmma_atom_k_sw128(16), make_shape(128, 64, 4));
  TmaDesc const b = make_tma_desc(make_shape(512, 1024, 3), make_shape(1024, 1, 512 * 1024), 2, smem, S(128, 64));
  TmaCoord const cb = tma_box_coords(b, make_coord(2, 7, 1));
  ASSERT_EQ(cb.rank, 3);
  EXPECT_EQ(cb.c[0], 448);  // K
  EXPECT_EQ(cb.c[1], 256);  // M
  EXPECT_EQ(cb.c[2], 1);    // batch
}

// Extents that the tile does not divide (the last tiles run past the edge; TMA zero-fills them):
// the coordinates are still the tiles' first elements.
TEST(TmaCoords, EdgeTiles) {
  TmaDesc const d = make_tma_desc(S(500, 1000), S(1000, 1), 2, tile_to_shape(gmma_atom_k_sw128(16), S(128, 64)), S(128, 64));
  EXPECT_EQ(d.global_dim[0], 1000u);
  EXPECT_EQ(d.global_dim[1], 500u);
  auto const cA = make_identity_tensor(Coord<2>{{500, 1000}});
  for (int m = 0; m < 4; ++m)
    for (int k = 0; k < 16; ++k) {
      TmaCoord const c = tma_box_coords(d, make_coord(m, k));
      Coord<2> const first = local_tile<kCta>(cA, m, k).base;
      EXPECT_EQ(c.c[0], first[1]);
      EXPECT_EQ(c.c[1], first[0]);
      EXPECT_EQ(c.c[1], 128 * m);
    }
}

// ---------------------------------------------------------------------------------------------
// Multicast
// ---------------------------------------------------------------------------------------------

TEST(TmaMulticast, Slices) {
  SwizzleLayout const smem = tile_to_shape(gmma_atom_k_sw128(16), S(128, 64));
  TmaDesc const d = make_tma_desc(S(512, 1024), S(1024, 1), 2, smem, S(128, 64));
  // Two CTAs: rows 0-63 and 64-127 of M (TMA dimension 1), 64 x 64 elements apart in smem.
  TmaSlice const s0 = tma_multicast_slice(d, 2, 0), s1 = tma_multicast_slice(d, 2, 1);
  EXPECT_EQ(s0.dim, 1);
  EXPECT_EQ(s0.box_dim[0], 64u);
  EXPECT_EQ(s0.box_dim[1], 64u);
  EXPECT_EQ(s0.coord_offset[1], 0);
  EXPECT_EQ(s0.smem_offset_elems, 0);
  EXPECT_EQ(s1.coord_offset[0], 0);
  EXPECT_EQ(s1.coord_offset[1], 64);
  EXPECT_EQ(s1.smem_offset_elems, 4096);
  // Four CTAs: 32 rows each; CTA 3 starts at row 96, element 6144 (12288 bytes, 12 repeats).
  TmaSlice const s3 = tma_multicast_slice(d, 4, 3);
  EXPECT_EQ(s3.box_dim[1], 32u);
  EXPECT_EQ(s3.coord_offset[1], 96);
  EXPECT_EQ(s3.smem_offset_elems, 6144);
  // Each slice's row-major image at its smem offset is that part of the stage tile.
  for (int r = 0; r < 4; ++r) {
    TmaSlice const s = tma_multicast_slice(d, 4, r);
    for (int j = 0; j < int(s.box_dim[1]); ++j)
      for (int k = 0; k < int(s.box_dim[0]); ++k)
        ASSERT_EQ(smem.swizzle(s.smem_offset_elems + j * 64 + k), smem(make_coord(s.coord_offset[1] + j, k)));
  }
  expect_rejects([&] { tma_multicast_slice(d, 3, 0); }, "tma multicast: the outer box extent is not a multiple of the CTA count");
  // 16 CTAs: 8 rows of 128 bytes = 1024 bytes, still whole repeats; 32 rows / 16 over a 64x32 box is not.
  EXPECT_EQ(tma_multicast_slice(d, 16, 15).smem_offset_elems, 15 * 8 * 64);
  TmaDesc const small = make_tma_desc(S(512, 1024), S(1024, 1), 2, tile_to_shape(gmma_atom_k_sw128(16), S(32, 64)), S(32, 64));
  expect_rejects([&] { tma_multicast_slice(small, 8, 1); }, "tma multicast: a slice does not start on a whole swizzle repeat");
}

TEST(TmaMulticast, Masks) {
  // Cluster (2,2), ranks column-major: (0,0)=0 (1,0)=1 (0,1)=2 (1,1)=3.
  // A's tile is shared along N (mode 1): CTAs of the same M row.
  EXPECT_EQ(tma_multicast_mask(S(2, 2), 0, 1), 0b0101);
  EXPECT_EQ(tma_multicast_mask(S(2, 2), 1, 1), 0b1010);
  EXPECT_EQ(tma_multicast_mask(S(2, 2), 2, 1), 0b0101);
  EXPECT_EQ(tma_multicast_mask(S(2, 2), 3, 1), 0b1010);
  // B's tile is shared along M (mode 0).
  EXPECT_EQ(tma_multicast_mask(S(2, 2), 0, 0), 0b0011);
  EXPECT_EQ(tma_multicast_mask(S(2, 2), 3, 0), 0b1100);
  // (4,2): rank 5 is (1,1); along M its column is ranks 4-7.
  EXPECT_EQ(tma_multicast_mask(S(4, 2), 5, 0), 0xF0);
  EXPECT_EQ(tma_multicast_mask(S(4, 2), 5, 1), 0b00100010);
  EXPECT_EQ(tma_multicast_mask(S(1, 4), 2, 1), 0xF);
  EXPECT_EQ(tma_multicast_mask(S(2, 1), 1, 1), 0b10);  // alone
  EXPECT_EQ(tma_multicast_mask(S(4, 4), 6, 1), 0x4444);
  expect_rejects([&] { tma_multicast_mask(S(4, 8), 0, 0); }, "tma multicast: a cluster has at most 16 CTAs");
}

// ---------------------------------------------------------------------------------------------
// tma_partition
// ---------------------------------------------------------------------------------------------
//
// Expected values are CuTe 4.7.0's (CUTLASS v4.7.0 headers, host-only g++). For the GMMA stages
// the oracle built the real atom (make_tma_atom on the same global tensor, smem stage and CTA tile;
// NumValSrc is what it gave) and ran cute::tma_partition on make_tensor(make_smem_ptr(..), stage)
// grouped to ((BM,BK),stages) and on local_tile of atom.get_tma_tensor grouped to ((BM,BK),k).
// For the other shapes the atom was a bulk copy of NumValSrc bf16 values (tma_partition reads only
// NumValSrc from the atom) over counting and ArithTuple iterators. CuTe's underscores are dropped;
// the smem offset is how far the pointer (or the ComposedLayout's offset) moved, in elements; the
// gmem offset is the ArithTuple base of the result minus that of the input.

std::string tp_str(SwizzleLayout const& s) {
  return "Sw<" + std::to_string(s.swizzle.bits) + "," + std::to_string(s.swizzle.base) + "," +
         std::to_string(s.swizzle.shift) + "> o " + std::to_string(s.offset) + " o " + to_string(s.layout);
}
std::string tp_str(Layout const& l, i64 off) { return to_string(l) + "@" + std::to_string(off); }
IntTuple E(int j, i64 v = 1) { return IntTuple(basis(j, v)); }

// A (BM,BK,stages) stage with the tile's two modes grouped: ((BM,BK),stages).
SwizzleLayout grouped_stage(SwizzleLayout const& atom, i64 bm, i64 bk, i64 stages) {
  SwizzleLayout const t = tile_to_shape(atom, make_shape(bm, bk, stages));
  return {t.swizzle, t.offset, group(t.layout, 0, 2)};
}
// The k tiles of a (BM,BK) CTA tile as CuTe's TMA tensor gives them: ((BM,BK),k):((m,k),BK*k).
Layout gmem_tiles(i64 bm, i64 bk, i64 tiles, IntTuple const& m, IntTuple const& k, IntTuple const& step) {
  return Layout{make_tuple(S(bm, bk), tiles), make_tuple(make_tuple(m, k), step)};
}

struct TpWant {
  char const* smem;
  char const* gmem;
  char const* gmem_offset;
};
void expect_tp(TmaPartition const& p, TpWant const& w) {
  EXPECT_EQ(tp_str(p.smem), w.smem);
  EXPECT_EQ(to_string(p.gmem), w.gmem);
  EXPECT_EQ(to_string(p.gmem_offset), w.gmem_offset);
}

// Whatever the partition, element (t, it) of the new mode 0 is one element of the old one in both
// tensors, so smem offsets and gmem coordinates stay paired as they were. The multicast moves both
// bases by the value at TMA index mc_index, so (t, it) is (t + mc_index, it) of the unmoved
// partition: the pairs hold for t + mc_index below the TMA mode's size. When smem's mode 0 is
// dense, the TMA mode walks smem offsets upwards one by one.
void expect_pairs_kept(TmaPartition const& p, i64 mc_index, SwizzleLayout const& smem, Layout const& gmem, bool dense) {
  using C = Coord<kTmaMaxRank>;
  Layout const s0 = get(smem.layout, 0), g0 = get(gmem, 0);
  std::map<i64, C> pair;
  for (i64 j = 0; j < size(s0).v; ++j) pair[smem.offset + s0(j)] = crd2idx_flat<C>(j, g0.shape, g0.stride);
  Layout const st = get(p.smem.layout, 0, 0), si = get(p.smem.layout, 0, 1);
  Layout const gt = get(p.gmem, 0, 0), gi = get(p.gmem, 0, 1);
  C gbase{};
  for (int j = 0; j < rank(p.gmem_offset); ++j) gbase[j] = value(get(p.gmem_offset, j));
  i64 const n = size(st).v;
  ASSERT_LT(mc_index, n);
  for (i64 it = 0; it < size(si).v; ++it)
    for (i64 t = 0; t + mc_index < n; ++t) {
      i64 const off = p.smem.offset + st(t) + si(it);
      C const g = gbase + crd2idx_flat<C>(t, gt.shape, gt.stride) + crd2idx_flat<C>(it, gi.shape, gi.stride);
      ASSERT_TRUE(pair.count(off)) << "(" << t << "," << it << "): smem offset " << off << " is not in the tile";
      ASSERT_TRUE(pair[off] == g) << "(" << t << "," << it << "): smem and gmem no longer pair up";
      if (dense && it == 0) {
        ASSERT_EQ(off, smem.offset + mc_index + t);
      }
    }
}

// K-major bf16 A (M,K) = (512,1024) row-major, CTA tile (128,64) from the 128-byte atom, 3 stages:
// one instruction (NumValSrc 8192) fills a stage; K (1@0) is TMA dimension 0.
TEST(TmaPartition, KMajorSw128) {
  SwizzleLayout const smem = grouped_stage(gmma_atom_k_sw128(16), 128, 64, 3);
  ASSERT_EQ(to_string(smem.layout), "(((8,16),(64,1)),(1,3)):(((64,512),(1,0)),(0,8192))");  // CuTe's too
  Layout const gmem = gmem_tiles(128, 64, 16, E(1), E(0), E(0, 64));
  TmaPartition const p = tma_partition(8192, 0, Layout{1, 0}, smem, gmem);
  expect_tp(p, {"Sw<3,3,3> o 0 o ((8192,1),(1,3)):((1,0),(0,8192))", "(((64,128),1),16):(((1@0,1@1),0),64@0)", "(0,0)"});
  expect_pairs_kept(p, 0, smem, gmem, true);
  // The (TMA, TMA_Iter) vector, as CuTe's logical_divide(layout_v, 8192:1) gives it.
  EXPECT_EQ(to_string(tma_partition_vector(8192, smem.layout)), "((64,128),1):((128,1),0)");
  EXPECT_EQ(to_string(tma_partition_vector(512, smem.layout)), "((64,8),16):((128,1),8)");
  // BK = 128 is two swizzle widths: NumValSrc stays 8192 (a (64,128) box), two instructions.
  SwizzleLayout const wide = grouped_stage(gmma_atom_k_sw128(16), 128, 128, 2);
  Layout const gwide = gmem_tiles(128, 128, 8, E(1), E(0), E(0, 128));
  TmaPartition const q = tma_partition(8192, 0, Layout{1, 0}, wide, gwide);
  expect_tp(q, {"Sw<3,3,3> o 0 o ((8192,2),(1,2)):((1,8192),(0,16384))", "(((64,128),2),8):(((1@0,1@1),64@0),128@0)", "(0,0)"});
  expect_pairs_kept(q, 0, wide, gwide, true);
  // A smaller instruction than the box (NumValSrc 512): 16 of them.
  TmaPartition const r = tma_partition(512, 0, Layout{1, 0}, smem, gmem);
  expect_tp(r, {"Sw<3,3,3> o 0 o ((512,16),(1,3)):((1,512),(0,8192))", "(((64,8),16),16):(((1@0,1@1),8@1),64@0)", "(0,0)"});
  expect_pairs_kept(r, 0, smem, gmem, true);
}

// MN-major bf16 A column-major (M contiguous, 1@0), tile (128,64), 3 stages: the box is (64,8)
// (NumValSrc 512: M is two swizzle widths), so 16 instructions per stage.
TEST(TmaPartition, MNMajorSw128) {
  SwizzleLayout const smem = grouped_stage(gmma_atom_mn_sw128(16), 128, 64, 3);
  ASSERT_EQ(to_string(smem.layout), "(((64,2),(8,8)),(1,3)):(((1,512),(64,1024)),(0,8192))");
  Layout const gmem = gmem_tiles(128, 64, 16, E(0), E(1), E(1, 64));
  TmaPartition const p = tma_partition(512, 0, Layout{1, 0}, smem, gmem);
  expect_tp(p, {"Sw<3,3,3> o 0 o ((512,16),(1,3)):((1,512),(0,8192))", "(((64,8),(2,8)),16):(((1@0,1@1),(64@0,8@1)),64@1)", "(0,0)"});
  expect_pairs_kept(p, 0, smem, gmem, true);
  EXPECT_EQ(to_string(tma_partition_vector(512, smem.layout)), "((64,8),(2,8)):((1,128),(64,1024))");
}

// B (N,K) = (256,1024) K-major, tile (128,64), 4 stages, multicast: NumValSrc is the whole box
// (8192) and CTA c starts at index c * 8192 / cosize(cta_layout) of the TMA mode; layouts unchanged.
TEST(TmaPartition, Multicast) {
  SwizzleLayout const smem = grouped_stage(gmma_atom_k_sw128(16), 128, 64, 4);
  Layout const gmem = gmem_tiles(128, 64, 16, E(1), E(0), E(0, 64));
  char const* sl = "((8192,1),(1,4)):((1,0),(0,8192))";
  char const* gl = "(((64,128),1),16):(((1@0,1@1),0),64@0)";
  auto sw = [&](i64 off) { return "Sw<3,3,3> o " + std::to_string(off) + " o " + sl; };
  struct Case {
    IntTuple coord;
    Layout cta;
    i64 index, smem_offset;
    char const* gmem_offset;
    bool whole_rows = true;
  };
  // cosize 3: 2 * (8192 / 3), truncated as in CuTe. 5460 is not a whole number of 64-wide rows,
  // and a coordinate base does not carry into the next row as an offset does: past (63,85) the
  // gmem partition of this CTA and its smem no longer pair up. (CuTe gives the same.)
  Case const cases[] = {
      {0, Layout{2, 1}, 0, 0, "(0,0)"},
      {1, Layout{2, 1}, 4096, 4096, "(0,64)"},  // the second half: rows 64..127 (1@1)
      {3, Layout{4, 1}, 6144, 6144, "(0,96)"},
      {1, Layout{2, 2}, 5460, 5460, "(20,85)", false},
      {1, Layout{2, 0}, 0, 0, "(0,0)"},  // cosize 1: every CTA at 0
  };
  for (Case const& c : cases) {
    SCOPED_TRACE(to_string(c.coord) + " in " + to_string(c.cta));
    EXPECT_EQ(tma_multicast_index(8192, c.coord, c.cta), c.index);
    TmaPartition const p = tma_partition(8192, c.coord, c.cta, smem, gmem);
    EXPECT_EQ(tp_str(p.smem), sw(c.smem_offset));
    EXPECT_EQ(to_string(p.gmem), gl);
    EXPECT_EQ(to_string(p.gmem_offset), c.gmem_offset);
    if (c.whole_rows) expect_pairs_kept(p, c.index, smem, gmem, true);
  }
  // A tuple coordinate in a 2-D CTA layout, and a smem layout that already has an offset (CuTe's
  // ComposedLayout offset 512, 3 stages): 512 + (1 + 2) * 8192 / 4.
  SwizzleLayout const s3 = grouped_stage(gmma_atom_k_sw128(16), 128, 64, 3);
  SwizzleLayout const s3o{s3.swizzle, 512, s3.layout};
  TmaPartition const p = tma_partition(8192, make_coord(1, 1), Layout{S(2, 2), S(1, 2)}, s3o, gmem);
  expect_tp(p, {"Sw<3,3,3> o 6656 o ((8192,1),(1,3)):((1,0),(0,8192))", gl, "(0,96)"});
  // Two instructions per stage (BK = 128): the offset is within the first one.
  SwizzleLayout const wide = grouped_stage(gmma_atom_k_sw128(16), 128, 128, 2);
  Layout const gwide = gmem_tiles(128, 128, 8, E(1), E(0), E(0, 128));
  TmaPartition const q = tma_partition(8192, 1, Layout{2, 1}, wide, gwide);
  expect_tp(q, {"Sw<3,3,3> o 4096 o ((8192,2),(1,2)):((1,8192),(0,16384))", "(((64,128),2),8):(((1@0,1@1),64@0),128@0)", "(0,64)"});
  expect_pairs_kept(q, 4096, wide, gwide, true);
  // NumValSrc 512 over 4 CTAs: 3 * 128.
  TmaPartition const r = tma_partition(512, 3, Layout{4, 1}, s3, gmem);
  expect_tp(r, {"Sw<3,3,3> o 384 o ((512,16),(1,3)):((1,512),(0,8192))", "(((64,8),16),16):(((1@0,1@1),8@1),64@0)", "(0,6)"});
  expect_pairs_kept(r, 384, s3, gmem, true);
}

// Layouts without a swizzle: a row-major fp32 tile (CuTe's make_tma_copy example), a padded tile
// (rows of 64 at a pitch of 72: the vector is 64 long), row-major rows, rank-1 tensors, and a gmem
// tensor of plain offsets.
TEST(TmaPartition, OtherLayouts) {
  Layout const none{1, 0};
  Layout const f32{make_tuple(S(64, 32), 2), make_tuple(S(32, 1), 2048)};
  Layout const gf32 = gmem_tiles(64, 32, 8, E(1), E(0), E(0, 32));
  TmaPartition p = tma_partition(2048, 0, none, f32, gf32);
  EXPECT_EQ(tp_str(p.smem.layout, p.smem.offset), "((2048,1),2):((1,0),2048)@0");
  EXPECT_EQ(p.smem.swizzle, Swizzle{});
  EXPECT_EQ(to_string(p.gmem), "(((32,64),1),8):(((1@0,1@1),0),32@0)");
  EXPECT_EQ(to_string(p.gmem_offset), "(0,0)");

  Layout const padded{make_tuple(S(64, 8), 2), make_tuple(S(1, 72), 1024)};
  Layout const gpad = gmem_tiles(64, 8, 4, E(0), E(1), E(1, 8));
  p = tma_partition(64, 0, none, padded, gpad);
  EXPECT_EQ(tp_str(p.smem.layout, p.smem.offset), "((64,8),2):((1,72),1024)@0");
  EXPECT_EQ(to_string(p.gmem), "((64,8),4):((1@0,1@1),8@1)");
  p = tma_partition(128, 1, Layout{2, 1}, padded, gpad);
  EXPECT_EQ(tp_str(p.smem.layout, p.smem.offset), "(((64,2),4),2):(((1,72),144),1024)@72");
  EXPECT_EQ(to_string(p.gmem), "(((64,2),4),4):(((1@0,1@1),2@1),8@1)");
  EXPECT_EQ(to_string(p.gmem_offset), "(0,1)");
  EXPECT_EQ(to_string(tma_partition_vector(128, padded)), "(128,4):(1,128)");
  expect_pairs_kept(p, 64, SwizzleLayout{Swizzle{}, 0, padded}, gpad, false);

  Layout const rows{make_tuple(S(8, 64), 3), make_tuple(S(64, 1), 512)};
  Layout const grows = gmem_tiles(8, 64, 5, E(1), E(0), E(1, 8));
  p = tma_partition(512, 0, none, rows, grows);
  EXPECT_EQ(tp_str(p.smem.layout, p.smem.offset), "((512,1),3):((1,0),512)@0");
  EXPECT_EQ(to_string(p.gmem), "(((64,8),1),5):(((1@0,1@1),0),8@1)");

  p = tma_partition(256, 1, Layout{2, 1}, Layout{512, 1}, Layout{512, E(0)});
  EXPECT_EQ(tp_str(p.smem.layout, p.smem.offset), "((256,2)):((1,256))@128");
  EXPECT_EQ(to_string(p.gmem), "((256,2)):((1@0,256@0))");
  EXPECT_EQ(to_string(p.gmem_offset), "(128)");  // CuTe: ArithTuple(128,0) for a rank-2 iterator

  Layout const gplain{make_tuple(S(64, 32), 8), make_tuple(S(256, 1), 32)};
  p = tma_partition(2048, 1, Layout{2, 1}, f32, gplain);
  EXPECT_EQ(tp_str(p.smem.layout, p.smem.offset), "((2048,1),2):((1,0),2048)@1024");
  EXPECT_EQ(to_string(p.gmem), "(((32,64),1),8):(((1,256),0),32)");
  EXPECT_EQ(to_string(p.gmem_offset), "8192");
}

// tma_partition is constexpr: a kernel's config can compute it. One stage, the tile as one mode.
constexpr SwizzleLayout kTpStage = tile_to_shape(gmma_atom_k_sw128(16), S(128, 64));
constexpr TmaPartition kTp =
    tma_partition(8192, 1, Layout{2, 1}, SwizzleLayout{kTpStage.swizzle, 0, group(kTpStage.layout, 0, 2)},
                  Layout{make_tuple(S(128, 64)), make_tuple(make_tuple(IntTuple(basis(1)), IntTuple(basis(0))))});
static_assert(kTp.smem.offset == 4096);
static_assert(rank(kTp.smem.layout) == 1 && size(kTp.smem.layout).v == 8192);
static_assert(value(get(kTp.gmem_offset, 1)) == 64);

TEST(TmaPartition, Errors) {
  SwizzleLayout const smem = grouped_stage(gmma_atom_k_sw128(16), 128, 64, 3);
  Layout const gmem = gmem_tiles(128, 64, 16, E(1), E(0), E(0, 64));
  Layout const none{1, 0};
  expect_rejects([&] { tma_partition(0, 0, none, smem, gmem); },
                 "tma_partition: the values per TMA instruction (NumValSrc) must be positive");
  expect_rejects([&] { tma_partition(3000, 0, none, smem, gmem); },
                 "tma_partition: the values per TMA instruction (NumValSrc) do not divide the TMA tile");
  expect_rejects([&] { tma_partition(8192, 2, Layout{2, 1}, smem, gmem); },
                 "tma_partition: the CTA coordinate is outside the CTA layout");
  expect_rejects([&] { tma_partition(8192, -1, Layout{2, 1}, smem, gmem); },
                 "tma_partition: the CTA coordinate is outside the CTA layout");
  expect_rejects([&] { tma_partition(8192, make_coord(0, 2), Layout{S(2, 2), S(1, 2)}, smem, gmem); },
                 "tma_partition: the CTA coordinate is outside the CTA layout");
  expect_rejects([&] { tma_partition(8192, make_coord(0, 1, 0), Layout{S(2, 2), S(1, 2)}, smem, gmem); },
                 "tma_partition: the CTA coordinate is outside the CTA layout");
  expect_rejects([&] { tma_partition(8192, 0, none, smem, gmem_tiles(128, 32, 16, E(1), E(0), E(0, 32))); },
                 "tma_partition: mode 0 (the TMA tile) of gmem and smem differ in size");
  expect_rejects([&] { tma_partition(8192, 0, none, smem, gmem_tiles(128, 64, 16, E(1), E(5), E(5, 64))); },
                 "tma_partition: a gmem basis stride past mode 4");
}

}  // namespace
