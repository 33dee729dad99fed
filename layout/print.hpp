// Loom layout core: text form of tuples and layouts (host only).
//
// The notation is CuTe's without the underscores it puts on static integers: a layout prints as
// ((32,8),32):((1,32),256), a rank-1 layout as 8:1, a tuple as (2,(0,3)).
#pragma once

#include <cstdio>
#include <string>

#include "layout/layout.hpp"

namespace loom {

inline std::string to_string(IntTuple const& t) {
  if (is_leaf(t)) {
    if (is_underscore(t)) return "_";
    Int i = as_int(t);
    return std::to_string(i.v) + (i.is_basis() ? "@" + std::to_string(i.basis) : "");
  }
  std::string s = "(";
  for (int i = 0; i < rank(t); ++i) {
    if (i) s += ",";
    s += to_string(get(t, i));
  }
  return s + ")";
}

inline std::string to_string(Layout const& l) { return to_string(l.shape) + ":" + to_string(l.stride); }

inline std::string to_string(OffsetLayout const& l) {
  return to_string(l.layout) + "@" + std::to_string(l.offset);
}

inline std::string to_string(Tile const& t) {
  if (t.is_tuple()) {
    std::string s = "(";
    for (int i = 0; i < t.rank(); ++i) {
      if (i) s += ",";
      s += to_string(get(t, i));
    }
    return s + ")";
  }
  switch (t.leaf_kind()) {
    case Tile::kUnder: return "_";
    case Tile::kInt: return to_string(t.leaf().shape);
    default: return to_string(t.leaf());
  }
}

// A rank-2 layout as a table of offsets, rows = mode 0, columns = mode 1, in the manner of CuTe's
// print_layout. Rank-1 layouts print as a single column.
inline std::string print_layout(Layout const& layout) {
  LOOM_REQUIRE(rank(layout) <= 2, "show: the layout must have rank 1 or 2");
  Layout l = rank(layout) == 2 ? layout : make_layout(layout, Layout{});
  i64 rows = size(get(l, 0)).v, cols = size(get(l, 1)).v;
  int width = int(std::to_string(cosize(l).v).size()) + 2;
  std::string out = to_string(layout) + "\n";
  auto rule = [&] {
    std::string r = "    ";
    for (i64 n = 0; n < cols; ++n) r.append("+").append(size_t(width), '-');
    return r.append("+\n");
  };
  char buf[64];
  out += "    ";
  for (i64 n = 0; n < cols; ++n) {
    std::snprintf(buf, sizeof buf, "  %*lld ", width - 2, n);
    out += buf;
  }
  out += "\n";
  for (i64 m = 0; m < rows; ++m) {
    out += rule();
    std::snprintf(buf, sizeof buf, "%2lld  ", m);
    out += buf;
    for (i64 n = 0; n < cols; ++n) {
      std::snprintf(buf, sizeof buf, "| %*lld ", width - 2, l(make_coord(m, n)));
      out += buf;
    }
    out += "|\n";
  }
  out += rule();
  return out;
}

}  // namespace loom
