// Loom layout core: MMA atoms as thread-value (TV) layouts, and TiledMMA partitioning.
//
// An MMA atom is described by the layouts that say which thread holds which element:
// (thread, value) -> the column-major coordinate of the element in the atom's (M,K), (N,K) or
// (M,N) tile. A TiledMMA repeats an atom over a layout of atoms (AtomLayoutMNK) and an optional
// permutation of the M, N and K modes; partition_A/B/C then give each thread the view of its
// elements in any A, B or C tile, by the same five steps CuTe uses: divide by the permutation,
// divide by the atom, compose the atom's TV layout, divide the rest among the atoms, and slice out
// the thread.
#pragma once

#include "layout/layout.hpp"

namespace loom {

struct MMAAtom {
  IntTuple shape_mnk;  // the atom's (M,N,K)
  Layout thr_id;       // atom-local thread -> thread index
  Layout a_tv;         // (thr, val) -> (m,k) in the M x K tile, column-major
  Layout b_tv;         // (thr, val) -> (n,k)
  Layout c_tv;         // (thr, val) -> (m,n)
};

// One thread, one multiply-add: D(1x1) += A(1x1) * B(1x1).
constexpr MMAAtom mma_atom_fma() {
  Layout one = make_layout(make_shape(1, 1));  // (1,1):(0,0)
  return {make_shape(1, 1, 1), make_layout(1), one, one, one};
}

// mma.sync.aligned.m16n8k16.row.col with 16-bit A and B (fp16 or bf16; the register layouts are
// the same) and fp32 C/D. Per the PTX ISA fragment figures: lane l holds A rows l/4 and l/4+8,
// columns 2(l%4)+{0,1} (+8); B columns l/4, rows 2(l%4)+{0,1} (+8); C rows l/4 (+8), columns
// 2(l%4)+{0,1}.
constexpr MMAAtom mma_atom_sm80_16x8x16() {
  return {make_shape(16, 8, 16), make_layout(32),
          make_layout(make_shape(make_shape(4, 8), make_shape(2, 2, 2)),
                      make_stride(make_stride(32, 1), make_stride(16, 8, 128))),
          make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)),
                      make_stride(make_stride(16, 1), make_stride(8, 64))),
          make_layout(make_shape(make_shape(4, 8), make_shape(2, 2)),
                      make_stride(make_stride(32, 1), make_stride(16, 8)))};
}

struct ThrMMA;

struct TiledMMA {
  MMAAtom atom;
  Layout thr_layout_vmnk;  // (ThrV, ThrM, ThrN, ThrK) -> thread index
  Tile permutation;        // (PermM, PermN, PermK); `_` leaves a mode as it is

  constexpr i64 size() const { return loom::size(thr_layout_vmnk).v; }

  // Tile extent in mode i (0 = M, 1 = N, 2 = K): the permutation's size, or atoms x atom size.
  constexpr i64 tile_size_mnk(int i) const {
    Tile p = get(permutation, i);
    if (p.is_underscore())
      return value(get(atom.shape_mnk, i)) * loom::size(get(thr_layout_vmnk, i + 1)).v;
    return loom::size(p).v;
  }
  // The tiler that mode i of a tensor is first divided by: the permutation, or for `_` the plain
  // tile extent (an integer, not `_`: the tensor's mode is split into (tile, rest) either way, so
  // partitions come out with the same mode structure as CuTe's).
  constexpr Tile permutation_mnk(int i) const {
    Tile p = get(permutation, i);
    return p.is_underscore() ? Tile(IntTuple(tile_size_mnk(i))) : p;
  }

  // (X,Y,...) -> ((ThrV,(ThrX,ThrY)),(FrgV,(RestX,RestY,...))) for the operand whose modes are
  // (x, y) of MNK and whose atom TV layout is tv.
  constexpr Layout thrfrg(Layout const& t, int x, int y, Layout const& tv) const {
    LOOM_REQUIRE(rank(t) >= 2, "partition: the tensor must have rank 2 or more");
    Layout t_perm = logical_divide(t, make_tile(permutation_mnk(x), permutation_mnk(y)));
    Tile atom_tile = make_tile(make_layout(get(atom.shape_mnk, x)), make_layout(get(atom.shape_mnk, y)));
    Layout t_atom = zipped_divide(t_perm, atom_tile);                  // ((AtomX,AtomY),(RestX,RestY))
    Layout t_tv = composition(t_atom, make_tile(tv, _));               // ((ThrV,FrgV),(RestX,RestY))
    Tile thr_tile = make_tile(_, make_tile(make_layout(loom::size(get(thr_layout_vmnk, 1 + x))),
                                           make_layout(loom::size(get(thr_layout_vmnk, 1 + y)))));
    return zipped_divide(t_tv, thr_tile);                              // ((ThrV,(ThrX,ThrY)),(FrgV,(RestX,RestY)))
  }
  constexpr Layout thrfrg_A(Layout const& a) const { return thrfrg(a, 0, 2, atom.a_tv); }
  constexpr Layout thrfrg_B(Layout const& b) const { return thrfrg(b, 1, 2, atom.b_tv); }
  constexpr Layout thrfrg_C(Layout const& c) const { return thrfrg(c, 0, 1, atom.c_tv); }

  struct Partition;
  constexpr Partition partition(Layout const& t, int x, int y, Layout const& tv) const;
  // Kernel form: the layout of every thread's elements, fixed at compile time, and offset(tid).
  constexpr Partition partition_A(Layout const& a) const;
  constexpr Partition partition_B(Layout const& b) const;
  constexpr Partition partition_C(Layout const& c) const;

  constexpr ThrMMA get_slice(i64 thr) const;
  constexpr ThrMMA get_thread_slice(i64 thr) const;

  // thread index -> index of its (ThrV,ThrM,ThrN,ThrK) coordinate; the identity for the compact
  // thread layouts make_tiled_mma builds, and still right when the thread layout has holes.
  constexpr Layout thridx_to_thrid() const {
    Layout full = make_layout(thr_layout_vmnk, complement(thr_layout_vmnk));
    return composition(make_layout(make_shape(loom::size(thr_layout_vmnk), 1), make_stride(1, 0)),
                       right_inverse(full));
  }

  // (thread index, value) -> column-major index in the (TileM,TileK), (TileN,TileK) or
  // (TileM,TileN) tile: CuTe's get_layoutA_TV / B_TV / C_TV, which make_tiled_copy_A/B/C tile
  // copies with. A is the same for every N-thread (stride 0), B for every M-thread.
  constexpr Layout get_layoutA_TV() const {
    return operand_tv(thrfrg_A(make_layout(make_shape(tile_size_mnk(0), tile_size_mnk(2)))), 1, 0);
  }
  constexpr Layout get_layoutB_TV() const {
    return operand_tv(thrfrg_B(make_layout(make_shape(tile_size_mnk(1), tile_size_mnk(2)))), 0, 1);
  }
  constexpr Layout get_layoutC_TV() const {
    Layout ref = make_layout(make_shape(tile_size_mnk(0), tile_size_mnk(1)));
    return composition(thrfrg_C(ref), make_tile(thridx_to_thrid(), _));
  }
  // An operand's thrfrg with its (ThrM,ThrN) thread mode broadcast along the other operand's
  // threads (stride 0 there), indexed by thread index.
  constexpr Layout operand_tv(Layout const& thrfrg, i64 m_stride, i64 n_stride) const {
    Tile bcast = make_tile(_, make_tile(make_layout(make_shape(loom::size(get(thr_layout_vmnk, 1)),
                                                               loom::size(get(thr_layout_vmnk, 2))),
                                                    make_stride(m_stride, n_stride)),
                                        _));
    return composition(composition(thrfrg, make_tile(bcast, _)), make_tile(thridx_to_thrid(), _));
  }
};

// One operand's partition: thrfrg = ((ThrV,(ThrX,ThrY)),(FrgV,(RestX,RestY,...))), and layout = its
// (FrgV,RestX,RestY,...) part. offset(tid) evaluates the thread's (v,x,y) coordinate in the
// thread mode from the node arrays only.
struct TiledMMA::Partition {
  Layout layout;
  Layout thrfrg;
  Layout thr_layout_vmnk;
  int x = 0, y = 0;

  template <class Acc = i64>
  constexpr Acc offset(i64 tid) const {
    // As CuTe's get_flat_coord: each mode takes (tid / stride) % shape, so a tid past the size wraps.
    IntTuple const& ts = thr_layout_vmnk.shape;
    IntTuple const& td = thr_layout_vmnk.stride;
    i64 v = idx2flat(tid, ts, td, child_node(ts, 0, 0));
    i64 cx = idx2flat(tid, ts, td, child_node(ts, 0, 1 + x));
    i64 cy = idx2flat(tid, ts, td, child_node(ts, 0, 1 + y));
    IntTuple const& s = thrfrg.shape;
    IntTuple const& d = thrfrg.stride;
#if LOOM_CHECKED_ARITHMETIC
    if constexpr (std::is_same_v<Acc, i64>) {
      if (LOOM_RUNTIME_CHECKED())
        return checked::add(checked::add(crd2idx_flat<Acc>(v, s, d, child_node(s, 0, 0, 0)),
                                         crd2idx_flat<Acc>(cx, s, d, child_node(s, 0, 0, 1, 0))),
                            crd2idx_flat<Acc>(cy, s, d, child_node(s, 0, 0, 1, 1)));
    }
#endif
    return crd2idx_flat<Acc>(v, s, d, child_node(s, 0, 0, 0)) + crd2idx_flat<Acc>(cx, s, d, child_node(s, 0, 0, 1, 0)) +
           crd2idx_flat<Acc>(cy, s, d, child_node(s, 0, 0, 1, 1));
  }
};

constexpr TiledMMA::Partition TiledMMA::partition(Layout const& t, int x, int y, Layout const& tv) const {
  Layout f = thrfrg(t, x, y, tv);
  IntTuple rest = make_coord(_, repeat(rank(get(f.shape, 1, 1)), _));
  return {slice(make_coord(make_coord(0, make_coord(0, 0)), rest), f), f, thr_layout_vmnk, x, y};
}
constexpr TiledMMA::Partition TiledMMA::partition_A(Layout const& a) const { return partition(a, 0, 2, atom.a_tv); }
constexpr TiledMMA::Partition TiledMMA::partition_B(Layout const& b) const { return partition(b, 1, 2, atom.b_tv); }
constexpr TiledMMA::Partition TiledMMA::partition_C(Layout const& c) const { return partition(c, 0, 1, atom.c_tv); }

// A thread's view, as CuTe's get_slice(thr).partition_X(tensor) gives it.
struct ThrMMA {
  TiledMMA mma;
  i64 thr = 0;

  // (M,K) -> (FrgV, RestM, RestK, ...): this thread's A elements, and the offset of the first.
  constexpr OffsetLayout partition_A(Layout const& a) const { return at(mma.partition_A(a)); }
  constexpr OffsetLayout partition_B(Layout const& b) const { return at(mma.partition_B(b)); }
  constexpr OffsetLayout partition_C(Layout const& c) const { return at(mma.partition_C(c)); }
  constexpr OffsetLayout at(TiledMMA::Partition const& p) const { return {p.layout, p.offset(thr)}; }
};

constexpr ThrMMA TiledMMA::get_slice(i64 thr) const {
  return {*this, thr};
}
constexpr ThrMMA TiledMMA::get_thread_slice(i64 thr) const { return get_slice(thr); }

// Repeat the atom over atom_layout (up to rank 3, padded with 1:0) and permute the M, N and K modes
// by `permutation` (up to rank 3, padded with `_`).
constexpr TiledMMA make_tiled_mma(MMAAtom const& atom, Layout const& atom_layout = Layout{},
                                  Tile const& permutation = make_tile(_, _, _)) {
  LOOM_REQUIRE(rank(atom_layout) <= 3, "make_tiled_mma: the atom layout has more than 3 modes");
  Layout atoms = append(atom_layout, 3);
  Tile perm = permutation;
  if (!perm.is_tuple()) perm = make_tile(perm);
  LOOM_REQUIRE(perm.rank() <= 3, "make_tiled_mma: the permutation has more than 3 modes");
  while (perm.rank() < 3) {
    Tile p = perm;
    TupleBuilder b;
    Tile r;
    for (int i = 0; i < p.rank(); ++i) b.push(r.graft(p, get(p, i).tree));
    b.push(r.graft(Tile(_), Tile(_).tree));
    r.tree = b.done();
    perm = r;
  }
  return {atom, tiled_product(atom.thr_id, Tile(atoms)), perm};
}

}  // namespace loom
