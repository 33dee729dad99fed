// Compile-time behaviour of the layout algebra: a layout built from static integers stays static
// through every operation and is computed by the compiler (each check below is a static_assert on a
// constexpr value); a dynamic leaf (loom::dyn) marks what depends on it as dynamic while the values
// stay right; and a static layout that breaks a divisibility rule is not a constant expression (it
// is rejected at build time, as CuTe's static_asserts reject it).
//
// The runtime TESTs at the bottom repeat a few of the checks so that the binary has test cases and
// the values show up in a failure message if a static_assert is ever relaxed.
#include <gtest/gtest.h>

#include <type_traits>

#include "layout/layout.hpp"

using namespace loom;

namespace {

// True when F{}() is a constant expression, i.e. the compiler evaluated it without reaching
// loom::fail().
template <class F>
constexpr bool folds() {
  return requires { typename std::integral_constant<int, (F{}(), 0)>; };
}

constexpr IntTuple S2(IntTuple a, IntTuple b) { return make_tuple(a, b); }

// ---------------------------------------------------------------------------------------------
// Static layouts stay static, and the results are computed at compile time
// ---------------------------------------------------------------------------------------------

constexpr Layout kCol = make_layout(make_shape(4, 8));
static_assert(is_static(kCol));
static_assert(kCol == make_layout(make_shape(4, 8), make_stride(1, 4)));
static_assert(kCol(3, 5) == 23 && kCol(23) == 23 && kCol(make_coord(3, 5)) == 23);
static_assert(size(kCol).v == 32 && size(kCol).is_static() && cosize(kCol).v == 32);
static_assert(rank(kCol) == 2 && depth(kCol) == 1);

constexpr Layout kRow = make_layout(make_shape(4, 8), LayoutRight{});
static_assert(kRow == make_layout(make_shape(4, 8), make_stride(8, 1)) && is_static(kRow));

constexpr Layout kOrdered = make_ordered_layout(make_shape(2, 2, 2, 2), make_shape(0, 2, 3, 1));
static_assert(kOrdered == make_layout(make_shape(2, 2, 2, 2), make_stride(1, 4, 8, 2)));

// coalesce
constexpr Layout kCoal = coalesce(make_layout(make_shape(2, make_shape(1, 6)), make_stride(1, make_stride(6, 2))));
static_assert(kCoal == make_layout(12, 1) && is_static(kCoal));

// composition (docs): (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8)
constexpr Layout kComp = composition(make_layout(make_shape(6, 2), make_stride(8, 2)),
                                     make_layout(make_shape(4, 3), make_stride(3, 1)));
static_assert(kComp == make_layout(make_shape(make_shape(2, 2), 3), make_stride(make_stride(24, 2), 8)));
static_assert(is_static(kComp));

// complement (docs)
constexpr Layout kCompl = complement(make_layout(make_shape(2, 2), make_stride(1, 6)), 24);
static_assert(kCompl == make_layout(make_shape(3, 2), make_stride(2, 12)) && is_static(kCompl));
static_assert(complement(make_layout(4, 2), 24) == make_layout(make_shape(2, 3), make_stride(1, 8)));

// inverses
static_assert(right_inverse(make_layout(make_shape(4, 8), make_stride(8, 1))) ==
              make_layout(make_shape(8, 4), make_stride(4, 1)));
static_assert(left_inverse(make_layout(4, 2)) == make_layout(make_shape(2, 4), make_stride(0, 1)));

// divides
constexpr Layout kA = make_layout(make_shape(256, 32), make_stride(1, 256));
constexpr Layout kZ = zipped_divide(kA, Tile(make_layout(make_shape(32, 8), make_stride(1, 32))));
static_assert(kZ == make_layout(S2(make_shape(32, 8), 32), S2(make_stride(1, 32), 256)));
static_assert(is_static(kZ));
constexpr Layout kLd = logical_divide(make_layout(make_shape(4, 2, 3), make_stride(2, 1, 8)), Tile(make_layout(4, 2)));
static_assert(kLd == make_layout(S2(make_shape(2, 2), make_shape(2, 3)), S2(make_stride(4, 1), make_stride(2, 8))));
constexpr Layout kTd = tiled_divide(kA, Tile(make_shape(32, 8)));
static_assert(kTd == make_layout(make_shape(make_shape(32, 8), 8, 4), make_stride(make_stride(1, 256), 32, 2048)));
constexpr Layout kFd = flat_divide(kA, Tile(make_shape(32, 8)));
static_assert(kFd == make_layout(make_shape(32, 8, 8, 4), make_stride(1, 256, 32, 2048)) && is_static(kFd));

// products
constexpr Layout kBlock = make_layout(make_shape(2, 2), make_stride(1, 2));
constexpr Layout kTiler = make_layout(make_shape(3, 4), make_stride(1, 3));
constexpr Layout kBlocked = blocked_product(kBlock, kTiler);
static_assert(kBlocked == make_layout(S2(make_shape(2, 3), make_shape(2, 4)), S2(make_stride(1, 4), make_stride(2, 12))));
constexpr Layout kRaked = raked_product(kBlock, kTiler);
static_assert(kRaked == make_layout(S2(make_shape(3, 2), make_shape(4, 2)), S2(make_stride(4, 1), make_stride(12, 2))));
static_assert(is_static(kBlocked) && is_static(kRaked));
static_assert(logical_product(make_layout(make_shape(2, 2), make_stride(4, 1)), make_layout(6, 1)) ==
              make_layout(S2(make_shape(2, 2), make_shape(2, 3)), S2(make_stride(4, 1), make_stride(2, 8))));

// partitions
constexpr OffsetLayout kTile = local_tile(make_layout(make_shape(8, 8)), Tile(make_shape(4, 4)), make_coord(1, 0));
static_assert(kTile.layout == make_layout(make_shape(4, 4), make_stride(1, 8)) && kTile.offset == 4);
static_assert(is_static(kTile.layout));
constexpr OffsetLayout kPart = local_partition(make_layout(make_shape(16, 32)), make_layout(make_shape(4, 8), make_stride(8, 1)), 10);
static_assert(kPart.layout == make_layout(make_shape(4, 4), make_stride(4, 128)) && kPart.offset == 33);
constexpr OffsetLayout kProj = local_tile(make_layout(make_shape(64, 32)), make_tile(16, 8, 4), make_coord(2, 1, 3), make_step(1, X, 1));
static_assert(kProj.layout == make_layout(make_shape(16, 4), make_stride(1, 64)) && kProj.offset == 800);

// coordinates and integer arithmetic
static_assert(idx2crd(16, make_shape(3, make_shape(2, 3))) == make_coord(1, make_coord(1, 2)));
static_assert(crd2idx(make_coord(1, make_coord(1, 2)), make_shape(3, make_shape(2, 3))).v == 16);
static_assert(crd2idx(16, make_shape(3, make_shape(2, 3)), make_stride(3, make_stride(12, 1))).v == 17);
static_assert(get_flat_coord(make_layout(make_shape(make_shape(2, 3), 4), make_stride(make_stride(1, 8), 2)), 13) ==
              make_coord(3, 2));
static_assert(shape_div(make_shape(4, 5, 6), 40) == make_shape(1, 1, 3));
static_assert(ceil_div(make_shape(4, 6), 8) == make_shape(1, 3));

// ---------------------------------------------------------------------------------------------
// A dynamic leaf makes what depends on it dynamic; the values stay right
// ---------------------------------------------------------------------------------------------

constexpr Int kM = dyn(256), kN = dyn(128);
static_assert(!kM.is_static() && (kM * Int{2}).dyn && !(Int{3} * Int{2}).dyn);

constexpr Layout kG = make_layout(make_shape(kM, kN));  // (M,N) column-major: stride (1, M)
static_assert(!is_static(kG) && !is_static(kG.shape) && !is_static(kG.stride));
static_assert(is_static(get(kG, 0).stride));             // the unit stride is still static
static_assert(kG == make_layout(make_shape(256, 128), make_stride(1, 256)));  // == ignores the flags
static_assert(!size(kG).is_static() && size(kG).v == 32768);

// Tiling a dynamic matrix by a static tiler: the tile shape stays static, the rest does not.
constexpr Layout kGz = zipped_divide(kG, Tile(make_shape(64, 32)));
static_assert(kGz == make_layout(S2(make_shape(64, 32), make_shape(4, 4)), S2(make_stride(1, 256), make_stride(64, 8192))));
static_assert(is_static(get(kGz, 0).shape) && !is_static(get(kGz, 0).stride));  // column stride is M
static_assert(!is_static(get(kGz, 1).shape));
constexpr OffsetLayout kGt = local_tile(kG, Tile(make_shape(64, 32)), make_coord(1, 2));
static_assert(kGt.layout == make_layout(make_shape(64, 32), make_stride(1, 256)) && kGt.offset == 64 + 2 * 32 * 256);
static_assert(is_static(kGt.layout.shape) && !is_static(kGt.layout.stride));

// CuTe's logical_divide "enforcement for dynamic cases": a dynamic vector by a static tile keeps
// the tile mode and the rest stride static; only the rest size is dynamic.
constexpr Layout kD1 = logical_divide(make_layout(dyn(2)), make_layout(32));
static_assert(kD1 == make_layout(make_shape(32, 1), make_stride(1, 32)));
static_assert(is_static(get(kD1, 0)) && is_static(get(kD1, 1).stride) && !is_static(get(kD1, 1).shape));
constexpr Layout kD2 = logical_divide(make_layout(dyn(48)), make_layout(32));
static_assert(kD2 == make_layout(make_shape(32, 2), make_stride(1, 32)) && !is_static(get(kD2, 1).shape));
constexpr Layout kD3 = logical_divide(make_layout(dyn(32)), make_layout(48));
static_assert(kD3 == make_layout(make_shape(48, 1), make_stride(1, 48)) && is_static(get(kD3, 0)));

// A static tile of a dynamic vector with a static unit stride is fully static.
constexpr Layout kC1 = composition(make_layout(dyn(12), 1), make_layout(4, 1));
static_assert(kC1 == make_layout(4, 1) && is_static(kC1));
// A dynamic stride makes the composed stride dynamic.
constexpr Layout kC2 = composition(make_layout(12, dyn(3)), make_layout(4, 2));
static_assert(kC2 == make_layout(4, 6) && is_static(kC2.shape) && !is_static(kC2.stride));

// complement in a dynamic cotarget: dynamic rest size, static stride.
constexpr Layout kCd = complement(make_layout(4, 1), dyn(32));
static_assert(kCd == make_layout(8, 4) && !is_static(kCd.shape) && is_static(kCd.stride));

// coalesce needs static values to merge: (2,4):(1,2) merges, (2,dyn 4):(1,2) does not.
static_assert(coalesce(make_layout(make_shape(2, 4), make_stride(1, 2))) == make_layout(8, 1));
static_assert(coalesce(make_layout(make_shape(2, dyn(4)), make_stride(1, 2))) ==
              make_layout(make_shape(2, 4), make_stride(1, 2)));

// Offsets through dynamic strides are dynamic values.
static_assert(!crd2idx(make_coord(1, 2), kG.shape, kG.stride).is_static());
static_assert(crd2idx(make_coord(1, 2), kG.shape, kG.stride).v == 1 + 2 * 256);
static_assert(crd2idx(make_coord(1, 2), kCol.shape, kCol.stride).is_static());

// ---------------------------------------------------------------------------------------------
// Static divisibility failures are not constant expressions
// ---------------------------------------------------------------------------------------------

// (4,6):(1,5) does not coalesce; 6:1 takes the 4 of the first mode, and 4 does not divide 6.
struct BadComposition {
  constexpr int operator()() const {
    return int(size(composition(make_layout(make_shape(4, 6), make_stride(1, 5)), make_layout(6, 1))).v);
  }
};
// The same with a 2: 2 divides 4.
struct GoodComposition {
  constexpr int operator()() const {
    return int(size(composition(make_layout(make_shape(4, 6), make_stride(1, 5)), make_layout(2, 1))).v);
  }
};
// Dynamic shapes waive the check (CuTe: "Waive dynamic assertion").
struct DynamicComposition {
  constexpr int operator()() const {
    return int(size(composition(make_layout(make_shape(dyn(4), dyn(6)), make_stride(1, 5)), make_layout(6, 1))).v);
  }
};
struct BadShapeDiv {
  constexpr int operator()() const { return int(value(shape_div(IntTuple(6), IntTuple(4)))); }
};
struct BadComplement {  // (2,2):(1,1) is not injective
  constexpr int operator()() const {
    return int(size(complement(make_layout(make_shape(2, 2), make_stride(1, 1)), 8)).v);
  }
};
struct BadDivide {  // (4,6):(1,5) / 6: the tile takes the 4 of the first mode, and 4 does not divide 6
  constexpr int operator()() const {
    return int(size(logical_divide(make_layout(make_shape(4, 6), make_stride(1, 5)), make_layout(6))).v);
  }
};
static_assert(!folds<BadComposition>());
static_assert(folds<GoodComposition>());
static_assert(folds<DynamicComposition>());
static_assert(!folds<BadShapeDiv>());
static_assert(!folds<BadComplement>());
static_assert(!folds<BadDivide>());

}  // namespace

// ---------------------------------------------------------------------------------------------
// Runtime mirror
// ---------------------------------------------------------------------------------------------

TEST(LayoutStatic, ValuesComputedAtCompileTime) {
  EXPECT_EQ(kZ, make_layout(S2(make_shape(32, 8), 32), S2(make_stride(1, 32), 256)));
  EXPECT_TRUE(is_static(kZ));
  EXPECT_EQ(kTile.offset, 4);
  EXPECT_EQ(kPart.offset, 33);
  EXPECT_EQ(kComp, make_layout(make_shape(make_shape(2, 2), 3), make_stride(make_stride(24, 2), 8)));
}

TEST(LayoutStatic, DynamicLeavesPropagate) {
  EXPECT_FALSE(is_static(kG));
  EXPECT_TRUE(is_static(get(kGz, 0).shape));
  EXPECT_FALSE(is_static(get(kGz, 1).shape));
  EXPECT_EQ(kGt.offset, 16448);
  EXPECT_TRUE(is_static(kC1));
  EXPECT_FALSE(is_static(kCd.shape));
}

TEST(LayoutStatic, DivisibilityFailuresThrowAtRunTime) {
  EXPECT_THROW(BadComposition{}(), LayoutError);
  EXPECT_NO_THROW(GoodComposition{}());
  EXPECT_NO_THROW(DynamicComposition{}());
  EXPECT_THROW(BadShapeDiv{}(), LayoutError);
  EXPECT_THROW(BadComplement{}(), LayoutError);
  EXPECT_THROW(BadDivide{}(), LayoutError);
}
