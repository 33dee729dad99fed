// Loom layout core: SM90 TMA (cp.async.bulk.tensor), the host-side algebra part.
//
// make_tma_desc derives everything cuTensorMapEncodeTiled needs, except the global address, from
// three values: the global tensor (extents and strides in elements, the element width), the shared
// stage layout (a Layout, or a SwizzleLayout from gmma.hpp's atoms and tile_to_shape) and the CTA
// tile. It does not call the driver: a later step passes the TmaDesc to cuTensorMapEncodeTiled.
//
//  - The TMA dimensions: dimension 0 is the global mode of stride 1 (there must be one, and it must
//    be a mode of the CTA tile); the other modes follow in their global order.
//  - The box is the CTA tile, which must equal the smem tile's per-mode extents; global modes past
//    the tile's rank (a batch mode) get box 1. One TMA box fills one CTA tile.
//  - The swizzle is the smem layout's: Swizzle<B, log2(16 bytes / element), 3> over element
//    offsets, as gmma.hpp defines its atoms, is the 16 << B byte TMA swizzle (B = 0: none).
//  - The smem tile must be the image the hardware writes for a box: row-major over the box in TMA
//    dimension order (dimension 0 contiguous, densely packed), with the swizzle applied on top. A
//    smem mode past the tile's rank is a pipeline stage; each stage must start on a whole swizzle
//    repeat (8 swizzle rows; 128 bytes without swizzle), as must the layout's offset.
//
// Errors (LayoutError, one line, "tma: ..."): more than 5 global modes; no global mode of stride 1;
// a global stride (dimensions 1..) that is not a positive multiple of 16 bytes or is 2^40 bytes or
// more; a global extent outside 1..2^32; a box dimension over 256; an inner box that is not a
// multiple of 16 bytes; an inner box wider than the swizzle; a swizzle that is not a TMA swizzle; a
// smem tile that is not box-compatible; a misaligned stage. Addresses are the caller's: the driver
// requires the global base 16-byte aligned (32 with interleave, which Loom does not use), and the
// smem buffer must start on a whole swizzle repeat (1024 bytes for 128B) for Loom's element-offset
// swizzle to be the hardware's address swizzle (as for gmma.hpp's descriptors).
//
// Example: A (M,K) = (512,1024) bf16 row-major and the stage tile_to_shape(gmma_atom_k_sw128(),
// (128,64)) give rank 2, global_dim (1024,512), global_stride_bytes (2,2048), box (64,128),
// swizzle 128: dimension 0 is K, 64 elements = 128 bytes, one swizzle row.
//
// Not covered: tiles that need several boxes (an inner extent wider than the swizzle, gmma's
// no-swizzle core-matrix atoms), element strides other than 1, interleave, im2col.
//
// Semantics follow the CUDA driver API (cuTensorMapEncodeTiled) and CuTe 4.7.0's make_tma_copy
// (cute/atom/copy_traits_sm90_tma.hpp), restricted to one box per CTA tile.
#pragma once

#include "layout/gmma.hpp"
#include "layout/layout.hpp"
#include "layout/swizzle.hpp"

namespace loom {

constexpr int kTmaMaxRank = 5;

// The arguments of cuTensorMapEncodeTiled, dimension 0 innermost.
struct TmaDesc {
  int rank = 0;                                       // tensorRank, 1..5
  unsigned long long global_dim[kTmaMaxRank] = {};    // globalDim, elements
  // globalStrides in bytes: entry d for dimension d. The driver takes dimensions 1..rank-1 only
  // (pass global_stride_bytes + 1); entry 0 holds elem_bytes.
  unsigned long long global_stride_bytes[kTmaMaxRank] = {};
  unsigned box_dim[kTmaMaxRank] = {};                 // boxDim, elements, each 1..256
  unsigned element_strides[kTmaMaxRank] = {};         // elementStrides: all 1
  int swizzle_bytes = 0;                              // 0 (CU_TENSOR_MAP_SWIZZLE_NONE), 32, 64, 128
  int elem_bytes = 0;                                 // element width: picks the data type
  int mode_of_dim[kTmaMaxRank] = {};                  // the global mode each TMA dimension is
  int tile_rank = 0;                                  // modes of the CTA tile (the rest are batch modes)
  long long stage_elems = 0;                          // elements one box fills in smem (the box's size)

  // The box's smem footprint in bytes: the transaction count of one load (mbarrier expect_tx).
  constexpr long long box_bytes() const { return stage_elems * elem_bytes; }
  // The driver's CUtensorMapSwizzle value: 0 none, 1 32B, 2 64B, 3 128B.
  constexpr int swizzle_enum() const {
    return swizzle_bytes == 0 ? 0 : swizzle_bytes == 32 ? 1 : swizzle_bytes == 64 ? 2 : 3;
  }
};

namespace detail {

// Offset contributed by top-level mode `mode` of l at integer coordinate c (a layout is the sum of
// its top-level modes' contributions), or of l itself when it is a single leaf.
constexpr i64 tma_mode_eval(Layout const& l, int mode, i64 c) {
  if (is_leaf(l.shape)) return crd2idx_flat(c, l.shape, l.stride);
  return crd2idx_flat(c, l.shape, l.stride, child_node(l.shape, 0, mode));
}
constexpr int tma_rank(IntTuple const& t) { return is_leaf(t) ? 1 : rank(t); }
constexpr i64 tma_get(IntTuple const& t, int i) { return is_leaf(t) ? value(t) : value(get(t, i)); }
constexpr i64 tma_mode_size(Layout const& l, int i) {
  return is_leaf(l.shape) ? size(l.shape).v : size(get(l.shape, i)).v;
}

// The TMA swizzle width in bytes of an element-offset swizzle, or -1 if it is not one.
constexpr int tma_swizzle_bytes(Swizzle const& sw, int elem_bytes) {
  if (sw.bits == 0) return 0;
  int m = 0;
  while ((1 << m) * elem_bytes < 16) ++m;  // log2(elements per 16 bytes)
  if (sw.bits > 3 || sw.base != m || sw.shift != 3) return -1;
  return 16 << sw.bits;
}

}  // namespace detail

// gshape, gstride: flat, one integer per global mode (elements). smem: the stage layout, whose
// first rank(cta_tile) modes are the tile and any further modes pipeline stages. cta_tile: flat,
// one extent per tile mode, the leading global modes.
constexpr TmaDesc make_tma_desc(IntTuple const& gshape, IntTuple const& gstride, int elem_bytes,
                                SwizzleLayout const& smem, IntTuple const& cta_tile) {
  int const R = detail::tma_rank(gshape);
  LOOM_REQUIRE(R <= kTmaMaxRank, "tma: the global tensor has more than 5 modes");
  LOOM_REQUIRE(depth(gshape) <= 1 && depth(gstride) <= 1 && detail::tma_rank(gstride) == R,
               "tma: the global shape and stride must be flat, one integer per mode");
  LOOM_REQUIRE(elem_bytes >= 1 && elem_bytes <= 16 && (elem_bytes & (elem_bytes - 1)) == 0,
               "tma: the element width must be 1, 2, 4, 8 or 16 bytes");
  int const T = detail::tma_rank(cta_tile);
  LOOM_REQUIRE(depth(cta_tile) <= 1 && T <= R, "tma: the CTA tile must be flat, with at most one extent per global mode");
  Layout const& l = smem.layout;
  LOOM_REQUIRE(detail::tma_rank(l.shape) >= T, "tma: the smem layout has fewer modes than the CTA tile");
  for (int i = 0; i < T; ++i)
    LOOM_REQUIRE(detail::tma_mode_size(l, i) == detail::tma_get(cta_tile, i),
                 "tma: the smem tile's extents are not the CTA tile's");

  TmaDesc d{};
  d.rank = R;
  d.elem_bytes = elem_bytes;
  d.tile_rank = T;

  // Dimension 0: the contiguous mode.
  int inner = -1;
  for (int i = 0; i < R; ++i)
    if (detail::tma_get(gstride, i) == 1) {
      inner = i;
      break;
    }
  LOOM_REQUIRE(inner >= 0, "tma: no global mode has stride 1 (the innermost TMA dimension must be contiguous)");
  LOOM_REQUIRE(inner < T, "tma: the contiguous global mode is not a mode of the CTA tile");
  d.mode_of_dim[0] = inner;
  for (int i = 0, k = 1; i < R; ++i)
    if (i != inner) d.mode_of_dim[k++] = i;

  for (int dim = 0; dim < R; ++dim) {
    int const m = d.mode_of_dim[dim];
    i64 const ext = detail::tma_get(gshape, m), st = detail::tma_get(gstride, m);
    LOOM_REQUIRE(ext >= 1 && ext <= (i64(1) << 32), "tma: a global extent is not in 1..2^32");
    d.global_dim[dim] = (unsigned long long)ext;
    if (dim == 0) {
      d.global_stride_bytes[0] = (unsigned long long)elem_bytes;
    } else {
      i64 const bytes = st * elem_bytes;
      LOOM_REQUIRE(st > 0 && bytes % 16 == 0, "tma: a global stride is not a positive multiple of 16 bytes");
      LOOM_REQUIRE(bytes < (i64(1) << 40), "tma: a global stride is 2^40 bytes or more");
      d.global_stride_bytes[dim] = (unsigned long long)bytes;
    }
    i64 const box = m < T ? detail::tma_get(cta_tile, m) : 1;
    LOOM_REQUIRE(box >= 1 && box <= 256, "tma: a box dimension is over 256");
    d.box_dim[dim] = unsigned(box);
    d.element_strides[dim] = 1;
  }

  i64 const inner_bytes = i64(d.box_dim[0]) * elem_bytes;
  LOOM_REQUIRE(inner_bytes % 16 == 0, "tma: the inner box is not a multiple of 16 bytes");
  int const swb = detail::tma_swizzle_bytes(smem.swizzle, elem_bytes);
  LOOM_REQUIRE(swb >= 0, "tma: the smem swizzle is not a TMA swizzle (Swizzle<B, log2(elements per 16 bytes), 3>, B <= 3)");
  d.swizzle_bytes = swb;
  LOOM_REQUIRE(swb == 0 || inner_bytes <= swb, "tma: the inner box is wider than the swizzle");

  // Box-compatibility: tile mode m, TMA dimension dim, must step by the row-major pitch of dim.
  i64 pitch[kTmaMaxRank] = {};
  i64 p = 1;
  for (int dim = 0; dim < R; ++dim) {
    pitch[dim] = p;
    p *= d.box_dim[dim];
  }
  d.stage_elems = p;
  for (int dim = 0; dim < R; ++dim) {
    int const m = d.mode_of_dim[dim];
    if (m >= T) continue;
    for (i64 c = 0; c < d.box_dim[dim]; ++c)
      LOOM_REQUIRE(detail::tma_mode_eval(l, m, c) == c * pitch[dim],
                   "tma: the smem tile is not box-compatible (not row-major over the box in TMA dimension order)");
  }

  // Stages (and the layout's offset) start on whole swizzle repeats.
  i64 const align_bytes = swb == 0 ? 128 : 8 * i64(swb);
  char const* misaligned = "tma: a smem stage does not start on a whole swizzle repeat (128 bytes without swizzle)";
  LOOM_REQUIRE((smem.offset * elem_bytes) % align_bytes == 0, misaligned);
  for (int i = T; i < detail::tma_rank(l.shape); ++i)
    for (i64 s = 0; s < detail::tma_mode_size(l, i); ++s)
      LOOM_REQUIRE((detail::tma_mode_eval(l, i, s) * elem_bytes) % align_bytes == 0, misaligned);
  return d;
}
constexpr TmaDesc make_tma_desc(IntTuple const& gshape, IntTuple const& gstride, int elem_bytes, Layout const& smem,
                                IntTuple const& cta_tile) {
  return make_tma_desc(gshape, gstride, elem_bytes, SwizzleLayout{Swizzle{}, 0, smem}, cta_tile);
}

// ---------------------------------------------------------------------------------------------
// Box coordinates
// ---------------------------------------------------------------------------------------------

// The coordinates a TMA load takes (cp.async.bulk.tensor's tensorCoords), in TMA dimension order.
struct TmaCoord {
  int rank = 0;
  int c[kTmaMaxRank] = {};
  constexpr bool operator==(TmaCoord const& o) const {
    if (rank != o.rank) return false;
    for (int i = 0; i < rank; ++i)
      if (c[i] != o.c[i]) return false;
    return true;
  }
};

// The first coordinate of CTA tile `tile_coord` (one index per global mode: tile indices for the
// tile modes, the plain index for batch modes; missing trailing ones are 0), from the algebra: the
// identity layout of the global tensor, (extents):(1@0,1@1,...), zipped_divide by the CTA tile, the
// rest mode evaluated at tile_coord, as local_tile moves an identity tensor's base. The result is
// reordered into TMA dimensions (mode_of_dim).
constexpr TmaCoord tma_box_coords(TmaDesc const& d, IntTuple const& tile_coord) {
  TupleBuilder s, st, tl;
  for (int m = 0; m < d.rank; ++m) {
    int dim = 0;
    while (d.mode_of_dim[dim] != m) ++dim;
    s.push(IntTuple(dyn(i64(d.global_dim[dim]))));
    st.push(IntTuple(basis(m)));
    if (m < d.tile_rank) tl.push(IntTuple(i64(d.box_dim[dim])));
  }
  Layout const id{s.done(), st.done()};
  Layout const rest = get(zipped_divide(id, Tile(tl.done())), 1);
  int const nc = detail::tma_rank(tile_coord);
  LOOM_REQUIRE(depth(tile_coord) <= 1 && nc <= d.rank, "tma: one tile index per global mode");
  Coord<kTmaMaxRank> crd{};
  for (int m = 0; m < nc; ++m) {
    i64 const i = detail::tma_get(tile_coord, m);
    if (is_leaf(rest.shape)) crd += crd2idx_flat<Coord<kTmaMaxRank>>(i, rest.shape, rest.stride);
    else crd += crd2idx_flat<Coord<kTmaMaxRank>>(i, rest.shape, rest.stride, child_node(rest.shape, 0, m));
  }
  TmaCoord r{};
  r.rank = d.rank;
  for (int dim = 0; dim < d.rank; ++dim) {
    i64 const v = crd[d.mode_of_dim[dim]];
    LOOM_REQUIRE(v >= -(i64(1) << 31) && v < (i64(1) << 31), "tma: a box coordinate does not fit in 32 bits");
    r.c[dim] = int(v);
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Multicast
// ---------------------------------------------------------------------------------------------

// One CTA's part of a multicast load: num_ctas CTAs that share a tile each load 1/num_ctas of the
// box, split along the outermost TMA dimension whose box is over 1, and multicast it to all of
// them. The slice is a box of its own (a second descriptor with this box), at the tile's
// coordinates plus coord_offset, written at smem_offset_elems into each CTA's stage.
struct TmaSlice {
  int dim = 0;                              // the TMA dimension split
  unsigned box_dim[kTmaMaxRank] = {};       // the slice's box
  int coord_offset[kTmaMaxRank] = {};       // added to tma_box_coords
  long long smem_offset_elems = 0;          // from the stage's start, in elements
};

constexpr TmaSlice tma_multicast_slice(TmaDesc const& d, int num_ctas, int cta_in_group) {
  LOOM_REQUIRE(num_ctas >= 1 && num_ctas <= 16, "tma multicast: 1 to 16 CTAs share a tile");
  LOOM_REQUIRE(cta_in_group >= 0 && cta_in_group < num_ctas, "tma multicast: the CTA's index is not below the CTA count");
  TmaSlice s{};
  int dim = d.rank - 1;
  while (dim > 0 && d.box_dim[dim] == 1) --dim;
  s.dim = dim;
  LOOM_REQUIRE(d.box_dim[dim] % unsigned(num_ctas) == 0,
               "tma multicast: the outer box extent is not a multiple of the CTA count");
  i64 pitch = 1;
  for (int i = 0; i < dim; ++i) pitch *= d.box_dim[i];
  for (int i = 0; i < d.rank; ++i) s.box_dim[i] = d.box_dim[i];
  unsigned const part = d.box_dim[dim] / unsigned(num_ctas);
  s.box_dim[dim] = part;
  s.coord_offset[dim] = int(part) * cta_in_group;
  s.smem_offset_elems = i64(part) * cta_in_group * pitch;
  i64 const align_bytes = d.swizzle_bytes == 0 ? 128 : 8 * i64(d.swizzle_bytes);
  LOOM_REQUIRE((i64(part) * pitch * d.elem_bytes) % align_bytes == 0,
               "tma multicast: a slice does not start on a whole swizzle repeat (128 bytes without swizzle)");
  return s;
}

// The multicast mask (cp.async.bulk.tensor .multicast::cluster's ctaMask) of the CTAs that share
// CTA cta_rank's tile: a cluster of shape cluster_shape (flat, ranks column-major, at most 16
// CTAs), the tile shared along mode shared_mode (the CTAs that differ only in that mode: A's tile
// along N, B's along M).
constexpr unsigned short tma_multicast_mask(IntTuple const& cluster_shape, int cta_rank, int shared_mode) {
  int const R = detail::tma_rank(cluster_shape);
  LOOM_REQUIRE(depth(cluster_shape) <= 1, "tma multicast: the cluster shape must be flat");
  LOOM_REQUIRE(shared_mode >= 0 && shared_mode < R, "tma multicast: the shared mode is not a mode of the cluster");
  i64 const n = size(cluster_shape).v;
  LOOM_REQUIRE(n >= 1 && n <= 16, "tma multicast: a cluster has at most 16 CTAs");
  LOOM_REQUIRE(cta_rank >= 0 && cta_rank < n, "tma multicast: the CTA rank is not in the cluster");
  unsigned mask = 0;
  for (int r = 0; r < n; ++r) {
    bool same = true;
    i64 a = cta_rank, b = r;
    for (int m = 0; m < R; ++m) {
      i64 const e = detail::tma_get(cluster_shape, m);
      if (m != shared_mode && a % e != b % e) same = false;
      a /= e;
      b /= e;
    }
    if (same) mask |= 1u << r;
  }
  return (unsigned short)mask;
}


// ---------------------------------------------------------------------------------------------
// tma_partition: the TMA tile of a smem and a gmem tensor, split into instructions
// ---------------------------------------------------------------------------------------------
//
// CuTe's tma_partition(atom, cta_coord, cta_layout, stensor, gtensor) (CUTLASS v4.7.0,
// cute/atom/copy_traits_sm90_tma.hpp) on layouts. Both tensors are ((TMA tile), Rest...): mode 0
// is the tile one CTA loads (grouped, e.g. ((BM,BK), stages) and ((BM,BK), k tiles)), the other
// modes stay as they are. Steps, as CuTe takes them:
//
//  1. vector = tile_to_shape(make_layout(right_inverse(U)), size(U)), U = mode 0 of the smem
//     layout without its swizzle: smem tile index -> tile coordinate, smem offsets ascending.
//  2. (TMA, TMA_Iter) = logical_divide(vector, num_val_src:1); num_val_src is the atom's
//     NumValSrc, the values one TMA instruction moves: CuTe makes it the size of the whole box,
//     also for a multicast atom (the descriptor's box is the CTA's 1/n of it).
//  3. Each tensor: mode 0 composed with (TMA, TMA_Iter), then TMA and TMA_Iter each coalesced;
//     the result is ((TMA, TMA_Iter), Rest...).
//  4. Multicast: index m = cta_layout(cta_coord) * (num_val_src / cosize(cta_layout)) (integer
//     division, truncating as CuTe's does) into the TMA mode. Both results keep their shape (the
//     TMA mode still has num_val_src values) and move their base by the value at ((m,0),0,...):
//     the smem offset is added before the swizzle (a SwizzleLayout's offset, as CuTe moves a
//     swizzled pointer or a ComposedLayout's offset), the gmem base by a coordinate when gmem has
//     basis strides.
//
// Where Loom rejects what CuTe would take (LayoutError, "tma_partition: ..."): num_val_src < 1 or
// not dividing the tile, a cta_coord outside cta_layout's shape, gmem's mode 0 of another size
// than smem's (CuTe's static_assert). What CuTe's steps reject at compile time (tile_to_shape,
// logical_divide, composition) is a LayoutError here, as everywhere in Loom.
//
// Example (K-major bf16, 128B swizzle, one CTA): smem Sw<3,3,3> o (((8,16),(64,1)),(1,3)):
// (((64,512),(1,0)),(0,8192)), gmem ((128,64),16):((1@1,1@0),64@0), num_val_src 8192 give
// smem Sw<3,3,3> o 0 o ((8192,1),(1,3)):((1,0),(0,8192)) and gmem (((64,128),1),16):
// (((1@0,1@1),0),64@0) at (0,0). With cta_layout 2:1 and cta_coord 1, both keep these layouts and
// move by index 4096: the smem offset to 4096, the gmem base to (0,64).

namespace detail {

// Is coordinate c inside shape s: an integer in [0, size), or a tuple of s's rank, mode by mode.
constexpr bool tma_coord_in(IntTuple const& c, IntTuple const& s) {
  if (is_leaf(c)) return !is_underscore(c) && value(c) >= 0 && value(c) < size(s).v;
  if (is_leaf(s) || rank(c) != rank(s)) return false;
  for (int i = 0; i < rank(c); ++i)
    if (!tma_coord_in(get(c, i), get(s, i))) return false;
  return true;
}

// Value at index i of the TMA mode of a partitioned layout ((TMA, TMA_Iter), Rest...).
template <class Acc>
constexpr Acc tma_part_eval(Layout const& part, i64 i) {
  Layout const t = get(get(part, 0), 0);
  return crd2idx_flat<Acc>(i, t.shape, t.stride);
}

}  // namespace detail

// Step 1 and 2: the (TMA, TMA_Iter) layout from mode 0 of the (unswizzled) smem layout.
constexpr Layout tma_partition_vector(i64 num_val_src, Layout const& smem) {
  LOOM_REQUIRE(num_val_src >= 1, "tma_partition: the values per TMA instruction (NumValSrc) must be positive");
  Layout const tile = get(smem, 0);
  Layout const v = tile_to_shape(make_layout(right_inverse(tile)), IntTuple(size(tile)));
  LOOM_REQUIRE(size(v).v % num_val_src == 0,
               "tma_partition: the values per TMA instruction (NumValSrc) do not divide the TMA tile");
  return logical_divide(v, make_layout(IntTuple(num_val_src)));
}

// Step 4: the index into the TMA mode where this CTA's part of a multicast load starts.
constexpr i64 tma_multicast_index(i64 num_val_src, IntTuple const& cta_coord, Layout const& cta_layout) {
  LOOM_REQUIRE(detail::tma_coord_in(cta_coord, cta_layout.shape),
               "tma_partition: the CTA coordinate is outside the CTA layout");
  return (Int{cta_layout(cta_coord)} * Int{num_val_src / cosize(cta_layout).v}).v;  // Int: checked on the host
}

// Step 3 on one tensor (no offset): ((TMA, TMA_Iter), Rest...).
constexpr Layout tma_partition_layout(Layout const& vector, Layout const& tensor) {
  LayoutBuilder r;
  r.push(coalesce(composition(get(tensor, 0), vector), make_tuple(1, 1)));
  for (int i = 1; i < rank(tensor); ++i) r.push(get(tensor, i));
  return r.done();
}

struct TmaPartition {
  SwizzleLayout smem;    // ((TMA,TMA_Iter),Rest...), offset moved by the multicast (inside the swizzle)
  Layout gmem;           // ((TMA,TMA_Iter),Rest...)
  // How far the multicast moves gmem's base: an integer, or with basis strides a coordinate with
  // one entry per basis up to the largest in gmem's strides ((0,64): 64 along mode 1).
  IntTuple gmem_offset;
};

constexpr TmaPartition tma_partition(i64 num_val_src, IntTuple const& cta_coord, Layout const& cta_layout,
                                     SwizzleLayout const& smem, Layout const& gmem) {
  LOOM_REQUIRE(size(get(smem.layout, 0)).v == size(get(gmem, 0)).v,
               "tma_partition: mode 0 (the TMA tile) of gmem and smem differ in size");
  Layout const v = tma_partition_vector(num_val_src, smem.layout);
  i64 const m = tma_multicast_index(num_val_src, cta_coord, cta_layout);
  TmaPartition r;
  Layout const s = tma_partition_layout(v, smem.layout);
  r.smem = SwizzleLayout{smem.swizzle, (Int{smem.offset} + Int{detail::tma_part_eval<i64>(s, m)}).v, s};
  r.gmem = tma_partition_layout(v, gmem);
  if (!has_basis(gmem.stride)) {
    r.gmem_offset = IntTuple(detail::tma_part_eval<i64>(r.gmem, m));
    return r;
  }
  int nb = 0;
  for (int k = 0; k < gmem.stride.n; ++k)
    if (gmem.stride.arity[k] < 0) {
      int const b = leaf_int(gmem.stride, k).basis;
      if (b + 1 > nb) nb = b + 1;
    }
  LOOM_REQUIRE(nb <= kTmaMaxRank, "tma_partition: a gmem basis stride past mode 4 (TMA has at most 5 dimensions)");
  Coord<kTmaMaxRank> const c = detail::tma_part_eval<Coord<kTmaMaxRank>>(r.gmem, m);
  TupleBuilder b;
  for (int j = 0; j < nb; ++j) b.push(IntTuple(c[j]));
  r.gmem_offset = b.done();
  return r;
}
constexpr TmaPartition tma_partition(i64 num_val_src, IntTuple const& cta_coord, Layout const& cta_layout,
                                     Layout const& smem, Layout const& gmem) {
  return tma_partition(num_val_src, cta_coord, cta_layout, SwizzleLayout{Swizzle{}, 0, smem}, gmem);
}

}  // namespace loom
