// Error behaviour of the layout core on the host: a violated precondition throws loom::LayoutError
// (never a crash, an assert, or a silently wrong layout). The static divisibility rules are CuTe's:
// shape_div(a, b) of two static integers needs a % b == 0 or b % a == 0, complement needs an
// injective layout; dynamic integers waive the check.
#include <gtest/gtest.h>

#include <string>

#include "layout_test_util.hpp"

using namespace loom;
using namespace loomtest;

TEST(LayoutErrors, ShapeDivDivisibility) {
  EXPECT_THROW(shape_div(IntTuple(6), IntTuple(4)), LayoutError);
  EXPECT_THROW(shape_div(S(6, 4), IntTuple(4)), LayoutError);   // 6 vs 4 in the fold
  EXPECT_THROW(shape_div(S(4, 6), IntTuple(16)), LayoutError);  // 4 | 16, then 6 vs the rest 4
  EXPECT_NO_THROW(shape_div(S(4, 6), IntTuple(8)));             // 4 | 8, then 2 | 6
  EXPECT_NO_THROW(shape_div(S(4, 6), IntTuple(4)));
  EXPECT_NO_THROW(shape_div(IntTuple(dyn(6)), IntTuple(4)));    // dynamic: no check
  EXPECT_THROW(shape_div(IntTuple(6), IntTuple(0)), LayoutError);
  EXPECT_THROW((void)(Int{6} / Int{0}), LayoutError);
  EXPECT_THROW((void)(Int{6} % Int{0}), LayoutError);
}

TEST(LayoutErrors, CompositionDivisibility) {
  // CuTe >= 3.9's conditions, checked when the values are static: B's stride is a multiple of a
  // mode of A or falls inside it, and the part of a mode that B takes divides B's shape.
  // (4,6):(1,8) o 6:1: 4 of the 6 elements come from the mode of 4, and 4 does not divide 6.
  EXPECT_THROW(composition(L(S(4, 6), S(1, 8)), L(6, 1)), LayoutError);
  // Stride 6 steps past the mode of 4 without being a multiple of it.
  EXPECT_THROW(composition(L(S(4, 6), S(1, 5)), L(2, 6)), LayoutError);
  // Accepted since CuTe 3.9: 3 of the 4 (3 falls inside the mode), and a stride inside the mode.
  EXPECT_EQ(str(composition(L(S(4, 6), S(1, 5)), L(3, 1))), "3:1");
  EXPECT_EQ(str(composition(L(S(4, 6), S(1, 5)), L(2, 3))), "2:3");
  EXPECT_EQ(str(composition(L(S(4, 6), S(1, 5)), L(2, 1))), "2:1");
  // (4,6):(1,4) is the compact 24:1 after coalescing, so 6:1 never meets the 4: no error, as in
  // CuTe (coalesce_x runs before the divisibility checks).
  EXPECT_EQ(str(composition(L(S(4, 6), S(1, 4)), L(6, 1))), "6:1");
  // Dynamic shapes waive the check (CuTe: "Waive dynamic assertion"); no error.
  EXPECT_NO_THROW(composition(L(S(dyn(4), dyn(6)), S(1, 5)), L(6, 1)));
  // Through a tiler: mode 1 of (8,(4,6)):(1,(8,40)) by 6.
  EXPECT_THROW(composition(L(S(8, S(4, 6)), S(1, S(8, 40))), make_tile(_, 6)), LayoutError);
  // An empty tuple is no tiler for composition.
  EXPECT_THROW(composition(L(S(8, 8)), Tile(make_tuple())), LayoutError);
}

TEST(LayoutErrors, DividesAndPartitionsDivisibility) {
  // logical_divide((4,6):(1,5), 6): the tile takes 4 of the mode of 4, and 4 does not divide 6.
  Layout a = L(S(4, 6), S(1, 5));
  EXPECT_THROW(logical_divide(a, L(6)), LayoutError);
  EXPECT_THROW(zipped_divide(a, Tile(6)), LayoutError);
  EXPECT_THROW(local_tile(L(S(S(4, 6), 8), S(S(1, 5), 64)), Tile(S(6, 8)), make_coord(0, 0)), LayoutError);
  EXPECT_THROW(local_partition(L(S(S(4, 6), 8), S(S(1, 5), 64)), L(S(6, 2)), 0), LayoutError);
  // 4 of a mode of 6 is fine (4 falls inside the mode): the rest mode is the complement in the
  // coalesced shape, (6,4):(1,7) / 4 = (4,(2,4)):(1,(4,7)).
  EXPECT_EQ(str(logical_divide(L(S(6, 4), S(1, 7)), L(4))), "(4,(2,4)):(1,(4,7))");
  // A tile that does not divide a single compact mode pads it, as in CuTe (the rest is
  // ceil_div(6, 4) = 2 tiles): 6:1 / 4 = (4,2):(1,4), 8 positions for 6 elements.
  EXPECT_EQ(str(logical_divide(L(6), 4)), "(4,2):(1,4)");
  EXPECT_EQ(str(local_tile(L(S(6, 8)), Tile(S(4, 4)), make_coord(1, 1))), "(4,4):(1,6)@28");
  // A Step that drops every mode leaves nothing to tile or partition by.
  EXPECT_THROW(local_tile(L(S(8, 8)), Tile(S(4, 4)), make_coord(1, 0), make_step(X, X)), LayoutError);
  EXPECT_THROW(local_partition(L(S(8, 8)), L(S(2, 4), S(4, 1)), 5, make_step(X, X)), LayoutError);
}

TEST(LayoutErrors, ComplementPreconditions) {
  EXPECT_THROW(complement(L(S(2, 2), S(1, 1)), 8), LayoutError);           // not injective
  EXPECT_THROW(complement(L(S(2, 2), S(2, 2))), LayoutError);
  EXPECT_THROW(complement(L(S(2, 3), S(1, dyn(2))), 12), LayoutError);     // dynamic strides, rank 2
  EXPECT_NO_THROW(complement(L(12, dyn(2)), 48));                          // rank 1 is fine
  // left_inverse: visited by stride, 8:5 leaves a gap mode of 5, and 16 is no multiple of it.
  EXPECT_THROW(left_inverse(L(S(8, 2, 2), S(5, 0, 16))), LayoutError);
  EXPECT_EQ(str(left_inverse(L(S(2, 2), S(1, 1)))), "2:2");               // not injective: fine
  EXPECT_THROW(logical_product(L(S(2, 2), S(1, 1)), L(3)), LayoutError);
}

TEST(LayoutErrors, RankAndProfileMismatches) {
  EXPECT_THROW(L(S(2, 3), S(1)), LayoutError);            // shape and stride not congruent
  EXPECT_THROW(L(S(2, S(3, 4)), S(1, 2)), LayoutError);
  EXPECT_THROW(get(S(1, 2), 2), LayoutError);
  EXPECT_THROW(get(IntTuple(5), 1), LayoutError);
  EXPECT_THROW(value(S(1, 2)), LayoutError);
  EXPECT_THROW(take(S(1, 2), 1, 3), LayoutError);
  EXPECT_THROW(append(S(1, 2, 3), 2, 0), LayoutError);
  EXPECT_THROW(crd2idx(S(1, 2, 3), S(2, 2), S(1, 2)), LayoutError);
  EXPECT_THROW(crd2idx(S(1, 2), S(2, S(2, 2))), LayoutError);  // not congruent
  EXPECT_THROW(crd2idx(S(1, 2, 3), S(2, 2)), LayoutError);
  EXPECT_THROW(L(S(2, 3))(1, 2, 3), LayoutError);         // three coordinates, two modes
  EXPECT_THROW(L(S(2, 3))(make_coord(1, 2, 3)), LayoutError);
  EXPECT_THROW(slice(make_coord(_, _, _), L(S(2, 3))), LayoutError);
  EXPECT_THROW(compact_order(S(2, 3), S(0, 1, 2)), LayoutError);
  EXPECT_THROW(shape_div(S(2, 3), S(1, 1, 1)), LayoutError);
  EXPECT_THROW(ceil_div(S(2), S(1, 1)), LayoutError);
  EXPECT_THROW(elem_scale(S(2, 3), S(1, 1, 1)), LayoutError);
  // More tiler modes than layout modes.
  EXPECT_THROW(composition(L(8), make_tile(2, 2)), LayoutError);
  EXPECT_THROW(logical_divide(L(8), make_tile(2, 2)), LayoutError);
  EXPECT_THROW(logical_product(L(8), make_tile(2, 2)), LayoutError);
  EXPECT_THROW(local_tile(L(S(8, 8)), make_tile(2, 2, 2), make_coord(0, 0, 0)), LayoutError);
  EXPECT_THROW(dice(make_step(1, X), make_tile(2, 2, 2)), LayoutError);
  // A coordinate of the wrong rank for the rest modes.
  EXPECT_THROW(local_tile(L(S(8, 8)), Tile(S(4, 4)), make_coord(0, 0, 0)), LayoutError);
  // get_hier_coord divides by the strides: a size > 1 mode with stride 0 has no coordinate.
  EXPECT_THROW(get_hier_coord(L(S(4, 2), S(0, 1)), 3), LayoutError);
}

TEST(LayoutErrors, CapacityOverflowThrows) {
  // 32 nodes: a root and 31 leaves fit, a 32nd leaf does not.
  TupleBuilder b;
  for (int k = 0; k < 31; ++k) b.push(IntTuple(2));
  IntTuple full = b.done();
  EXPECT_EQ(rank(full), 31);
  EXPECT_THROW(b.push(IntTuple(2)), LayoutError);
  EXPECT_THROW(append(full, 2), LayoutError);
  // Nesting: every level is a node.
  IntTuple deep = IntTuple(3);
  for (int k = 0; k < 31; ++k) deep = make_tuple(deep);
  EXPECT_EQ(depth(deep), 31);
  EXPECT_THROW(make_tuple(deep), LayoutError);
  // Operations whose result outgrows the capacity throw instead of writing past it.
  Layout wide = L(tuple_repeat(16, IntTuple(2)));  // 17 nodes, 2^16 elements
  EXPECT_NO_THROW(coalesce(wide));
  EXPECT_THROW(make_layout(wide, wide), LayoutError);                // 1 + 17 + 17 nodes
  EXPECT_THROW(logical_product(wide, L(tuple_repeat(16, IntTuple(2)), tuple_repeat(16, IntTuple(0)))),
               LayoutError);
  Layout w12 = L(tuple_repeat(12, IntTuple(2)));
  EXPECT_THROW(blocked_product(w12, w12), LayoutError);
  // 8:1 / 2:2 = (2,(2,2)): 5 nodes per mode, 8 modes.
  Layout l = L(2, 2);
  EXPECT_THROW(logical_divide(L(tuple_repeat(8, IntTuple(8))), make_tile(l, l, l, l, l, l, l, l)), LayoutError);
  // A tiler holds at most 8 layouts.
  EXPECT_NO_THROW(make_tile(1, 1, 1, 1, 1, 1, 1, 1));
  EXPECT_THROW(make_tile(1, 1, 1, 1, 1, 1, 1, 1, 1), LayoutError);
  EXPECT_THROW(Tile(tuple_repeat(9, IntTuple(2))), LayoutError);
}

TEST(LayoutErrors, LayoutErrorIsARuntimeError) {
  try {
    (void)composition(L(S(4, 6), S(1, 8)), L(6, 1));
    FAIL() << "expected a LayoutError";
  } catch (std::runtime_error const& e) {
    EXPECT_NE(std::string(e.what()).find("shape divisibility"), std::string::npos) << e.what();
  }
}

// CuTe: slice(c, t) with an integer coordinate c (no underscore) keeps nothing and returns an empty
// tuple, as a tuple coordinate without underscores does.
TEST(LayoutErrors, SliceOfAnIntegerCoordinate) {
  EXPECT_EQ(str(slice(make_coord(1, 2), S(3, 4))), "()");
  EXPECT_EQ(str(slice(IntTuple(1), S(3, 4))), "()");
  EXPECT_EQ(str(slice(IntTuple(1), L(S(3, 4)))), "():()");
}
