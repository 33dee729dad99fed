// A GEMM or elementwise operand in global memory as a GmemTensor, the form every kernel starts its
// chain from (mA in mA -> local_tile -> partition).
#pragma once

#include <cstdint>
#include <utility>

#include "kernels/problem.hpp"
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

// A GEMM as the tensor-core kernels see it: A (m,k), B (n,k), D row-major (m,n). A column-major D is
// computed as D^T = B^T A^T: A and B trade places and D is seen transposed, so that the accumulator
// fragments' neighbouring columns are neighbours in memory.
struct RowMajorGemm {
  void const* a;  // (m, k)
  void const* b;  // (n, k)
  GmemShape ga;   // (m, k) -> offset in A; one stride is 1 (the contiguous mode)
  GmemShape gb;   // (n, k) -> offset in B
  GmemShape gd;   // (m, n) -> offset in C and D; n is contiguous
  bool pair_d;    // C and D take one store per two neighbouring columns (aligned for it)
};

// p's leading dimensions must be filled in (with_default_lds).
inline RowMajorGemm row_major_gemm(Problem const& p, Operands const& ops) {
  RowMajorGemm g{ops.a, ops.b, operand_shape(p.a, p.lda, p.m, p.k, false),  // A(m, k)
                 operand_shape(p.b, p.ldb, p.n, p.k, true),                  // B(k, n) as (n, k)
                 operand_shape(p.c, p.ldc, p.m, p.n, false), false};
  if (p.c == Order::col) {
    std::swap(g.a, g.b);
    std::swap(g.ga, g.gb);
    g.gd = operand_shape(p.c, p.ldc, p.n, p.m, true);
  }
  std::size_t const es = size_of(p.out_dtype);
  auto aligned = [&](void const* q) { return reinterpret_cast<std::uintptr_t>(q) % (2 * es) == 0; };
  g.pair_d = aligned(ops.d) && (p.beta == 0 || aligned(ops.c)) && (g.gd.shape[0] == 1 || g.gd.stride[0] % 2 == 0);
  return g;
}

}  // namespace loom
