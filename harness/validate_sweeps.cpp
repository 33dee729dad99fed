// loom-validate's sweeps: the default correctness sweep and the named llm sweeps.
#include "harness/harness.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <bit>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fnmatch.h>
#include <limits>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace loom::harness {

SweepSpec default_validate_sweep(OpKind op) {
  SweepSpec s;
  s.op = op;
  for (auto const& k : kernels())
    if (k.op == op) s.kernels.push_back(k.name);
  s.dtypes = {DType::f32, DType::f16, DType::bf16};
  s.layouts = {"ccc", "ccr", "crc", "crr", "rcc", "rcr", "rrc", "rrr"};
  s.ld_pad = {0, 3};
  s.misalign = {0, 1};
  if (op == OpKind::add) {
    // Every size in {1, 7, 127, 1000, 4097} appears as M and as N, plus vectors and a power of two.
    s.m = {1, 7, 127, 1000, 4097};
    s.n = {1, 7, 127, 1000, 4097};
    s.mn_pairs = {{1, 1},     {7, 127},  {127, 7},  {1000, 1000}, {4097, 31},
                  {33, 4097}, {1024, 1024}, {1, 4097}, {4097, 1}};
    s.k = {0};
    s.alpha = {1, 0.5, 1.25};
    s.beta = {0, -2, 0.75};
    s.ab_pairs = {{1, 0}, {0.5, -2}, {1.25, 0.75}};
  } else {
    // Ragged M, N and K around tile sizes. With --reference=auto the fp64 host reference takes
    // M*N*K <= 2^24; the three larger shapes, (256,256,1024), (1000,129,255) and (1000,129,1024),
    // go to cuBLAS.
    s.m = {1, 7, 127, 256, 1000};
    s.n = {1, 33, 64, 256, 129};
    s.mn_pairs = {{1, 1}, {7, 33}, {127, 64}, {64, 127}, {256, 256}, {1000, 129}};
    s.k = {1, 7, 64, 255, 1024};
    s.alpha = {1, 0.5};
    s.beta = {0, -2};
    s.ab_pairs = {{1, 0}, {0.5, -2}};
  }
  return s;
}

SweepSpec default_validate_sweep_8bit() {
  SweepSpec s = default_validate_sweep(OpKind::gemm);
  s.dtypes = {DType::e4m3, InputTypes(DType::e4m3, DType::e5m2), InputTypes(DType::e5m2, DType::e4m3),
              InputTypes(DType::e4m3, DType::e4m3, true)};
  // k-major A and B, the 8-bit path's; D either way.
  s.layouts = {"rcr", "rcc"};
  // K a multiple of 16 so that the minimal lda and ldb are too (A's and B's rows, 1-byte elements);
  // ragged against the k tile of 128 instead.
  s.k = {16, 272, 1024};
  s.ld_pad = {0, 16};
  s.misalign = {0};
  return s;
}

std::vector<SweepSpec> llm_validate_sweep(NamedSweep const& sweep, bool ragged, std::vector<std::int64_t> const& ms,
                                          std::vector<std::string> const& layouts) {
  // The sweep's (N, K) pairs and its M up to 1024 (the larger M are the big-tile path the default
  // sweep's shapes already take).
  std::vector<std::int64_t> m_list = ms;
  if (m_list.empty())
    for (std::int64_t m : sweep.m)
      if (m <= 1024) m_list.push_back(m);
  auto const& kNk = sweep.nk;
  std::vector<std::string> const l_list =
      layouts.empty() ? std::vector<std::string>{"ccc", "ccr", "crc", "crr", "rcc", "rcr", "rrc", "rrr"} : layouts;
  std::vector<SweepSpec> out;
  for (std::size_t j = 0; j < kNk.size(); ++j)
    for (std::size_t i = 0; i < m_list.size(); ++i)
      for (std::size_t l = 0; l < l_list.size(); ++l) {
        // Every shape in every layout; the dtype and the (alpha, beta) pair alternate with the
        // layout, M and (N, K), so that each layout meets both dtypes and both epilogues (C read or
        // not) across the shapes without crossing them all.
        SweepSpec s;
        s.op = OpKind::gemm;
        s.layouts = {l_list[l]};
        s.dtypes = {(l + i) % 2 ? DType::f16 : DType::bf16};
        s.ld_pad = {0};
        s.misalign = {0};
        if ((l + j) % 2) {
          s.alpha = {1.5}, s.beta = {0.5};
        } else {
          s.alpha = {1}, s.beta = {0};
        }
        // Ragged: M and K grow and N shrinks by 1 to 7, by a pattern that varies with the shape,
        // so that the sweep meets many residues of the tile edges (a given M stays as given).
        std::int64_t const ii = std::int64_t(i), jj = std::int64_t(j);
        s.m = {m_list[i] + (ragged && ms.empty() ? 1 + (ii + 2 * jj) % 7 : 0)};
        s.n = {kNk[j].first - (ragged ? 1 + (3 * ii + jj) % 7 : 0)};
        s.k = {kNk[j].second + (ragged ? 1 + (5 * ii + 4 * jj) % 7 : 0)};
        out.push_back(s);
      }
  return out;
}

}  // namespace loom::harness
