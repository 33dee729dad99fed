// Loom layout core: reading the text notation of layout/print.hpp back into values (host only).
//
//   parse_int_tuple("(2,(0,3))")               integers (negative allowed), `_`, nested tuples
//   parse_shape("(4,8)")                        as parse_int_tuple, every leaf a positive integer
//   parse_stride("(1,-4)")                      as parse_int_tuple, no `_`
//   parse_coord("(1,_)"), parse_coord("(1,2)", false)   a coordinate, `_` allowed or not
//   parse_integer("-3")                         a single integer
//   parse_layout("((32,8),32):((1,32),256)")    SHAPE:STRIDE
//   parse_layout_or_shape("(4,8)")              also accepts a bare shape: make_layout(shape)
//   parse_tiler("(3:3,(2,4):(1,8))")            a layout, an integer, `_`, or a tuple of tilers
//
// An integer alone (17) is a leaf, (8) is a rank-1 tuple and () the empty tuple. Whitespace between
// tokens is ignored. Every integer read is static, as in a kernel written with Int<N>.
//
// In a tiler, a parenthesised group followed by ':' is the shape of a layout element, so
// (2,4):(1,8) is one layout while (2,4) followed by ',' or ')' is a nested tiler of two integers.
//
// Errors throw ParseError, whose what() reads
//   expected ',' or ')' at position 5 in "(2,4:(1,8)"
// Positions count characters from 1.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "layout/layout.hpp"
#include "layout/print.hpp"

namespace loom {

struct ParseError : std::runtime_error {
  // position: 1-based character position of the problem, 0 when it concerns the text as a whole.
  ParseError(std::string reason, std::size_t position, std::string_view text)
      : std::runtime_error(compose(reason, position) + " in \"" + std::string(text) + "\""),
        reason_(std::move(reason)),
        position_(position) {}

  std::string const& reason() const { return reason_; }
  std::size_t position() const { return position_; }
  // The message without the quoted text: "expected ',' or ')' at position 5".
  std::string brief() const { return compose(reason_, position_); }

 private:
  static std::string compose(std::string const& reason, std::size_t position) {
    return position ? reason + " at position " + std::to_string(position) : reason;
  }
  std::string reason_;
  std::size_t position_;
};

namespace parse_detail {

// What the integer leaves of a tuple may be.
enum class Leaves {
  kAny,       // any integer or `_`
  kIntegers,  // any integer, no `_`
  kPositive,  // positive integers only (shapes)
};

struct Node {
  enum Kind { kInt, kUnder, kTuple, kLayout } kind = kInt;
  i64 value = 0;
  std::vector<Node> kids;
  Layout layout;        // kLayout only
  std::size_t pos = 0;  // 0-based index of the first character
};

class Parser {
 public:
  static constexpr int kMaxDepth = IntTuple::kCap;

  explicit Parser(std::string_view text) : s_(text) {}

  [[noreturn]] void fail(std::string const& reason, std::size_t index) const {
    throw ParseError(reason, index + 1, s_);
  }

  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool at_end() {
    skip_ws();
    return i_ >= s_.size();
  }
  char peek() {
    skip_ws();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  std::size_t index() const { return i_; }
  void advance() { ++i_; }

  [[noreturn]] void unexpected(char const* expected) const {
    if (i_ >= s_.size()) fail(std::string("unexpected end of input, expected ") + expected, i_);
    fail(std::string("expected ") + expected + ", found '" + s_[i_] + "'", i_);
  }

  void expect_end() {
    if (!at_end()) fail(std::string("unexpected '") + s_[i_] + "' after the end of the value", i_);
  }

  // An integer, `_` or a parenthesised tuple; with allow_layout, also SHAPE:STRIDE and tuples of
  // such layout elements (a tiler).
  Node node(bool allow_layout, int depth = 0) {
    if (depth > kMaxDepth) fail("nesting too deep", i_);
    skip_ws();
    Node n;
    n.pos = i_;
    char c = peek();
    if (c == '(') {
      ++i_;
      n.kind = Node::kTuple;
      if (peek() == ')') {
        ++i_;
      } else {
        for (;;) {
          n.kids.push_back(node(allow_layout, depth + 1));
          char d = peek();
          if (d == ',') {
            ++i_;
            continue;
          }
          if (d == ')') {
            ++i_;
            break;
          }
          unexpected("',' or ')'");
        }
      }
    } else if (c == '_') {
      ++i_;
      n.kind = Node::kUnder;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      n.kind = Node::kInt;
      n.value = integer();
    } else {
      unexpected("an integer, '_' or '('");
    }
    if (allow_layout && peek() == ':') {
      std::size_t colon = i_;
      ++i_;
      Node stride = node(false, depth);
      if (contains_layout(n)) fail("the shape of a layout cannot contain a layout", colon);
      Node l;
      l.kind = Node::kLayout;
      l.pos = n.pos;
      l.layout = make(n, stride, colon);
      return l;
    }
    return n;
  }

  i64 integer() {
    std::size_t start = i_;
    bool neg = false;
    if (s_[i_] == '-') {
      neg = true;
      ++i_;
      if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') fail("expected a digit after '-'", i_);
    }
    // Accumulate negatively so that the most negative i64 is representable.
    i64 v = 0;
    constexpr i64 kMin = i64(-9223372036854775807LL - 1);
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      int d = s_[i_] - '0';
      if (v < (kMin + d) / 10) fail("integer out of range", start);
      v = v * 10 - d;
      ++i_;
    }
    if (!neg) {
      if (v == kMin) fail("integer out of range", start);
      v = -v;
    }
    return v;
  }

  static bool contains_layout(Node const& n) {
    if (n.kind == Node::kLayout) return true;
    for (Node const& k : n.kids)
      if (contains_layout(k)) return true;
    return false;
  }

  static int count_nodes(Node const& n) {
    int c = 1;
    for (Node const& k : n.kids) c += count_nodes(k);
    return c;
  }

  void check_leaves(Node const& n, Leaves leaves, char const* what) const {
    if (n.kind == Node::kTuple) {
      for (Node const& k : n.kids) check_leaves(k, leaves, what);
      return;
    }
    if (n.kind == Node::kUnder && leaves != Leaves::kAny)
      fail(std::string("'_' is not allowed in ") + what, n.pos);
    if (n.kind == Node::kInt && leaves == Leaves::kPositive && n.value <= 0)
      fail(std::string("expected a positive integer in ") + what + ", found " + std::to_string(n.value), n.pos);
  }

  // A value quoted in a message: at most about 60 characters of it.
  static std::string clip(std::string t) { return t.size() <= 60 ? t : t.substr(0, 57) + "..."; }

  IntTuple tuple(Node const& n, Leaves leaves, char const* what) const {
    check_leaves(n, leaves, what);
    if (count_nodes(n) > IntTuple::kCap)
      fail("too many entries (a tuple holds at most " + std::to_string(IntTuple::kCap) +
               " integers and parentheses)",
           n.pos);
    return build(n);
  }

  static IntTuple build(Node const& n) {
    switch (n.kind) {
      case Node::kInt: return IntTuple(n.value);
      case Node::kUnder: return _;
      default: {
        TupleBuilder b;
        for (Node const& k : n.kids) b.push(build(k));
        return b.done();
      }
    }
  }

  // colon: index of the ':' between the two, where a congruence error is reported.
  Layout make(Node const& shape, Node const& stride, std::size_t colon) const {
    IntTuple s = tuple(shape, Leaves::kPositive, "the shape of a layout");
    IntTuple d = tuple(stride, Leaves::kIntegers, "the stride of a layout");
    if (!congruent(s, d))
      fail("shape " + clip(to_string(s)) + " and stride " + clip(to_string(d)) + " are not congruent", colon);
    return Layout(s, d);
  }

  Tile tile(Node const& n) const {
    switch (n.kind) {
      case Node::kLayout: return Tile(n.layout);
      case Node::kUnder: return Tile(_);
      case Node::kInt:
        if (n.value <= 0)
          fail("expected a positive tile size, found " + std::to_string(n.value), n.pos);
        return Tile(IntTuple(n.value));
      default: break;
    }
    Tile r;
    TupleBuilder b;
    for (Node const& k : n.kids) {
      Tile t = tile(k);
      if (r.count + t.count > Tile::kCap)
        fail("too many elements in the tiler (at most " + std::to_string(Tile::kCap) + ")", k.pos);
      b.push(r.graft(t, t.tree));
    }
    r.tree = b.done();
    return r;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

inline IntTuple parse_tuple_as(std::string_view text, Leaves leaves, char const* what) {
  Parser p(text);
  Node n = p.node(false);
  p.expect_end();
  return p.tuple(n, leaves, what);
}

}  // namespace parse_detail

// Integers (negative allowed), `_` and nested tuples: 17, _, (8), (2,(0,3)), ().
inline IntTuple parse_int_tuple(std::string_view text) {
  return parse_detail::parse_tuple_as(text, parse_detail::Leaves::kAny, "a tuple");
}

// A shape: positive integers, no `_`.
inline IntTuple parse_shape(std::string_view text) {
  return parse_detail::parse_tuple_as(text, parse_detail::Leaves::kPositive, "a shape");
}

// A stride: integers of any sign, no `_`.
inline IntTuple parse_stride(std::string_view text) {
  return parse_detail::parse_tuple_as(text, parse_detail::Leaves::kIntegers, "a stride");
}

// A coordinate: integers (negative allowed) and, when allowed, `_`.
inline IntTuple parse_coord(std::string_view text, bool allow_underscore = true) {
  return parse_detail::parse_tuple_as(
      text, allow_underscore ? parse_detail::Leaves::kAny : parse_detail::Leaves::kIntegers, "a coordinate");
}

// A single integer.
inline i64 parse_integer(std::string_view text) {
  parse_detail::Parser p(text);
  char c = p.peek();
  if (!(c == '-' || (c >= '0' && c <= '9'))) p.unexpected("an integer");
  i64 v = p.integer();
  p.expect_end();
  return v;
}

// SHAPE:STRIDE, e.g. ((32,8),32):((1,32),256) or 8:1. Shapes are positive; strides any integer.
inline Layout parse_layout(std::string_view text) {
  parse_detail::Parser p(text);
  parse_detail::Node shape = p.node(false);
  if (p.at_end()) p.fail("expected ':' and a stride (a layout is SHAPE:STRIDE)", p.index());
  if (p.peek() != ':') p.unexpected("':'");
  std::size_t colon = p.index();
  p.advance();
  parse_detail::Node stride = p.node(false);
  p.expect_end();
  return p.make(shape, stride, colon);
}

// A layout, or a bare shape taken as the compact column-major layout make_layout(shape).
inline Layout parse_layout_or_shape(std::string_view text) {
  parse_detail::Parser p(text);
  parse_detail::Node shape = p.node(false);
  if (p.at_end()) return make_layout(p.tuple(shape, parse_detail::Leaves::kPositive, "a shape"));
  if (p.peek() != ':') p.unexpected("':' or the end of the value");
  std::size_t colon = p.index();
  p.advance();
  parse_detail::Node stride = p.node(false);
  p.expect_end();
  return p.make(shape, stride, colon);
}

// A tiler: a layout, a positive integer N (the layout N:1), `_` (leave the mode alone), or a tuple
// of tilers; a tuple of integers and `_` is a shape, e.g. (4,8). Examples:
//   (32,8):(1,32)    (3:3,(2,4):(1,8))    ((16,4):(4,1),(16,4):(4,1),_)    (4,8)
inline Tile parse_tiler(std::string_view text) {
  parse_detail::Parser p(text);
  parse_detail::Node n = p.node(true);
  p.expect_end();
  if (p.count_nodes(n) > IntTuple::kCap)
    p.fail("too many entries (a tiler holds at most " + std::to_string(IntTuple::kCap) +
               " elements and parentheses)",
           n.pos);
  return p.tile(n);
}

}  // namespace loom
