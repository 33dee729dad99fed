// loom-layout: a command-line calculator for the Loom layout algebra.
//
//   loom-layout OP ARG...        e.g. loom-layout composition '(6,2):(8,2)' '(4,3):(3,1)'
//
// Arguments use the notation of layout/print.hpp (and layout/parse.hpp): layouts SHAPE:STRIDE,
// tuples (2,(0,3)), `_` for CuTe's underscore (and for X in a Step); tma_partition also reads
// swizzled layouts (Sw<B,M,S> o L) and basis strides (1@0). The result is printed on one line of
// stdout (`show` prints a table, tma_partition two lines). Any error prints one line on stderr, naming the op and
// the argument at fault (quoting at most 80 characters of it), and exits with status 2; a value past
// 64 bits is such an error, never a wrapped answer.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "layout/access.hpp"
#include "layout/copy.hpp"
#include "layout/gmma.hpp"
#include "layout/layout.hpp"
#include "layout/mma.hpp"
#include "layout/parse.hpp"
#include "layout/print.hpp"
#include "layout/swizzle.hpp"
#include "layout/tma.hpp"
#include "tools/layout_draw.hpp"

namespace {

using loom::i64;
using loom::IntTuple;
using loom::Layout;
using loom::Tile;

constexpr int kExitError = 2;
// apply, show and swizzle refuse to enumerate more elements than this.
constexpr i64 kMaxElements = i64(1) << 20;

// An error attributed to one argument (0-based index), or to none (arg < 0); position is the
// 1-based character of the argument at fault, 0 when the error concerns it as a whole.
struct ArgError : std::runtime_error {
  int arg;
  size_t position;
  ArgError(int a, std::string const& msg, size_t pos = 0) : std::runtime_error(msg), arg(a), position(pos) {}
};

// Error messages quote at most this many characters of an argument or a value: a 100 KB argument
// must not come back as a 100 KB line.
constexpr size_t kQuoteLimit = 80;

// Text safe to quote on one line: control characters as \xNN.
std::string printable(std::string_view t) {
  std::string r;
  for (unsigned char c : t) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      r += buf;
    } else {
      r += char(c);
    }
  }
  return r;
}

// At most kQuoteLimit characters of t, around 1-based position pos when there is one, with "..."
// where text was left out.
std::string excerpt(std::string_view t, size_t pos = 0) {
  if (t.size() <= kQuoteLimit) return printable(t);
  size_t keep = kQuoteLimit - 6;
  size_t start = pos > keep / 2 ? pos - keep / 2 : 0;
  if (start + keep > t.size()) start = t.size() - keep;
  return (start > 0 ? "..." : "") + printable(t.substr(start, keep)) + (start + keep < t.size() ? "..." : "");
}
std::string excerpt(std::string const& t) { return excerpt(std::string_view(t)); }

struct Param {
  char const* name;
  char const* help;
  bool optional = false;
};

// An option of one op (--bytes=4, --latex): a switch takes no value.
struct Flag {
  char const* name;  // with the dashes
  char const* help;
  bool is_switch = false;
};

std::string join(std::vector<i64> const& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

// Product of the leaves, or false when it does not fit in 64 bits.
bool checked_size(IntTuple const& shape, i64& out) {
  i64 p = 1;
  for (int k = 0; k < shape.n; ++k) {
    if (shape.arity[k] >= 0 || (shape.flag[k] & IntTuple::kUnderscore)) continue;
    if (__builtin_mul_overflow(p, shape.val[k], &p)) return false;
  }
  out = p;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Notation beyond layout/parse.hpp (tma_partition): swizzled layouts and basis strides
// ---------------------------------------------------------------------------------------------

[[noreturn]] void parse_fail(std::string const& reason, size_t index, std::string_view text) {
  throw loom::ParseError(reason, index + 1, text);
}

size_t skip_ws(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  return i;
}

// Runs f on text[from..] and moves the positions of its ParseErrors to the whole text.
template <class F>
auto parse_tail(std::string_view text, size_t from, F&& f) -> decltype(f(std::string_view{})) {
  try {
    return f(text.substr(from));
  } catch (loom::ParseError const& e) {
    throw loom::ParseError(e.reason(), e.position() ? e.position() + from : 0, text);
  }
}

// An integer at text[i..] (optional '-', digits); i moves past it. False if there is none.
bool scan_integer(std::string_view t, size_t& i, i64& v) {
  size_t j = i;
  if (j < t.size() && t[j] == '-') ++j;
  size_t d = j;
  while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
  if (j == d) return false;
  v = parse_tail(t, i, [&](std::string_view s) { return loom::parse_integer(s.substr(0, j - i)); });
  i = j;
  return true;
}

// A shared-memory layout as CuTe prints one: L, Sw<B,M,S> o L, or Sw<B,M,S> o OFFSET o L (a
// ComposedLayout: the swizzle of OFFSET + L(c)). L may also be a bare shape.
struct SmemArg {
  loom::SwizzleLayout layout;
  bool swizzled = false;
};
SmemArg parse_smem_layout(std::string_view t) {
  SmemArg r;
  size_t i = skip_ws(t, 0);
  if (t.substr(i, 3) != "Sw<") {
    r.layout.layout = loom::parse_layout_or_shape(t);
    return r;
  }
  i += 3;
  i64 bms[3];
  for (int k = 0; k < 3; ++k) {
    i = skip_ws(t, i);
    if (!scan_integer(t, i, bms[k])) parse_fail("expected an integer in Sw<B,M,S>", i, t);
    i = skip_ws(t, i);
    char want = k < 2 ? ',' : '>';
    if (i >= t.size() || t[i] != want) parse_fail(std::string("expected '") + want + "' in Sw<B,M,S>", i, t);
    ++i;
  }
  for (i64 v : bms)
    if (v < -62 || v > 62) parse_fail("Sw<B,M,S> out of range", 0, t);
  r.layout.swizzle = loom::make_swizzle(int(bms[0]), int(bms[1]), int(bms[2]));
  r.swizzled = true;
  auto expect_o = [&] {
    i = skip_ws(t, i);
    if (i >= t.size() || t[i] != 'o') parse_fail("expected 'o' (composition) after the swizzle", i, t);
    ++i;
  };
  expect_o();
  // An integer followed by 'o' is the offset; anything else starts the layout.
  size_t j = skip_ws(t, i);
  i64 off = 0;
  size_t after = j;
  if (scan_integer(t, after, off) && skip_ws(t, after) < t.size() && t[skip_ws(t, after)] == 'o') {
    r.layout.offset = off;
    i = after;
    expect_o();
  }
  r.layout.layout = parse_tail(t, i, [](std::string_view s) { return loom::parse_layout_or_shape(s); });
  return r;
}

// A layout whose strides may carry bases: ((128,64),16):((1@1,1@0),64@0). v@j is v times the unit
// coordinate of mode j (CuTe's E<j>), j = 0..4.
Layout parse_coord_layout(std::string_view t) {
  size_t colon = t.find(':');
  size_t at = t.find('@');
  if (at == std::string_view::npos) return loom::parse_layout_or_shape(t);
  if (colon == std::string_view::npos || at < colon) parse_fail("a basis (v@j) is allowed in a stride only", at, t);
  // The stride without its "@j" suffixes, the basis of each integer in it, and where each kept
  // character came from (for error positions).
  std::string stripped(t.substr(0, colon + 1));
  std::vector<size_t> from;
  for (size_t k = 0; k <= colon; ++k) from.push_back(k);
  std::vector<int> bases;
  for (size_t i = colon + 1; i < t.size();) {
    char c = t[i];
    if (c == '@') parse_fail("expected an integer before '@'", i, t);
    if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i + 1;
      while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
      for (size_t k = i; k < j; ++k) {
        stripped += t[k];
        from.push_back(k);
      }
      int b = -1;
      if (j < t.size() && t[j] == '@') {
        size_t d = j + 1;
        if (d >= t.size() || t[d] < '0' || t[d] > '9') parse_fail("expected a mode number 0..4 after '@'", d, t);
        size_t e = d;
        while (e < t.size() && t[e] >= '0' && t[e] <= '9') ++e;
        if (e - d > 1 || t[d] > '4') parse_fail("a basis is a mode number 0..4 (TMA coordinates have 5 modes at most)", d, t);
        b = t[d] - '0';
        j = e;
      }
      bases.push_back(b);
      i = j;
      continue;
    }
    stripped += c;
    from.push_back(i);
    ++i;
  }
  Layout l;
  try {
    l = loom::parse_layout_or_shape(stripped);
  } catch (loom::ParseError const& e) {
    size_t p = e.position();
    size_t orig = p == 0 ? 0 : p - 1 < from.size() ? from[p - 1] + 1 : t.size() + 1;
    throw loom::ParseError(e.reason(), orig, t);
  }
  // The stride's integer leaves, in preorder, are the integers of the text in order.
  size_t n = 0;
  for (int k = 0; k < l.stride.n; ++k) {
    if (l.stride.arity[k] >= 0) continue;
    int b = n < bases.size() ? bases[n] : -1;
    ++n;
    if (b >= 0 && l.stride.val[k] != 0)
      l.stride.flag[k] = static_cast<unsigned char>((l.stride.flag[k] & (IntTuple::kDynamic | IntTuple::kUnderscore)) |
                                                    ((b + 1) << IntTuple::kBasisShift));
  }
  return l;
}

// The arguments of one op, with parsers that attribute their errors to the argument.
struct Args {
  std::vector<std::string> values;
  int blame = -1;  // argument that errors thrown by the core are attributed to; -1 for none

  bool has(int k) const { return k < int(values.size()); }

  // The op's options that were given (name with dashes -> value; "" for a switch), and the
  // warnings the op leaves for stderr (CuTe's answer printed, but it breaks the op's contract).
  std::map<std::string, std::string> flags;
  std::vector<std::string> warnings;
  bool flag(std::string const& name) const { return flags.count(name) > 0; }
  void warn(std::string w) {
    if (!w.empty()) warnings.push_back(std::move(w));
  }

  // Ops other than size and rank take no layout with an empty tuple in its shape: CuTe 4.7.0 fails
  // to compile nearly all of them (composition of (4,()):(1,()) is one it takes), and where the core
  // answered, it guessed (depth ():() was 1, local_partition with the threads ():() answered).
  bool allow_empty_modes = false;

  [[noreturn]] void fail(int k, std::string const& msg, size_t pos = 0) const { throw ArgError(k, msg, pos); }

  template <class F>
  auto parse(int k, F&& f) const -> decltype(f(std::string_view{})) {
    try {
      return f(values[size_t(k)]);
    } catch (loom::ParseError const& e) {
      fail(k, e.brief(), e.position());
    } catch (loom::LayoutError const& e) {
      fail(k, e.what());
    }
  }

  void check_shape(int k, IntTuple const& shape) const {
    i64 n;
    if (!checked_size(shape, n)) fail(k, "the size of " + excerpt(loom::to_string(shape)) + " does not fit in 64 bits");
  }
  void check_layout_shape(int k, IntTuple const& shape) const {
    check_shape(k, shape);
    if (allow_empty_modes) return;
    for (int i = 0; i < shape.n; ++i)
      if (shape.arity[i] == 0) {
        std::string const& t = values[size_t(k)];
        size_t p = t.find('(');
        while (p != std::string::npos) {  // the first '(' followed by ')', blanks aside
          size_t q = t.find_first_not_of(" \t\r\n", p + 1);
          if (q != std::string::npos && t[q] == ')') break;
          p = t.find('(', p + 1);
        }
        size_t pos = p == std::string::npos ? 0 : p + 1;
        fail(k, std::string("a layout with an empty tuple () in its shape") + (pos ? " at position " + std::to_string(pos) : "") +
                    " (CuTe has no such layout here)", pos);
      }
  }

  Layout layout(int k) const {
    Layout l = parse(k, [](std::string_view s) { return loom::parse_layout(s); });
    check_layout_shape(k, l.shape);
    return l;
  }
  Layout layout_or_shape(int k) const {
    Layout l = parse(k, [](std::string_view s) { return loom::parse_layout_or_shape(s); });
    check_layout_shape(k, l.shape);
    return l;
  }
  Tile tiler(int k) const {
    Tile t = parse(k, [](std::string_view s) { return loom::parse_tiler(s); });
    for (int i = 0; i < t.count; ++i)
      if (t.kind[i] == Tile::kLayout) check_layout_shape(k, t.elem[i].shape);
    return t;
  }
  IntTuple shape(int k) const {
    IntTuple s = parse(k, [](std::string_view s) { return loom::parse_shape(s); });
    check_shape(k, s);
    return s;
  }
  IntTuple tuple(int k) const {
    return parse(k, [](std::string_view s) { return loom::parse_int_tuple(s); });
  }
  IntTuple stride(int k) const {
    return parse(k, [](std::string_view s) { return loom::parse_stride(s); });
  }
  IntTuple coord(int k, bool allow_underscore) const {
    return parse(k, [&](std::string_view s) { return loom::parse_coord(s, allow_underscore); });
  }
  i64 integer(int k) const {
    return parse(k, [](std::string_view s) { return loom::parse_integer(s); });
  }
  SmemArg smem_layout(int k) const {
    SmemArg r = parse(k, [](std::string_view s) { return parse_smem_layout(s); });
    check_layout_shape(k, r.layout.layout.shape);
    return r;
  }
  Layout coord_layout(int k) const {
    Layout l = parse(k, [](std::string_view s) { return parse_coord_layout(s); });
    check_layout_shape(k, l.shape);
    return l;
  }
};

// Does coordinate c follow the modes of shape s? An integer fits any (sub)shape, whatever its value:
// CuTe splits it colexicographically and lets the last mode take what remains, so values past the
// size are not errors. A tuple must have the rank of the shape's mode, recursively.
bool coord_fits(IntTuple const& c, IntTuple const& s) {
  if (loom::is_leaf(c)) return true;
  if (loom::is_leaf(s) || loom::rank(c) != loom::rank(s)) return false;
  for (int i = 0; i < loom::rank(c); ++i)
    if (!coord_fits(loom::get(c, i), loom::get(s, i))) return false;
  return true;
}

void check_coord_profile(Args const& a, int k, IntTuple const& c, IntTuple const& s, char const* what) {
  if (!coord_fits(c, s))
    a.fail(k, "coordinate " + excerpt(loom::to_string(c)) + " does not follow the modes of " + what + " " +
                  excerpt(loom::to_string(s)));
}

i64 enumerable_size(Args const& a, int k, Layout const& l) {
  i64 n = loom::size(l).v;
  if (n > kMaxElements)
    a.fail(k, "the layout has " + std::to_string(n) + " elements, more than the limit of " +
                  std::to_string(kMaxElements));
  return n;
}

// ---------------------------------------------------------------------------------------------
// Ops
// ---------------------------------------------------------------------------------------------

struct Op {
  char const* name;
  std::vector<Param> params;
  char const* prints;
  char const* example;
  std::function<std::string(Args&)> run;
  char const* notes = nullptr;  // more for `OP --help`, after the example
  std::vector<Flag> flags = {};
};

std::string print(Layout const& l) { return loom::to_string(l); }
std::string print(loom::OffsetLayout const& l) { return loom::to_string(l); }
std::string print(IntTuple const& t) { return loom::to_string(t); }
std::string print(i64 v) { return std::to_string(v); }

const Param kL{"L", "layout SHAPE:STRIDE, e.g. (4,8):(1,4)"};
const Param kA{"A", "layout SHAPE:STRIDE"};
const Param kTiler{"TILER", "layout, shape such as (4,8), or tuple of layouts/integers/_ such as (3:3,(2,4):(1,8))"};
const Param kBTiler{"B", "layout, shape, or tuple of layouts/integers/_ (a tiler)"};

// ---------------------------------------------------------------------------------------------
// Contracts: where CuTe 4.7.0's answer breaks the op's own postcondition, loom-layout still prints
// it (users check CuTe's behaviour with this tool) and adds one warning line on stderr.
// ---------------------------------------------------------------------------------------------

// A check never turns an answer into an error: one that cannot evaluate its own points (an offset
// past 64 bits, say) says nothing.
template <class F>
std::string quietly(F&& f) {
  try {
    return f();
  } catch (loom::LayoutError const&) {
    return "";
  }
}

// Points checked per property: enough for any layout one draws or reads, bounded for huge ones
// (past it the check looks at the first kMaxChecked points only).
constexpr i64 kMaxChecked = i64(1) << 16;

// "R(i) = x, but A(B(i)) = y" for the first i < size(b) where r and a o b differ, or "".
// Only points that b maps into a's domain count: past it CuTe extends a as it likes.
std::string composition_mismatch(Layout const& r, Layout const& a, Layout const& b, char const* rname = "R") {
  i64 n = std::min(loom::size(b).v, kMaxChecked);
  i64 na = loom::size(a).v;
  for (i64 i = 0; i < n; ++i) {
    i64 bi = b(IntTuple(i));
    if (bi < 0 || bi >= na) continue;
    i64 want = a(IntTuple(bi)), got = r(IntTuple(i));
    if (want != got)
      return std::string(rname) + "(" + std::to_string(i) + ") = " + std::to_string(got) + ", but A(B(" +
             std::to_string(i) + ")) = A(" + std::to_string(bi) + ") = " + std::to_string(want);
  }
  return "";
}

// Composition with a tiler, mode by mode: r is composition(a, t).
std::string compose_tiler_mismatch(Layout const& r, Layout const& a, Tile const& t) {
  if (t.is_tuple()) {
    for (int i = 0; i < t.rank(); ++i) {
      std::string m = compose_tiler_mismatch(loom::get(r, i), loom::get(a, i), loom::get(t, i));
      if (!m.empty()) return "in mode " + std::to_string(i) + ", " + m;
    }
    return "";
  }
  if (t.is_underscore()) return "";
  Layout b = t.leaf_kind() == Tile::kInt ? loom::make_layout(t.leaf().shape) : t.leaf();
  return composition_mismatch(r, a, b);
}

// logical_divide(a, t) is a o (B, B*) at every leaf B of the tiler, B* its complement in the shape
// of coalesce(a); logical_product(a, t) is (a, C o B), C the complement of a in size(a)*cosize(B).
std::string divide_mismatch(Layout const& r, Layout const& a, Tile const& t) {
  if (t.is_tuple()) {
    for (int i = 0; i < t.rank(); ++i) {
      std::string m = divide_mismatch(loom::get(r, i), loom::get(a, i), loom::get(t, i));
      if (!m.empty()) return "in mode " + std::to_string(i) + ", " + m;
    }
    return "";
  }
  if (t.is_underscore()) return "";
  Layout b = t.leaf_kind() == Tile::kInt ? loom::make_layout(t.leaf().shape) : t.leaf();
  Layout full = loom::make_layout(b, loom::complement(b, loom::coalesce(a).shape));
  return composition_mismatch(r, a, full);
}
std::string product_mismatch(Layout const& r, Layout const& a, Tile const& t) {
  if (t.is_tuple()) {
    for (int i = 0; i < t.rank(); ++i) {
      std::string m = product_mismatch(loom::get(r, i), loom::get(a, i), loom::get(t, i));
      if (!m.empty()) return "in mode " + std::to_string(i) + ", " + m;
    }
    return "";
  }
  if (t.is_underscore()) return "";
  Layout b = t.leaf_kind() == Tile::kInt ? loom::make_layout(t.leaf().shape) : t.leaf();
  Layout c = loom::complement(a, IntTuple(loom::size(a) * loom::cosize(b)));
  std::string m = composition_mismatch(loom::get(r, 1), c, b, "R1");
  return m.empty() ? "" : m + " (A here is the complement of the block)";
}

std::string divide_warning(char const* op, Layout const& l, Tile const& t) {
  return quietly([&]() -> std::string {
    std::string m = divide_mismatch(loom::logical_divide(l, t), l, t);
    if (m.empty()) return "";
    return std::string(op) + ": the result is not A composed with (B, complement of B) point-wise: " + m +
           " (B's stride falls inside a mode of A without dividing it)";
  });
}

// get_hier_coord (and so get_flat_coord, get_1d_coord and local_partition's thread index): the
// coordinate c of index idx maps back to it, L(c) == idx, CuTe's postcondition. It holds for every
// index of a layout whose coordinates can be read back from its offsets (coords_from_offsets:
// ordered by stride, each stride a multiple of the extent below it), and such a layout never warns
// (an index past its size wraps, as in CuTe). Another layout (not injective, or with strides that
// do not chain) warns where this index's coordinate misses.
std::string coord_warning(char const* op, char const* what, Layout const& l, i64 idx) {
  return quietly([&]() -> std::string {
    if (loom::coords_from_offsets(l)) return "";
    IntTuple c = loom::get_hier_coord(l, idx);
    std::string const head = std::string(op) + ": " + what + "'s coordinates cannot be read back from its offsets " +
                             "(ordered by stride, each a multiple of the extent below it), and index " +
                             std::to_string(idx) + "'s coordinate " + loom::to_string(c);
    IntTuple fc = loom::flatten(loom::wrap(c)), fs = loom::flatten(loom::wrap(l.shape));
    for (int i = 0; i < loom::rank(fc); ++i) {
      i64 ci = loom::value(loom::get(fc, i)), si = loom::value(loom::get(fs, i));
      if (ci < 0 || ci >= si) return head + " lies outside the shape " + loom::to_string(l.shape);
    }
    i64 back = l(c);
    if (back == idx) return "";
    return head + " maps back to " + std::to_string(back) + ", not to " + std::to_string(idx);
  });
}

// left_inverse: R(A(i)) == i on A's domain, which needs an injective A.
std::string left_inverse_warning(Layout const& a, Layout const& r) {
  return quietly([&]() -> std::string {
    i64 n = std::min(loom::size(a).v, kMaxChecked);
    std::map<i64, i64> first;
    for (i64 i = 0; i < n; ++i) {
      i64 ai = a(IntTuple(i));
      auto [it, fresh] = first.emplace(ai, i);
      if (!fresh)
        return "left_inverse: A is not injective (A(" + std::to_string(it->second) + ") = A(" + std::to_string(i) +
               ") = " + std::to_string(ai) + "), so no R has R(A(i)) = i; here R(A(" + std::to_string(i) +
               ")) = " + std::to_string(r(IntTuple(ai)));
    }
    for (i64 i = 0; i < n; ++i) {
      i64 back = r(IntTuple(a(IntTuple(i))));
      if (back != i)
        return "left_inverse: R(A(" + std::to_string(i) + ")) = " + std::to_string(back) + ", not " + std::to_string(i);
    }
    return "";
  });
}
// right_inverse: A(R(i)) == i for i < size(R).
std::string right_inverse_warning(Layout const& a, Layout const& r) {
  return quietly([&]() -> std::string {
    i64 n = std::min(loom::size(r).v, kMaxChecked);
    for (i64 i = 0; i < n; ++i) {
      i64 v = a(IntTuple(r(IntTuple(i))));
      if (v != i) return "right_inverse: A(R(" + std::to_string(i) + ")) = " + std::to_string(v) + ", not " + std::to_string(i);
    }
    return "";
  });
}
// complement: (filter(A), R) is injective, so R's offsets never meet A's (other than at 0).
// Stride-0 and size-1 modes of A do not count: the complement is that of filter(A).
std::string complement_warning(Layout const& a, Layout const& r) {
  return quietly([&]() -> std::string {
    Layout both = loom::make_layout(loom::filter(a), r);
    i64 n = std::min(loom::size(both).v, kMaxChecked);
    std::map<i64, i64> first;
    for (i64 i = 0; i < n; ++i) {
      i64 v = both(IntTuple(i));
      auto [it, fresh] = first.emplace(v, i);
      if (!fresh)
        return "complement: (filter(A), R) is not injective, so R meets A's offsets: index " + std::to_string(it->second) +
               " and " + std::to_string(i) + " of (filter(A), R) both give " + std::to_string(v);
    }
    return "";
  });
}

// The atoms by name: fma, sm80_16x8x16, and the wgmma atoms sm90_64xNx16 (16-bit inputs) and
// sm90_64xNx32 (8-bit inputs) for N a multiple of 8 from 8 to 256, A from shared memory, or from
// registers with the suffix _rs.
loom::MMAAtom atom_by_name(Args const& a, int k) {
  std::string const& n = a.values[size_t(k)];
  if (n == "fma") return loom::mma_atom_fma();
  if (n == "sm80_16x8x16") return loom::mma_atom_sm80_16x8x16();
  char const* known = "unknown MMA atom (known: fma, sm80_16x8x16, sm90_64xNx16 and sm90_64xNx32 with N = 8, 16, ..., 256, "
                      "and those with _rs, A from registers)";
  std::string_view t = n;
  if (t.substr(0, 8) != "sm90_64x") a.fail(k, known);
  t.remove_prefix(8);
  bool const rs = t.size() > 3 && t.substr(t.size() - 3) == "_rs";
  if (rs) t.remove_suffix(3);
  size_t x = t.find('x');
  if (x == std::string_view::npos || x == 0 || x > 3 || t.find_first_not_of("0123456789", 0) != x ||
      (t.substr(x + 1) != "16" && t.substr(x + 1) != "32") || t[0] == '0')
    a.fail(k, known);
  int const width = std::stoi(std::string(t.substr(0, x)));
  if (width < 8 || width > 256 || width % 8 != 0)
    a.fail(k, "wgmma N must be a multiple of 8 from 8 to 256, got " + std::to_string(width));
  loom::GmmaA const src = rs ? loom::GmmaA::kRegs : loom::GmmaA::kSmem;
  return t.substr(x + 1) == "16" ? loom::mma_atom_sm90_64xNx16(width, src) : loom::mma_atom_sm90_64xNx32(width, src);
}

// gmma_atom: CuTe's GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T> for a T of BITS bits, in
// Loom's notation (the swizzle on element offsets).
std::string gmma_atom_op(Args& a) {
  std::string const& m = a.values[0];
  if (m != "k" && m != "mn") a.fail(0, "MAJOR must be k or mn, got '" + excerpt(m) + "'");
  std::string const& w = a.values[1];
  loom::GmmaSwizzle sw = loom::GmmaSwizzle::kInterleave;
  if (w == "sw32") sw = loom::GmmaSwizzle::k32B;
  else if (w == "sw64") sw = loom::GmmaSwizzle::k64B;
  else if (w == "sw128") sw = loom::GmmaSwizzle::k128B;
  else if (w != "inter") a.fail(1, "SWIZZLE must be inter, sw32, sw64 or sw128, got '" + excerpt(w) + "'");
  i64 bits = a.integer(2);
  if (bits != 8 && bits != 16 && bits != 32) a.fail(2, "BITS must be 8, 16 or 32 (the wgmma input widths), got " + std::to_string(bits));
  loom::SwizzleLayout l = loom::gmma_atom(m == "k" ? loom::GmmaMajor::kK : loom::GmmaMajor::kMN, sw, int(bits));
  return "Sw<" + std::to_string(l.swizzle.bits) + "," + std::to_string(l.swizzle.base) + "," +
         std::to_string(l.swizzle.shift) + "> o " + print(l.layout);
}

std::string partition(Args& a, char which) {
  loom::MMAAtom atom = atom_by_name(a, 0);
  Layout atom_layout = a.layout_or_shape(1);
  if (loom::rank(atom_layout) > 3) a.fail(1, "the atom layout has more than 3 modes");
  Tile perm = loom::make_tile(loom::_, loom::_, loom::_);
  if (a.values[2] != "_") {
    perm = a.tiler(2);
    if (perm.is_tuple() && perm.rank() > 3) a.fail(2, "the permutation has more than 3 modes");
  }
  // The tensor is the one a kernel partitions: its shape and strides are run-time ints, as in
  // make_layout(make_shape(M, N), make_stride(ldm, 1)) with int M, N, ldm (CuTe keeps more of the
  // rest modes' nesting then than for Int<N> values). A bare shape is make_layout(shape), whose
  // leading stride is CuTe's static 1.
  Layout tensor = a.layout_or_shape(3);
  tensor = a.values[3].find(':') == std::string::npos
               ? loom::make_layout(loom::make_dynamic(tensor.shape))
               : loom::make_layout(loom::make_dynamic(tensor.shape), loom::make_dynamic(tensor.stride));
  i64 thr = a.integer(4);
  a.blame = 1;
  loom::TiledMMA tiled = loom::make_tiled_mma(atom, atom_layout, perm);
  a.blame = 3;
  loom::ThrMMA slice = tiled.get_slice(thr);
  a.warn(quietly([&]() -> std::string {
    // The divides and the composition of thrfrg, each checked against its definition.
    int x = which == 'B' ? 1 : 0, y = which == 'C' ? 1 : 2;
    Layout const& tv = which == 'A' ? atom.a_tv : which == 'B' ? atom.b_tv : atom.c_tv;
    Tile t_tile = loom::make_tile(tiled.permutation_mnk(x), tiled.permutation_mnk(y));
    Layout t_perm = loom::logical_divide(tensor, t_tile);
    std::string m = divide_mismatch(t_perm, tensor, t_tile);
    char const* step = "dividing the tensor by the permutation";
    if (m.empty()) {
      Tile atom_tile = loom::make_tile(loom::make_layout(loom::get(atom.shape_mnk, x)), loom::make_layout(loom::get(atom.shape_mnk, y)));
      m = divide_mismatch(loom::logical_divide(t_perm, atom_tile), t_perm, atom_tile);
      step = "dividing the permuted tensor by the atom";
      if (m.empty()) {
        Layout t_atom = loom::zipped_divide(t_perm, atom_tile);
        Tile tv_tile = loom::make_tile(tv, loom::_);
        m = compose_tiler_mismatch(loom::composition(t_atom, tv_tile), t_atom, tv_tile);
        step = "composing the atom's TV layout";
      }
    }
    return m.empty() ? "" : std::string("partition: ") + step + " breaks composition: " + m;
  }));
  switch (which) {
    case 'A': return print(slice.partition_A(tensor));
    case 'B': return print(slice.partition_B(tensor));
    default: return print(slice.partition_C(tensor));
  }
}

// ---------------------------------------------------------------------------------------------
// Memory access analysis (bank_conflicts, coalescing)
// ---------------------------------------------------------------------------------------------

int access_bytes(Args const& a, char const* def) {
  std::string v = a.flag("--bytes") ? a.flags.at("--bytes") : def;
  if (v != "1" && v != "2" && v != "4" && v != "8" && v != "16")
    a.fail(-1, "--bytes: expected 1, 2, 4, 8 or 16 (bytes one thread accesses per instruction), got '" + excerpt(v) + "'");
  return std::stoi(v);
}

// THREAD_LAYOUT: (thread, value[, instruction...]) -> index in the memory layout's domain.
struct AccessSetup {
  loom::TvAccesses acc;
  int elem_bytes = 0;
};
AccessSetup access_setup(Args const& a, Layout const& mem_layout, Layout const& tv, int bytes,
                         std::function<i64(i64)> const& offset) {
  i64 values = loom::rank(tv) >= 2 ? loom::size(loom::get(tv, 1)).v : 1;
  if (bytes % values != 0)
    a.fail(1, "mode 1 (the values of one access) has " + std::to_string(values) + " values, which do not divide --bytes=" +
                  std::to_string(bytes));
  int elem = int(bytes / values);
  if (loom::size(tv).v > kMaxElements) a.fail(1, "more than " + std::to_string(kMaxElements) + " accesses");
  i64 dom = loom::size(mem_layout).v;
  for (i64 i = 0; i < loom::size(tv).v; ++i) {
    i64 x = tv(IntTuple(i));
    if (x < 0 || x >= dom)
      a.fail(1, "index " + std::to_string(i) + " maps to " + std::to_string(x) + ", outside the memory layout's " +
                    std::to_string(dom) + " coordinates");
  }
  AccessSetup s;
  s.elem_bytes = elem;
  try {
    s.acc = loom::tv_accesses(tv, elem, offset);
  } catch (loom::LayoutError const& e) {
    a.fail(1, std::string(e.what()) + " (" + std::to_string(elem) + "-byte elements, " + std::to_string(values) +
                  " per access)");
  }
  return s;
}

std::string header_line(AccessSetup const& s) {
  return std::to_string(s.acc.threads) + " threads (" + std::to_string(s.acc.warps()) + (s.acc.warps() == 1 ? " warp), " : " warps), ") +
         std::to_string(s.acc.instrs) + " instruction(s) each, " + std::to_string(s.acc.bytes) + "-byte accesses of " +
         std::to_string(s.acc.values) + " x " + std::to_string(s.elem_bytes) + "-byte elements";
}

// Per-instruction rows beyond this many are summarised in one line.
constexpr size_t kMaxRows = 64;

std::string bank_conflicts(Args& a) {
  loom::SwizzleLayout mem;
  SmemArg sm = a.smem_layout(0);
  mem = sm.layout;
  Layout tv = a.layout(1);
  int bytes = access_bytes(a, "4");
  if (a.flag("--swizzle")) {
    if (sm.swizzled) a.fail(0, "the layout has a swizzle already, and --swizzle gives another");
    std::string const& v = a.flags.at("--swizzle");
    int b, m, sh;
    char tail;
    if (std::sscanf(v.c_str(), "%d,%d,%d%c", &b, &m, &sh, &tail) != 3 || b < 0 || b > 23 || m < 0 || m > 31 ||
        std::abs(sh) < b || b + m + std::abs(sh) > 61)
      a.fail(-1, "--swizzle: expected B,M,S as for 'swizzle' (0 <= B <= 23, 0 <= M <= 31, B <= |S|, B+M+|S| <= 61), got '" +
                     excerpt(v) + "'");
    mem.swizzle = loom::make_swizzle(b, m, sh);
  }
  AccessSetup s = access_setup(a, mem.layout, tv, bytes, [&](i64 i) { return mem.swizzle(mem.offset + mem.layout(IntTuple(i))); });
  a.blame = 1;
  loom::SharedReport r = loom::shared_report(s.acc);
  std::string out = header_line(s) + "\ninstr warp wavefronts ideal\n";
  i64 warps = s.acc.warps();
  for (size_t k = 0; k < r.per.size() && k < kMaxRows; ++k) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%5lld %4lld %10lld %5lld%s\n", (long long)(i64(k) / warps), (long long)(i64(k) % warps),
                  (long long)r.per[k].wavefronts, (long long)r.per[k].ideal, r.per[k].excess() ? "  conflict" : "");
    out += buf;
  }
  if (r.per.size() > kMaxRows) {
    i64 worse = 0;
    for (size_t k = kMaxRows; k < r.per.size(); ++k) worse += r.per[k].excess() > 0;
    out += "... " + std::to_string(r.per.size() - kMaxRows) + " more, " + std::to_string(worse) + " of them with conflicts\n";
  }
  i64 ex = r.total.excess();
  out += "total: " + std::to_string(r.total.wavefronts) + " wavefronts, ideal " + std::to_string(r.total.ideal) + ", " +
         (ex == 0 ? std::string("conflict-free")
                  : std::to_string(ex) + " bank conflicts (" +
                        std::to_string(double(r.total.wavefronts) / double(r.total.ideal)).substr(0, 4) + "x the ideal)");
  return out;
}

std::string coalescing(Args& a) {
  Layout g = a.layout(0);
  Layout tv = a.layout(1);
  int bytes = access_bytes(a, "4");
  AccessSetup s = access_setup(a, g, tv, bytes, [&](i64 i) { return g(IntTuple(i)); });
  a.blame = 1;
  loom::GlobalReport r = loom::global_report(s.acc);
  std::string out = header_line(s) + " (the base 128-byte aligned)\ninstr warp sectors ideal lines ideal\n";
  i64 warps = s.acc.warps();
  for (size_t k = 0; k < r.per.size() && k < kMaxRows; ++k) {
    char buf[96];
    loom::GlobalCost const& c = r.per[k];
    std::snprintf(buf, sizeof buf, "%5lld %4lld %7lld %5lld %5lld %5lld%s\n", (long long)(i64(k) / warps),
                  (long long)(i64(k) % warps), (long long)c.sectors, (long long)c.sectors_ideal, (long long)c.lines,
                  (long long)c.lines_ideal, c.sectors > c.sectors_ideal ? "  uncoalesced" : "");
    out += buf;
  }
  if (r.per.size() > kMaxRows) out += "... " + std::to_string(r.per.size() - kMaxRows) + " more\n";
  loom::GlobalCost const& t = r.total;
  out += "total: " + std::to_string(t.sectors) + " sectors (ideal " + std::to_string(t.sectors_ideal) + "), " +
         std::to_string(t.lines) + " lines (ideal " + std::to_string(t.lines_ideal) + "), " +
         (t.sectors == t.sectors_ideal ? std::string("coalesced")
                                       : std::to_string(t.sectors - t.sectors_ideal) + " sectors more than ideal");
  return out;
}

// ---------------------------------------------------------------------------------------------
// draw
// ---------------------------------------------------------------------------------------------

// Cells in one picture: beyond this the SVG is unreadable and large.
constexpr i64 kMaxCells = 1 << 16;

std::string draw(Args& a) {
  std::vector<loom_draw::Panel> panels;
  std::string const& kind = a.values[0];
  auto check_cells = [&](int k, i64 n) {
    if (n > kMaxCells) a.fail(k, "the picture would have " + std::to_string(n) + " cells, more than " + std::to_string(kMaxCells));
  };
  if (kind == "mma") {
    if (!a.has(3) || a.has(4)) a.fail(-1, "expected 'draw mma ATOM ATOM_LAYOUT PERMUTATION'");
    // The partition ops' parsers, on the arguments after "mma" (their errors name the argument here).
    Args sub = a;
    sub.values.erase(sub.values.begin());
    loom::MMAAtom atom;
    Layout atom_layout;
    Tile perm = loom::make_tile(loom::_, loom::_, loom::_);
    try {
      atom = atom_by_name(sub, 0);
      atom_layout = sub.layout_or_shape(1);
      if (loom::rank(atom_layout) > 3) sub.fail(1, "the atom layout has more than 3 modes");
      if (sub.values[2] != "_") perm = sub.tiler(2);
    } catch (ArgError const& e) {
      throw ArgError(e.arg + 1, e.what(), e.position);
    }
    a.blame = 2;
    loom::TiledMMA mma = loom::make_tiled_mma(atom, atom_layout, perm);
    i64 M = mma.tile_size_mnk(0), N = mma.tile_size_mnk(1), K = mma.tile_size_mnk(2);
    check_cells(3, M * N + M * K + N * K);
    // C below B and right of A, as the product reads: A is M x K, B is drawn K x N.
    panels.push_back(loom_draw::tv_panel(mma.get_layoutA_TV(), M, K, "A (M x K)", false, K + 2, 0));
    panels.push_back(loom_draw::tv_panel(mma.get_layoutB_TV(), N, K, "B (K x N)", true, 0, K + 2));
    panels.push_back(loom_draw::tv_panel(mma.get_layoutC_TV(), M, N, "C (M x N)", false, K + 2, K + 2));
  } else if (kind == "copy") {
    if (!a.has(2) || a.has(3)) a.fail(-1, "expected 'draw copy THR_LAYOUT VAL_LAYOUT'");
    Layout thr = a.layout_or_shape(1);
    Layout val = a.layout_or_shape(2);
    a.blame = 1;
    loom::TiledCopy c = loom::make_tiled_copy(loom::copy_atom(1), thr, val);
    i64 M = loom::size(loom::get(c.tiler, 0)).v, N = loom::rank(c.tiler) > 1 ? loom::size(loom::get(c.tiler, 1)).v : 1;
    check_cells(1, 2 * M * N);
    panels.push_back(loom_draw::tv_panel(c.get_layoutS_TV(), M, N, "S (source)", false, 0, 0));
    panels.push_back(loom_draw::tv_panel(c.get_layoutD_TV(), M, N, "D (destination)", false, 0, N + 2));
  } else {
    Layout l = a.layout_or_shape(0);
    if (!a.has(1)) {
      if (loom::rank(l) > 2) a.fail(0, "a layout of rank " + std::to_string(loom::rank(l)) + ": draw takes rank 1 or 2 (group modes first)");
      check_cells(0, loom::size(l).v);
      a.blame = 0;
      panels.push_back(loom_draw::layout_panel(l, loom::to_string(l)));
    } else {
      if (a.has(2)) a.fail(2, "draw takes LAYOUT [TILE_SHAPE], or 'mma' or 'copy' and their arguments");
      IntTuple tile = a.shape(1);
      if (loom::rank(tile) > 2) a.fail(1, "the tile has more than 2 modes");
      i64 M = loom::size(loom::get(tile, 0)).v, N = loom::rank(tile) > 1 ? loom::size(loom::get(tile, 1)).v : 1;
      check_cells(1, M * N);
      if (loom::rank(l) < 2) a.fail(0, "a TV layout has a thread mode and a value mode: (THR,VAL):(...)");
      i64 bad = loom_draw::tv_outside(l, M * N);
      if (bad >= 0)
        a.fail(0, "index " + std::to_string(bad) + " maps to " + std::to_string(l(IntTuple(bad))) + ", outside the " +
                      std::to_string(M) + " x " + std::to_string(N) + " tile");
      a.blame = 0;
      panels.push_back(loom_draw::tv_panel(l, M, N, loom::to_string(l) + " over " + loom::to_string(tile)));
    }
  }
  std::string doc = a.flag("--latex") ? loom_draw::to_latex(panels) : loom_draw::to_svg(panels);
  if (a.flag("--output")) {
    std::string const& path = a.flags.at("--output");
    std::ofstream f(path, std::ios::binary);
    if (!f) a.fail(-1, "--output: cannot open '" + excerpt(path) + "' for writing");
    f << doc << '\n';
    f.close();
    if (!f) a.fail(-1, "--output: cannot write '" + excerpt(path) + "'");
    return "wrote " + path;
  }
  return doc;
}

template <class F>
Op divide_or_product(char const* name, char const* example, F f) {
  bool product = std::string_view(name).find("product") != std::string_view::npos;
  return {name, {kA, product ? kBTiler : kTiler}, "a layout", example, [f, product, name](Args& a) {
            Layout l = a.layout(0);
            Tile t = a.tiler(1);
            a.blame = 1;
            try {
              std::string r = print(f(l, t));
              if (!product) {
                a.warn(divide_warning(name, l, t));
              } else {
                std::string m = quietly([&] { return product_mismatch(loom::logical_product(l, t), l, t); });
                if (!m.empty()) a.warn(std::string(name) + ": the block's complement composed with B breaks composition: " + m);
              }
              return r;
            } catch (loom::LayoutError const& e) {
              // A product takes the complement of A, a divide that of the tiler.
              if (product && std::string_view(e.what()).substr(0, 11) == "complement:") a.fail(0, e.what());
              throw;
            }
          }};
}

std::vector<Op> make_ops() {
  std::vector<Op> ops;
  ops.push_back({"size", {kL}, "an integer", "size '(4,8):(1,4)'", [](Args& a) {
                   a.allow_empty_modes = true;
                   return print(loom::size(a.layout(0)).v);
                 }});
  ops.push_back({"cosize", {kL}, "an integer", "cosize '(4,8):(1,8)'",
                 [](Args& a) {
                   Layout l = a.layout(0);
                   a.blame = 0;
                   return print(loom::cosize(l).v);
                 }});
  ops.push_back({"rank", {kL}, "an integer", "rank '((4,2),8):((1,32),4)'", [](Args& a) {
                   a.allow_empty_modes = true;
                   return print(i64(loom::rank(a.layout(0))));
                 }});
  ops.push_back({"depth", {kL}, "an integer", "depth '((4,2),8):((1,32),4)'",
                 [](Args& a) { return print(i64(loom::depth(a.layout(0)))); }});
  ops.push_back({"apply", {kL}, "L(0),...,L(size-1)", "apply '(2,3):(3,1)'", [](Args& a) {
                   Layout l = a.layout(0);
                   i64 n = enumerable_size(a, 0, l);
                   a.blame = 0;
                   std::vector<i64> v;
                   v.reserve(size_t(n));
                   for (i64 i = 0; i < n; ++i) v.push_back(l(IntTuple(i)));
                   return join(v);
                 }});
  ops.push_back({"coalesce",
                 {kL, {"PROFILE", "optional: coalesce only within the modes of this profile, e.g. (1,1)", true}},
                 "a layout", "coalesce '(2,(1,6)):(1,(6,2))' '(1,1)'", [](Args& a) {
                   Layout l = a.layout(0);
                   if (!a.has(1)) {
                     a.blame = 0;
                     return print(loom::coalesce(l));
                   }
                   IntTuple p = a.tuple(1);
                   a.blame = 1;
                   return print(loom::coalesce(l, p));
                 }});
  ops.push_back({"filter", {kL}, "a layout", "filter '(4,2,3):(1,0,8)'", [](Args& a) {
                   Layout l = a.layout(0);
                   a.blame = 0;
                   return print(loom::filter(l));
                 }});
  ops.push_back({"composition", {kA, kBTiler}, "a layout", "composition '(6,2):(8,2)' '(4,3):(3,1)'",
                 [](Args& a) {
                   Layout l = a.layout(0);
                   Tile t = a.tiler(1);
                   a.blame = 1;
                   Layout r = loom::composition(l, t);
                   std::string m = quietly([&] { return compose_tiler_mismatch(r, l, t); });
                   if (!m.empty())
                     a.warn("composition: R is not A o B point-wise: " + m + " (B's stride falls inside a mode of A without dividing it)");
                   return print(r);
                 }});
  ops.push_back({"complement",
                 {kA, {"COTARGET", "optional: integer or shape to complete A to (default: cosize(A))", true}},
                 "a layout", "complement '(2,2):(1,6)' 24", [](Args& a) {
                   Layout l = a.layout(0);
                   if (!a.has(1)) {
                     a.blame = 0;
                     Layout r = loom::complement(l);
                     a.warn(complement_warning(l, r));
                     return print(r);
                   }
                   IntTuple m = a.shape(1);
                   a.blame = 0;
                   Layout r = loom::complement(l, m);
                   a.warn(complement_warning(l, r));
                   return print(r);
                 }});
  ops.push_back({"right_inverse", {kL}, "a layout", "right_inverse '(4,8):(8,1)'", [](Args& a) {
                   Layout l = a.layout(0);
                   a.blame = 0;
                   Layout r = loom::right_inverse(l);
                   a.warn(right_inverse_warning(l, r));
                   return print(r);
                 }});
  ops.push_back({"left_inverse", {kL}, "a layout", "left_inverse '(4,2):(2,1)'", [](Args& a) {
                   Layout l = a.layout(0);
                   a.blame = 0;
                   Layout r = loom::left_inverse(l);
                   a.warn(left_inverse_warning(l, r));
                   return print(r);
                 }});
  ops.push_back(divide_or_product("logical_divide", "logical_divide '(4,2,3):(2,1,8)' 4:2",
                                  [](Layout const& l, Tile const& t) { return loom::logical_divide(l, t); }));
  ops.push_back(divide_or_product("zipped_divide", "zipped_divide '(256,32):(1,256)' '(32,8):(1,32)'",
                                  [](Layout const& l, Tile const& t) { return loom::zipped_divide(l, t); }));
  ops.push_back(divide_or_product("tiled_divide", "tiled_divide '(8,8):(1,8)' '(2,4)'",
                                  [](Layout const& l, Tile const& t) { return loom::tiled_divide(l, t); }));
  ops.push_back(divide_or_product("flat_divide", "flat_divide '(8,8):(1,8)' '(2,4)'",
                                  [](Layout const& l, Tile const& t) { return loom::flat_divide(l, t); }));
  ops.push_back(divide_or_product("logical_product", "logical_product '(2,2):(4,1)' 6:1",
                                  [](Layout const& l, Tile const& t) { return loom::logical_product(l, t); }));
  ops.push_back(divide_or_product("zipped_product", "zipped_product '(2,2):(1,2)' '(3:1,4:1)'",
                                  [](Layout const& l, Tile const& t) { return loom::zipped_product(l, t); }));
  ops.push_back(divide_or_product("tiled_product", "tiled_product '(2,2):(1,2)' '(3:1,4:1)'",
                                  [](Layout const& l, Tile const& t) { return loom::tiled_product(l, t); }));
  ops.push_back(divide_or_product("flat_product", "flat_product '(2,2):(1,2)' '(3:1,4:1)'",
                                  [](Layout const& l, Tile const& t) { return loom::flat_product(l, t); }));
  for (char const* name : {"blocked_product", "raked_product"}) {
    bool raked = name[0] == 'r';
    ops.push_back({name,
                   {{"A", "layout: the block"}, {"B", "layout: the arrangement of the blocks"}},
                   "a layout",
                   raked ? "raked_product '(2,5):(5,1)' '(3,4):(1,3)'" : "blocked_product '(2,5):(5,1)' '(3,4):(1,3)'",
                   [raked](Args& a) {
                     Layout b = a.layout(0);
                     Layout t = a.layout(1);
                     a.blame = 1;
                     try {
                       std::string r = print(raked ? loom::raked_product(b, t) : loom::blocked_product(b, t));
                       int R = std::max(loom::rank(b), loom::rank(t));
                       Layout bb = loom::append(b, R), tt = loom::append(t, R);
                       std::string m = quietly([&] { return product_mismatch(loom::logical_product(bb, Tile(tt)), bb, Tile(tt)); });
                       if (!m.empty()) a.warn(std::string(raked ? "raked_product" : "blocked_product") +
                                              ": the block's complement composed with B breaks composition: " + m);
                       return r;
                     } catch (loom::LayoutError const& e) {
                       if (std::string_view(e.what()).substr(0, 11) == "complement:") a.fail(0, e.what());
                       throw;
                     }
                   }});
  }
  ops.push_back({"crd2idx",
                 {{"COORD", "coordinate: an integer or a tuple following SHAPE"},
                  {"SHAPE", "shape, e.g. (4,8)"},
                  {"STRIDE", "stride congruent to SHAPE, e.g. (1,4)"}},
                 "an integer", "crd2idx '(1,2)' '(4,8)' '(1,4)'", [](Args& a) {
                   IntTuple c = a.coord(0, false);
                   IntTuple s = a.shape(1);
                   IntTuple d = a.stride(2);
                   if (!loom::congruent(s, d))
                     a.fail(2, "shape " + excerpt(print(s)) + " and stride " + excerpt(print(d)) + " are not congruent");
                   check_coord_profile(a, 0, c, s, "the shape");
                   a.blame = 0;
                   return print(loom::crd2idx(c, s, d).v);
                 }});
  ops.push_back({"idx2crd",
                 {{"IDX", "index: an integer (or a tuple following SHAPE)"}, {"SHAPE", "shape, e.g. (4,8)"}},
                 "a coordinate", "idx2crd 9 '(4,8)'", [](Args& a) {
                   IntTuple i = a.coord(0, false);
                   IntTuple s = a.shape(1);
                   check_coord_profile(a, 0, i, s, "the shape");
                   a.blame = 0;
                   return print(loom::idx2crd(i, s));
                 }});
  for (char const* name : {"get_hier_coord", "get_flat_coord", "get_1d_coord"}) {
    std::string n = name;
    ops.push_back({name,
                   {{"L", "layout SHAPE:STRIDE, e.g. compact (one whose coordinates do not follow from its offsets warns where the answer misses)"}, {"IDX", "an offset of L, e.g. in [0, size(L)) when L is compact"}},
                   n == "get_1d_coord" ? "an integer" : "a coordinate",
                   n == "get_hier_coord"   ? "get_hier_coord '(4,(2,4)):(1,(4,8))' 13"
                   : n == "get_flat_coord" ? "get_flat_coord '(4,(2,4)):(1,(4,8))' 13"
                                           : "get_1d_coord '(4,(2,4)):(8,(1,2))' 13",
                   [n](Args& a) {
                     Layout l = a.layout(0);
                     i64 idx = a.integer(1);
                     a.blame = 0;
                     a.warn(coord_warning(n.c_str(), "L", l, idx));
                     if (n == "get_hier_coord") return print(loom::get_hier_coord(l, idx));
                     if (n == "get_flat_coord") return print(loom::get_flat_coord(l, idx));
                     return print(loom::get_1d_coord(l, idx));
                   }});
  }
  ops.push_back({"local_tile",
                 {kL,
                  kTiler,
                  {"COORD", "coordinate of the tile, `_` keeps a mode, e.g. (1,0) or (1,_)"},
                  {"STEP", "optional: projection, `_` drops a tiler mode, e.g. (1,_,1)", true}},
                 "layout@offset", "local_tile '(8,8):(1,8)' '(4,4)' '(1,0)'", [](Args& a) {
                   Layout l = a.layout(0);
                   Tile t = a.tiler(1);
                   IntTuple c = a.coord(2, true);
                   bool step = a.has(3);
                   IntTuple st = step ? a.tuple(3) : IntTuple{};
                   Tile td = t;
                   IntTuple cd = c;
                   if (step) {
                     a.blame = 3;
                     td = loom::dice(st, t);
                     cd = loom::dice(st, c);
                     if (td.is_tuple() && td.rank() == 0) a.fail(3, "the step drops every mode of the tiler");
                   }
                   a.blame = 1;
                   Layout z = loom::zipped_divide(l, td);
                   IntTuple rest = loom::get(z.shape, 1);
                   // As in CuTe, a tile coordinate past the last tile is not an error: it only
                   // moves the offset. Its modes must follow those of the tiles.
                   if (loom::is_tuple(cd)) {
                     if (loom::rank(cd) > loom::rank(rest))
                       a.fail(2, "coordinate " + excerpt(print(c)) + " has more modes than the tiles " + excerpt(print(rest)));
                     for (int i = 0; i < loom::rank(cd); ++i)
                       if (!coord_fits(loom::get(cd, i), loom::get(rest, i)))
                         a.fail(2, "coordinate " + excerpt(print(c)) + " does not follow the modes of the tiles " + excerpt(print(rest)));
                   }
                   a.warn(divide_warning("local_tile", l, td));
                   return print(step ? loom::local_tile(l, t, c, st) : loom::local_tile(l, t, c));
                 }});
  ops.push_back({"local_partition",
                 {kL,
                  {"THR_LAYOUT", "layout of the threads, compact or with gaps, e.g. (2,4):(4,1)"},
                  {"THREAD_INDEX", "thread index in [0, size(THR_LAYOUT))"},
                  {"STEP", "optional: projection, `_` drops a thread mode, e.g. (1,_)", true}},
                 "layout@offset", "local_partition '(8,8):(1,8)' '(2,4):(4,1)' 5", [](Args& a) {
                   Layout l = a.layout(0);
                   Layout thr = a.layout(1);
                   i64 idx = a.integer(2);
                   a.blame = 1;
                   a.warn(divide_warning("local_partition", l, Tile(loom::product_each(thr.shape))));
                   a.warn(coord_warning("local_partition", "THR_LAYOUT", thr, idx));
                   if (!a.has(3)) {
                     a.blame = 1;
                     return print(loom::local_partition(l, thr, idx));
                   }
                   IntTuple st = a.tuple(3);
                   a.blame = 3;
                   return print(loom::local_partition(l, thr, idx, st));
                 }});
  ops.push_back({"swizzle",
                 {{"B", "number of mask bits, 0..23"},
                  {"M", "number of low bits kept, 0..31"},
                  {"S", "shift, B <= |S| and B + M + |S| <= 61; negative shifts left"},
                  {"N", "how many offsets to print, from 0 (at most 1048576)"}},
                 "sw(0),...,sw(N-1)", "swizzle 2 0 3 32", [](Args& a) {
                   i64 b = a.integer(0), m = a.integer(1), s = a.integer(2), n = a.integer(3);
                   // The ranges of loom::make_swizzle, checked here so that each names its argument.
                   if (b < 0 || b > 23) a.fail(0, "B must be in [0, 23]");
                   if (m < 0 || m > 31) a.fail(1, "M must be in [0, 31]");
                   if (s < -61 || s > 61 || (s < 0 ? -s : s) < b) a.fail(2, "|S| must be in [B, 61], B = " + std::to_string(b));
                   if (b + m + (s < 0 ? -s : s) > 61)
                     a.fail(2, "B + M + |S| must be at most 61 (the swizzle's bits fit in 62), got " +
                                   std::to_string(b + m + (s < 0 ? -s : s)));
                   if (n < 0 || n > kMaxElements)
                     a.fail(3, "N must be in [0, " + std::to_string(kMaxElements) + "]");
                   loom::Swizzle sw = loom::make_swizzle(int(b), int(m), int(s));
                   std::vector<i64> v;
                   v.reserve(size_t(n));
                   for (i64 x = 0; x < n; ++x) v.push_back(sw(x));
                   return join(v);
                 }});
  for (char const* name : {"partition_A", "partition_B", "partition_C"}) {
    char which = name[10];
    ops.push_back({name,
                   {{"ATOM", "MMA atom: fma, sm80_16x8x16, sm90_64xNx16 or sm90_64xNx32 (N = 8, 16, ..., 256; _rs: A from registers)"},
                    {"ATOM_LAYOUT", "layout of the atoms over (M,N,K), e.g. (2,2,1):(1,2,0)"},
                    {"PERMUTATION", "_ for none, or a tiler over (M,N,K), e.g. ((16,4):(4,1),(16,4):(4,1),_)"},
                    {"TENSOR_LAYOUT", which == 'A'   ? "layout (or shape) of the (M,K) tensor, its integers run-time ints"
                                      : which == 'B' ? "layout (or shape) of the (N,K) tensor, its integers run-time ints"
                                                     : "layout (or shape) of the (M,N) tensor, its integers run-time ints"},
                    {"THREAD_INDEX", "thread index in [0, size of the TiledMMA)"}},
                   "layout@offset",
                   which == 'A'   ? "partition_A fma '(16,16,1):(16,1,0)' '((16,4):(4,1),(16,4):(4,1),_)' '(128,8):(8,1)' 1"
                   : which == 'B' ? "partition_B fma '(16,16,1):(16,1,0)' '((16,4):(4,1),(16,4):(4,1),_)' '(128,8):(8,1)' 1"
                                  : "partition_C fma '(16,16,1):(16,1,0)' '((16,4):(4,1),(16,4):(4,1),_)' '(128,128):(128,1)' 1",
                   [which](Args& a) { return partition(a, which); },
                   "CuTe's make_tiled_mma(ATOM, ATOM_LAYOUT, PERMUTATION).get_slice(THREAD_INDEX).partition_X(tensor)\n"
                   "(CUTLASS 4.7.0); the offset after @ is that of the thread's first element. ATOM_LAYOUT and\n"
                   "PERMUTATION are static (Int<N>), as in a kernel; the tensor's shape and strides are run-time\n"
                   "ints, as a kernel's tensor is: (64,64):(64,1) is make_layout(make_shape(M, N), make_stride(ld, 1))\n"
                   "with int M = N = ld = 64, and a bare shape (64,64) is make_layout(make_shape(M, N)), whose\n"
                   "leading stride is CuTe's static 1. For such a tensor CuTe keeps more of the rest modes' nesting\n"
                   "than for Int<N> values, and a rest mode of extent 1 keeps its stride:\n"
                   "  loom-layout partition_C sm80_16x8x16 '(2,2,1)' '(32,32,16)' '(64,64):(64,1)' 0\n"
                   "  ((2,2),2,(2,2)):((1,512),2048,(16,32))@0\n"
                   "(an all-Int<N> tensor gives ((2,2),2,4):((1,512),2048,16)@0, the same function)."});
  }
  ops.push_back(
      {"tma_partition",
       {{"NUM_VAL_SRC", "values one TMA instruction moves: the atom's NumValSrc, the element count of the whole box "
                        "(also for a multicast atom), e.g. 8192 for a 128x64 box"},
        {"CTA_COORD", "this CTA's coordinate in CTA_LAYOUT, e.g. 0, 1 or (1,0)"},
        {"CTA_LAYOUT", "CTA coordinate -> multicast id: 1:0 without multicast, 2:1 for 2 CTAs"},
        {"SMEM", "smem layout ((TMA tile),Rest...): L, Sw<B,M,S> o L or Sw<B,M,S> o OFFSET o L"},
        {"GMEM", "gmem layout ((TMA tile),Rest...); strides may be coordinates v@j (v times the unit "
                 "coordinate of mode j, CuTe's E<j>), e.g. ((128,64),16):((1@1,1@0),64@0)"}},
       "two lines: smem (Sw<B,M,S> o OFFSET o L, or L@OFFSET), then gmem (L@OFFSET)",
       "tma_partition 8192 1 2:1 'Sw<3,3,3> o (((8,16),(64,1)),(1,3)):(((64,512),(1,0)),(0,8192))' "
       "'((128,64),16):((1@1,1@0),64@0)'",
       [](Args& a) {
         i64 n = a.integer(0);
         if (n < 1) a.fail(0, "NUM_VAL_SRC must be a positive integer");
         IntTuple c = a.coord(1, false);
         Layout cta = a.layout_or_shape(2);
         SmemArg sm = a.smem_layout(3);
         Layout g = a.coord_layout(4);
         if (!loom::detail::tma_coord_in(c, cta.shape))
           a.fail(1, "coordinate " + excerpt(print(c)) + " is outside CTA_LAYOUT " + excerpt(print(cta)) + " (size " +
                         std::to_string(loom::size(cta).v) + ")");
         Layout const& st = sm.layout.layout;
         i64 tile = loom::size(loom::get(st, 0)).v, gtile = loom::size(loom::get(g, 0)).v;
         if (tile % n != 0)
           a.fail(0, "NUM_VAL_SRC " + std::to_string(n) + " does not divide the TMA tile (mode 0 of SMEM, " +
                         std::to_string(tile) + " elements)");
         if (gtile != tile)
           a.fail(4, "mode 0 of GMEM has " + std::to_string(gtile) + " elements, mode 0 of SMEM (the TMA tile) " +
                         std::to_string(tile));
         a.blame = 3;
         loom::TmaPartition p = loom::tma_partition(n, c, cta, sm.layout, g);
         loom::Swizzle const& sw = p.smem.swizzle;
         std::string smem = sm.swizzled ? "Sw<" + std::to_string(sw.bits) + "," + std::to_string(sw.base) + "," +
                                              std::to_string(sw.shift) + "> o " + std::to_string(p.smem.offset) +
                                              " o " + print(p.smem.layout)
                                        : print(p.smem.layout) + "@" + std::to_string(p.smem.offset);
         return smem + "\n" + print(p.gmem) + "@" + print(p.gmem_offset);
       },
       "CuTe's tma_partition(atom, cta_coord, cta_layout, smem, gmem) (CUTLASS 4.7.0) on layouts; mode 0\n"
       "of SMEM and GMEM is the TMA tile (group the tile's modes first: ((BM,BK),stages)). The vector is\n"
       "right_inverse of SMEM's mode 0 without the swizzle, tiled to the tile's size; logical_divide by\n"
       "NUM_VAL_SRC splits it into (TMA,TMA_Iter), each tensor's mode 0 is composed with that and TMA and\n"
       "TMA_Iter are coalesced: ((TMA,TMA_Iter),Rest...). Multicast keeps the shapes and moves both bases\n"
       "by the value at TMA index CTA_LAYOUT(CTA_COORD) * (NUM_VAL_SRC / cosize(CTA_LAYOUT)) (the division\n"
       "truncates, as CuTe's does). Sw<B,M,S> o OFFSET o L is the swizzle of OFFSET + L(c): the smem\n"
       "offset is added before the swizzle, which only passes through (Loom's element-offset swizzle,\n"
       "Sw<3,3,3> for 16-bit 128B). The gmem offset is a coordinate when GMEM has basis strides, one\n"
       "entry per mode up to its largest basis. Offsets are from the bases of SMEM and GMEM. Lines print\n"
       "in argument order, smem first (CuTe returns gmem first).\n"
       "\n"
       "K-major bf16 A, 128-byte swizzle, CTA tile (128,64), 3 stages; the k tiles along 1@0:\n"
       "  loom-layout tma_partition 8192 0 1:0 \\\n"
       "    'Sw<3,3,3> o (((8,16),(64,1)),(1,3)):(((64,512),(1,0)),(0,8192))' '((128,64),16):((1@1,1@0),64@0)'\n"
       "  Sw<3,3,3> o 0 o ((8192,1),(1,3)):((1,0),(0,8192))\n"
       "  (((64,128),1),16):(((1@0,1@1),0),64@0)@(0,0)\n"
       "The same tile multicast to 2 CTAs (CTA_LAYOUT 2:1), as CTA 1: half of the box further on.\n"
       "  loom-layout tma_partition 8192 1 2:1 \\\n"
       "    'Sw<3,3,3> o (((8,16),(64,1)),(1,3)):(((64,512),(1,0)),(0,8192))' '((128,64),16):((1@1,1@0),64@0)'\n"
       "  Sw<3,3,3> o 4096 o ((8192,1),(1,3)):((1,0),(0,8192))\n"
       "  (((64,128),1),16):(((1@0,1@1),0),64@0)@(0,64)"});
  ops.push_back(
      {"draw",
       {{"LAYOUT", "a layout (or shape) of rank 1 or 2; a TV layout (THR,VAL):(...) with TILE; or the word mma or copy"},
        {"TILE/ATOM/THR_LAYOUT", "a TV layout's tile shape (M,N), its values index it column-major; after mma: an "
                                 "MMA atom as partition_A names it; after copy: the thread layout", true},
        {"ATOM_LAYOUT/VAL_LAYOUT", "after mma: the atom layout, e.g. (2,2,1); after copy: the value layout", true},
        {"PERMUTATION", "after mma: _ or a tiler over (M,N,K)", true}},
       "an SVG document (a LaTeX/TikZ one with --latex), or 'wrote FILE' with --output",
       "draw '(4,8):(8,1)'",
       draw,
       "Four forms:\n"
       "  draw LAYOUT                      the grid of coordinates (rows: mode 0, columns: mode 1),\n"
       "                                   each cell its offset, coloured by offset\n"
       "  draw TV_LAYOUT TILE              (thread,value) -> column-major index into TILE: each cell\n"
       "                                   labelled with the thread and value that hold it (T5 over V3),\n"
       "                                   coloured by thread\n"
       "  draw mma ATOM ATOM_LAYOUT PERM   a TiledMMA as partition_A/B/C give it: A (M x K) left, B\n"
       "                                   (K x N) above, C (M x N), by thread and value\n"
       "  draw copy THR_LAYOUT VAL_LAYOUT  make_tiled_copy's source and destination (S, D) tiles\n"
       "A cell several threads hold shows the first (by thread, then value); one no thread holds is white.\n"
       "Colours: eight, by thread (or offset) modulo 8. At most 65536 cells.\n"
       "\n"
       "  loom-layout draw '(2,4):(4,1)' --output=l.svg\n"
       "  loom-layout draw '((4,8),2):((16,1),8)' '(8,8)'          the m16n8k16 C fragment of 2 rows groups\n"
       "  loom-layout draw mma sm80_16x8x16 '(2,2,1)' _ --latex > mma.tex\n"
       "  loom-layout draw copy '(32,8)' '(4,1)' --output=copy.svg",
       {{"--output", "write the document to this file instead of stdout"},
        {"--latex", "a standalone LaTeX document with a TikZ picture instead of SVG", true}}});
  ops.push_back(
      {"bank_conflicts",
       {{"SMEM_LAYOUT", "shared-memory layout (coordinate -> element offset): L, Sw<B,M,S> o L or Sw<B,M,S> o OFFSET o L"},
        {"THREAD_LAYOUT", "(thread, value[, instruction...]) -> index into SMEM_LAYOUT's coordinates (colexicographic)"}},
       "per warp instruction, the wavefronts and the ideal; then the total",
       "bank_conflicts '(32,32):(32,1)' '(32,1,32):(32,1,1)'",
       bank_conflicts,
       "THREAD_LAYOUT mode 0: threads (32 a warp: thread 32w+l is lane l of warp w); mode 1: the values\n"
       "one access moves (size(mode 1) x element = --bytes, consecutive and aligned in memory; absent:\n"
       "one value); further modes: the instructions each thread issues, in order. SMEM_LAYOUT's offsets\n"
       "are in elements of --bytes / size(mode 1) bytes, from a 128-byte aligned base.\n"
       "The model: 32 banks of 4 bytes; 1-, 2- and 4-byte accesses are one request for the warp, 8-byte\n"
       "ones two half-warp phases, 16-byte ones four quarter-warp phases; a phase takes as many\n"
       "wavefronts as the most distinct 4-byte words in one bank (a word read by several lanes is\n"
       "broadcast). The ideal is the phase's distinct bytes at 128 a wavefront (at least 1); the excess\n"
       "is what Nsight Compute counts as bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared).\n"
       "\n"
       "A column of a row-major 32x32 fp32 tile, one thread a row: 32-way conflicts; one thread a column: none\n"
       "  loom-layout bank_conflicts '(32,32):(32,1)' '(32,1,32):(1,0,32)'\n"
       "  loom-layout bank_conflicts '(32,32):(32,1)' '(32,1,32):(32,0,1)'\n"
       "sm90's epilogue stores: bf16 pairs of the wgmma C fragment into a 64x64 tile under the 128-byte swizzle\n"
       "  loom-layout bank_conflicts 'Sw<3,3,3> o ((8,8),64):((64,512),1)' '((4,8,4),2,(2,8)):((128,1,16),64,(8,512))'\n"
       "16-byte chunks of an 8x64 bf16 tile, a quarter-warp down a column: 8-way; under Swizzle<3,3,3> none\n"
       "  loom-layout bank_conflicts '(8,64):(64,1)' '((8,4),8,2):((1,64),8,256)' --bytes=16\n"
       "  loom-layout bank_conflicts '(8,64):(64,1)' '((8,4),8,2):((1,64),8,256)' --bytes=16 --swizzle=3,3,3",
       {{"--bytes", "bytes one thread accesses per instruction: 1, 2, 4 (default), 8 or 16"},
        {"--swizzle", "B,M,S: a swizzle over SMEM_LAYOUT's offsets (Swizzle<B,M,S> on element offsets)"}}});
  ops.push_back(
      {"coalescing",
       {{"GMEM_LAYOUT", "global-memory layout (coordinate -> element offset)"},
        {"THREAD_LAYOUT", "(thread, value[, instruction...]) -> index into GMEM_LAYOUT's coordinates, as in bank_conflicts"}},
       "per warp instruction, the 32-byte sectors and 128-byte lines and their ideal; then the total",
       "coalescing '(128,64):(64,1)' '((16,2),4,64):((512,1),128,2)' --bytes=16",
       coalescing,
       "Each warp instruction touches every 32-byte sector and 128-byte line that holds one of its bytes\n"
       "(the base 128-byte aligned); the ideal is its distinct bytes over 32 (sectors) or 128 (lines),\n"
       "rounded up. THREAD_LAYOUT as for bank_conflicts; offsets in elements of --bytes / size(mode 1).\n"
       "\n"
       "fp32, one thread a row of a row-major 32x32 tile: 32 sectors an instruction; one a column: 4\n"
       "  loom-layout coalescing '(32,32):(32,1)' '(32,1,32):(1,0,32)' --bytes=4\n"
       "  loom-layout coalescing '(32,32):(32,1)' '(32,1,32):(32,0,1)' --bytes=4",
       {{"--bytes", "bytes one thread accesses per instruction: 1, 2, 4 (default), 8 or 16"}}});
  ops.push_back({"gmma_atom",
                 {{"MAJOR", "k or mn: the contiguous dimension of the A (M x K) or B (N x K) operand"},
                  {"SWIZZLE", "inter (no swizzle), sw32, sw64 or sw128"},
                  {"BITS", "the element width: 8 (e4m3, e5m2), 16 (f16, bf16) or 32 (tf32)"}},
                 "Sw<B,M,S> o L", "gmma_atom k sw128 8", gmma_atom_op,
                 "CuTe's SM90 GMMA shared-memory atom GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>\n"
                 "(CUTLASS 4.7.0): 8 rows of 16, 32, 64 or 128 bytes. CuTe prints the swizzle on byte addresses\n"
                 "(Sw<B,4,3> for every T); Loom's acts on element offsets, so its M is 4 - log2(bytes per\n"
                 "element): the same function. The output reads back as SMEM_LAYOUT of bank_conflicts and\n"
                 "tma_partition. wgmma reads 8-bit and 32-bit operands K-major only: their mn atoms are\n"
                 "layouts (for a buffer that is transposed on its way to a K-major one), not wgmma operands.\n"
                 "\n"
                 "  loom-layout gmma_atom k sw128 8      the FP8 K-major atom: 128 elements of K per row\n"
                 "  Sw<3,4,3> o (8,128):(128,1)\n"
                 "  loom-layout gmma_atom mn sw64 16\n"
                 "  Sw<2,3,3> o (32,8):(1,32)"});
  ops.push_back({"show", {kL}, "a table of offsets (rows: mode 0, columns: mode 1)", "show '(4,8):(8,1)'",
                 [](Args& a) {
                   Layout l = a.layout(0);
                   enumerable_size(a, 0, l);
                   a.blame = 0;
                   std::string s = loom::print_layout(l);
                   if (!s.empty() && s.back() == '\n') s.pop_back();
                   return s;
                 }});
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

char g_op_name[64] = "";

extern "C" void on_arithmetic_fault(int) {
  // Async-signal-safe: write(2) and _exit only.
  char const* a = "loom-layout: ";
  char const* b = ": arithmetic fault (integer overflow or division by zero)\n";
  ssize_t r = write(STDERR_FILENO, a, std::strlen(a));
  r = write(STDERR_FILENO, g_op_name, std::strlen(g_op_name));
  r = write(STDERR_FILENO, b, std::strlen(b));
  (void)r;
  _exit(kExitError);
}

// One line: the message's own line breaks become spaces, and any other control character (quoted
// arguments have theirs escaped already) is written as \\xNN.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  std::string r = printable(s);
  while (!r.empty() && r.back() == ' ') r.pop_back();
  return r;
}

int report(std::string const& msg) {
  std::fprintf(stderr, "loom-layout: %s\n", one_line(msg).c_str());
  return kExitError;
}

std::string args_usage(Op const& op) {
  std::string u;
  for (Param const& p : op.params) {
    if (!u.empty()) u += ' ';
    u += p.optional ? std::string("[") + p.name + "]" : std::string(p.name);
  }
  return u;
}
std::string usage(Op const& op) { return std::string(op.name) + " " + args_usage(op); }

int required_count(Op const& op) {
  int n = 0;
  for (Param const& p : op.params) n += !p.optional;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGFPE, on_arithmetic_fault);
  std::vector<Op> ops = make_ops();

  CLI::App app{
      "loom-layout: a calculator for the Loom layout algebra (CuTe's operations and notation).\n"
      "Run 'loom-layout OP ARG...'; 'loom-layout OP --help' describes one op."};
  app.name("loom-layout");
  app.require_subcommand(0, 1);
  app.footer(
      "Notation: a layout is SHAPE:STRIDE, e.g. ((32,8),32):((1,32),256) or 8:1; a tuple is\n"
      "(2,(0,3)); _ is CuTe's underscore (and X in a Step). A tiler is a layout, a shape such as\n"
      "(4,8), or a tuple of layouts, integers and _, e.g. (3:3,(2,4):(1,8)). All integers are\n"
      "static (Int<N>), except the tensor of partition_A/B/C, whose integers are run-time ints as a\n"
      "kernel's (see 'loom-layout partition_A --help'). Quote arguments for the shell. Errors: one\n"
      "line on stderr, exit status 2.\n"
      "Where CuTe 4.7.0's answer breaks the op's own contract (left_inverse of a non-injective\n"
      "layout, a divide whose tiler stride falls inside a mode without dividing it, ...), that answer\n"
      "is printed as CuTe prints it, with one stderr line 'loom-layout: warning: OP: ...' naming the\n"
      "broken property, and exit status 0 (the answer is CuTe's, not an error).\n"
      "Limits: a tuple holds at most 32 integers and parentheses, a tiler at most 8 layouts;\n"
      "integers are 64-bit, and any value that does not fit (a size, offset or stride of the\n"
      "result, or one on the way) is an error naming the argument; apply, show and swizzle print\n"
      "at most 1048576 values; an error quotes at most 80 characters of an argument.");

  std::vector<std::vector<std::string>> values(ops.size());
  std::vector<std::vector<CLI::Option*>> options(ops.size());
  std::vector<std::vector<std::string>> flag_values(ops.size());
  std::vector<std::vector<CLI::Option*>> flag_options(ops.size());
  std::vector<CLI::App*> subs;
  for (size_t i = 0; i < ops.size(); ++i) {
    Op const& op = ops[i];
    std::string desc = args_usage(op) + "  ->  " + op.prints + "\n      e.g. loom-layout " + op.example;
    CLI::App* sub = app.add_subcommand(op.name, desc);
    sub->allow_extras();
    sub->footer(std::string("Prints ") + op.prints + ". Example:\n  loom-layout " + op.example +
                (op.notes ? std::string("\n\n") + op.notes : std::string()));
    flag_values[i].resize(op.flags.size());
    for (size_t k = 0; k < op.flags.size(); ++k) {
      Flag const& f = op.flags[k];
      flag_options[i].push_back(f.is_switch ? sub->add_flag(f.name, f.help) : sub->add_option(f.name, flag_values[i][k], f.help));
    }
    values[i].resize(op.params.size());
    for (size_t k = 0; k < op.params.size(); ++k) {
      Param const& p = op.params[k];
      options[i].push_back(
          sub->add_option(p.name, values[i][k], std::string(p.help) + (p.optional ? " (optional)" : "")));
    }
    subs.push_back(sub);
  }

  // The op comes first; anything else there is an error rather than a CLI11 message.
  if (argc < 2) return report("missing OP; run 'loom-layout --help' for the list of ops");
  std::string first = argv[1];
  bool is_help = first == "-h" || first == "--help";
  int op_index = -1;
  for (size_t i = 0; i < ops.size(); ++i)
    if (first == ops[i].name) op_index = int(i);
  if (!is_help && op_index < 0) {
    if (!first.empty() && first[0] == '-')
      return report("unknown option '" + excerpt(first) + "'; run 'loom-layout --help'");
    return report("unknown op '" + excerpt(first) + "'; run 'loom-layout --help' for the list of ops");
  }
  if (op_index >= 0) std::snprintf(g_op_name, sizeof g_op_name, "%s", ops[size_t(op_index)].name);

  try {
    app.parse(argc, argv);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForAllHelp const& e) {
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    if (op_index < 0) return report(e.what());
    return report(std::string(g_op_name) + ": " + e.what());
  }
  if (op_index < 0) return report("missing OP; run 'loom-layout --help' for the list of ops");

  Op const& op = ops[size_t(op_index)];
  CLI::App* sub = subs[size_t(op_index)];
  std::string prefix = std::string(op.name) + ": ";
  std::vector<std::string> extra = sub->remaining();
  for (std::string const& x : extra)
    if (x.size() > 1 && x[0] == '-' && !(x[1] >= '0' && x[1] <= '9'))
      return report(prefix + "unknown option '" + excerpt(x) + "'; usage: loom-layout " + usage(op));
  int given = 0;
  for (CLI::Option* o : options[size_t(op_index)]) given += o->count() > 0;
  if (!extra.empty() || given < required_count(op)) {
    int total = given + int(extra.size());
    int lo = required_count(op), hi = int(op.params.size());
    std::string expected = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    return report(prefix + "expected " + expected + " argument" + (hi == 1 ? "" : "s") + ", got " +
                  std::to_string(total) + "; usage: loom-layout " + usage(op));
  }

  Args args;
  args.values.assign(values[size_t(op_index)].begin(), values[size_t(op_index)].begin() + given);
  for (size_t k = 0; k < op.flags.size(); ++k)
    if (flag_options[size_t(op_index)][k]->count() > 0) args.flags[op.flags[k].name] = flag_values[size_t(op_index)][k];
  // "OP: argument K (NAME) "TEXT": MESSAGE", quoting at most kQuoteLimit characters of TEXT (around
  // the position at fault, if any). Messages of the core that start with the op's name lose it.
  auto describe = [&](int k, std::string msg, size_t pos = 0) {
    if (msg.compare(0, prefix.size(), prefix) == 0) msg.erase(0, prefix.size());
    if (k < 0 || k >= given) return prefix + msg;
    std::string const& text = args.values[size_t(k)];
    std::string quoted = "\"" + excerpt(text, pos) + "\"";
    if (text.size() > kQuoteLimit) quoted += " (" + std::to_string(text.size()) + " characters)";
    return prefix + "argument " + std::to_string(k + 1) + " (" + op.params[size_t(k)].name + ") " + quoted + ": " + msg;
  };
  // An overflow is blamed on the first argument whose own offsets do not fit in 64 bits, else on
  // the one that holds the integer of largest magnitude (the op's usual culprit among equals).
  auto overflow_culprit = [&]() {
    for (int k = 0; k < given; ++k) {
      try {
        Layout l = loom::parse_layout(args.values[size_t(k)]);
        (void)loom::cosize(l);
      } catch (loom::LayoutError const& e) {
        if (std::string_view(e.what()) == loom::kOverflowMessage) return k;
      } catch (std::exception const&) {
      }
    }
    auto largest = [](std::string const& t) {
      long double m = 0;
      for (size_t i = 0; i < t.size();) {
        size_t j = i;
        while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
        if (j > i) {
          long double v = 0;
          for (size_t d = i; d < j; ++d) v = v * 10 + (t[d] - '0');
          if (v > m) m = v;
          i = j;
        } else {
          ++i;
        }
      }
      return m;
    };
    int best = args.blame;
    long double best_v = best >= 0 && best < given ? largest(args.values[size_t(best)]) : -1;
    for (int k = 0; k < given; ++k)
      if (largest(args.values[size_t(k)]) > best_v) {
        best = k;
        best_v = largest(args.values[size_t(k)]);
      }
    return best;
  };
  try {
    std::string out = op.run(args);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
    // One line, the first broken property: CuTe's answer above stays the answer.
    if (!args.warnings.empty()) std::fprintf(stderr, "loom-layout: warning: %s\n", one_line(args.warnings.front()).c_str());
    return std::fflush(stdout) == 0 ? 0 : kExitError;
  } catch (ArgError const& e) {
    return report(describe(e.arg, e.what(), e.position));
  } catch (loom::ParseError const& e) {
    return report(describe(args.blame, e.brief(), e.position()));
  } catch (loom::LayoutError const& e) {
    if (std::string_view(e.what()) == loom::kOverflowMessage) return report(describe(overflow_culprit(), e.what()));
    return report(describe(args.blame, e.what()));
  } catch (std::bad_alloc const&) {
    return report(prefix + "out of memory");
  } catch (std::exception const& e) {
    return report(describe(args.blame, e.what()));
  }
}
