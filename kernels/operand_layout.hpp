// A GEMM or elementwise operand in global memory as a GmemTensor, the form every kernel starts its
// chain from (mA in mA -> local_tile -> partition).
#pragma once

#include "kernels/registry.hpp"
#include "layout/tensor.hpp"

namespace loom {

// Is x (the first mode of the view) the contiguous one, for a matrix stored in `order` and seen
// as (x, y) with x its row index unless `transposed`?
inline bool x_contiguous(Order order, bool transposed) { return (order == Order::col) != transposed; }

// An operand's extents and strides, as kernel arguments carry them when the kernel picks the static
// unit stride itself, and as host-side checks of alignment read them. A matrix stored in `order`
// with leading dimension ld, seen as (x, y) of extents (nx, ny): x is its row index unless
// `transposed`.
struct GmemShape {
  i64 shape[2];
  i64 stride[2];
};
inline GmemShape operand_shape(Order order, i64 ld, i64 nx, i64 ny, bool transposed) {
  bool const xc = x_contiguous(order, transposed);
  return {{nx, ny}, {xc ? 1 : ld, xc ? ld : 1}};
}

// The same operand as a GmemTensor. B (K x N) as (n, k) is operand_tensor(b, p.b, p.ldb, n, k, true).
// kUnit names the mode whose stride is a static 1 (-1: both strides dynamic); the caller picks it
// from x_contiguous, and a mismatch is a bug that the check below turns into an error.
template <int kUnit = -1, class T>
GmemTensor<T, 2, kUnit> operand_tensor(T* ptr, Order order, i64 ld, i64 nx, i64 ny, bool transposed) {
  GmemShape const g = operand_shape(order, ld, nx, ny, transposed);
  LOOM_REQUIRE(kUnit < 0 || kUnit == (x_contiguous(order, transposed) ? 0 : 1),
               "operand_tensor: the static unit stride is on the wrong mode");
  return make_gmem_tensor<kUnit>(ptr, Coord<2>{{g.shape[0], g.shape[1]}}, Coord<2>{{g.stride[0], g.stride[1]}});
}

}  // namespace loom
