// Loom layout core: hierarchical integer tuples.
//
// An IntTuple is an integer or a tuple of IntTuples, e.g. ((4,8),(2,2)). It is a plain value: a
// fixed-capacity tree stored in preorder, so every function below is an ordinary constexpr function
// that runs the same code at compile time (kernel tile layouts) and at run time (loom-layout, host
// set-up). Each integer leaf carries a flag that says whether it is static (known when the program
// is built) or dynamic (a problem size or leading dimension); the flag propagates through every
// operation, and the rules that CuTe applies only to static integers (shape division checks, the
// merging in coalesce, the stride search in right_inverse) test it.
#pragma once

#include "layout/config.hpp"

namespace loom {

// A leaf integer together with its static/dynamic flag, and optionally a basis: v@j is v times
// the unit coordinate of mode j (CuTe's ScaledBasis). Layouts whose strides carry bases map
// indices to coordinates instead of offsets; that is what identity (coordinate) tensors are, and
// why partitioning one yields each thread's coordinates with the same algebra as its offsets.
struct Int {
  i64 v = 0;
  bool dyn = false;
  signed char basis = -1;  // -1: a plain integer

  constexpr Int() = default;
  constexpr Int(i64 value, bool dynamic = false, int b = -1)
      : v(value), dyn(dynamic), basis(value == 0 ? -1 : static_cast<signed char>(b)) {}

  constexpr bool is_static() const { return !dyn; }
  constexpr bool is_basis() const { return basis >= 0; }
  // True only when the value is known at compile time to be the integer c, as CuTe's
  // is_constant<c, T>.
  constexpr bool is_constant(i64 c) const { return !dyn && basis < 0 && v == c; }
};

// Scaling keeps a basis; a basis times a basis has no meaning.
constexpr int mul_basis(Int a, Int b) {
  LOOM_REQUIRE(!(a.is_basis() && b.is_basis()), "a basis stride times a basis stride");
  return a.is_basis() ? a.basis : b.basis;
}
// Sums stay within one basis (0 belongs to all of them).
constexpr int add_basis(Int a, Int b) {
  if (a.v == 0) return b.basis;
  if (b.v == 0) return a.basis;
  LOOM_REQUIRE(a.basis == b.basis, "adding strides of different bases");
  return a.basis;
}
// v@j / w is (v/w)@j; v@j / w@j is the integer v/w.
constexpr int div_basis(Int a, Int b) {
  if (!b.is_basis()) return a.basis;
  LOOM_REQUIRE(a.basis == b.basis || a.v == 0, "dividing by a stride of another basis");
  return -1;
}

// On the host at run time the arithmetic is checked (config.hpp): an overflow is a LayoutError.
constexpr Int operator*(Int a, Int b) {
#if LOOM_CHECKED_ARITHMETIC
  if (LOOM_RUNTIME_CHECKED()) return {checked::mul(a.v, b.v), a.dyn || b.dyn, mul_basis(a, b)};
#endif
  return {a.v * b.v, a.dyn || b.dyn, mul_basis(a, b)};
}
constexpr Int operator+(Int a, Int b) {
#if LOOM_CHECKED_ARITHMETIC
  if (LOOM_RUNTIME_CHECKED()) return {checked::add(a.v, b.v), a.dyn || b.dyn, add_basis(a, b)};
#endif
  return {a.v + b.v, a.dyn || b.dyn, add_basis(a, b)};
}
constexpr Int operator-(Int a, Int b) {
#if LOOM_CHECKED_ARITHMETIC
  if (LOOM_RUNTIME_CHECKED()) return {checked::sub(a.v, b.v), a.dyn || b.dyn, add_basis(a, b)};
#endif
  return {a.v - b.v, a.dyn || b.dyn, add_basis(a, b)};
}
constexpr Int operator/(Int a, Int b) {
  LOOM_REQUIRE(b.v != 0, "division by zero");
#if LOOM_CHECKED_ARITHMETIC
  if (LOOM_RUNTIME_CHECKED()) return {checked::div(a.v, b.v), a.dyn || b.dyn, div_basis(a, b)};
#endif
  return {a.v / b.v, a.dyn || b.dyn, div_basis(a, b)};
}
constexpr Int operator%(Int a, Int b) {
  LOOM_REQUIRE(b.v != 0, "modulo by zero");
#if LOOM_CHECKED_ARITHMETIC
  if (LOOM_RUNTIME_CHECKED()) return {checked::mod(a.v, b.v), a.dyn || b.dyn, div_basis(a, b)};
#endif
  return {a.v % b.v, a.dyn || b.dyn, div_basis(a, b)};
}
constexpr Int abs(Int a) {
#if LOOM_CHECKED_ARITHMETIC
  if (LOOM_RUNTIME_CHECKED() && a.v < 0) return {checked::neg(a.v), a.dyn, a.basis};
#endif
  return {a.v < 0 ? -a.v : a.v, a.dyn, a.basis};
}
constexpr Int signum(Int a) { return {i64(a.v > 0) - i64(a.v < 0), a.dyn}; }
constexpr Int min(Int a, Int b) {
  (void)add_basis(a, b);  // only values of one basis compare
  return a.v < b.v ? Int{a.v, a.dyn || b.dyn, a.basis} : Int{b.v, a.dyn || b.dyn, b.basis};
}
constexpr Int max(Int a, Int b) {
  (void)add_basis(a, b);
  return a.v < b.v ? Int{b.v, a.dyn || b.dyn, b.basis} : Int{a.v, a.dyn || b.dyn, a.basis};
}
// Same value and same basis.
constexpr bool same(Int a, Int b) { return a.v == b.v && a.basis == b.basis; }

// The unit coordinate of mode j, CuTe's E<j>.
constexpr Int basis(int j, i64 v = 1) { return Int{v, false, j}; }

// Mark an integer as dynamic: make_shape(dyn(M), dyn(N)).
constexpr Int dyn(i64 v) { return Int{v, true}; }

struct IntTuple {
  static constexpr int kCap = 32;                 // nodes per tuple; ample for GEMM layouts
  // flag bits: dynamic, underscore, and from bit 2 the leaf's basis plus one (0: no basis).
  enum : unsigned char { kDynamic = 1, kUnderscore = 2, kBasisShift = 2 };

  int n = 1;                                      // nodes in use; node 0 is the root
  signed char arity[kCap] = {-1};                 // -1 for a leaf, else the number of children
  unsigned char span[kCap] = {1};                 // nodes in the subtree rooted at each node
  unsigned char flag[kCap] = {};
  i64 val[kCap] = {};

  constexpr IntTuple() = default;                 // the static integer 0
  constexpr IntTuple(Int i) {
    val[0] = i.v;
    flag[0] = static_cast<unsigned char>((i.dyn ? kDynamic : 0) | ((i.basis + 1) << kBasisShift));
  }
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  constexpr IntTuple(T v) : IntTuple(Int{i64(v)}) {}
  // Member-wise, as nvcc spells a template-argument IntTuple in the host code it generates.
  constexpr IntTuple(int n_, signed char const (&a)[kCap], unsigned char const (&s)[kCap],
                     unsigned char const (&f)[kCap], i64 const (&v)[kCap])
      : n(n_) {
    for (int k = 0; k < kCap; ++k) {
      arity[k] = a[k];
      span[k] = s[k];
      flag[k] = f[k];
      val[k] = v[k];
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Structure
// ---------------------------------------------------------------------------------------------

constexpr bool is_leaf(IntTuple const& t) { return t.arity[0] < 0; }
constexpr bool is_tuple(IntTuple const& t) { return t.arity[0] >= 0; }
constexpr bool is_underscore(IntTuple const& t) {
  return is_leaf(t) && (t.flag[0] & IntTuple::kUnderscore);
}
// Leaf node k as an Int, flags included.
constexpr Int leaf_int(IntTuple const& t, int k) {
  return Int{t.val[k], (t.flag[k] & IntTuple::kDynamic) != 0, (t.flag[k] >> IntTuple::kBasisShift) - 1};
}
constexpr Int as_int(IntTuple const& t) {
  LOOM_REQUIRE(is_leaf(t), "expected an integer, got a tuple");
  return leaf_int(t, 0);
}
// Does any leaf carry a basis?
constexpr bool has_basis(IntTuple const& t) {
  for (int k = 0; k < t.n; ++k)
    if (t.arity[k] < 0 && (t.flag[k] >> IntTuple::kBasisShift)) return true;
  return false;
}
constexpr i64 value(IntTuple const& t) { return as_int(t).v; }
constexpr int rank(IntTuple const& t) { return is_leaf(t) ? 1 : t.arity[0]; }

// Underscore `_` slices a mode in a coordinate; `X` drops a mode in a Step projection. In
// arithmetic both count as 0, as in CuTe.
constexpr IntTuple make_underscore() {
  IntTuple t;
  t.flag[0] = IntTuple::kUnderscore;
  return t;
}
// A type of its own, so that device code can tell a kept mode from a run-time index by overload
// (local_tile(mA, tiler, m, _)); in the algebra it converts to the underscore leaf.
struct Underscore {
  constexpr operator IntTuple() const { return make_underscore(); }
};
inline constexpr Underscore _{};
inline constexpr Underscore X{};

constexpr int child_pos(IntTuple const& t, int i) {
  LOOM_REQUIRE(is_tuple(t) && 0 <= i && i < t.arity[0], "tuple index out of range");
  int p = 1;
  for (int k = 0; k < i; ++k) p += t.span[p];
  return p;
}

constexpr IntTuple subtree(IntTuple const& t, int p) {
  IntTuple r;
  r.n = t.span[p];
  for (int k = 0; k < r.n; ++k) {
    r.arity[k] = t.arity[p + k];
    r.span[k] = t.span[p + k];
    r.flag[k] = t.flag[p + k];
    r.val[k] = t.val[p + k];
  }
  return r;
}

// get(t, i): mode i. As in CuTe, get(integer, 0) is the integer itself.
constexpr IntTuple get(IntTuple const& t, int i) {
  if (is_leaf(t)) {
    LOOM_REQUIRE(i == 0, "tuple index out of range");
    return t;
  }
  return subtree(t, child_pos(t, i));
}
template <class... Is>
constexpr IntTuple get(IntTuple const& t, int i, int j, Is... is) {
  return get(get(t, i), j, is...);
}

// Builds a tuple mode by mode.
struct TupleBuilder {
  IntTuple t;
  constexpr TupleBuilder() { t.arity[0] = 0; }
  constexpr TupleBuilder& push(IntTuple const& x) {
    LOOM_REQUIRE(t.n + x.n <= IntTuple::kCap, "IntTuple capacity exceeded");
    LOOM_REQUIRE(t.arity[0] < 127, "IntTuple capacity exceeded");
    for (int k = 0; k < x.n; ++k) {
      t.arity[t.n + k] = x.arity[k];
      t.span[t.n + k] = x.span[k];
      t.flag[t.n + k] = x.flag[k];
      t.val[t.n + k] = x.val[k];
    }
    t.n += x.n;
    t.span[0] = static_cast<unsigned char>(t.n);
    t.arity[0] += 1;
    return *this;
  }
  constexpr TupleBuilder& push_modes(IntTuple const& x) {  // splice the modes of x
    for (int i = 0; i < rank(x); ++i) push(get(x, i));
    return *this;
  }
  constexpr int size() const { return t.arity[0]; }
  constexpr IntTuple done() const { return t; }
};

template <class... Ts>
constexpr IntTuple make_tuple(Ts const&... ts) {
  TupleBuilder b;
  (b.push(IntTuple(ts)), ...);
  return b.done();
}
template <class... Ts> constexpr IntTuple make_shape(Ts const&... ts) { return make_tuple(ts...); }
template <class... Ts> constexpr IntTuple make_stride(Ts const&... ts) { return make_tuple(ts...); }
template <class... Ts> constexpr IntTuple make_coord(Ts const&... ts) { return make_tuple(ts...); }
template <class... Ts> constexpr IntTuple make_step(Ts const&... ts) { return make_tuple(ts...); }

// Structural equality of values and bases (static/dynamic flags are not compared).
constexpr bool operator==(IntTuple const& a, IntTuple const& b) {
  if (a.n != b.n) return false;
  for (int k = 0; k < a.n; ++k) {
    if (a.arity[k] != b.arity[k] || a.val[k] != b.val[k]) return false;
    if ((a.flag[k] ^ b.flag[k]) & ~IntTuple::kDynamic) return false;
  }
  return true;
}
constexpr bool operator!=(IntTuple const& a, IntTuple const& b) { return !(a == b); }

// Every leaf static?
constexpr bool is_static(IntTuple const& t) {
  for (int k = 0; k < t.n; ++k)
    if (t.arity[k] < 0 && (t.flag[k] & IntTuple::kDynamic)) return false;
  return true;
}

// t with every integer leaf marked dynamic, as if each were a run-time int: make_shape(M, N) of
// ints in CuTe. `_` leaves and bases are kept.
constexpr IntTuple make_dynamic(IntTuple t) {
  for (int k = 0; k < t.n; ++k)
    if (t.arity[k] < 0 && !(t.flag[k] & IntTuple::kUnderscore)) t.flag[k] |= IntTuple::kDynamic;
  return t;
}

constexpr bool has_underscore(IntTuple const& t) {
  for (int k = 0; k < t.n; ++k)
    if (t.arity[k] < 0 && (t.flag[k] & IntTuple::kUnderscore)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Tuple algorithms
// ---------------------------------------------------------------------------------------------

template <class F>
constexpr IntTuple transform(IntTuple const& t, F&& f) {
  TupleBuilder b;
  for (int i = 0; i < rank(t); ++i) b.push(f(get(t, i)));
  return b.done();
}

template <class F>
constexpr IntTuple transform_leaf(IntTuple const& t, F&& f) {
  if (is_leaf(t)) return IntTuple(f(as_int(t)));
  TupleBuilder b;
  for (int i = 0; i < rank(t); ++i) b.push(transform_leaf(get(t, i), f));
  return b.done();
}

// Wrap an integer into a rank-1 tuple; tuples pass through.
constexpr IntTuple wrap(IntTuple const& t) { return is_leaf(t) ? make_tuple(t) : t; }
// Peel rank-1 tuples.
constexpr IntTuple unwrap(IntTuple const& t) {
  return (is_tuple(t) && rank(t) == 1) ? unwrap(get(t, 0)) : t;
}

constexpr IntTuple append(IntTuple const& t, IntTuple const& x) {
  TupleBuilder b;
  b.push_modes(wrap(t));
  b.push(x);
  return b.done();
}
constexpr IntTuple prepend(IntTuple const& t, IntTuple const& x) {
  TupleBuilder b;
  b.push(x);
  b.push_modes(wrap(t));
  return b.done();
}
// Pad t with x to rank n (no change when already of rank n).
constexpr IntTuple append(IntTuple const& t, int n, IntTuple const& x) {
  if (rank(t) == n) return t;
  LOOM_REQUIRE(rank(t) < n, "append: tuple already has a larger rank");
  TupleBuilder b;
  b.push_modes(wrap(t));
  while (b.size() < n) b.push(x);
  return b.done();
}
constexpr IntTuple take(IntTuple const& t, int begin, int end) {
  LOOM_REQUIRE(0 <= begin && begin <= end && end <= rank(t), "take: range out of bounds");
  TupleBuilder b;
  for (int i = begin; i < end; ++i) b.push(get(t, i));
  return b.done();
}
constexpr IntTuple remove(IntTuple const& t, int i) {
  TupleBuilder b;
  for (int k = 0; k < rank(t); ++k)
    if (k != i) b.push(get(t, k));
  return b.done();
}
constexpr IntTuple replace(IntTuple const& t, int i, IntTuple const& x) {
  if (is_leaf(t)) {
    LOOM_REQUIRE(i == 0, "replace: index out of range");
    return x;
  }
  TupleBuilder b;
  for (int k = 0; k < rank(t); ++k) b.push(k == i ? x : get(t, k));
  return b.done();
}
constexpr IntTuple repeat(int n, IntTuple const& x) {  // CuTe's repeat<N>: n == 1 gives x itself
  if (n == 1) return x;
  TupleBuilder b;
  for (int k = 0; k < n; ++k) b.push(x);
  return b.done();
}
constexpr IntTuple tuple_repeat(int n, IntTuple const& x) {  // always a tuple
  TupleBuilder b;
  for (int k = 0; k < n; ++k) b.push(x);
  return b.done();
}

// Same profile as t, every leaf replaced by x.
constexpr IntTuple repeat_like(IntTuple const& t, IntTuple const& x) {
  if (is_leaf(t)) return x;
  return transform(t, [&](IntTuple const& m) { return repeat_like(m, x); });
}

constexpr void flatten_into(TupleBuilder& b, IntTuple const& t) {
  if (is_leaf(t)) {
    b.push(t);
    return;
  }
  for (int i = 0; i < rank(t); ++i) flatten_into(b, get(t, i));
}
// Depth at most 1; an integer stays an integer.
constexpr IntTuple flatten(IntTuple const& t) {
  if (is_leaf(t)) return t;
  TupleBuilder b;
  flatten_into(b, t);
  return b.done();
}

// Transpose a tuple of tuples: zip(((a,b),(c,d))) == ((a,c),(b,d)). A tuple whose first mode is an
// integer is wrapped instead, as CuTe does.
constexpr IntTuple zip(IntTuple const& t) {
  if (is_leaf(t)) return t;
  if (rank(t) == 0 || is_leaf(get(t, 0))) return make_tuple(t);
  for (int i = 1; i < rank(t); ++i)
    LOOM_REQUIRE(is_tuple(get(t, i)) && rank(get(t, i)) == rank(get(t, 0)), "zip: mismatched ranks");
  TupleBuilder out;
  for (int j = 0; j < rank(get(t, 0)); ++j) {
    TupleBuilder col;
    for (int i = 0; i < rank(t); ++i) col.push(get(t, i, j));
    out.push(col.done());
  }
  return out.done();
}
constexpr IntTuple zip(IntTuple const& a, IntTuple const& b) { return zip(make_tuple(a, b)); }

// ---------------------------------------------------------------------------------------------
// Reductions and arithmetic on shapes
// ---------------------------------------------------------------------------------------------

// A loop over the leaves rather than a recursion, so that it folds in device code.
constexpr Int product(IntTuple const& t) {
  Int p{1};
  LOOM_UNROLL
  for (int k = 0; k < t.n; ++k)
    if (t.arity[k] < 0) p = p * leaf_int(t, k);
  return p;
}
constexpr Int size(IntTuple const& t) { return product(t); }
constexpr IntTuple product_each(IntTuple const& t) {
  return transform(wrap(t), [](IntTuple const& m) { return IntTuple(product(m)); });
}
constexpr Int sum(IntTuple const& t) {
  if (is_leaf(t)) return as_int(t);
  Int s{0};
  for (int i = 0; i < rank(t); ++i) s = s + sum(get(t, i));
  return s;
}
constexpr int depth(IntTuple const& t) {
  if (is_leaf(t)) return 0;
  int d = 0;
  for (int i = 0; i < rank(t); ++i) {
    int c = depth(get(t, i));
    d = c > d ? c : d;
  }
  return 1 + d;
}
constexpr Int min_leaf(IntTuple const& t) {
  if (is_leaf(t)) return as_int(t);
  Int m = min_leaf(get(t, 0));
  for (int i = 1; i < rank(t); ++i) m = min(m, min_leaf(get(t, i)));
  return m;
}

// Division of shapes, rounding away from zero; static operands must divide one another.
constexpr Int shape_div(Int a, Int b) {
  if (a.is_static() && b.is_static())
    LOOM_REQUIRE(b.v != 0 && a.v != 0 && (a.v % b.v == 0 || b.v % a.v == 0),
                 "shape_div: neither of the static shapes divides the other");
  Int q = a / b;
  return q.v != 0 ? q : signum(a) * signum(b);
}
constexpr IntTuple shape_div(IntTuple const& a, IntTuple const& b) {
  if (is_tuple(a)) {
    if (is_tuple(b)) {
      LOOM_REQUIRE(rank(a) == rank(b), "shape_div: mismatched ranks");
      TupleBuilder r;
      for (int i = 0; i < rank(a); ++i) r.push(shape_div(get(a, i), get(b, i)));
      return r.done();
    }
    // Fold b across the modes of a: shape_div((4,5,6),40) == (1,1,3).
    TupleBuilder r;
    IntTuple rest = b;
    for (int i = 0; i < rank(a); ++i) {
      r.push(shape_div(get(a, i), rest));
      rest = shape_div(rest, get(a, i));
    }
    return r.done();
  }
  if (is_tuple(b)) return IntTuple(shape_div(as_int(a), product(b)));
  return IntTuple(shape_div(as_int(a), as_int(b)));
}

constexpr Int ceil_div(Int a, Int b) { return (a + b - Int{1}) / b; }
constexpr IntTuple ceil_div(IntTuple const& a, IntTuple const& b) {
  if (is_tuple(a)) {
    if (is_tuple(b)) {
      LOOM_REQUIRE(rank(a) >= rank(b), "ceil_div: mismatched ranks");
      IntTuple bb = append(b, rank(a), IntTuple(1));
      TupleBuilder r;
      for (int i = 0; i < rank(a); ++i) r.push(ceil_div(get(a, i), get(bb, i)));
      return r.done();
    }
    TupleBuilder r;
    IntTuple rest = b;
    for (int i = 0; i < rank(a); ++i) {
      r.push(ceil_div(get(a, i), rest));
      rest = ceil_div(rest, get(a, i));
    }
    return r.done();
  }
  if (is_tuple(b)) return IntTuple(ceil_div(as_int(a), product(b)));
  return IntTuple(ceil_div(as_int(a), as_int(b)));
}

constexpr Int shape_min(Int a, Int b) {
  if (a.is_constant(1) || b.is_constant(1)) return Int{1};
  return min(a, b);
}

// a scaled, mode by mode, by the products of b's matching modes.
constexpr IntTuple elem_scale(IntTuple const& a, IntTuple const& b) {
  if (is_leaf(a)) return IntTuple(as_int(a) * product(b));
  LOOM_REQUIRE(is_tuple(b) && rank(b) == rank(a), "elem_scale: mismatched ranks");
  TupleBuilder r;
  for (int i = 0; i < rank(a); ++i) r.push(elem_scale(get(a, i), get(b, i)));
  return r.done();
}

// Same hierarchical profile.
constexpr bool congruent(IntTuple const& a, IntTuple const& b) {
  if (is_leaf(a) || is_leaf(b)) return is_leaf(a) && is_leaf(b);
  if (rank(a) != rank(b)) return false;
  for (int i = 0; i < rank(a); ++i)
    if (!congruent(get(a, i), get(b, i))) return false;
  return true;
}
// Any coordinate of shape a is also a coordinate of shape b (a is coarser, same sizes).
constexpr bool compatible(IntTuple const& a, IntTuple const& b) {
  if (is_leaf(a)) return value(a) == size(b).v;
  if (is_leaf(b) || rank(a) != rank(b)) return false;
  for (int i = 0; i < rank(a); ++i)
    if (!compatible(get(a, i), get(b, i))) return false;
  return true;
}
constexpr bool weakly_congruent(IntTuple const& a, IntTuple const& b) {
  if (is_leaf(a)) return true;
  if (is_leaf(b) || rank(a) != rank(b)) return false;
  for (int i = 0; i < rank(a); ++i)
    if (!weakly_congruent(get(a, i), get(b, i))) return false;
  return true;
}

// b with every leaf paired with a static 0 of a replaced by a static 1.
constexpr IntTuple filter_zeros(IntTuple const& a, IntTuple const& b) {
  if (is_tuple(a)) {
    LOOM_REQUIRE(is_tuple(b) && rank(a) == rank(b), "filter_zeros: mismatched profiles");
    TupleBuilder r;
    for (int i = 0; i < rank(a); ++i) r.push(filter_zeros(get(a, i), get(b, i)));
    return r.done();
  }
  if (as_int(a).is_constant(0)) return repeat_like(b, IntTuple(1));
  return b;
}

// ---------------------------------------------------------------------------------------------
// Compact strides
// ---------------------------------------------------------------------------------------------

// Strides of the compact column-major (or row-major) layout of `shape`, starting at `current`.
// A static size-1 mode gets stride 0, as in CuTe.
constexpr IntTuple compact_major(IntTuple const& shape, Int& current, bool row_major) {
  if (is_leaf(shape)) {
    Int s = as_int(shape);
    if (s.is_constant(1)) return IntTuple(Int{0});
    IntTuple d(current);
    current = current * s;
    return d;
  }
  int r = rank(shape);
  IntTuple out[IntTuple::kCap];
  for (int k = 0; k < r; ++k) {
    int i = row_major ? r - 1 - k : k;
    out[i] = compact_major(get(shape, i), current, row_major);
  }
  TupleBuilder b;
  for (int i = 0; i < r; ++i) b.push(out[i]);
  return b.done();
}
constexpr IntTuple compact_col_major(IntTuple const& shape, Int current = Int{1}) {
  return compact_major(shape, current, false);
}
constexpr IntTuple compact_row_major(IntTuple const& shape, Int current = Int{1}) {
  return compact_major(shape, current, true);
}

// Compact strides that visit the modes of shape in the order given by `order` (congruent to
// shape): smaller order values get smaller strides; equal orders get equal strides, as in CuTe.
constexpr IntTuple compact_order_impl(IntTuple const& shape, IntTuple const& order,
                                      IntTuple const& flat_shape, IntTuple const& flat_order) {
  if (is_tuple(order)) {
    TupleBuilder b;
    for (int i = 0; i < rank(order); ++i)
      b.push(compact_order_impl(get(shape, i), get(order, i), flat_shape, flat_order));
    return b.done();
  }
  Int d{1};
  i64 o = value(order);
  for (int i = 0; i < rank(flat_order); ++i)
    if (value(get(flat_order, i)) < o) d = d * product(get(flat_shape, i));
  return compact_col_major(shape, d);
}
constexpr IntTuple compact_order(IntTuple const& shape, IntTuple const& order) {
  LOOM_REQUIRE(congruent(shape, order), "compact_order: shape and order are not congruent");
  IntTuple fs = is_leaf(shape) ? make_tuple(shape) : flatten(shape);
  IntTuple fo = is_leaf(order) ? make_tuple(order) : flatten(order);
  return compact_order_impl(shape, order, fs, fo);
}

// ---------------------------------------------------------------------------------------------
// Coordinates and indices
// ---------------------------------------------------------------------------------------------

// A point of an R-dimensional coordinate space: what a layout whose strides carry bases (an
// identity layout, or any partition of one) maps an index to. Component j collects the strides
// of basis j.
template <int R>
struct Coord {
  i64 c[R] = {};
  constexpr i64& operator[](int j) { return c[j]; }
  constexpr i64 operator[](int j) const { return c[j]; }
  constexpr Coord& operator+=(Coord const& o) {
#if LOOM_CHECKED_ARITHMETIC
    if (LOOM_RUNTIME_CHECKED()) {
      for (int j = 0; j < R; ++j) c[j] = checked::add(c[j], o.c[j]);
      return *this;
    }
#endif
    LOOM_UNROLL
    for (int j = 0; j < R; ++j) c[j] += o.c[j];
    return *this;
  }
  friend constexpr Coord operator+(Coord a, Coord const& b) { return a += b; }
  friend constexpr bool operator==(Coord const& a, Coord const& b) {
    for (int j = 0; j < R; ++j)
      if (a.c[j] != b.c[j]) return false;
    return true;
  }
};

// r += x * (stride leaf k): an offset for integer strides, a coordinate for basis strides.
constexpr void add_scaled(i64& r, i64 x, IntTuple const& stride, int k) {
#if LOOM_CHECKED_ARITHMETIC
  if (LOOM_RUNTIME_CHECKED()) {
    r = checked::add(r, checked::mul(x, stride.val[k]));
    return;
  }
#endif
  r += x * stride.val[k];
}
template <int R>
constexpr void add_scaled(Coord<R>& r, i64 x, IntTuple const& stride, int k) {
  int b = (stride.flag[k] >> IntTuple::kBasisShift) - 1;
  if (b < 0) {  // only 0 (a broadcast) has no basis
    LOOM_REQUIRE(stride.val[k] == 0, "an integer stride in a coordinate layout");
    return;
  }
  LOOM_REQUIRE(b < R, "a basis stride past the coordinate's rank");
#if LOOM_CHECKED_ARITHMETIC
  if (LOOM_RUNTIME_CHECKED()) {
    r.c[b] = checked::add(r.c[b], checked::mul(x, stride.val[k]));
    return;
  }
#endif
  r.c[b] += x * stride.val[k];
}

// The one evaluator: integer coordinate c -> value within the subtree of (shape, stride) rooted at
// node p. The leaves, in preorder, take the coordinate colexicographically and the last leaf takes
// what remains, which equals CuTe's mode-by-mode recursion (in which each mode's last leaf takes
// its remainder). Acc is i64 for offsets or Coord<R> for basis strides. It touches only the node
// arrays, so for a constexpr layout it unrolls and folds; kernels still read static layouts through
// tables (layout/tensor.hpp), because folding thousands of these evaluations costs cicc minutes.
// shape and stride must be congruent, so their node arrays line up.
template <class Acc = i64>
constexpr Acc crd2idx_flat(i64 c, IntTuple const& shape, IntTuple const& stride, int p = 0) {
  int end = p + shape.span[p];
  int last = end - 1;
  while (last > p && shape.arity[last] >= 0) --last;
  Acc r{};
  LOOM_UNROLL
  for (int k = p; k < end; ++k) {
    if (shape.arity[k] >= 0) continue;
    if (k == last) {
      add_scaled(r, c, stride, k);
    } else {
#if LOOM_CHECKED_ARITHMETIC
      if (LOOM_RUNTIME_CHECKED()) LOOM_REQUIRE(shape.val[k] > 0, "a shape that is not positive");
#endif
      add_scaled(r, c % shape.val[k], stride, k);
      c /= shape.val[k];
    }
  }
  return r;
}

// Node of the i-th child of node p, found without copying.
constexpr int child_node(IntTuple const& t, int p, int i) {
  LOOM_REQUIRE(t.arity[p] > i && i >= 0, "tuple index out of range");
  int q = p + 1;
  LOOM_UNROLL
  for (int k = 0; k < i; ++k) q += t.span[q];
  return q;
}
template <class... Is>
constexpr int child_node(IntTuple const& t, int p, int i, int j, Is... is) {
  return child_node(t, child_node(t, p, i), j, is...);
}

// Index -> colexicographic coordinate within the subtree rooted at node p of (shape, stride): each
// leaf takes (idx / stride) % shape, and the leaf coordinates are combined column-major. This is
// get_flat_coord for one mode, reading only the node arrays.
constexpr i64 idx2flat(i64 idx, IntTuple const& shape, IntTuple const& stride, int p = 0) {
  i64 c = 0, w = 1;
  LOOM_UNROLL
  for (int k = p; k < p + shape.span[p]; ++k) {
    if (shape.arity[k] >= 0) continue;
    i64 s = shape.val[k];
    bool static_one = s == 1 && !(shape.flag[k] & IntTuple::kDynamic);
    if (!static_one) {
      LOOM_REQUIRE(stride.val[k] != 0, "idx2crd: a mode of size > 1 has stride 0");
#if LOOM_CHECKED_ARITHMETIC
      if (LOOM_RUNTIME_CHECKED()) {
        LOOM_REQUIRE(s > 0, "a shape that is not positive");
        c = checked::add(c, checked::mul(checked::div(idx, stride.val[k]) % s, w));
      } else
#endif
      c += ((idx / stride.val[k]) % s) * w;
    }
#if LOOM_CHECKED_ARITHMETIC
    if (LOOM_RUNTIME_CHECKED()) {
      w = checked::mul(w, s);
      continue;
    }
#endif
    w *= s;
  }
  return c;
}

// Coordinate -> index. An integer coordinate into a tuple shape is split colexicographically; the
// last mode takes what remains without a modulo. Underscores count as 0.
constexpr Int crd2idx(IntTuple const& coord, IntTuple const& shape, IntTuple const& stride) {
  LOOM_REQUIRE(is_leaf(shape) || rank(shape) > 0, "crd2idx: a mode of the shape is an empty tuple");
  if (is_tuple(coord)) {
    LOOM_REQUIRE(is_tuple(shape) && rank(coord) == rank(shape) && rank(shape) == rank(stride),
                 "crd2idx: coordinate rank does not match the shape");
    Int r{0};
    for (int i = 0; i < rank(coord); ++i) r = r + crd2idx(get(coord, i), get(shape, i), get(stride, i));
    return r;
  }
  Int c = is_underscore(coord) ? Int{0} : as_int(coord);
  LOOM_REQUIRE(congruent(shape, stride), "crd2idx: shape and stride are not congruent");
  return Int{crd2idx_flat(c.v, shape, stride), c.dyn || !is_static(shape) || !is_static(stride)};
}

// Coordinate -> colexicographic index within shape (Horner over the flattened modes).
constexpr Int crd2idx(IntTuple const& coord, IntTuple const& shape) {
  if (is_leaf(shape)) {
    LOOM_REQUIRE(is_leaf(coord), "crd2idx: coordinate rank does not match the shape");
    return is_underscore(coord) ? Int{0} : as_int(coord);
  }
  LOOM_REQUIRE(congruent(coord, shape), "crd2idx: coordinate is not congruent to the shape");
  IntTuple fc = flatten(coord), fs = flatten(shape);
  int R = rank(fs);
  Int r = as_int(get(fc, R - 1));
  for (int i = R - 2; i >= 0; --i) r = as_int(get(fc, i)) + as_int(get(fs, i)) * r;
  return r;
}

// Index -> coordinate within (shape, stride): per mode (idx / stride) % shape. Correct for compact
// layouts; a static size-1 mode always gets coordinate 0.
constexpr IntTuple idx2crd(IntTuple const& idx, IntTuple const& shape, IntTuple const& stride) {
  if (is_tuple(idx)) {
    LOOM_REQUIRE(is_tuple(shape) && rank(idx) == rank(shape) && rank(shape) == rank(stride),
                 "idx2crd: index rank does not match the shape");
    TupleBuilder b;
    for (int i = 0; i < rank(idx); ++i) b.push(idx2crd(get(idx, i), get(shape, i), get(stride, i)));
    return b.done();
  }
  if (is_tuple(shape)) {
    IntTuple d = is_tuple(stride) ? stride : compact_col_major(shape, as_int(stride));
    LOOM_REQUIRE(rank(d) == rank(shape), "idx2crd: shape/stride mismatch");
    TupleBuilder b;
    for (int i = 0; i < rank(shape); ++i) b.push(idx2crd(idx, get(shape, i), get(d, i)));
    return b.done();
  }
  Int s = as_int(shape);
  if (s.is_constant(1)) return IntTuple(Int{0});
  return IntTuple((as_int(idx) / as_int(stride)) % s);
}

// Index -> colexicographic coordinate of shape: every mode but the last takes idx % size(mode) and
// passes idx / size(mode) on, and the last mode takes all that remains, at every level of the
// hierarchy. So an index past size(shape) still has a coordinate, as in CuTe:
// idx2crd(13, (2,3)) == (1,6), and idx2crd(i, shape) inverts crd2idx(c, shape) for every i.
constexpr IntTuple idx2crd(IntTuple const& idx, IntTuple const& shape) {
  if (is_tuple(idx)) {
    LOOM_REQUIRE(is_tuple(shape) && rank(idx) == rank(shape), "idx2crd: index rank does not match");
    TupleBuilder b;
    for (int i = 0; i < rank(idx); ++i) b.push(idx2crd(get(idx, i), get(shape, i)));
    return b.done();
  }
  if (is_leaf(shape)) return idx;
  int R = rank(shape);
  LOOM_REQUIRE(R > 0, "idx2crd: an integer index into an empty tuple");
  TupleBuilder b;
  Int rest = as_int(idx);
  for (int i = 0; i + 1 < R; ++i) {
    IntTuple m = get(shape, i);
    Int n = product(m);
    b.push(idx2crd(IntTuple(rest % n), m));
    rest = rest / n;
  }
  b.push(idx2crd(IntTuple(rest), get(shape, R - 1)));
  return b.done();
}

// Re-express a coordinate of src_shape as a coordinate of dst_shape.
constexpr IntTuple crd2crd(IntTuple const& coord, IntTuple const& src, IntTuple const& dst) {
  if (is_tuple(coord) && is_tuple(src) && is_tuple(dst)) {
    LOOM_REQUIRE(rank(coord) == rank(src) && rank(coord) == rank(dst), "crd2crd: mismatched ranks");
    TupleBuilder b;
    for (int i = 0; i < rank(coord); ++i) b.push(crd2crd(get(coord, i), get(src, i), get(dst, i)));
    return b.done();
  }
  return idx2crd(IntTuple(crd2idx(coord, src)), dst);
}

// ---------------------------------------------------------------------------------------------
// Slice and dice
// ---------------------------------------------------------------------------------------------

// slice keeps the modes of t at the underscores of c; the hierarchy above an underscore is
// flattened away, the subtree under it is kept whole. dice keeps the other modes.
constexpr void lift_slice(TupleBuilder& b, IntTuple const& c, IntTuple const& t, bool keep_under) {
  if (is_tuple(c)) {
    LOOM_REQUIRE(is_tuple(t) && rank(c) == rank(t), "slice: coordinate rank does not match");
    for (int i = 0; i < rank(c); ++i) lift_slice(b, get(c, i), get(t, i), keep_under);
    return;
  }
  if (is_underscore(c) == keep_under) b.push(t);
}
constexpr IntTuple slice(IntTuple const& c, IntTuple const& t) {
  if (is_leaf(c)) return is_underscore(c) ? t : TupleBuilder{}.done();
  TupleBuilder b;
  lift_slice(b, c, t, true);
  return b.done();
}
constexpr IntTuple dice(IntTuple const& c, IntTuple const& t) {
  if (is_leaf(c)) return is_underscore(c) ? TupleBuilder{}.done() : t;
  TupleBuilder b;
  lift_slice(b, c, t, false);
  return b.done();
}

}  // namespace loom
