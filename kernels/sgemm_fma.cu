// fma: D = alpha*A*B + beta*C in fp32 on the FFMA pipe, tuned: the launcher and the registration.
// The design, the kernel and what in it is still written by hand are described in sgemm_fma.cuh;
// the kernels of each majorness of A and B are instantiated in generated translation units, one
// each, to keep every translation unit quick to build (kernels/CMakeLists.txt).
#include <algorithm>
#include <cstdint>
#include <utility>

#include "kernels/entry.hpp"
#include "kernels/per_device.hpp"
#include "kernels/registry.hpp"
#include "kernels/sgemm_fma.cuh"

namespace loom::sgemm_fma {
namespace {

bool aligned16(void const* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// How to run a problem: which of D = A B and D^T = B^T A^T to compute (the kernel's m is then N),
// the tile (256x128 or 128x128), and the split of K.
struct Plan {
  bool swap = false;
  int bm = 128;
  i64 split = 1;
};

// Picks the plan with the least modelled time: waves of CTAs (an SM holds one 256x128 CTA or two
// 128x128) times the k tiles per CTA, at the measured rates (256x128 tiles reach about 49 TFLOP/s
// on full H100 waves, 128x128 tiles 43), plus, for a split, its atomic adds and the beta*C pass.
// Swapping the operands matters when M is small: M=128 fills half of a 256-row tile, N does not.
Plan plan(i64 M, i64 N, i64 K, bool vec, bool prefer_swap) {
  double const fma_per_sm_s = 128 * 1.6e9;  // 256x128 tiles
  double const bytes_per_s = 1.5e12;         // atomics and the beta pass, through L2
  i64 const sms = device_sm_count(), k_tiles = (K + kBK - 1) / kBK;
  Plan best;
  double best_t = 1e300;
  for (bool swap : {prefer_swap, !prefer_swap}) {
    i64 const m = swap ? N : M, n = swap ? M : N;
    if ((n + 127) / 128 > 65535) continue;  // the grid's y
    for (int bm : {256, 128}) {
      if (bm == 256 && !vec) continue;  // without 16-byte loads, the 128x128 kernels only
      int const per_sm = bm == 256 ? 1 : 2;
      double const rate = bm == 256 ? 1.0 : 0.88;
      i64 const tiles = ((m + bm - 1) / bm) * ((n + 127) / 128);
      for (i64 split = 1; split <= 16; split *= 2) {
        if (split > 1 && k_tiles < 16 * split) break;
        i64 const per = (k_tiles + split - 1) / split;
        i64 const ctas = tiles * ((k_tiles + per - 1) / per);
        i64 const waves = (ctas + sms * per_sm - 1) / (sms * per_sm);
        double t = double(waves) * per * (double(bm) * 128 * kBK * per_sm / (fma_per_sm_s * rate));
        if (split > 1) t += double(M) * N * 4 * (split + 2) / bytes_per_s + 5e-6;
        if (t < best_t * 0.97) best_t = t, best = {swap, bm, split};
      }
    }
  }
  return best;
}

}  // namespace

cudaError_t gemm(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  KernelProblem kp{{ops.a, p.a, p.lda, p.m, p.k, false},  // A(m, k)
                   {ops.b, p.b, p.ldb, p.n, p.k, true},   // B(k, n) as (n, k)
                   {ops.c, p.c, p.ldc, p.m, p.n, false},  // C(m, n)
                   ops.d, float(p.alpha), float(p.beta), 0, 0, false};
  // 16-byte loads: aligned bases and leading dimensions (the contiguous stride is 1).
  bool const vec = aligned16(ops.a) && aligned16(ops.b) && p.lda % 4 == 0 && p.ldb % 4 == 0;

  Plan const pl = plan(p.m, p.n, p.k, vec, p.c == Order::row);
  if (pl.swap) {  // D^T = B^T A^T
    std::swap(kp.a, kp.b);
    kp.c = {ops.c, p.c, p.ldc, p.n, p.m, true};
  }
  // 16-byte accesses to C and D, along whichever of m and n is contiguous.
  kp.d_unit = kp.c.y_contiguous() ? 1 : 0;
  kp.vec_c = aligned16(ops.d) && (p.beta == 0 || aligned16(ops.c)) && p.ldc % 4 == 0;

  i64 const k_tiles = (p.k + kBK - 1) / kBK;
  kp.k_tiles = int((k_tiles + pl.split - 1) / pl.split);
  i64 const split = (k_tiles + kp.k_tiles - 1) / kp.k_tiles;  // no empty splits
  int const bm = pl.bm == 256 && vec ? 256 : 128;  // without 16-byte loads, 128x128 tiles
  if (split > 1)  // D = beta*C first; the splits then add their parts
    if (cudaError_t e = launch_scale(kp, bm, stream); e != cudaSuccess) return e;
  bool const ak = kp.a.y_contiguous(), bk = kp.b.y_contiguous();  // A, B k-contiguous?
#define LOOM_SGEMM_FMA_CASE(AK, BK) \
  if (ak == AK && bk == BK) return launch_majorness<AK, BK>(kp, bm, vec, split, stream);
  LOOM_SGEMM_FMA_INSTANCES(LOOM_SGEMM_FMA_CASE)
#undef LOOM_SGEMM_FMA_CASE
  return cudaErrorNotSupported;  // kernels/CMakeLists.txt lists all four
}

std::string check(Problem const& p) {
  // The grid's y counts the 128-wide tiles of N (or of M, computing D^T).
  if ((std::min(p.m, p.n) + 127) / 128 > 65535) return "M and N both exceed 65535 tiles of 128";
  if (std::max({p.m, p.n, p.k}) > 0x7fffffff - 256) return "M, N and K must be below 2^31";
  return {};
}

cudaError_t launch_scale(KernelProblem const& p, int bm, cudaStream_t s) {
  ScaleArgs const args{MatrixView{p.d, p.c.order, p.c.ld, p.c.nx, p.c.ny, p.c.transposed}.tensor<-1, float>(),
                       static_cast<float const*>(p.c.ptr), p.alpha, p.beta, p.d_unit, p.vec_c};
  using C256 = FmaConfig<256, 128, false, false>;
  using C128 = FmaConfig<128, 128, false, false>;
  if (bm == 256) sgemm_scale_kernel<C256><<<grid_of(p, 256, 128, 1), C256::kThreads, 0, s>>>(args);
  else sgemm_scale_kernel<C128><<<grid_of(p, 128, 128, 1), C128::kThreads, 0, s>>>(args);
  return cudaGetLastError();
}

}  // namespace loom::sgemm_fma

namespace loom {

KernelInfo sgemm_fma_kernel_info() {
  return {"fma", OpKind::gemm, {DType::f32}, 80,
          "fp32 GEMM on FFMA: 256x128 or 128x128 tiles, 16x8 or 8x8 per thread, double-buffered smem, split K",
          sgemm_fma::check, launched<sgemm_fma::gemm>};
}

}  // namespace loom
