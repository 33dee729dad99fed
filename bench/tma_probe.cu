// loom-tma-probe: how many operand bytes one SM's TMA loads put into shared memory per clock, with
// no math behind them. sm90's GEMM takes in at most about 36 bytes a clock per SM on every tile
// measured, where cuBLAS's kernel takes in 49 on the same decomposition (docs/tuning/sm90.md,
// fourteenth round); this isolates the loads, so that what sets that rate can be varied alone.
//
// One CTA per SM. Its ring is sm90's (kernels/sm90/pipeline.cuh): per stage a full and an empty
// mbarrier; one producer thread waits for an empty stage, announces its bytes and issues `boxes`
// k-major bf16 boxes of kRows rows x 64 (128-byte rows, 128-byte swizzle, the GEMM's operand boxes,
// made by the same layout-core calls); one consumer warp waits for each full stage and releases it
// at once. With a cluster of 2 the pair reads one panel: each CTA loads every other box and
// multicasts it to both, as the GEMM shares a tile. `share` CTAs (clusters) read the same panel, as
// the GEMM's tile rows read the same B panel, so that L2 serves all but the first.
//
// Per configuration: the distinct bytes read (each CTA walks its panel's K again and again, so
// against the L2's size this says whether the loads hit L2 after the first pass or stream from
// DRAM: --k sets it), bytes received per SM per SM clock (clock64 over each CTA's consumer loop;
// mean, min and max over the CTAs), the aggregate GB/s over the launch (CUDA events) and its time.
//
// Written by hand, and why: the ring's waits and arrivals (control flow); the panel a CTA reads
// (which CTAs share data is the experiment's knob, not a layout of the problem).
#include <cuda.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/sm90/ptx.cuh"
#include "harness/harness.hpp"
#include "kernels/tma_copy.hpp"
#include "layout/gmma.hpp"
#include "layout/tensor.hpp"
#include "layout/tma.hpp"

using namespace loom;
using namespace loom::sm90;

namespace {

constexpr int kTK = 64;         // bf16 elements of K a row of a box holds: 128 bytes
constexpr int kBarrierSlots = 16;  // barriers reserved in shared memory
constexpr int kRowsOptions[] = {64, 128, 144, 192, 256};

struct ProbeParams {
  CUtensorMap map;            // (rows_total, K) bf16, k-major, boxes of (kRows, 64)
  Coord<2> shape;             // (rows_total, K)
  int boxes, stages, cluster, share, panels, iters;
  unsigned stage_bytes, box_bytes;
  long long* cycles;          // per CTA: its consumer loop's clocks
};

template <int kRows>
__global__ void __launch_bounds__(64, 1) tma_probe_kernel(__grid_constant__ ProbeParams const p) {
#if LOOM_SM90A_ENABLED
  extern __shared__ unsigned char smem_raw[];
  unsigned const raw = smem_u32(smem_raw);
  unsigned const base = (raw + 1023u) & ~1023u;  // the 128-byte swizzle's repeat
  unsigned const bars = base + unsigned(p.stages) * p.stage_bytes;
  auto full = [&](int s) { return Barrier{bars + 8u * unsigned(s)}; };
  auto empty = [&](int s) { return Barrier{bars + 8u * unsigned(kBarrierSlots + s)}; };
  int const tid = int(threadIdx.x);
  if (tid == 0) {
    for (int s = 0; s < p.stages; ++s) mbarrier_init(full(s), 1), mbarrier_init(empty(s), unsigned(p.cluster));
    tma_prefetch_descriptor(&p.map);
    fence_mbarrier_init_cluster();
  }
  cluster_arrive_relaxed();
  cluster_wait();
  unsigned const rank = cluster_ctarank();
  int const cluster_id = int(blockIdx.x) / p.cluster;
  int const panel = (cluster_id / p.share) % p.panels;
  int const k_tiles = int(p.shape[1]) / kTK;
  constexpr Tile kBox = make_tile(kRows, kTK);
  auto const c = make_identity_tensor(p.shape);  // (rows, K) -> (row, k)
  if (tid == 0) {  // producer
    int stage = 0;
    unsigned phase = 0;
    for (int it = 0; it < p.iters; ++it) {
      mbarrier_wait(empty(stage), phase ^ 1u);
      mbarrier_arrive_expect_tx(full(stage), p.stage_bytes);
      for (int b = int(rank); b < p.boxes; b += p.cluster) {
        Coord<2> const rk = local_tile<kBox>(c, panel * p.boxes + b, it % k_tiles).base;  // box (kRows, 64)
        SmemBuffer const dst{base + unsigned(stage) * p.stage_bytes + unsigned(b) * p.box_bytes};
        if (p.cluster == 1)
          tma_load_2d(dst, &p.map, full(stage), int(rk[1]), int(rk[0]));
        else
          tma_load_2d_multicast(dst, &p.map, full(stage), int(rk[1]), int(rk[0]), (unsigned short)((1u << p.cluster) - 1u));
      }
      if (++stage == p.stages) stage = 0, phase ^= 1u;
    }
    for (int s = 0; s < p.stages; ++s) {  // every peer's last release, before this CTA exits
      mbarrier_wait(empty(stage), phase ^ 1u);
      if (++stage == p.stages) stage = 0, phase ^= 1u;
    }
  } else if (tid >= 32) {  // consumer warp
    long long const t0 = clock64();
    int stage = 0;
    unsigned phase = 0;
    for (int it = 0; it < p.iters; ++it) {
      mbarrier_wait(full(stage), phase);
      __syncwarp();
      if (tid == 32)
        for (int r = 0; r < p.cluster; ++r) mbarrier_arrive_cluster(empty(stage), unsigned(r));
      if (++stage == p.stages) stage = 0, phase ^= 1u;
    }
    if (tid == 32) p.cycles[blockIdx.x] = clock64() - t0;
  }
#endif
}

template <int kRows>
void run_one(ProbeParams p, int grid, int smem, float* ms) {
  auto* kernel = tma_probe_kernel<kRows>;
  LOOM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  LOOM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = unsigned(p.cluster);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cfg.gridDim = dim3(unsigned(grid));
  cfg.blockDim = dim3(64);
  cfg.dynamicSmemBytes = size_t(smem);
  cudaEvent_t a, b;
  LOOM_CUDA(cudaEventCreate(&a));
  LOOM_CUDA(cudaEventCreate(&b));
  LOOM_CUDA(cudaLaunchKernelEx(&cfg, kernel, p));  // warm-up
  LOOM_CUDA(cudaGetLastError());
  LOOM_CUDA(cudaEventRecord(a));
  LOOM_CUDA(cudaLaunchKernelEx(&cfg, kernel, p));
  LOOM_CUDA(cudaGetLastError());
  LOOM_CUDA(cudaEventRecord(b));
  LOOM_CUDA(cudaEventSynchronize(b));
  LOOM_CUDA(cudaEventElapsedTime(ms, a, b));
  LOOM_CUDA(cudaEventDestroy(a));
  LOOM_CUDA(cudaEventDestroy(b));
}

int run(std::vector<int> const& rows, std::vector<int> const& boxes, std::vector<int> const& stages,
        std::vector<int> const& clusters, std::vector<int> const& shares, int device, int k, int iters, int ctas);

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"loom-tma-probe: one SM's TMA load rate into shared memory, bf16 k-major boxes as sm90's GEMM loads them"};
  std::vector<int> rows{64, 128, 144, 256}, boxes{1, 2}, stages{2, 4, 6}, clusters{1, 2}, shares{1, 3};
  int device = 0, k = 1024, iters = 512, ctas = 0;
  app.add_option("--rows", rows, "rows of a box (64, 128, 144, 192 or 256)")->delimiter(',');
  app.add_option("--boxes", boxes, "boxes a stage")->delimiter(',')->check(CLI::Range(1, 8));
  app.add_option("--stages", stages, "stages in the ring")->delimiter(',')->check(CLI::Range(1, kBarrierSlots));
  app.add_option("--cluster", clusters, "CTAs of a cluster sharing a panel (1 or 2)")->delimiter(',')->check(CLI::Range(1, 2));
  app.add_option("--share", shares, "clusters reading the same panel")->delimiter(',')->check(CLI::Range(1, 64));
  app.add_option("--k", k, "K of the streamed tensor (a multiple of 64)")->check(CLI::Range(64, 1 << 20));
  app.add_option("--iters", iters, "stages each CTA loads")->check(CLI::Range(1, 1 << 24));
  app.add_option("--ctas", ctas, "CTAs (default: one per SM, a whole number of clusters)")->check(CLI::Range(0, 1 << 16));
  app.add_option("--device", device, "CUDA device")->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    std::fprintf(stderr, "loom-tma-probe: %s\n", e.what());
    return 2;
  }
  for (int r : rows)
    if (std::find(std::begin(kRowsOptions), std::end(kRowsOptions), r) == std::end(kRowsOptions)) {
      std::fprintf(stderr, "loom-tma-probe: --rows=%d: a box has 64, 128, 144, 192 or 256 rows\n", r);
      return 2;
    }
  if (k % kTK != 0) {
    std::fprintf(stderr, "loom-tma-probe: --k=%d is not a multiple of 64\n", k);
    return 2;
  }
  try {
    return run(rows, boxes, stages, clusters, shares, device, k, iters, ctas);
  } catch (harness::NoGpu const& e) {
    std::fprintf(stderr, "loom-tma-probe: %s\n", e.what());
    return 2;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "loom-tma-probe: %s\n", e.what());
    return 1;
  }
}

namespace {

int run(std::vector<int> const& rows, std::vector<int> const& boxes, std::vector<int> const& stages,
        std::vector<int> const& clusters, std::vector<int> const& shares, int device, int k, int iters, int ctas) {
  harness::DeviceInfo const info = harness::query_device(device);  // NoGpu without one
  if (info.cc / 10 != 9) {
    std::fprintf(stderr, "loom-tma-probe: %s is compute capability %d.%d; the probe is sm_90a code\n", info.name.c_str(),
                 info.cc / 10, info.cc % 10);
    return 2;
  }
  LOOM_CUDA(cudaSetDevice(device));
  cudaDeviceProp prop{};
  LOOM_CUDA(cudaGetDeviceProperties(&prop, device));
  int const sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs; a 65536 x %d bf16 tensor, %d stages a CTA\n", prop.name, sms, k, iters);
  std::printf("%5s %5s %6s %7s %5s %8s %9s | %8s %8s %8s | %9s %9s\n", "rows", "boxes", "stages", "cluster", "share", "stage KB",
              "data MB", "B/clk", "min", "max", "GB/s", "us");

  // 64 Ki rows x K bf16 (128 MiB at K = 1024, more than L2): at most 256 x 2 rows a panel, 128 panels,
  // so that with share = 1 every CTA of a 132-SM card reads its own (the last few wrap around).
  long long const rows_total = 65536;
  void* data = nullptr;
  LOOM_CUDA(cudaMalloc(&data, size_t(rows_total) * size_t(k) * 2));
  LOOM_CUDA(cudaMemset(data, 0x3c, size_t(rows_total) * size_t(k) * 2));
  long long* cycles = nullptr;
  LOOM_CUDA(cudaMalloc(&cycles, sizeof(long long) * 65536));

  for (int r : rows)
    for (int bx : boxes)
      for (int st : stages)
        for (int cl : clusters)
          for (int sh : shares) {
            unsigned const box_bytes = unsigned(r) * kTK * 2, stage_bytes = box_bytes * unsigned(bx);
            int const smem = int(stage_bytes) * st + 2 * kBarrierSlots * 8 + 1024;
            if (smem > int(prop.sharedMemPerBlockOptin) || bx % cl != 0 || r * bx > rows_total) continue;
            ProbeParams p{};
            SwizzleLayout const box = tile_to_shape(gmma_atom(GmmaMajor::kK, GmmaSwizzle::k128B, 16), make_shape(r, kTK), make_shape(0, 1));
            TmaDesc const d = make_tma_desc(make_shape(rows_total, k), make_shape(k, 1), 2, box, make_shape(r, kTK));
            if (std::string const err = make_tma_copy(d, data, true, &p.map); !err.empty()) throw harness::Error(err);
            p.shape = Coord<2>{{rows_total, k}};
            p.boxes = bx, p.stages = st, p.cluster = cl, p.share = sh, p.iters = iters;
            p.panels = int(rows_total / (r * bx));
            p.stage_bytes = stage_bytes, p.box_bytes = box_bytes;
            p.cycles = cycles;
            int const grid = (ctas > 0 ? ctas : sms) / cl * cl;
            if (grid == 0) continue;
            float ms = 0;
            switch (r) {
              case 64: run_one<64>(p, grid, smem, &ms); break;
              case 128: run_one<128>(p, grid, smem, &ms); break;
              case 144: run_one<144>(p, grid, smem, &ms); break;
              case 192: run_one<192>(p, grid, smem, &ms); break;
              default: run_one<256>(p, grid, smem, &ms); break;
            }
            std::vector<long long> cyc(static_cast<std::size_t>(grid));
            LOOM_CUDA(cudaMemcpy(cyc.data(), cycles, sizeof(long long) * size_t(grid), cudaMemcpyDeviceToHost));
            double const bytes = double(stage_bytes) * iters;
            double sum = 0, lo = 1e30, hi = 0;
            for (long long cc : cyc) {
              double const rate = bytes / double(std::max(cc, 1ll));
              sum += rate, lo = std::min(lo, rate), hi = std::max(hi, rate);
            }
            // The distinct bytes the launch reads: against the L2's size, whether the loads are L2 hits
            // after the first pass over K (iters > K / 64) or stream from DRAM.
            int const distinct = std::min(p.panels, (grid / cl + sh - 1) / sh);
            double const data_mb = double(distinct) * r * bx * double(k) * 2 / 1e6;
            std::printf("%5d %5d %6d %7d %5d %8.1f %9.1f | %8.2f %8.2f %8.2f | %9.0f %9.1f\n", r, bx, st, cl, sh, stage_bytes / 1024.0,
                        data_mb, sum / grid, lo, hi, bytes * grid / (ms * 1e-3) / 1e9, ms * 1e3);
          }
  LOOM_CUDA(cudaFree(data));
  LOOM_CUDA(cudaFree(cycles));
  return 0;
}

}  // namespace
