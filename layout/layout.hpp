// Loom layout core: Layout = (Shape, Stride), a function from coordinates to offsets, and its
// algebra: coalesce, composition, complement, inverses, divides and products.
//
// Every function here follows the definition in NVIDIA CuTe and gives CuTe's result when all
// integers are static. The functions are constexpr on plain values, so a kernel computes its tile
// and thread layouts at compile time with exactly the code that loom-layout runs at the shell.
#pragma once

#include "layout/int_tuple.hpp"

namespace loom {

struct LayoutLeft {};   // column-major: the leftmost mode has stride 1
struct LayoutRight {};  // row-major: the rightmost mode has stride 1

struct Layout {
  IntTuple shape;
  IntTuple stride;

  constexpr Layout() : shape(1), stride(0) {}
  constexpr Layout(IntTuple const& s, IntTuple const& d) : shape(s), stride(d) {
    LOOM_REQUIRE(congruent(s, d), "layout: shape and stride are not congruent");
  }

  // Coordinate (hierarchical, possibly with underscores counting as 0) -> offset.
  constexpr i64 operator()(IntTuple const& coord) const { return crd2idx(coord, shape, stride).v; }

  // Integer index, split colexicographically over all modes -> offset. The form kernels use: it
  // reads only the node arrays, so a constexpr layout folds to constants.
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  constexpr i64 operator()(I idx) const { return crd2idx_flat(i64(idx), shape, stride); }

  // One integer per top-level mode: L(m, n) == L(make_coord(m, n)).
  template <class I0, class I1, class... Is,
            std::enable_if_t<(std::is_integral_v<I0> && std::is_integral_v<I1> &&
                              (std::is_integral_v<Is> && ...)), int> = 0>
  constexpr i64 operator()(I0 c0, I1 c1, Is... cs) const {
    i64 c[] = {i64(c0), i64(c1), i64(cs)...};
    LOOM_REQUIRE(is_tuple(shape) && shape.arity[0] == int(sizeof...(Is)) + 2,
                 "layout: coordinate rank does not match the shape");
    i64 r = 0;
    int p = 1;
    LOOM_UNROLL
    for (int i = 0; i < int(sizeof...(Is)) + 2; ++i) {
#if LOOM_CHECKED_ARITHMETIC
      if (LOOM_RUNTIME_CHECKED())
        r = checked::add(r, crd2idx_flat(c[i], shape, stride, p));
      else
#endif
        r += crd2idx_flat(c[i], shape, stride, p);
      p += shape.span[p];
    }
    return r;
  }
  template <class... Ts>
  constexpr i64 operator()(IntTuple const& c0, IntTuple const& c1, Ts const&... cs) const {
    return (*this)(make_coord(c0, c1, cs...));
  }
};

constexpr bool operator==(Layout const& a, Layout const& b) {
  return a.shape == b.shape && a.stride == b.stride;
}
constexpr bool operator!=(Layout const& a, Layout const& b) { return !(a == b); }

// ---------------------------------------------------------------------------------------------
// Construction and access
// ---------------------------------------------------------------------------------------------

constexpr Layout make_layout(IntTuple const& shape, IntTuple const& stride) { return {shape, stride}; }
constexpr Layout make_layout(IntTuple const& shape) { return {shape, compact_col_major(shape)}; }
constexpr Layout make_layout(IntTuple const& shape, LayoutLeft) { return make_layout(shape); }
constexpr Layout make_layout(IntTuple const& shape, LayoutRight) {
  return {shape, compact_row_major(shape)};
}
// Compact layout whose modes are ordered by `order`: make_ordered_layout((2,2,2), (2,0,1))
// is (2,2,2):(4,1,2).
constexpr Layout make_ordered_layout(IntTuple const& shape, IntTuple const& order) {
  return {shape, compact_order(shape, order)};
}

// Concatenation of layouts into one layout with one mode per argument.
struct LayoutBuilder {
  TupleBuilder s, d;
  constexpr LayoutBuilder& push(Layout const& l) {
    s.push(l.shape);
    d.push(l.stride);
    return *this;
  }
  constexpr Layout done() const { return {s.done(), d.done()}; }
};
template <class... Ls>
constexpr Layout make_layout(Layout const& l0, Ls const&... ls) {
  LayoutBuilder b;
  b.push(l0);
  (b.push(ls), ...);
  return b.done();
}

constexpr int rank(Layout const& l) { return rank(l.shape); }
constexpr int depth(Layout const& l) { return depth(l.shape); }
constexpr Int size(Layout const& l) { return size(l.shape); }
constexpr IntTuple shape(Layout const& l) { return l.shape; }
constexpr IntTuple stride(Layout const& l) { return l.stride; }
constexpr bool is_static(Layout const& l) { return is_static(l.shape) && is_static(l.stride); }

constexpr Layout get(Layout const& l, int i) { return {get(l.shape, i), get(l.stride, i)}; }
template <class... Is>
constexpr Layout get(Layout const& l, int i, int j, Is... is) { return get(get(l, i), j, is...); }

constexpr Layout take(Layout const& l, int b, int e) { return {take(l.shape, b, e), take(l.stride, b, e)}; }
constexpr Layout flatten(Layout const& l) { return {flatten(l.shape), flatten(l.stride)}; }
constexpr Layout append(Layout const& l, Layout const& x) {
  return {append(l.shape, x.shape), append(l.stride, x.stride)};
}
constexpr Layout prepend(Layout const& l, Layout const& x) {
  return {prepend(l.shape, x.shape), prepend(l.stride, x.stride)};
}
// Pad with 1:0 modes up to rank n.
constexpr Layout append(Layout const& l, int n) {
  return {append(l.shape, n, IntTuple(1)), append(l.stride, n, IntTuple(0))};
}
constexpr Layout zip(Layout const& a, Layout const& b) {
  return {zip(a.shape, b.shape), zip(a.stride, b.stride)};
}
// Group modes [b, e) into one mode.
constexpr Layout group(Layout const& l, int b, int e) {
  LayoutBuilder r;
  for (int i = 0; i < b; ++i) r.push(get(l, i));
  r.push(take(l, b, e));
  for (int i = e; i < rank(l); ++i) r.push(get(l, i));
  return r.done();
}

// Offset of the last element plus one, with strides taken by absolute value.
constexpr Int cosize(Layout const& l) {
  IntTuple astride = transform_leaf(l.stride, [](Int d) { return abs(d); });
  return crd2idx(IntTuple(size(l) - Int{1}), l.shape, astride) + Int{1};
}

// Coordinates of an index: hierarchical (congruent to the shape), flat (one integer per mode), and
// the colexicographic 1-D index.
constexpr IntTuple get_hier_coord(Layout const& l, i64 idx) {
  return idx2crd(IntTuple(idx), l.shape, l.stride);
}
constexpr IntTuple get_flat_coord(Layout const& l, i64 idx) {
  return crd2crd(get_hier_coord(l, idx), l.shape, repeat(rank(l), IntTuple(1)));
}
constexpr i64 get_1d_coord(Layout const& l, i64 idx) {
  return crd2idx(get_hier_coord(l, idx), l.shape).v;
}

// Can every coordinate be read back from its offset: get_hier_coord(L, L(c)) == c for every c in
// the domain, which is CuTe's postcondition of get_hier_coord (crd2idx of the result is the index)?
// get_hier_coord takes (idx / stride) % shape in every mode, so this holds exactly when the modes of
// size > 1, ordered by stride, have positive strides and each stride is a multiple of the previous
// mode's extent (stride * shape). Compact layouts qualify, and so do layouts with gaps such as
// (4,2,6):(24,12,1); (2,2):(1,1) (not injective) and anything with a negative stride do not.
constexpr bool coords_from_offsets(Layout const& l) {
  IntTuple fs = flatten(wrap(l.shape)), fd = flatten(wrap(l.stride));
  int r = rank(fs);
  bool used[IntTuple::kCap] = {};
  i64 prev_extent = 1;
  for (int n = 0; n < r; ++n) {
    int next = -1;  // the unused mode of size > 1 with the smallest stride
    for (int i = 0; i < r; ++i)
      if (!used[i] && value(get(fs, i)) > 1 && (next < 0 || value(get(fd, i)) < value(get(fd, next)))) next = i;
    if (next < 0) break;
    used[next] = true;
    i64 d = value(get(fd, next));
    if (d <= 0 || d % prev_extent != 0) return false;
    Int extent = Int{d} * as_int(get(fs, next));  // checked on the host
    prev_extent = extent.v;
  }
  return true;
}

// The sublayout at the underscores of c, and the offset of c (underscores counting as 0).
struct OffsetLayout {
  Layout layout;
  i64 offset = 0;
};
constexpr Layout slice(IntTuple const& c, Layout const& l) { return {slice(c, l.shape), slice(c, l.stride)}; }
constexpr Layout dice(IntTuple const& c, Layout const& l) { return {dice(c, l.shape), dice(c, l.stride)}; }
constexpr OffsetLayout slice_and_offset(IntTuple const& c, Layout const& l) {
  return {slice(c, l), crd2idx(c, l.shape, l.stride).v};
}

// ---------------------------------------------------------------------------------------------
// Coalesce and filter
// ---------------------------------------------------------------------------------------------

namespace detail {

// Walk the flat modes [0, start] from the back, merging each into the front of the result when
// its extent ends where the front begins: s0:s1*d1 then s1:d1 becomes s0*s1:d1. Static size-1
// modes are dropped. (new_shape, new_stride) seeds the front.
constexpr Layout bw_coalesce(IntTuple const& old_shape, IntTuple const& old_stride, int start,
                             Int new_shape, Int new_stride) {
  Int ns[IntTuple::kCap], nd[IntTuple::kCap];  // ns[len-1] is the front
  int len = 1;
  ns[0] = new_shape;
  nd[0] = new_stride;
  for (int i = start; i >= 0; --i) {
    Int s = as_int(get(old_shape, i)), d = as_int(get(old_stride, i));
    if (s.is_constant(1)) continue;
    if (len == 1 && ns[0].is_constant(1)) {
      ns[0] = s;
      nd[0] = d;
      continue;
    }
    Int extent = s * d;
    Int& fs = ns[len - 1];
    Int& fd = nd[len - 1];
    if (fs.is_static() && extent.is_static() && fd.is_static() && same(extent, fd)) {
      fs = s * fs;
      fd = d;
      continue;
    }
    ns[len] = s;
    nd[len] = d;
    ++len;
  }
  if (len == 1) {
    if (ns[0].is_constant(1)) return {IntTuple(1), IntTuple(0)};
    return {IntTuple(ns[0]), IntTuple(nd[0])};
  }
  TupleBuilder rs, rd;
  for (int k = len - 1; k >= 0; --k) {
    rs.push(IntTuple(ns[k]));
    rd.push(IntTuple(nd[k]));
  }
  return {rs.done(), rd.done()};
}

// coalesce that also keeps the function outside the domain: a trailing static 1 is widened to 2 so
// that its stride survives. Used for the left operand of composition.
constexpr Layout coalesce_x(Layout const& l) {
  IntTuple fs = flatten(l.shape), fd = flatten(l.stride);
  int R = rank(fs);
  Int last = as_int(get(fs, R - 1));
  return bw_coalesce(fs, fd, R - 2, last.is_constant(1) ? Int{2} : last, as_int(get(fd, R - 1)));
}

}  // namespace detail

// Merge modes wherever the function allows; keeps size and the values on the domain.
constexpr Layout coalesce(Layout const& l) {
  IntTuple fs = flatten(l.shape), fd = flatten(l.stride);
  int R = rank(fs);
  return detail::bw_coalesce(fs, fd, R - 2, as_int(get(fs, R - 1)), as_int(get(fd, R - 1)));
}

// Apply f to mode pairs (l_i, p_i) for i < rank(p), then append the remaining modes of l.
template <class P, class F>
constexpr Layout transform_layout(Layout const& l, P const& p, int rank_p, F&& f) {
  LOOM_REQUIRE(rank_p <= rank(l), "the profile has more modes than the layout");
  LayoutBuilder r;
  for (int i = 0; i < rank_p; ++i) r.push(f(get(l, i), get(p, i)));
  for (int i = rank_p; i < rank(l); ++i) r.push(get(l, i));
  return r.done();
}

// Coalesce only within the modes named by a profile: coalesce((2,(1,6)):(1,(6,2)), (1,1)) keeps
// two modes.
constexpr Layout coalesce(Layout const& l, IntTuple const& profile) {
  if (is_leaf(profile)) return coalesce(l);
  return transform_layout(l, profile, rank(profile),
                          [](Layout const& m, IntTuple const& p) { return coalesce(m, p); });
}

// Shapes: merge neighbouring flat modes that are both static or both dynamic.
constexpr IntTuple coalesce_shape(IntTuple const& shape) {
  if (is_leaf(shape)) return shape;
  IntTuple f = flatten(shape);
  LOOM_REQUIRE(rank(f) > 0, "coalesce: empty shape");
  Int acc[IntTuple::kCap];
  int len = 1;
  acc[0] = as_int(get(f, 0));
  for (int i = 1; i < rank(f); ++i) {
    Int a = as_int(get(f, i));
    if (acc[len - 1].is_static() == a.is_static())
      acc[len - 1] = acc[len - 1] * a;
    else
      acc[len++] = a;
  }
  if (len == 1) return IntTuple(acc[0]);
  TupleBuilder b;
  for (int k = 0; k < len; ++k) b.push(IntTuple(acc[k]));
  return b.done();
}

// Replace modes that have a static 0 stride by size 1.
constexpr Layout filter_zeros(Layout const& l) { return {filter_zeros(l.stride, l.shape), l.stride}; }
// Drop stride-0 and size-1 modes, then coalesce.
constexpr Layout filter(Layout const& l) { return coalesce(filter_zeros(l)); }
constexpr Layout filter(Layout const& l, IntTuple const& profile) {
  if (is_leaf(profile)) return filter(l);
  return transform_layout(l, profile, rank(profile),
                          [](Layout const& m, IntTuple const& p) { return filter(m, p); });
}

// ---------------------------------------------------------------------------------------------
// Tile: a tuple of layouts (a tiler), one per mode it is applied to
// ---------------------------------------------------------------------------------------------
//
// A tiler is a Layout, an integer N (as N:1), an underscore (leave the mode alone) or a tuple of
// tilers. A Layout passed where a Tile is expected is a single tiler applied to the whole layout.
struct Tile {
  static constexpr int kCap = 8;
  enum Kind : unsigned char { kLayout, kInt, kUnder };

  IntTuple tree;      // the nesting; each leaf holds an index into elem
  Layout elem[kCap];
  unsigned char kind[kCap] = {};
  int count = 0;

  constexpr Tile() : tree(make_tuple()) {}
  constexpr Tile(Layout const& l) { tree = IntTuple(add(kLayout, l)); }
  // An integer, an underscore, or a shape (a tuple of those), as CuTe accepts a Shape as a tiler.
  constexpr Tile(IntTuple const& t) { tree = from_shape(t); }
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  constexpr Tile(T n) : Tile(IntTuple(n)) {}

  constexpr int add(Kind k, Layout const& l) {
    LOOM_REQUIRE(count < kCap, "tiler has too many modes");
    elem[count] = l;
    kind[count] = k;
    return count++;
  }
  constexpr IntTuple from_shape(IntTuple const& t) {
    if (loom::is_underscore(t)) return IntTuple(add(kUnder, Layout{}));
    if (is_leaf(t)) return IntTuple(add(kInt, Layout{t, IntTuple(1)}));
    TupleBuilder b;
    for (int i = 0; i < loom::rank(t); ++i) b.push(from_shape(get(t, i)));
    return b.done();
  }
  // Graft another tile's tree into this one.
  constexpr IntTuple graft(Tile const& o, IntTuple const& t) {
    if (is_leaf(t)) {
      int k = int(value(t));
      return IntTuple(add(Kind(o.kind[k]), o.elem[k]));
    }
    TupleBuilder b;
    for (int i = 0; i < loom::rank(t); ++i) b.push(graft(o, get(t, i)));
    return b.done();
  }

  constexpr bool is_tuple() const { return loom::is_tuple(tree); }
  constexpr int rank() const { return loom::rank(tree); }
  constexpr Kind leaf_kind() const { return Kind(kind[value(tree)]); }
  constexpr Layout const& leaf() const { return elem[value(tree)]; }
  constexpr bool is_underscore() const { return !is_tuple() && leaf_kind() == kUnder; }
};

constexpr Tile get(Tile const& t, int i) {
  Tile r = t;
  r.tree = get(t.tree, i);
  return r;
}

// Number of elements a tiler covers; an underscore has no size of its own.
constexpr Int size(Tile const& t) {
  if (!t.is_tuple()) {
    LOOM_REQUIRE(t.leaf_kind() != Tile::kUnder, "size: an underscore tiler has no size");
    return size(t.leaf());
  }
  Int p{1};
  for (int i = 0; i < t.rank(); ++i) p = p * size(get(t, i));
  return p;
}

template <class... Ts>
constexpr Tile make_tile(Ts const&... ts) {
  Tile r;
  TupleBuilder b;
  (b.push(r.graft(Tile(ts), Tile(ts).tree)), ...);
  r.tree = b.done();
  return r;
}

// dice for tilers: keep the modes where the Step c is not X.
constexpr void dice_into(TupleBuilder& into, Tile& out, Tile const& t, IntTuple const& c, IntTuple const& node) {
  if (is_tuple(c)) {
    LOOM_REQUIRE(is_tuple(node) && rank(c) == rank(node), "dice: step rank does not match the tiler");
    for (int i = 0; i < rank(c); ++i) dice_into(into, out, t, get(c, i), get(node, i));
  } else if (!is_underscore(c)) {
    into.push(out.graft(t, node));
  }
}
constexpr Tile dice(IntTuple const& c, Tile const& t) {
  if (is_leaf(c)) return is_underscore(c) ? Tile{} : t;
  Tile r;
  TupleBuilder b;
  dice_into(b, r, t, c, t.tree);
  r.tree = b.done();
  return r;
}

// ---------------------------------------------------------------------------------------------
// Composition: R(c) = A(B(c)) for every c in the domain of B
// ---------------------------------------------------------------------------------------------

namespace detail {

constexpr Layout composition_impl(IntTuple const& ls, IntTuple const& ld, IntTuple const& rs,
                                  IntTuple const& rd) {
  if (is_tuple(rs)) {  // composition distributes over the modes of the right operand
    LayoutBuilder r;
    for (int i = 0; i < rank(rs); ++i) r.push(composition_impl(ls, ld, get(rs, i), get(rd, i)));
    return r.done();
  }
  Int rshape = as_int(rs), rstride = as_int(rd);
  if (rstride.is_constant(0)) return {rs, rd};
  if (is_leaf(ls)) return {rs, IntTuple(rstride * as_int(ld))};

  // Walk the leading modes of A (A is flat here). B's stride first steps over whole modes of A
  // (rest_stride shrinks by each mode's size, rounding up), then B's shape is taken out of the
  // modes that are left. Only what can be checked with static values is checked, and the checks
  // are the relaxed ones of CuTe >= 3.9: the stride either is a multiple of the mode's size or
  // falls inside the mode, and the shape taken from a mode divides what remains of B's shape.
  int R = rank(ls);
  TupleBuilder res_s, res_d;
  Int rest_shape = rshape, rest_stride = rstride;
  for (int i = 0; i + 1 < R; ++i) {
    Int cs = as_int(get(ls, i)), cd = as_int(get(ld, i));
    if (cs.is_static() && rest_stride.is_static())
      LOOM_REQUIRE(rest_stride.v % cs.v == 0 || rest_stride.v < cs.v,
                   "composition: stride divisibility condition violated (the stride of B neither "
                   "is a multiple of a mode of A nor falls inside it)");
    Int next_shape = ceil_div(cs, abs(rest_stride));
    Int next_stride = ceil_div(abs(rest_stride), cs) * signum(rest_stride);
    if (!next_shape.is_constant(1) && !rest_shape.is_constant(1)) {
      Int new_shape = min(next_shape, rest_shape);
      if (new_shape.is_static() && rest_shape.is_static())
        LOOM_REQUIRE(rest_shape.v % new_shape.v == 0,
                     "composition: shape divisibility condition violated (a mode of A does not "
                     "divide the shape of B)");
      res_s.push(IntTuple(new_shape));
      res_d.push(IntTuple(rest_stride * cd));
      rest_shape = rest_shape / new_shape;
    }
    rest_stride = next_stride;
  }
  Int last_stride = as_int(get(ld, R - 1));
  if (res_s.size() == 0) return {IntTuple(rest_shape), IntTuple(rest_stride * last_stride)};
  if (rest_shape.is_constant(1)) return {unwrap(res_s.done()), unwrap(res_d.done())};
  res_s.push(IntTuple(rest_shape));
  res_d.push(IntTuple(rest_stride * last_stride));
  return {res_s.done(), res_d.done()};
}

}  // namespace detail

constexpr Layout composition(Layout const& a, Layout const& b) {
  Layout flat = detail::coalesce_x(a);
  return detail::composition_impl(flat.shape, flat.stride, b.shape, b.stride);
}

// Composition with a tiler: mode i of a composed with tiler mode i. Modes of a that the tiler does
// not reach are dropped.
constexpr Layout composition(Layout const& a, Tile const& t) {
  if (t.is_tuple()) {
    LOOM_REQUIRE(t.rank() > 0, "composition: the tiler is an empty tuple");
    LOOM_REQUIRE(t.rank() <= rank(a), "composition: the tiler has more modes than the layout");
    LayoutBuilder r;
    for (int i = 0; i < t.rank(); ++i) r.push(composition(get(a, i), get(t, i)));
    return r.done();
  }
  switch (t.leaf_kind()) {
    case Tile::kUnder: return a;
    case Tile::kInt: {
      Layout flat = detail::coalesce_x(a);
      return detail::composition_impl(flat.shape, flat.stride, t.leaf().shape, IntTuple(1));
    }
    default: return composition(a, t.leaf());
  }
}

// ---------------------------------------------------------------------------------------------
// Complement: the layout of the offsets in [0, cotarget) that a does not reach
// ---------------------------------------------------------------------------------------------

namespace detail {

constexpr Layout complement_impl(IntTuple const& shape, IntTuple const& stride, IntTuple const& cotarget) {
  if (is_leaf(stride) && as_int(stride).is_constant(0)) return make_layout(coalesce_shape(cotarget));

  int R = rank(shape);
  LOOM_REQUIRE(R == 1 || is_static(stride), "complement: dynamic strides need a rank-1 layout");
  IntTuple sh = wrap(shape), st = wrap(stride);
  TupleBuilder rs, rd;
  Int last{1};
  rd.push(IntTuple(last));
  // Visit the modes by increasing stride; each gap between one mode's extent and the next stride
  // becomes a mode of the complement.
  for (int i = 0; i + 1 < R; ++i) {
    Int min_stride = min_leaf(st);
    // The first pass sees the smallest stride. A negative one makes CuTe 4.7.0 print negative
    // shapes, which break complement's contract (a result ordered by increasing offset).
    LOOM_REQUIRE(min_stride.v > 0, "complement: a negative stride (the complement needs positive strides)");
    int min_idx = 0;
    while (value(get(st, min_idx)) != min_stride.v) ++min_idx;
    Int new_shape = min_stride / last;
    LOOM_REQUIRE(!new_shape.is_constant(0), "complement: the layout is not injective");
    last = min_stride * as_int(get(sh, min_idx));
    sh = remove(sh, min_idx);
    st = remove(st, min_idx);
    rs.push(IntTuple(new_shape));
    rd.push(IntTuple(last));
  }
  Int s0 = as_int(get(st, 0));
  LOOM_REQUIRE(s0.v > 0, "complement: a negative stride (the complement needs positive strides)");
  Int new_shape = s0 / last;
  LOOM_REQUIRE(!new_shape.is_constant(0), "complement: the layout is not injective");
  rs.push(IntTuple(new_shape));
  Int new_stride = s0 * as_int(get(sh, 0));
  IntTuple rest_shape = coalesce_shape(ceil_div(cotarget, IntTuple(new_stride)));
  IntTuple rest_stride = compact_col_major(rest_shape, new_stride);
  return coalesce(Layout{make_tuple(rs.done(), rest_shape), make_tuple(rd.done(), rest_stride)});
}

}  // namespace detail

constexpr Layout complement(Layout const& a, IntTuple const& cotarget) {
  Layout f = filter(a);
  return detail::complement_impl(f.shape, f.stride, cotarget);
}
constexpr Layout complement(Layout const& a) {
  Layout f = filter(a);
  return detail::complement_impl(f.shape, f.stride, IntTuple(cosize(f)));
}

// ---------------------------------------------------------------------------------------------
// Inverses
// ---------------------------------------------------------------------------------------------

namespace detail {

// The flat modes of coalesce(a) in order of increasing stride, ordered exactly as CuTe's
// compile-time exchange sort orders them: equal strides can end up out of their original order,
// and that order decides which of them an inverse picks. Only static strides take part when
// static_only is set. Also gives the exclusive prefix products of the shape (the column-major
// strides of the coalesced layout's domain).
struct SortedModes {
  IntTuple shape, stride;    // coalesce(a), wrapped to a tuple
  Int preprod[IntTuple::kCap + 1];
  int order[IntTuple::kCap] = {};
  int n = 0;                 // modes in order[]
};
constexpr SortedModes sorted_modes(Layout const& a, bool static_only) {
  Layout c = coalesce(a);
  SortedModes m;
  m.shape = wrap(c.shape);
  m.stride = wrap(c.stride);
  int R = rank(m.shape);
  m.preprod[0] = Int{1};
  for (int i = 0; i < R; ++i) m.preprod[i + 1] = as_int(get(m.shape, i)) * m.preprod[i];
  i64 key[IntTuple::kCap] = {};
  for (int i = 0; i < R; ++i) {
    Int d = as_int(get(m.stride, i));
    if (static_only && !d.is_static()) continue;
    key[m.n] = d.v;
    m.order[m.n++] = i;
  }
  for (int i = 0; i < m.n; ++i)
    for (int j = i + 1; j < m.n; ++j)
      if (key[j] < key[i]) {
        i64 k = key[i];
        key[i] = key[j];
        key[j] = k;
        int o = m.order[i];
        m.order[i] = m.order[j];
        m.order[j] = o;
      }
  return m;
}

}  // namespace detail

// R with a(R(i)) == i for every i < size(R): starting from stride 1, take the mode whose stride is
// the extent reached so far, as long as the strides chain. Negative and dynamic strides never
// chain. The result's strides are the positions of those modes in a's (coalesced) domain.
constexpr Layout right_inverse(Layout const& a) {
  detail::SortedModes m = detail::sorted_modes(a, true);
  TupleBuilder s, d;
  s.push(IntTuple(1));  // a size-1 seed mode, which the final coalesce drops
  d.push(IntTuple(0));
  Int curr{1};
  for (int k = 0; k < m.n; ++k) {
    int i = m.order[k];
    Int di = as_int(get(m.stride, i)), si = as_int(get(m.shape, i));
    if (curr.is_static() && di.v == curr.v) {
      s.push(IntTuple(si));
      d.push(IntTuple(m.preprod[i]));
      curr = si * di;
    }
  }
  return coalesce(Layout{s.done(), d.done()});
}

// A quasi-inverse R with a(R(a(i))) == a(i) for every i < size(a), and R(a(i)) == i when a is
// injective. The modes of a are visited by increasing stride; the gap below each stride becomes a
// mode of stride 0 (an offset that a never produces maps to the start of its gap), then the mode
// itself. a's strides must be static, and each one a multiple of the extent before it.
constexpr Layout left_inverse(Layout const& a) {
  detail::SortedModes m = detail::sorted_modes(a, false);
  LOOM_REQUIRE(is_static(m.stride), "left_inverse: the strides must be static");
  TupleBuilder s, d;
  d.push(IntTuple(0));
  Int covered{1};  // size of the result so far
  for (int k = 0; k < m.n; ++k) {
    int i = m.order[k];
    Int di = as_int(get(m.stride, i));
    if (di.is_constant(0)) continue;
    // A negative stride gives negative offsets, which no layout takes as indices: CuTe 4.7.0
    // prints a layout with a negative shape there.
    LOOM_REQUIRE(di.v > 0, "left_inverse: a negative stride (the layout has negative offsets, which no layout maps back)");
    LOOM_REQUIRE(di.v % covered.v == 0,
                 "left_inverse: a stride is not a multiple of the extent below it (divisibility condition)");
    Int si = di / covered;
    s.push(IntTuple(si));
    d.push(IntTuple(m.preprod[i]));
    covered = covered * si;
  }
  s.push(get(m.shape, m.order[m.n - 1]));
  return coalesce(Layout{s.done(), d.done()});
}

// ---------------------------------------------------------------------------------------------
// Divides: logical_divide(A, T) = A o (T, T*), with T* the complement of T in size(A)
// ---------------------------------------------------------------------------------------------

// The complement is taken in the shape of coalesce(A), not of A: for a tiler that does not
// divide A this decides the rest mode, e.g. (3,5):(1,3) by 2:1 has the rest 8:2 (ceil(15/2)), not
// the (ceil(3/2), 5) that A's own shape would give.
constexpr Layout logical_divide(Layout const& a, Layout const& tiler) {
  return composition(a, make_layout(tiler, complement(tiler, coalesce(a).shape)));
}
constexpr Layout logical_divide(Layout const& a, Tile const& t) {
  if (t.is_tuple())
    return transform_layout(a, t, t.rank(),
                            [](Layout const& m, Tile const& ti) { return logical_divide(m, ti); });
  switch (t.leaf_kind()) {
    case Tile::kUnder: return a;
    case Tile::kInt: return logical_divide(a, make_layout(t.leaf().shape));
    default: return logical_divide(a, t.leaf());
  }
}

// Gather the rank-2 modes found at the leaves of the tiler: ((A,a),(B,b),c) by (T,T) gives
// ((A,B),(a,b,c)).
constexpr IntTuple zip2_by(IntTuple const& t, Tile const& guide) {
  if (!guide.is_tuple()) {
    LOOM_REQUIRE(is_tuple(t) && rank(t) == 2, "zip2_by: expected a rank-2 mode under the tiler");
    return t;
  }
  int gr = guide.rank();
  LOOM_REQUIRE(is_tuple(t) && rank(t) >= gr, "zip2_by: the tiler has more modes than the layout");
  TupleBuilder a, b;
  for (int i = 0; i < gr; ++i) {
    IntTuple s = zip2_by(get(t, i), get(guide, i));
    a.push(get(s, 0));
    b.push(get(s, 1));
  }
  for (int i = gr; i < rank(t); ++i) b.push(get(t, i));
  return make_tuple(a.done(), b.done());
}
constexpr Layout tile_unzip(Layout const& l, Tile const& t) { return {zip2_by(l.shape, t), zip2_by(l.stride, t)}; }

// ((tile modes), (rest modes))
constexpr Layout zipped_divide(Layout const& a, Tile const& t) { return tile_unzip(logical_divide(a, t), t); }
// ((tile modes), rest0, rest1, ...)
constexpr Layout tiled_divide(Layout const& a, Tile const& t) {
  Layout z = zipped_divide(a, t);
  return slice(make_coord(_, repeat(rank(get(z.shape, 1)), _)), z);
}
// (tile0, tile1, ..., rest0, rest1, ...)
constexpr Layout flat_divide(Layout const& a, Tile const& t) {
  Layout z = zipped_divide(a, t);
  return slice(make_coord(repeat(rank(get(z.shape, 0)), _), repeat(rank(get(z.shape, 1)), _)), z);
}

// ---------------------------------------------------------------------------------------------
// Products: logical_product(A, B) = (A, A* o B), with A* the complement of A in size(A)*cosize(B)
// ---------------------------------------------------------------------------------------------

constexpr Layout logical_product(Layout const& a, Layout const& b) {
  return make_layout(a, composition(complement(a, IntTuple(size(a) * cosize(b))), b));
}
constexpr Layout logical_product(Layout const& a, Tile const& t) {
  if (t.is_tuple())
    return transform_layout(a, t, t.rank(),
                            [](Layout const& m, Tile const& ti) { return logical_product(m, ti); });
  switch (t.leaf_kind()) {
    case Tile::kUnder: return a;
    case Tile::kInt: return logical_product(a, make_layout(t.leaf().shape));
    default: return logical_product(a, t.leaf());
  }
}
constexpr Layout zipped_product(Layout const& a, Tile const& t) { return tile_unzip(logical_product(a, t), t); }
constexpr Layout tiled_product(Layout const& a, Tile const& t) {
  Layout z = zipped_product(a, t);
  return slice(make_coord(_, repeat(rank(get(z.shape, 1)), _)), z);
}
constexpr Layout flat_product(Layout const& a, Tile const& t) {
  Layout z = zipped_product(a, t);
  return slice(make_coord(repeat(rank(get(z.shape, 0)), _), repeat(rank(get(z.shape, 1)), _)), z);
}

namespace detail {
// The two modes of the logical product, padded to a common rank and zipped mode by mode. The modes
// are not coalesced: CuTe 4.x keeps the (block, tiler) structure of every mode.
constexpr Layout rank_product(Layout const& block, Layout const& tiler, bool raked) {
  int R = rank(block) > rank(tiler) ? rank(block) : rank(tiler);
  Layout p = logical_product(append(block, R), append(tiler, R));
  return raked ? zip(get(p, 1), get(p, 0)) : zip(get(p, 0), get(p, 1));
}
}  // namespace detail

// The block repeated over the tiler, mode by mode: blocked_product((2,2):(1,2), (3,4):(1,3)) is a
// 6x8 layout made of 2x2 blocks.
constexpr Layout blocked_product(Layout const& block, Layout const& tiler) {
  return detail::rank_product(block, tiler, false);
}
// As blocked_product, with the copies of the block interleaved element by element.
constexpr Layout raked_product(Layout const& block, Layout const& tiler) {
  return detail::rank_product(block, tiler, true);
}

// ---------------------------------------------------------------------------------------------
// Partitioning
// ---------------------------------------------------------------------------------------------

// The tile at `coord` of the tiling of a by t: coord indexes the rest modes.
constexpr OffsetLayout inner_partition(Layout const& a, Tile const& t, IntTuple const& coord) {
  LOOM_REQUIRE(!t.is_tuple() || t.rank() > 0,
               "local_tile: the tiler has no modes (or the step drops all of them)");
  Layout z = zipped_divide(a, t);
  int r0 = rank(get(z.shape, 0)), r1 = rank(get(z.shape, 1));
  IntTuple rest = is_tuple(coord) ? append(coord, r1, _) : coord;
  return slice_and_offset(make_coord(repeat(r0, _), rest), z);
}
// The elements at `coord` within every tile: coord indexes the tile modes.
constexpr OffsetLayout outer_partition(Layout const& a, Tile const& t, IntTuple const& coord) {
  Layout z = zipped_divide(a, t);
  int r0 = rank(get(z.shape, 0)), r1 = rank(get(z.shape, 1));
  IntTuple in = is_tuple(coord) ? append(coord, r0, _) : coord;
  return slice_and_offset(make_coord(in, repeat(r1, _)), z);
}

// A CTA's tile: local_tile(gA, (BM,BK), (m,_)) keeps (BM,BK,k-tiles).
constexpr OffsetLayout local_tile(Layout const& a, Tile const& t, IntTuple const& coord) {
  return inner_partition(a, t, coord);
}
// With a Step projection: local_tile(gC, (BM,BN,BK), (m,n,k), (1,1,X)) uses the M and N modes only.
constexpr OffsetLayout local_tile(Layout const& a, Tile const& t, IntTuple const& coord, IntTuple const& step) {
  return local_tile(a, dice(step, t), dice(step, coord));
}

// A thread's elements: the thread layout tiles a, and thread idx takes its position in every tile.
// The layout is the same for every thread; only the offset depends on idx, and offset() reads the
// node arrays alone, so kernels keep `layout` constexpr and pay a few integer ops for the offset.
struct LocalPartition {
  Layout layout;  // (rest modes of the tiling): this thread's elements
  Layout tiled;   // zipped_divide(a, shape of thr): ((tile modes),(rest modes))
  Layout thr;

  // idx may exceed size(thr) when thr is a Step projection of a larger thread layout: each mode
  // takes (idx / stride) % shape, as get_flat_coord does.
  template <class Acc = i64>
  constexpr Acc offset(i64 idx) const {
    if (is_leaf(thr.shape))
      return crd2idx_flat<Acc>(idx2flat(idx, thr.shape, thr.stride), tiled.shape, tiled.stride, child_node(tiled.shape, 0, 0));
    Acc r{};
    LOOM_UNROLL
    for (int i = 0; i < rank(thr); ++i) {
      i64 c = idx2flat(idx, thr.shape, thr.stride, child_node(thr.shape, 0, i));
      Acc v = crd2idx_flat<Acc>(c, tiled.shape, tiled.stride, child_node(tiled.shape, 0, 0, i));
#if LOOM_CHECKED_ARITHMETIC
      if constexpr (std::is_same_v<Acc, i64>) {
        if (LOOM_RUNTIME_CHECKED()) {
          r = checked::add(r, v);
          continue;
        }
      }
#endif
      r += v;
    }
    return r;
  }
};

constexpr LocalPartition make_local_partition(Layout const& a, Layout const& thr) {
  Layout z = zipped_divide(a, Tile(product_each(thr.shape)));
  int r0 = rank(get(z.shape, 0)), r1 = rank(get(z.shape, 1));
  return {slice(make_coord(repeat(r0, 0), repeat(r1, _)), z), z, thr};
}
// As in CuTe, any index is taken: one past size(thr) wraps around mode by mode (see
// LocalPartition::offset), and a negative one follows C++'s division.
constexpr OffsetLayout local_partition(Layout const& a, Layout const& thr, i64 idx) {
  LocalPartition p = make_local_partition(a, thr);
  return {p.layout, p.offset(idx)};
}
// The Step drops modes of the thread layout; idx still counts threads of the whole layout.
constexpr OffsetLayout local_partition(Layout const& a, Layout const& thr, i64 idx, IntTuple const& step) {
  Layout kept = dice(step, thr);
  LOOM_REQUIRE(rank(kept) > 0, "local_partition: the step drops every mode of the thread layout");
  LocalPartition p = make_local_partition(a, kept);
  return {p.layout, p.offset(idx)};
}

}  // namespace loom
