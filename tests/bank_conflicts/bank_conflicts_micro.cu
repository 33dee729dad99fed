// Microkernels for checking loom-layout's bank-conflict model (layout/access.hpp) against Nsight
// Compute: each case is one shared-memory access pattern, given as loom-layout's bank_conflicts
// takes it (SMEM_LAYOUT, THREAD_LAYOUT, bytes, an optional swizzle), run as exactly the analysed
// warp instructions and nothing else on shared memory.
//
//   loom_bank_conflicts_micro --list      one line per case: index, op, the model's wavefronts
//                                          and ideal, name, the loom-layout arguments (tab-separated)
//   loom_bank_conflicts_micro --case N    runs case N once (one block, the case's threads)
//
// tests/bank_conflicts/run_ncu.sh runs every case under ncu and prints the table. The kernel reads
// each lane's byte address from a global table, then issues one st.shared/ld.shared of the case's
// width per instruction (inline PTX, so the compiler neither merges nor drops them); loads are
// summed into a global word so that they stay live.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "layout/access.hpp"
#include "layout/parse.hpp"
#include "layout/swizzle.hpp"

#define CUDA_CHECK(call)                                                                              \
  do {                                                                                                \
    cudaError_t err_ = (call);                                                                        \
    if (err_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "loom_bank_conflicts_micro: %s failed: %s (%s:%d)\n", #call,               \
                   cudaGetErrorString(err_), __FILE__, __LINE__);                                     \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

namespace {

struct Case {
  char const* name;
  char const* smem;    // layout, offsets in elements
  char const* tv;      // (thread, value[, instruction...]) -> index into smem's coordinates
  int bytes;           // one access
  int swizzle[3];      // B,M,S on element offsets; B = 0 for none
  bool store;
};

// A dozen-odd patterns: conflict-free, 2-, 8- and 32-way, broadcast, with and without swizzle,
// 2-, 4-, 8- and 16-byte, stores and loads; the last ones are sm90's TMA-store epilogue.
Case const kCases[] = {
    {"4B row, one bank each", "(32,32):(32,1)", "(32,1,32):(32,0,1)", 4, {0, 0, 0}, true},
    {"4B column, 32-way", "(32,32):(32,1)", "(32,1,32):(1,0,32)", 4, {0, 0, 0}, true},
    {"4B stride 2 words, 2-way", "64:1", "32:2", 4, {0, 0, 0}, true},
    {"4B stride 2 words, 2-way (load)", "64:1", "32:2", 4, {0, 0, 0}, false},
    {"4B stride 8 words, 8-way", "256:1", "32:8", 4, {0, 0, 0}, true},
    {"4B broadcast (load)", "32:1", "32:0", 4, {0, 0, 0}, false},
    {"2B consecutive", "64:1", "32:1", 2, {0, 0, 0}, true},
    {"8B consecutive", "64:1", "(32,2):(2,1)", 8, {0, 0, 0}, true},
    {"8B stride 16 bytes, 2-way", "128:1", "(32,2):(4,1)", 8, {0, 0, 0}, true},
    {"16B chunk column of 128B rows, 8-way", "(8,64):(64,1)", "((8,4),8,2):((1,64),8,256)", 16, {0, 0, 0}, true},
    {"16B chunk column under Sw<3,3,3>", "(8,64):(64,1)", "((8,4),8,2):((1,64),8,256)", 16, {3, 3, 3}, true},
    {"16B chunk column under Sw<3,3,3> (load)", "(8,64):(64,1)", "((8,4),8,2):((1,64),8,256)", 16, {3, 3, 3}, false},
    {"16B chunk column, 8-way (load)", "(8,64):(64,1)", "((8,4),8,2):((1,64),8,256)", 16, {0, 0, 0}, false},
    {"sm90 epilogue bf16 pairs, Sw<3,3,3>", "((8,8),64):((64,512),1)", "((4,8,4),2,(2,8)):((128,1,16),64,(8,512))", 4,
     {3, 3, 3}, true},
    {"sm90 epilogue bf16 pairs, no swizzle", "((8,8),64):((64,512),1)", "((4,8,4),2,(2,8)):((128,1,16),64,(8,512))", 4,
     {0, 0, 0}, true},
    {"sm90 epilogue f32 pairs, Sw<3,2,3>", "((8,8),32):((32,256),1)", "((4,8,4),2,(2,4)):((128,1,16),64,(8,512))", 8,
     {3, 2, 3}, true},
};
constexpr int kCaseCount = int(sizeof kCases / sizeof kCases[0]);

loom::TvAccesses accesses(Case const& c) {
  loom::Layout tv = loom::parse_layout(c.tv);
  loom::SwizzleLayout mem{loom::make_swizzle(c.swizzle[0], c.swizzle[1], c.swizzle[2]), 0, loom::parse_layout(c.smem)};
  loom::i64 values = loom::rank(tv) >= 2 ? loom::size(loom::get(tv, 1)).v : 1;
  return loom::tv_accesses(tv, int(c.bytes / values), mem);
}

std::string args_of(Case const& c) {
  std::string s = "bank_conflicts '";
  if (c.swizzle[0] > 0)
    s += "Sw<" + std::to_string(c.swizzle[0]) + "," + std::to_string(c.swizzle[1]) + "," + std::to_string(c.swizzle[2]) + "> o ";
  return s + c.smem + "' '" + c.tv + "' --bytes=" + std::to_string(c.bytes);
}

// addr[(k * warps + w) * 32 + lane]: lane's byte address in instruction k (-1: inactive).
template <int kBytes, bool kStore>
__global__ void bank_micro(int const* __restrict__ addr, int instrs, int warps, unsigned* sink) {
  extern __shared__ __align__(128) unsigned char smem[];
  int const w = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  unsigned const base = unsigned(__cvta_generic_to_shared(smem));
  unsigned acc = 0;
  for (int k = 0; k < instrs; ++k) {
    int const a = addr[(k * warps + w) * 32 + lane];
    if (a < 0) continue;
    unsigned const p = base + unsigned(a);
    unsigned const v = unsigned(k) ^ threadIdx.x;
    if constexpr (kStore) {
      if constexpr (kBytes == 2) asm volatile("st.shared.b16 [%0], %1;" ::"r"(p), "h"((unsigned short)v) : "memory");
      if constexpr (kBytes == 4) asm volatile("st.shared.b32 [%0], %1;" ::"r"(p), "r"(v) : "memory");
      if constexpr (kBytes == 8) asm volatile("st.shared.v2.b32 [%0], {%1,%2};" ::"r"(p), "r"(v), "r"(v) : "memory");
      if constexpr (kBytes == 16)
        asm volatile("st.shared.v4.b32 [%0], {%1,%2,%3,%4};" ::"r"(p), "r"(v), "r"(v), "r"(v), "r"(v) : "memory");
    } else {
      unsigned x = 0, y = 0, z = 0, t = 0;
      unsigned short h = 0;
      if constexpr (kBytes == 2) asm volatile("ld.shared.b16 %0, [%1];" : "=h"(h) : "r"(p) : "memory");
      if constexpr (kBytes == 4) asm volatile("ld.shared.b32 %0, [%1];" : "=r"(x) : "r"(p) : "memory");
      if constexpr (kBytes == 8) asm volatile("ld.shared.v2.b32 {%0,%1}, [%2];" : "=r"(x), "=r"(y) : "r"(p) : "memory");
      if constexpr (kBytes == 16)
        asm volatile("ld.shared.v4.b32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(t) : "r"(p) : "memory");
      acc += x + y + z + t + h;
    }
  }
  if (!kStore) atomicAdd(sink, acc);
}

template <int kBytes>
void launch(bool store, int threads, int const* addr, int instrs, int warps, unsigned* sink, size_t smem) {
  if (store) {
    CUDA_CHECK(cudaFuncSetAttribute(bank_micro<kBytes, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    bank_micro<kBytes, true><<<1, threads, smem>>>(addr, instrs, warps, sink);
  } else {
    CUDA_CHECK(cudaFuncSetAttribute(bank_micro<kBytes, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    bank_micro<kBytes, false><<<1, threads, smem>>>(addr, instrs, warps, sink);
  }
  CUDA_CHECK(cudaGetLastError());
}

int run_case(int n) {
  Case const& c = kCases[n];
  loom::TvAccesses a = accesses(c);
  std::vector<int> table;
  loom::i64 top = 0;
  for (auto const& lanes : a.addr)
    for (loom::i64 x : lanes) {
      table.push_back(int(x));
      top = std::max(top, x + a.bytes);
    }
  size_t const smem = size_t((top + 127) / 128 * 128);
  if (smem > 48 * 1024) {
    std::fprintf(stderr, "loom_bank_conflicts_micro: case %d needs %zu bytes of shared memory, more than 48 KB\n", n, smem);
    return 1;
  }
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count == 0) {
    std::fprintf(stderr, "loom_bank_conflicts_micro: no CUDA device\n");
    return 1;
  }
  int* d_addr = nullptr;
  unsigned* d_sink = nullptr;
  CUDA_CHECK(cudaMalloc(&d_addr, table.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_sink, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_addr, table.data(), table.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_sink, 0, sizeof(unsigned)));
  int const threads = int(a.warps() * 32);
  switch (a.bytes) {
    case 2: launch<2>(c.store, threads, d_addr, int(a.instrs), int(a.warps()), d_sink, smem); break;
    case 4: launch<4>(c.store, threads, d_addr, int(a.instrs), int(a.warps()), d_sink, smem); break;
    case 8: launch<8>(c.store, threads, d_addr, int(a.instrs), int(a.warps()), d_sink, smem); break;
    case 16: launch<16>(c.store, threads, d_addr, int(a.instrs), int(a.warps()), d_sink, smem); break;
    default: std::fprintf(stderr, "loom_bank_conflicts_micro: case %d: %d-byte accesses are not run\n", n, a.bytes); return 1;
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d_addr));
  CUDA_CHECK(cudaFree(d_sink));
  std::printf("case %d ran: %s\n", n, c.name);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
      for (int n = 0; n < kCaseCount; ++n) {
        Case const& c = kCases[n];
        loom::SharedReport r = loom::shared_report(accesses(c));
        std::printf("%d\t%s\t%lld\t%lld\t%s\t%s\n", n, c.store ? "st" : "ld", (long long)r.total.wavefronts,
                    (long long)r.total.ideal, c.name, args_of(c).c_str());
      }
      return 0;
    }
    if (argc == 3 && std::strcmp(argv[1], "--case") == 0) {
      char* end = nullptr;
      long n = std::strtol(argv[2], &end, 10);
      if (*end != '\0' || n < 0 || n >= kCaseCount) {
        std::fprintf(stderr, "loom_bank_conflicts_micro: --case takes 0..%d, got '%s'\n", kCaseCount - 1, argv[2]);
        return 2;
      }
      return run_case(int(n));
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "loom_bank_conflicts_micro: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: loom_bank_conflicts_micro --list | --case N\n");
  return 2;
}
