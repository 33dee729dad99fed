// Loom layout core: SM90 warpgroup MMA (wgmma). Host-side core of the Hopper GEMM:
//
//  - the canonical shared-memory layout atoms wgmma reads (K-major and MN-major; no swizzle, or a
//    32-, 64- or 128-byte swizzle), as SwizzleLayouts over elements of any power-of-two width;
//  - tile_to_shape, which repeats an atom over a stage tile;
//  - the 64-bit wgmma matrix descriptor, derived from a (swizzled) shared-memory layout: its
//    swizzle gives the mode, the strides of the canonical layout give the leading- and
//    stride-dimension byte offsets, and anything that is not a canonical layout is rejected;
//  - the m64nNk16 atoms (fp16/bf16 inputs) and m64nNk32 atoms (8-bit e4m3/e5m2 inputs), fp32
//    accumulators, as TV layouts over the 128 threads of a warpgroup, for make_tiled_mma and
//    partition_A/B/C.
//
// wgmma transposes 16-bit operands only (imm-trans-a/b exist for .f16/.bf16 alone): an 8-bit or
// tf32 operand is read K-major, so make_gmma_desc rejects an MN-major descriptor for them. The
// atoms themselves stay defined for every width, as CuTe's are: an MN-major 8-bit tile is a valid
// shared-memory layout (a staging buffer that is transposed on its way to a K-major one), just
// not a wgmma operand.
//
// Semantics follow NVIDIA CuTe (cute/atom/mma_traits_sm90_gmma.hpp, cute/arch/mma_sm90_desc.hpp,
// CUTLASS v4.7.0) and the PTX ISA ("Asynchronous Warpgroup Level Matrix Shared Memory Layout":
// "Shared Memory Matrix Layout", "Strides", "Matrix Descriptor Format"). One difference in
// representation: CuTe keeps the atoms' swizzle on the byte address (Swizzle<B,4,3> for every
// element type); a Loom SwizzleLayout swizzles element offsets from the buffer's base, so the same
// function is Swizzle<B, log2(16 bytes / element), 3>: Swizzle<3,3,3> o (8,64):(64,1) for the
// 16-bit K-major 128-byte atom. The two agree when the buffer starts on a multiple of the
// swizzle's repeat (1024 bytes for 128B), which is what a descriptor with base offset 0 assumes.
#pragma once

#include "layout/copy.hpp"  // upcast
#include "layout/layout.hpp"
#include "layout/mma.hpp"
#include "layout/swizzle.hpp"

namespace loom {

// ---------------------------------------------------------------------------------------------
// tile_to_shape (belongs in layout.hpp; it lives here until it moves, guarded so that the move
// only has to define LOOM_HAS_TILE_TO_SHAPE there)
// ---------------------------------------------------------------------------------------------

#ifndef LOOM_HAS_TILE_TO_SHAPE
#define LOOM_HAS_TILE_TO_SHAPE

// The block repeated over `shape`: the block is padded to rank(shape) with 1:0 modes, and a
// blocked_product lays copies of it out over (shape / block shape), mode by mode, in the order
// `order` gives (the copies run along the mode of the smallest order first; equal orders as in
// make_ordered_layout). Each static extent of the block must divide the target's.
// tile_to_shape((2,3):(3,1), (6,12)) is ((2,3),(3,4)):((3,6),(1,18)).
constexpr Layout tile_to_shape(Layout const& block, IntTuple const& shape, IntTuple const& order) {
  int R = rank(shape);
  LOOM_REQUIRE(rank(block) <= R, "tile_to_shape: the block has more modes than the target shape");
  Layout padded = append(block, R);
  IntTuple bs = product_each(padded.shape), ts = product_each(shape);
  for (int i = 0; i < R; ++i) {
    Int b = as_int(get(bs, i)), t = as_int(get(ts, i));
    if (b.is_static() && t.is_static())
      LOOM_REQUIRE(t.v % b.v == 0, "tile_to_shape: the block's shape does not divide the target shape");
  }
  IntTuple reps = ceil_div(ts, bs);
  LOOM_REQUIRE(rank(order) == R && depth(order) <= 1,
               "tile_to_shape: the order needs one integer per mode of the shape");
  return blocked_product(padded, make_ordered_layout(reps, wrap(order)));
}
// Column-major order: the copies run along mode 0 first (CuTe's default, LayoutLeft).
constexpr Layout tile_to_shape(Layout const& block, IntTuple const& shape) {
  int R = rank(shape);
  TupleBuilder o;
  for (int i = 0; i < R; ++i) o.push(IntTuple(i));
  return tile_to_shape(block, shape, o.done());
}
constexpr Layout tile_to_shape(Layout const& block, IntTuple const& shape, LayoutLeft) {
  return tile_to_shape(block, shape);
}
constexpr Layout tile_to_shape(Layout const& block, IntTuple const& shape, LayoutRight) {
  int R = rank(shape);
  TupleBuilder o;
  for (int i = 0; i < R; ++i) o.push(IntTuple(R - 1 - i));
  return tile_to_shape(block, shape, o.done());
}
// A swizzled block: the swizzle stays outside, over the whole tile.
constexpr SwizzleLayout tile_to_shape(SwizzleLayout const& block, IntTuple const& shape) {
  return {block.swizzle, block.offset, tile_to_shape(block.layout, shape)};
}
constexpr SwizzleLayout tile_to_shape(SwizzleLayout const& block, IntTuple const& shape, IntTuple const& order) {
  return {block.swizzle, block.offset, tile_to_shape(block.layout, shape, order)};
}
constexpr SwizzleLayout tile_to_shape(SwizzleLayout const& block, IntTuple const& shape, LayoutLeft) {
  return tile_to_shape(block, shape);
}
constexpr SwizzleLayout tile_to_shape(SwizzleLayout const& block, IntTuple const& shape, LayoutRight r) {
  return {block.swizzle, block.offset, tile_to_shape(block.layout, shape, r)};
}

#endif  // LOOM_HAS_TILE_TO_SHAPE

// ---------------------------------------------------------------------------------------------
// Shared-memory layout atoms
// ---------------------------------------------------------------------------------------------

// Which dimension of an A (M x K) or B (N x K) operand is contiguous in shared memory. wgmma's
// imm-trans-a/b is 0 for K-major and 1 for MN-major.
enum class GmmaMajor : unsigned char { kK, kMN };

// The descriptor's swizzle modes (bits 62-63), valued as the PTX ISA encodes them. kInterleave is
// "no swizzle": 8 x 16-byte core matrices.
enum class GmmaSwizzle : unsigned char { kInterleave = 0, k128B = 1, k64B = 2, k32B = 3 };

namespace detail {
constexpr int gmma_log2(i64 x) {
  LOOM_REQUIRE(x > 0 && (x & (x - 1)) == 0, "gmma: expected a power of two");
  int r = 0;
  while ((i64(1) << r) < x) ++r;
  return r;
}
constexpr void gmma_check_bits(int elem_bits) {
  LOOM_REQUIRE(elem_bits > 0 && elem_bits <= 128 && (elem_bits & (elem_bits - 1)) == 0,
               "gmma: the element width must be a power of two of at most 128 bits");
}
}  // namespace detail

// B of the swizzle: log2 of the 16-byte chunks in one swizzle row (0, 1, 2, 3).
constexpr int gmma_swizzle_log2_chunks(GmmaSwizzle s) {
  switch (s) {
    case GmmaSwizzle::kInterleave: return 0;
    case GmmaSwizzle::k32B: return 1;
    case GmmaSwizzle::k64B: return 2;
    default: return 3;
  }
}
// Bytes in one row of the atom: 16 without swizzle, else the swizzle's width.
constexpr int gmma_swizzle_bytes(GmmaSwizzle s) { return 16 << gmma_swizzle_log2_chunks(s); }
constexpr GmmaSwizzle gmma_swizzle_of_bits(int b) {
  LOOM_REQUIRE(0 <= b && b <= 3, "gmma: a swizzle of more than 3 bits has no wgmma mode");
  return b == 0   ? GmmaSwizzle::kInterleave
         : b == 1 ? GmmaSwizzle::k32B
         : b == 2 ? GmmaSwizzle::k64B
                  : GmmaSwizzle::k128B;
}

// The swizzle of mode s over elem_bits-wide elements: in bits it is Swizzle<B,7,3> (rows of 8
// 16-byte chunks, 2^7 bits each); over wider units the base drops by log2 of the width.
constexpr Swizzle gmma_swizzle(GmmaSwizzle s, int elem_bits = 16) {
  detail::gmma_check_bits(elem_bits);
  return make_swizzle(gmma_swizzle_log2_chunks(s), 7 - detail::gmma_log2(elem_bits), 3);
}

// The canonical atom of one swizzle row per line, 8 lines, 16 << B bytes each: in bits,
// K-major (8, R):(R, 1) and MN-major (R, 8):(1, R) with R = 128 << B, under Swizzle<B,7,3>;
// upcast to elem_bits. For 16-bit elements: K-major SW128 is Swizzle<3,3,3> o (8,64):(64,1),
// MN-major SW64 is Swizzle<2,3,3> o (32,8):(1,32), K-major no-swizzle is (8,8):(8,1).
constexpr SwizzleLayout gmma_atom(GmmaMajor major, GmmaSwizzle s, int elem_bits = 16) {
  detail::gmma_check_bits(elem_bits);
  i64 row_bits = i64(gmma_swizzle_bytes(s)) * 8;
  Layout in_bits = major == GmmaMajor::kK ? make_layout(make_shape(8, row_bits), make_stride(row_bits, 1))
                                          : make_layout(make_shape(row_bits, 8), make_stride(1, row_bits));
  return {gmma_swizzle(s, elem_bits), 0, upcast(in_bits, elem_bits)};
}
// CuTe's GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>.
constexpr SwizzleLayout gmma_atom_k_inter(int elem_bits = 16) {
  return gmma_atom(GmmaMajor::kK, GmmaSwizzle::kInterleave, elem_bits);
}
constexpr SwizzleLayout gmma_atom_k_sw32(int elem_bits = 16) {
  return gmma_atom(GmmaMajor::kK, GmmaSwizzle::k32B, elem_bits);
}
constexpr SwizzleLayout gmma_atom_k_sw64(int elem_bits = 16) {
  return gmma_atom(GmmaMajor::kK, GmmaSwizzle::k64B, elem_bits);
}
constexpr SwizzleLayout gmma_atom_k_sw128(int elem_bits = 16) {
  return gmma_atom(GmmaMajor::kK, GmmaSwizzle::k128B, elem_bits);
}
constexpr SwizzleLayout gmma_atom_mn_inter(int elem_bits = 16) {
  return gmma_atom(GmmaMajor::kMN, GmmaSwizzle::kInterleave, elem_bits);
}
constexpr SwizzleLayout gmma_atom_mn_sw32(int elem_bits = 16) {
  return gmma_atom(GmmaMajor::kMN, GmmaSwizzle::k32B, elem_bits);
}
constexpr SwizzleLayout gmma_atom_mn_sw64(int elem_bits = 16) {
  return gmma_atom(GmmaMajor::kMN, GmmaSwizzle::k64B, elem_bits);
}
constexpr SwizzleLayout gmma_atom_mn_sw128(int elem_bits = 16) {
  return gmma_atom(GmmaMajor::kMN, GmmaSwizzle::k128B, elem_bits);
}

// ---------------------------------------------------------------------------------------------
// The matrix descriptor
// ---------------------------------------------------------------------------------------------

// PTX ISA, Matrix Descriptor Format: bits 0-13 start address, 16-29 leading-dimension byte
// offset, 32-45 stride-dimension byte offset, each as matrix-descriptor-encode(x) =
// (x & 0x3FFFF) >> 4; bits 49-51 the base offset; bits 62-63 the swizzle mode.
constexpr unsigned gmma_desc_encode(i64 bytes) { return unsigned((bytes & 0x3FFFF) >> 4); }

struct GmmaDesc {
  unsigned start = 0;        // encoded start address (16-byte units, 14 bits)
  unsigned lbo = 0;          // encoded leading-dimension byte offset
  unsigned sbo = 0;          // encoded stride-dimension byte offset
  unsigned base_offset = 0;  // 3 bits
  GmmaSwizzle swizzle = GmmaSwizzle::kInterleave;

  constexpr unsigned long long encode() const {
    return (unsigned long long)(start & 0x3FFF) | (unsigned long long)(lbo & 0x3FFF) << 16 |
           (unsigned long long)(sbo & 0x3FFF) << 32 | (unsigned long long)(base_offset & 0x7) << 49 |
           (unsigned long long)(unsigned(swizzle) & 0x3) << 62;
  }
  static constexpr GmmaDesc decode(unsigned long long d) {
    return {unsigned(d & 0x3FFF), unsigned((d >> 16) & 0x3FFF), unsigned((d >> 32) & 0x3FFF),
            unsigned((d >> 49) & 0x7), GmmaSwizzle((d >> 62) & 0x3)};
  }
  // The descriptor of the matrix `units` 16-byte units further on (a k-block, a warpgroup's rows,
  // a pipeline stage: see gmma_desc_offset). The start field wraps as the 18-bit address does.
  constexpr GmmaDesc advanced(i64 units) const {
    GmmaDesc r = *this;
    r.start = unsigned((i64(start) + units) & 0x3FFF);
    return r;
  }
  // Placed in a buffer at shared-memory byte address smem_addr (the start of the swizzle pattern,
  // where the layout's offset 0 lies). Base offset per the ISA: 0 when the pattern starts on a
  // multiple of its repeat (1024, 512, 256 bytes for 128B, 64B, 32B), else
  // (pattern start address >> 7) & 7. Loom's layouts model the swizzle relative to the base, which
  // is the hardware's behaviour for aligned bases only: use aligned buffers (as CuTe does).
  constexpr GmmaDesc at(unsigned smem_addr) const {
    LOOM_REQUIRE(smem_addr % 16 == 0, "gmma_desc: the shared-memory address is not 16-byte aligned");
    GmmaDesc r = *this;
    r.start = gmma_desc_encode(i64(smem_addr) + (i64(start) << 4));
    i64 repeat = 8 * i64(gmma_swizzle_bytes(swizzle));
    r.base_offset = (swizzle == GmmaSwizzle::kInterleave || smem_addr % repeat == 0) ? 0u : (smem_addr >> 7) & 7u;
    return r;
  }
  constexpr bool operator==(GmmaDesc const& o) const { return encode() == o.encode(); }
};

namespace detail {

// The offset that mode `mode` of l contributes at integer coordinate c (a layout is the sum of its
// top-level modes' contributions).
constexpr i64 gmma_mode_eval(Layout const& l, int mode, i64 c) {
  return crd2idx_flat(c, l.shape, l.stride, child_node(l.shape, 0, mode));
}

// The canonical layout of one wgmma operand (PTX ISA, Shared Memory Matrix Layout; the same forms
// as CuTe's make_gmma_desc documents), in elements, with T elements per 16 bytes and w = 2^B
// 16-byte chunks per swizzle row, as an offset from the operand's first element:
//   K-major:              ((8,m),(T,2)) : ((w T, SBO), (1, LBO))     LBO = T when swizzled
//   MN-major, no swizzle: ((T,m),(8,k)) : ((1, SBO), (T, LBO))
//   MN-major, swizzled:   ((w T,m),(8,k)) : ((1, LBO), (w T, SBO))
// along_mn and along_k are the two free strides: the step to the next core group along MN (8 rows
// K-major, w T elements MN-major) and along K (the second 16-byte column K-major, K row 8
// MN-major).
struct GmmaCanon {
  GmmaMajor major;
  i64 t, w;
  i64 along_mn = 0, along_k = 0;
  constexpr i64 operator()(i64 mn, i64 k) const {
    if (major == GmmaMajor::kK) return (mn % 8) * w * t + (mn / 8) * along_mn + (k % t) + (k / t) * along_k;
    return (mn % (w * t)) + (mn / (w * t)) * along_mn + (k % 8) * w * t + (k / 8) * along_k;
  }
};

}  // namespace detail

// The descriptor of the wgmma operand at the origin of `tile`, an (MN, K, ...) shared-memory tile
// of elem_bits-wide elements (a stage tile from tile_to_shape, or any layout of that form; modes
// past the second are further stages). One wgmma reads mn_extent rows (64 for A, N for B; 0 means
// all of mode 0) and one 32-byte k-block (256 / elem_bits elements of K).
//
// Everything is read off the layout. The mode is the swizzle's B; the swizzle must be
// Swizzle<B, log2(16 bytes / element), 3> with B <= 3 (any swizzle with B = 0 is the identity).
// The strides of the canonical layout (detail::GmmaCanon) are the layout's offsets one core group
// along each dimension: K-major, SBO is the offset of row 8 (the next 8 rows) and, without
// swizzle, LBO that of the second 16-byte column of K; MN-major, the offset of the next run of
// w T elements of MN and of K row 8, which are (SBO, LBO) without swizzle and (LBO, SBO) with one.
// Per the ISA's Strides section, LBO of a swizzled K-major layout is not used and is 1 (16 bytes);
// a stride that one wgmma never takes (the operand is a single core group along it) is 0, as CuTe
// gives it. Every wgmma sub-tile of the tile, at each multiple of mn_extent rows, each k-block and
// each stage, must then equal the canonical layout with these strides, offset by its first
// element, so that gmma_desc_offset() moves the descriptor between them; anything else is rejected.
// start is the tile's offset (SwizzleLayout::offset) in 16-byte units; at() adds the buffer.
constexpr GmmaDesc make_gmma_desc(SwizzleLayout const& tile, GmmaMajor major, int elem_bits, i64 mn_extent = 0) {
  detail::gmma_check_bits(elem_bits);
  // Without a transpose bit the hardware reads the operand K-major whatever its layout is, so an
  // MN-major descriptor of another width would be read as the wrong matrix.
  LOOM_REQUIRE(major == GmmaMajor::kK || elem_bits == 16,
               "gmma_desc: wgmma reads MN-major operands of 16-bit types only; an 8-bit or 32-bit operand must be K-major");
  Swizzle const& sw = tile.swizzle;
  i64 const t = 128 / elem_bits;  // elements per 16 bytes
  LOOM_REQUIRE(sw.bits >= 0 && sw.bits <= 3, "gmma_desc: a swizzle of more than 3 bits has no wgmma mode");
  LOOM_REQUIRE(sw.bits == 0 || (sw.base == detail::gmma_log2(t) && sw.shift == 3),
               "gmma_desc: the swizzle is not Swizzle<B, log2(elements per 16 bytes), 3>");
  GmmaSwizzle mode = gmma_swizzle_of_bits(sw.bits);
  i64 const w = i64(1) << sw.bits;  // 16-byte chunks per swizzle row

  Layout const& l = tile.layout;
  LOOM_REQUIRE(rank(l) >= 2, "gmma_desc: the tile must have an MN and a K mode");
  i64 const mn_size = size(get(l.shape, 0)).v, k_size = size(get(l.shape, 1)).v;
  i64 const kk = 2 * t;  // one wgmma k-block: 32 bytes of K
  if (mn_extent == 0) mn_extent = mn_size;
  i64 const group = major == GmmaMajor::kK ? 8 : w * t;  // rows of one core group along MN
  LOOM_REQUIRE(k_size % kk == 0, "gmma_desc: K is not a whole number of 32-byte wgmma k-blocks");
  LOOM_REQUIRE(mn_extent > 0 && mn_extent % group == 0,
               "gmma_desc: the wgmma's MN extent is not a whole number of core groups "
               "(8 rows K-major, one swizzle row MN-major)");
  LOOM_REQUIRE(mn_size % mn_extent == 0, "gmma_desc: the tile's MN extent is not a whole number of wgmma operands");

  // The canonical strides, read at the origin. A layout is the sum of its modes' contributions
  // and the canonical layout is a sum of an MN part and a K part, so each mode is checked alone.
  detail::GmmaCanon c{major, t, w};
  auto f_mn = [&](i64 m) { return detail::gmma_mode_eval(l, 0, m); };
  auto f_k = [&](i64 k) { return detail::gmma_mode_eval(l, 1, k); };
  if (major == GmmaMajor::kK) {
    LOOM_REQUIRE(f_k(1) == 1, "gmma_desc: K-major, but K is not contiguous");
    LOOM_REQUIRE(f_mn(1) == w * t, "gmma_desc: K-major rows are not one swizzle row (16 << B bytes) apart");
    c.along_mn = mn_extent > 8 ? f_mn(8) : 0;
    c.along_k = f_k(t);
    LOOM_REQUIRE(w == 1 || c.along_k == t,
                 "gmma_desc: K-major swizzled, but the two 16-byte halves of a k-block are not adjacent");
  } else {
    LOOM_REQUIRE(f_mn(1) == 1, "gmma_desc: MN-major, but MN is not contiguous");
    LOOM_REQUIRE(f_k(1) == w * t, "gmma_desc: MN-major K rows are not one swizzle row (16 << B bytes) apart");
    c.along_mn = mn_extent > w * t ? f_mn(w * t) : 0;
    c.along_k = kk > 8 ? f_k(8) : 0;
  }

  // Every wgmma sub-tile equals the canonical layout from its first element: along MN from each
  // multiple of mn_extent, along K from each k-block; and every sub-tile (any stage) starts on a
  // 16-byte boundary.
  char const* not_canonical = major == GmmaMajor::kK
                                  ? "gmma_desc: not a canonical GMMA K-major layout for its swizzle"
                                  : "gmma_desc: not a canonical GMMA MN-major layout for its swizzle";
  char const* unaligned = "gmma_desc: a wgmma operand does not start on a 16-byte boundary";
  for (i64 m0 = 0; m0 < mn_size; m0 += mn_extent) {
    i64 o = f_mn(m0);
    LOOM_REQUIRE(o % t == 0, unaligned);
    for (i64 m = 0; m < mn_extent; ++m) LOOM_REQUIRE(f_mn(m0 + m) == o + c(m, 0), not_canonical);
  }
  for (i64 k0 = 0; k0 < k_size; k0 += kk) {
    i64 o = f_k(k0);
    LOOM_REQUIRE(o % t == 0, unaligned);
    for (i64 k = 0; k < kk; ++k) LOOM_REQUIRE(f_k(k0 + k) == o + c(0, k), not_canonical);
  }
  for (int i = 2; i < rank(l); ++i)
    for (i64 r = 0; r < size(get(l.shape, i)).v; ++r) LOOM_REQUIRE(detail::gmma_mode_eval(l, i, r) % t == 0, unaligned);

  bool mn_is_lbo = major == GmmaMajor::kMN && w > 1;  // MN-major swizzled: LBO runs along MN
  i64 lbo = major == GmmaMajor::kK ? (w > 1 ? t : c.along_k) : (mn_is_lbo ? c.along_mn : c.along_k);
  i64 sbo = major == GmmaMajor::kK ? c.along_mn : (mn_is_lbo ? c.along_k : c.along_mn);
  LOOM_REQUIRE(lbo >= 0 && sbo >= 0 && lbo % t == 0 && sbo % t == 0,
               "gmma_desc: a byte offset is negative or not a multiple of 16 bytes");
  LOOM_REQUIRE(lbo / t < (1 << 14) && sbo / t < (1 << 14), "gmma_desc: a byte offset does not fit in 14 bits");
  LOOM_REQUIRE(tile.offset >= 0 && tile.offset % t == 0, "gmma_desc: the tile does not start on a 16-byte boundary");
  return {gmma_desc_encode(tile.offset * elem_bits / 8), unsigned(lbo / t), unsigned(sbo / t), 0u, mode};
}
constexpr GmmaDesc make_gmma_desc(Layout const& tile, GmmaMajor major, int elem_bits, i64 mn_extent = 0) {
  return make_gmma_desc(SwizzleLayout{Swizzle{}, 0, tile}, major, elem_bits, mn_extent);
}

// How far (in 16-byte units, for GmmaDesc::advanced) the operand at `coord` of the tile lies from
// its origin: the unswizzled offset, as the hardware applies the swizzle to the address it forms.
// coord has one integer per mode: (m0, k0) or (m0, k0, stage).
constexpr i64 gmma_desc_offset(SwizzleLayout const& tile, int elem_bits, IntTuple const& coord) {
  detail::gmma_check_bits(elem_bits);
  i64 o = tile.layout(coord) * elem_bits;
  LOOM_REQUIRE(o % 128 == 0, "gmma_desc: the operand does not start on a 16-byte boundary");
  return o / 128;
}
constexpr i64 gmma_desc_offset(Layout const& tile, int elem_bits, IntTuple const& coord) {
  return gmma_desc_offset(SwizzleLayout{Swizzle{}, 0, tile}, elem_bits, coord);
}

// ---------------------------------------------------------------------------------------------
// wgmma m64nNk16 atoms: fp16 or bf16 A and B, fp32 (or fp16) accumulators
// ---------------------------------------------------------------------------------------------

// Where A comes from: shared memory through a descriptor (wgmma ... desc-a), or registers.
enum class GmmaA : unsigned char { kSmem, kRegs };

// wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}.{bf16,f16}, N a multiple of 8 up to 256,
// over the 128 threads of a warpgroup (CuTe's SM90_64xNx16_F32{BF16BF16,F16F16}_{SS,RS} traits).
// Operands in shared memory belong to the whole warpgroup: every thread's (thr, val) maps to the
// whole tile, thread stride 0 (CuTe's ABLayout). C, per the PTX ISA's wgmma D fragment for
// m64nNk16 (32-bit accumulators): thread t, warp w = t/32, lane l = t%32, holds rows 16w + l/4
// and +8, columns 8i + 2(l%4) + {0,1}; value v = 4i + 2h + b is row 16w + l/4 + 8h, column
// 8i + 2(l%4) + b. A from registers follows the same pattern over the 64 x 16 tile (k for n, i in
// {0,1}). The TV layouts are the same for fp16 and fp32 accumulators, in elements.
constexpr MMAAtom mma_atom_sm90_64xNx16(int n, GmmaA a = GmmaA::kSmem) {
  LOOM_REQUIRE(n >= 8 && n <= 256 && n % 8 == 0, "wgmma m64nNk16: N must be a multiple of 8 from 8 to 256");
  Layout c_tv = make_layout(make_shape(make_shape(4, 8, 4), make_shape(2, 2, n / 8)),
                          make_stride(make_stride(128, 1, 16), make_stride(64, 8, 512)));
  Layout a_tv = a == GmmaA::kSmem
                    ? make_layout(make_shape(128, make_shape(64, 16)), make_stride(0, make_stride(1, 64)))
                    : make_layout(make_shape(make_shape(4, 8, 4), make_shape(2, 2, 2)),
                                  make_stride(make_stride(128, 1, 16), make_stride(64, 8, 512)));
  Layout b_tv = make_layout(make_shape(128, make_shape(n, 16)), make_stride(0, make_stride(1, n)));
  return {make_shape(64, n, 16), make_layout(128), a_tv, b_tv, c_tv};
}

// ---------------------------------------------------------------------------------------------
// wgmma m64nNk32 atoms: 8-bit A and B (e4m3 or e5m2, in any pairing), fp32 (or fp16) accumulators
// ---------------------------------------------------------------------------------------------

// wgmma.mma_async.sync.aligned.m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}, N a multiple of 8 up to 256
// (CuTe's SM90_64xNx32_F32{E4M3,E5M2}{E4M3,E5M2}_{SS,RS}_TN traits; the integer .s8/.u8 forms have
// the same layouts). One k-block is still 32 bytes of K, now 32 elements, so the atom is 64 x N x 32.
// C is m64nNk16's: the accumulator fragment depends on N alone, not on the input type. A and B in
// shared memory are the whole tile for every thread, as for 16 bits; their smem layouts must be
// K-major (make_gmma_desc checks it), which is what the "TN" of CuTe's names says. A from registers
// packs four 8-bit elements per 32-bit register, four registers per thread: thread t (warp
// w = t/32, lane l = t%32) holds value v = 8i + 4h + b (i, h in {0,1}, b in 0..3) at row
// 16w + l/4 + 8h, column 16i + 4(l%4) + b. So each thread's values of one register are 4
// consecutive k, where the 16-bit fragment has 2.
constexpr MMAAtom mma_atom_sm90_64xNx32(int n, GmmaA a = GmmaA::kSmem) {
  LOOM_REQUIRE(n >= 8 && n <= 256 && n % 8 == 0, "wgmma m64nNk32: N must be a multiple of 8 from 8 to 256");
  MMAAtom r = mma_atom_sm90_64xNx16(n, GmmaA::kSmem);
  r.shape_mnk = make_shape(64, n, 32);
  r.a_tv = a == GmmaA::kSmem
               ? make_layout(make_shape(128, make_shape(64, 32)), make_stride(0, make_stride(1, 64)))
               : make_layout(make_shape(make_shape(4, 8, 4), make_shape(4, 2, 2)),
                             make_stride(make_stride(256, 1, 16), make_stride(64, 8, 1024)));
  r.b_tv = make_layout(make_shape(128, make_shape(n, 32)), make_stride(0, make_stride(1, n)));
  return r;
}

}  // namespace loom
