// Loom layout core: copy atoms and TiledCopy partitioning.
//
// A copy atom moves num_val contiguous elements per thread in one instruction (one element, or a
// 4-, 8- or 16-byte vector). make_tiled_copy lays threads out by thr_layout and each thread's
// values by val_layout over an (M,N) tile; partition_S/partition_D then give each thread the view
// (CPY, CPY_M, CPY_N, ...) of its elements in a source or destination tensor, by CuTe's
// construction: the (thread, value) -> (m,n) layout is the right inverse of the raked product of
// thread and value layouts.
#pragma once

#include "layout/layout.hpp"

namespace loom {

struct CopyAtom {
  i64 num_thr = 1;
  i64 num_val = 1;
  Layout ref_tv;  // (thr, val) -> atom-local element, the reference the others are expressed in
  Layout src_tv;
  Layout dst_tv;
};

// One thread copies num_val consecutive elements at once.
constexpr CopyAtom copy_atom(i64 num_val = 1) {
  Layout tv = make_layout(make_shape(1, num_val));
  return {1, num_val, tv, tv, tv};
}

struct ThrCopy;

struct TiledCopy {
  CopyAtom atom;
  Layout layout_tv;  // (thread, value) -> column-major (m,n) index in the tile
  IntTuple tiler;    // the tile's (M,N)

  constexpr i64 size() const { return loom::size(get(layout_tv, 0)).v; }

  // (M,N,...) -> (thread, value, (RestM,RestN,...)), mapping into the tensor through `ref2trg`.
  constexpr Layout tidfrg(Layout const& t, Layout const& trg_tv) const {
    LOOM_REQUIRE(rank(t) >= rank(tiler), "partition: the tensor has fewer modes than the copy tile");
    Layout z = zipped_divide(t, Tile(tiler));
    Layout ref2trg = composition(right_inverse(atom.ref_tv), trg_tv);
    Layout atom_tv = zipped_divide(layout_tv, Tile(make_shape(atom.num_thr, atom.num_val)));
    Layout trg = composition(atom_tv, make_tile(ref2trg, _));
    Layout thrval2mn = coalesce(zip(get(trg, 0), get(trg, 1)), make_shape(1, make_shape(1, 1)));
    Layout tv = composition(z, make_tile(thrval2mn, _));
    return slice(make_coord(make_coord(_, _), _), tv);
  }

  struct Partition {
    Layout layout;  // (CPY, CPY_M, CPY_N, ...)
    Layout tidfrg;  // (thread, CPY, (CPY_M, CPY_N, ...))
    constexpr i64 offset(i64 tid) const {
      return crd2idx_flat(tid, tidfrg.shape, tidfrg.stride, child_node(tidfrg.shape, 0, 0));
    }
  };
  constexpr Partition partition(Layout const& t, Layout const& trg_tv) const {
    Layout f = tidfrg(t, trg_tv);
    Layout rest = get(f, 2);
    IntTuple c = make_coord(0, _, repeat(rank(rest), _));
    return {slice(c, f), f};
  }
  constexpr Partition partition_S(Layout const& s) const { return partition(s, atom.src_tv); }
  constexpr Partition partition_D(Layout const& d) const { return partition(d, atom.dst_tv); }

  constexpr ThrCopy get_slice(i64 thr) const;
};

struct ThrCopy {
  TiledCopy copy;
  i64 thr = 0;
  constexpr OffsetLayout partition_S(Layout const& s) const { return at(copy.partition_S(s)); }
  constexpr OffsetLayout partition_D(Layout const& d) const { return at(copy.partition_D(d)); }
  constexpr OffsetLayout at(TiledCopy::Partition const& p) const { return {p.layout, p.offset(thr)}; }
};

constexpr ThrCopy TiledCopy::get_slice(i64 thr) const {
  LOOM_REQUIRE(0 <= thr && thr < size(), "TiledCopy: thread index out of range");
  return {*this, thr};
}

// Threads laid out by thr_layout over the tile, each holding val_layout's values:
// make_tiled_copy(copy_atom(4), (32,8):(8,1), (1,4)) gives 256 threads, 4 consecutive columns each.
constexpr TiledCopy make_tiled_copy(CopyAtom const& atom, Layout const& thr_layout, Layout const& val_layout) {
  Layout layout_mn = raked_product(thr_layout, val_layout);
  Layout layout_tv = composition(right_inverse(layout_mn),
                                 make_layout(make_shape(size(thr_layout), size(val_layout))));
  LOOM_REQUIRE(size(val_layout).v % atom.num_val == 0,
               "make_tiled_copy: the values per thread are not a multiple of the atom's vector");
  return {atom, layout_tv, product_each(layout_mn.shape)};
}

}  // namespace loom
