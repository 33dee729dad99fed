// Exact results of the layout algebra, derived by hand from the definitions (CuTe's algorithms:
// coalesce merges s0:s1*d1 then s1:d1; composition divides B's stride, then B's shape, out of A's
// modes; complement fills the gaps between A's modes sorted by stride; divide = A o (T, T*);
// product = (A, A* o B)). Derivations are written out for the cases that are not immediate. The
// published CuTe examples (docs 01_layout / 02_layout_algebra) and the seed tutorials in
// shared/seeds/ are checked here too; where a seed disagrees with the definitions, the definitions
// win and the comment says so.

#include <gtest/gtest.h>

#include "layout/mma.hpp"
#include "layout_test_util.hpp"

using namespace loom;
using namespace loomtest;

// ---------------------------------------------------------------------------------------------
// Integer tuples
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, TupleStructure) {
  EXPECT_EQ(str(S(2, S(3, 4))), "(2,(3,4))");
  EXPECT_EQ(rank(S(2, S(3, 4))), 2);
  EXPECT_EQ(rank(IntTuple(7)), 1);
  EXPECT_EQ(rank(S()), 0);
  EXPECT_EQ(depth(IntTuple(7)), 0);
  EXPECT_EQ(depth(S(2, 3)), 1);
  EXPECT_EQ(depth(S(2, S(3, S(4)))), 3);
  EXPECT_EQ(size(S(2, S(3, 4))).v, 24);
  EXPECT_EQ(size(S()).v, 1);
  EXPECT_EQ(sum(S(2, S(3, 4))).v, 9);
  EXPECT_EQ(str(product_each(S(2, S(3, 4)))), "(2,12)");
  EXPECT_EQ(str(product_each(6)), "(6)");
  EXPECT_EQ(str(get(S(2, S(3, 4)), 1)), "(3,4)");
  EXPECT_EQ(str(get(S(2, S(3, 4)), 1, 0)), "3");
  EXPECT_EQ(str(get(IntTuple(5), 0)), "5");  // get<0> of an integer is the integer
  EXPECT_EQ(str(flatten(S(1, S(2, S(3)), 4))), "(1,2,3,4)");
  EXPECT_EQ(str(flatten(5)), "5");
  EXPECT_EQ(str(wrap(3)), "(3)");
  EXPECT_EQ(str(unwrap(S(S(S(3))))), "3");
  EXPECT_EQ(str(unwrap(S(S(3, 4)))), "(3,4)");
  EXPECT_EQ(str(append(S(1, 2), 3)), "(1,2,3)");
  EXPECT_EQ(str(append(4, 3)), "(4,3)");
  EXPECT_EQ(str(prepend(S(1, 2), 0)), "(0,1,2)");
  EXPECT_EQ(str(append(S(1), 3, 0)), "(1,0,0)");
  EXPECT_EQ(str(append(S(1, 2, 3), 3, 0)), "(1,2,3)");
  EXPECT_EQ(str(take(S(1, 2, 3, 4), 1, 3)), "(2,3)");
  EXPECT_EQ(str(remove(S(1, 2, 3), 1)), "(1,3)");
  EXPECT_EQ(str(replace(S(1, 2, 3), 1, S(7, 8))), "(1,(7,8),3)");
  EXPECT_EQ(str(repeat(1, 5)), "5");  // repeat<1>(x) is x itself
  EXPECT_EQ(str(repeat(3, _)), "(_,_,_)");
  EXPECT_EQ(str(tuple_repeat(1, 5)), "(5)");
  EXPECT_EQ(str(repeat_like(S(2, S(3, 4)), 0)), "(0,(0,0))");
  EXPECT_EQ(str(zip(S(S(1, 2), S(3, 4)))), "((1,3),(2,4))");
  EXPECT_EQ(str(zip(S(1, 2))), "((1,2))");  // first mode an integer: wrapped, as CuTe
  EXPECT_EQ(str(zip(S(1, 2, 3), S(4, 5, 6))), "((1,4),(2,5),(3,6))");
  EXPECT_EQ(str(transform_leaf(S(2, S(3, 4)), [](Int x) { return x * Int{10}; })), "(20,(30,40))");
  // Equality compares values and structure, not the static/dynamic flag.
  EXPECT_EQ(S(dyn(4), 2), S(4, 2));
  EXPECT_NE(S(4, 2), S(4, S(2)));
  EXPECT_NE(S(_, 0), S(0, 0));
  EXPECT_TRUE(has_underscore(S(1, S(_, 2))));
  EXPECT_FALSE(has_underscore(S(1, S(0, 2))));
  EXPECT_TRUE(is_underscore(X));
}

TEST(LayoutExact, ShapeDivAndCeilDiv) {
  // shape_div folds an integer divisor across a tuple: 40 -> (4/40 -> 1, rest 10), (5/10 -> 1,
  // rest 2), (6/2 = 3).
  EXPECT_EQ(str(shape_div(S(4, 5, 6), 40)), "(1,1,3)");
  EXPECT_EQ(str(shape_div(IntTuple(8), IntTuple(2))), "4");
  EXPECT_EQ(str(shape_div(IntTuple(2), IntTuple(8))), "1");  // rounds away from zero
  EXPECT_EQ(str(shape_div(IntTuple(-4), IntTuple(8))), "-1");
  EXPECT_EQ(str(shape_div(S(8, 4), S(2, 2))), "(4,2)");
  EXPECT_EQ(str(shape_div(12, S(2, 3))), "2");  // by the product
  EXPECT_EQ(str(shape_div(IntTuple(dyn(6)), 4)), "1");  // dynamic: no divisibility check
  // ceil_div: tuple / integer folds like shape_div; tuple / tuple pads the divisor with 1s.
  EXPECT_EQ(str(ceil_div(IntTuple(7), IntTuple(2))), "4");
  EXPECT_EQ(str(ceil_div(S(4, 6), 8)), "(1,3)");   // 4/8 -> 1 (rest 2), 6/2 -> 3
  EXPECT_EQ(str(ceil_div(S(3, 5), 2)), "(2,5)");   // 3/2 -> 2 (rest ceil(2/3) = 1), 5/1 -> 5
  EXPECT_EQ(str(ceil_div(S(10, 10), S(3))), "(4,10)");
  EXPECT_EQ(str(ceil_div(10, S(2, 3))), "2");
  EXPECT_EQ(str(elem_scale(S(2, 3), S(S(2, 2), 4))), "(8,12)");
}

TEST(LayoutExact, CongruentCompatible) {
  EXPECT_TRUE(congruent(S(2, S(3, 4)), S(1, S(5, 6))));
  EXPECT_TRUE(congruent(4, 5));
  EXPECT_FALSE(congruent(4, S(4)));
  EXPECT_FALSE(congruent(S(2, 3), S(2, S(3))));
  EXPECT_FALSE(congruent(S(2, 3), S(2, 3, 4)));
  // compatible(A, B): every coordinate of A is one of B (sizes agree at A's leaves).
  EXPECT_TRUE(compatible(24, S(2, S(3, 4))));
  EXPECT_TRUE(compatible(S(2, 12), S(2, S(3, 4))));
  EXPECT_TRUE(compatible(S(2, S(3, 4)), S(2, S(3, 4))));
  EXPECT_FALSE(compatible(S(2, S(3, 4)), S(2, 12)));
  EXPECT_FALSE(compatible(S(2, 12), S(3, 8)));
  EXPECT_FALSE(compatible(S(6), 6));
  EXPECT_FALSE(compatible(25, S(2, S(3, 4))));
  EXPECT_TRUE(weakly_congruent(S(1, 2), S(S(1, 2), S(3, 4))));
  EXPECT_TRUE(weakly_congruent(7, S(S(1, 2), S(3, 4))));
  EXPECT_FALSE(weakly_congruent(S(1, S(2, 3)), S(1, 2)));
}

// ---------------------------------------------------------------------------------------------
// Construction, size, cosize
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, MakeLayout) {
  EXPECT_EQ(str(L(S(2, 4))), "(2,4):(1,2)");
  EXPECT_EQ(str(make_layout(S(2, 4), LayoutLeft{})), "(2,4):(1,2)");
  EXPECT_EQ(str(make_layout(S(2, 4), LayoutRight{})), "(2,4):(4,1)");
  EXPECT_EQ(str(make_layout(S(2, S(2, 2)), LayoutRight{})), "(2,(2,2)):(4,(2,1))");
  EXPECT_EQ(str(L(S(S(2, 3), 4))), "((2,3),4):((1,2),6)");
  EXPECT_EQ(str(make_layout(S(S(2, 3), 4), LayoutRight{})), "((2,3),4):((12,4),1)");
  EXPECT_EQ(str(L(8)), "8:1");
  EXPECT_EQ(str(L(1)), "1:0");                    // a static size-1 mode gets stride 0
  EXPECT_EQ(str(L(S(4, 1, 2))), "(4,1,2):(1,0,4)");
  EXPECT_EQ(str(L(dyn(1))), "1:1");               // a dynamic 1 is not known to be 1
  EXPECT_EQ(str(compact_col_major(S(2, 3), Int{5})), "(5,10)");
  EXPECT_EQ(str(compact_row_major(S(2, 3, 4))), "(12,4,1)");
  // Concatenation: one mode per argument.
  EXPECT_EQ(str(make_layout(L(4, 1), L(S(2, 3), S(4, 8)))), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(str(make_layout(L(4, 1))), "(4):(1)");
  EXPECT_EQ(str(Layout{}), "1:0");
}

TEST(LayoutExact, MakeOrderedLayout) {
  // Order 0 gets stride 1; each mode's stride is the product of the modes of smaller order.
  EXPECT_EQ(str(make_ordered_layout(S(2, 2, 2, 2), S(0, 2, 3, 1))), "(2,2,2,2):(1,4,8,2)");
  EXPECT_EQ(str(make_ordered_layout(S(2, 2, 2), S(2, 0, 1))), "(2,2,2):(4,1,2)");
  EXPECT_EQ(str(make_ordered_layout(S(2, 3, 4), S(2, 0, 1))), "(2,3,4):(12,1,3)");
  EXPECT_EQ(str(make_ordered_layout(S(4, 32), S(1, 0))), "(4,32):(32,1)");  // seed: row-major thr
  // Nested: the order is congruent to the shape; the order-0 mode 4 -> 1, 2 -> 4, 3 -> 8.
  EXPECT_EQ(str(make_ordered_layout(S(S(2, 3), 4), S(S(1, 2), 0))), "((2,3),4):((4,8),1)");
  // Equal orders: only strictly smaller orders count (CuTe's compact_order), so both modes start
  // at stride 1 and the layout is not compact.
  EXPECT_EQ(str(make_ordered_layout(S(2, 2), S(0, 0))), "(2,2):(1,1)");
}

TEST(LayoutExact, SizeCosizeRankDepth) {
  Layout a = L(S(2, S(3, 4)), S(1, S(2, 6)));  // compact
  EXPECT_EQ(size(a).v, 24);
  EXPECT_EQ(cosize(a).v, 24);                  // 1*1 + 2*2 + 3*6 + 1
  EXPECT_EQ(rank(a), 2);
  EXPECT_EQ(depth(a), 2);
  Layout b = L(S(4, 3), S(2, 10));
  EXPECT_EQ(size(b).v, 12);
  EXPECT_EQ(cosize(b).v, 27);                  // 3*2 + 2*10 + 1
  EXPECT_EQ(depth(b), 1);
  EXPECT_EQ(cosize(L(8, 0)).v, 1);
  EXPECT_EQ(cosize(L(S(2, 2), S(-1, 4))).v, 6);  // strides by absolute value: 1 + 4 + 1
  Layout c = L(5, 3);
  EXPECT_EQ(rank(c), 1);
  EXPECT_EQ(depth(c), 0);
  EXPECT_EQ(cosize(c).v, 13);
  EXPECT_EQ(str(get(a, 1)), "(3,4):(2,6)");
  EXPECT_EQ(str(get(a, 1, 0)), "3:2");
  EXPECT_EQ(str(take(L(S(2, 3, 4)), 1, 3)), "(3,4):(2,6)");
  EXPECT_EQ(str(flatten(a)), "(2,3,4):(1,2,6)");
  EXPECT_EQ(str(append(L(4, 1), 3)), "(4,1,1):(1,0,0)");
  EXPECT_EQ(str(append(L(S(4, 2), S(1, 4)), L(3, 8))), "(4,2,3):(1,4,8)");
  EXPECT_EQ(str(prepend(L(S(4, 2), S(1, 4)), L(3, 8))), "(3,4,2):(8,1,4)");
  EXPECT_EQ(str(group(L(S(2, 3, 4)), 0, 2)), "((2,3),4):((1,2),6)");
  EXPECT_EQ(str(group(L(S(2, 3, 4, 5)), 1, 3)), "(2,(3,4),5):(1,(2,6),24)");
  EXPECT_EQ(str(zip(L(S(2, 3), S(1, 2)), L(S(4, 5), S(6, 24)))), "((2,4),(3,5)):((1,6),(2,24))");
}

// ---------------------------------------------------------------------------------------------
// Coordinates
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, CoordinatesOfTheDocsExample) {
  // CuTe docs 01_layout: shape (3,(2,3)), stride (3,(12,1)). Index 16 is the 2-D coordinate (1,5)
  // (16 = 1 + 3*5) and the natural coordinate (1,(1,2)) (5 = 1 + 2*2); its offset is
  // 1*3 + 1*12 + 2*1 = 17.
  IntTuple s = S(3, S(2, 3)), d = S(3, S(12, 1));
  Layout l = L(s, d);
  EXPECT_EQ(l(16), 17);
  EXPECT_EQ(l(1, 5), 17);
  EXPECT_EQ(l(make_coord(1, make_coord(1, 2))), 17);
  EXPECT_EQ(l(S(1, 5)), 17);
  EXPECT_EQ(str(idx2crd(16, s)), "(1,(1,2))");
  EXPECT_EQ(crd2idx(S(1, S(1, 2)), s).v, 16);   // 1 + 3*(1 + 2*2)
  EXPECT_EQ(crd2idx(16, s, d).v, 17);
  EXPECT_EQ(crd2idx(S(1, 5), s, d).v, 17);
  EXPECT_EQ(str(idx2crd(7, S(2, S(2, 2)))), "(1,(1,1))");
  EXPECT_EQ(str(crd2crd(S(1, 2), S(2, 3), 6)), "5");
  EXPECT_EQ(str(crd2crd(5, 6, S(2, 3))), "(1,2)");
  // The last mode takes what remains: offsets past the domain extend along it.
  EXPECT_EQ(L(S(2, 3), S(1, 10))(8), 40);       // (0, 4)
  EXPECT_EQ(L(S(2, S(3, 2)), S(1, S(10, 5)))(13), 1 + 10 * 0 + 5 * 2);  // (1,(0,2))
  // Underscores count as 0 in a coordinate.
  EXPECT_EQ(l(make_coord(_, make_coord(1, _))), 12);
}

TEST(LayoutExact, LayoutCoordinates) {
  // ((2,3),4):((1,8),2) is compact: 2:1, 4:2, 3:8. Offset 13 = 1*1 + 1*8 + 2*2.
  Layout l = L(S(S(2, 3), 4), S(S(1, 8), 2));
  EXPECT_EQ(str(get_hier_coord(l, 13)), "((1,1),2)");
  EXPECT_EQ(str(get_flat_coord(l, 13)), "(3,2)");  // (1,1) in (2,3) is 1 + 2*1 = 3
  EXPECT_EQ(get_1d_coord(l, 13), 15);              // 3 + 6*2
  EXPECT_EQ(l(15), 13);
  // Row-major (4,8):(8,1): offset 10 is row 1, column 2, the 1-D coordinate 1 + 4*2 = 9.
  Layout r = L(S(4, 8), LayoutRight{});
  EXPECT_EQ(str(get_flat_coord(r, 10)), "(1,2)");
  EXPECT_EQ(get_1d_coord(r, 10), 9);
  EXPECT_EQ(r(9), 10);
  EXPECT_EQ(str(get_flat_coord(L(8), 5)), "5");
  // A static size-1 mode always has coordinate 0, whatever its stride.
  EXPECT_EQ(str(get_hier_coord(L(S(2, 1, 4), S(4, 0, 1)), 6)), "(1,0,2)");
}

// ---------------------------------------------------------------------------------------------
// Slice and dice
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, SliceAndDice) {
  Layout l = L(S(S(2, 3), S(4, 5)), S(S(1, 2), S(6, 24)));
  // slice keeps the modes at the underscores (whole subtrees), flattening the hierarchy above.
  EXPECT_EQ(str(slice(make_coord(_, make_coord(1, _)), l)), "((2,3),5):((1,2),24)");
  EXPECT_EQ(str(slice_and_offset(make_coord(_, make_coord(1, _)), l)), "((2,3),5):((1,2),24)@6");
  EXPECT_EQ(str(dice(make_coord(_, make_coord(1, _)), l)), "(4):(6)");
  EXPECT_EQ(str(slice_and_offset(make_coord(make_coord(_, 1), _), l)), "(2,(4,5)):(1,(6,24))@2");
  EXPECT_EQ(str(dice(make_coord(make_coord(_, 1), _), l)), "(3):(2)");
  EXPECT_EQ(slice(make_coord(_, _), l), l);
  EXPECT_EQ(slice(_, l), l);
  EXPECT_EQ(str(slice(make_coord(1, 2), l)), "():()");
  EXPECT_EQ(str(dice(_, l)), "():()");
  EXPECT_EQ(dice(2, l), l);
  EXPECT_EQ(str(slice_and_offset(make_coord(make_coord(1, 2), make_coord(3, _)), l)), "(5):(24)@23");
  // Tuples too: slice((_,(1,_)), ((a,b),(c,d))) = ((a,b),d).
  EXPECT_EQ(str(slice(make_coord(_, make_coord(1, _)), S(S(2, 3), S(4, 5)))), "((2,3),5)");
  EXPECT_EQ(str(dice(make_coord(_, make_coord(1, _)), S(S(2, 3), S(4, 5)))), "(4)");
}

// The projections of seeds/local_partition_internals.md, checked against the definition of dice.
TEST(LayoutExact, DiceWithStepX) {
  Layout thr = L(S(2, 16, 1), S(16, 1, 0));
  EXPECT_EQ(str(dice(make_step(1, X, 1), thr)), "(2,1):(16,0)");
  EXPECT_EQ(str(dice(make_step(X, 1, 1), thr)), "(16,1):(1,0)");
  EXPECT_EQ(str(dice(make_step(1, 1, X), thr)), "(2,16):(16,1)");
  EXPECT_EQ(str(dice(make_coord(1, X, 1), make_coord(3, 4, _))), "(3,_)");
  EXPECT_EQ(to_string(dice(make_step(1, X, 1), make_tile(32, 64, 4))), "(32,4)");
  EXPECT_EQ(to_string(dice(make_step(X, 1, 1), make_tile(L(32), L(S(8, 8), S(8, 1)), 4))),
            "((8,8):(8,1),4)");
  // Index 21 in (2,16):(16,1) is (1,5); in the diced (2,1):(16,0) it is (1,0): dicing the layout
  // then taking coordinates equals taking coordinates then dicing.
  EXPECT_EQ(str(get_flat_coord(thr, 21)), "(1,5,0)");
  EXPECT_EQ(str(get_flat_coord(dice(make_step(1, X, 1), thr), 21)), "(1,0)");
}

// ---------------------------------------------------------------------------------------------
// Coalesce and filter
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, Coalesce) {
  // Docs: flatten (2,1,6):(1,6,2), drop the size-1 mode, 2:1 then 6:2 merge (2*1 == 2) -> 12:1.
  EXPECT_EQ(str(coalesce(L(S(2, S(1, 6)), S(1, S(6, 2))))), "12:1");
  EXPECT_EQ(str(coalesce(L(S(2, 4), S(1, 2)))), "8:1");
  EXPECT_EQ(str(coalesce(L(S(2, 4), S(4, 1)))), "(2,4):(4,1)");
  EXPECT_EQ(str(coalesce(L(S(4, 1), S(1, 0)))), "4:1");
  EXPECT_EQ(str(coalesce(L(S(1, 1), S(3, 5)))), "1:0");
  EXPECT_EQ(str(coalesce(L(S(2, 3), S(0, 0)))), "6:0");   // 2*0 == 0 merges broadcasts
  EXPECT_EQ(str(coalesce(L(S(2, S(3, 4)), S(1, S(2, 12))))), "(6,4):(1,12)");
  EXPECT_EQ(str(coalesce(L(S(S(2, 2), S(2, 2)), S(S(1, 2), S(4, 8))))), "16:1");
  // With a profile: only within the modes it names.
  EXPECT_EQ(str(coalesce(L(S(2, S(1, 6)), S(1, S(6, 2))), S(1, 1))), "(2,6):(1,2)");
  EXPECT_EQ(str(coalesce(L(S(2, S(4, 2)), S(1, S(2, 8))), S(1, 1))), "(2,8):(1,2)");
  EXPECT_EQ(str(coalesce(L(S(2, S(4, 2), 3), S(1, S(2, 8), 16)), S(1, 1))), "(2,8,3):(1,2,16)");
  // Dynamic shapes or extents never merge (the test needs static values).
  EXPECT_EQ(str(coalesce(L(S(dyn(2), 4), S(1, 2)))), "(2,4):(1,2)");
  EXPECT_EQ(str(coalesce(L(S(2, dyn(4)), S(1, 2)))), "(2,4):(1,2)");
  EXPECT_EQ(str(coalesce_shape(S(2, S(3, dyn(4)), dyn(5), 6))), "(6,20,6)");
}

TEST(LayoutExact, Filter) {
  // Stride-0 modes become size 1, then coalesce drops them: (1,(4,1)):(0,(1,0)) -> 4:1.
  EXPECT_EQ(str(filter(L(S(2, S(4, 3)), S(0, S(1, 0))))), "4:1");
  EXPECT_EQ(str(filter(L(S(4, 1, 2), S(1, 5, 4)))), "8:1");
  EXPECT_EQ(str(filter(L(8, 0))), "1:0");
  EXPECT_EQ(str(filter(L(S(2, S(4, 3)), S(0, S(1, 0))), S(1, 1))), "(1,4):(0,1)");
  EXPECT_EQ(str(filter_zeros(L(S(2, 3), S(0, 1)))), "(1,3):(0,1)");
  EXPECT_EQ(str(filter(L(S(2, 3), S(0, dyn(0))))), "3:0");  // only static zeros are filtered
}

// ---------------------------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, Composition) {
  // Docs: (6,2):(8,2) o (4,3):(3,1). A does not coalesce (6*8 != 2).
  //   4:3 -> stride 3 out of 6 leaves 2 at stride 24, rest stride 1; shape 4 = 2 there * 2 in the
  //          last mode (stride 2) -> (2,2):(24,2)
  //   3:1 -> 3 fits in 6                                              -> 3:8
  EXPECT_EQ(str(composition(L(S(6, 2), S(8, 2)), L(S(4, 3), S(3, 1)))), "((2,2),3):((24,2),8)");
  // Docs: 20:2 o (5,4):(4,1): an integer A scales B's strides.
  EXPECT_EQ(str(composition(L(20, 2), L(S(5, 4), S(4, 1)))), "(5,4):(8,2)");
  // Docs: (10,2):(16,4) o (5,4):(1,5).
  //   5:1 -> 5 fits in 10                                          -> 5:16
  //   4:5 -> stride 5 out of 10 leaves 2 at stride 80; 4 = 2 * 2 (last mode, stride 4)
  EXPECT_EQ(str(composition(L(S(10, 2), S(16, 4)), L(S(5, 4), S(1, 5)))), "(5,(2,2)):(16,(80,4))");
  // A stride-0 B stays as it is.
  EXPECT_EQ(str(composition(L(8, 3), L(4, 0))), "4:0");
  // B past A's domain: the last mode of A extends, (4,3):(3,1) o 24:1 -> (4,6):(3,1).
  EXPECT_EQ(str(composition(L(S(4, 3), S(3, 1)), L(24))), "(4,6):(3,1)");
  EXPECT_EQ(str(composition(L(S(4, 3), S(3, 1)), L(8))), "(4,2):(3,1)");
  // A trailing 1:0 caps the extension with stride 0: coalesce_x makes it 2:0, then 24 = 4*3*2.
  EXPECT_EQ(str(composition(L(S(4, 3, 1), S(3, 1, 0)), L(24))), "(4,3,2):(3,1,0)");
  // (4,6):(1,4) coalesces to 24:1, so any 3:1 is fine (no shape_div of 3 by 4 happens).
  EXPECT_EQ(str(composition(L(S(4, 6), S(1, 4)), L(3, 1))), "3:1");
  EXPECT_EQ(str(composition(L(4, -1), L(4))), "4:-1");
  // B's hierarchy is kept; composition distributes over its modes ((4,4) coalesces to 16:1).
  EXPECT_EQ(str(composition(L(S(4, 4)), L(S(S(2, 2), 4), S(S(1, 2), 4)))), "((2,2),4):((1,2),4)");
}

TEST(LayoutExact, CompositionWithTilers) {
  // Docs: (12,(4,8)):(59,(13,1)) o <3:4, 8:2>, mode by mode:
  //   12:59 o 3:4 = 3:236
  //   (4,8):(13,1) o 8:2: stride 2 out of 4 leaves 2 at stride 26; 8 = 2 * 4 (last mode, stride 1)
  Layout a = L(S(12, S(4, 8)), S(59, S(13, 1)));
  EXPECT_EQ(str(composition(a, make_tile(L(3, 4), L(8, 2)))), "(3,(2,4)):(236,(26,1))");
  // A shape tiler means <3:1, 8:1>: (4,8):(13,1) o 8:1 = (4,2):(13,1).
  EXPECT_EQ(str(composition(a, Tile(S(3, 8)))), "(3,(4,2)):(59,(13,1))");
  // An underscore leaves the mode alone; modes past the tiler are dropped.
  EXPECT_EQ(str(composition(a, make_tile(_, L(8, 2)))), "(12,(2,4)):(59,(26,1))");
  EXPECT_EQ(str(composition(L(S(4, 5, 6)), make_tile(2))), "(2):(1)");
  // An integer tiler on the whole layout: (4,8):(8,1) o 8:1 = (4,2):(8,1).
  EXPECT_EQ(str(composition(L(S(4, 8), S(8, 1)), Tile(8))), "(4,2):(8,1)");
}

// ---------------------------------------------------------------------------------------------
// Complement
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, Complement) {
  // Docs: (2,2):(1,6) in 24. By stride: 2:1 ends at 2; the gap up to 6 is 3:2; 2:6 ends at 12;
  // what is left of 24 is 2:12.
  EXPECT_EQ(str(complement(L(S(2, 2), S(1, 6)), 24)), "(3,2):(2,12)");
  // Docs: 4:2 in 24 -> the gap 2:1 below stride 2, then 24/8 = 3 copies at 8.
  EXPECT_EQ(str(complement(L(4, 2), 24)), "(2,3):(1,8)");
  EXPECT_EQ(str(complement(L(4, 1), 24)), "6:4");
  EXPECT_EQ(str(complement(L(S(2, 4), S(1, 6)))), "3:2");  // cotarget cosize = 20 < 24
  // Stride-0 modes are filtered first: (2,4,8):(8,1,0) is (2,4):(8,1): 4:1, gap 2:4, 2:8 ends at 16.
  EXPECT_EQ(str(complement(L(S(2, 4, 8), S(8, 1, 0)))), "2:4");
  EXPECT_EQ(str(complement(L(S(2, 4, 8), S(8, 1, 0)), 460)), "(2,29):(4,16)");  // ceil(460/16) = 29
  EXPECT_EQ(str(complement(L(S(S(2, 2), S(2, 2)), S(S(1, 4), S(8, 32))))), "(2,2):(2,16)");
  EXPECT_EQ(str(complement(L(1, 0), 5)), "5:1");
  EXPECT_EQ(str(complement(L(8, 0), 4)), "4:1");
  EXPECT_EQ(str(complement(L(S(4, 8), S(1, 4)), 32)), "1:0");  // nothing left
  // A shape as cotarget: ceil_div((32,4,4), 64) = (1,2,4) -> 8 copies at 64.
  EXPECT_EQ(str(complement(L(64), S(32, 4, 4))), "8:64");
  // A dynamic mode in the cotarget stays separate: (2, 4?) at strides (64, 128).
  Layout c = complement(L(64), S(32, 4, dyn(4)));
  EXPECT_EQ(str(c), "(2,4):(64,128)");
  EXPECT_FALSE(is_static(c));
}

// ---------------------------------------------------------------------------------------------
// Inverses
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, RightInverse) {
  // (4,8):(8,1): follow the strides from 1: 8:1 (extent 8), then 4:8. The result takes the shapes
  // in that order with their column-major strides in (4,8), i.e. 4 and 1.
  EXPECT_EQ(str(right_inverse(L(S(4, 8), S(8, 1)))), "(8,4):(4,1)");
  // (2,4,6):(4,1,8): 4:1, then 2:4, then 6:8; strides in (2,4,6) are (1,2,8).
  EXPECT_EQ(str(right_inverse(L(S(2, 4, 6), S(4, 1, 8)))), "(4,2,6):(2,1,8)");
  EXPECT_EQ(str(right_inverse(L(4, 2))), "1:0");               // no stride-1 mode
  EXPECT_EQ(str(right_inverse(L(S(4, 2), S(1, 5)))), "4:1");   // 4:1 ends at 4; no stride 4
  EXPECT_EQ(str(right_inverse(L(S(2, 4), S(0, 2)))), "1:0");
  EXPECT_EQ(str(right_inverse(L(4, -1))), "1:0");              // a negative stride never chains
  EXPECT_EQ(str(right_inverse(L(S(8, 4)))), "32:1");
  EXPECT_EQ(str(right_inverse(L(S(2, 4), S(1, 2)))), "8:1");
  // The seed's TV-layout derivation uses this one, see LayoutTV below.
  EXPECT_EQ(str(right_inverse(L(S(S(4, 4), S(4, 32)), S(S(512, 32), S(128, 1))))), "(32,16,4):(64,4,1)");
}

TEST(LayoutExact, LeftInverse) {
  // The modes by increasing stride; before each, a stride-0 mode covers the gap up to its stride
  // (CuTe 4.x: an offset in a hole maps to the start of the hole). 4:2: gap 2:0, then 4 at
  // position 1 of the domain -> (2,4):(0,1).
  EXPECT_EQ(str(left_inverse(L(4, 2))), "(2,4):(0,1)");
  // (4,2):(1,16): gap 1 (dropped), 4:1, gap 16/4 = 4 with stride 4 (the position of the 2), and
  // the last mode 2 -> (1,4,2):(0,1,4), which coalesces to (16,2):(1,4).
  EXPECT_EQ(str(left_inverse(L(S(4, 2), S(1, 16)))), "(16,2):(1,4)");
  EXPECT_EQ(str(left_inverse(L(S(2, 4, 6)))), "48:1");
  EXPECT_EQ(str(left_inverse(L(S(8, 4), S(4, 1)))), "(4,8):(8,1)");
}

// ---------------------------------------------------------------------------------------------
// Divides
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, LogicalDivide) {
  // Docs: (4,2,3):(2,1,8) / 4:2. T* = complement(4:2, 24) = (2,3):(1,8), and
  // A o ((4:2),(2,3):(1,8)) = ((2,2),(2,3)):((4,1),(2,8)).
  EXPECT_EQ(str(logical_divide(L(S(4, 2, 3), S(2, 1, 8)), Tile(L(4, 2)))), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(str(logical_divide(L(S(4, 2, 3), S(2, 1, 8)), L(4, 2))), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(str(logical_divide(L(S(8, 8)), Tile(S(4, 2)))), "((4,2),(2,4)):((1,4),(8,16))");
  EXPECT_EQ(str(logical_divide(L(24), 4)), "(4,6):(1,4)");
  EXPECT_EQ(str(logical_divide(L(S(8, 8)), make_tile(_, 4))), "(8,(4,2)):(1,(8,32))");
}

// Docs 02_layout_algebra: A = (9,(4,8)):(59,(13,1)), tiler <3:3, (2,4):(1,8)>.
//   mode 0: 9:59 / 3:3.  T* = complement(3:3, 9) = 3:1; 9:59 is an integer layout, so the strides
//           scale: (3:177, 3:59).
//   mode 1: (4,8):(13,1) / (2,4):(1,8).  T* = complement((2,4):(1,8), (4,8)) = 4:2 (the gap 4:2
//           between 2:1 and 4:8; ceil_div((4,8), 32) = (1,1) leaves nothing more).
//           2:1 -> 2:13;  4:8 -> stride 8 = 4 * 2 skips mode 4, leaves 2 of the 8 -> 4:2;
//           4:2 -> stride 2 leaves 2 of the 4 at stride 26, then 2 of the 8 -> (2,2):(26,1).
TEST(LayoutExact, DividesOfTheDocsExample) {
  Layout a = L(S(9, S(4, 8)), S(59, S(13, 1)));
  Tile t = make_tile(L(3, 3), L(S(2, 4), S(1, 8)));
  EXPECT_EQ(str(logical_divide(a, t)), "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  EXPECT_EQ(str(zipped_divide(a, t)), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  EXPECT_EQ(str(tiled_divide(a, t)), "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  EXPECT_EQ(str(flat_divide(a, t)), "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
}

TEST(LayoutExact, ZippedDivide) {
  // A single layout as tiler: (32,8):(1,32) covers 0..255 compactly, its complement in 8192 is
  // 32:256, and A is the identity on 0..8191.
  Layout a = L(S(256, 32), S(1, 256));
  EXPECT_EQ(str(zipped_divide(a, L(S(32, 8), S(1, 32)))), "((32,8),32):((1,32),256)");
  EXPECT_EQ(str(zipped_divide(a, Tile(S(32, 8)))), "((32,8),(8,4)):((1,256),(32,2048))");
  EXPECT_EQ(str(tiled_divide(a, Tile(S(32, 8)))), "((32,8),8,4):((1,256),32,2048)");
  EXPECT_EQ(str(flat_divide(a, Tile(S(32, 8)))), "(32,8,8,4):(1,256,32,2048)");
  // Modes past the tiler go to the rest: ((BM,BK),(M/BM,K/BK,L)).
  EXPECT_EQ(str(zipped_divide(L(S(64, 32, 3)), Tile(S(16, 8)))),
            "((16,8),(4,4,3)):((1,64),(16,512,2048))");
}

// A nested tiler follows the nesting of the modes: (8,(4,6)):(1,(8,32)) by (4,(2,3)).
//   8:1 / 4 = (4,2):(1,4);  4:8 / 2 = (2,2):(8,16);  6:32 / 3 = (3,2):(32,96).
// zipped_divide gathers the tile parts along the tiler's profile: ((4,(2,3)),(2,(2,2))).
TEST(LayoutExact, NestedTiler) {
  Layout a = L(S(8, S(4, 6)), S(1, S(8, 32)));
  Tile t = Tile(S(4, S(2, 3)));
  EXPECT_EQ(str(logical_divide(a, t)), "((4,2),((2,2),(3,2))):((1,4),((8,16),(32,96)))");
  EXPECT_EQ(str(zipped_divide(a, t)), "((4,(2,3)),(2,(2,2))):((1,(8,32)),(4,(16,96)))");
  EXPECT_EQ(str(tiled_divide(a, t)), "((4,(2,3)),2,(2,2)):((1,(8,32)),4,(16,96))");
  EXPECT_EQ(str(local_tile(a, t, make_coord(1, make_coord(1, 0)))), "(4,(2,3)):(1,(8,32))@20");
}

// seeds/local_partition_internals.md lists zipped_divide(gmem, thread layout) for four gmem
// layouts and four thread layouts. The printed results agree with the definitions; e.g.
// thread_2_gmem_4 = (32,256):(256,1) / (32,8):(8,1): T* = complement((32,8):(8,1), (32,256)) = 32:256
// (the gap below 8 is empty, the gap between 8 and 256 too); then 32:8 splits the 32 rows as
// 4 x 8 -> (4,8):(2048,1), 8:1 -> 8:256, 32:256 -> 32:8.
TEST(LayoutExact, ZippedDividesOfTheLocalPartitionSeed) {
  Layout g[4] = {L(S(256, 32)), L(S(256, 32), LayoutRight{}), L(S(32, 256)), L(S(32, 256), LayoutRight{})};
  Layout t[4] = {L(S(32, 8)), L(S(32, 8), LayoutRight{}), L(S(8, 32)), L(S(8, 32), LayoutRight{})};
  const char* want[4][4] = {
      {"((32,8),32):((1,32),256)", "((32,8),32):((32,1024),1)", "((32,8),32):((1,32),256)",
       "((32,8),32):((256,1),8)"},
      {"((32,8),32):((8,1),256)", "((32,8),32):((256,32),1)", "((32,8),32):((8,1),256)",
       "(((4,8),8),32):(((2048,1),256),8)"},
      {"((8,32),32):((1,8),256)", "((8,32),32):((32,256),1)", "((8,32),32):((1,8),256)",
       "((8,(4,8)),32):((256,(2048,1)),8)"},
      {"((8,32),32):((32,1),256)", "((8,32),32):((1024,32),1)", "((8,32),32):((32,1),256)",
       "((8,32),32):((1,256),8)"},
  };
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(str(zipped_divide(g[j], t[i])), want[i][j]) << i << " " << j;
}

// ---------------------------------------------------------------------------------------------
// Products
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, LogicalProduct) {
  // Docs: (2,2):(4,1) x 6:1. complement((2,2):(4,1), 4*6) = (2,3):(2,8); o 6:1 -> (2,3):(2,8).
  EXPECT_EQ(str(logical_product(L(S(2, 2), S(4, 1)), L(6, 1))), "((2,2),(2,3)):((4,1),(2,8))");
  // (2,2):(4,1) x (4,2):(2,1): cosize(B) = 8, A* = (2,4):(2,8) in 32;
  //   4:2 -> stride 2 skips mode 2:2, leaves 4:8;  2:1 -> 2:2.
  EXPECT_EQ(str(logical_product(L(S(2, 2), S(4, 1)), L(S(4, 2), S(2, 1)))), "((2,2),(4,2)):((4,1),(8,2))");
  // Docs 2-D: (2,5):(5,1) x <3:5, 4:6>, mode by mode:
  //   2:5 x 3:5: A* = complement(2:5, 2*11) = (5,3):(1,10); o 3:5 -> 3:10
  //   5:1 x 4:6: A* = complement(5:1, 5*19) = 19:5;        o 4:6 -> 4:30
  Layout a = L(S(2, 5), S(5, 1));
  Tile b = make_tile(L(3, 5), L(4, 6));
  EXPECT_EQ(str(logical_product(a, b)), "((2,3),(5,4)):((5,10),(1,30))");
  EXPECT_EQ(str(zipped_product(a, b)), "((2,5),(3,4)):((5,1),(10,30))");
  EXPECT_EQ(str(tiled_product(a, b)), "((2,5),3,4):((5,1),10,30)");
  EXPECT_EQ(str(flat_product(a, b)), "(2,5,3,4):(5,1,10,30)");
  // Shape tilers: (2,2) x <3:1, 4:1>: 2:1 x 3:1 = (2,3):(1,2); 2:2 x 4:1: A* = (2,2):(1,4) in 8,
  // o 4:1 -> (2,2):(1,4).
  EXPECT_EQ(str(logical_product(L(S(2, 2)), Tile(S(3, 4)))), "((2,3),(2,(2,2))):((1,2),(2,(1,4)))");
  EXPECT_EQ(str(logical_product(L(4, 1), L(3, 0))), "(4,3):(1,0)");
}

TEST(LayoutExact, BlockedAndRakedProduct) {
  // CuTe docs: (2,2):(1,2) x (3,4):(1,3). A* = complement(A, 4*12) = 12:4; A* o B = (3,4):(4,12);
  // product ((2,2),(3,4)):((1,2),(4,12)); blocked zips (A, A*oB), raked zips (A*oB, A); nothing
  // merges in either mode.
  Layout block = L(S(2, 2), S(1, 2)), tiler = L(S(3, 4), S(1, 3));
  EXPECT_EQ(str(blocked_product(block, tiler)), "((2,3),(2,4)):((1,4),(2,12))");
  EXPECT_EQ(str(raked_product(block, tiler)), "((3,2),(4,2)):((4,1),(12,2))");
  // (2,5):(5,1) x (3,4):(1,3): A* = complement(A, 10*12) = 12:10, A* o B = (3,4):(10,30). Blocked:
  // ((2,3),(5,4)):((5,10),(1,30)); CuTe 4.x does not coalesce the modes (2:5 and 3:10 would merge).
  EXPECT_EQ(str(blocked_product(L(S(2, 5), S(5, 1)), L(S(3, 4), S(1, 3)))), "((2,3),(5,4)):((5,10),(1,30))");
  EXPECT_EQ(str(raked_product(L(S(2, 5), S(5, 1)), L(S(3, 4), S(1, 3)))), "((3,2),(4,5)):((10,5),(30,1))");
  // Ranks differ: the smaller is padded with 1:0 modes. 4:1 x (2,3): (4,1) x (2,3) -> mode 0
  // (4,2):(1,4), mode 1 (1,3):(0,8), kept as they are.
  EXPECT_EQ(str(blocked_product(L(4), L(S(2, 3)))), "((4,2),(1,3)):((1,4),(0,8))");
  EXPECT_EQ(str(raked_product(L(4), L(S(2, 3)))), "((2,4),(3,1)):((4,1),(8,0))");
  // Rank 1: (4:1, 3:4) zipped is ((4,3)):((1,4)).
  EXPECT_EQ(str(blocked_product(L(4), L(3))), "((4,3)):((1,4))");
}

// seeds/cutedsl_elementwise_add_notes.md: make_layout_tv(thr (4,32):(32,1), val (4,4):(4,1)) gives
// tiler (16,128) and TV layout ((32,4),(4,4)):((64,4),(16,1)). Derived from the definitions
// (layout_mn = raked_product(thr, val); tv = right_inverse(layout_mn) o (size(thr), size(val))):
//   logical_product: cosize(val) = 16, A* = complement(thr, 2048) = 16:128, A* o val = (4,4):(512,128)
//   raked: ((4,4),(4,32)):((512,32),(128,1))  -> tiler (16,128)
//   right_inverse: coalesce -> (4,16,32):(512,32,1); chain 32:1, 16:32, 4:512 -> (32,16,4):(64,4,1)
//   o (128,16):(1,128):  128:1 -> (32,4):(64,4);  16:128 -> stride 128 = 32*4 leaves 4 of the 16,
//   and 4 of the 4 -> (4,4):(16,1).
TEST(LayoutExact, LayoutTV) {
  Layout thr = make_ordered_layout(S(4, 32), S(1, 0)), val = make_ordered_layout(S(4, 4), S(1, 0));
  Layout mn = raked_product(thr, val);
  EXPECT_EQ(str(mn), "((4,4),(4,32)):((512,32),(128,1))");
  EXPECT_EQ(str(product_each(mn.shape)), "(16,128)");
  Layout tv = composition(right_inverse(mn), L(S(size(thr), size(val))));
  EXPECT_EQ(str(tv), "((32,4),(4,4)):((64,4),(16,1))");
  // Thread t, value v sits at mn's offset t + 128 v: tv maps back to that (row, col) position.
  for (i64 t = 0; t < 128; ++t)
    for (i64 v = 0; v < 16; ++v) ASSERT_EQ(mn(tv(t, v)), t + 128 * v);
}

// ---------------------------------------------------------------------------------------------
// local_tile and local_partition
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, LocalTile) {
  // local_tile = inner partition: the coordinate picks the tile (the rest mode of zipped_divide).
  Layout a = L(S(8, 8), S(1, 8));
  EXPECT_EQ(str(local_tile(a, Tile(S(4, 4)), make_coord(1, 0))), "(4,4):(1,8)@4");
  EXPECT_EQ(str(local_tile(a, Tile(S(4, 4)), make_coord(0, 1))), "(4,4):(1,8)@32");
  EXPECT_EQ(str(local_tile(a, Tile(S(4, 4)), make_coord(1, 1))), "(4,4):(1,8)@36");
  EXPECT_EQ(str(local_tile(a, Tile(S(4, 4)), 3)), "(4,4):(1,8)@36");  // 3 in the rest (2,2) is (1,1)
  EXPECT_EQ(str(inner_partition(a, Tile(S(4, 4)), make_coord(1, 0))), "(4,4):(1,8)@4");
  // A Step projection keeps the tiler modes and coordinates that are not X.
  //   A (64,32) col-major, tile (16,_,4), coordinate (2,_,3): offset 2*16 + 3*4*64 = 800.
  Tile cta = make_tile(16, 8, 4);
  EXPECT_EQ(str(local_tile(L(S(64, 32)), cta, make_coord(2, 1, 3), make_step(1, X, 1))), "(16,4):(1,64)@800");
  //   With _ for k, the CTA keeps all 8 k-tiles: (16,4,8):(1,64,256).
  EXPECT_EQ(str(local_tile(L(S(64, 32)), cta, make_coord(2, 1, _), make_step(1, X, 1))), "(16,4,8):(1,64,256)@32");
  //   B (48,32): (8,4,8):(1,48,192) at n = 1 -> offset 8.
  EXPECT_EQ(str(local_tile(L(S(48, 32)), cta, make_coord(2, 1, _), make_step(X, 1, 1))), "(8,4,8):(1,48,192)@8");
  //   C (64,48): (16,8) at (2,1) -> offset 32 + 8*64 = 544.
  EXPECT_EQ(str(local_tile(L(S(64, 48)), cta, make_coord(2, 1, _), make_step(1, 1, X))), "(16,8):(1,64)@544");
  // A tiler with fewer modes than the layout: the coordinate is padded with underscores, so the
  // untiled modes are kept: (64,32,3) by (16,8) at (1,2) -> (16,8,3) at 16 + 2*8*64.
  EXPECT_EQ(str(local_tile(L(S(64, 32, 3)), Tile(S(16, 8)), make_coord(1, 2))), "(16,8,3):(1,64,2048)@1040");
  // seeds/tma_partition.md: local_tile(gA (M,K,L), (bM,bK), (_,_,_)) keeps (bM,bK,RestM,RestK,RestL).
  EXPECT_EQ(str(local_tile(L(S(256, 128, 2)), Tile(S(64, 32)), make_coord(_, _, _))),
            "(64,32,4,4,2):(1,256,64,8192,32768)@0");
}

TEST(LayoutExact, LocalPartition) {
  // local_partition = outer partition: the thread's coordinate picks its position within every
  // tile, and the result spans the rest modes.
  // CuTe's comment example: data (16,64), threads (2,16): thread 5 is (1,2) -> offset 1 + 2*16 = 33;
  // its elements step 2 rows and 16 columns: (8,4):(2,256).
  EXPECT_EQ(str(local_partition(L(S(16, 64)), L(S(2, 16)), 5)), "(8,4):(2,256)@33");
  // Row-major threads (4,8):(8,1) on (16,32): thread 10 is (1,2) -> 1 + 2*16 = 33.
  EXPECT_EQ(str(local_partition(L(S(16, 32)), L(S(4, 8), S(8, 1)), 10)), "(4,4):(4,128)@33");
  EXPECT_EQ(str(local_partition(L(S(16, 32)), L(S(4, 8), S(1, 4)), 10)), "(4,4):(4,128)@34");  // thread 10 is (2,2)
  EXPECT_EQ(str(outer_partition(L(S(16, 32)), Tile(S(4, 8)), make_coord(1, 2))), "(4,4):(4,128)@33");
  // The kernel-side form: one layout for all threads, and an offset per thread.
  LocalPartition lp = make_local_partition(L(S(16, 32)), L(S(4, 8), S(8, 1)));
  EXPECT_EQ(str(lp.layout), "(4,4):(4,128)");
  EXPECT_EQ(lp.offset(10), 33);
  EXPECT_EQ(lp.offset(31), 3 + 7 * 16);
  // The same tiler, inner vs outer: the inner partition at (1,2) is the contiguous 4x8 tile
  // (4,8):(1,16) at 4 + 2*8*16 = 260.
  EXPECT_EQ(str(inner_partition(L(S(16, 32)), Tile(S(4, 8)), make_coord(1, 2))), "(4,8):(1,16)@260");
}

// seeds/local_tile_and_local_partition.md: an (8,8) column-major matrix, 4x4 CTA tiles, a 2x2
// thread layout. The CTA tile is right: (4,4):(1,8). The seed then says thread 0 owns the top-left
// 2x2 corner, (2,2):(1,8), elements 0 1 8 9. That is the inner partition; local_partition is the
// outer partition: zipped_divide((4,4):(1,8), (2,2)) = ((2,2),(2,2)):((1,8),(2,16)) and thread 0
// takes coordinate (0,0) of the tile mode, leaving (2,2):(2,16): elements 0, 2, 16, 18 (every other
// row and column). The definitions win.
TEST(LayoutExact, LocalPartitionSeedCorrected) {
  Layout matrix = L(S(8, 8));
  EXPECT_EQ(str(matrix), "(8,8):(1,8)");
  OffsetLayout cta = local_tile(matrix, Tile(S(4, 4)), make_coord(0, 0));
  EXPECT_EQ(str(cta), "(4,4):(1,8)@0");
  Layout thr = L(S(2, 2));
  EXPECT_EQ(str(local_partition(cta.layout, thr, 0)), "(2,2):(2,16)@0");
  EXPECT_EQ(str(local_partition(cta.layout, thr, 1)), "(2,2):(2,16)@1");
  EXPECT_EQ(str(local_partition(cta.layout, thr, 2)), "(2,2):(2,16)@8");
  EXPECT_EQ(str(local_partition(cta.layout, thr, 3)), "(2,2):(2,16)@9");
  EXPECT_EQ(values(local_partition(cta.layout, thr, 0).layout), (std::vector<i64>{0, 2, 16, 18}));
  // What the seed describes (contiguous 2x2 corners) is local_tile with a (2,2) tiler.
  EXPECT_EQ(str(local_tile(cta.layout, Tile(S(2, 2)), make_coord(0, 0))), "(2,2):(1,8)@0");
}

// CuTe's projection example (tensor_impl.hpp comment): thr (2,16,1):(16,1,0) for A (M,K), B (N,K),
// C (M,N). Thread 21 is (1,5,0). With Step<1,X,1> the thread layout is (2,1):(16,0), where thread 21
// has coordinate (1,0): A (8,4) splits as ((2,1),(4,4)) and slicing (1,0) leaves (4,4):(2,8) at 1.
TEST(LayoutExact, LocalPartitionProjection) {
  Layout thr = L(S(2, 16, 1), S(16, 1, 0));
  EXPECT_EQ(str(local_partition(L(S(8, 32)), thr, 1, make_step(1, 1, X))), "(4,2):(2,128)@8");
  EXPECT_EQ(str(local_partition(L(S(32, 4)), thr, 1, make_step(X, 1, 1))), "(2,4):(16,32)@1");
  EXPECT_EQ(str(local_partition(L(S(8, 4)), thr, 21, make_step(1, X, 1))), "(4,4):(2,8)@1");
  EXPECT_EQ(str(local_partition(L(S(32, 4)), thr, 21, make_step(X, 1, 1))), "(2,4):(16,32)@5");
  EXPECT_EQ(str(local_partition(L(S(8, 32)), thr, 21, make_step(1, 1, X))), "(4,2):(2,128)@41");
}

// seeds/partition_C_derivation.md, step by step for gC = (128,128):(128,1), permutation
// (16,4):(4,1) in M and N, 16x16 threads, a 1x1x1 atom.
TEST(LayoutExact, PartitionCSeed) {
  Layout gC = L(S(128, 128), S(128, 1));
  Layout perm = L(S(16, 4), S(4, 1));
  // Step 1. complement((16,4):(4,1), 128) = 2:64, so (T,T*) = ((16,4),2):((4,1),64); composed with
  // 128:128 (an integer layout) the strides scale by 128 and the hierarchy of (T,T*) is kept. The
  // seed writes (16,4,2):(512,128,8192): the same function, but the definitions keep the nesting.
  EXPECT_EQ(str(complement(perm, 128)), "2:64");
  Layout t1 = logical_divide(gC, make_tile(perm, perm));
  EXPECT_EQ(str(t1), "(((16,4),2),((16,4),2)):(((512,128),8192),((4,1),64))");
  // Step 2. Divide by the atom (1:0 per mode): T* = complement(1:0, 128) = 128:1, and
  // ((16,4),2):((512,128),8192) o 128:1 flattens it (nothing coalesces). The seed's
  // ((1,1),(16,4,2,16,4,2)) drops a level of nesting and leaves the atom strides open; they are 0.
  Layout c = zipped_divide(t1, make_tile(L(1), L(1)));
  EXPECT_EQ(str(c), "((1,1),((16,4,2),(16,4,2))):((0,0),((512,128,8192),(4,1,64)))");
  // Step 3. Composing the atom mode with the TV layout (1,1):(0,0) changes nothing.
  Layout tv = composition(c, make_tile(L(S(1, 1), S(0, 0)), _));
  EXPECT_EQ(tv, c);
  // Step 4. Tile (_, (16,16)): each (16,4,2) / 16 = (16,(4,2)), zipped. The seed prints the fragment
  // mode as (1,(4,2),(4,2)); by zip2_by it is (1,((4,2),(4,2))), and the slice in step 5 flattens it.
  Layout thr = zipped_divide(tv, make_tile(_, make_tile(L(16), L(16))));
  EXPECT_EQ(str(thr), "((1,(16,16)),(1,((4,2),(4,2)))):((0,(512,4)),(0,((128,8192),(1,64))))");
  // Step 5. Thread (m,n) = (0,0) and (1,1), (15,15): offsets 0, 512 + 4, 15*512 + 15*4 (row 60,
  // column 60), as the seed says.
  IntTuple frag = make_coord(_, make_coord(_, _));
  EXPECT_EQ(str(slice_and_offset(make_coord(make_coord(0, make_coord(0, 0)), frag), thr)),
            "(1,(4,2),(4,2)):(0,(128,8192),(1,64))@0");
  EXPECT_EQ(slice_and_offset(make_coord(make_coord(0, make_coord(1, 1)), frag), thr).offset, 516);
  EXPECT_EQ(slice_and_offset(make_coord(make_coord(0, make_coord(15, 15)), frag), thr).offset, 60 * 128 + 60);
  // Thread 0's 64 elements: rows {0..3, 64..67} x columns {0..3, 64..67}.
  Layout t0 = slice(make_coord(make_coord(0, make_coord(0, 0)), frag), thr);
  std::vector<i64> want;
  for (i64 r : {0, 1, 2, 3, 64, 65, 66, 67})
    for (i64 col : {0, 1, 2, 3, 64, 65, 66, 67}) want.push_back(r * 128 + col);
  EXPECT_EQ(sorted(values(t0)), sorted(want));
}

// Issue 25, item 4: m16n8k16 atoms 2x2x1 with the permutation (32,32,16) on (64,64):(64,1). CuTe
// 4.7.0 answers with the rest of N nested ((2,2):(16,32)) for a tensor of run-time ints and flat
// (4:16) for Int<64> values: it merges two modes only where static values show that they chain.
// Thread 37 is (m,n) = (1,0) of the atoms, lane 5: offsets as CuTe prints them.
TEST(LayoutExact, PartitionDynamicTensorKeepsRestNesting) {
  TiledMMA mma = make_tiled_mma(mma_atom_sm80_16x8x16(), L(S(2, 2, 1)), make_tile(L(32), L(32), L(16)));
  Layout dynamic = L(make_dynamic(S(64, 64)), make_dynamic(S(64, 1)));
  Layout fixed = L(S(64, 64), S(64, 1));
  EXPECT_EQ(make_dynamic(S(64, S(1, 2))), S(64, S(1, 2)));
  EXPECT_FALSE(is_static(make_dynamic(IntTuple(1))));
  EXPECT_TRUE(is_underscore(get(make_dynamic(S(_, 2)), 0)));  // `_` stays `_`
  EXPECT_EQ(str(mma.get_slice(0).partition_C(dynamic)), "((2,2),2,(2,2)):((1,512),2048,(16,32))@0");
  EXPECT_EQ(str(mma.get_slice(0).partition_C(fixed)), "((2,2),2,4):((1,512),2048,16)@0");
  EXPECT_EQ(str(mma.get_slice(37).partition_B(dynamic)), "((2,2),(2,2),4):((1,8),(1024,2048),16)@66");
  EXPECT_EQ(str(mma.get_slice(37).partition_B(fixed)), "((2,2),4,4):((1,8),1024,16)@66");
  EXPECT_EQ(str(mma.get_slice(37).partition_A(dynamic)), "((2,2,2),2,4):((1,512,8),2048,16)@1090");
  // A bare shape of run-time extents: CuTe's make_layout(make_shape(M, N)), leading stride static 1.
  Layout bare = make_layout(make_dynamic(S(64, 64)));
  EXPECT_TRUE(as_int(get(bare.stride, 0)).is_constant(1));
  EXPECT_FALSE(as_int(get(bare.stride, 1)).is_static());
  EXPECT_EQ(str(mma.get_slice(37).partition_C(bare)), "((2,2),2,(2,2)):((64,8),32,(1024,2048))@145");
}

// ---------------------------------------------------------------------------------------------
// Printing and tilers
// ---------------------------------------------------------------------------------------------

TEST(LayoutExact, Printing) {
  EXPECT_EQ(str(L(S(2, S(3, 4)), S(1, S(2, 6)))), "(2,(3,4)):(1,(2,6))");
  EXPECT_EQ(str(L(8, -1)), "8:-1");
  EXPECT_EQ(str(S(_, 1)), "(_,1)");
  EXPECT_EQ(str(L(S(dyn(4), 2))), "(4,2):(1,4)");  // no marks for static or dynamic
  EXPECT_EQ(str(OffsetLayout{L(4, 2), 6}), "4:2@6");
  EXPECT_EQ(to_string(make_tile(L(3, 3), _, 4, L(S(2, 4), S(1, 8)))), "(3:3,_,4,(2,4):(1,8))");
  EXPECT_EQ(to_string(Tile(S(4, S(2, 8)))), "(4,(2,8))");
  // CuTe's print_layout table: one column per mode-1 index, one row per mode-0 index.
  EXPECT_EQ(print_layout(L(S(2, 3))),
            "(2,3):(1,2)\n"
            "      0   1   2 \n"
            "    +---+---+---+\n"
            " 0  | 0 | 2 | 4 |\n"
            "    +---+---+---+\n"
            " 1  | 1 | 3 | 5 |\n"
            "    +---+---+---+\n");
  EXPECT_EQ(print_layout(L(S(2, 2), S(8, 1))),
            "(2,2):(8,1)\n"
            "       0    1 \n"
            "    +----+----+\n"
            " 0  |  0 |  1 |\n"
            "    +----+----+\n"
            " 1  |  8 |  9 |\n"
            "    +----+----+\n");
  EXPECT_THROW(print_layout(L(S(2, 2, 2))), LayoutError);
}

TEST(LayoutExact, TileSize) {
  EXPECT_EQ(size(Tile(S(4, 8))).v, 32);
  EXPECT_EQ(size(make_tile(L(S(2, 4), S(1, 8)), 3)).v, 24);
  EXPECT_EQ(size(Tile(L(S(32, 8), S(1, 32)))).v, 256);
  EXPECT_THROW(size(make_tile(_, 4)), LayoutError);
  EXPECT_EQ(get(make_tile(16, 8, 4), 1).leaf().shape, IntTuple(8));
}
