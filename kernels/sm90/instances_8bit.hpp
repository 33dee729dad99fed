// sm90's 8-bit instances as the host's plan reads them: kernels/CMakeLists.txt's
// loom_instances(sm90_fp8 ...) list (tile shape, A's wgmma type, B's, accurate mode), made a table,
// so that the plan weighs exactly the instances that are built (plain C++: the host tests read it).
#pragma once

#include "kernels/sm90/tile_menu.hpp"
#include "kernels/sm90_fp8_instances.inc"

namespace loom::sm90 {

struct Instance8Bit {
  int shape;
  WgmmaType a, b;  // as the kernel sees A and B (a swapped plan trades the problem's)
  bool promote;    // the accurate mode (kernels/sm90/mainloop.cuh's mma_promoted)
};

inline constexpr Instance8Bit kInstances8Bit[] = {
#define LOOM_SM90_FP8_ROW(S, TA, TB, P) Instance8Bit{S, TA, TB, P},
    LOOM_SM90_FP8_INSTANCES(LOOM_SM90_FP8_ROW)
#undef LOOM_SM90_FP8_ROW
};

// Whether tile shape `shape` is built for 8-bit A of type a and B of type b in this mode.
constexpr bool built_8bit(int shape, WgmmaType a, WgmmaType b, bool promote) {
  for (Instance8Bit const& i : kInstances8Bit)
    if (i.shape == shape && i.a == a && i.b == b && i.promote == promote) return true;
  return false;
}

}  // namespace loom::sm90
