// layout/parse.hpp: the text notation read back into IntTuple, Layout and Tile values.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "layout/layout.hpp"
#include "layout/parse.hpp"
#include "layout/print.hpp"

namespace {

using loom::IntTuple;
using loom::Layout;
using loom::ParseError;
using loom::Tile;

// The ParseError thrown by f, or a test failure if none is.
template <class F>
ParseError error_of(F&& f) {
  try {
    f();
  } catch (ParseError const& e) {
    return e;
  }
  ADD_FAILURE() << "no ParseError thrown";
  return ParseError("none", 0, "");
}

TEST(ParseIntTuple, Leaves) {
  IntTuple t = loom::parse_int_tuple("17");
  EXPECT_TRUE(loom::is_leaf(t));
  EXPECT_EQ(loom::value(t), 17);
  EXPECT_TRUE(loom::is_static(t));

  EXPECT_EQ(loom::value(loom::parse_int_tuple("-3")), -3);
  EXPECT_EQ(loom::value(loom::parse_int_tuple("0")), 0);
  EXPECT_TRUE(loom::is_underscore(loom::parse_int_tuple("_")));
  EXPECT_EQ(loom::value(loom::parse_int_tuple("9223372036854775807")), 9223372036854775807LL);
  EXPECT_EQ(loom::value(loom::parse_int_tuple("-9223372036854775808")), -9223372036854775807LL - 1);
}

TEST(ParseIntTuple, Tuples) {
  IntTuple one = loom::parse_int_tuple("(8)");
  EXPECT_TRUE(loom::is_tuple(one));
  EXPECT_EQ(loom::rank(one), 1);
  EXPECT_EQ(loom::value(loom::get(one, 0)), 8);

  IntTuple empty = loom::parse_int_tuple("()");
  EXPECT_TRUE(loom::is_tuple(empty));
  EXPECT_EQ(loom::rank(empty), 0);

  IntTuple nested = loom::parse_int_tuple("(2,(0,3))");
  EXPECT_EQ(nested, loom::make_tuple(2, loom::make_tuple(0, 3)));
  EXPECT_TRUE(loom::is_static(nested));
  EXPECT_EQ(loom::depth(nested), 2);

  IntTuple coord = loom::parse_int_tuple("(1,_,(_,-2))");
  EXPECT_EQ(coord, loom::make_tuple(1, loom::_, loom::make_tuple(loom::_, -2)));
}

TEST(ParseIntTuple, Whitespace) {
  EXPECT_EQ(loom::parse_int_tuple(" ( 2 ,\t( 0 , 3 ) )\n"), loom::make_tuple(2, loom::make_tuple(0, 3)));
  EXPECT_EQ(loom::parse_layout(" ( 4 , 8 ) : ( 1 , 4 ) "), loom::make_layout(loom::make_shape(4, 8)));
}

TEST(ParseIntTuple, RoundTrip) {
  for (char const* s : {"17", "-3", "_", "()", "(8)", "(2,(0,3))", "((4,2),(_,1),())", "(((1)))",
                        "(-1,(-2,(3,_)))"})
    EXPECT_EQ(loom::to_string(loom::parse_int_tuple(s)), s);
}

TEST(ParseShapeStrideCoord, Kinds) {
  EXPECT_EQ(loom::parse_shape("(4,8)"), loom::make_shape(4, 8));
  EXPECT_EQ(loom::parse_stride("(1,-4)"), loom::make_stride(1, -4));
  EXPECT_TRUE(loom::has_underscore(loom::parse_coord("(1,_)")));
  EXPECT_EQ(loom::parse_coord("(1,2)", false), loom::make_coord(1, 2));
  EXPECT_EQ(loom::parse_integer(" -42 "), -42);

  ParseError e = error_of([] { loom::parse_shape("(4,-8)"); });
  EXPECT_EQ(e.position(), 4u);
  EXPECT_NE(e.reason().find("positive"), std::string::npos);
  EXPECT_EQ(error_of([] { loom::parse_shape("(4,0)"); }).position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_stride("(1,_)"); }).position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_coord("(1,_)", false); }).position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_integer("(3)"); }).position(), 1u);
  EXPECT_EQ(error_of([] { loom::parse_integer("3 4"); }).position(), 3u);
  EXPECT_EQ(error_of([] { loom::parse_integer("_"); }).position(), 1u);
}

TEST(ParseLayout, Values) {
  Layout l = loom::parse_layout("((32,8),32):((1,32),256)");
  EXPECT_EQ(l.shape, loom::make_shape(loom::make_shape(32, 8), 32));
  EXPECT_EQ(l.stride, loom::make_stride(loom::make_stride(1, 32), 256));
  EXPECT_TRUE(loom::is_static(l));

  Layout r1 = loom::parse_layout("8:1");
  EXPECT_TRUE(loom::is_leaf(r1.shape));
  EXPECT_EQ(r1, loom::make_layout(8, 1));

  Layout r1t = loom::parse_layout("(8):(1)");
  EXPECT_EQ(loom::rank(r1t), 1);
  EXPECT_TRUE(loom::is_tuple(r1t.shape));

  EXPECT_EQ(loom::parse_layout("(4,2):(-2,3)").stride, loom::make_stride(-2, 3));
}

TEST(ParseLayout, RoundTrip) {
  for (char const* s : {"8:1", "(8):(1)", "((32,8),32):((1,32),256)", "(4,(2,3)):(2,(1,8))",
                        "(1,(4,2),(4,2)):(0,(128,8192),(1,64))", "(4,2):(-2,0)", "():()"})
    EXPECT_EQ(loom::to_string(loom::parse_layout(s)), s);
}

TEST(ParseLayout, OrShape) {
  EXPECT_EQ(loom::parse_layout_or_shape("(4,8)"), loom::make_layout(loom::make_shape(4, 8)));
  EXPECT_EQ(loom::to_string(loom::parse_layout_or_shape("(2,(1,3))")), "(2,(1,3)):(1,(0,2))");
  EXPECT_EQ(loom::parse_layout_or_shape("(4,8):(8,1)"), loom::make_layout(loom::make_shape(4, 8), loom::LayoutRight{}));
  EXPECT_EQ(error_of([] { loom::parse_layout_or_shape("(4,8)x"); }).position(), 6u);
}

TEST(ParseLayout, Errors) {
  ParseError e = error_of([] { loom::parse_layout("(4,3):(1)"); });
  EXPECT_EQ(e.reason(), "shape (4,3) and stride (1) are not congruent");
  EXPECT_EQ(e.position(), 6u);  // the ':'

  e = error_of([] { loom::parse_layout("(4,3)"); });
  EXPECT_NE(e.reason().find("expected ':'"), std::string::npos);
  EXPECT_EQ(e.position(), 6u);

  EXPECT_EQ(error_of([] { loom::parse_layout("(4,3)-(1,4)"); }).position(), 6u);
  EXPECT_EQ(error_of([] { loom::parse_layout("(4,3):(1,4):(1,4)"); }).position(), 12u);
  EXPECT_EQ(error_of([] { loom::parse_layout("(4,_):(1,4)"); }).position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_layout("(4,3):(1,_)"); }).position(), 10u);
  EXPECT_EQ(error_of([] { loom::parse_layout("(4,3):"); }).position(), 7u);
  EXPECT_EQ(error_of([] { loom::parse_layout("3:1:1"); }).position(), 4u);
}

TEST(ParseErrors, MessageAndPosition) {
  ParseError e = error_of([] { loom::parse_int_tuple("(2,4:(1,8)"); });
  EXPECT_EQ(e.reason(), "expected ',' or ')', found ':'");
  EXPECT_EQ(e.position(), 5u);
  EXPECT_EQ(e.brief(), "expected ',' or ')', found ':' at position 5");
  EXPECT_EQ(std::string(e.what()), "expected ',' or ')', found ':' at position 5 in \"(2,4:(1,8)\"");

  e = error_of([] { loom::parse_int_tuple("(2,4"); });
  EXPECT_EQ(e.reason(), "unexpected end of input, expected ',' or ')'");
  EXPECT_EQ(e.position(), 5u);

  EXPECT_EQ(error_of([] { loom::parse_int_tuple(""); }).position(), 1u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("   "); }).position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("(2,4)x"); }).position(), 6u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("(,)"); }).position(), 2u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("(1,)"); }).position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("--3"); }).position(), 2u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("- 3"); }).position(), 2u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("+3"); }).position(), 1u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("1.5"); }).position(), 2u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("(1 2)"); }).position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("8:1"); }).position(), 2u);

  e = error_of([] { loom::parse_int_tuple("(1,9223372036854775808)"); });
  EXPECT_EQ(e.reason(), "integer out of range");
  EXPECT_EQ(e.position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_int_tuple("-9223372036854775809"); }).position(), 1u);

  // ParseError is a std::runtime_error.
  EXPECT_THROW(loom::parse_int_tuple(")"), std::runtime_error);
}

TEST(ParseErrors, Limits) {
  std::string deep(40, '(');
  deep += "1" + std::string(40, ')');
  EXPECT_NE(error_of([&] { loom::parse_int_tuple(deep); }).reason().find("nesting"), std::string::npos);

  std::string wide = "(";
  for (int i = 0; i < 40; ++i) wide += (i ? ",1" : "1");
  wide += ")";
  ParseError e = error_of([&] { loom::parse_int_tuple(wide); });
  EXPECT_NE(e.reason().find("too many entries"), std::string::npos);
  EXPECT_EQ(e.position(), 1u);

  // The largest tuple that fits: a root and 31 leaves.
  std::string fits = "(";
  for (int i = 0; i < IntTuple::kCap - 1; ++i) fits += (i ? ",2" : "2");
  fits += ")";
  EXPECT_EQ(loom::rank(loom::parse_int_tuple(fits)), IntTuple::kCap - 1);

  // Nesting: 31 parentheses around one element fit in a tiler's tree, 32 do not.
  EXPECT_EQ(loom::to_string(loom::parse_tiler(std::string(31, '(') + "1" + std::string(31, ')'))),
            std::string(31, '(') + "1" + std::string(31, ')'));
  e = error_of([] { loom::parse_tiler(std::string(32, '(') + "1" + std::string(32, ')')); });
  EXPECT_NE(e.reason().find("too many entries"), std::string::npos);
  EXPECT_EQ(e.position(), 1u);

  e = error_of([] { loom::parse_tiler("(1,2,3,4,5,6,7,8,9)"); });
  EXPECT_NE(e.reason().find("too many elements in the tiler"), std::string::npos);
  EXPECT_EQ(e.position(), 18u);
}

TEST(ParseTiler, Kinds) {
  Tile single = loom::parse_tiler("(32,8):(1,32)");
  EXPECT_FALSE(single.is_tuple());
  EXPECT_EQ(single.leaf_kind(), Tile::kLayout);
  EXPECT_EQ(single.leaf(), loom::parse_layout("(32,8):(1,32)"));

  Tile n = loom::parse_tiler("4");
  EXPECT_FALSE(n.is_tuple());
  EXPECT_EQ(n.leaf_kind(), Tile::kInt);
  EXPECT_TRUE(loom::parse_tiler("_").is_underscore());

  // (2,4):(1,8) inside a tuple is one layout element.
  Tile t = loom::parse_tiler("(3:3,(2,4):(1,8))");
  ASSERT_TRUE(t.is_tuple());
  ASSERT_EQ(t.rank(), 2);
  EXPECT_EQ(loom::get(t, 0).leaf(), loom::make_layout(3, 3));
  EXPECT_EQ(loom::get(t, 1).leaf_kind(), Tile::kLayout);
  EXPECT_EQ(loom::get(t, 1).leaf(), loom::parse_layout("(2,4):(1,8)"));

  Tile p = loom::parse_tiler("((16,4):(4,1),(16,4):(4,1),_)");
  ASSERT_EQ(p.rank(), 3);
  EXPECT_EQ(loom::get(p, 0).leaf(), loom::parse_layout("(16,4):(4,1)"));
  EXPECT_TRUE(loom::get(p, 2).is_underscore());

  // (2,4) followed by ',' or ')' is a nested tiler of two integers.
  Tile nested = loom::parse_tiler("((2,4),_)");
  ASSERT_EQ(nested.rank(), 2);
  Tile inner = loom::get(nested, 0);
  ASSERT_TRUE(inner.is_tuple());
  EXPECT_EQ(inner.rank(), 2);
  EXPECT_EQ(loom::get(inner, 1).leaf_kind(), Tile::kInt);

  // A shape is a tuple of integers, the same tiler as Tile(shape) and make_tile(4,8).
  Tile s = loom::parse_tiler("(4,8)");
  Layout a = loom::parse_layout("(16,16):(1,16)");
  EXPECT_EQ(loom::composition(a, s), loom::composition(a, Tile(loom::make_shape(4, 8))));
  EXPECT_EQ(loom::composition(a, s), loom::composition(a, loom::make_tile(4, 8)));
  EXPECT_EQ(loom::to_string(loom::zipped_divide(a, s)), "((4,8),(4,2)):((1,16),(4,128))");
}

TEST(ParseTiler, RoundTrip) {
  for (char const* s : {"(32,8):(1,32)", "4", "_", "(4,8)", "(3:3,(2,4):(1,8))",
                        "((16,4):(4,1),(16,4):(4,1),_)", "((2,4),_)", "(8:1,(2,(4,_)))", "(8)"})
    EXPECT_EQ(loom::to_string(loom::parse_tiler(s)), s);
}

TEST(ParseTiler, Errors) {
  ParseError e = error_of([] { loom::parse_tiler("(2:1,4):(1,8)"); });
  EXPECT_EQ(e.reason(), "the shape of a layout cannot contain a layout");
  EXPECT_EQ(e.position(), 8u);
  EXPECT_EQ(error_of([] { loom::parse_tiler("(0,4)"); }).position(), 2u);
  EXPECT_EQ(error_of([] { loom::parse_tiler("(4,-1)"); }).position(), 4u);
  EXPECT_EQ(error_of([] { loom::parse_tiler("(_:1,4)"); }).position(), 2u);
  EXPECT_EQ(error_of([] { loom::parse_tiler("((2,4):(1,8):3)"); }).position(), 13u);
  e = error_of([] { loom::parse_tiler("(3:3,(2,4):(1))"); });
  EXPECT_EQ(e.reason(), "shape (2,4) and stride (1) are not congruent");
  EXPECT_EQ(e.position(), 11u);
}

}  // namespace
