// sm80: the registration and the launcher, which picks a kernel for the operands' majornesses and
// alignments. The kernel is kernels/gemm_sm80.cuh (its header says how it works), compiled in four
// generated translation units, one per pair of majornesses (kernels/CMakeLists.txt).
#include <algorithm>
#include <cstdint>

#include "kernels/entry.hpp"
#include "kernels/gemm_sm80.cuh"
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"

namespace loom::sm80 {
namespace {

// The widest copy (16, 8, 4 or 2 bytes) that keeps every 8-element chunk of the operand aligned:
// the base pointer and the stride between its rows (when there is more than one) must allow it.
int copy_bytes(void const* p, GmemShape const& g) {
  bool const k_major = g.stride[1] == 1;
  i64 const ld = k_major ? g.stride[0] : g.stride[1];
  i64 const rows = k_major ? g.shape[0] : g.shape[1];
  auto const addr = reinterpret_cast<std::uintptr_t>(p);
  for (int w : {16, 8, 4})
    if (addr % w == 0 && (rows == 1 || (2 * ld) % w == 0)) return w;
  return 2;
}

}  // namespace

cudaError_t gemm(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  RowMajorGemm const g = row_major_gemm(p, ops);
  GmemShape const &ga = g.ga, &gb = g.gb;
  Args args{};
  args.a = g.a, args.b = g.b, args.c = ops.c, args.d = ops.d;
  args.ga = ga, args.gb = gb, args.gd = g.gd;
  args.alpha = float(p.alpha), args.beta = float(p.beta);
  args.bytes_a = copy_bytes(g.a, ga);
  args.bytes_b = copy_bytes(g.b, gb);
  args.out = p.out_dtype;
  args.pair_d = g.pair_d;

  bool const bf16 = p.dtype == DType::bf16, fast = args.bytes_a == 16 && args.bytes_b == 16;
  // k-major: k has the unit stride (a static 1 in the kernel's global tensors).
  bool const ak = ga.stride[1] == 1, bk = gb.stride[1] == 1;
#define LOOM_SM80_CASE(AK, BK, BF16) \
  if (ak == AK && bk == BK && bf16 == BF16) return launch_majors<AK, BK, BF16>(args, fast, stream);
  LOOM_SM80_INSTANCES(LOOM_SM80_CASE)
#undef LOOM_SM80_CASE
  return cudaErrorNotSupported;  // kernels/CMakeLists.txt lists all eight
}

std::string check(Problem const& p) {
  if (std::max({p.m, p.n, p.k}) > 0x7fffffff - 256) return "M, N and K must be below 2^31";
  i64 const tiles = (p.m + kBM - 1) / kBM * ((p.n + kBN - 1) / kBN);
  if (tiles > 0x7fffffff) return "too many 128x128 tiles for the grid";
  return {};
}

}  // namespace loom::sm80

namespace loom {

KernelInfo sm80_kernel_info() {
  return {"sm80", OpKind::gemm, {DType::f16, DType::bf16}, 80,
          "tensor-core mma.sync m16n8k16, ldmatrix, 4-stage cp.async, 128x128x32 tiles; fp32 accumulation",
          sm80::check, launched<sm80::gemm>};
}

}  // namespace loom
