// Loom layout core: what one warp's memory instruction costs, from the addresses its lanes touch.
// Host only (std::vector); kernels never include it. loom-layout's bank_conflicts and coalescing
// ops and tests/test_layout_access.cpp use it.
//
// Shared memory (the model, to be checked against Nsight Compute with tests/bank_conflicts/):
//   - 32 banks of 4 bytes: byte address a is in bank (a / 4) % 32, word a / 4.
//   - A request of 1-, 2- or 4-byte accesses is served for all 32 lanes at once; 8-byte accesses
//     in two phases of 16 lanes (half-warps) and 16-byte accesses in four phases of 8 lanes
//     (quarter-warps), each lane touching bytes/4 consecutive words.
//   - A phase takes as many wavefronts as the largest number of distinct words that fall in one
//     bank (lanes reading or writing the same word share it: broadcast), at least one.
//   - The ideal is what the phase's distinct bytes need at 128 bytes a wavefront, at least one:
//     1 for a warp of 4-byte accesses, 2 for 8-byte, 4 for 16-byte. Wavefronts above it are
//     the bank conflicts (Nsight Compute's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_*).
//
// Global memory: a warp instruction touches every 32-byte sector and 128-byte line that holds one
// of its bytes; the ideal is the distinct bytes divided by 32 (sectors) or 128 (lines), rounded up.
// Addresses are relative to a base that is 128-byte aligned.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "layout/layout.hpp"
#include "layout/swizzle.hpp"

namespace loom {

// Lanes that do not take part in an instruction have this address.
constexpr i64 kInactiveLane = -1;

struct SharedCost {
  i64 wavefronts = 0;
  i64 ideal = 0;
  i64 excess() const { return wavefronts - ideal; }
};

struct GlobalCost {
  i64 sectors = 0, sectors_ideal = 0;
  i64 lines = 0, lines_ideal = 0;
};

namespace detail {
inline void access_check(int bytes, std::vector<i64> const& addr) {
  LOOM_REQUIRE(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16,
               "access: the access width must be 1, 2, 4, 8 or 16 bytes");
  LOOM_REQUIRE(addr.size() <= 32, "access: a warp has at most 32 lanes");
  for (i64 a : addr)
    LOOM_REQUIRE(a == kInactiveLane || (a >= 0 && a % bytes == 0),
                 "access: an address is negative or not a multiple of the access width");
}
inline i64 ceil_div_i64(i64 a, i64 b) { return (a + b - 1) / b; }
}  // namespace detail

// The shared-memory wavefronts of one warp instruction: addr[lane] is the byte address lane
// accesses (kInactiveLane for none), each access `bytes` wide and aligned to its width.
inline SharedCost shared_access_cost(std::vector<i64> const& addr, int bytes) {
  detail::access_check(bytes, addr);
  int const phase_lanes = bytes == 16 ? 8 : bytes == 8 ? 16 : 32;
  SharedCost c;
  for (int p0 = 0; p0 < 32; p0 += phase_lanes) {
    std::vector<i64> words;  // distinct words of this phase
    std::vector<i64> bytes_touched;
    for (int l = p0; l < p0 + phase_lanes && l < int(addr.size()); ++l) {
      if (addr[size_t(l)] == kInactiveLane) continue;
      for (i64 w = addr[size_t(l)] / 4; w < (addr[size_t(l)] + bytes + 3) / 4; ++w) words.push_back(w);
      for (i64 b = addr[size_t(l)]; b < addr[size_t(l)] + bytes; ++b) bytes_touched.push_back(b);
    }
    if (words.empty()) continue;  // a phase without active lanes issues nothing
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::sort(bytes_touched.begin(), bytes_touched.end());
    bytes_touched.erase(std::unique(bytes_touched.begin(), bytes_touched.end()), bytes_touched.end());
    i64 per_bank[32] = {};
    i64 worst = 0;
    for (i64 w : words) worst = std::max(worst, ++per_bank[w % 32]);
    c.wavefronts += worst;
    c.ideal += std::max<i64>(1, detail::ceil_div_i64(i64(bytes_touched.size()), 128));
  }
  return c;
}

// The sectors and lines of one warp instruction to global memory (addresses as above).
inline GlobalCost global_access_cost(std::vector<i64> const& addr, int bytes) {
  detail::access_check(bytes, addr);
  std::vector<i64> sectors, lines, touched;
  for (i64 a : addr) {
    if (a == kInactiveLane) continue;
    for (i64 b = a; b < a + bytes; ++b) touched.push_back(b);
    sectors.push_back(a / 32);  // an aligned access of at most 16 bytes stays in one sector
    lines.push_back(a / 128);
  }
  auto distinct = [](std::vector<i64>& v) {
    std::sort(v.begin(), v.end());
    return i64(std::unique(v.begin(), v.end()) - v.begin());
  };
  GlobalCost c;
  c.sectors = distinct(sectors);
  c.lines = distinct(lines);
  i64 const n = distinct(touched);
  c.sectors_ideal = detail::ceil_div_i64(n, 32);
  c.lines_ideal = detail::ceil_div_i64(n, 128);
  return c;
}

// A thread-value layout's accesses, instruction by instruction: tv is (thread, value[, instr...])
// -> an index into the domain of the memory layout (its coordinates in colexicographic order, as
// CuTe's TV layouts index a tile). Mode 1 holds the values one access moves (absent: one value),
// the modes after it the instructions each thread issues; threads 32w..32w+31 are warp w.
// elem_offset(i) is the memory layout at index i (a SwizzleLayout's offset, say), in elements of
// elem_bytes. Every access's values must be consecutive in memory and aligned to the access.
struct TvAccesses {
  i64 threads = 0, values = 1, instrs = 1;
  int bytes = 0;  // one access: values * elem_bytes
  // addr[(instr * warps + warp)][lane]: byte addresses, warp-major within an instruction
  std::vector<std::vector<i64>> addr;
  i64 warps() const { return (threads + 31) / 32; }
};

template <class F>
TvAccesses tv_accesses(Layout const& tv, int elem_bytes, F&& elem_offset) {
  LOOM_REQUIRE(elem_bytes > 0 && elem_bytes <= 16 && (elem_bytes & (elem_bytes - 1)) == 0,
               "access: the element width must be a power of two of at most 16 bytes");
  TvAccesses r;
  r.threads = size(get(tv, 0)).v;
  r.values = rank(tv) >= 2 ? size(get(tv, 1)).v : 1;
  r.instrs = size(tv).v / (r.threads * r.values);
  r.bytes = int(r.values * elem_bytes);
  LOOM_REQUIRE(r.values * elem_bytes <= 16 && (r.bytes & (r.bytes - 1)) == 0,
               "access: the values of one access (mode 1) are not 1, 2, 4, 8 or 16 bytes");
  for (i64 i = 0; i < r.instrs; ++i)
    for (i64 w = 0; w < r.warps(); ++w) {
      std::vector<i64> lanes(32, kInactiveLane);
      for (i64 l = 0; l < 32 && 32 * w + l < r.threads; ++l) {
        i64 const t = 32 * w + l;
        i64 const first = elem_offset(tv(IntTuple(t + r.threads * r.values * i)));
        for (i64 v = 1; v < r.values; ++v)
          LOOM_REQUIRE(elem_offset(tv(IntTuple(t + r.threads * (v + r.values * i)))) == first + v,
                       "access: the values of one access (mode 1) are not consecutive in memory");
        LOOM_REQUIRE(first >= 0 && (first * elem_bytes) % r.bytes == 0,
                     "access: an access is not aligned to its width in memory");
        lanes[size_t(l)] = first * elem_bytes;
      }
      r.addr.push_back(std::move(lanes));
    }
  return r;
}

inline TvAccesses tv_accesses(Layout const& tv, int elem_bytes, SwizzleLayout const& mem) {
  return tv_accesses(tv, elem_bytes, [&](i64 i) { return mem.swizzle(mem.offset + mem.layout(IntTuple(i))); });
}

// Totals over every instruction of every warp.
struct SharedReport {
  std::vector<SharedCost> per;  // as TvAccesses::addr
  SharedCost total;
};
inline SharedReport shared_report(TvAccesses const& a) {
  SharedReport r;
  for (auto const& lanes : a.addr) {
    SharedCost c = shared_access_cost(lanes, a.bytes);
    r.per.push_back(c);
    r.total.wavefronts += c.wavefronts;
    r.total.ideal += c.ideal;
  }
  return r;
}
struct GlobalReport {
  std::vector<GlobalCost> per;
  GlobalCost total;
};
inline GlobalReport global_report(TvAccesses const& a) {
  GlobalReport r;
  for (auto const& lanes : a.addr) {
    GlobalCost c = global_access_cost(lanes, a.bytes);
    r.per.push_back(c);
    r.total.sectors += c.sectors;
    r.total.sectors_ideal += c.sectors_ideal;
    r.total.lines += c.lines;
    r.total.lines_ideal += c.lines_ideal;
  }
  return r;
}

}  // namespace loom
