// Issue 12 in the layout core: on the host at run time every multiply, add, subtract, negation and
// division is checked, and an overflow is a LayoutError instead of a wrapped value; in constant
// evaluation the same functions run unchecked (an overflow there does not compile). The negative
// strides that would give negative shapes are refused, and coords_from_offsets says when
// get_hier_coord can read a coordinate back.
#include <gtest/gtest.h>

#include <string>

#include "layout_test_util.hpp"

using namespace loom;
using namespace loomtest;

namespace {
constexpr i64 kMax = 9223372036854775807LL;
constexpr i64 kMin = -kMax - 1;
constexpr i64 k62 = i64(1) << 62;

bool overflows(std::function<void()> const& f) {
  try {
    f();
  } catch (LayoutError const& e) {
    return std::string(e.what()) == kOverflowMessage;
  }
  return false;
}
}  // namespace

TEST(LayoutOverflow, IntArithmetic) {
  EXPECT_TRUE(overflows([] { (void)(Int{k62} * Int{2}); }));
  EXPECT_TRUE(overflows([] { (void)(Int{kMax} + Int{1}); }));
  EXPECT_TRUE(overflows([] { (void)(Int{kMin} - Int{1}); }));
  EXPECT_TRUE(overflows([] { (void)(Int{kMin} / Int{-1}); }));  // traps (SIGFPE) when unchecked
  EXPECT_TRUE(overflows([] { (void)abs(Int{kMin}); }));
  EXPECT_EQ((Int{kMin} % Int{-1}).v, 0);  // no trap either
  EXPECT_EQ((Int{k62} * Int{-2}).v, kMin);
  EXPECT_EQ((Int{kMax} - Int{kMax}).v, 0);
}

TEST(LayoutOverflow, ConstantEvaluationIsUnchanged) {
  // The checks sit behind __builtin_is_constant_evaluated(): these fold as before.
  static_assert((Int{k62} * Int{-2}).v == kMin);
  static_assert(make_layout(make_shape(4, 8), make_stride(1, 4))(31) == 31);
  static_assert(cosize(make_layout(make_shape(4, 8), make_stride(8, 1))).v == 32);
  SUCCEED();
}

TEST(LayoutOverflow, Evaluation) {
  EXPECT_TRUE(overflows([] { (void)L(3, k62)(2); }));
  EXPECT_EQ(L(2, k62)(1), k62);
  EXPECT_TRUE(overflows([] { (void)cosize(L(2, kMin)); }));
  EXPECT_TRUE(overflows([] { (void)crd2idx(make_coord(1, 1), S(2, 2), S(k62, k62)); }));
  EXPECT_TRUE(overflows([] { (void)L(S(2, 2), S(k62, k62))(1, 1); }));
  EXPECT_TRUE(overflows([] { (void)local_partition(L(S(8, 8), S(1, k62)), L(S(2, 4), S(4, 1)), 5); }));
}

TEST(LayoutOverflow, Algebra) {
  EXPECT_TRUE(overflows([] { (void)composition(L(2, i64(1) << 32), L(2, i64(1) << 32)); }));
  EXPECT_TRUE(overflows([] { (void)complement(L(4, 1), IntTuple(kMax)); }));
  EXPECT_TRUE(overflows([] { (void)logical_product(L(S(2, 2), S(1, 2)), L(2, k62)); }));
  EXPECT_TRUE(overflows([] { (void)logical_product(L(2, -1), L(2, kMin)); }));
  // Large but exact: the values of the result are those of the argument.
  EXPECT_EQ(str(logical_divide(L(S(4, 4), S(1, k62)), L(2, 1))), "(2,(2,4)):(1,(2,4611686018427387904))");
}

TEST(LayoutOverflow, NegativeStrides) {
  // CuTe 4.7.0 answers these with negative shapes, which are no layouts.
  expect_rejects([] { (void)complement(L(S(4, 8), S(-1, 4)), IntTuple(24)); }, "complement: a negative stride");
  expect_rejects([] { (void)complement(L(4, -1), IntTuple(8)); }, "complement: a negative stride");
  expect_rejects([] { (void)left_inverse(L(4, -2)); }, "left_inverse: a negative stride");
  expect_rejects([] { (void)left_inverse(L(S(2, 3), S(3, -1))); }, "left_inverse: a negative stride");
  // Defined there and within the contract: kept.
  EXPECT_EQ(str(right_inverse(L(S(4, 8), S(-1, 4)))), "1:0");
  EXPECT_EQ(str(composition(L(4, -1), L(4, 1))), "4:-1");
  EXPECT_EQ(str(coalesce(L(S(2, 3), S(-1, -2)))), "6:-1");
}

TEST(LayoutOverflow, CoordsFromOffsets) {
  EXPECT_TRUE(coords_from_offsets(L(S(4, 8), S(1, 4))));
  EXPECT_TRUE(coords_from_offsets(L(S(4, 8), S(8, 1))));
  EXPECT_TRUE(coords_from_offsets(L(S(4, 2, 6), S(24, 12, 1))));  // gaps, each a multiple of the extent
  EXPECT_TRUE(coords_from_offsets(L(S(1, 4), S(7, 1))));          // size-1 modes take no part
  EXPECT_FALSE(coords_from_offsets(L(S(2, 2), S(1, 1))));         // not injective
  EXPECT_FALSE(coords_from_offsets(L(S(2, 3), S(1, 3))));         // injective, but 3 is no multiple of 2
  EXPECT_FALSE(coords_from_offsets(L(S(2, 4), S(4, -1))));        // negative
  EXPECT_FALSE(coords_from_offsets(L(S(4, 2), S(1, 0))));         // stride 0
}
