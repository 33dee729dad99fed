// Device test of the SM90 wgmma path: one warpgroup stages a bf16 A (64x16) and B (Nx16) in
// shared memory, each element (mn,k) at the offset Loom's swizzled GMMA layout gives
// (layout/gmma.hpp: gmma_atom_*, tile_to_shape), builds the matrix descriptors with
// make_gmma_desc(...).at(smem address).encode(), issues one
// wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 (kernels/sm90/ptx.cuh, scale-d 0), waits,
// and every thread writes its N/2 accumulators to global memory in register order. The host checks
// that register r of thread t holds D = A B^T (computed in fp64; the inputs are small integers, so
// fp32 accumulation is exact) at the (m,n) that Loom's C TV layout gives:
// mma_atom_sm90_64xNx16(N).c_tv(t, r) = m + 64 n. A wrong descriptor or smem layout shows as wrong
// or NaN values (the parts of a tile that the wgmma must not read hold NaN); a wrong C layout as
// values at the wrong place.
//
// Runs only on compute capability 9.0 (the sm_90a cubin); skipped elsewhere. On sm_80 the kernel
// compiles to an empty body.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/sm90/ptx.cuh"
#include "layout/gmma.hpp"

namespace {

using namespace loom;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

// Skip unless a compute capability 9.0 GPU is present.
std::string why_skip() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return "no CUDA GPU";
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "cudaGetDeviceProperties failed";
  if (p.major != 9 || p.minor != 0)
    return "wgmma needs compute capability 9.0 (sm_90a); this GPU is " + std::to_string(p.major) + "." +
           std::to_string(p.minor);
  return "";
}

// Shared memory for both tiles, each starting on a 1024-byte boundary (the 128B swizzle's repeat,
// so that the descriptors' base offset is 0 and Loom's swizzle-from-base matches the hardware).
constexpr int kSmemBytes = 40 * 1024;

template <int N, int kTransA, int kTransB>
__global__ void __launch_bounds__(128) wgmma_one(std::uint16_t const* a_img, int a_elems, std::uint16_t const* b_img,
                                                 int b_elems, GmmaDesc da, GmmaDesc db, float* out) {
#if LOOM_SM90A_ENABLED
  using namespace loom::sm90;
  __shared__ alignas(1024) unsigned char raw[kSmemBytes + 1024];
  unsigned const pad = (1024u - smem_u32(raw) % 1024u) % 1024u;
  auto* sa = reinterpret_cast<std::uint16_t*>(raw + pad);
  auto* sb = sa + (a_elems + 511) / 512 * 512;  // next 1024-byte boundary
  for (int i = threadIdx.x; i < a_elems; i += 128) sa[i] = a_img[i];
  for (int i = threadIdx.x; i < b_elems; i += 128) sb[i] = b_img[i];
  fence_proxy_async_shared_cta();  // generic-proxy stores -> async-proxy (wgmma) reads
  __syncthreads();

  float d[N / 2];
#pragma unroll
  for (int r = 0; r < N / 2; ++r) d[r] = 0.f;
  unsigned long long const desc_a = da.at(smem_u32(sa)).encode();
  unsigned long long const desc_b = db.at(smem_u32(sb)).encode();
  wgmma_fence_operand(d);
  wgmma_fence();
  wgmma_ss<WgmmaType::kBF16, N, kTransA, kTransB>(d, desc_a, desc_b, /*scale_d=*/0);
  wgmma_commit_group();
  wgmma_wait_group<0>();
  wgmma_fence_operand(d);
#pragma unroll
  for (int r = 0; r < N / 2; ++r) out[threadIdx.x * (N / 2) + r] = d[r];
#else
  (void)a_img, (void)a_elems, (void)b_img, (void)b_elems, (void)da, (void)db, (void)out;
#endif
}

std::uint16_t bf16_bits(float x) {  // exact for the small integers used here
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return std::uint16_t(u >> 16);
}
constexpr std::uint16_t kBf16NaN = 0x7FC0;

// The stage tile of one operand: the atom repeated over (mn, max(16, the atom's K extent)), so
// that K-major swizzled atoms (K extent 32, 64 elements) are whole; the wgmma reads k < 16 only.
SwizzleLayout operand_tile(SwizzleLayout const& atom, i64 mn) {
  i64 const k_atom = size(get(atom.layout.shape, 1)).v;
  return tile_to_shape(atom, make_shape(mn, k_atom > 16 ? k_atom : 16));
}

// The smem image of an (mn x 16) operand: element (i,k) at tile(i,k); everything else NaN.
std::vector<std::uint16_t> smem_image(SwizzleLayout const& tile, std::vector<float> const& x, i64 mn) {
  std::vector<std::uint16_t> img(size(tile).v, kBf16NaN);
  for (i64 i = 0; i < mn; ++i)
    for (i64 k = 0; k < 16; ++k) {
      i64 const o = tile(i, k);
      EXPECT_TRUE(o >= 0 && o < i64(img.size())) << "offset " << o << " outside the tile";
      if (o < 0 || o >= i64(img.size())) continue;
      EXPECT_EQ(img[o], kBf16NaN) << "two elements at offset " << o;
      img[o] = bf16_bits(x[i * 16 + k]);
    }
  return img;
}

template <int N, int kTransA, int kTransB>
void run_case(SwizzleLayout const& atom_a, SwizzleLayout const& atom_b) {
  GmmaMajor const major_a = kTransA ? GmmaMajor::kMN : GmmaMajor::kK;
  GmmaMajor const major_b = kTransB ? GmmaMajor::kMN : GmmaMajor::kK;

  // Fresh random small integers in [-4, 4]: every product and sum of 16 is exact in fp32.
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<float> a(64 * 16), b(N * 16);  // row-major (mn, k)
  for (float& v : a) v = float(dist(rng));
  for (float& v : b) v = float(dist(rng));

  SwizzleLayout const tile_a = operand_tile(atom_a, 64), tile_b = operand_tile(atom_b, N);
  GmmaDesc const da = make_gmma_desc(tile_a, major_a, 16, 64);
  GmmaDesc const db = make_gmma_desc(tile_b, major_b, 16, N);
  std::vector<std::uint16_t> const img_a = smem_image(tile_a, a, 64), img_b = smem_image(tile_b, b, N);
  i64 const a_padded = (i64(img_a.size()) + 511) / 512 * 512;
  ASSERT_LE((a_padded + i64(img_b.size())) * 2, kSmemBytes) << "tiles do not fit the kernel's shared memory";
  // Everything above (layouts, descriptors, smem images) runs on any host; the rest needs the GPU.
  std::string const skip = why_skip();
  if (!skip.empty()) GTEST_SKIP() << skip;

  std::uint16_t *d_a = nullptr, *d_b = nullptr;
  float* d_out = nullptr;
  int const n_out = 128 * (N / 2);
  CUDA_OK(cudaMalloc(&d_a, img_a.size() * 2));
  CUDA_OK(cudaMalloc(&d_b, img_b.size() * 2));
  CUDA_OK(cudaMalloc(&d_out, n_out * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_a, img_a.data(), img_a.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_b, img_b.data(), img_b.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out, 0xff, n_out * sizeof(float)));  // poison: 0xffffffff is a NaN
  wgmma_one<N, kTransA, kTransB><<<1, 128>>>(d_a, int(img_a.size()), d_b, int(img_b.size()), da, db, d_out);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> got(n_out);
  CUDA_OK(cudaMemcpy(got.data(), d_out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d_a));
  CUDA_OK(cudaFree(d_b));
  CUDA_OK(cudaFree(d_out));

  // D = A B^T in fp64, column-major (m + 64 n).
  std::vector<double> want(64 * N, 0.0);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < 16; ++k) want[m + 64 * n] += double(a[m * 16 + k]) * double(b[n * 16 + k]);

  Layout const c_tv = mma_atom_sm90_64xNx16(N).c_tv;
  std::vector<int> hits(64 * N, 0);
  int bad = 0;
  for (int t = 0; t < 128; ++t)
    for (int r = 0; r < N / 2; ++r) {
      i64 const idx = c_tv(t, r);
      ASSERT_TRUE(idx >= 0 && idx < 64 * N) << "c_tv(" << t << "," << r << ") = " << idx;
      ++hits[idx];
      float const g = got[t * (N / 2) + r];
      if (!(double(g) == want[idx]) && ++bad <= 8) {
        std::string also;  // where in D the value the hardware wrote would fit
        for (int j = 0; j < 64 * N && also.size() < 60; ++j)
          if (double(g) == want[j]) also += " (" + std::to_string(j % 64) + "," + std::to_string(j / 64) + ")";
        ADD_FAILURE() << "thread " << t << " register " << r << ": got " << g << ", want D(" << idx % 64 << ","
                      << idx / 64 << ") = " << want[idx] << "; the value is D at" << (also.empty() ? " none" : also);
      }
    }
  EXPECT_EQ(bad, 0) << "of " << n_out << " accumulators";
  for (int i = 0; i < 64 * N; ++i) ASSERT_EQ(hits[i], 1) << "c_tv covers D(" << i % 64 << "," << i / 64 << ") "
                                                         << hits[i] << " times";
}

// K-major A and B, 128-byte swizzle (the main loop's layout).
TEST(GmmaDevice, M64N8K16KMajorSw128) { run_case<8, 0, 0>(gmma_atom_k_sw128(), gmma_atom_k_sw128()); }
TEST(GmmaDevice, M64N64K16KMajorSw128) { run_case<64, 0, 0>(gmma_atom_k_sw128(), gmma_atom_k_sw128()); }
TEST(GmmaDevice, M64N256K16KMajorSw128) { run_case<256, 0, 0>(gmma_atom_k_sw128(), gmma_atom_k_sw128()); }
// The other K-major swizzles and no swizzle (8x16-byte core matrices, LBO and SBO both used).
TEST(GmmaDevice, M64N64K16KMajorSw64Sw32) { run_case<64, 0, 0>(gmma_atom_k_sw64(), gmma_atom_k_sw32()); }
TEST(GmmaDevice, M64N64K16KMajorInterleave) { run_case<64, 0, 0>(gmma_atom_k_inter(), gmma_atom_k_inter()); }
// MN-major B (imm-trans-b = 1), and both MN-major (imm-trans-a = 1 too).
TEST(GmmaDevice, M64N64K16BMnMajorSw128) { run_case<64, 0, 1>(gmma_atom_k_sw128(), gmma_atom_mn_sw128()); }
TEST(GmmaDevice, M64N64K16BMnMajorInterleave) { run_case<64, 0, 1>(gmma_atom_k_sw128(), gmma_atom_mn_inter()); }
TEST(GmmaDevice, M64N128K16MnMajorSw128Sw64) { run_case<128, 1, 1>(gmma_atom_mn_sw128(), gmma_atom_mn_sw64()); }

}  // namespace
