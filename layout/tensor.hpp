// Loom layout core: tensors, a static layout over an engine (global, shared or register memory,
// coordinates, or offsets), the form in which kernels use the algebra.
#pragma once

#include <cstdint>

#include "layout/copy.hpp"
#include "layout/layout.hpp"
#include "layout/mma.hpp"
#include "layout/swizzle.hpp"

namespace loom {

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

// The single-leaf modes of L (every mode of dynamic extent is one): its stride, as an offset or a
// coordinate. layout_value evaluates these modes with one multiply instead of through the table,
// so that a run-time index into one (a k tile, a pipeline stage) costs no table load.
template <Layout L, class Acc>
struct DynamicModes {
  Acc stride[rank(L) + 1];
};
template <Layout L, class Acc>
constexpr DynamicModes<L, Acc> make_dynamic_modes() {
  DynamicModes<L, Acc> d{};
  for (int m = 0; m < (is_leaf(L.shape) ? 1 : rank(L)); ++m) {
    Layout const mode = is_leaf(L.shape) ? L : get(L, m);
    if (m >= static_modes(L)) LOOM_REQUIRE(is_leaf(mode.shape), "a mode of dynamic extent must be a single integer");
    if (is_leaf(mode.shape)) d.stride[m] = crd2idx_flat<Acc>(1, mode.shape, mode.stride);
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
// With one integer per mode, single-leaf modes take one multiply each and the others index the table.
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
         if constexpr (M < Table::kModes && !is_leaf(get(L.shape, M))) {
           idx += c[M] * w;
           w *= size(get(L.shape, M)).v;
         } else {  // a single leaf: its table index stays 0
           if constexpr (M < Table::kModes) w *= size(get(L.shape, M)).v;
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

// One thread's part of a swizzled tensor, as partition_S/D/A/B/C and local_partition of a tensor
// over SwizzledPtrEngine return it: sx is the swizzle of the thread's offset x, taken once (the
// front end tabulates it per thread), and the element at w = base + value is at
//
//   sw(x + w) == (sx ^ lo) + (w - lo),   lo = w mod P (P: the swizzle's period),
//
// which holds when lo has no bit that the swizzle reads (its yyy mask) and no bit that x has below
// P: then x + lo is x ^ lo, the bits the swizzle reads are x's alone, and whole periods pass
// through the swizzle unchanged. The partition checks this at compile time for every thread and
// every value of its layout (see detail::swizzle_splits below). Only the bits of lo that some
// thread's sx has need the XOR; the others add (they meet no bit of sx), so lo keeps just the
// bits of kXor, which the partition computes from its threads (the default, every bit below P,
// is always right). Where lo is a constant (unrolled indices, and run-time indices only into
// modes that step by whole periods, such as a pipeline stage), an element costs an XOR with a
// constant, which the compiler hoists, and an add, most of it an immediate.
// Shared memory offsets fit in 32 bits, and 32-bit arithmetic keeps every step one instruction.
template <class T, Swizzle S, int kXor = int(swizzle_period(S)) - 1>
struct SwizzledPartEngine {
  using Acc = i64;
  T* ptr;
  int sx;
  LOOM_HD constexpr int offset(i64 base, i64 v) const {
    int const w = int(base) + int(v), lo = w & kXor;
    return (sx ^ lo) + (w - lo);
  }
  LOOM_HD constexpr T& deref(i64 base, i64 v) const { return ptr[offset(base, v)]; }
#if defined(__CUDA_ARCH__)
  // The element's shared-window address (see smem_address): w - lo (a run-time stage and a
  // constant) through the pointer, the thread's part sx ^ lo added as an integer. Kept apart so,
  // the compiler hoists the second out of loops and keeps the first warp-uniform; folded into one
  // index (as deref has it), it would multiply their sum by sizeof(T) inside the loop.
  __device__ std::uint32_t address(i64 base, i64 v) const {
    int const w = int(base) + int(v), lo = w & kXor;
    return std::uint32_t(__cvta_generic_to_shared(ptr + (w - lo))) + std::uint32_t(sizeof(T)) * std::uint32_t(sx ^ lo);
  }
#endif
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

// A partition's thread offsets, one per thread, evaluated by the front end (the swizzled partitions
// below read these).
template <class Acc, int N>
struct ThreadTable {
  Acc v[N];
};

// A thread's part of a tensor under a TiledCopy, a TiledMMA or a thread layout. The partition's
// layout is fixed at compile time; the thread's position is the base, found one of two ways:
//
// - Offsets::kComputed (the default): the partition's offset() on the thread index, a few constant
//   divisions, multiplies and adds on a static constexpr copy of the partition, so that the
//   compiler sees the offsets' structure. fma_simple needs this: with a table, the compiler cannot
//   tell its shared offsets are multiples of 4 and splits its 16-byte shared loads into scalar ones
//   (20% slower at 8192^3 on the H100).
// - Offsets::kTabulated: one load from a front-end table of every thread's offset. Fewer live
//   registers while the offsets are formed: fma's 128x128 kernels spill 12-48 bytes with computed
//   offsets and none with tables, and sm80 keeps 6-8 registers more headroom.
enum class Offsets { kComputed, kTabulated };

namespace detail {
template <Offsets kHow, class Acc, int kThreads, auto P>
LOOM_HD inline Acc thread_offset(i64 tid) {
  if constexpr (kHow == Offsets::kTabulated) {
    static constexpr ThreadTable<Acc, kThreads> kTable = [] {
      ThreadTable<Acc, kThreads> t{};
      for (int i = 0; i < kThreads; ++i) t.v[i] = P.template offset<Acc>(i);
      return t;
    }();
    return kTable.v[tid];
  } else {
    static constexpr auto kP = P;
    return kP.template offset<Acc>(tid);
  }
}
}  // namespace detail

namespace detail {
// The thread's part under partition P (of kThreads threads): P's layout, the base moved by the
// thread's offset.
template <auto P, int kThreads, Offsets kHow, Layout L, class E>
LOOM_HD inline auto part(StaticTensor<L, E> const& t, i64 tid) {
  return StaticTensor<P.layout, E>{t.engine, t.base + thread_offset<kHow, typename E::Acc, kThreads, P>(tid)};
}
}  // namespace detail

template <TiledCopy C, Offsets kHow = Offsets::kComputed, Layout L, class E>
LOOM_HD inline auto partition_S(StaticTensor<L, E> const& t, i64 tid) {
  return detail::part<C.partition_S(L), int(C.size()), kHow>(t, tid);
}
template <TiledCopy C, Offsets kHow = Offsets::kComputed, Layout L, class E>
LOOM_HD inline auto partition_D(StaticTensor<L, E> const& t, i64 tid) {
  return detail::part<C.partition_D(L), int(C.size()), kHow>(t, tid);
}
template <TiledMMA M, Offsets kHow = Offsets::kComputed, Layout L, class E>
LOOM_HD inline auto partition_A(StaticTensor<L, E> const& t, i64 tid) {
  return detail::part<M.partition_A(L), int(M.size()), kHow>(t, tid);
}
template <TiledMMA M, Offsets kHow = Offsets::kComputed, Layout L, class E>
LOOM_HD inline auto partition_B(StaticTensor<L, E> const& t, i64 tid) {
  return detail::part<M.partition_B(L), int(M.size()), kHow>(t, tid);
}
template <TiledMMA M, Offsets kHow = Offsets::kComputed, Layout L, class E>
LOOM_HD inline auto partition_C(StaticTensor<L, E> const& t, i64 tid) {
  return detail::part<M.partition_C(L), int(M.size()), kHow>(t, tid);
}
template <Layout Thr, Offsets kHow = Offsets::kComputed, Layout L, class E>
LOOM_HD inline auto local_partition(StaticTensor<L, E> const& t, i64 tid) {
  return detail::part<make_local_partition(L, Thr), int(size(Thr).v), kHow>(t, tid);
}

// Partitions of a swizzled tensor (StaticTensor over SwizzledPtrEngine): each thread's part is a
// tensor over SwizzledPartEngine, whose base is the tensor's and whose sx is the swizzle of the
// thread's offset, from a front-end table. The tensor must start at a whole number of swizzle
// periods (make_tensor's base 0, or a slice along a mode that steps by whole periods).
namespace detail {
// Can every thread of partition p address its elements by SwizzledPartEngine's rule under s? For
// every thread offset x and every value w of the partition's layout, w mod P must miss the bits
// that s reads and the bits of x mod P; a mode of dynamic extent must step by whole periods.
template <class P>
constexpr bool swizzle_splits(P const& p, int threads, Swizzle const& s) {
  i64 const low = swizzle_period(s) - 1;
  i64 thr = 0;  // every bit below P that some thread's offset has
  for (int t = 0; t < threads; ++t) thr |= p.template offset<i64>(t) & low;
  Layout const& l = p.layout;
  int const modes = is_leaf(l.shape) ? 1 : rank(l), tabulated = static_modes(l);
  for (int m = tabulated; m < modes; ++m)
    if ((crd2idx_flat(1, l.shape, l.stride, is_leaf(l.shape) ? 0 : child_node(l.shape, 0, m)) & low) != 0) return false;
  for (i64 i = 0; i < static_size(l); ++i) {
    i64 rest = i, w = 0;
    if (is_leaf(l.shape)) {
      w = crd2idx_flat(i, l.shape, l.stride);
    } else {
      for (int m = 0; m < tabulated; ++m) {
        i64 const n = size(get(l.shape, m)).v;
        w += crd2idx_flat(rest % n, l.shape, l.stride, child_node(l.shape, 0, m));
        rest /= n;
      }
    }
    if ((w & low & (s.yyy_mask() | thr)) != 0) return false;
  }
  return true;
}
template <int N, class P>
constexpr ThreadTable<int, N> make_swizzled_thread_table(P const& p, Swizzle const& s) {
  ThreadTable<int, N> t{};
  for (int i = 0; i < N; ++i) t.v[i] = int(s(p.template offset<i64>(i)));
  return t;
}
// The bits below the period that some thread's swizzled offset has: SwizzledPartEngine's kXor.
template <class P>
constexpr int swizzled_thread_bits(P const& p, int threads, Swizzle const& s) {
  i64 bits = 0;
  for (int t = 0; t < threads; ++t) bits |= s(p.template offset<i64>(t)) & (swizzle_period(s) - 1);
  return int(bits);
}
template <auto P, int kThreads, Layout L, class T, Swizzle S>
LOOM_HD inline auto swizzled_part(StaticTensor<L, SwizzledPtrEngine<T, S>> const& t, i64 tid) {
  static_assert(swizzle_splits(P, kThreads, S),
                "a thread's part of this swizzled tensor does not split: some value's bits below the "
                "swizzle period meet the bits the swizzle reads or a thread offset's bits");
  static constexpr auto kThr = make_swizzled_thread_table<kThreads>(P, S);
  using Part = SwizzledPartEngine<T, S, swizzled_thread_bits(P, kThreads, S)>;
  return StaticTensor<P.layout, Part>{Part{t.engine.ptr, kThr.v[tid]}, t.base};
}
}  // namespace detail

template <TiledCopy C, Layout L, class T, Swizzle S>
LOOM_HD inline auto partition_S(StaticTensor<L, SwizzledPtrEngine<T, S>> const& t, i64 tid) {
  return detail::swizzled_part<C.partition_S(L), int(C.size())>(t, tid);
}
template <TiledCopy C, Layout L, class T, Swizzle S>
LOOM_HD inline auto partition_D(StaticTensor<L, SwizzledPtrEngine<T, S>> const& t, i64 tid) {
  return detail::swizzled_part<C.partition_D(L), int(C.size())>(t, tid);
}
template <TiledMMA M, Layout L, class T, Swizzle S>
LOOM_HD inline auto partition_A(StaticTensor<L, SwizzledPtrEngine<T, S>> const& t, i64 tid) {
  return detail::swizzled_part<M.partition_A(L), int(M.size())>(t, tid);
}
template <TiledMMA M, Layout L, class T, Swizzle S>
LOOM_HD inline auto partition_B(StaticTensor<L, SwizzledPtrEngine<T, S>> const& t, i64 tid) {
  return detail::swizzled_part<M.partition_B(L), int(M.size())>(t, tid);
}
template <TiledMMA M, Layout L, class T, Swizzle S>
LOOM_HD inline auto partition_C(StaticTensor<L, SwizzledPtrEngine<T, S>> const& t, i64 tid) {
  return detail::swizzled_part<M.partition_C(L), int(M.size())>(t, tid);
}
template <Layout Thr, Layout L, class T, Swizzle S>
LOOM_HD inline auto local_partition(StaticTensor<L, SwizzledPtrEngine<T, S>> const& t, i64 tid) {
  return detail::swizzled_part<make_local_partition(L, Thr), int(size(Thr).v)>(t, tid);
}

#if defined(__CUDA_ARCH__)
// The 32-bit shared-window address of element (is...) of a tensor in shared memory, the form that
// cp.async, ldmatrix and the other shared-memory PTX instructions take. An engine may compute it
// itself (SwizzledPartEngine); otherwise it is the element's generic address converted.
template <Layout L, class E, class... Is>
__device__ inline std::uint32_t smem_address(StaticTensor<L, E> const& t, Is... is) {
  if constexpr (requires { t.engine.address(t.base, i64{}); })
    return t.engine.address(t.base, layout_value<L, typename E::Acc>(is...));
  else
    return std::uint32_t(__cvta_generic_to_shared(&t(is...)));
}
#endif

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

// The accumulators of one thread of TiledMMA M over a C tile laid out as kTileC (CuTe's
// partition_fragment_C): the shape of the thread's partition_C, compact, in the order partition_C
// enumerates its values.
template <class T, TiledMMA M, Layout kTileC>
LOOM_HD constexpr auto partition_fragment_C() {
  return Fragment<T, make_layout(shape(M.partition_C(kTileC).layout))>{};
}

// ---------------------------------------------------------------------------------------------
// Walking the last mode of a tensor one step at a time (the k tiles of tAgA)
// ---------------------------------------------------------------------------------------------
//
// In a loop over k, t(_, _, _, k) evaluates the slice's base anew for every k; over global memory
// every element's offset is then the base's coordinate dotted with the run-time strides again, a
// 64-bit multiply per k tile that NVVM does not strength-reduce (in the tuned FFMA GEMM the extra
// live values spilled registers). A ModeWalker holds the slice at one index of the last mode, and
// next() moves it by one step of that mode: one add to the base, or, over global memory, to the
// pointer, into which the slice's base is folded once. Its elements are those of t(_, ..., _, k).

// Fold a view's base into its engine where moving the engine is cheaper (global memory: the
// pointer), so that the base is 0; elsewhere nothing changes.
template <class E, class Acc>
LOOM_HD constexpr void fold_base(E&, Acc&) {}
template <class T, int R, int U>
LOOM_HD constexpr void fold_base(GmemEngine<T, R, U>& e, Coord<R>& base) {
  e.ptr += e.offset(base);
  base = Coord<R>{};
}
// Move a view by `step`, a value of its layout: the base, or over global memory the pointer.
template <class E, class Acc>
LOOM_HD constexpr void advance(E&, Acc& base, Acc const& step) {
  base += step;
}
template <class T, int R, int U>
LOOM_HD constexpr void advance(GmemEngine<T, R, U>& e, Coord<R>&, Coord<R> const& step) {
  e.ptr += e.offset(step);
}

template <class View>
struct ModeWalker {
  View view;                       // t(_, ..., _, k) at the current k
  typename View::Acc step;         // one step of the walked mode
  LOOM_HD void next() { advance(view.engine, view.base, step); }
};

// The walker over the last mode of t, at index k.
template <Layout L, class E>
LOOM_HD inline auto walk_last_mode(StaticTensor<L, E> const& t, i64 k) {
  constexpr int R = is_leaf(L.shape) ? 1 : rank(L);
  auto view = [&]<int... M>(std::integer_sequence<int, M...>) {
    return slice(t, (void(M), _)..., k);
  }(std::make_integer_sequence<int, R - 1>{});
  fold_base(view.engine, view.base);
  auto const step = [&]<int... M>(std::integer_sequence<int, M...>) {
    return layout_value<L, typename E::Acc>((void(M), 0)..., 1);
  }(std::make_integer_sequence<int, R - 1>{});
  return ModeWalker<decltype(view)>{view, step};
}

}  // namespace loom
