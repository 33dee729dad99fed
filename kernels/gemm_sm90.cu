// sm90: the registration, the path and the launcher. The kernel is kernels/gemm_sm90.cuh (its
// header says how it works), compiled for sm_90a in four translation units, one per pair of
// majornesses: gemm_sm90_{kk,km,mk,mm}.sm90a.cu.
//
// Paths (KernelInfo::path, which launch() follows, so that what validate and bench report is what
// ran): "tma, ..." when TMA can read A and B (16-byte aligned bases, leading dimensions a multiple
// of 8 elements), otherwise "sm80 (why)", the mma.sync kernel, which takes any alignment. On the
// TMA path the epilogue is "tma store" (beta == 0, D's base and row stride multiples of 16 bytes)
// or "direct store (why)", straight from the registers.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/gemm_sm90.cuh"
#include "kernels/operand_layout.hpp"
#include "kernels/registry.hpp"

namespace loom {
namespace {

// The kernel's arguments: the problem as row_major_gemm sees it, plus alpha, beta and D's type.
sm90::Args make_args(Problem const& p, Operands const& ops) {
  RowMajorGemm const g = row_major_gemm(p, ops);
  sm90::Args args{};
  args.a = g.a, args.b = g.b, args.c = ops.c, args.d = ops.d;
  args.ga = g.ga, args.gb = g.gb, args.gd = g.gd;
  args.alpha = float(p.alpha), args.beta = float(p.beta);
  args.out = p.out_dtype;
  args.pair_d = g.pair_d;
  return args;
}

// Why TMA cannot read one operand, or "": the same rules make_tma_desc and the driver apply.
std::string why_no_tma(char const* name, void const* ptr, GmemShape const& g) {
  if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0) return std::string(name) + "'s base is not 16-byte aligned";
  i64 const ld = g.stride[0] == 1 ? g.stride[1] : g.stride[0];
  if ((ld * 2) % 16 != 0) return std::string("ld") + char(name[0] - 'A' + 'a') + " is not a multiple of 8 elements";
  return {};
}

template <bool kAK, bool kBK>
std::string tma_maps(sm90::Args const& args) {
  CUtensorMap a, b;
  return sm90::make_tma_maps<kAK, kBK>(args, &a, &b);
}

std::string path(Problem const& p0, Operands const& ops) {
  Problem const p = with_default_lds(p0);
  std::string why = why_no_tma("A", ops.a, operand_shape(p.a, p.lda, p.m, p.k, false));
  if (why.empty()) why = why_no_tma("B", ops.b, operand_shape(p.b, p.ldb, p.n, p.k, true));
  if (why.empty()) {
    sm90::Args const args = make_args(p, ops);
    bool const ak = args.ga.stride[1] == 1, bk = args.gb.stride[1] == 1;
    why = ak && bk ? tma_maps<true, true>(args)
          : ak     ? tma_maps<true, false>(args)
          : bk     ? tma_maps<false, true>(args)
                   : tma_maps<false, false>(args);
  }
  if (!why.empty()) return "sm80 (" + why + ")";
  CUtensorMap d;
  std::string const store = sm90::make_tma_store_map(make_args(p, ops), &d);
  return store.empty() ? "tma, tma store" : "tma, direct store (" + store + ")";
}

cudaError_t launch(Problem const& p0, Operands const& ops, cudaStream_t stream) {
  Problem const p = with_default_lds(p0);
  if (path(p, ops).rfind("tma", 0) != 0) {
    KernelInfo const* sm80 = find_kernel("sm80");
    return sm80 ? sm80->launch(p, ops, stream) : cudaErrorNotSupported;
  }
  sm90::Args args = make_args(p, ops);
  static int const sms = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      return 0;
    return n;
  }();
  if (sms <= 0) return cudaErrorInvalidDevice;
  args.sm_count = sms;
  bool const bf16 = p.dtype == DType::bf16;
  bool const ak = args.ga.stride[1] == 1, bk = args.gb.stride[1] == 1;
  // path() built these maps already, so the launcher's make_tma_maps cannot fail here.
  return ak && bk ? sm90::launch_majors<true, true>(args, bf16, stream, nullptr)
         : ak     ? sm90::launch_majors<true, false>(args, bf16, stream, nullptr)
         : bk     ? sm90::launch_majors<false, true>(args, bf16, stream, nullptr)
                  : sm90::launch_majors<false, false>(args, bf16, stream, nullptr);
}

std::string check(Problem const& p) {
  if (std::max({p.m, p.n, p.k}) > 0x7fffffff - 256) return "M, N and K must be below 2^31";
  return {};
}

}  // namespace

KernelInfo sm90_kernel_info() {
  KernelInfo k{"sm90", OpKind::gemm, {DType::f16, DType::bf16}, 90,
               "Hopper wgmma m64n256k16, TMA multicast over 2-CTA clusters, warp-specialized persistent, "
               "128x256x64 tiles in 4 stages; fp32 accumulation; sm80 where TMA cannot read A or B",
               check, launch};
  k.path = path;
  return k;
}

}  // namespace loom
