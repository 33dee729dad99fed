// The device data path (layout/tensor.hpp) run on the host: global and identity tensors tiled and
// partitioned through local_tile / partition_S / partition_C, checked element by element against
// the algebra applied to plain layouts (the offsets of a column-major index layout, turned into
// coordinates by idx2crd), and the tables against direct evaluation.
#include <gtest/gtest.h>

#include <vector>

#include "layout/print.hpp"
#include "layout/tensor.hpp"

namespace {

using namespace loom;

TEST(LayoutTensor, BasisStridesPrintAndCompose) {
  Layout id = make_layout(make_shape(4, 8), make_stride(basis(0), basis(1)));
  EXPECT_EQ(to_string(id), "(4,8):(1@0,1@1)");
  EXPECT_EQ(to_string(zipped_divide(id, make_tile(2, 4))), "((2,4),(2,2)):((1@0,1@1),(2@0,4@1))");
  // Coalesce never merges modes of different bases, though 4 * 1 == 4 as integers.
  EXPECT_EQ(to_string(coalesce(make_layout(make_shape(4, 8), make_stride(basis(0), basis(1, 4))))),
            "(4,8):(1@0,4@1)");
  EXPECT_THROW(basis(0) + basis(1, 2), LayoutError);
}

constexpr Tile kCta = make_tile(32, 8);
constexpr TiledCopy kCopy = make_tiled_copy(copy_atom(4), make_layout(make_shape(8, 8)), make_layout(make_shape(4, 1)));

TEST(LayoutTensor, GmemChainMatchesTheAlgebra) {
  constexpr i64 M = 45, K = 19, ld = 50;
  std::vector<float> a(ld * K);
  for (i64 i = 0; i < i64(a.size()); ++i) a[size_t(i)] = float(i);
  auto mA = make_gmem_tensor<0>(a.data(), Coord<2>{{M, K}}, Coord<2>{{1, ld}});
  TiledCopy::Partition const ref = kCopy.partition_S(make_layout(make_shape(32, 8)));
  for (int m = 0; m < 2; ++m)
    for (int kt = 0; kt < 3; ++kt)
      for (int tid = 0; tid < 64; ++tid) {
        auto tAgA = partition_S<kCopy>(local_tile<kCta>(mA, m, _), tid)(_, _, _, kt);
        auto tAcA = partition_S<kCopy>(local_tile<kCta>(make_identity_tensor(shape(mA)), m, _), tid)(_, _, _, kt);
        ASSERT_EQ(size(tAgA.layout).v, size(ref.layout).v);
        for (int v = 0; v < int(size(ref.layout).v); ++v) {
          i64 const idx = ref.offset(tid) + ref.layout(v);  // column-major index in the (32,8) tile
          IntTuple const crd = idx2crd(IntTuple(idx), make_shape(32, 8));
          i64 const wm = 32 * m + value(get(crd, 0)), wk = 8 * kt + value(get(crd, 1));
          Coord<2> const c = tAcA(v);
          ASSERT_EQ(c[0], wm) << "thread " << tid << " value " << v;
          ASSERT_EQ(c[1], wk) << "thread " << tid << " value " << v;
          if (elem_less(c, shape(mA))) {
            ASSERT_EQ(tAgA(v), float(wm + ld * wk));
          }
        }
      }
}

// The accumulators of a TiledMMA over a global C tile: coordinates from partition_C of an identity
// tensor equal the MMA's own (column-major) partition of the tile turned into coordinates.
constexpr TiledMMA kMma = make_tiled_mma(mma_atom_sm80_16x8x16(), make_layout(make_shape(2, 2, 1)));
constexpr Tile kTileC = make_tile(32, 16);

TEST(LayoutTensor, PartitionCOfIdentityTensor) {
  TiledMMA::Partition const ref = kMma.partition_C(make_layout(make_shape(32, 16)));
  auto cC = make_identity_tensor(Coord<2>{{100, 100}});
  for (int tid = 0; tid < 128; ++tid) {
    auto tCcC = partition_C<kMma>(local_tile<kTileC>(cC, 1, 2), tid);
    for (int v = 0; v < int(size(ref.layout).v); ++v) {
      IntTuple const crd = idx2crd(IntTuple(ref.offset(tid) + ref.layout(v)), make_shape(32, 16));
      Coord<2> const c = tCcC(v);
      ASSERT_EQ(c[0], 32 + value(get(crd, 0)));
      ASSERT_EQ(c[1], 32 + value(get(crd, 1)));
    }
  }
}

// Tables: every entry equals the evaluation of the layout, mode by mode, including a trailing mode
// of dynamic extent.
TEST(LayoutTensor, TableEqualsEvaluation) {
  constexpr Layout kL = make_layout(make_shape(make_shape(2, 3), 4, dyn(5)), make_stride(make_stride(7, 1), 20, 100));
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) ASSERT_EQ((layout_value<kL, i64>(i, j, k)), kL(make_coord(i, j, k)));
  constexpr Layout kS = make_layout(make_shape(make_shape(2, 3), 4), make_stride(make_stride(7, 1), 20));
  for (int i = 0; i < 24; ++i) ASSERT_EQ((layout_value<kS, i64>(i)), kS(i));
}

}  // namespace

// is_run_along_mode0: what add and skinny assert of their copies' first mode. A thread's vector of
// V consecutive elements of mode 0 is a run; values laid along mode 1, or a count other than the
// mode's size, are not.
TEST(LayoutTensor, RunAlongModeZeroOfACopyPartition) {
  for (i64 V : {4, 8}) {
    auto first_mode = [&](Layout const& val) {
      TiledCopy const copy = make_tiled_copy(copy_atom(V), make_layout(make_shape(32, 1)), val);
      Tile const tile = make_tile(32 * V, V);
      return get(copy.partition_S(local_tile(dynamic_identity_layout<2>(), tile, make_coord(_, _)).layout).layout, 0);
    };
    Layout const along_m = first_mode(make_layout(make_shape(V, 1)));
    EXPECT_TRUE(is_run_along_mode0(along_m, V)) << V;
    EXPECT_FALSE(is_run_along_mode0(along_m, V / 2)) << V;
    EXPECT_FALSE(is_run_along_mode0(first_mode(make_layout(make_shape(1, V))), V)) << V;
  }
}
