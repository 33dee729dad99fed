// Loom layout core: swizzles and swizzled (composed) layouts for shared memory.
//
// Swizzle{B,M,S} XORs the B bits at [M+S, M+S+B) of an offset into the B bits at [M, M+B): with
// M = log2(elements per 16-byte chunk), rows of a tile land in different banks. A negative S moves
// bits the other way. Composing a swizzle after a layout gives the offsets of a conflict-free
// shared-memory tile.
#pragma once

#include "layout/layout.hpp"

namespace loom {

struct Swizzle {
  int bits = 0;   // B: number of bits in the mask
  int base = 0;   // M: least-significant bits kept constant
  int shift = 0;  // S: distance from the source bits down to the target bits

  constexpr i64 yyy_mask() const {
    return ((i64(1) << bits) - 1) << (base + (shift > 0 ? shift : 0));
  }
  constexpr i64 zzz_mask() const {
    return ((i64(1) << bits) - 1) << (base - (shift < 0 ? shift : 0));
  }
  constexpr i64 operator()(i64 offset) const {
    i64 y = offset & yyy_mask();
    return offset ^ (shift >= 0 ? (y >> shift) : (y << -shift));
  }
  constexpr bool operator==(Swizzle const& o) const {
    return bits == o.bits && base == o.base && shift == o.shift;
  }
};

constexpr Swizzle make_swizzle(int b, int m, int s) {
  LOOM_REQUIRE(b >= 0 && b < 24, "swizzle: B must be in [0, 24)");
  LOOM_REQUIRE(m >= 0 && m < 32, "swizzle: M must be in [0, 32)");
  LOOM_REQUIRE((s < 0 ? -s : s) >= b, "swizzle: |S| must be at least B");
  LOOM_REQUIRE(m + b + (s < 0 ? -s : s) < 62, "swizzle: the masks do not fit in 62 bits");
  return Swizzle{b, m, s};
}

// sw(offset + layout(c)): CuTe's ComposedLayout<Swizzle, offset, Layout>.
struct SwizzleLayout {
  Swizzle swizzle;
  i64 offset = 0;
  Layout layout;

  constexpr i64 operator()(IntTuple const& coord) const { return swizzle(offset + layout(coord)); }
  template <class... Ts>
  constexpr i64 operator()(IntTuple const& c0, IntTuple const& c1, Ts const&... cs) const {
    return (*this)(make_coord(c0, c1, cs...));
  }
};

constexpr SwizzleLayout composition(Swizzle const& sw, Layout const& l) { return {sw, 0, l}; }
constexpr Int size(SwizzleLayout const& l) { return size(l.layout); }
constexpr int rank(SwizzleLayout const& l) { return rank(l.layout); }
constexpr IntTuple shape(SwizzleLayout const& l) { return l.layout.shape; }
// The swizzle acts on the whole offset, so refining the inner layout keeps it outside.
constexpr SwizzleLayout composition(SwizzleLayout const& a, Layout const& b) {
  return {a.swizzle, a.offset, composition(a.layout, b)};
}
constexpr SwizzleLayout composition(SwizzleLayout const& a, Tile const& t) {
  return {a.swizzle, a.offset, composition(a.layout, t)};
}

// Smallest power-of-two cosize covered by the swizzle's masks: the period of the pattern.
constexpr i64 swizzle_period(Swizzle const& s) {
  i64 top = s.base + s.bits + (s.shift > 0 ? s.shift : -s.shift);
  return i64(1) << top;
}

}  // namespace loom
