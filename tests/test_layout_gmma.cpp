// SM90 wgmma on the host (layout/gmma.hpp): the shared-memory layout atoms, tile_to_shape, the
// matrix descriptor derived from a swizzled layout, and the m64nNk16 (16-bit) and m64nNk32 (8-bit)
// atoms with their TiledMMA partitions.
//
// Expectations come from two independent places:
//  - the PTX ISA (Asynchronous Warpgroup Level Matrix Shared Memory Layout: Shared Memory Matrix
//    Layout, Strides, Matrix Descriptor Format; the wgmma register fragments of m64nNk16 and of
//    m64nNk32's 8-bit A), written out here as rules and small interpreters;
//  - NVIDIA CuTe (CUTLASS v4.7.0), whose outputs were printed by a g++ program outside the
//    repository (GMMA::Layout_*_Atom, tile_to_shape, GMMA::make_gmma_desc, the SM90 MMA traits and
//    their TiledMMA partitions); only the numbers are copied here.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "layout/gmma.hpp"
#include "layout/print.hpp"
#include "layout/tensor.hpp"
#include "layout_test_util.hpp"

namespace {

using namespace loom;
using loomtest::L;
using loomtest::S;
using loomtest::str;

std::string str(SwizzleLayout const& l) {
  Swizzle const& s = l.swizzle;
  return "Sw<" + std::to_string(s.bits) + "," + std::to_string(s.base) + "," + std::to_string(s.shift) + "> o " +
         loom::to_string(l.layout);
}

using loomtest::expect_rejects;

// ---------------------------------------------------------------------------------------------
// Layout atoms
// ---------------------------------------------------------------------------------------------

// CuTe prints GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T> as Sw<B,4,3> o smem_ptr o L,
// the swizzle acting on byte addresses. The layouts L are copied from it; the swizzles are the
// same functions over element offsets, so the base drops by log2(bytes per element).
TEST(GmmaAtoms, LayoutsAreCuTesAtoms) {
  struct Case {
    int bits;
    GmmaMajor major;
    GmmaSwizzle sw;
    const char* cute_layout;
  };
  const Case cases[] = {
      {8, GmmaMajor::kK, GmmaSwizzle::kInterleave, "(8,16):(16,1)"},
      {8, GmmaMajor::kK, GmmaSwizzle::k32B, "(8,32):(32,1)"},
      {8, GmmaMajor::kK, GmmaSwizzle::k64B, "(8,64):(64,1)"},
      {8, GmmaMajor::kK, GmmaSwizzle::k128B, "(8,128):(128,1)"},
      {8, GmmaMajor::kMN, GmmaSwizzle::kInterleave, "(16,8):(1,16)"},
      {8, GmmaMajor::kMN, GmmaSwizzle::k32B, "(32,8):(1,32)"},
      {8, GmmaMajor::kMN, GmmaSwizzle::k64B, "(64,8):(1,64)"},
      {8, GmmaMajor::kMN, GmmaSwizzle::k128B, "(128,8):(1,128)"},
      {16, GmmaMajor::kK, GmmaSwizzle::kInterleave, "(8,8):(8,1)"},
      {16, GmmaMajor::kK, GmmaSwizzle::k32B, "(8,16):(16,1)"},
      {16, GmmaMajor::kK, GmmaSwizzle::k64B, "(8,32):(32,1)"},
      {16, GmmaMajor::kK, GmmaSwizzle::k128B, "(8,64):(64,1)"},
      {16, GmmaMajor::kMN, GmmaSwizzle::kInterleave, "(8,8):(1,8)"},
      {16, GmmaMajor::kMN, GmmaSwizzle::k32B, "(16,8):(1,16)"},
      {16, GmmaMajor::kMN, GmmaSwizzle::k64B, "(32,8):(1,32)"},
      {16, GmmaMajor::kMN, GmmaSwizzle::k128B, "(64,8):(1,64)"},
      {32, GmmaMajor::kK, GmmaSwizzle::kInterleave, "(8,4):(4,1)"},
      {32, GmmaMajor::kK, GmmaSwizzle::k32B, "(8,8):(8,1)"},
      {32, GmmaMajor::kK, GmmaSwizzle::k64B, "(8,16):(16,1)"},
      {32, GmmaMajor::kK, GmmaSwizzle::k128B, "(8,32):(32,1)"},
      {32, GmmaMajor::kMN, GmmaSwizzle::kInterleave, "(4,8):(1,4)"},
      {32, GmmaMajor::kMN, GmmaSwizzle::k32B, "(8,8):(1,8)"},
      {32, GmmaMajor::kMN, GmmaSwizzle::k64B, "(16,8):(1,16)"},
      {32, GmmaMajor::kMN, GmmaSwizzle::k128B, "(32,8):(1,32)"},
  };
  for (Case const& c : cases) {
    SCOPED_TRACE(testing::Message() << c.bits << "-bit " << c.cute_layout);
    SwizzleLayout a = gmma_atom(c.major, c.sw, c.bits);
    EXPECT_EQ(str(a.layout), c.cute_layout);
    EXPECT_EQ(a.offset, 0);
    int b = c.sw == GmmaSwizzle::kInterleave ? 0 : c.sw == GmmaSwizzle::k32B ? 1 : c.sw == GmmaSwizzle::k64B ? 2 : 3;
    int log2_bytes = c.bits == 8 ? 0 : c.bits == 16 ? 1 : 2;
    EXPECT_EQ(a.swizzle, (Swizzle{b, 4 - log2_bytes, 3}));
  }
  // The named forms, and the check the task started from: 16-bit K-major SW128.
  EXPECT_EQ(str(gmma_atom_k_sw128()), "Sw<3,3,3> o (8,64):(64,1)");
  EXPECT_EQ(str(gmma_atom_k_sw64()), "Sw<2,3,3> o (8,32):(32,1)");
  EXPECT_EQ(str(gmma_atom_k_sw32()), "Sw<1,3,3> o (8,16):(16,1)");
  EXPECT_EQ(str(gmma_atom_k_inter()), "Sw<0,3,3> o (8,8):(8,1)");
  EXPECT_EQ(str(gmma_atom_mn_sw128()), "Sw<3,3,3> o (64,8):(1,64)");
  EXPECT_EQ(str(gmma_atom_mn_sw64()), "Sw<2,3,3> o (32,8):(1,32)");
  EXPECT_EQ(str(gmma_atom_mn_sw32()), "Sw<1,3,3> o (16,8):(1,16)");
  EXPECT_EQ(str(gmma_atom_mn_inter()), "Sw<0,3,3> o (8,8):(1,8)");
  EXPECT_EQ(str(gmma_atom_k_sw128(8)), "Sw<3,4,3> o (8,128):(128,1)");
  EXPECT_EQ(str(gmma_atom_k_sw128(32)), "Sw<3,2,3> o (8,32):(32,1)");
  // 128-bit units: the ISA's "128b element" atoms (8x8 for 128B, 8x4 K-major 64B, 2x8 MN-major 32B).
  EXPECT_EQ(str(gmma_atom_k_sw128(128)), "Sw<3,0,3> o (8,8):(8,1)");
  EXPECT_EQ(str(gmma_atom_k_sw64(128)), "Sw<2,0,3> o (8,4):(4,1)");
  EXPECT_EQ(str(gmma_atom_mn_sw32(128)), "Sw<1,0,3> o (2,8):(1,2)");
}

// The element-offset swizzle is the ISA's byte-address swizzle: 16-byte chunk c of the 128-byte
// line that holds byte a moves to chunk c ^ ((a >> 7) mod 2^B), i.e. a ^ (((a >> 7) & (2^B - 1)) << 4).
// For the 128B mode that is chunk j of row r going to j ^ (r % 8).
TEST(GmmaAtoms, ElementSwizzleIsTheIsaByteSwizzle) {
  for (int bits : {8, 16, 32})
    for (GmmaSwizzle sw : {GmmaSwizzle::kInterleave, GmmaSwizzle::k32B, GmmaSwizzle::k64B, GmmaSwizzle::k128B})
      for (GmmaMajor major : {GmmaMajor::kK, GmmaMajor::kMN}) {
        SCOPED_TRACE(testing::Message() << bits << " bits, mode " << int(sw) << ", major " << int(major));
        SwizzleLayout a = gmma_atom(major, sw, bits);
        int b = gmma_swizzle_log2_chunks(sw);
        i64 bytes = bits / 8;
        std::set<i64> seen;
        for (i64 i = 0; i < size(a).v; ++i) {
          i64 unswizzled = a.layout(i) * bytes;
          i64 isa = unswizzled ^ (((unswizzled >> 7) & ((1 << b) - 1)) << 4);
          EXPECT_EQ(a.swizzle(a.layout(i)) * bytes, isa) << "element " << i;
          seen.insert(a.swizzle(a.layout(i)));
        }
        // One atom fills 8 rows of its swizzle width exactly.
        EXPECT_EQ(i64(seen.size()) * bytes, 8 * gmma_swizzle_bytes(sw));
        EXPECT_EQ(*seen.rbegin() + 1, i64(seen.size()));
      }
  // Row r of the 16-bit K-major SW128 atom: element 8j (chunk j) lands in chunk j ^ r.
  SwizzleLayout a = gmma_atom_k_sw128();
  for (int r = 0; r < 8; ++r)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(a(r, 8 * j), 64 * r + 8 * (j ^ r));
}

// The 8-bit (e4m3/e5m2) K-major atoms: one 8-row atom of the 128-byte swizzle holds 128 elements of
// K per row (CuTe's Layout_K_SW128_Atom<float_e4m3_t>, Sw<3,4,3> o (8,128):(128,1): with one byte per
// element Loom's element swizzle is CuTe's byte swizzle). Element k of row r sits in 16-byte chunk
// k / 16, which the swizzle moves to chunk (k / 16) ^ r; within the chunk it stays at k % 16.
TEST(GmmaAtoms, Fp8KMajorSw128HoldsOneRowOf128K) {
  SwizzleLayout a = gmma_atom_k_sw128(8);
  EXPECT_EQ(str(a), "Sw<3,4,3> o (8,128):(128,1)");
  EXPECT_EQ(size(a).v, 8 * 128);
  EXPECT_EQ(str(gmma_atom_k_sw64(8)), "Sw<2,4,3> o (8,64):(64,1)");
  EXPECT_EQ(str(gmma_atom_k_sw32(8)), "Sw<1,4,3> o (8,32):(32,1)");
  EXPECT_EQ(str(gmma_atom_k_inter(8)), "Sw<0,4,3> o (8,16):(16,1)");
  std::set<i64> seen;
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 128; ++k) {
      ASSERT_EQ(a(r, k), 128 * r + 16 * ((k / 16) ^ r) + k % 16) << "row " << r << " k " << k;
      seen.insert(a(r, k));
    }
  EXPECT_EQ(seen.size(), 1024u);  // the atom fills its 1024 bytes once
  // A stage tile of 128 x 128 (the FP8 main loop's 128-deep k tile), and three of them; CuTe's
  // tile_to_shape of Layout_K_SW128_Atom<float_e4m3_t> prints the same layouts.
  EXPECT_EQ(str(tile_to_shape(a, S(128, 128))), "Sw<3,4,3> o ((8,16),(128,1)):((128,1024),(1,0))");
  EXPECT_EQ(str(tile_to_shape(a, S(128, 128, 3))), "Sw<3,4,3> o ((8,16),(128,1),(1,3)):((128,1024),(1,0),(0,16384))");
}

// ---------------------------------------------------------------------------------------------
// tile_to_shape
// ---------------------------------------------------------------------------------------------

TEST(GmmaTileToShape, MatchesCuTe) {
  // CuTe's tile_to_shape outputs.
  EXPECT_EQ(str(tile_to_shape(L(S(2, 3), S(3, 1)), S(6, 12))), "((2,3),(3,4)):((3,6),(1,18))");
  EXPECT_EQ(str(tile_to_shape(L(S(2, 3), S(3, 1)), S(6, 12), S(1, 0))), "((2,3),(3,4)):((3,24),(1,6))");  // Step<_2,_1>
  EXPECT_EQ(str(tile_to_shape(L(S(2, 3), S(3, 1)), S(6, 12), LayoutRight{})), "((2,3),(3,4)):((3,24),(1,6))");
  EXPECT_EQ(str(tile_to_shape(L(S(2, 3), S(3, 1)), S(6, 12), LayoutLeft{})), "((2,3),(3,4)):((3,6),(1,18))");
  EXPECT_EQ(str(tile_to_shape(L(4, 2), S(8, 12))), "((4,2),(1,12)):((2,1),(0,8))");
  EXPECT_EQ(str(tile_to_shape(L(S(2, 4), S(4, 1)), S(S(2, 4), 16))), "((2,4),(4,4)):((4,8),(1,32))");

  EXPECT_EQ(str(tile_to_shape(gmma_atom_k_sw128(), S(128, 64))), "Sw<3,3,3> o ((8,16),(64,1)):((64,512),(1,0))");
  EXPECT_EQ(str(tile_to_shape(gmma_atom_k_sw128(), S(128, 128))), "Sw<3,3,3> o ((8,16),(64,2)):((64,512),(1,8192))");
  EXPECT_EQ(str(tile_to_shape(gmma_atom_k_sw128(), S(64, 128), S(1, 0))),
            "Sw<3,3,3> o ((8,8),(64,2)):((64,1024),(1,512))");
  EXPECT_EQ(str(tile_to_shape(gmma_atom_k_sw64(), S(128, 64))), "Sw<2,3,3> o ((8,16),(32,2)):((32,256),(1,4096))");
  EXPECT_EQ(str(tile_to_shape(gmma_atom_k_inter(), S(64, 32))), "Sw<0,3,3> o ((8,8),(8,4)):((8,64),(1,512))");
  EXPECT_EQ(str(tile_to_shape(gmma_atom_mn_sw128(), S(128, 64))), "Sw<3,3,3> o ((64,2),(8,8)):((1,512),(64,1024))");
  EXPECT_EQ(str(tile_to_shape(gmma_atom_mn_sw64(), S(64, 64))), "Sw<2,3,3> o ((32,2),(8,8)):((1,256),(32,512))");
  // A pipeline of stages: the third mode repeats the whole (MN,K) tile.
  EXPECT_EQ(str(tile_to_shape(gmma_atom_mn_sw128(), S(128, 64, 3))),
            "Sw<3,3,3> o ((64,2),(8,8),(1,3)):((1,512),(64,1024),(0,8192))");
}

TEST(GmmaTileToShape, Rejects) {
  expect_rejects([] { tile_to_shape(gmma_atom_k_sw128(), S(128, 32)); }, "does not divide the target shape");
  expect_rejects([] { tile_to_shape(L(S(2, 2, 2)), S(4, 4)); }, "more modes than the target shape");
  expect_rejects([] { tile_to_shape(L(S(2, 2)), S(4, 4), S(0, 1, 2)); }, "one integer per mode");
}

// ---------------------------------------------------------------------------------------------
// The matrix descriptor
// ---------------------------------------------------------------------------------------------

// A reader of descriptors built from the PTX ISA alone. Shared Memory Matrix Layout gives the
// canonical layouts in units of T elements (16 bytes), w = 1, 2, 4, 8 chunks per swizzle row:
//   K-major,  no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//   K-major,  swizzled:   ((8,m),(T,2k)):((wT,SBO),(1,T))
//   MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//   MN-major, swizzled:   ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))
// and the swizzle modes permute the 16-byte chunks of each 128-byte line by address bits [7, 7+B).
// Matrix Descriptor Format: start address, LBO and SBO in bits 0-13, 16-29 and 32-45 as
// (x & 0x3FFFF) >> 4; mode in bits 62-63 (0 none, 1 128B, 2 64B, 3 32B). Returns the byte address
// the wgmma reads element (mn, k) of its operand from.
i64 isa_address(unsigned long long desc, GmmaMajor major, int elem_bits, i64 mn, i64 k) {
  i64 start = i64(desc & 0x3FFF) << 4, lbo = i64((desc >> 16) & 0x3FFF) << 4, sbo = i64((desc >> 32) & 0x3FFF) << 4;
  int mode = int(desc >> 62);
  int b = mode == 0 ? 0 : mode == 1 ? 3 : mode == 2 ? 2 : 1;
  i64 w = i64(1) << b, t = 128 / elem_bits, bytes = elem_bits / 8;
  i64 a = start;
  if (major == GmmaMajor::kK) {
    a += (mn % 8) * 16 * w + (mn / 8) * sbo + (k % t) * bytes + (k / t) * (b == 0 ? lbo : 16);
  } else if (b == 0) {
    a += (mn % t) * bytes + (mn / t) * sbo + (k % 8) * 16 + (k / 8) * lbo;
  } else {
    a += (mn % t) * bytes + ((mn / t) % w) * 16 + (mn / (t * w)) * lbo + (k % 8) * 16 * w + (k / 8) * sbo;
  }
  return a ^ (((a >> 7) & (w - 1)) << 4);
}

struct DescCase {
  const char* name;
  SwizzleLayout tile;
  GmmaMajor major;
  int bits;
  i64 mn_extent;  // rows one wgmma reads: 64 for A, N for B
  GmmaSwizzle mode;
  unsigned lbo, sbo;  // 16-byte units, from the ISA's Strides rules (comments below)
};

// bf16 unless named otherwise. T = 8 bf16 per 16 bytes.
std::vector<DescCase> desc_cases() {
  auto tts = [](SwizzleLayout const& a, IntTuple const& s) { return tile_to_shape(a, s); };
  const GmmaMajor K = GmmaMajor::kK, MN = GmmaMajor::kMN;
  const GmmaSwizzle NoSw = GmmaSwizzle::kInterleave, Sw32 = GmmaSwizzle::k32B, Sw64 = GmmaSwizzle::k64B,
                    Sw128 = GmmaSwizzle::k128B;
  return {
      // K-major swizzled: LBO "not used, assumed to be 1"; SBO = offset of the next 8 rows =
      // 8 rows x the swizzle width (128 B -> 1024 B = 64, 64 B -> 512 B = 32, 32 B -> 256 B = 16).
      {"k_sw128_128x64_A", tts(gmma_atom_k_sw128(), S(128, 64)), K, 16, 64, Sw128, 1, 64},
      {"k_sw128_256x64_B", tts(gmma_atom_k_sw128(), S(256, 64)), K, 16, 256, Sw128, 1, 64},
      {"k_sw128_128x128_A", tts(gmma_atom_k_sw128(), S(128, 128)), K, 16, 64, Sw128, 1, 64},
      {"k_sw128_128x64x3_A", tts(gmma_atom_k_sw128(), S(128, 64, 3)), K, 16, 64, Sw128, 1, 64},
      {"k_sw64_128x64_A", tts(gmma_atom_k_sw64(), S(128, 64)), K, 16, 64, Sw64, 1, 32},
      {"k_sw32_64x32_A", tts(gmma_atom_k_sw32(), S(64, 32)), K, 16, 64, Sw32, 1, 16},
      // K-major, no swizzle: core matrices of 8 rows x 16 B. LBO = offset between the two core
      // matrices of a k-block along K: 8 atoms of M lie between them, 8 x 128 B = 1024 B = 64.
      // SBO = next 8 rows = one 128-byte core matrix = 8.
      {"k_inter_64x32_A", tts(gmma_atom_k_inter(), S(64, 32)), K, 16, 64, NoSw, 64, 8},
      // N = 8: one group of 8 rows, so no SBO step (0, as CuTe gives it).
      {"k_sw128_8x64_B", tts(gmma_atom_k_sw128(), S(8, 64)), K, 16, 8, Sw128, 1, 0},
      // MN-major swizzled: LBO = offset of the next (swizzle bytes / 16) x T elements of MN, the
      // next atom along MN; SBO = offset of the next 8 K rows, the next atom along K.
      // 64 rows of one SW128 atom per wgmma: no LBO step (0); K atoms lie 2 x 1024 B apart = 128.
      {"mn_sw128_128x64_A", tts(gmma_atom_mn_sw128(), S(128, 64)), MN, 16, 64, Sw128, 0, 128},
      // N = 256: LBO = next 1024-byte atom = 64; SBO = 4 atoms along MN = 4096 B = 256.
      {"mn_sw128_256x32_B", tts(gmma_atom_mn_sw128(), S(256, 32)), MN, 16, 256, Sw128, 64, 256},
      // SW64 atom 32 x 8 (512 B): LBO = 512 B = 32; SBO = 2 atoms = 1024 B = 64.
      {"mn_sw64_64x64_A", tts(gmma_atom_mn_sw64(), S(64, 64)), MN, 16, 64, Sw64, 32, 64},
      // SW32 atom 16 x 8 (256 B): LBO = 256 B = 16; SBO = 4 atoms = 1024 B = 64.
      {"mn_sw32_64x32_A", tts(gmma_atom_mn_sw32(), S(64, 32)), MN, 16, 64, Sw32, 16, 64},
      // MN-major, no swizzle: SBO = offset of the next T elements of MN (next 128-byte core
      // matrix) = 8; LBO = next 8 K rows = 8 atoms of 128 B = 1024 B = 64.
      {"mn_inter_64x32_A", tts(gmma_atom_mn_inter(), S(64, 32)), MN, 16, 64, NoSw, 64, 8},
      // tf32 (T = 4) and 8-bit (T = 16): the same byte geometry.
      {"tf32_k_sw128_64x32_A", tts(gmma_atom_k_sw128(32), S(64, 32)), K, 32, 64, Sw128, 1, 64},
      {"u8_k_sw128_64x128_A", tts(gmma_atom_k_sw128(8), S(64, 128)), K, 8, 64, Sw128, 1, 64},
      {"u8_k_sw64_128x64_A", tts(gmma_atom_k_sw64(8), S(128, 64)), K, 8, 64, Sw64, 1, 32},
      {"u8_k_inter_64x64_A", tts(gmma_atom_k_inter(8), S(64, 64)), K, 8, 64, NoSw, 64, 8},
      // 8-bit (e4m3/e5m2) K-major, the FP8 operands: 32 bytes of K per k-block are 32 elements,
      // and the SW128 atom's row holds 128 of them. The strides in bytes are the 16-bit ones:
      // SBO = 8 rows x the swizzle width, LBO = 1 when swizzled. B with N = 256 over a 128-deep
      // stage tile in 2 stages; B with N = 8 (one 8-row group: SBO 0).
      {"fp8_k_sw128_128x128x2_A", tts(gmma_atom_k_sw128(8), S(128, 128, 2)), K, 8, 64, Sw128, 1, 64},
      {"fp8_k_sw128_256x128_B", tts(gmma_atom_k_sw128(8), S(256, 128)), K, 8, 256, Sw128, 1, 64},
      {"fp8_k_sw128_8x128_B", tts(gmma_atom_k_sw128(8), S(8, 128)), K, 8, 8, Sw128, 1, 0},
      {"fp8_k_sw32_64x64_A", tts(gmma_atom_k_sw32(8), S(64, 64)), K, 8, 64, Sw32, 1, 16},
      // No swizzle, N = 256: the second 16-byte column of K lies past 32 atoms of 128 B: LBO 256.
      {"fp8_k_inter_256x32_B", tts(gmma_atom_k_inter(8), S(256, 32)), K, 8, 256, NoSw, 256, 8},
  };
}

// The fields against the ISA's rules (in the table) and CuTe's GMMA::make_gmma_desc, which gives
// the same (LBO, SBO, mode) for the wgmma sub-tiles (mn_extent x one k-block, local_tile of the
// same tile_to_shape tile) of every case above (the 3-stage tile per stage as its 128x64 tile).
TEST(GmmaDesc, FieldsFollowTheIsaStrides) {
  for (DescCase const& c : desc_cases()) {
    SCOPED_TRACE(c.name);
    GmmaDesc d = make_gmma_desc(c.tile, c.major, c.bits, c.mn_extent);
    EXPECT_EQ(d.swizzle, c.mode);
    EXPECT_EQ(d.lbo, c.lbo);
    EXPECT_EQ(d.sbo, c.sbo);
    EXPECT_EQ(d.start, 0u);
    EXPECT_EQ(d.base_offset, 0u);
  }
}

// Every wgmma operand of every tile, read through its descriptor by the ISA reader above, is the
// swizzled layout: the descriptor of the operand at (m0, k0[, stage]) is the tile's descriptor
// advanced by gmma_desc_offset, placed in a 1024-byte aligned buffer.
TEST(GmmaDesc, IsaReaderSeesTheLayout) {
  const unsigned base = 0x3400;  // 13 KiB: a multiple of 1024
  for (DescCase const& c : desc_cases()) {
    SCOPED_TRACE(c.name);
    GmmaDesc d0 = make_gmma_desc(c.tile, c.major, c.bits, c.mn_extent);
    Layout const& l = c.tile.layout;
    i64 mn = size(get(l.shape, 0)).v, kk = 256 / c.bits, k = size(get(l.shape, 1)).v;
    i64 stages = rank(l) > 2 ? size(get(l.shape, 2)).v : 1;
    i64 bytes = c.bits / 8, checked = 0;
    for (i64 p = 0; p < stages; ++p)
      for (i64 m0 = 0; m0 < mn; m0 += c.mn_extent)
        for (i64 k0 = 0; k0 < k; k0 += kk) {
          IntTuple at = rank(l) > 2 ? make_coord(m0, k0, p) : make_coord(m0, k0);
          unsigned long long desc = d0.advanced(gmma_desc_offset(c.tile, c.bits, at)).at(base).encode();
          for (i64 m = 0; m < c.mn_extent; ++m)
            for (i64 kx = 0; kx < kk; ++kx) {
              IntTuple e = rank(l) > 2 ? make_coord(m0 + m, k0 + kx, p) : make_coord(m0 + m, k0 + kx);
              ASSERT_EQ(isa_address(desc, c.major, c.bits, m, kx), base + bytes * c.tile(e))
                  << "operand (" << m0 << "," << k0 << "," << p << "), element (" << m << "," << kx << ")";
              ++checked;
            }
        }
    EXPECT_EQ(checked, size(l).v);
  }
}

// gmma_desc_offset against CuTe's descriptor iterators (make_fragment_A/B of a partitioned stage
// tile, 2 warpgroups of SM90_64x64x16 / 64x256x16, bf16), in 16-byte units: the k-block strides,
// the stage stride, and warpgroup 1's first element (4096 elements = 512 units K-major).
TEST(GmmaDesc, OffsetsMatchCuTesDescriptorIterators) {
  SwizzleLayout a_k = tile_to_shape(gmma_atom_k_sw128(), S(128, 64, 3));
  SwizzleLayout b_k = tile_to_shape(gmma_atom_k_sw128(), S(64, 64, 3));
  // CuTe: A (1,1,4,(1,3)):(0,0,2,(0,1024)), B (1,1,4,(1,3)):(0,0,2,(0,512)); warpgroup 1 at 4096 elements.
  EXPECT_EQ(gmma_desc_offset(a_k, 16, S(0, 16, 0)), 2);
  EXPECT_EQ(gmma_desc_offset(a_k, 16, S(0, 48, 0)), 6);
  EXPECT_EQ(gmma_desc_offset(a_k, 16, S(0, 0, 1)), 1024);
  EXPECT_EQ(gmma_desc_offset(a_k, 16, S(64, 0, 0)), 4096 / 8);
  EXPECT_EQ(gmma_desc_offset(b_k, 16, S(0, 16, 0)), 2);
  EXPECT_EQ(gmma_desc_offset(b_k, 16, S(0, 0, 2)), 1024);
  // MN-major SW128: A (…,4,(1,3)):(…,256,(0,1024)), warpgroup 1 at 512 elements; B (N=256) k-block 512.
  SwizzleLayout a_mn = tile_to_shape(gmma_atom_mn_sw128(), S(128, 64, 3));
  SwizzleLayout b_mn = tile_to_shape(gmma_atom_mn_sw128(), S(256, 64, 3));
  EXPECT_EQ(gmma_desc_offset(a_mn, 16, S(0, 16, 0)), 256);
  EXPECT_EQ(gmma_desc_offset(a_mn, 16, S(0, 0, 1)), 1024);
  EXPECT_EQ(gmma_desc_offset(a_mn, 16, S(64, 0, 0)), 512 / 8);
  EXPECT_EQ(gmma_desc_offset(b_mn, 16, S(0, 16, 0)), 512);
  EXPECT_EQ(gmma_desc_offset(b_mn, 16, S(0, 0, 1)), 2048);
  // K-major SW64 A, 64 of K = 2 atoms: k-blocks (2,2):(2,512); MN-major SW64 B: 128.
  SwizzleLayout a_k64 = tile_to_shape(gmma_atom_k_sw64(), S(128, 64, 3));
  SwizzleLayout b_mn64 = tile_to_shape(gmma_atom_mn_sw64(), S(64, 64, 3));
  EXPECT_EQ(gmma_desc_offset(a_k64, 16, S(0, 16, 0)), 2);
  EXPECT_EQ(gmma_desc_offset(a_k64, 16, S(0, 32, 0)), 512);
  EXPECT_EQ(gmma_desc_offset(a_k64, 16, S(0, 48, 0)), 514);
  EXPECT_EQ(gmma_desc_offset(a_k64, 16, S(64, 0, 0)), 2048 / 8);
  EXPECT_EQ(gmma_desc_offset(b_mn64, 16, S(0, 16, 0)), 128);
  EXPECT_EQ(gmma_desc_offset(b_mn64, 16, S(0, 0, 1)), 512);
}

// Bit positions (Matrix Descriptor Format), the start address, and the base offset rule: 0 when
// the swizzle pattern starts on a multiple of its repeat (1024, 512, 256 bytes), else
// (pattern start address >> 7) & 7.
TEST(GmmaDesc, EncodingStartAndBaseOffset) {
  GmmaDesc d = make_gmma_desc(tile_to_shape(gmma_atom_k_sw128(), S(128, 64)), GmmaMajor::kK, 16, 64);
  // start 0x400 >> 4 = 0x40 (bits 0-13), LBO 1 (16-29), SBO 64 (32-45), mode 1 (62-63).
  EXPECT_EQ(d.at(0x400).encode(), 0x4000004000010040ull);
  EXPECT_EQ(GmmaDesc::decode(0x4000004000010040ull), d.at(0x400));
  EXPECT_EQ(d.at(0x480).base_offset, 1u);                           // 0x480 >> 7 = 9, & 7 = 1
  EXPECT_EQ(d.at(0x480).encode() >> 49 & 7, 1u);
  EXPECT_EQ(d.at(0x2300).base_offset, 6u);                          // 0x2300 >> 7 = 70, & 7 = 6
  GmmaDesc d64 = make_gmma_desc(tile_to_shape(gmma_atom_k_sw64(), S(128, 64)), GmmaMajor::kK, 16, 64);
  EXPECT_EQ(d64.at(0x200).base_offset, 0u);                         // 512-byte repeat
  EXPECT_EQ(d64.at(0x280).base_offset, 5u);
  GmmaDesc d0 = make_gmma_desc(tile_to_shape(gmma_atom_k_inter(), S(64, 32)), GmmaMajor::kK, 16, 64);
  EXPECT_EQ(d0.at(0x480).base_offset, 0u);                          // no swizzle, no base offset
  EXPECT_EQ(d0.at(0x480).encode(), 0x0000000800400048ull);          // start 0x48, LBO 64, SBO 8, mode 0
  // The start field is the 18-bit address >> 4: 0x3FFF0 + 16 wraps to 0.
  EXPECT_EQ(d.at(0x3FFF0).start, 0x3FFFu);
  EXPECT_EQ(d.at(0x3FFF0).advanced(1).start, 0u);
  // A tile that starts inside the buffer (SwizzleLayout offset, in elements) starts the descriptor there.
  SwizzleLayout shifted = tile_to_shape(gmma_atom_k_sw128(), S(128, 64));
  shifted.offset = 8192;
  EXPECT_EQ(make_gmma_desc(shifted, GmmaMajor::kK, 16, 64).at(0x400).start, (0x400 + 16384) >> 4);
}

// The descriptor is a constant expression, as a kernel config computes it.
TEST(GmmaDesc, IsConstexpr) {
  static constexpr GmmaDesc kA =
      make_gmma_desc(tile_to_shape(gmma_atom_k_sw128(), make_shape(128, 64, 4)), GmmaMajor::kK, 16, 64);
  static_assert(kA.lbo == 1 && kA.sbo == 64 && kA.swizzle == GmmaSwizzle::k128B);
  static constexpr GmmaDesc kB =
      make_gmma_desc(tile_to_shape(gmma_atom_mn_sw128(), make_shape(256, 64)), GmmaMajor::kMN, 16);
  static_assert(kB.lbo == 64 && kB.sbo == 256 && kB.swizzle == GmmaSwizzle::k128B);
  static_assert(kB.at(0x800).encode() == (0x80ull | 64ull << 16 | 256ull << 32 | 1ull << 62));
  SUCCEED();
}

// Plain layouts (no swizzle) that are canonical are taken too.
TEST(GmmaDesc, PlainLayouts) {
  // K-major core matrices packed along K first: (8,m) rows 16 B apart, 8-row groups 256 B apart,
  // the K column of core matrices 128 B apart: LBO 8, SBO 16.
  Layout l = L(S(S(8, 8), S(8, 2)), S(S(8, 128), S(1, 64)));
  GmmaDesc d = make_gmma_desc(l, GmmaMajor::kK, 16, 64);
  EXPECT_EQ(d.swizzle, GmmaSwizzle::kInterleave);
  EXPECT_EQ(d.lbo, 8u);
  EXPECT_EQ(d.sbo, 16u);
}

// wgmma has no transpose for 8-bit (or tf32) operands: it reads them K-major whatever the layout
// is, so an MN-major descriptor for them is refused, for every swizzle. The MN-major atoms are still
// layouts (CuTe defines them for every type), e.g. for a buffer that is transposed into a K-major
// one; only the descriptor of one is an error.
TEST(GmmaDesc, RejectsMnMajorOperandsThatAreNot16Bit) {
  char const* msg = "wgmma reads MN-major operands of 16-bit types only; an 8-bit or 32-bit operand must be K-major";
  for (GmmaSwizzle sw : {GmmaSwizzle::kInterleave, GmmaSwizzle::k32B, GmmaSwizzle::k64B, GmmaSwizzle::k128B}) {
    SCOPED_TRACE(testing::Message() << "mode " << int(sw));
    SwizzleLayout mn8 = tile_to_shape(gmma_atom(GmmaMajor::kMN, sw, 8), S(128, 64));
    expect_rejects([&] { make_gmma_desc(mn8, GmmaMajor::kMN, 8, 64); }, msg);
    expect_rejects([&] { make_gmma_desc(mn8, GmmaMajor::kMN, 8); }, msg);
    SwizzleLayout mn32 = tile_to_shape(gmma_atom(GmmaMajor::kMN, sw, 32), S(64, 16));
    expect_rejects([&] { make_gmma_desc(mn32, GmmaMajor::kMN, 32, 64); }, msg);
    // The same bytes as 16-bit elements are a valid MN-major operand.
    SwizzleLayout mn16 = tile_to_shape(gmma_atom(GmmaMajor::kMN, sw, 16), S(64, 16));
    EXPECT_NO_THROW(make_gmma_desc(mn16, GmmaMajor::kMN, 16, 64));
  }
  // The message is one line.
  try {
    make_gmma_desc(tile_to_shape(gmma_atom_mn_sw128(8), S(128, 32)), GmmaMajor::kMN, 8, 64);
    ADD_FAILURE() << "accepted";
  } catch (LayoutError const& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

// The 8-bit K-major descriptor, field by field against the PTX ISA (Matrix Descriptor Format; the
// canonical K-major layouts of "Strides" in units of T = 16 elements of 8 bits): for the 128-byte
// swizzle LBO is unused (1), SBO is 8 rows of 128 bytes = 1024 bytes (64), the mode is 1 in bits
// 62-63; the encoding equals the 16-bit one of the same bytes. A k-block is 32 elements = 2 units;
// a warpgroup's 64 rows are 64 x 128 bytes = 512 units further on; a 128 x 128 stage is 1024 units.
TEST(GmmaDesc, Fp8KMajorFields) {
  SwizzleLayout a = tile_to_shape(gmma_atom_k_sw128(8), S(128, 128, 3));
  GmmaDesc d = make_gmma_desc(a, GmmaMajor::kK, 8, 64);
  EXPECT_EQ(d.swizzle, GmmaSwizzle::k128B);
  EXPECT_EQ(d.lbo, 1u);
  EXPECT_EQ(d.sbo, 64u);
  EXPECT_EQ(d.at(0x400).encode(), 0x4000004000010040ull);
  EXPECT_EQ(d.at(0x400), make_gmma_desc(tile_to_shape(gmma_atom_k_sw128(), S(128, 64)), GmmaMajor::kK, 16, 64).at(0x400));
  EXPECT_EQ(gmma_desc_offset(a, 8, S(0, 32, 0)), 2);
  EXPECT_EQ(gmma_desc_offset(a, 8, S(0, 96, 0)), 6);
  EXPECT_EQ(gmma_desc_offset(a, 8, S(64, 0, 0)), 512);
  EXPECT_EQ(gmma_desc_offset(a, 8, S(0, 0, 1)), 1024);
  EXPECT_EQ(gmma_desc_offset(a, 8, S(64, 64, 2)), 2048 + 512 + 4);
  // 64B and 32B: SBO = 8 rows x 64 / 32 bytes; no swizzle: 8 rows of 16 bytes apart (SBO 8), and the
  // second 16-byte column of a k-block past the whole 64-row column of core matrices (LBO 64).
  GmmaDesc d64 = make_gmma_desc(tile_to_shape(gmma_atom_k_sw64(8), S(64, 64)), GmmaMajor::kK, 8, 64);
  EXPECT_EQ(d64.swizzle, GmmaSwizzle::k64B);
  EXPECT_EQ(d64.lbo, 1u);
  EXPECT_EQ(d64.sbo, 32u);
  GmmaDesc d32 = make_gmma_desc(tile_to_shape(gmma_atom_k_sw32(8), S(64, 32)), GmmaMajor::kK, 8, 64);
  EXPECT_EQ(d32.swizzle, GmmaSwizzle::k32B);
  EXPECT_EQ(d32.sbo, 16u);
  GmmaDesc d0 = make_gmma_desc(tile_to_shape(gmma_atom_k_inter(8), S(64, 32)), GmmaMajor::kK, 8, 64);
  EXPECT_EQ(d0.swizzle, GmmaSwizzle::kInterleave);
  EXPECT_EQ(d0.lbo, 64u);
  EXPECT_EQ(d0.sbo, 8u);
  // A 16-element-deep K is half a k-block of 8-bit elements.
  expect_rejects([] { make_gmma_desc(L(S(64, 16), S(16, 1)), GmmaMajor::kK, 8); }, "32-byte wgmma k-blocks");
}

TEST(GmmaDesc, RejectsNonCanonicalLayouts) {
  SwizzleLayout k128 = tile_to_shape(gmma_atom_k_sw128(), S(128, 64));
  // CuTe's byte swizzle used as an element swizzle.
  expect_rejects([&] { make_gmma_desc(SwizzleLayout{Swizzle{3, 4, 3}, 0, k128.layout}, GmmaMajor::kK, 16, 64); },
                 "the swizzle is not Swizzle<B, log2(elements per 16 bytes), 3>");
  expect_rejects([&] { make_gmma_desc(SwizzleLayout{Swizzle{4, 3, 4}, 0, k128.layout}, GmmaMajor::kK, 16, 64); },
                 "more than 3 bits");
  // The wrong major.
  expect_rejects([&] { make_gmma_desc(k128, GmmaMajor::kMN, 16, 64); }, "MN-major, but MN is not contiguous");
  expect_rejects([&] { make_gmma_desc(tile_to_shape(gmma_atom_mn_sw64(), S(64, 64)), GmmaMajor::kK, 16, 64); },
                 "K-major, but K is not contiguous");
  // Padded rows (72 elements apart) under a 128-byte swizzle.
  expect_rejects([&] {
    make_gmma_desc(SwizzleLayout{Swizzle{3, 3, 3}, 0, L(S(64, 64), S(72, 1))}, GmmaMajor::kK, 16, 64);
  },
                 "rows are not one swizzle row");
  // 32 B swizzle but the two 16-byte halves of a k-block apart.
  expect_rejects([&] {
    make_gmma_desc(SwizzleLayout{Swizzle{1, 3, 3}, 0, L(S(64, S(8, 2)), S(16, S(1, 2048)))}, GmmaMajor::kK, 16, 64);
  }, "not adjacent");
  // Groups of 8 rows in a non-linear order: rows 8-15 at +4096, rows 16-23 at +512.
  expect_rejects([&] {
    Layout rows = L(S(S(8, 2, 8), 64), S(S(64, 4096, 512), 1));
    make_gmma_desc(SwizzleLayout{Swizzle{3, 3, 3}, 0, rows}, GmmaMajor::kK, 16, 64);
  }, "not a canonical GMMA K-major layout");
  // K shorter than one 32-byte k-block; a wgmma MN extent that is not whole core groups.
  expect_rejects([&] { make_gmma_desc(L(S(64, 8), S(8, 1)), GmmaMajor::kK, 16); }, "32-byte wgmma k-blocks");
  expect_rejects([&] { make_gmma_desc(k128, GmmaMajor::kK, 16, 12); }, "core groups");
  expect_rejects([&] { make_gmma_desc(k128, GmmaMajor::kK, 16, 48); }, "whole number of wgmma operands");
  expect_rejects([&] { make_gmma_desc(tile_to_shape(gmma_atom_mn_sw128(), S(128, 64)), GmmaMajor::kMN, 16, 32); },
                 "core groups");
  expect_rejects([&] { make_gmma_desc(k128, GmmaMajor::kK, 24, 64); }, "power of two");
  expect_rejects([&] { make_gmma_desc(L(64), GmmaMajor::kK, 16); }, "an MN and a K mode");
  // An operand that starts off a 16-byte boundary.
  SwizzleLayout off = k128;
  off.offset = 4;
  expect_rejects([&] { make_gmma_desc(off, GmmaMajor::kK, 16, 64); }, "16-byte boundary");
  expect_rejects([&] { gmma_desc_offset(k128, 16, S(0, 4)); }, "16-byte boundary");
  // A byte offset past 14 bits: 8-row groups 2^18 bytes apart.
  expect_rejects([&] { make_gmma_desc(L(S(S(8, 2), 16), S(S(8, 131072), 1)), GmmaMajor::kK, 16); }, "14 bits");
}

// ---------------------------------------------------------------------------------------------
// The m64nNk16 atoms
// ---------------------------------------------------------------------------------------------

// PTX ISA, wgmma register fragments for m64nNk16 (.f16/.bf16 inputs, 32-bit accumulators):
// thread t of the warpgroup, warp w = t / 32, lane l = t % 32. D value v = 4i + 2h + b sits at row
// 16w + l/4 + 8h, column 8i + 2(l%4) + b. A in registers (64 x 16): a_v, v = 4i + 2h + b, sits at
// row 16w + l/4 + 8h, column (k) 8i + 2(l%4) + b.
struct RC {
  i64 row, col;
};
RC isa_d(i64 t, i64 v) {
  i64 w = t / 32, l = t % 32, i = v / 4, h = (v / 2) % 2, b = v % 2;
  return {16 * w + l / 4 + 8 * h, 8 * i + 2 * (l % 4) + b};
}

TEST(GmmaAtom, AccumulatorsFollowTheIsaFragment) {
  for (int n = 8; n <= 256; n += 8) {
    SCOPED_TRACE(testing::Message() << "N = " << n);
    MMAAtom a = mma_atom_sm90_64xNx16(n);
    EXPECT_EQ(a.shape_mnk, S(64, n, 16));
    EXPECT_EQ(str(a.thr_id), "128:1");
    ASSERT_EQ(size(a.c_tv).v, 64 * n);
    ASSERT_EQ(size(get(a.c_tv, 0)).v, 128);
    std::vector<int> hits(size_t(64 * n), 0);
    for (i64 t = 0; t < 128; ++t)
      for (i64 v = 0; v < n / 2; ++v) {
        RC e = isa_d(t, v);
        i64 got = a.c_tv(t, v);  // column-major index in the 64 x N tile
        ASSERT_EQ(got % 64, e.row) << "t " << t << " v " << v;
        ASSERT_EQ(got / 64, e.col) << "t " << t << " v " << v;
        ++hits[size_t(got)];
      }
    for (int h : hits) ASSERT_EQ(h, 1);
  }
  EXPECT_THROW(mma_atom_sm90_64xNx16(0), LayoutError);
  EXPECT_THROW(mma_atom_sm90_64xNx16(12), LayoutError);
  EXPECT_THROW(mma_atom_sm90_64xNx16(264), LayoutError);
}

TEST(GmmaAtom, OperandsInSharedMemoryBelongToTheWarpgroup) {
  MMAAtom a = mma_atom_sm90_64xNx16(96);
  // Every thread sees the whole operand: thread stride 0, values the column-major tile.
  for (i64 t : {0, 5, 127}) {
    for (i64 v = 0; v < 64 * 16; ++v) ASSERT_EQ(a.a_tv(t, v), v);
    for (i64 v = 0; v < 96 * 16; ++v) ASSERT_EQ(a.b_tv(t, v), v);
  }
  // A in registers follows the ISA's A fragment (the D pattern over 64 x 16).
  MMAAtom rs = mma_atom_sm90_64xNx16(96, GmmaA::kRegs);
  for (i64 t = 0; t < 128; ++t)
    for (i64 v = 0; v < 8; ++v) {
      RC e = isa_d(t, v);
      ASSERT_EQ(rs.a_tv(t, v), e.row + 64 * e.col) << "t " << t << " v " << v;
    }
  EXPECT_EQ(str(rs.b_tv), str(a.b_tv));
  EXPECT_EQ(str(rs.c_tv), str(a.c_tv));
}

// The atoms, TiledMMA over 2 warpgroups along M and its partitions, against CuTe's printouts for
// SM90_64xNx16_F32BF16BF16_SS (N = 64, 8, 256), SM90_64x24x16_F32F16F16_SS and
// SM90_64x64x16_F32BF16BF16_RS with make_tiled_mma(atom, Layout<Shape<_2,_1,_1>>).
TEST(GmmaAtom, TiledOverWarpgroupsMatchesCuTe) {
  MMAAtom ss64 = mma_atom_sm90_64xNx16(64);
  EXPECT_EQ(str(ss64.a_tv), "(128,(64,16)):(0,(1,64))");
  EXPECT_EQ(str(ss64.b_tv), "(128,(64,16)):(0,(1,64))");
  EXPECT_EQ(str(ss64.c_tv), "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))");
  EXPECT_EQ(str(mma_atom_sm90_64xNx16(8).c_tv), "((4,8,4),(2,2,1)):((128,1,16),(64,8,512))");
  EXPECT_EQ(str(mma_atom_sm90_64xNx16(64, GmmaA::kRegs).a_tv), "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))");

  TiledMMA m = make_tiled_mma(ss64, make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(m.size(), 256);
  EXPECT_EQ(str(m.thr_layout_vmnk), "(128,2,1,1):(1,128,0,0)");
  EXPECT_EQ(str(m.get_layoutC_TV()), "((4,8,8),((2,2,8),(1,1))):((256,1,16),((128,8,1024),(0,0)))");
  EXPECT_EQ(str(m.get_layoutA_TV()), "((128,2),((64,16),(1,1))):((0,64),((1,128),(0,0)))");
  EXPECT_EQ(str(m.get_layoutB_TV()), "(256,((64,16),(1,1))):(0,((1,64),(0,0)))");
  Layout C = make_layout(make_shape(128, 64)), A = make_layout(make_shape(128, 64));
  Layout B = make_layout(make_shape(64, 64));
  EXPECT_EQ(str(m.get_slice(0).partition_C(C)), "((2,2,8),1,1):((128,8,1024),0,0)@0");
  EXPECT_EQ(str(m.get_slice(130).partition_C(C)), "((2,2,8),1,1):((128,8,1024),0,0)@576");
  EXPECT_EQ(str(m.get_slice(0).partition_A(A)), "((64,16),1,4):((1,128),0,2048)@0");
  EXPECT_EQ(str(m.get_slice(130).partition_A(A)), "((64,16),1,4):((1,128),0,2048)@64");
  EXPECT_EQ(str(m.get_slice(130).partition_B(B)), "((64,16),1,4):((1,64),0,1024)@0");

  TiledMMA m8 = make_tiled_mma(mma_atom_sm90_64xNx16(8), make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(str(m8.get_layoutB_TV()), "(256,((8,16),(1,1))):(0,((1,8),(0,0)))");
  EXPECT_EQ(str(m8.get_slice(201).partition_C(make_layout(make_shape(128, 8)))),
            "((2,2,1),1,1):((128,8,1024),0,0)@354");
  EXPECT_EQ(str(m8.get_slice(201).partition_B(make_layout(make_shape(8, 64)))), "((8,16),1,4):((1,8),0,128)@0");
  TiledMMA m256 = make_tiled_mma(mma_atom_sm90_64xNx16(256), make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(str(m256.get_slice(255).partition_C(make_layout(make_shape(128, 256)))),
            "((2,2,32),1,1):((128,8,1024),0,0)@887");
  TiledMMA m24 = make_tiled_mma(mma_atom_sm90_64xNx16(24), make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(str(m24.get_slice(37).partition_C(make_layout(make_shape(128, 24)))),
            "((2,2,3),1,1):((128,8,1024),0,0)@273");
  TiledMMA rs = make_tiled_mma(mma_atom_sm90_64xNx16(64, GmmaA::kRegs), make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(str(rs.get_layoutA_TV()), "((4,8,8),((2,2,2),(1,1))):((256,1,16),((128,8,1024),(0,0)))");
  EXPECT_EQ(str(rs.get_slice(201).partition_A(A)), "((2,2,2),1,4):((128,8,1024),0,2048)@354");
}

// partition_C of a 128 x N tile over 2 warpgroups: thread t's value v is the ISA's D fragment of
// warp (t % 128) / 32 in warpgroup t / 128, whose rows start at 64 (t / 128); every element once.
TEST(GmmaAtom, PartitionCOverTwoWarpgroups) {
  for (int n : {8, 24, 64, 128, 256}) {
    SCOPED_TRACE(testing::Message() << "N = " << n);
    TiledMMA m = make_tiled_mma(mma_atom_sm90_64xNx16(n), make_layout(make_shape(2, 1, 1)));
    Layout c = make_layout(make_shape(128, n));  // column-major 128 x N
    std::vector<int> hits(size_t(128 * n), 0);
    for (i64 t = 0; t < 256; ++t) {
      OffsetLayout p = m.get_slice(t).partition_C(c);
      ASSERT_EQ(size(p.layout).v, n / 2);
      for (i64 v = 0; v < n / 2; ++v) {
        RC e = isa_d(t % 128, v);
        i64 off = p.offset + p.layout(v);
        ASSERT_EQ(off % 128, 64 * (t / 128) + e.row) << "t " << t << " v " << v;
        ASSERT_EQ(off / 128, e.col) << "t " << t << " v " << v;
        ++hits[size_t(off)];
      }
    }
    for (int h : hits) ASSERT_EQ(h, 1);
  }
  // The same on a row-major C (ldc = N): offsets follow the layout, coordinates do not change.
  TiledMMA m = make_tiled_mma(mma_atom_sm90_64xNx16(64), make_layout(make_shape(2, 1, 1)));
  Layout c = make_layout(make_shape(128, 64), LayoutRight{});
  for (i64 t : {0, 77, 128, 255})
    for (i64 v = 0; v < 32; ++v) {
      RC e = isa_d(t % 128, v);
      OffsetLayout p = m.get_slice(t).partition_C(c);
      ASSERT_EQ(p.offset + p.layout(v), (64 * (t / 128) + e.row) * 64 + e.col);
    }
}

// A warpgroup's A operand is its 64-row slab of the stage tile: the partition's (64,16) mode, at
// each k-block, is the operand make_gmma_desc describes, and its offset is gmma_desc_offset's.
TEST(GmmaAtom, PartitionAIsTheDescribedOperand) {
  TiledMMA m = make_tiled_mma(mma_atom_sm90_64xNx16(128), make_layout(make_shape(2, 1, 1)));
  SwizzleLayout sA = tile_to_shape(gmma_atom_k_sw128(), S(128, 64));
  for (i64 t : {0, 200}) {
    OffsetLayout p = m.get_slice(t).partition_A(sA.layout);  // ((64,16), 1, 4)
    EXPECT_EQ(str(p.layout.shape), "((64,16),1,4)");
    i64 wg = t / 128;
    for (i64 kb = 0; kb < 4; ++kb) {
      i64 first = p.offset + p.layout(make_coord(make_coord(0, 0), 0, kb));
      EXPECT_EQ(first / 8, gmma_desc_offset(sA, 16, S(64 * wg, 16 * kb)));
      for (i64 mm = 0; mm < 64; ++mm)
        for (i64 kk = 0; kk < 16; ++kk)
          ASSERT_EQ(p.offset + p.layout(make_coord(make_coord(mm, kk), 0, kb)), sA.layout(64 * wg + mm, 16 * kb + kk));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The m64nNk32 atoms (8-bit inputs)
// ---------------------------------------------------------------------------------------------

// PTX ISA, wgmma register fragment of A for 8-bit types (m64nNk32): four 32-bit registers of four
// elements; value v = 8i + 4h + b of thread t (warp w = t / 32, lane l = t % 32) is row
// 16w + l/4 + 8h, column (k) 16i + 4(l%4) + b. D is m64nNk16's (isa_d).
RC isa_a8(i64 t, i64 v) {
  i64 w = t / 32, l = t % 32, i = v / 8, h = (v / 4) % 2, b = v % 4;
  return {16 * w + l / 4 + 8 * h, 16 * i + 4 * (l % 4) + b};
}

// Every (thread, value) of C, and of A from registers, is a distinct element: 128 threads x N/2
// values cover 64 x N, 128 x 16 values cover 64 x 32. A and B in shared memory give every thread
// the whole 64 x 32 / N x 32 tile, once.
TEST(GmmaAtom32, TvLayoutsAreConsistent) {
  for (int n = 8; n <= 256; n += 8) {
    SCOPED_TRACE(testing::Message() << "N = " << n);
    MMAAtom a = mma_atom_sm90_64xNx32(n);
    EXPECT_EQ(a.shape_mnk, S(64, n, 32));
    EXPECT_EQ(str(a.thr_id), "128:1");
    ASSERT_EQ(size(get(a.c_tv, 0)).v, 128);
    ASSERT_EQ(size(get(a.c_tv, 1)).v, 64 * n / 128);
    std::vector<int> c_hits(size_t(64 * n), 0);
    for (i64 t = 0; t < 128; ++t)
      for (i64 v = 0; v < n / 2; ++v) {
        i64 got = a.c_tv(t, v);
        ASSERT_TRUE(got >= 0 && got < 64 * n);
        RC e = isa_d(t, v);  // the accumulators do not depend on the input width
        ASSERT_EQ(got, e.row + 64 * e.col) << "t " << t << " v " << v;
        ++c_hits[size_t(got)];
      }
    for (int h : c_hits) ASSERT_EQ(h, 1);
    EXPECT_EQ(str(a.c_tv), str(mma_atom_sm90_64xNx16(n).c_tv));
    ASSERT_EQ(size(get(a.b_tv, 1)).v, n * 32);
    for (i64 t : {0, 77, 127}) {
      std::vector<int> b_hits(size_t(n * 32), 0);
      for (i64 v = 0; v < n * 32; ++v) ++b_hits[size_t(a.b_tv(t, v))];
      for (int h : b_hits) ASSERT_EQ(h, 1);
    }
  }
  MMAAtom ss = mma_atom_sm90_64xNx32(64);
  ASSERT_EQ(size(get(ss.a_tv, 1)).v, 64 * 32);
  for (i64 t : {0, 77, 127})
    for (i64 v = 0; v < 64 * 32; ++v) ASSERT_EQ(ss.a_tv(t, v), v);  // (m, k) = (v % 64, v / 64)

  MMAAtom rs = mma_atom_sm90_64xNx32(64, GmmaA::kRegs);
  ASSERT_EQ(size(get(rs.a_tv, 0)).v, 128);
  ASSERT_EQ(size(get(rs.a_tv, 1)).v, 64 * 32 / 128);
  std::vector<int> a_hits(64 * 32, 0);
  for (i64 t = 0; t < 128; ++t)
    for (i64 v = 0; v < 16; ++v) {
      RC e = isa_a8(t, v);
      ASSERT_EQ(rs.a_tv(t, v), e.row + 64 * e.col) << "t " << t << " v " << v;
      ++a_hits[size_t(rs.a_tv(t, v))];
    }
  for (int h : a_hits) ASSERT_EQ(h, 1);
  EXPECT_EQ(str(rs.b_tv), str(ss.b_tv));
  EXPECT_EQ(str(rs.c_tv), str(ss.c_tv));

  EXPECT_THROW(mma_atom_sm90_64xNx32(0), LayoutError);
  EXPECT_THROW(mma_atom_sm90_64xNx32(20), LayoutError);
  EXPECT_THROW(mma_atom_sm90_64xNx32(264), LayoutError);
}

// Against CuTe's printouts of SM90_64xNx32_F32E4M3E4M3_SS_TN / _RS_TN (N = 64),
// SM90_64x8x32_F32E5M2E4M3_SS_TN and SM90_64x256x32_F32E4M3E5M2_SS_TN: the traits' ALayout,
// BLayout, CLayout, and make_tiled_mma(atom, Layout<Shape<_2,_1,_1>>) with its TV layouts and the
// partitions of column-major 128 x 128 A, 64 x 128 B and 128 x 64 C counting tensors.
TEST(GmmaAtom32, MatchesCuTe) {
  MMAAtom ss = mma_atom_sm90_64xNx32(64);
  EXPECT_EQ(str(ss.a_tv), "(128,(64,32)):(0,(1,64))");
  EXPECT_EQ(str(ss.b_tv), "(128,(64,32)):(0,(1,64))");
  EXPECT_EQ(str(ss.c_tv), "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))");
  EXPECT_EQ(str(mma_atom_sm90_64xNx32(64, GmmaA::kRegs).a_tv), "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))");
  EXPECT_EQ(str(mma_atom_sm90_64xNx32(8).b_tv), "(128,(8,32)):(0,(1,8))");
  EXPECT_EQ(str(mma_atom_sm90_64xNx32(8).c_tv), "((4,8,4),(2,2,1)):((128,1,16),(64,8,512))");
  EXPECT_EQ(str(mma_atom_sm90_64xNx32(256).b_tv), "(128,(256,32)):(0,(1,256))");
  EXPECT_EQ(str(mma_atom_sm90_64xNx32(256).c_tv), "((4,8,4),(2,2,32)):((128,1,16),(64,8,512))");

  TiledMMA m = make_tiled_mma(ss, make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(str(m.get_layoutA_TV()), "((128,2),((64,32),(1,1))):((0,64),((1,128),(0,0)))");
  EXPECT_EQ(str(m.get_layoutB_TV()), "(256,((64,32),(1,1))):(0,((1,64),(0,0)))");
  EXPECT_EQ(str(m.get_layoutC_TV()), "((4,8,8),((2,2,8),(1,1))):((256,1,16),((128,8,1024),(0,0)))");
  Layout A = make_layout(make_shape(128, 128)), B = make_layout(make_shape(64, 128)), C = make_layout(make_shape(128, 64));
  EXPECT_EQ(str(m.get_slice(0).partition_A(A)), "((64,32),1,4):((1,128),0,4096)@0");
  EXPECT_EQ(str(m.get_slice(130).partition_A(A)), "((64,32),1,4):((1,128),0,4096)@64");
  EXPECT_EQ(str(m.get_slice(130).partition_B(B)), "((64,32),1,4):((1,64),0,2048)@0");
  EXPECT_EQ(str(m.get_slice(130).partition_C(C)), "((2,2,8),1,1):((128,8,1024),0,0)@576");
  EXPECT_EQ(str(m.get_slice(255).partition_C(C)), "((2,2,8),1,1):((128,8,1024),0,0)@887");

  TiledMMA rs = make_tiled_mma(mma_atom_sm90_64xNx32(64, GmmaA::kRegs), make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(str(rs.get_layoutA_TV()), "((4,8,8),((4,2,2),(1,1))):((512,1,16),((128,8,2048),(0,0)))");
  EXPECT_EQ(str(rs.get_slice(0).partition_A(A)), "((4,2,2),1,4):((128,8,2048),0,4096)@0");
  EXPECT_EQ(str(rs.get_slice(201).partition_A(A)), "((4,2,2),1,4):((128,8,2048),0,4096)@610");
  EXPECT_EQ(str(rs.get_slice(201).partition_C(C)), "((2,2,8),1,1):((128,8,1024),0,0)@354");

  TiledMMA m8 = make_tiled_mma(mma_atom_sm90_64xNx32(8), make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(str(m8.get_layoutB_TV()), "(256,((8,32),(1,1))):(0,((1,8),(0,0)))");
  EXPECT_EQ(str(m8.get_slice(201).partition_A(make_layout(make_shape(128, 64)))), "((64,32),1,2):((1,128),0,4096)@64");
  EXPECT_EQ(str(m8.get_slice(201).partition_B(make_layout(make_shape(8, 64)))), "((8,32),1,2):((1,8),0,256)@0");
  EXPECT_EQ(str(m8.get_slice(201).partition_C(make_layout(make_shape(128, 8)))), "((2,2,1),1,1):((128,8,1024),0,0)@354");
  TiledMMA m256 = make_tiled_mma(mma_atom_sm90_64xNx32(256), make_layout(make_shape(2, 1, 1)));
  EXPECT_EQ(str(m256.get_layoutB_TV()), "(256,((256,32),(1,1))):(0,((1,256),(0,0)))");
  EXPECT_EQ(str(m256.get_layoutC_TV()), "((4,8,8),((2,2,32),(1,1))):((256,1,16),((128,8,1024),(0,0)))");
}

// A warpgroup's A operand in an 8-bit K-major stage tile (128 x 128, SW128): the partition's
// (64,32) mode at each of the 4 k-blocks is the operand make_gmma_desc describes, starting
// gmma_desc_offset units from the tile's origin.
TEST(GmmaAtom32, PartitionAIsTheDescribedOperand) {
  TiledMMA m = make_tiled_mma(mma_atom_sm90_64xNx32(128), make_layout(make_shape(2, 1, 1)));
  SwizzleLayout sA = tile_to_shape(gmma_atom_k_sw128(8), S(128, 128));
  GmmaDesc d = make_gmma_desc(sA, GmmaMajor::kK, 8, 64);
  for (i64 t : {0, 200}) {
    OffsetLayout p = m.get_slice(t).partition_A(sA.layout);
    EXPECT_EQ(str(p.layout.shape), "((64,32),1,4)");
    i64 wg = t / 128;
    for (i64 kb = 0; kb < 4; ++kb) {
      i64 first = p.offset + p.layout(make_coord(make_coord(0, 0), 0, kb));
      ASSERT_EQ(first % 16, 0);
      EXPECT_EQ(first / 16, gmma_desc_offset(sA, 8, S(64 * wg, 32 * kb)));
      unsigned long long desc = d.advanced(first / 16).at(0x8000).encode();
      for (i64 mm = 0; mm < 64; ++mm)
        for (i64 kk = 0; kk < 32; ++kk) {
          i64 elem = p.offset + p.layout(make_coord(make_coord(mm, kk), 0, kb));
          ASSERT_EQ(elem, sA.layout(64 * wg + mm, 32 * kb + kk));
          ASSERT_EQ(isa_address(desc, GmmaMajor::kK, 8, mm, kk), 0x8000 + sA.swizzle(elem));
        }
    }
  }
}

}  // namespace

// partition_fragment_C: the accumulators of one thread of a TiledMMA, compact in partition_C's
// order. Two warpgroups of m64n256k16 over a 128 x 256 tile (the sm90 kernel's) give each of the 256
// threads the atom's 128 fp32 registers, shaped as the atom's values (2,2,32).
TEST(Gmma, PartitionFragmentC) {
  constexpr TiledMMA kMma = make_tiled_mma(mma_atom_sm90_64xNx16(256), make_layout(make_shape(2, 1, 1)));
  using Frag = decltype(partition_fragment_C<float, kMma, make_layout(make_shape(128, 256))>());
  static_assert(Frag::kSize == 128);
  EXPECT_EQ(to_string(Frag::layout), "((2,2,32),1,1):((1,2,4),0,0)");
  EXPECT_EQ(kMma.size(), 256);
}
