// Device test of sm90's 8-bit path (kernels/sm90/launch.cuh's launch_instance_fp8): the whole
// kernel (TMA loads of e4m3/e5m2 k-major A and B, the m64nNk32 wgmmas, the tensor or block scales,
// split-K and both epilogues) against an fp64 reference over the dequantized inputs: the kernel's own check,
// on the library's instances, below the plan and loom::gemm. Each case needs a compute capability
// 9.0 GPU and reports Skipped without one.
//
// Inputs are random 8-bit values (never zero rows, never NaN); D is poisoned (0xFF bytes) before
// the launch, and every element is checked: |D - ref| <= tol * (|alpha sA sB| sum_k |a_ik b_jk|) + u |ref|,
// u the output type's unit roundoff. tol = 2^-10: wgmma's 8-bit accumulation keeps fewer bits than
// fp32 (what the accurate mode's promotion bounds), which a wrong layout, scale or k
// range exceeds by orders of magnitude.
#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "harness/harness.hpp"
#include "kernels/sm90/launch.cuh"

namespace {

using namespace loom;
using namespace loom::sm90;

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << #x << ": " << cudaGetErrorString(cudaGetLastError())

struct Case {
  int shape;  // kTileShapes index
  WgmmaType ta, tb;
  std::int64_t m, n, k;
  int splits;
  DType out;
  float alpha, sa, sb;
  bool promote = false;  // the accurate mode
  bool block = false;    // block scales (sa, sb unused): A's per row and 128 of K, B's per 128 x 128
};

cudaError_t launch(Case const& c, Args const& args, Schedule const& s, Refusal* r) {
  constexpr WgmmaType k43 = WgmmaType::kE4M3, k52 = WgmmaType::kE5M2;
  if (c.shape == 1 && c.ta == k43) return c.promote ? launch_instance_fp8<1, k43, k43, true>(args, s, nullptr, r)
                                                    : launch_instance_fp8<1, k43, k43, false>(args, s, nullptr, r);
  if (c.shape == 1 && c.ta == k52) return c.promote ? launch_instance_fp8<1, k52, k43, true>(args, s, nullptr, r)
                                                    : launch_instance_fp8<1, k52, k43, false>(args, s, nullptr, r);
  if (c.shape == 17) return launch_instance_fp8<17, k43, k43, true>(args, s, nullptr, r);
  if (c.shape == 5) return launch_instance_fp8<5, k43, k43, true>(args, s, nullptr, r);
  if (c.shape == 3) return launch_instance_fp8<3, k43, k43, true>(args, s, nullptr, r);
  if (c.shape == 7) return launch_instance_fp8<7, k43, k43, true>(args, s, nullptr, r);
  return c.promote ? launch_instance_fp8<0, k43, k43, true>(args, s, nullptr, r)
                   : launch_instance_fp8<0, k43, k43, false>(args, s, nullptr, r);
}

double decode(WgmmaType t, std::uint8_t b) {
  return t == WgmmaType::kE4M3 ? harness::e4m3_to_double(b) : harness::e5m2_to_double(b);
}

// Block scales as loom/gemm.hpp lays them out: A's kb x m (m contiguous), B's ceil(n/128) columns of
// block_scale_ld(k) (the padding NaN, which a kernel that reads it cannot hide). Each 0.75 or 1.25
// times a power of two from 2^-3 to 2^3, so that a wrong row, block or k tile shows.
struct BlockScales {
  std::vector<float> a, b;
  std::int64_t ld;
};
BlockScales random_block_scales(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&] { std::uint64_t const r = rng(); return std::ldexp((r & 1) ? 1.25f : 0.75f, int((r >> 1) % 7) - 3); };
  std::int64_t const kb = (k + 127) / 128, nb = (n + 127) / 128;
  BlockScales s{std::vector<float>(std::size_t(kb * m)), std::vector<float>(std::size_t(nb * block_scale_ld(k)), NAN), block_scale_ld(k)};
  for (float& v : s.a) v = pick();
  for (std::int64_t l = 0; l < nb; ++l)
    for (std::int64_t j = 0; j < kb; ++j) s.b[std::size_t(l * s.ld + j)] = pick();
  return s;
}

// Random 8-bit values of magnitude up to about 4, as their bits.
std::vector<std::uint8_t> random_fp8(WgmmaType t, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  std::vector<std::uint8_t> v(count);
  for (auto& b : v)
    b = t == WgmmaType::kE4M3 ? harness::double_to_e4m3(u(rng), true) : harness::double_to_e5m2(u(rng), true);
  return v;
}

void run_case(Case const& c) {
  SCOPED_TRACE(std::string(kTileShapes[c.shape].name) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
               std::to_string(c.k) + " splits " + std::to_string(c.splits) + (c.promote ? " promoted" : "") +
               (c.block ? " block scales" : ""));
  int dev = 0, sms = 0;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  // A (m, k) and B (n, k), k contiguous, leading dimensions padded to 16 bytes; D (m, n) row-major.
  std::int64_t const lda = (c.k + 15) / 16 * 16, ldd = (c.n + 7) / 8 * 8;
  std::vector<std::uint8_t> a = random_fp8(c.ta, std::size_t(c.m * lda), 11), b = random_fp8(c.tb, std::size_t(c.n * lda), 12);
  int const out_bytes = c.out == DType::f32 ? 4 : 2;
  std::uint8_t *da = nullptr, *db = nullptr;
  void* dd = nullptr;
  float *dscale = nullptr, *dblock_a = nullptr, *dblock_b = nullptr;
  CUDA_OK(cudaMalloc(&da, a.size()));
  CUDA_OK(cudaMalloc(&db, b.size()));
  CUDA_OK(cudaMalloc(&dd, std::size_t(c.m * ldd * out_bytes)));
  CUDA_OK(cudaMalloc(&dscale, 2 * sizeof(float)));
  float const scales[2] = {c.sa, c.sb};
  CUDA_OK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dscale, scales, sizeof scales, cudaMemcpyHostToDevice));
  BlockScales const bs = c.block ? random_block_scales(c.m, c.n, c.k, 13) : BlockScales{};
  if (c.block) {
    CUDA_OK(cudaMalloc(&dblock_a, bs.a.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&dblock_b, bs.b.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(dblock_a, bs.a.data(), bs.a.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dblock_b, bs.b.data(), bs.b.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  CUDA_OK(cudaMemset(dd, 0xFF, std::size_t(c.m * ldd * out_bytes)));  // NaN in every output type

  TileShape const t = kTileShapes[c.shape];
  Schedule const s = make_schedule(t, c.m, c.n, c.k, c.splits, false, Residency::of_sms(sms).wave(tile_cluster(t)), false,
                                   k_tile_of(1));
  Args args{};
  args.a = da, args.b = db, args.c = nullptr, args.d = dd;
  args.ga = GmemShape{{c.m, c.k}, {lda, 1}};
  args.gb = GmemShape{{c.n, c.k}, {lda, 1}};
  args.gd = GmemShape{{c.m, c.n}, {ldd, 1}};
  args.alpha = c.alpha, args.beta = 0.f;
  args.out = c.out;
  args.pair_d = false;
  args.d_col = false;
  args.scale_a = dscale, args.scale_b = dscale + 1;
  args.promote = c.promote;
  if (c.block) args.block_scale = true, args.scale_a = dblock_a, args.scale_b = dblock_b;
  void* ws = nullptr;
  if (s.splits > 1) {
    std::size_t const counters = std::size_t(s.partial_bytes() + 255) / 256 * 256;
    CUDA_OK(cudaMalloc(&ws, counters + std::size_t(s.counter_bytes())));
    // Garbage in the counters: the launch's generation tells its arrivals from what they held.
    CUDA_OK(cudaMemset(static_cast<unsigned char*>(ws) + counters, 0xab, std::size_t(s.counter_bytes())));
    args.partials = static_cast<float*>(ws);
    args.arrivals = reinterpret_cast<unsigned long long*>(static_cast<unsigned char*>(ws) + counters);
    args.generation = 0x1234567;
  }
  Refusal refusal;
  ASSERT_EQ(launch(c, args, s, &refusal), cudaSuccess) << refusal.why;
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> out(std::size_t(c.m * ldd * out_bytes));
  CUDA_OK(cudaMemcpy(out.data(), dd, out.size(), cudaMemcpyDeviceToHost));

  double const u = c.out == DType::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -8), tol = std::ldexp(1.0, -10);
  double const scale = c.block ? double(c.alpha) : double(c.alpha) * c.sa * c.sb;
  std::vector<double> av(a.size()), bv(b.size());  // decoded once: the reference's loop stays plain arithmetic
  for (std::size_t i = 0; i < a.size(); ++i) av[i] = decode(c.ta, a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) bv[i] = decode(c.tb, b[i]);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < c.m; ++i)
    for (std::int64_t j = 0; j < c.n; ++j) {
      double ref = 0, mag = 0;
      for (std::int64_t kk = 0; kk < c.k; ++kk) {
        double p = av[std::size_t(i * lda + kk)] * bv[std::size_t(j * lda + kk)];
        if (c.block) p *= double(bs.a[std::size_t(kk / 128 * c.m + i)]) * bs.b[std::size_t(j / 128 * bs.ld + kk / 128)];
        ref += p, mag += std::fabs(p);
      }
      ref *= scale, mag *= std::fabs(scale);
      std::size_t const at = std::size_t(i * ldd + j);
      double got;
      if (c.out == DType::f32) {
        float f;
        std::memcpy(&f, out.data() + 4 * at, 4);
        got = f;
      } else {
        std::uint16_t h;
        std::memcpy(&h, out.data() + 2 * at, 2);
        got = harness::bf16_to_double(h);
      }
      if (!(std::fabs(got - ref) <= tol * mag + u * std::fabs(ref)) && ++bad <= 5)
        ADD_FAILURE() << "D(" << i << "," << j << ") = " << got << ", reference " << ref << " (sum |a b| " << mag << ")";
    }
  EXPECT_EQ(bad, 0);
  cudaFree(da), cudaFree(db), cudaFree(dd), cudaFree(dscale), cudaFree(dblock_a), cudaFree(dblock_b), cudaFree(ws);
}

bool have_sm90() {
  if (!loom::test::have_gpu()) return false;
  cudaDeviceProp p{};
  return cudaGetDeviceProperties(&p, 0) == cudaSuccess && p.major == 9 && p.minor == 0;
}

TEST(Sm90Fp8Device, PerTensorScalesOnRaggedShapes) {
  if (!have_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  for (Case const& c : {Case{1, WgmmaType::kE4M3, WgmmaType::kE4M3, 256, 256, 256, 1, DType::bf16, 1.f, 1.f, 1.f},
                        Case{1, WgmmaType::kE4M3, WgmmaType::kE4M3, 300, 520, 1000, 1, DType::bf16, 1.5f, 0.5f, 2.f},
                        Case{1, WgmmaType::kE4M3, WgmmaType::kE4M3, 129, 1031, 4096, 3, DType::f32, 0.75f, 0.25f, 3.f},
                        Case{1, WgmmaType::kE5M2, WgmmaType::kE4M3, 200, 384, 777, 1, DType::bf16, 1.f, 0.125f, 4.f},
                        Case{0, WgmmaType::kE4M3, WgmmaType::kE4M3, 640, 1100, 2048, 1, DType::bf16, 1.f, 1.f, 0.5f},
                        // The accurate mode: whole, split, 128x144 (one CTA a cluster), 128x192 and 128x256 (two
                        // column pieces).
                        Case{1, WgmmaType::kE4M3, WgmmaType::kE4M3, 300, 520, 1000, 1, DType::bf16, 1.5f, 0.5f, 2.f, true},
                        Case{1, WgmmaType::kE5M2, WgmmaType::kE4M3, 129, 1031, 4096, 3, DType::f32, 0.75f, 0.25f, 3.f, true},
                        Case{17, WgmmaType::kE4M3, WgmmaType::kE4M3, 200, 400, 1500, 1, DType::f32, 1.f, 1.f, 1.f, true},
                        Case{7, WgmmaType::kE4M3, WgmmaType::kE4M3, 300, 700, 2000, 1, DType::bf16, 1.f, 2.f, 0.5f, true},
                        Case{0, WgmmaType::kE4M3, WgmmaType::kE4M3, 520, 1100, 3000, 2, DType::bf16, 1.f, 0.5f, 2.f, true}})
    run_case(c);
}

// Block scales (ScaleMode::block) on the accurate mode's tiles that take them: 128x128 on its 2x1
// cluster whole and split, the mixed pair, 128x144 (whose tiles straddle B's 128-column blocks), the
// 64-row tiles, 128x192 (two pieces; tiles that start mid-block), 128x256 (four pieces); K not a multiple of 128 (a partial
// last block), M and N ragged.
TEST(Sm90Fp8Device, BlockScalesOnRaggedShapes) {
  if (!have_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  auto block = [](int shape, WgmmaType ta, std::int64_t m, std::int64_t n, std::int64_t k, int splits, DType out, float alpha) {
    Case c{shape, ta, WgmmaType::kE4M3, m, n, k, splits, out, alpha, 1.f, 1.f, true};
    c.block = true;
    return c;
  };
  for (Case const& c : {block(1, WgmmaType::kE4M3, 256, 256, 256, 1, DType::bf16, 1.f),
                        block(1, WgmmaType::kE4M3, 300, 520, 1000, 1, DType::bf16, 1.5f),
                        block(1, WgmmaType::kE4M3, 129, 1031, 4096, 3, DType::f32, 0.75f),
                        block(1, WgmmaType::kE5M2, 200, 384, 777, 2, DType::f32, 1.f),
                        block(17, WgmmaType::kE4M3, 200, 1000, 1500, 1, DType::f32, 1.f),
                        block(17, WgmmaType::kE4M3, 77, 700, 4000, 4, DType::bf16, 2.f),
                        block(5, WgmmaType::kE4M3, 70, 333, 300, 1, DType::f32, 1.f),
                        block(3, WgmmaType::kE4M3, 130, 50, 513, 1, DType::f32, 1.f),
                        block(7, WgmmaType::kE4M3, 300, 700, 2000, 1, DType::bf16, 1.f),
                        block(7, WgmmaType::kE4M3, 129, 1031, 1500, 3, DType::f32, 0.5f),
                        block(0, WgmmaType::kE4M3, 520, 1100, 3000, 2, DType::bf16, 1.f)})
    run_case(c);
}

// The fast mode takes no block scales (each k tile's partial is scaled as it is promoted): a fast
// instance's launcher refuses them rather than run its loop unscaled.
TEST(Sm90Fp8Device, BlockScalesRefusedByTheFastMode) {
  Args args{};
  args.promote = false, args.block_scale = true;
  Refusal r;
  Schedule const s = make_schedule(kTileShapes[0], 256, 256, 256, 1, false, Residency::of_sms(132).wave(1), false, k_tile_of(1));
  EXPECT_EQ((launch_instance_fp8<0, WgmmaType::kE4M3, WgmmaType::kE4M3, false>(args, s, nullptr, &r)), cudaErrorInvalidConfiguration);
  EXPECT_FALSE(r.tma);
  EXPECT_NE(r.why.find("block scales"), std::string::npos) << r.why;
}

}  // namespace
