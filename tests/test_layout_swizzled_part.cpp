// Partitions of a swizzled shared-memory tensor (SwizzledPtrEngine -> SwizzledPartEngine, in
// layout/tensor.hpp): for the sm80 GEMM's operand tiles, every thread's element at every index and
// pipeline stage sits where the swizzle of the plain partition's offset puts it; and the
// compile-time check rejects a partition whose offsets the split rule cannot address.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "layout/tensor.hpp"

namespace {

using namespace loom;

constexpr int kThreads = 128, kBK = 32, kStages = 4, kMN = 128;
constexpr TiledMMA kMma = make_tiled_mma(mma_atom_sm80_16x8x16(), make_layout(make_shape(2, 2, 1)),
                                         make_tile(make_layout(make_shape(16, 2, 4), make_stride(1, 64, 16)),
                                                   make_layout(make_shape(8, 2, 8), make_stride(1, 64, 8)), 16));

// The operand tiles of kernels/gemm_sm80.cuh: (MN,BK,PIPE) k-major under Swizzle<2,3,3> or built
// from (64,8) column-major atoms under Swizzle<3,3,3>; a 16-byte cp.async copy and ldmatrix.x4.
template <bool kKMajor, bool kIsA>
struct Operand {
  static constexpr Swizzle kSwizzle = make_swizzle(kKMajor ? 2 : 3, 3, 3);
  static constexpr Layout kTile = kKMajor ? make_layout(make_shape(kMN, kBK), LayoutRight{})
                                          : blocked_product(make_layout(make_shape(64, 8)), make_layout(make_shape(kMN / 64, kBK / 8)));
  static constexpr Layout kSmem = append(kTile, make_layout(IntTuple(kStages), IntTuple(cosize(kTile))));
  static constexpr TiledCopy kG2S =
      kKMajor ? make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(32, 4), LayoutRight{}), make_layout(make_shape(1, 8)))
              : make_tiled_copy(copy_atom_cp_async(16), make_layout(make_shape(16, 8)), make_layout(make_shape(8, 1)));
  static constexpr TiledCopy kS2R =
      kIsA ? make_tiled_copy_A(copy_atom_ldsm(4, !kKMajor), kMma) : make_tiled_copy_B(copy_atom_ldsm(4, !kKMajor), kMma);
};

// Every element of thread tid's part `part` (whose plain partition is `ref`) at every stage.
template <class Part, class Ref>
void expect_swizzled(Part const& part, Ref const& ref, Swizzle sw, std::uint16_t const* buf, int tid) {
  constexpr Layout L = Part::layout;
  constexpr int R = rank(L);
  i64 const per_stage = size(L).v / kStages;
  for (int s = 0; s < kStages; ++s) {
    auto const stage = [&]<int... M>(std::integer_sequence<int, M...>) {
      return part((void(M), _)..., s);
    }(std::make_integer_sequence<int, R - 1>{});
    for (i64 i = 0; i < per_stage; ++i) {
      i64 const want = sw(ref.offset(tid) + ref.layout(i + per_stage * s));
      ASSERT_EQ(&stage(i) - buf, want) << "thread " << tid << " stage " << s << " index " << i;
      ASSERT_EQ(part.engine.offset(stage.base, stage.value(i)), want);
    }
  }
}

template <bool kKMajor, bool kIsA>
void check_operand() {
  using Op = Operand<kKMajor, kIsA>;
  std::vector<std::uint16_t> buf(size_t(cosize(Op::kSmem).v));
  auto sA = make_tensor<Op::kSmem>(SwizzledPtrEngine<std::uint16_t, Op::kSwizzle>{buf.data()});
  for (int tid = 0; tid < kThreads; ++tid) {
    expect_swizzled(partition_D<Op::kG2S>(sA, tid), Op::kG2S.partition_D(Op::kSmem), Op::kSwizzle, buf.data(), tid);
    expect_swizzled(partition_S<Op::kS2R>(sA, tid), Op::kS2R.partition_S(Op::kSmem), Op::kSwizzle, buf.data(), tid);
  }
}

TEST(LayoutSwizzledPart, KMajorA) { check_operand<true, true>(); }
TEST(LayoutSwizzledPart, KMajorB) { check_operand<true, false>(); }
TEST(LayoutSwizzledPart, MnMajorA) { check_operand<false, true>(); }
TEST(LayoutSwizzledPart, MnMajorB) { check_operand<false, false>(); }

// The split rule's check: the partitions above pass it; one whose thread offsets have the low bits
// of another's values (threads along the contiguous mode, one element each) does not, nor does one
// whose values have bits that the swizzle reads (rows 64 elements apart under Swizzle<2,3,3>).
TEST(LayoutSwizzledPart, SplitCheck) {
  using K = Operand<true, true>;
  EXPECT_TRUE(detail::swizzle_splits(K::kG2S.partition_D(K::kSmem), kThreads, K::kSwizzle));
  EXPECT_TRUE(detail::swizzle_splits(K::kS2R.partition_S(K::kSmem), kThreads, K::kSwizzle));
  TiledCopy const scalar = make_tiled_copy(copy_atom(1), make_layout(make_shape(4, 32), LayoutRight{}), make_layout(make_shape(1, 1)));
  EXPECT_FALSE(detail::swizzle_splits(scalar.partition_D(K::kSmem), kThreads, K::kSwizzle));
  TiledCopy const rows = make_tiled_copy(copy_atom(8), make_layout(make_shape(2, 4), LayoutRight{}), make_layout(make_shape(1, 8)));
  EXPECT_FALSE(detail::swizzle_splits(rows.partition_D(K::kSmem), 8, K::kSwizzle));
}

}  // namespace
