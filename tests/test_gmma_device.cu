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
// The 8-bit part below does the same for wgmma m64nNk32 (e4m3/e5m2 A and B, K-major) and
// mma_atom_sm90_64xNx32, A from shared memory or from registers.
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

// Register r of thread t must hold D = A B^T (fp64; a and b row-major (mn, k), k_len deep) at the
// (m, n) that c_tv(t, r) = m + 64 n gives, and c_tv must cover D once.
void expect_accumulators(std::vector<float> const& got, std::vector<float> const& a, std::vector<float> const& b,
                         int N, int k_len, Layout const& c_tv) {
  int const n_out = 128 * (N / 2);
  std::vector<double> want(64 * N, 0.0);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < k_len; ++k) want[m + 64 * n] += double(a[m * k_len + k]) * double(b[n * k_len + k]);

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

  expect_accumulators(got, a, b, N, 16, mma_atom_sm90_64xNx16(N).c_tv);
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


// ---------------------------------------------------------------------------------------------
// 8-bit inputs: wgmma m64nNk32 (e4m3/e5m2, fp32 accumulators)
// ---------------------------------------------------------------------------------------------
// The same check for mma_atom_sm90_64xNx32: one warpgroup stages an 8-bit A (64x32) and B (Nx32),
// K-major (wgmma has no transpose for 8-bit types), through Loom's 8-bit atoms and descriptors,
// and issues one wgmma.mma_async.sync.aligned.m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}; register r of
// thread t must hold D at mma_atom_sm90_64xNx32(N).c_tv(t, r). With A from registers, thread t
// passes the 16 values a_tv(t, v) of the RS atom, four to a 32-bit register (value v in byte v % 4
// of register v / 4), so that a wrong A fragment shows as wrong values too. A and B from shared
// memory go through kernels/sm90/ptx.cuh's wgmma_ss_k32 (generated by gen_wgmma.py); the RS form
// is written out here.

}  // namespace

// Outside the anonymous namespace, as kernels/sm90/ptx.cuh's wgmma wrappers are: the host pass
// sees these device-only functions referenced from device code alone.
namespace loom_gmma_fp8 {

enum class Fp8 { kE4m3, kE5m2 };

// A from registers (wgmma's RS form), which kernels/sm90/ptx.cuh does not issue: written out here.
template <int N, Fp8 TA, Fp8 TB>
struct WgmmaFp8RS;

template <>
struct WgmmaFp8RS<64, Fp8::kE4m3, Fp8::kE4m3> {
  __device__ static __forceinline__ void mma(float (&d)[32], unsigned const (&a)[4], unsigned long long db, int scale_d) {
#if LOOM_SM90A_ENABLED
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "{%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
#else
    (void)d, (void)a, (void)db, (void)scale_d;
#endif
  }
};

}  // namespace loom_gmma_fp8

namespace {

using loom_gmma_fp8::Fp8;
using loom_gmma_fp8::WgmmaFp8RS;

// The generated wrapper's input type for each format.
template <Fp8 T>
constexpr loom::sm90::WgmmaType kWgmmaType = T == Fp8::kE4m3 ? loom::sm90::WgmmaType::kE4M3 : loom::sm90::WgmmaType::kE5M2;

template <int N, Fp8 TA, Fp8 TB, bool kRegsA>
__global__ void __launch_bounds__(128) wgmma_fp8_one(std::uint8_t const* a_img, int a_elems, std::uint8_t const* b_img,
                                                     int b_elems, unsigned const* a_regs, GmmaDesc da, GmmaDesc db,
                                                     float* out) {
#if LOOM_SM90A_ENABLED
  using namespace loom::sm90;
  __shared__ alignas(1024) unsigned char raw[kSmemBytes + 1024];
  unsigned const pad = (1024u - smem_u32(raw) % 1024u) % 1024u;
  std::uint8_t* sa = raw + pad;
  std::uint8_t* sb = sa + (a_elems + 1023) / 1024 * 1024;  // next 1024-byte boundary
  for (int i = threadIdx.x; i < a_elems; i += 128) sa[i] = a_img[i];
  for (int i = threadIdx.x; i < b_elems; i += 128) sb[i] = b_img[i];
  unsigned a[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) a[r] = a_regs[threadIdx.x * 4 + r];
  fence_proxy_async_shared_cta();  // generic-proxy stores -> async-proxy (wgmma) reads
  __syncthreads();

  float d[N / 2];
#pragma unroll
  for (int r = 0; r < N / 2; ++r) d[r] = 0.f;
  unsigned long long const desc_b = db.at(smem_u32(sb)).encode();
  wgmma_fence_operand(d);
  wgmma_fence();
  if constexpr (kRegsA) {
    WgmmaFp8RS<N, TA, TB>::mma(d, a, desc_b, /*scale_d=*/0);
  } else {
    wgmma_ss_k32<kWgmmaType<TA>, kWgmmaType<TB>, N>(d, da.at(smem_u32(sa)).encode(), desc_b, /*scale_d=*/0);
  }
  wgmma_commit_group();
  wgmma_wait_group<0>();
  wgmma_fence_operand(d);
#pragma unroll
  for (int r = 0; r < N / 2; ++r) out[threadIdx.x * (N / 2) + r] = d[r];
#else
  (void)a_img, (void)a_elems, (void)b_img, (void)b_elems, (void)a_regs, (void)da, (void)db, (void)out;
#endif
}

// An 8-bit float's bits for a small integer (|x| <= 4 here: exact in both formats): e4m3 has 3
// mantissa bits and exponent bias 7, e5m2 2 and 15. 0x7F is a NaN in both.
std::uint8_t fp8_bits(float x, Fp8 t) {
  int const mbits = t == Fp8::kE4m3 ? 3 : 2, bias = t == Fp8::kE4m3 ? 7 : 15;
  if (x == 0.f) return 0;
  unsigned const sign = x < 0 ? 0x80u : 0u;
  float a = x < 0 ? -x : x;
  int e = 0;
  while (a >= 2.f) a /= 2.f, ++e;
  unsigned const m = unsigned((a - 1.f) * float(1 << mbits));
  return std::uint8_t(sign | unsigned(e + bias) << mbits | m);
}
constexpr std::uint8_t kFp8NaN = 0x7F;

// The stage tile of one 8-bit operand: the atom over (mn, max(32, its K extent)); the wgmma reads k < 32.
std::vector<std::uint8_t> fp8_image(SwizzleLayout const& tile, std::vector<float> const& x, i64 mn, Fp8 t) {
  std::vector<std::uint8_t> img(size(tile).v, kFp8NaN);
  for (i64 i = 0; i < mn; ++i)
    for (i64 k = 0; k < 32; ++k) {
      i64 const o = tile(i, k);
      EXPECT_TRUE(o >= 0 && o < i64(img.size())) << "offset " << o << " outside the tile";
      if (o < 0 || o >= i64(img.size())) continue;
      EXPECT_EQ(img[o], kFp8NaN) << "two elements at offset " << o;
      img[o] = fp8_bits(x[i * 32 + k], t);
    }
  return img;
}

template <int N, Fp8 TA, Fp8 TB, bool kRegsA = false>
void run_fp8_case(SwizzleLayout const& atom_a, SwizzleLayout const& atom_b) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> dist(-4, 4);  // every product and sum of 32 is exact in fp32
  std::vector<float> a(64 * 32), b(N * 32);        // row-major (mn, k)
  for (float& v : a) v = float(dist(rng));
  for (float& v : b) v = float(dist(rng));

  auto tile_of = [](SwizzleLayout const& atom, i64 mn) {
    i64 const k_atom = size(get(atom.layout.shape, 1)).v;
    return tile_to_shape(atom, make_shape(mn, k_atom > 32 ? k_atom : 32));
  };
  SwizzleLayout const tile_a = tile_of(atom_a, 64), tile_b = tile_of(atom_b, N);
  GmmaDesc const da = make_gmma_desc(tile_a, GmmaMajor::kK, 8, 64);
  GmmaDesc const db = make_gmma_desc(tile_b, GmmaMajor::kK, 8, N);
  std::vector<std::uint8_t> const img_a = fp8_image(tile_a, a, 64, TA), img_b = fp8_image(tile_b, b, N, TB);
  i64 const a_padded = (i64(img_a.size()) + 1023) / 1024 * 1024;
  ASSERT_LE(a_padded + i64(img_b.size()), kSmemBytes) << "tiles do not fit the kernel's shared memory";
  // A from registers: thread t's value v is a_tv(t, v) = m + 64 k of the RS atom.
  Layout const a_tv = mma_atom_sm90_64xNx32(N, GmmaA::kRegs).a_tv;
  std::vector<unsigned> regs(128 * 4, 0);
  for (int t = 0; t < 128; ++t)
    for (int v = 0; v < 16; ++v) {
      i64 const idx = a_tv(t, v);
      ASSERT_TRUE(idx >= 0 && idx < 64 * 32);
      regs[t * 4 + v / 4] |= unsigned(fp8_bits(a[(idx % 64) * 32 + idx / 64], TA)) << (8 * (v % 4));
    }
  // Everything above (layouts, descriptors, smem images) runs on any host; the rest needs the GPU.
  std::string const skip = why_skip();
  if (!skip.empty()) GTEST_SKIP() << skip;

  std::uint8_t *d_a = nullptr, *d_b = nullptr;
  unsigned* d_regs = nullptr;
  float* d_out = nullptr;
  int const n_out = 128 * (N / 2);
  CUDA_OK(cudaMalloc(&d_a, img_a.size()));
  CUDA_OK(cudaMalloc(&d_b, img_b.size()));
  CUDA_OK(cudaMalloc(&d_regs, regs.size() * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_out, n_out * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_a, img_a.data(), img_a.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_b, img_b.data(), img_b.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_regs, regs.data(), regs.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_out, 0xff, n_out * sizeof(float)));  // poison: 0xffffffff is a NaN
  wgmma_fp8_one<N, TA, TB, kRegsA>
      <<<1, 128>>>(d_a, int(img_a.size()), d_b, int(img_b.size()), d_regs, da, db, d_out);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> got(n_out);
  CUDA_OK(cudaMemcpy(got.data(), d_out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d_a));
  CUDA_OK(cudaFree(d_b));
  CUDA_OK(cudaFree(d_regs));
  CUDA_OK(cudaFree(d_out));
  expect_accumulators(got, a, b, N, 32, mma_atom_sm90_64xNx32(N).c_tv);
}

constexpr Fp8 kE4m3 = Fp8::kE4m3, kE5m2 = Fp8::kE5m2;

// K-major A and B, 128-byte swizzle: one row of the atom is 128 elements of K, of which the wgmma
// reads 32 (two 16-byte chunks).
TEST(GmmaDeviceFp8, M64N8K32E4m3Sw128) { run_fp8_case<8, kE4m3, kE4m3>(gmma_atom_k_sw128(8), gmma_atom_k_sw128(8)); }
TEST(GmmaDeviceFp8, M64N64K32E4m3Sw128) { run_fp8_case<64, kE4m3, kE4m3>(gmma_atom_k_sw128(8), gmma_atom_k_sw128(8)); }
TEST(GmmaDeviceFp8, M64N256K32E4m3Sw128) {
  run_fp8_case<256, kE4m3, kE4m3>(gmma_atom_k_sw128(8), gmma_atom_k_sw128(8));
}
// The other swizzles, and no swizzle (LBO and SBO both used).
TEST(GmmaDeviceFp8, M64N64K32E4m3Sw64Sw32) { run_fp8_case<64, kE4m3, kE4m3>(gmma_atom_k_sw64(8), gmma_atom_k_sw32(8)); }
TEST(GmmaDeviceFp8, M64N64K32E4m3Interleave) {
  run_fp8_case<64, kE4m3, kE4m3>(gmma_atom_k_inter(8), gmma_atom_k_inter(8));
}
// Mixed formats: the layouts do not depend on which 8-bit format each operand has.
TEST(GmmaDeviceFp8, M64N64K32E5m2E4m3Sw128) { run_fp8_case<64, kE5m2, kE4m3>(gmma_atom_k_sw128(8), gmma_atom_k_sw128(8)); }
TEST(GmmaDeviceFp8, M64N64K32E4m3E5m2Sw128) { run_fp8_case<64, kE4m3, kE5m2>(gmma_atom_k_sw128(8), gmma_atom_k_sw128(8)); }
// A from registers (the RS atom's A fragment), B from shared memory.
TEST(GmmaDeviceFp8, M64N64K32E4m3RegistersA) {
  run_fp8_case<64, kE4m3, kE4m3, true>(gmma_atom_k_sw128(8), gmma_atom_k_sw128(8));
}

}  // namespace
