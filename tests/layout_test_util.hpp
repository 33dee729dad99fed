// Shared helpers for the layout-core tests (tests/test_layout_*.cpp): a seeded random generator,
// random shapes and layouts, and small evaluation utilities. Host only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "harness/splitmix64.hpp"
#include "layout/layout.hpp"
#include "layout/print.hpp"

// GoogleTest prints these in CuTe notation in failure messages.
namespace loom {
inline void PrintTo(IntTuple const& t, std::ostream* os) { *os << to_string(t); }
inline void PrintTo(Layout const& l, std::ostream* os) { *os << to_string(l); }
inline void PrintTo(OffsetLayout const& l, std::ostream* os) { *os << to_string(l); }
}  // namespace loom

namespace loomtest {

using loom::i64;
using loom::IntTuple;
using loom::Layout;

// f throws a LayoutError whose message contains `what`.
inline void expect_rejects(std::function<void()> const& f, std::string const& what) {
  try {
    f();
    ADD_FAILURE() << "accepted; expected an error containing \"" << what << "\"";
  } catch (loom::LayoutError const& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

// Short names for writing layouts in tests: L(S(2,S(1,6)), S(1,S(6,2))) is (2,(1,6)):(1,(6,2)).
template <class... Ts>
IntTuple S(Ts const&... ts) {
  return loom::make_tuple(ts...);
}
inline Layout L(IntTuple const& shape, IntTuple const& stride) { return loom::make_layout(shape, stride); }
inline Layout L(IntTuple const& shape) { return loom::make_layout(shape); }
inline Layout L(IntTuple const& shape, loom::LayoutRight r) { return loom::make_layout(shape, r); }

inline std::string str(Layout const& l) { return loom::to_string(l); }
inline std::string str(IntTuple const& t) { return loom::to_string(t); }
inline std::string str(loom::OffsetLayout const& l) { return loom::to_string(l); }

inline i64 sz(Layout const& l) { return loom::size(l).v; }
inline i64 sz(IntTuple const& t) { return loom::size(t).v; }

// l(i) for every i < size(l).
inline std::vector<i64> values(Layout const& l) {
  std::vector<i64> v(size_t(sz(l)));
  for (i64 i = 0; i < sz(l); ++i) v[size_t(i)] = l(i);
  return v;
}
inline std::vector<i64> sorted(std::vector<i64> v) {
  std::sort(v.begin(), v.end());
  return v;
}
inline bool injective(Layout const& l) {
  auto v = sorted(values(l));
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

// Deterministic generator (splitmix64); a fixed seed makes every run see the same cases.
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() {
    std::uint64_t const z = loom::splitmix64(s);
    s += 0x9E3779B97F4A7C15ull;
    return z;
  }
  int uniform(int lo, int hi) { return lo + int(next() % std::uint64_t(hi - lo + 1)); }  // [lo, hi]
  bool coin(int percent) { return uniform(0, 99) < percent; }
  template <class T>
  T pick(std::vector<T> const& v) { return v[size_t(uniform(0, int(v.size()) - 1))]; }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (int i = int(v.size()) - 1; i > 0; --i) std::swap(v[size_t(i)], v[size_t(uniform(0, i))]);
  }
};

inline const std::vector<i64> kPow2Factors = {1, 2, 2, 4, 4, 8};
inline const std::vector<i64> kFactors = {1, 2, 2, 3, 4, 4, 5, 6, 8};

// n leaves drawn from `factors`, total size at most max_size.
inline std::vector<i64> random_leaves(Rng& rng, int n, std::vector<i64> const& factors, i64 max_size) {
  std::vector<i64> out;
  i64 total = 1;
  for (int k = 0; k < n; ++k) {
    i64 f = rng.pick(factors);
    while (total * f > max_size) f = 1;
    total *= f;
    out.push_back(f);
  }
  return out;
}

// Random nesting of a list of leaf pairs (shape, stride) into congruent trees. With top_level_tuple
// the result is always a tuple (rank >= 1), otherwise a single leaf stays an integer.
inline void nest_into(Rng& rng, std::vector<i64> const& s, std::vector<i64> const& d, int b, int e,
                      int depth, loom::TupleBuilder& bs, loom::TupleBuilder& bd) {
  // Split [b, e) into consecutive groups; each group becomes one mode.
  int i = b;
  while (i < e) {
    int len = (depth > 0 && rng.coin(35)) ? rng.uniform(1, e - i) : 1;
    if (len == 1 && !(depth > 0 && rng.coin(10))) {
      bs.push(IntTuple(s[size_t(i)]));
      bd.push(IntTuple(d[size_t(i)]));
    } else {
      loom::TupleBuilder cs, cd;
      nest_into(rng, s, d, i, i + len, depth - 1, cs, cd);
      bs.push(cs.done());
      bd.push(cd.done());
    }
    i += len;
  }
}
inline Layout nest(Rng& rng, std::vector<i64> const& s, std::vector<i64> const& d, bool allow_leaf = true) {
  if (allow_leaf && s.size() == 1 && rng.coin(50)) return L(IntTuple(s[0]), IntTuple(d[0]));
  loom::TupleBuilder bs, bd;
  nest_into(rng, s, d, 0, int(s.size()), 2, bs, bd);
  return L(bs.done(), bd.done());
}

// A layout with random shape (from `factors`) and strides drawn from `strides`.
inline Layout random_layout(Rng& rng, std::vector<i64> const& factors, std::vector<i64> const& strides,
                            int max_leaves = 4, i64 max_size = 512) {
  int n = rng.uniform(1, max_leaves);
  std::vector<i64> s = random_leaves(rng, n, factors, max_size), d;
  for (int k = 0; k < n; ++k) d.push_back(rng.pick(strides));
  return nest(rng, s, d);
}

// The flat leaves of a shape, with the compact column-major stride of each.
struct FlatCompact {
  std::vector<i64> shape, stride;
};
inline FlatCompact flat_compact(std::vector<i64> const& leaves) {
  FlatCompact f;
  i64 p = 1;
  for (i64 s : leaves) {
    f.shape.push_back(s);
    f.stride.push_back(p);
    p *= s;
  }
  return f;
}

// An injective layout: a random subset of the modes of the compact column-major layout of `leaves`,
// in random order, randomly nested. keep_all gives a bijection onto [0, product(leaves)).
inline Layout random_subpermutation(Rng& rng, std::vector<i64> const& leaves, bool keep_all = false) {
  FlatCompact f = flat_compact(leaves);
  std::vector<int> idx;
  for (int k = 0; k < int(leaves.size()); ++k)
    if (keep_all || rng.coin(65)) idx.push_back(k);
  if (idx.empty()) idx.push_back(rng.uniform(0, int(leaves.size()) - 1));
  rng.shuffle(idx);
  std::vector<i64> s, d;
  for (int k : idx) {
    s.push_back(f.shape[size_t(k)]);
    d.push_back(f.stride[size_t(k)]);
  }
  return nest(rng, s, d);
}

// Leaves of a shape, left to right.
inline std::vector<i64> leaves_of(IntTuple const& t) {
  std::vector<i64> out;
  IntTuple f = loom::flatten(t);
  if (loom::is_leaf(f)) return {loom::value(f)};
  for (int i = 0; i < loom::rank(f); ++i) out.push_back(loom::value(loom::get(f, i)));
  return out;
}

}  // namespace loomtest
