// Loom layout core: tensors, a static layout over an engine (global, shared or register memory,
// coordinates, or offsets), the form in which kernels use the algebra.
#pragma once

#include "layout/copy.hpp"
#include "layout/layout.hpp"
#include "layout/mma.hpp"
#include "layout/swizzle.hpp"

namespace loom {

// A flat rank-R layout whose extents and strides arrive at run time: how kernels hold a global
// memory tensor. Static tile and thread layouts produce coordinates; this layout turns them into
// offsets (crd2idx of a flat layout, sum of coordinate times stride) and bounds-checks them.
template <int R>
struct DynamicLayout {
  i64 shape[R] = {};
  i64 stride[R] = {};

  template <class... Cs>
  LOOM_HD constexpr i64 operator()(Cs... cs) const {
    static_assert(sizeof...(Cs) == R, "DynamicLayout: one coordinate per mode");
    i64 c[] = {i64(cs)...};
    i64 r = 0;
    LOOM_UNROLL
    for (int i = 0; i < R; ++i) r += c[i] * stride[i];
    return r;
  }
  template <class... Cs>
  LOOM_HD constexpr bool contains(Cs... cs) const {
    i64 c[] = {i64(cs)...};
    bool in = true;
    LOOM_UNROLL
    for (int i = 0; i < R; ++i) in = in && 0 <= c[i] && c[i] < shape[i];
    return in;
  }
  // The same layout as a Layout value with dynamic leaves.
  constexpr Layout layout() const {
    TupleBuilder s, d;
    for (int i = 0; i < R; ++i) {
      s.push(IntTuple(dyn(shape[i])));
      d.push(IntTuple(dyn(stride[i])));
    }
    return {s.done(), d.done()};
  }
};

// From a flat Layout of rank R (host side, before a launch).
template <int R>
constexpr DynamicLayout<R> make_dynamic_layout(Layout const& l) {
  LOOM_REQUIRE(depth(l) <= 1 && rank(l) == R, "make_dynamic_layout: expected a flat layout of that rank");
  DynamicLayout<R> g;
  for (int i = 0; i < R; ++i) {
    g.shape[i] = value(get(l.shape, i));
    g.stride[i] = value(get(l.stride, i));
  }
  return g;
}

// ---------------------------------------------------------------------------------------------
// Device tensors: a static layout, a run-time base, an engine
// ---------------------------------------------------------------------------------------------
//
// A kernel's chain from the problem to the atom, as in CuTe:
//
//   auto mA   = make_gmem_tensor<1>(ptr, {M, K}, {ld, 1});          // (M,K)
//   auto gA   = local_tile<kTiler>(mA, m, _);                        // (BM,BK,k)
//   auto tAgA = partition_S<kCopy>(gA, threadIdx.x);                 // (CPY,CPY_M,CPY_K,k)
//   auto tAcA = partition_S<kCopy>(local_tile<kTiler>(make_identity_tensor(shape(mA)), m, _), tid);
//
// The layout of each of these is a template argument, computed at compile time by the algebra
// above from the layout of the tensor before it. What is only known at run time (the problem's
// extents and leading dimensions, the CTA and thread indices) lives in the base and the engine:
//
// - Global memory tensors and identity tensors have layouts with basis strides, so their values are
//   coordinates: mA's layout is (M,K):(1@0,1@1) with M and K dynamic. Every tile and partition of
//   it is again a coordinate layout, and the base is the coordinate of the view's first element.
//   An identity tensor returns the coordinate (for edge predicates, and for TMA); a global one
//   dots it with the leading dimensions, one of which may be a static 1.
// - Shared memory and register tensors have integer strides, and the base is an offset.
//
// Evaluating a static layout reads a table that the front end fills (LayoutTable): nvcc would fold
// an evaluation of the node arrays too, but only after unrolling its loops, which for a kernel's
// thousand-odd evaluations took cicc minutes. Modes with dynamic extents (the k tiles of gA) are
// not tabulated; they are evaluated at run time, one multiply each.

// The leading modes of l whose extents are all static: the part a table covers.
constexpr int static_modes(Layout const& l) {
  if (is_leaf(l.shape)) return is_static(l.shape) ? 1 : 0;
  int i = 0;
  while (i < rank(l) && is_static(get(l.shape, i))) ++i;
  return i;
}
constexpr i64 static_size(Layout const& l) {
  if (is_leaf(l.shape)) return static_modes(l) ? size(l).v : 1;
  i64 n = 1;
  for (int i = 0; i < static_modes(l); ++i) n *= size(get(l.shape, i)).v;
  return n;
}

template <Layout L, class Acc>
struct LayoutTable {
  static constexpr int kModes = static_modes(L);
  static constexpr i64 kSize = static_size(L);
  Acc v[kSize];
};
template <Layout L, class Acc>
constexpr LayoutTable<L, Acc> make_layout_table() {
  LayoutTable<L, Acc> t{};
  if (is_leaf(L.shape)) {
    for (i64 i = 0; i < t.kSize; ++i) t.v[i] = crd2idx_flat<Acc>(i, L.shape, L.stride);
    return t;
  }
  // Colexicographic over the tabulated modes, each mode evaluated on its own.
  for (i64 i = 0; i < t.kSize; ++i) {
    i64 rest = i;
    Acc a{};
    for (int m = 0; m < t.kModes; ++m) {
      i64 const n = size(get(L.shape, m)).v;
      a += crd2idx_flat<Acc>(rest % n, L.shape, L.stride, child_node(L.shape, 0, m));
      rest /= n;
    }
    t.v[i] = a;
  }
  return t;
}
// Device code reads these tables, and the thread tables below, from static constexpr locals: nvcc
// keeps those in global memory of the module without naming them in the host stub, which cannot
// spell a Layout template argument (nor can it for a __global__ template or a __device__ variable).
// An evaluation at an index the unrolled loops make constant folds to the entry.
template <Layout L, class Acc>
LOOM_HD inline LayoutTable<L, Acc> const& layout_table() {
  static constexpr LayoutTable<L, Acc> t = make_layout_table<L, Acc>();
  return t;
}

// The dynamic modes of L, each a single leaf: its stride, as an offset or a coordinate.
template <Layout L, class Acc>
struct DynamicModes {
  Acc stride[rank(L) + 1];
};
template <Layout L, class Acc>
constexpr DynamicModes<L, Acc> make_dynamic_modes() {
  DynamicModes<L, Acc> d{};
  for (int m = static_modes(L); m < (is_leaf(L.shape) ? 1 : rank(L)); ++m) {
    Layout const mode = is_leaf(L.shape) ? L : get(L, m);
    LOOM_REQUIRE(is_leaf(mode.shape), "a mode of dynamic extent must be a single integer");
    d.stride[m] = crd2idx_flat<Acc>(1, mode.shape, mode.stride);
  }
  return d;
}
template <Layout L, class Acc>
LOOM_HD inline DynamicModes<L, Acc> const& dynamic_modes() {
  static constexpr DynamicModes<L, Acc> d = make_dynamic_modes<L, Acc>();
  return d;
}

template <class Acc>
LOOM_HD constexpr Acc scaled(Acc const& a, i64 c) {
  if constexpr (std::is_same_v<Acc, i64>) {
    return a * c;
  } else {
    Acc r = a;
    LOOM_UNROLL
    for (int j = 0; j < int(sizeof(Acc) / sizeof(i64)); ++j) r[j] *= c;
    return r;
  }
}

// L at one integer per top-level mode (or one integer over a layout whose modes are all static).
template <Layout L, class Acc, class... Is>
LOOM_HD inline Acc layout_value(Is... is) {
  using Table = LayoutTable<L, Acc>;
  if constexpr (sizeof...(Is) == 1) {
    static_assert(Table::kModes == (is_leaf(L.shape) ? 1 : rank(L)),
                  "a single index needs a layout whose extents are all static");
    i64 const i[] = {i64(is)...};
    return layout_table<L, Acc>().v[i[0]];
  } else {
    static_assert(sizeof...(Is) == rank(L), "one index per mode");
    constexpr int R = int(sizeof...(Is));
    i64 const c[] = {i64(is)...};
    i64 idx = 0;
    Acc r{};
    [&]<int... M>(std::integer_sequence<int, M...>) {
      i64 w = 1;
      (([&] {
         if constexpr (M < Table::kModes) {
           idx += c[M] * w;
           w *= size(get(L.shape, M)).v;
         } else {
           r += scaled(dynamic_modes<L, Acc>().stride[M], c[M]);
         }
       }()),
       ...);
    }(std::make_integer_sequence<int, R>{});
    return r + layout_table<L, Acc>().v[idx];
  }
}

// Engines. Acc is what the layout's values are: offsets (i64) or coordinates (Coord<R>).

// Shared or register memory: element at base + value.
template <class T>
struct PtrEngine {
  using Acc = i64;
  T* ptr;
  LOOM_HD constexpr T& deref(i64 base, i64 v) const { return ptr[base + v]; }
};

// Shared memory under a swizzle: element at sw(base + value).
template <class T, Swizzle S>
struct SwizzledPtrEngine {
  using Acc = i64;
  T* ptr;
  LOOM_HD constexpr T& deref(i64 base, i64 v) const { return ptr[S(base + v)]; }
};

// Global memory: a rank-R array with run-time extents and strides; mode kUnit (if any) has a static
// stride of 1, so that its offsets cost no multiply.
template <class T, int R, int kUnit = -1>
struct GmemEngine {
  using Acc = Coord<R>;
  T* ptr;
  Coord<R> shape;
  Coord<R> stride;
  LOOM_HD constexpr i64 offset(Coord<R> const& c) const {
    i64 o = 0;
    LOOM_UNROLL
    for (int j = 0; j < R; ++j) o += j == kUnit ? c[j] : c[j] * stride[j];
    return o;
  }
  // Linear in the coordinate, so the base's part of the offset is common to every element.
  LOOM_HD constexpr T& deref(Coord<R> const& base, Coord<R> const& v) const { return ptr[offset(base) + offset(v)]; }
};

// Offsets themselves: a counting tensor shows where every element of a view comes from.
struct CountingEngine {
  using Acc = i64;
  LOOM_HD constexpr i64 deref(i64 base, i64 v) const { return base + v; }
};

// Coordinates themselves, within `shape`.
template <int R>
struct IdentityEngine {
  using Acc = Coord<R>;
  Coord<R> shape;
  LOOM_HD constexpr Coord<R> deref(Coord<R> const& base, Coord<R> const& v) const { return base + v; }
};

// Every component of a below the matching one of b: a coordinate inside a shape.
template <int R>
LOOM_HD constexpr bool elem_less(Coord<R> const& a, Coord<R> const& b) {
  bool in = true;
  LOOM_UNROLL
  for (int j = 0; j < R; ++j) in = in && a[j] < b[j];
  return in;
}

// The identity layout of a flat rank-R shape of dynamic extents: (M,K):(1@0,1@1). Its extents are
// placeholders: only strides and static extents reach the layouts derived from it.
template <int R>
constexpr Layout dynamic_identity_layout() {
  TupleBuilder s, d;
  for (int j = 0; j < R; ++j) {
    s.push(IntTuple(dyn(1)));
    d.push(IntTuple(basis(j)));
  }
  return {s.done(), d.done()};
}

template <Layout L, class Engine> struct StaticTensor;
template <Layout L, class E, class... Cs>
LOOM_HD inline auto slice(StaticTensor<L, E> const& t, Cs... cs);

template <Layout L, class Engine>
struct StaticTensor {
  static constexpr Layout layout = L;
  using Acc = typename Engine::Acc;
  Engine engine;
  Acc base{};

  // t(i, j, ...) is an element; with underscores, t(_, _, k) is the slice that keeps those modes.
  template <class... Is>
  LOOM_HD decltype(auto) operator()(Is... is) const {
    if constexpr ((std::is_same_v<Is, Underscore> || ...)) return slice(*this, is...);
    else return engine.deref(base, layout_value<L, Acc>(is...));
  }
  // The value of element (is...) relative to the base: an offset or a coordinate.
  template <class... Is>
  LOOM_HD static Acc value(Is... is) { return layout_value<L, Acc>(is...); }
};

template <class T, int R, int kUnit = -1>
using GmemTensor = StaticTensor<dynamic_identity_layout<R>(), GmemEngine<T, R, kUnit>>;
template <int R>
using IdentityTensor = StaticTensor<dynamic_identity_layout<R>(), IdentityEngine<R>>;

template <int kUnit = -1, class T, int R>
LOOM_HD constexpr GmemTensor<T, R, kUnit> make_gmem_tensor(T* ptr, Coord<R> const& shape, Coord<R> const& stride) {
  return {{ptr, shape, stride}, {}};
}
template <int R>
LOOM_HD constexpr IdentityTensor<R> make_identity_tensor(Coord<R> const& shape) {
  return {{shape}, {}};
}
template <class T, int R, int U>
LOOM_HD constexpr Coord<R> shape(StaticTensor<dynamic_identity_layout<R>(), GmemEngine<T, R, U>> const& t) {
  return t.engine.shape;
}
template <int R>
LOOM_HD constexpr Coord<R> shape(IdentityTensor<R> const& t) {
  return t.engine.shape;
}

template <Layout L, class Engine>
LOOM_HD constexpr StaticTensor<L, Engine> make_tensor(Engine const& e, typename Engine::Acc const& base = {}) {
  return {e, base};
}

namespace detail {
template <class I> constexpr bool is_under_v = std::is_same_v<I, Underscore>;
// The coordinate with `_` where an argument is an underscore and 0 elsewhere.
template <class... Is>
constexpr IntTuple slice_pattern() {
  TupleBuilder b;
  ((is_under_v<Is> ? b.push(_) : b.push(0)), ...);
  return b.done();
}
template <class I> LOOM_HD constexpr i64 index_or_zero(I i) {
  if constexpr (is_under_v<I>) return 0;
  else return i64(i);
}
}  // namespace detail

// The tile of t at tile index (cs...): each argument indexes one mode of the tiler's tiles, or is
// `_` to keep that mode's tiles as a trailing mode. local_tile<(BM,BK)>(mA, m, _) is (BM,BK,k).
template <Tile T, Layout L, class E, class... Cs>
LOOM_HD inline auto local_tile(StaticTensor<L, E> const& t, Cs... cs) {
  constexpr Layout tile = local_tile(L, T, detail::slice_pattern<Cs...>()).layout;
  // The tile's first element is the rest modes of the tiling at (cs...), underscores at 0.
  constexpr Layout rest = get(zipped_divide(L, T), 1);
  return StaticTensor<tile, E>{t.engine, t.base + layout_value<rest, typename E::Acc>(detail::index_or_zero(cs)...)};
}

// Slicing: t(_, _, k) keeps the modes at the underscores and moves the base to the rest.
template <Layout L, class E, class... Cs>
LOOM_HD inline auto slice(StaticTensor<L, E> const& t, Cs... cs) {
  static_assert(sizeof...(Cs) == rank(L), "one index or underscore per mode");
  constexpr Layout kept = slice(detail::slice_pattern<Cs...>(), L);
  return StaticTensor<kept, E>{t.engine, t.base + layout_value<L, typename E::Acc>(detail::index_or_zero(cs)...)};
}

// A partition's thread offsets, one per thread, evaluated by the front end.
template <class Acc, int N>
struct ThreadTable {
  Acc v[N];
};
template <class Acc, int N, class P>
constexpr ThreadTable<Acc, N> make_thread_table(P const& p) {
  ThreadTable<Acc, N> t{};
  for (int i = 0; i < N; ++i) t.v[i] = p.template offset<Acc>(i);
  return t;
}

// A thread's part of a tensor under a TiledCopy, a TiledMMA or a thread layout. The partition's
// layout is fixed at compile time; the thread's position is the base, one load from a table.
template <TiledCopy C, Layout L, class E>
LOOM_HD inline auto partition_S(StaticTensor<L, E> const& t, i64 tid) {
  using Acc = typename E::Acc;
  static constexpr auto kThr = make_thread_table<Acc, int(C.size())>(C.partition_S(L));
  return StaticTensor<C.partition_S(L).layout, E>{t.engine, t.base + kThr.v[tid]};
}
template <TiledCopy C, Layout L, class E>
LOOM_HD inline auto partition_D(StaticTensor<L, E> const& t, i64 tid) {
  using Acc = typename E::Acc;
  static constexpr auto kThr = make_thread_table<Acc, int(C.size())>(C.partition_D(L));
  return StaticTensor<C.partition_D(L).layout, E>{t.engine, t.base + kThr.v[tid]};
}
template <TiledMMA M, Layout L, class E>
LOOM_HD inline auto partition_A(StaticTensor<L, E> const& t, i64 tid) {
  using Acc = typename E::Acc;
  static constexpr auto kThr = make_thread_table<Acc, int(M.size())>(M.partition_A(L));
  return StaticTensor<M.partition_A(L).layout, E>{t.engine, t.base + kThr.v[tid]};
}
template <TiledMMA M, Layout L, class E>
LOOM_HD inline auto partition_B(StaticTensor<L, E> const& t, i64 tid) {
  using Acc = typename E::Acc;
  static constexpr auto kThr = make_thread_table<Acc, int(M.size())>(M.partition_B(L));
  return StaticTensor<M.partition_B(L).layout, E>{t.engine, t.base + kThr.v[tid]};
}
template <TiledMMA M, Layout L, class E>
LOOM_HD inline auto partition_C(StaticTensor<L, E> const& t, i64 tid) {
  using Acc = typename E::Acc;
  static constexpr auto kThr = make_thread_table<Acc, int(M.size())>(M.partition_C(L));
  return StaticTensor<M.partition_C(L).layout, E>{t.engine, t.base + kThr.v[tid]};
}
template <Layout Thr, Layout L, class E>
LOOM_HD inline auto local_partition(StaticTensor<L, E> const& t, i64 tid) {
  using Acc = typename E::Acc;
  static constexpr auto kThr = make_thread_table<Acc, int(size(Thr).v)>(make_local_partition(L, Thr));
  return StaticTensor<make_local_partition(L, Thr).layout, E>{t.engine, t.base + kThr.v[tid]};
}

// A register tensor: the layout is a template argument, so its size and every offset are
// compile-time constants and the array stays in registers when loops over it are unrolled.
template <class T, Layout L>
struct Fragment {
  static constexpr Layout layout = L;
  static constexpr i64 kSize = cosize(L).v;
  T data[kSize];

  template <class... Cs>
  LOOM_HD T& operator()(Cs... cs) { return data[layout_value<L, i64>(cs...)]; }
  template <class... Cs>
  LOOM_HD T const& operator()(Cs... cs) const { return data[layout_value<L, i64>(cs...)]; }
};

// The register fragment of one thread's part of a tensor: same shape, compact.
template <class T, Layout L, class E>
LOOM_HD constexpr auto make_fragment_like(StaticTensor<L, E> const&) {
  return Fragment<T, make_layout(shape(L))>{};
}

}  // namespace loom
