// Per-case seeds, and the commands that rerun one case (repro_command, bench_repro_command).
#include "harness/harness.hpp"
#include "harness/splitmix64.hpp"

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

namespace {
std::string shortest(double v) {  // the shortest text that reads back as v
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}
}  // namespace

std::uint64_t case_seed(std::uint64_t seed, Problem const& p, int misalign) {
  std::uint64_t h = mix64(seed + 0x9E3779B97F4A7C15ull);
  auto add = [&](std::uint64_t v) { h = mix64(h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2))); };
  std::uint64_t ab[2];
  std::memcpy(&ab[0], &p.alpha, 8);
  std::memcpy(&ab[1], &p.beta, 8);
  for (std::uint64_t v : {std::uint64_t(p.op), std::uint64_t(p.dtype), std::uint64_t(p.out_dtype), std::uint64_t(p.m),
                          std::uint64_t(p.n), std::uint64_t(p.k), std::uint64_t(p.a), std::uint64_t(p.b),
                          std::uint64_t(p.c), std::uint64_t(p.lda), std::uint64_t(p.ldb), std::uint64_t(p.ldc),
                          std::uint64_t(misalign), ab[0], ab[1]})
    add(v);
  // B's own type, hashed only where it has one, so that the seeds of other cases stay what they were.
  if (p.b_dtype) add(0x100 + std::uint64_t(*p.b_dtype));
  return h;
}

std::string repro_command(std::string const& kernel, Problem const& p0, int misalign, std::uint64_t seed) {
  Problem const p = with_default_lds(p0);
  // loom-validate sets every leading dimension to its minimum plus one --ld-pad: the case's pad.
  std::int64_t const pad = p.lda - min_ld(p.a, rows_a(p), cols_a(p));
  std::string cmd = "loom-validate --kernels=" + kernel + " --op=" + to_string(p.op) + " --dtypes=" +
                    input_types(p);
  if (p.out_dtype != default_output(InputTypes(p.dtype, b_type(p))))
    cmd += std::string(" --out-dtypes=") + to_string(p.out_dtype);
  cmd += " --layouts=" + layout_string(p) + " --m=" + std::to_string(p.m) + " --n=" + std::to_string(p.n);
  if (p.op == OpKind::gemm) cmd += " --k=" + std::to_string(p.k);
  cmd += " --ld-pad=" + std::to_string(pad) + " --misalign=" + std::to_string(misalign) + " --alpha=" +
         shortest(p.alpha) + " --beta=" + shortest(p.beta) + " --seed=" + std::to_string(seed);
  return cmd;
}

std::string bench_repro_command(std::string const& kernel, std::string const& providers, Problem const& p) {
  std::string cmd = "loom-bench --kernels=" + kernel + " --dtypes=" + input_types(p);
  if (p.out_dtype != default_output(InputTypes(p.dtype, b_type(p))))
    cmd += std::string(" --out-dtypes=") + to_string(p.out_dtype);
  cmd += " --layouts=" + layout_string(p) + " --m=" + std::to_string(p.m) + " --n=" + std::to_string(p.n);
  if (p.op == OpKind::gemm) cmd += " --k=" + std::to_string(p.k);
  // Both scalars, always: the defaults differ by op (beta 1 for add, 0 for gemm).
  cmd += " --alpha=" + shortest(p.alpha) + " --beta=" + shortest(p.beta);
  if (!providers.empty()) cmd += " --providers=" + providers;
  return cmd;
}

}  // namespace loom::harness
