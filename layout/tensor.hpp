// Loom layout core: tensors, an engine (pointer or iterator) plus a layout.
//
// A Tensor's engine is anything with operator[] and operator+: a raw pointer into global, shared
// or register memory, or a counting iterator whose elements are their own offsets. Views (tiles,
// partitions, slices) keep the engine and move its start by the view's offset.
#pragma once

#include "layout/copy.hpp"
#include "layout/layout.hpp"
#include "layout/mma.hpp"

namespace loom {

// Elements are their offsets: a counting tensor shows where every element of a view comes from.
struct CountingIterator {
  i64 base = 0;
  constexpr i64 operator[](i64 i) const { return base + i; }
  constexpr CountingIterator operator+(i64 o) const { return {base + o}; }
};

// Elements are coordinates of `shape` (column-major index -> coordinate): identity tensors
// partition like data and predicate ragged edges.
struct IdentityIterator {
  IntTuple shape;
  i64 base = 0;
  constexpr IntTuple operator[](i64 i) const { return idx2crd(IntTuple(base + i), shape); }
  constexpr IdentityIterator operator+(i64 o) const { return {shape, base + o}; }
};

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

template <class Engine>
struct Tensor {
  Engine data;
  Layout layout;

  template <class... Cs>
  constexpr decltype(auto) operator()(Cs const&... cs) const { return data[layout(cs...)]; }
  constexpr decltype(auto) operator[](i64 i) const { return data[layout(i)]; }
  constexpr Tensor view(OffsetLayout const& o) const { return {data + o.offset, o.layout}; }
};

template <class Engine>
constexpr Tensor<Engine> make_tensor(Engine data, Layout const& layout) { return {data, layout}; }
constexpr Tensor<CountingIterator> make_counting_tensor(Layout const& layout) { return {{0}, layout}; }
constexpr Tensor<IdentityIterator> make_identity_tensor(IntTuple const& shape) {
  return {{shape, 0}, make_layout(shape)};
}

template <class E> constexpr Int size(Tensor<E> const& t) { return size(t.layout); }
template <class E> constexpr int rank(Tensor<E> const& t) { return rank(t.layout); }
template <class E> constexpr IntTuple shape(Tensor<E> const& t) { return t.layout.shape; }

// Slicing with underscores: t(make_coord(_, 3)) is column 3.
template <class E>
constexpr Tensor<E> slice(IntTuple const& c, Tensor<E> const& t) { return t.view(slice_and_offset(c, t.layout)); }

template <class E>
constexpr Tensor<E> local_tile(Tensor<E> const& t, Tile const& tiler, IntTuple const& coord) {
  return t.view(local_tile(t.layout, tiler, coord));
}
template <class E>
constexpr Tensor<E> local_tile(Tensor<E> const& t, Tile const& tiler, IntTuple const& coord, IntTuple const& step) {
  return t.view(local_tile(t.layout, tiler, coord, step));
}
template <class E>
constexpr Tensor<E> local_partition(Tensor<E> const& t, Layout const& thr, i64 idx) {
  return t.view(local_partition(t.layout, thr, idx));
}
template <class E>
constexpr Tensor<E> local_partition(Tensor<E> const& t, Layout const& thr, i64 idx, IntTuple const& step) {
  return t.view(local_partition(t.layout, thr, idx, step));
}
template <class E> constexpr Tensor<E> partition_A(ThrMMA const& m, Tensor<E> const& t) { return t.view(m.partition_A(t.layout)); }
template <class E> constexpr Tensor<E> partition_B(ThrMMA const& m, Tensor<E> const& t) { return t.view(m.partition_B(t.layout)); }
template <class E> constexpr Tensor<E> partition_C(ThrMMA const& m, Tensor<E> const& t) { return t.view(m.partition_C(t.layout)); }
template <class E> constexpr Tensor<E> partition_S(ThrCopy const& c, Tensor<E> const& t) { return t.view(c.partition_S(t.layout)); }
template <class E> constexpr Tensor<E> partition_D(ThrCopy const& c, Tensor<E> const& t) { return t.view(c.partition_D(t.layout)); }

// A tensor whose layout is a template argument: the form kernels use for static layouts. nvcc folds
// template-argument objects and `__device__ constexpr` layouts to constants, while a layout held by
// value in a kernel's locals is spilled to local memory. (A __global__ template cannot take a
// Layout argument itself: nvcc's host stub cannot spell it. Pass a config type whose static
// constexpr members feed __device__ templates instead.)
template <Layout L, class Engine>
struct StaticTensor {
  static constexpr Layout layout = L;
  Engine data;

  template <class... Cs>
  LOOM_HD constexpr decltype(auto) operator()(Cs... cs) const { return data[L(cs...)]; }
};

// A register tensor: the layout is a template argument, so its size and every offset are
// compile-time constants and the array stays in registers when loops over it are unrolled.
template <class T, Layout L>
struct Fragment {
  static constexpr Layout layout = L;
  static constexpr i64 kSize = cosize(L).v;
  T data[kSize];

  template <class... Cs>
  LOOM_HD constexpr T& operator()(Cs... cs) { return data[L(cs...)]; }
  template <class... Cs>
  LOOM_HD constexpr T const& operator()(Cs... cs) const { return data[L(cs...)]; }
};

}  // namespace loom
