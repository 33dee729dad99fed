// Loom layout core: copy atoms and TiledCopy partitioning.
//
// A copy atom moves num_val contiguous elements per thread in one instruction (one element, or a
// 4-, 8- or 16-byte vector). make_tiled_copy lays threads out by thr_layout and each thread's
// values by val_layout over an (M,N) tile; partition_S/partition_D then give each thread the view
// (CPY, CPY_M, CPY_N, ...) of its elements in a source or destination tensor, by CuTe's
// construction: the (thread, value) -> (m,n) layout is the right inverse of the raked product of
// thread and value layouts.
//
// Warp-wide atoms (ldmatrix) have 32 threads and TV layouts taken from CuTe's copy traits, which
// count in bits; upcast() turns them into element units. make_tiled_copy_A/B/C tile an atom by a
// TiledMMA's operand TV layout, so that the copy delivers exactly the MMA's fragments, and retile()
// gives the register fragment's view in the copy's (CPY, CPY_M, CPY_N, ...) order.
#pragma once

#include "layout/layout.hpp"
#include "layout/mma.hpp"

namespace loom {

// The instruction an atom stands for, a label only: neither the algebra nor any device code reads
// it (each kernel issues its ldmatrix/cp.async itself); tests/test_layout_copy_sm80.cpp checks it.
enum class CopyOp : unsigned char {
  kUniversal,   // plain loads and stores of num_val consecutive elements
  kLdsm,        // ldmatrix.sync.aligned.m8n8.{x1,x2,x4}.shared.b16
  kLdsmTrans,   // the same with .trans: each 8x8 matrix arrives transposed
  kCpAsyncCa,   // cp.async.ca.shared.global, 4, 8 or 16 bytes, cached in L1
  kCpAsyncCg,   // cp.async.cg.shared.global, 16 bytes, L2 only
};

struct CopyAtom {
  i64 num_thr = 1;
  i64 num_val = 1;
  Layout ref_tv;  // (thr, val) -> atom-local element, the reference the others are expressed in
  Layout src_tv;
  Layout dst_tv;
  CopyOp op = CopyOp::kUniversal;
  int val_bits = 0;  // width of the elements the TV layouts count (0: any)
};

// One thread copies num_val consecutive elements at once.
constexpr CopyAtom copy_atom(i64 num_val = 1) {
  Layout tv = make_layout(make_shape(1, num_val));
  return {1, num_val, tv, tv, tv};
}

// ---------------------------------------------------------------------------------------------
// Units: a layout over n-bit units seen over elements n times wider (CuTe's upcast<n>)
// ---------------------------------------------------------------------------------------------

namespace detail {
constexpr void upcast_into(TupleBuilder& s, TupleBuilder& d, IntTuple const& shape, IntTuple const& stride, Int n) {
  if (is_tuple(shape)) {
    TupleBuilder cs, cd;
    for (int i = 0; i < rank(shape); ++i) upcast_into(cs, cd, get(shape, i), get(stride, i), n);
    s.push(cs.done());
    d.push(cd.done());
    return;
  }
  Int sh = as_int(shape), st = as_int(stride);
  if (st.is_constant(0)) {
    s.push(shape);
    d.push(stride);
  } else if (st.is_static()) {
    // A mode finer than one element shrinks by the units it spans; coarser modes keep their extent.
    s.push(IntTuple(shape_div(sh, shape_div(n, abs(st)))));
    d.push(IntTuple(shape_div(st, n)));
  } else {  // dynamic strides are assumed to be whole elements
    s.push(shape);
    d.push(IntTuple(st / n));
  }
}
}  // namespace detail

// Strides divided by n; a stride-1 mode's extent divided by n. upcast((32,(32,4)):(32,(1,1024)), 16)
// is (32,(2,4)):(2,(1,64)).
constexpr Layout upcast(Layout const& l, i64 n) {
  TupleBuilder s, d;
  detail::upcast_into(s, d, l.shape, l.stride, Int{n});
  return {get(s.done(), 0), get(d.done(), 0)};
}

// ---------------------------------------------------------------------------------------------
// SM75+ ldmatrix and SM80 cp.async atoms
// ---------------------------------------------------------------------------------------------

// ldmatrix of `matrices` 8x8 matrices of 16-bit elements (1, 2 or 4), plain or transposed. The
// layouts are CuTe's SM75_U32x{1,2,4}_LDSM_N and SM75_U16x{2,4,8}_LDSM_T traits, in bits, upcast to
// val_bits. Source: thread t gives the address of row t of the 8*matrices rows (threads past those
// repeat; their addresses are unused). Destination, plain: thread t holds elements 2(t%4), 2(t%4)+1
// of row t/4 of every matrix, in one 32-bit register per matrix. Transposed: thread t holds column
// t/4, rows 2(t%4) and 2(t%4)+1.
constexpr CopyAtom copy_atom_ldsm(int matrices, bool trans, int val_bits = 16) {
  LOOM_REQUIRE(matrices == 1 || matrices == 2 || matrices == 4, "ldmatrix: 1, 2 or 4 matrices");
  LOOM_REQUIRE(val_bits == 16 || (!trans && (val_bits == 8 || val_bits == 32)),
               "ldmatrix: .trans moves 16-bit elements; plain moves 8-, 16- or 32-bit ones");
  Layout src = matrices == 4 ? make_layout(make_shape(32, 128), make_stride(128, 1))
                             : make_layout(make_shape(make_shape(8 * matrices, 4 / matrices), 128),
                                           make_stride(make_stride(128, 0), 1));
  Layout dst;
  if (!trans) {
    dst = matrices == 1 ? make_layout(make_shape(32, 32), make_stride(32, 1))
                        : make_layout(make_shape(32, make_shape(32, matrices)), make_stride(32, make_stride(1, 1024)));
  } else {
    dst = matrices == 1
              ? make_layout(make_shape(make_shape(4, 8), make_shape(16, 2)), make_stride(make_stride(256, 16), make_stride(1, 128)))
              : make_layout(make_shape(make_shape(4, 8), make_shape(16, 2, matrices)),
                            make_stride(make_stride(256, 16), make_stride(1, 128, 1024)));
  }
  Layout s = upcast(src, val_bits), d = upcast(dst, val_bits);
  return {32, size(get(d, 1)).v, d, s, d, trans ? CopyOp::kLdsmTrans : CopyOp::kLdsm, val_bits};
}

// cp.async of `bytes` (4, 8 or 16) per thread from global to shared memory. 16-byte copies take the
// .cg path (L2 only); narrower ones must use .ca.
constexpr CopyAtom copy_atom_cp_async(int bytes, int val_bits = 16) {
  LOOM_REQUIRE(bytes == 4 || bytes == 8 || bytes == 16, "cp.async: 4, 8 or 16 bytes");
  LOOM_REQUIRE(val_bits > 0 && (8 * bytes) % val_bits == 0, "cp.async: the bytes are not whole elements");
  CopyAtom a = copy_atom(8 * bytes / val_bits);
  a.op = bytes == 16 ? CopyOp::kCpAsyncCg : CopyOp::kCpAsyncCa;
  a.val_bits = val_bits;
  return a;
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
    return tile2thrfrg(zipped_divide(t, Tile(tiler)), trg_tv);
  }
  // ((TileM,TileN),(RestM,RestN,...)) -> (thread, value, (RestM,RestN,...)).
  constexpr Layout tile2thrfrg(Layout const& z, Layout const& trg_tv) const {
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
    template <class Acc = i64>
    constexpr Acc offset(i64 tid) const {
      return crd2idx_flat<Acc>(tid, tidfrg.shape, tidfrg.stride, child_node(tidfrg.shape, 0, 0));
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

  // A register fragment in the copy's order: t is (V, RestM, RestN, ...) for the first V of a
  // thread's values in layout_tv (as TiledMMA partitions lay out fragments); the result is
  // ((atom values, rest values), RestM', RestN', ...) -> t's index, the same order as partition_S
  // and partition_D of a tile give the other side of the copy. CuTe's TiledCopy::retile.
  constexpr Layout retile(Layout const& t) const {
    int R = rank(t);
    Int V = loom::size(get(t, 0));
    // (m,n) -> which group of V values of a thread holds it
    Layout frg_mn = upcast(composition(right_inverse(layout_tv), make_layout(tiler)), size() * V.v);
    // (atom values, rest values) -> (v, group)
    Layout frg_v = zipped_divide(logical_product(make_layout(IntTuple(V)), right_inverse(frg_mn)),
                                 Tile(make_layout(atom.num_val)));
    Layout tiled = zipped_divide(t, Tile(prepend(product_each(frg_mn.shape), IntTuple(V))));
    Layout v = composition(tiled, make_tile(frg_v, _));
    return slice(make_coord(_, append(IntTuple(0), R, _)), v);
  }

  // (thread, value) -> column-major (m,n) index in the tile, for the source and destination sides.
  constexpr Layout get_layoutS_TV() const { return layout_on(atom.src_tv); }
  constexpr Layout get_layoutD_TV() const { return layout_on(atom.dst_tv); }
  constexpr Layout layout_on(Layout const& trg_tv) const {
    Layout f = tile2thrfrg(make_layout(make_shape(tiler, 1)), trg_tv);
    return slice(make_coord(_, _, 0), f);
  }

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

// A copy given directly by its (thread, value) -> (m,n) layout over a tile of shape `tiler`.
constexpr TiledCopy make_tiled_copy_tv(CopyAtom const& atom, Layout const& layout_tv, IntTuple const& tiler) {
  LOOM_REQUIRE(size(get(layout_tv, 0)).v % atom.num_thr == 0, "tiled copy: fewer threads than the atom has");
  LOOM_REQUIRE(size(get(layout_tv, 1)).v % atom.num_val == 0,
               "tiled copy: the values per thread are not a multiple of the atom's");
  return {atom, layout_tv, tiler};
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

// Whether `cpy`, a layout of rank-2 coordinates (the first mode of partition_S/D over an identity
// layout: what one access of a thread covers), is the n consecutive coordinates (0,0) ... (n-1,0),
// one run along mode 0: the condition for a kernel to move it as one vector of n elements where
// mode 0 is the contiguous one.
constexpr bool is_run_along_mode0(Layout const& cpy, i64 n) {
  if (size(cpy).v != n) return false;
  for (i64 v = 0; v < n; ++v)
    if (!(crd2idx_flat<Coord<2>>(v, cpy.shape, cpy.stride) == Coord<2>{{v, 0}})) return false;
  return true;
}

// The copy that moves a TiledMMA's A (or B, or C) operand: its threads and values are the MMA's,
// over the MMA's (TileM,TileK) (or (TileN,TileK), (TileM,TileN)) tile. With an ldmatrix atom, each
// thread's destination values are exactly its MMA fragment.
constexpr TiledCopy make_tiled_copy_A(CopyAtom const& atom, TiledMMA const& mma) {
  return make_tiled_copy_tv(atom, mma.get_layoutA_TV(), make_shape(mma.tile_size_mnk(0), mma.tile_size_mnk(2)));
}
constexpr TiledCopy make_tiled_copy_B(CopyAtom const& atom, TiledMMA const& mma) {
  return make_tiled_copy_tv(atom, mma.get_layoutB_TV(), make_shape(mma.tile_size_mnk(1), mma.tile_size_mnk(2)));
}
constexpr TiledCopy make_tiled_copy_C(CopyAtom const& atom, TiledMMA const& mma) {
  return make_tiled_copy_tv(atom, mma.get_layoutC_TV(), make_shape(mma.tile_size_mnk(0), mma.tile_size_mnk(1)));
}

}  // namespace loom
