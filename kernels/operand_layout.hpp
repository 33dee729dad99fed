// A GEMM operand in global memory as a DynamicLayout<2>, the form every GEMM kernel indexes it in.
#pragma once

#include "kernels/registry.hpp"
#include "layout/tensor.hpp"

namespace loom {

// A matrix stored in `order` with leading dimension ld, seen as (x, y) of extents (nx, ny): x is
// its row index unless `transposed`. B (K x N) as (n, k) is operand_layout(p.b, p.ldb, n, k, true).
inline DynamicLayout<2> operand_layout(Order order, i64 ld, i64 nx, i64 ny, bool transposed) {
  DynamicLayout<2> g;
  g.shape[0] = nx;
  g.shape[1] = ny;
  bool const x_contiguous = (order == Order::col) != transposed;
  g.stride[0] = x_contiguous ? 1 : ld;
  g.stride[1] = x_contiguous ? ld : 1;
  return g;
}

}  // namespace loom
