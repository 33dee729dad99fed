// sm90's compile-time configuration (kernels/sm90/config.cuh) for 8-bit operands: every tile shape
// of the menu that takes k-major A and B gets e4m3/e5m2 stages, TMA boxes and wgmma descriptors
// that pass the same checks (each struct's valid(), a static_assert at instantiation) as its 16-bit
// ones, and the same bytes a stage, so the ring, the stage count and the shared storage carry over.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "kernels/sm90/config.cuh"

namespace loom::sm90 {
namespace {

template <int kShape>
void check_shape() {
  using C16 = Config<TileConfig<kShape>, true, true, 2>;
  using C8 = Config<TileConfig<kShape>, true, true, 1>;
  SCOPED_TRACE(kTileShapes[kShape].name);
  static_assert(C8::A::valid() && C8::B::valid() && C8::valid());
  EXPECT_EQ(C8::kTK, 128);
  EXPECT_EQ(C16::kTK, 64);
  EXPECT_EQ(C8::kKSteps, 4);
  EXPECT_EQ(C8::kStageBytes, C16::kStageBytes);
  EXPECT_EQ(C8::kStageBytes, tile_stage_bytes(kTileShapes[kShape]));
  EXPECT_EQ(C8::A::kBoxBytes, C16::A::kBoxBytes);
  EXPECT_EQ(C8::B::kBoxBytes, C16::B::kBoxBytes);
  // One wgmma reads 32 bytes of K at either width: the descriptor moves 2 units of 16 bytes a
  // k-step, and a whole stage of the same bytes from one stage to the next.
  EXPECT_EQ(C8::A::kDescPerStep, 2);
  EXPECT_EQ(C8::B::kDescPerStep, C16::B::kDescPerStep);
  EXPECT_EQ(C8::A::kDescPerStage, C16::A::kDescPerStage);
  EXPECT_EQ(C8::B::kDescPerStage, C16::B::kDescPerStage);
  EXPECT_EQ(C8::A::kDescPerRows, C16::A::kDescPerRows);
  // The accumulators are the same registers: m64nNk32's C layout is m64nNk16's.
  EXPECT_EQ(C8::kAccs, C16::kAccs);
  EXPECT_TRUE(C8::kAtom.c_tv == C16::kAtom.c_tv);
  EXPECT_EQ(get(C8::kAtom.shape_mnk, 2), IntTuple(32));
  EXPECT_EQ(get(C16::kAtom.shape_mnk, 2), IntTuple(16));
}

template <int... kShapes>
void check_all(std::integer_sequence<int, kShapes...>) {
  (check_shape<kShapes>(), ...);
}

TEST(Sm90Config, EightBitOperandsOnEveryShape) { check_all(std::make_integer_sequence<int, kTileShapeCount>{}); }

}  // namespace
}  // namespace loom::sm90
