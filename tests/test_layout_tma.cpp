// SM90 TMA on the host (layout/tma.hpp): the cuTensorMapEncodeTiled arguments derived from the
// global tensor, the shared stage layout (gmma.hpp's atoms through tile_to_shape) and the CTA tile;
// every rejected case with its message; box coordinates against local_tile of identity tensors and
// layouts; multicast slices and masks against examples written out by hand.
//
// Expected descriptors are written out from the driver API's rules (dimension 0 innermost,
// globalStrides in bytes for dimensions 1.., boxDim per dimension, swizzle span) applied by hand to
// each case, not computed by the code under test.
#include <gtest/gtest.h>

#include <functional>
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

}  // namespace
