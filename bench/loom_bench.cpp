// loom-bench: times every kernel of a sweep side by side with cuBLAS, with Google Benchmark.
//
// One benchmark per case, named like its NVTX range, "<kernel>/<dtype>/<layout>/<M>x<N>x<K>" (the
// dtype is the input types: "bf16", "e4m3", "e4m3xe5m2", "e4m3-block"), then "/out=<dtype>" where --out-dtypes
// gives gemm another output than the inputs' default. Each case runs its baselines first:
// "cublas/..." (geam for add, GemmEx for gemm; for f16/bf16 add, which cuBLAS lacks, fp32 geam over
// the same shape as the bandwidth reference; for 8-bit gemm, cuBLASLt's FP8 matmul with the same
// scales, tensor or block, harness::cublaslt_gemm, where it takes the case; gemm's in the case's output
// type) and, for bandwidth-bound ops,
// "memcpy_d2d/..." moving the same number of bytes. The kernel's vs_cublas counter divides its
// throughput by the baseline's, measured moments before in the same process.
//
// Timing (nvbench's cold measurement, driven by Google Benchmark): each benchmark runs exactly one
// Google Benchmark iteration (Iterations(1)), and that iteration is one whole measurement: warm-up
// launches, then samples, each an L2 flush (read a buffer of twice its size), a CUDA event, the
// launch inside the case's NVTX range, a second event, a synchronize, and the SM clock read through
// NVML. A sample taken with the SM clock below --throttle-threshold (60%) of the highest SM clock
// is discarded and taken again. Sampling stops when at least --min-samples samples and --min-time
// seconds of them are kept and their noise (noise_pct: the relative standard error of the median,
// from the MAD) is at most --max-noise percent, or after --max-time seconds; --iterations=N keeps
// exactly N. The iteration's manual time is the median launch (so Google Benchmark's Time is the
// median, and --benchmark_repetitions repeats whole measurements); --benchmark_min_time sets
// --min-time ("100x": --iterations). Counters: samples, noise_pct, min_us, median_us, host_us
// (the median host time of the launch call itself, nvbench's CPU time: the L2 flush queued before
// it hides it from the GPU time), throttled_discarded and sm_mhz (where NVML reads the clock), and
// the throughput (GB/s, TFLOP/s, pct_peak, vs_cublas) from the median.
//
// Verification (--verification=on, the default; the CUTLASS profiler's Disposition): before a
// kernel's row is timed, one launch on a NaN-poisoned D is compared with cuBLAS (fp64 on the host
// where cuBLAS lacks the case) by harness::compare; the row's label carries disposition=passed,
// incorrect (timed and reported all the same, exit status 1), not_verified (baselines, or
// --verification=off) or failed (with the row's error).
//
// Sweep options take the CUTLASS-profiler list syntax ("1024:8192:1024", "1,7,127"). Flags the
// driver does not know pass through to Google Benchmark (--benchmark_filter, _format, _out, ...).
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <unistd.h>  // sysconf: the host memory a check needs

#include "bench/gpu_util.hpp"
#include "harness/cli.hpp"
#include "harness/fault.hpp"
#include "harness/harness.hpp"
#include "harness/watchdog.hpp"
#include "kernels/registry.hpp"

namespace {

using loom::DType;
using loom::KernelInfo;
using loom::OpKind;
using loom::PlanTarget;
using loom::Problem;
namespace harness = loom::harness;

// Bad command line: one line on stderr, exit status 2.
using UsageError = loom::cli::UsageError;
namespace cli = loom::cli;

// One line however the message came (cli::one_line, as loom-validate writes its errors).
[[noreturn]] void die(std::string const& msg, int status) {
  std::fprintf(stderr, "loom-bench: %s\n", cli::one_line(msg).c_str());
  std::exit(status);
}

// ---------------------------------------------------------------------------------------------
// Options and sweep

struct Options {
  cli::Options shared;  // the options loom-validate has too (harness/cli.hpp)
  int warmup = 3;
  double min_time = 0.2;
  std::int64_t iterations = 0;
  int min_samples = 10;
  // 60, not nvbench's 75: an H100 holds 71-75% of its highest SM clock under its power cap through
  // any sustained tensor-core GEMM (cuBLAS's too), and 75 discarded nearly every sample of the
  // large ones, each running into --max-time.
  double max_noise = 0.5, max_time = 10, throttle_threshold = 60;
  bool list_kernels = false, repro = false, progress = false;
  // --output and --append: declared for --help and CLI11's strict parse; output_files() reads them
  // from argv, since they become Google Benchmark's --benchmark_out before CLI11 parses.
  std::string output;
  bool append = false;
  std::string providers = "loom,cublas,memcpy";
  std::string verification = "on";  // --verification=on|off
  std::string plan_set = "best";     // --plan-set=best|shapes
  std::vector<int> plan_shapes;      // --plan-shapes

  // --kernels alone picks kernels out of the default sweep; the other sweep options replace it.
  bool custom_sweep() const { return shared.problem.any(); }
};

// The default sweep's sizes: square, M = N. 16384^2 fp32 is 1 GiB per operand.
std::vector<std::int64_t> const kDefaultAddSizes = {2048, 4096, 8192, 16384};
std::vector<std::int64_t> const kDefaultGemmSizes = {1024, 2048, 4096, 8192};
// (M, N, K) of the default gemm sweep.
struct Mnk {
  std::int64_t m, n, k;
};
std::vector<Mnk> const kDefaultGemmShapes = {
    {4096, 4096, 4096}, {8192, 8192, 8192}, {128, 8192, 8192}, {512, 14336, 4096}, {8192, 8192, 512}};

// The dtypes of the named sweeps (--sweep=NAME, harness/named_sweeps.hpp).
std::vector<DType> const kLlmDtypes = {DType::bf16, DType::f16};

[[noreturn]] void too_many_cases(std::uint64_t total, std::uint64_t limit) {
  throw UsageError("the sweep has " + std::to_string(total) + (total == ~std::uint64_t(0) ? " or more" : "") +
                   " cases, more than the limit of " + std::to_string(limit) +
                   "; narrow it, or raise the limit with --max-cases");
}

// One spec per M value, so that N and K can default to M (square problems).
std::vector<harness::SweepSpec> build_specs(Options const& o) {
  std::vector<harness::SweepSpec> specs;
  cli::ProblemOptions const& pr = o.shared.problem;
  harness::NamedSweep const* named = o.shared.sweep.sweep;
  std::vector<std::string> names;
  for (KernelInfo const* k : o.shared.kernels.selected) names.push_back(k->name);
  if (names.empty()) throw UsageError("--ignore-kernels leaves no kernel");
  auto chosen = [&](std::string const& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  // --out-dtypes goes to every spec, the default sweep's too, before any is counted.
  auto base = [&pr](OpKind op, std::vector<std::string> kernels) {
    harness::SweepSpec s;
    s.op = op;
    s.kernels = std::move(kernels);
    s.out_dtypes = pr.out_dtypes.value_or(std::vector<DType>{});
    // --scale: a case per mode of each 8-bit input named without -block (tensor alone by default).
    s.scales = pr.scales.value_or(std::vector<loom::ScaleMode>{loom::ScaleMode::tensor});
    s.ld_pad = {0};
    s.misalign = {0};
    return s;
  };

  if (!named && !o.custom_sweep()) {
    // add, f32/f16/bf16 column-major plus f32 row-major, M = N in {2048 .. 16384}.
    std::vector<std::string> add_kernels;
    for (auto const& k : loom::kernels())
      if (k.op == OpKind::add && chosen(k.name)) add_kernels.push_back(k.name);
    // gemm, each kernel over its own dtypes, column-major: the squares of the performance bars and
    // the skinny shapes (M small, N/K large; K small) where tile choice matters.
    for (auto const& k : loom::kernels()) {
      if (k.op != OpKind::gemm || !chosen(k.name)) continue;
      for (auto const& [m, n, kk] : kDefaultGemmShapes) {
        bool const skinny = !(m == n && n == kk);
        bool const fp32 = std::find(k.dtypes.begin(), k.dtypes.end(), DType::f32) != k.dtypes.end();
        if (skinny && !fp32) continue;  // the skinny bar is the SGEMM's
        harness::SweepSpec s = base(OpKind::gemm, {k.name});
        s.m = {m};
        s.n = {n};
        s.k = {kk};
        s.alpha = {1.0};
        s.beta = {0.0};
        // 8-bit inputs are timed when --dtypes names them (bench/README.md), not by default.
        for (DType t : k.dtypes)
          if (!loom::is_8bit(t)) s.dtypes.push_back(t);
        // The tensor-core kernels' bars name ccc and rcr (row-major A, the common LLM layout).
        s.layouts = fp32 ? std::vector<std::string>{"ccc"} : std::vector<std::string>{"ccc", "rcr"};
        specs.push_back(s);
      }
    }
    for (std::int64_t m : add_kernels.empty() ? std::vector<std::int64_t>{} : kDefaultAddSizes) {
      harness::SweepSpec s = base(OpKind::add, add_kernels);
      s.m = s.n = s.k = {m};
      s.alpha = {1.0};
      s.beta = {1.0};
      s.dtypes = {DType::f32, DType::f16, DType::bf16};
      s.layouts = {"ccc"};
      specs.push_back(s);
      s.dtypes = {DType::f32};
      s.layouts = {"rrr"};
      specs.push_back(s);
    }
    // The default sweep is small, but --max-cases is a limit the user set: it holds here too.
    std::uint64_t total = 0;
    for (auto const& s : specs) total += harness::count_cases(s);
    if (total > o.shared.run.max_cases) too_many_cases(total, o.shared.run.max_cases);
    return specs;
  }

  std::vector<harness::InputTypes> const dtypes =
      pr.dtypes.value_or(std::vector<harness::InputTypes>{DType::f32, DType::f16, DType::bf16});
  std::vector<std::string> const layouts = pr.layouts.value_or(std::vector<std::string>{"ccc"});
  // Without --layouts, 8-bit inputs take rcr (k-major A and B, the only layouts their kernels and
  // cuBLASLt take; D row-major as the transformer layers have it), the others ccc: a spec each.
  std::vector<std::pair<std::vector<harness::InputTypes>, std::vector<std::string>>> groups;
  if (pr.layouts) {
    groups.emplace_back(dtypes, layouts);
  } else {
    std::vector<harness::InputTypes> wide, narrow;
    for (harness::InputTypes t : dtypes) (loom::is_8bit(t.a) ? narrow : wide).push_back(t);
    if (!wide.empty()) groups.emplace_back(wide, layouts);
    if (!narrow.empty()) groups.emplace_back(narrow, std::vector<std::string>{"rcr"});
  }
  std::optional<std::vector<std::int64_t>> const &ms = pr.m, &ns = pr.n, &ks = pr.k;
  std::vector<double> const alpha = pr.alpha.value_or(std::vector<double>{1.0});
  std::optional<std::vector<double>> const& beta = pr.beta;
  std::uint64_t const max_cases = o.shared.run.max_cases;

  if (named) {
    // gemm kernels only, each over the dtypes it takes (expand() leaves out the others). --dtypes,
    // --layouts, --m, --alpha and --beta replace the sweep's own lists, as they replace the default
    // sweep's.
    std::vector<std::string> of_gemm;
    for (auto const& n : names)
      if (loom::find_kernel(n)->op == OpKind::gemm) of_gemm.push_back(n);
    if (of_gemm.empty())
      throw UsageError("--sweep=" + o.shared.sweep.text + " times gemm kernels, and no selected kernel is one (see --list)");
    harness::SweepSpec s = base(OpKind::gemm, of_gemm);
    if (pr.dtypes) s.dtypes = dtypes;
    else s.dtypes.assign(kLlmDtypes.begin(), kLlmDtypes.end());
    s.layouts = pr.layouts ? layouts : named->bench_layouts;
    s.m = ms ? *ms : named->m;
    s.n = {1};
    s.k = {1};
    s.alpha = alpha;
    s.beta = beta ? *beta : std::vector<double>{0.0};
    unsigned __int128 const n = (unsigned __int128)harness::count_cases(s) * named->nk.size();
    std::uint64_t const total = n > ~std::uint64_t(0) ? ~std::uint64_t(0) : std::uint64_t(n);
    if (total > max_cases) too_many_cases(total, max_cases);
    for (auto [n_, k_] : named->nk) {
      s.n = {n_};
      s.k = {k_};
      specs.push_back(s);
    }
    return specs;
  }

  // K is gemm's: with no gemm kernel selected, --k would be ignored.
  if (ks && std::none_of(names.begin(), names.end(), [](std::string const& n) { return loom::find_kernel(n)->op == OpKind::gemm; }))
    throw UsageError("--k: K is gemm's, and no selected kernel computes gemm");
  // Every M gets a spec of the same size: count them all before building any, since a huge sweep
  // (--m=1:100000 --n=1:100000) would not even fit as specs.
  std::uint64_t total = 0;
  for (OpKind op : {OpKind::add, OpKind::gemm}) {
    std::vector<std::string> of_op;
    for (auto const& n : names)
      if (loom::find_kernel(n)->op == op) of_op.push_back(n);
    if (of_op.empty()) continue;
    std::vector<std::int64_t> const& m_list = ms ? *ms : (op == OpKind::add ? kDefaultAddSizes : kDefaultGemmSizes);
    for (auto const& [group_dtypes, group_layouts] : groups) {
      harness::SweepSpec one = base(op, of_op);
      one.dtypes = group_dtypes;
      one.layouts = group_layouts;
      one.m = {1};
      one.n = ns ? *ns : std::vector<std::int64_t>{1};
      one.k = ks ? *ks : std::vector<std::int64_t>{1};
      one.alpha = alpha;
      one.beta = beta ? *beta : std::vector<double>{1.0};
      unsigned __int128 const n = (unsigned __int128)harness::count_cases(one) * m_list.size();
      total = n > ~std::uint64_t(0) - total ? ~std::uint64_t(0) : total + std::uint64_t(n);
    }
  }
  if (total > max_cases) too_many_cases(total, max_cases);

  for (OpKind op : {OpKind::add, OpKind::gemm}) {
    std::vector<std::string> of_op;
    for (auto const& n : names)
      if (loom::find_kernel(n)->op == op) of_op.push_back(n);
    if (of_op.empty()) continue;
    for (std::int64_t m : ms ? *ms : (op == OpKind::add ? kDefaultAddSizes : kDefaultGemmSizes))
      for (auto const& [group_dtypes, group_layouts] : groups) {
        harness::SweepSpec s = base(op, of_op);
        s.dtypes = group_dtypes;
        s.layouts = group_layouts;
        s.m = {m};
        s.n = ns ? *ns : std::vector<std::int64_t>{m};
        s.k = ks ? *ks : std::vector<std::int64_t>{m};
        s.alpha = alpha;
        // beta = 1 for add, so that cuBLAS geam reads B as the kernel does; 0 for gemm.
        s.beta = beta ? *beta : std::vector<double>{op == OpKind::add ? 1.0 : 0.0};
        specs.push_back(s);
      }
  }
  return specs;
}

// ---------------------------------------------------------------------------------------------
// Device state shared by the benchmarks

struct DeviceBytes {
  void* p = nullptr;
  std::size_t n = 0;
  explicit DeviceBytes(std::size_t bytes) : n(bytes) { LOOM_CUDA(cudaMalloc(&p, n)); }
  ~DeviceBytes() { cudaFree(p); }
  DeviceBytes(DeviceBytes const&) = delete;
  DeviceBytes& operator=(DeviceBytes const&) = delete;
};

// The buffers of the case being timed. A kernel and its baselines share them (same key); they are
// freed before the next case allocates, so at most one case's operands live at a time.
struct Workspace {
  std::string key;
  std::unique_ptr<harness::CaseBuffers> bufs;
  std::unique_ptr<DeviceBytes> src, dst;
  // The reference D of the case being verified (logical column-major, as harness::compare takes
  // it), shared by the kernels of the case; ref_key is the case's Bench::key (alpha and beta
  // included, which the buffers' key leaves out).
  std::unique_ptr<std::vector<double>> ref;
  std::string ref_key, ref_source;

  void reset() {
    bufs.reset();
    src.reset();
    dst.reset();
    key.clear();
    ref.reset();
    ref_key.clear();
  }
};

// How each benchmark samples (measure()).
struct Sampling {
  std::int64_t iterations = 0;  // --iterations: exactly this many samples (0: by the criteria below)
  int min_samples = 10;         // --min-samples
  double min_time = 0.2;        // --min-time: seconds of kept samples at least
  double max_noise = 0.5;       // --max-noise: percent (noise_pct)
  double max_time = 10;         // --max-time: seconds of sampling (wall clock) at most
  bool read_clock = false;      // NVML reads the SM clock
  int throttle_mhz = 0;         // samples below this SM clock are discarded (0: none)
};

struct Global {
  harness::DeviceInfo info;
  Sampling sampling;
  int discarded = 0;  // throttled samples discarded over the run
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  std::unique_ptr<loom::bench::L2Flusher> flusher;
  Workspace ws;
  int warmup = 3;
  bool use_loom = true, use_cublas = true, use_memcpy = true;  // --providers
  std::string sweep;  // --sweep, in every row's label
  std::vector<std::pair<std::string, std::string>> tags;  // --tags, in every row's label as key=value
  std::map<std::string, double> baseline;  // case key -> cuBLAS throughput
  // Device memory free for the cases' buffers when the sweep is planned (the L2 flush buffer is
  // already taken out), or nothing when planning for another GPU.
  std::optional<std::uint64_t> free_bytes;
  int failures = 0;
  std::string first_failure;
  bool verify = true;  // --verification
  // Disposition of each benchmark (by name), decided once: repetitions reuse it.
  std::map<std::string, std::string> disposition;
  int incorrect = 0;
  std::string first_incorrect;
  bool progress = false;  // --progress
  int plans = 0;  // --plans: rows per kernel row for the model's best plans
  bool plan_spread = false;  // --plan-set=shapes: the best plan of each kind (spread_plans), not the N best
  std::set<int> plan_shapes;  // --plan-shapes: only plans of these tile shapes (empty: all)
  PlanTarget plan_target;  // --mode=enumerate's --card and --sms (a run: all zero, the GPU's)
  // --shard=I/N: plan() keeps the cases whose index in the sorted list of the sweep's cases is I
  // modulo N; shard_cases is how many it kept.
  std::uint64_t shard_index = 0, shard_count = 1;
  std::size_t shard_cases = 0;
  // A run's GPU as label fields, "device=0; device_name=...; pci_bus_id=...", after every row's
  // others: the rows of JSON files merged across GPUs (scripts/merge_reports.py) each still say
  // where they ran. Empty in --mode=enumerate, which runs nothing.
  std::string device_fields;
};
Global g;

// --timeout and --inject-fault (harness/watchdog.hpp, harness/fault.hpp). Each run of a benchmark
// (its buffers, warm-up and timed launches) is watched: a hung kernel ends the process with one
// line naming the benchmark, exit status 3. A kernel fault that loses the CUDA context stops the
// run as loom-validate's does: every later CUDA call would fail, so the benchmarks after it are
// not run, each a failed row that says so, and the run ends with one line counting them.
struct Guard {
  double timeout = harness::kDefaultCaseTimeout;  // seconds per run of a benchmark; 0: none
  harness::Fault fault = harness::Fault::none;
  std::string lost;               // "CUDA context lost after NAME (why)", once it is
  std::set<std::string> not_run;  // the benchmarks after it
};
Guard guard;
harness::Watchdog watchdog("loom-bench");

std::string problem_key(Problem const& p, int misalign) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s|%s|%s|%s|%lld|%lld|%lld|%lld|%lld|%lld|%d", loom::to_string(p.op),
                loom::input_types(p).c_str(), loom::to_string(p.out_dtype), loom::layout_string(p).c_str(),
                (long long)p.m, (long long)p.n, (long long)p.k, (long long)p.lda, (long long)p.ldb,
                (long long)p.ldc, misalign);
  return buf;
}

harness::CaseBuffers& case_buffers(Problem const& p, int misalign) {
  std::string const key = "case|" + problem_key(p, misalign);
  if (g.ws.key != key || !g.ws.bufs) {
    g.ws.reset();  // free the previous case first
    // plan() left out what did not fit; this catches memory taken since by someone else, with the
    // same line instead of cudaMalloc's.
    if (std::string const why = harness::why_no_memory(harness::device_bytes(p, misalign), harness::free_device_bytes());
        !why.empty())
      throw harness::Error(why);
    // An 8-bit case's scales (tensor or block) from seed 5, the matrices' being 1 to 4.
    auto b = std::make_unique<harness::CaseBuffers>(harness::make_buffers(p, misalign, 5));
    // Random, never zero; D too, so that cuBLAS gemm reading C = D (beta != 0) sees finite data.
    std::uint64_t seed = 1;
    for (harness::DeviceMatrix* m : {&b->a, &b->b, &b->c, &b->d})
      if (m->base())
        LOOM_CUDA(
            loom::bench::fill_random_device(m->data(), m->dtype(), m->span_elements(), seed++, g.stream));
    LOOM_CUDA(cudaStreamSynchronize(g.stream));
    g.ws.bufs = std::move(b);
    g.ws.key = key;
  }
  return *g.ws.bufs;
}

void copy_buffers(std::size_t bytes, void** src, void** dst) {
  std::string const key = "copy|" + std::to_string(bytes);
  if (g.ws.key != key || !g.ws.src) {
    g.ws.reset();
    if (std::string const why = harness::why_no_memory(2 * std::uint64_t(bytes), harness::free_device_bytes()); !why.empty())
      throw harness::Error(why);
    auto s = std::make_unique<DeviceBytes>(bytes);
    auto d = std::make_unique<DeviceBytes>(bytes);
    LOOM_CUDA(cudaMemset(s->p, 0x3c, bytes));  // contents do not matter to a copy; not zeros
    LOOM_CUDA(cudaMemset(d->p, 0x3c, bytes));
    LOOM_CUDA(cudaDeviceSynchronize());
    g.ws.src = std::move(s);
    g.ws.dst = std::move(d);
    g.ws.key = key;
  }
  *src = g.ws.src->p;
  *dst = g.ws.dst->p;
}

// ---------------------------------------------------------------------------------------------
// Peaks

// Dense f16/bf16 tensor-core FLOP per clock per SM with fp32 accumulation, and the SM clock of
// NVIDIA's datasheet figure: A100 312 TFLOP/s = 108 SMs x 2048 x 1410 MHz; H100 SXM 989.4 TFLOP/s
// = 132 SMs x 4096 x 1830 MHz. Other GPUs: unknown (no pct_peak for f16/bf16 gemm).
struct TensorRate {
  int cc;
  double flop_per_clk_sm;
  int ref_clock_mhz;
};
constexpr TensorRate kTensorRates[] = {{80, 2048, 1410}, {90, 4096, 1830}};

// The device's figure: scaled by its SM count and by its maximum SM clock, capped at the
// datasheet clock (the clock the datasheet's figure holds at).
double tensor_peak_tflops(harness::DeviceInfo const& d, std::string* how) {
  for (auto const& r : kTensorRates)
    if (r.cc == d.cc) {
      int const clk = d.sm_clock_mhz > 0 ? std::min(d.sm_clock_mhz, r.ref_clock_mhz) : r.ref_clock_mhz;
      double const t = r.flop_per_clk_sm * d.sm_count * clk * 1e6 / 1e12;
      char buf[200];
      std::snprintf(buf, sizeof buf, "%.1f TFLOP/s (%d SMs x %.0f flop/clk x %d MHz)", t, d.sm_count,
                    r.flop_per_clk_sm, clk);
      *how = buf;
      return t;
    }
  *how = "unknown for cc " + std::to_string(d.cc / 10) + "." + std::to_string(d.cc % 10);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Benchmarks

enum class Kind { kernel, cublas, memcpy_d2d };

struct Bench {
  Kind kind = Kind::kernel;
  KernelInfo const* kernel = nullptr;
  Problem problem;  // what runs (for the cuBLAS reference of f16/bf16 add: the f32 problem)
  int misalign = 0;
  std::string name;  // benchmark name
  std::string nvtx;  // NVTX range name (the case name)
  std::string key;   // the case, shared by a kernel and its baselines
  std::string label;  // as planned: dtype=...; layout=...[; out_dtype=...][; scale=tensor][; the row's own][; sweep][; tags]
  std::size_t fields_len = 0;  // label.substr(0, fields_len): dtype, layout, out_dtype, scale; disposition goes after
  std::string repro;  // a loom-bench command that times this case again (harness::bench_repro_command)
  std::string plan;   // --plans: the plan this row forces (KernelInfo::launch_plan's spec), or "" (the kernel's own)
  bool bandwidth = true;  // throughput in GB/s (add, memcpy) or TFLOP/s (gemm)
  double work = 0;        // bytes moved or flops per launch
  double peak = 0;        // same unit as the throughput; 0: unknown
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::size_t const mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double const hi = v[mid];
  if (v.size() % 2) return hi;
  double const lo = *std::max_element(v.begin(), v.begin() + mid);
  return (lo + hi) / 2;
}

std::string cuda_error(cudaError_t e, char const* what) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}

// Returns a launcher: enqueues one launch on g.stream and returns "" or why it failed.
std::function<std::string()> make_launcher(Bench const& b) {
  cudaStream_t const s = g.stream;
  switch (b.kind) {
    case Kind::kernel: {
      loom::Operands const ops = case_buffers(b.problem, b.misalign).operands();
      KernelInfo const* k = b.kernel;
      Problem const p = b.problem;
      int const cc = g.info.cc;
      if (!b.plan.empty()) return [=, plan = b.plan] { return loom::run_kernel_plan(*k, p, ops, s, cc, plan); };
      return [=] { return loom::run_kernel(*k, p, ops, s, cc); };
    }
    case Kind::cublas: {
      loom::Operands ops = case_buffers(b.problem, b.misalign).operands();
      ops.c = ops.d;  // gemm: C aliases D, so that no C -> D copy is timed with cuBLAS
      Problem const p = b.problem;
      // 8-bit inputs: cuBLASLt's FP8 gemm, its descriptors and algorithm made here, so that a timed
      // launch is the one cublasLtMatmul.
      std::function<void(cudaStream_t)> lt;
      if (loom::is_8bit(p.dtype)) lt = harness::cublaslt_gemm_call(p, ops);
      return [=]() -> std::string {
        try {
          if (lt)
            lt(s);
          else
            harness::reference_cublas(p, ops, g.cublas, s);
        } catch (std::exception const& e) {
          return e.what();
        }
        cudaError_t const e = cudaGetLastError();
        return e == cudaSuccess ? std::string() : cuda_error(e, "cuBLAS");
      };
    }
    case Kind::memcpy_d2d: {
      std::size_t const bytes = std::size_t(b.work / 2);  // a copy reads and writes each byte
      void *src = nullptr, *dst = nullptr;
      copy_buffers(bytes, &src, &dst);
      return [=]() -> std::string {
        cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
        if (e == cudaSuccess) e = cudaGetLastError();
        return e == cudaSuccess ? std::string() : cuda_error(e, "cudaMemcpyAsync");
      };
    }
  }
  throw std::logic_error("unknown benchmark kind");
}

// "m=4096; n=4096; k=4096": a failed row's label carries its size, since Google Benchmark leaves
// the counters out of a row with an error.
std::string size_fields(Problem const& p) {
  return "m=" + std::to_string(p.m) + "; n=" + std::to_string(p.n) + "; k=" + std::to_string(p.k);
}

// The row's label with its disposition after the case's own fields (dtype, layout, out_dtype):
// "dtype=bf16; layout=rcr; disposition=passed; sweep=llm".
std::string label_with(Bench const& b, std::string const& disposition) {
  if (disposition.empty()) return b.label;
  return b.label.substr(0, b.fields_len) + "; disposition=" + disposition + b.label.substr(b.fields_len);
}

void fail(benchmark::State& st, Bench const& b, std::string const& why) {
  // A failed row keeps its label: a named sweep's rows are found by it, failed ones included.
  st.SetLabel(label_with(b, "failed") + "; " + size_fields(b.problem));
  st.SkipWithError(why.c_str());
  if (g.failures++ == 0) g.first_failure = b.name + ": " + why;
  // A fault in a kernel (illegal address, trap) leaves the context unusable: the rest is not run.
  if (guard.lost.empty())
    if (std::string const lost = harness::why_context_lost(); !lost.empty())
      guard.lost = "CUDA context lost after " + b.name + " (" + lost + ")";
}

// A benchmark after a lost context: a failed row that says why, and nothing launched.
void not_run(benchmark::State& st, Bench const& b) {
  st.SetLabel(label_with(b, "failed") + "; " + size_fields(b.problem));
  st.SkipWithError(("not run: " + guard.lost).c_str());
  guard.not_run.insert(b.name);
}

// --inject-fault: the benchmark's first launch is the fault's kernel instead, on the same stream.
std::function<std::string()> with_fault(std::function<std::string()> launch) {
  if (guard.fault == harness::Fault::none) return launch;
  auto first = std::make_shared<bool>(true);
  return [launch, first]() -> std::string {
    if (!*first) return launch();
    *first = false;
    return harness::launch_fault(guard.fault, g.stream);
  };
}

// ---------------------------------------------------------------------------------------------
// Verification (--verification=on): before a kernel's row is timed, one launch on a NaN-poisoned
// D is compared with the reference by harness::compare, with loom-validate's tolerances. The
// reference is cuBLAS on the GPU where it has the case (GemmEx, f32 geam; for 8-bit gemm GemmEx
// over A and B widened exactly to 16 bits, harness::reference_cublas, not the cuBLASLt baseline),
// so that 8192^3 and 16384^2 stay affordable, else (f16/bf16 add, O(M N)) fp64 on the host; it is
// computed once per case and shared by the case's kernels. Dispositions (the CUTLASS profiler's): passed,
// incorrect, not_verified (a baseline, --verification=off, or no room on the host for the check),
// failed (the row's launch failed: its error says why); not_supported cases have no row in a run
// (they are left out with a note, and listed by --mode=enumerate).

// What verifies a row: "cublas", "host", or "" (not verified).
std::string reference_for(Bench const& b) {
  if (b.kind != Kind::kernel || !g.verify) return "";
  return harness::why_no_cublas(b.problem).empty() ? "cublas" : "host";
}

// Why the host cannot hold the check of p (the output and the reference as doubles, the download's
// staging image, and for a host reference A, B and C as doubles), or "".
std::string why_no_host_memory(Problem const& p, std::string const& reference) {
  double const mn = double(p.m) * double(p.n);
  double need = mn * (8 + 8 + loom::size_of(p.out_dtype));
  if (reference == "host") {
    Problem const q = loom::with_default_lds(p);
    need += 8.0 * (double(loom::rows_a(q)) * double(loom::cols_a(q)) + double(loom::rows_b(q)) * double(loom::cols_b(q)));
    if (p.op == OpKind::gemm) need += 8.0 * mn;
  }
  long const pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return "";  // unknown: try
  double const avail = double(pages) * double(page);
  if (need <= 0.9 * avail) return "";
  char buf[160];
  std::snprintf(buf, sizeof buf, "the check needs %.1f GiB of host memory, %.1f GiB are free", need / (1 << 30),
                avail / (1 << 30));
  return buf;
}

void poison_async(harness::DeviceMatrix& m) {
  if (m.base()) LOOM_CUDA(cudaMemsetAsync(m.base(), 0xFF, m.bytes(), g.stream));
}

// The reference D of b's case, computed once per case (g.ws.ref).
std::vector<double> const& case_reference(Bench const& b, harness::CaseBuffers& buf, std::string const& reference) {
  if (g.ws.ref && g.ws.ref_key == b.key) return *g.ws.ref;
  g.ws.ref.reset();
  Problem const& p = b.problem;
  std::vector<double> ref;
  if (reference == "cublas") {
    // Into the case's own D (poisoned first), which the timed launches overwrite anyway: no second
    // D on the device. C (gemm, beta != 0) is its own buffer here.
    poison_async(buf.d);
    harness::reference_cublas(p, buf.operands(), g.cublas, g.stream);
    LOOM_CUDA(cudaGetLastError());
    LOOM_CUDA(cudaStreamSynchronize(g.stream));
    ref = harness::to_host(buf.d);
  } else {
    std::vector<double> const A = harness::to_host(buf.a), B = harness::to_host(buf.b);
    std::vector<double> const C = buf.c.empty() ? std::vector<double>{} : harness::to_host(buf.c);
    ref = harness::reference_host(p, A, B, C, buf.host_scales());
  }
  g.ws.ref = std::make_unique<std::vector<double>>(std::move(ref));
  g.ws.ref_key = b.key;
  g.ws.ref_source = reference;
  return *g.ws.ref;
}

// The disposition of b's row (decided once per benchmark), or "" when its verification launch
// failed (then `err` says why and the row fails).
std::string verify(Bench const& b, std::function<std::string()> const& launch, std::string* err) {
  if (auto it = g.disposition.find(b.name); it != g.disposition.end()) return it->second;
  std::string const reference = reference_for(b);
  std::string disposition = "not_verified";
  if (!reference.empty()) {
    if (std::string const why = why_no_host_memory(b.problem, reference); !why.empty()) {
      std::fprintf(stderr, "loom-bench: not verifying %s: %s\n", b.name.c_str(), why.c_str());
    } else {
      harness::CaseBuffers& buf = case_buffers(b.problem, b.misalign);
      LOOM_CUDA(cudaStreamSynchronize(g.stream));
      poison_async(buf.d);
      {
        harness::NvtxRange range(b.nvtx);
        *err = launch();
      }
      if (!err->empty()) return "";
      LOOM_CUDA(cudaGetLastError());
      LOOM_CUDA(cudaStreamSynchronize(g.stream));
      std::vector<double> const out = harness::to_host(buf.d);
      std::vector<double> const& ref = case_reference(b, buf, reference);
      harness::ErrorStats const st =
          harness::compare(out, ref, b.problem.out_dtype, b.problem, harness::typical_rms(b.problem, buf.host_scales()));
      disposition = st.pass ? "passed" : "incorrect";
      if (!st.pass) {
        std::string const why = b.name + ": " + st.why + " (against " + (reference == "cublas" ? "cuBLAS" : "fp64 on the host") + ")";
        std::fprintf(stderr, "loom-bench: incorrect: %s\n", why.c_str());
        if (g.incorrect++ == 0) g.first_incorrect = why;
      }
    }
  }
  g.disposition[b.name] = disposition;
  return disposition;
}

// ---------------------------------------------------------------------------------------------
// Measurement (nvbench's cold measurement): per sample an L2 flush, then one launch between two
// CUDA events; samples until the noise criterion is met or the time is up.

// Noise of a measurement, in percent: the relative standard error of the median of the samples,
// estimated robustly, 100 * 1.2533 * 1.4826 * MAD / sqrt(n) / median (MAD: the median absolute
// deviation from the median; 1.4826 * MAD estimates the standard deviation of normal samples, and
// the median of n of them has a standard error 1.2533 times the mean's, sigma / sqrt(n)). It is
// the uncertainty of the reported median_us, so it falls as samples accrue, and an outlier (a
// launch delayed by the host) does not inflate it. NaN below two samples.
double noise_pct(std::vector<double> const& v) {
  if (v.size() < 2) return std::nan("");
  double const med = median(v);
  std::vector<double> dev(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) dev[i] = std::fabs(v[i] - med);
  double const mad = median(std::move(dev));
  return med > 0 ? 100.0 * 1.2533 * 1.4826 * mad / std::sqrt(double(v.size())) / med : std::nan("");
}

struct Measurement {
  std::vector<double> ms;  // the kept samples, milliseconds each
  std::vector<double> host_us;  // the host time of each kept sample's launch call, microseconds
  double noise = std::nan("");
  int discarded = 0;  // samples taken below the clock threshold, discarded and taken again
  double sm_mhz = 0;  // median SM clock of the kept samples (NVML), 0 when unknown
  bool all_throttled = false;  // max-time ran out before a sample above the threshold: these are the throttled ones
};

// Samples b (launch) until, with --iterations=N, N samples are kept; else until at least
// --min-samples samples and --min-time seconds of them are kept and their noise is at most
// --max-noise percent (checked as the count grows by a tenth, not after every sample), or
// --max-time seconds of sampling (wall clock) have passed. After each sample the SM clock is read
// through NVML; a sample taken below the threshold (--throttle-threshold percent of the highest SM
// clock) is discarded and taken again, within --max-time. "" in *err, or why a launch failed.
Measurement measure(Bench const& b, std::function<std::string()> const& launch, std::string* err) {
  Sampling const& s = g.sampling;
  harness::Timer timer(g.stream);
  Measurement m;
  std::vector<double> throttled, throttled_host;
  std::vector<int> clocks, throttled_clocks;
  double total_s = 0;
  std::size_t next_check = 0;
  auto const t0 = std::chrono::steady_clock::now();
  for (;;) {
    LOOM_CUDA(g.flusher->flush(g.stream));
    timer.start();
    double host = 0;
    {
      harness::NvtxRange range(b.nvtx);
      auto const h0 = std::chrono::steady_clock::now();
      *err = launch();
      host = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count();
    }
    timer.stop();
    if (!err->empty()) return m;
    double const t = timer.elapsed_ms();  // synchronizes: an asynchronous fault throws here
    int const clk = s.read_clock ? harness::sm_clock_mhz(g.info.ordinal) : -1;
    if (clk > 0 && clk < s.throttle_mhz) {
      ++m.discarded;
      throttled.push_back(t);
      throttled_host.push_back(host);
      throttled_clocks.push_back(clk);
    } else {
      m.ms.push_back(t);
      m.host_us.push_back(host);
      clocks.push_back(clk);
      total_s += t * 1e-3;
    }
    std::size_t const n = m.ms.size();
    bool const timed_out =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= s.max_time;
    if (s.iterations > 0) {
      if (n >= std::size_t(s.iterations)) break;
      // Re-measuring throttled samples stops at --max-time, once as many launches as asked are done.
      if (timed_out && n + throttled.size() >= std::size_t(s.iterations)) break;
      continue;
    }
    if (n >= std::size_t(s.min_samples) && n >= 2 && total_s >= s.min_time && n >= next_check) {
      m.noise = noise_pct(m.ms);
      if (m.noise <= s.max_noise) break;
      next_check = n + std::max<std::size_t>(1, n / 10);
    }
    if (timed_out) break;
  }
  if (m.ms.empty()) {  // every sample throttled until --max-time: time with those, and say so
    m.ms = std::move(throttled);
    m.host_us = std::move(throttled_host);
    clocks = std::move(throttled_clocks);
    m.all_throttled = true;
    m.discarded = 0;  // none was discarded after all: throttled_discarded 0, sm_mhz shows the clock
    std::fprintf(stderr,
                 "loom-bench: warning: %s: every sample was taken below the clock threshold of %d MHz until "
                 "--max-time; timed with those (sm_mhz)\n",
                 b.name.c_str(), s.throttle_mhz);
  }
  m.noise = noise_pct(m.ms);
  std::vector<double> clk;
  for (int c : clocks)
    if (c > 0) clk.push_back(c);
  m.sm_mhz = median(clk);
  g.discarded += m.discarded;
  return m;
}

void run_bench(benchmark::State& st, Bench const& b) {
  if (!guard.lost.empty()) return not_run(st, b);
  harness::WatchdogArm armed(watchdog, "benchmark " + b.name, guard.timeout, "; repro: " + b.repro);
  // The case's size as numbers, so that a consumer of the JSON need not parse the name.
  st.counters["m"] = benchmark::Counter(double(b.problem.m));
  st.counters["n"] = benchmark::Counter(double(b.problem.n));
  st.counters["k"] = benchmark::Counter(double(b.problem.k));
  try {
    std::function<std::string()> const launch = with_fault(make_launcher(b));
    std::string err;
    std::string const disposition = verify(b, launch, &err);
    if (disposition.empty()) return fail(st, b, err);
    for (int i = 0; i < g.warmup; ++i) {
      std::string err;
      {
        harness::NvtxRange range(b.nvtx);
        err = launch();
      }
      if (!err.empty()) return fail(st, b, err);
    }
    LOOM_CUDA(cudaStreamSynchronize(g.stream));

    // One Google Benchmark iteration (Iterations(1)) is one whole measurement: samples until the
    // stop criterion (measure()); its manual time is the median launch.
    Measurement m;
    for (auto _ : st) {
      m = measure(b, launch, &err);
      if (!err.empty()) {
        fail(st, b, err);
        break;
      }
      st.SetIterationTime(median(m.ms) / 1e3);
    }
    if (st.error_occurred() || m.ms.empty()) return;

    double const med_ms = median(m.ms);
    double const thr = b.work / (med_ms * 1e-3) / (b.bandwidth ? 1e9 : 1e12);
    st.counters["samples"] = benchmark::Counter(double(m.ms.size()));
    if (std::isfinite(m.noise)) st.counters["noise_pct"] = benchmark::Counter(m.noise);
    st.counters["min_us"] = benchmark::Counter(*std::min_element(m.ms.begin(), m.ms.end()) * 1e3);
    st.counters["median_us"] = benchmark::Counter(med_ms * 1e3);
    if (!m.host_us.empty()) st.counters["host_us"] = benchmark::Counter(median(m.host_us));
    if (g.sampling.read_clock) {
      st.counters["throttled_discarded"] = benchmark::Counter(double(m.discarded));
      if (m.sm_mhz > 0) st.counters["sm_mhz"] = benchmark::Counter(m.sm_mhz);
    }
    st.counters[b.bandwidth ? "GB/s" : "TFLOP/s"] = benchmark::Counter(thr);
    if (b.peak > 0) st.counters["pct_peak"] = benchmark::Counter(100.0 * thr / b.peak);
    if (b.kind == Kind::cublas) {
      g.baseline[b.key] = thr;
      st.counters["vs_cublas"] = benchmark::Counter(1.0);
    } else if (auto it = g.baseline.find(b.key); it != g.baseline.end() && it->second > 0) {
      st.counters["vs_cublas"] = benchmark::Counter(thr / it->second);
    }
    std::string label = label_with(b, disposition);
    if (b.kind == Kind::kernel && b.plan.empty()) {  // which path ran (KernelInfo::path), for kernels that have several
      std::string const path = loom::kernel_path(*b.kernel, b.problem, case_buffers(b.problem, b.misalign).operands());
      if (!path.empty()) label = "path=" + path + (label.empty() ? "" : "; " + label);
    }
    if (!label.empty()) st.SetLabel(label);
  } catch (std::exception const& e) {
    fail(st, b, e.what());
  }
}

// --progress: "[12/96] sm80/bf16/rcr/4096x4096x4096  312.5 us  440.1 TFLOP/s  0.98x cuBLAS  passed  1m05s",
// on stderr, short enough for a terminal's line; the console table and the JSON keep every counter.
void progress_line(benchmark::State& st, Bench const& b, std::size_t i, std::size_t n,
                   std::chrono::steady_clock::duration elapsed) {
  auto counter = [&](char const* key) {
    auto it = st.counters.find(key);
    return it == st.counters.end() ? -1.0 : double(it->second);
  };
  std::string line = "[" + std::to_string(i) + "/" + std::to_string(n) + "] " + b.name;
  char buf[160];
  if (st.error_occurred()) {
    line += "  failed";
  } else {
    double const med = counter("median_us"), thr = counter(b.bandwidth ? "GB/s" : "TFLOP/s"),
                 vs = counter("vs_cublas");
    std::snprintf(buf, sizeof buf, "  %.1f us  %.1f %s", med, thr, b.bandwidth ? "GB/s" : "TFLOP/s");
    line += buf;
    if (b.kind == Kind::kernel && vs > 0) {
      std::snprintf(buf, sizeof buf, "  %.2fx cuBLAS", vs);
      line += buf;
    }
    if (auto it = g.disposition.find(b.name); it != g.disposition.end()) line += "  " + it->second;
  }
  long const secs = long(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count());
  std::snprintf(buf, sizeof buf, "  %ldm%02lds", secs / 60, secs % 60);
  std::fprintf(stderr, "%s%s\n", line.c_str(), buf);
  std::fflush(stderr);
}

std::string fmt_real(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Benchmarks of the sweep: per case, its cuBLAS baseline, then (bandwidth-bound ops) the copy
// baseline, then every kernel that takes the case. Cases the device cannot run are left out
// with a note on stderr.
// A benchmark plan() leaves out: its name, why, and its case.
struct LeftOut {
  std::string name, why;
  Problem problem;
};

// The tile shape of a plan in LOOM_SM90_PLAN's form "<shape>:...", or -1.
int plan_shape_of(std::string const& spec) {
  std::size_t const colon = spec.find(':');
  try {
    return std::stoi(spec.substr(0, colon));
  } catch (std::exception const&) {
    return -1;
  }
}

// --plan-set=shapes: of a kernel's plans in its model's order, the first of each kind, at most
// `count` of them. A plan in LOOM_SM90_PLAN's form "<shape>:<splits>:<swap>:<mode>" is of the kind
// (shape, swap, whole / K split for every tile / the last wave split / stream-K), so that every
// tile shape the kernel offers is timed whole and with the model's best split of each sort, whatever
// the model estimates of its speed (fit data should not see only the plans the model already
// favours); any other spec is a kind of its own.
std::vector<loom::PlanChoice> spread_plans(std::vector<loom::PlanChoice> const& ranked, int count) {
  auto kind = [](std::string const& spec) {
    std::vector<std::string> f;
    std::stringstream ss(spec);
    for (std::string x; std::getline(ss, x, ':');) f.push_back(x);
    if (f.size() != 4) return spec;
    char const* sort = f[3] == "2" ? "stream" : f[3] == "1" ? "tail" : f[1] == "1" ? "whole" : "split";
    return f[0] + ":" + f[2] + ":" + sort;
  };
  std::vector<loom::PlanChoice> out;
  std::set<std::string> seen;
  for (loom::PlanChoice const& c : ranked) {
    if (int(out.size()) >= count) break;
    if (seen.insert(kind(c.spec)).second) out.push_back(c);
  }
  return out;
}

// The benchmarks of a sweep, baselines first in each case. A kernel that cannot run a case on this
// GPU (g.info.cc) is left out: noted on stderr, or, given `left_out`, collected there as
// (name, reason).
std::deque<Bench> plan(std::vector<harness::Case> const& cases, double peak_fp32, double peak_tensor,
                       std::vector<LeftOut>* left_out = nullptr) {
  struct Group {
    Problem p;
    int misalign = 0;
    std::vector<KernelInfo const*> kernels;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  std::map<std::pair<double, double>, int> ab;
  for (auto const& c : cases) {
    std::string const key =
        problem_key(c.problem, c.misalign) + "|" + fmt_real(c.problem.alpha) + "|" + fmt_real(c.problem.beta);
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back(Group{c.problem, c.misalign, {}});
    auto& ks = groups[it->second].kernels;
    if (std::find(ks.begin(), ks.end(), c.kernel) == ks.end()) ks.push_back(c.kernel);
    ab[{c.problem.alpha, c.problem.beta}] = 1;
  }
  // Grouped by op, dtype, layout, then growing sizes.
  std::stable_sort(groups.begin(), groups.end(), [](Group const& x, Group const& y) {
    auto t = [](Group const& g_) {
      Problem const& p = g_.p;
      return std::make_tuple(int(p.op), int(p.dtype), int(loom::b_type(p)), p.fast_accum, int(p.scale), int(p.out_dtype),
                             loom::layout_string(p),
                             p.m * p.n * std::max<std::int64_t>(p.k, 1), p.m, p.n, p.k, p.alpha, p.beta);
    };
    return t(x) < t(y);
  });
  // --shard=I/N: a case is a group, so that its kernels and their baselines (vs_cublas divides by
  // the cuBLAS row of the same process) stay together. The list so far depends on the command
  // alone, not on the GPU, so every process splits the same one; what this GPU cannot run is left
  // out below, within the shard.
  if (g.shard_count > 1) {
    std::vector<Group> mine;
    for (std::size_t i = 0; i < groups.size(); ++i)
      if (i % g.shard_count == g.shard_index) mine.push_back(std::move(groups[i]));
    groups = std::move(mine);
  }
  g.shard_cases = groups.size();

  bool const ab_suffix = ab.size() > 1;
  std::deque<Bench> out;
  for (auto const& grp : groups) {
    Problem const& p = grp.p;
    std::string const suffix =
        ab_suffix ? "/alpha=" + fmt_real(p.alpha) + "/beta=" + fmt_real(p.beta) : std::string();
    std::string const key = problem_key(p, grp.misalign) + "|" + fmt_real(p.alpha) + "|" + fmt_real(p.beta);
    // A case whose output type is not its inputs' default (--out-dtypes) says so in its name and
    // NVTX range, "sm90/bf16/rcr/4096x4096x4096/out=f32", so that the rows of one run's output
    // types differ in name; a case of the default output keeps the name it has always had.
    std::string const out_suffix =
        p.out_dtype != harness::default_output(harness::InputTypes(p.dtype, loom::b_type(p)))
            ? "/out=" + std::string(loom::to_string(p.out_dtype))
            : std::string();
    auto case_name = [&](std::string const& who) { return loom::case_name(who, p) + out_suffix; };
    bool const add = p.op == OpKind::add;
    double const bytes =
        double(p.m) * double(p.n) * double(2 * loom::size_of(p.dtype) + loom::size_of(p.out_dtype));
    double const flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
    // 8-bit inputs: Hopper's dense 8-bit tensor rate, twice the 16-bit one (none known elsewhere).
    double const peak = add                      ? g.info.peak_dram_gbs
                        : p.dtype == DType::f32  ? peak_fp32
                        : loom::is_8bit(p.dtype) ? (g.info.cc == 90 ? 2 * peak_tensor : 0)
                                                 : peak_tensor;

    // A named sweep's rows say so in their label (sweep=llm), so that scripts/plot.py can pick them
    // out of a JSON whatever else it holds, and give beta where C is read: plot.py counts the bytes
    // a case must move, and the name carries beta only when a run has several.
    std::string tag;
    if (!g.sweep.empty()) tag = "sweep=" + g.sweep + (p.beta != 0 ? "; beta=" + fmt_real(p.beta) : "");
    for (auto const& [key, value] : g.tags) tag += (tag.empty() ? "" : "; ") + key + "=" + value;
    if (!g.device_fields.empty()) tag += (tag.empty() ? "" : "; ") + g.device_fields;
    // Every row says its dtype (the input types) and layout (the case's: the fp32 geam baseline of
    // f16 add is an f16 row), so that a consumer need not parse the name; the size is in the
    // counters m, n, k. 8-bit rows also say their scaling (scale=tensor: per-tensor fp32 scales;
    // scale=block: block scales, Problem::scale, the "-block" of their dtype).
    std::string const fields =
        "dtype=" + loom::input_types(p) + "; layout=" + loom::layout_string(p) +
        (p.out_dtype != p.dtype ? "; out_dtype=" + std::string(loom::to_string(p.out_dtype)) : "") +
        (loom::is_8bit(p.dtype) ? (p.scale == loom::ScaleMode::block ? "; scale=block" : "; scale=tensor") : "");
    auto tagged = [&](std::string const& label) {
      std::string out = fields;
      if (!label.empty()) out += "; " + label;
      if (!tag.empty()) out += "; " + tag;
      return out;
    };

    auto leave_out = [&](std::string const& who, std::string const& why) {
      if (left_out)
        left_out->push_back({case_name(who) + suffix, why, p});
      else
        std::fprintf(stderr, "loom-bench: leaving out %s: %s\n", case_name(who).c_str(), why.c_str());
    };
    // Whether `bytes` of buffers fit in the device's free memory ("" if so, or when planning for
    // another GPU), checked before anything is allocated.
    auto no_room = [&](std::uint64_t bytes) {
      return g.free_bytes ? harness::why_no_memory(bytes, *g.free_bytes) : std::string();
    };
    // With verification, an 8-bit case's cuBLAS reference also holds 16-bit copies of A and B.
    std::string const kernel_no_room = no_room(
        harness::device_bytes(p, grp.misalign) + (g.verify ? harness::reference_cublas_bytes(p) : 0));

    // A baseline's repro selects a kernel of the case (one that runs here, where there is one) and
    // times the baseline alone; a kernel's times it with its baselines, as vs_cublas needs.
    auto repro = [&](std::string const& kernel, std::string const& providers) {
      try {
        return harness::bench_repro_command(kernel, providers, p);
      } catch (std::invalid_argument const& e) {
        return std::string("none (") + e.what() + ")";
      }
    };

    std::vector<KernelInfo const*> runnable;
    for (KernelInfo const* k : grp.kernels) {
      std::string why = loom::why_unsupported(*k, p, g.info.cc);
      if (why.empty()) why = kernel_no_room;
      if (why.empty())
        runnable.push_back(k);
      else
        leave_out(k->name, why);
    }
    if (g.use_loom && runnable.empty()) continue;
    std::string const case_kernel = (runnable.empty() ? grp.kernels.front() : runnable.front())->name;

    // cuBLAS baseline. f16/bf16 add: fp32 geam over the same shape, compared in bytes/s. 8-bit gemm:
    // cuBLASLt's FP8 matmul (harness::cublaslt_gemm), where it takes the case.
    Bench cb;
    cb.kind = Kind::cublas;
    cb.problem = p;
    cb.misalign = grp.misalign;
    bool const fp8 = loom::is_8bit(p.dtype);
    if (add && (p.dtype != DType::f32 || p.out_dtype != DType::f32)) {
      cb.problem.dtype = cb.problem.out_dtype = DType::f32;
      cb.problem.lda = cb.problem.ldb = cb.problem.ldc = 0;
      cb.problem = loom::with_default_lds(cb.problem);
      cb.label = "fp32 geam (cuBLAS has no " + std::string(loom::to_string(p.dtype)) + " geam)";
    }
    bool const block = fp8 && p.scale == loom::ScaleMode::block;
    if (block)  // the same arrays as the kernel's, in cuBLASLt's block modes; never fast accumulation
      cb.label = "cuBLASLt FP8 (cublasLtMatmul, block scales VEC128_32F x BLK128x128_32F, fast accumulation off)";
    else if (fp8)
      cb.label = std::string("cuBLASLt FP8 (cublasLtMatmul, tensor scales, fast accumulation ") +
                 (p.fast_accum ? "on)" : "off)");
    std::string no_cublas = fp8 ? harness::why_no_cublaslt(cb.problem) : harness::why_no_cublas(cb.problem);
    // Which block-scaled cases cuBLASLt takes is its heuristic's to say (why_no_cublaslt has what an
    // H100 with cuBLAS 13.0 answered; another cuBLAS may differ): asked where there is a GPU
    // (g.free_bytes: running, or enumerating on one), so that a case it refuses has no baseline row,
    // as one why_no_cublaslt refuses, instead of a failed one.
    if (block && no_cublas.empty() && g.free_bytes && g.use_cublas) {
      try {
        no_cublas = harness::why_cublaslt_heuristic_refuses(cb.problem);
      } catch (std::exception const& e) {
        no_cublas = e.what();
      }
    }
    std::string const cublas_no_room = no_room(harness::device_bytes(cb.problem, grp.misalign));
    if (!g.use_cublas) {
    } else if (no_cublas.empty() && !cublas_no_room.empty()) {
      leave_out("cublas", cublas_no_room);
    } else if (no_cublas.empty()) {
      cb.name = case_name("cublas") + suffix;
      cb.nvtx = case_name("cublas");
      cb.key = key;
      cb.bandwidth = add;
      cb.work = add ? double(cb.problem.m) * double(cb.problem.n) *
                          double(2 * loom::size_of(cb.problem.dtype) + loom::size_of(cb.problem.out_dtype))
                    : flops;
      cb.peak = peak;
      cb.label = tagged(cb.label);
      cb.fields_len = fields.size();
      cb.repro = repro(case_kernel, "cublas");
      out.push_back(cb);
    } else if (left_out) {
      left_out->push_back(
          {case_name("cublas") + suffix, std::string(fp8 ? "no cuBLASLt baseline: " : "no cuBLAS baseline: ") + no_cublas, p});
    } else {
      std::fprintf(stderr, "loom-bench: no %s baseline for %s: %s\n", fp8 ? "cuBLASLt" : "cuBLAS",
                   case_name("cublas").c_str(), no_cublas.c_str());
    }

    // The copy allocates a source and a destination of half its bytes each (copy_buffers).
    std::string const memcpy_no_room = no_room(2 * std::uint64_t(std::floor(bytes / 2)));
    if (add && g.use_memcpy && !memcpy_no_room.empty()) {
      leave_out("memcpy_d2d", memcpy_no_room);
    } else if (add && g.use_memcpy) {
      Bench mc;
      mc.kind = Kind::memcpy_d2d;
      mc.problem = p;
      mc.name = case_name("memcpy_d2d") + suffix;
      mc.nvtx = case_name("memcpy_d2d");
      mc.key = key;
      mc.bandwidth = true;
      mc.work = 2.0 * std::floor(bytes / 2);  // copy half the bytes: each is read and written
      mc.peak = peak;
      mc.label = tagged(mc.label);
      mc.fields_len = fields.size();
      mc.repro = repro(case_kernel, "memcpy");
      out.push_back(mc);
    }

    for (KernelInfo const* k : g.use_loom ? runnable : std::vector<KernelInfo const*>{}) {
      Bench kb;
      kb.kind = Kind::kernel;
      kb.kernel = k;
      kb.problem = p;
      kb.misalign = grp.misalign;
      kb.name = case_name(k->name) + suffix;
      kb.nvtx = case_name(k->name);
      kb.key = key;
      kb.bandwidth = add;
      kb.work = add ? bytes : flops;
      kb.peak = peak;
      kb.label = tagged(kb.label);
      kb.fields_len = fields.size();
      kb.repro = repro(k->name, "");
      out.push_back(kb);
      // --plans: the model's best plans, each a row of its own, named kernel[plan=SPEC], labelled
      // with the plan in words and the model's estimate (the first is the model's choice: the
      // kernel's own row runs it too).
      if (g.plans > 0 && k->ranked_plans && grp.misalign == 0) {
        bool const filtered = !g.plan_shapes.empty();
        // A shape named is timed whether or not the model offers it (fit data for a shape not yet offered).
        PlanTarget target = g.plan_target;
        target.forced_only = filtered;
        std::vector<loom::PlanChoice> chosen =
            k->ranked_plans(p, g.plan_spread || filtered ? std::numeric_limits<int>::max() : g.plans, target);
        if (filtered)
          std::erase_if(chosen, [](loom::PlanChoice const& c) { return !g.plan_shapes.count(plan_shape_of(c.spec)); });
        if (filtered && !g.plan_spread && int(chosen.size()) > g.plans) chosen.resize(std::size_t(g.plans));
        if (g.plan_spread) chosen = spread_plans(chosen, g.plans);
        for (loom::PlanChoice const& c : chosen) {
          Bench pb = kb;
          pb.plan = c.spec;
          pb.name = case_name(k->name + "[plan=" + c.spec + "]") + suffix;
          pb.label = tagged("plan=" + c.spec + "; plan_desc=" + c.description + "; estimate_us=" + fmt_real(c.estimate_us) +
                            (c.inputs.empty() ? "" : "; " + c.inputs));
          out.push_back(pb);
        }
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// --mode=enumerate: what a command would time, without a GPU

int enumerate(Options const& o, std::vector<harness::Case> const& cases) {
  std::string where = "assumed (no GPU; --compute-capability sets it)";
  g.info.cc = 90;
  int const device = o.shared.device.device;
  if (o.shared.device.cc) {
    g.info.cc = *o.shared.device.cc;
    where = "from --compute-capability";
  } else {
    try {
      g.info = harness::query_device(device);
      where = "GPU " + std::to_string(device) + "'s";
      // Planning for this GPU, a case must also fit in its free memory, as in a run (where the L2
      // flush buffer is allocated by then).
      LOOM_CUDA(cudaSetDevice(device));
      std::uint64_t const free = harness::free_device_bytes();
      std::uint64_t const flush = loom::bench::L2Flusher::bytes_for(std::size_t(g.info.l2_bytes));
      g.free_bytes = free > flush ? free - flush : 0;
    } catch (harness::NoGpu const&) {
    } catch (std::exception const& e) {
      die(e.what(), 2);
    }
  }
  std::vector<LeftOut> left_out;
  std::deque<Bench> const benches = plan(cases, 0, 0, &left_out);
  if (o.repro) {  // --repro: name and command, tab-separated, for scripts
    for (Bench const& b : benches) std::printf("%s\t%s\n", b.name.c_str(), b.repro.c_str());
    return 0;
  }
  // The fields of each row: its size (the counters m, n, k) and its label as planned (a kernel with
  // several paths puts the one it takes in front when it runs); the reason where it is left out.
  std::printf("compute capability %d.%d, %s\n%-56s %-13s %7s %7s %7s %s\n", g.info.cc / 10, g.info.cc % 10,
              where.c_str(), "benchmark", "disposition", "m", "n", "k", "label (would_run) or reason (not_supported)");
  auto row = [](std::string const& name, char const* disposition, Problem const& p, std::string const& text) {
    std::printf("%-56s %-13s %7lld %7lld %7lld %s\n", name.c_str(), disposition, (long long)p.m, (long long)p.n,
                (long long)p.k, text.c_str());
  };
  for (Bench const& b : benches) {
    row(b.name, "would_run", b.problem, b.label);
    std::printf("  repro: %s\n", b.repro.c_str());
    // The configuration a kernel with several would pick (KernelInfo::plan; aligned operands only:
    // a misaligned case's path is decided by its addresses, which only the run has).
    if (b.kind == Kind::kernel && b.kernel->plan && b.misalign == 0)
      std::printf("  plan: %s\n", b.kernel->plan(b.problem, g.info.cc, o.shared.device.plan_target()).c_str());
    // What the run checks the row against before timing it, and so the dispositions it can get.
    std::string const reference = reference_for(b);
    if (reference == "cublas")
      std::printf("  verify: cuBLAS (disposition passed or incorrect)\n");
    else if (reference == "host")
      std::printf("  verify: fp64 on the host (disposition passed or incorrect)\n");
    else
      std::printf("  verify: none (disposition not_verified: %s)\n",
                  b.kind != Kind::kernel ? "a baseline" : "--verification=off");
  }
  for (LeftOut const& l : left_out) row(l.name, "not_supported", l.problem, l.why);
  std::printf("enumerate: %zu benchmarks would run, %zu not_supported\n", benches.size(), left_out.size());
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Context, clocks, throttling

std::string version(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string shell_quote(std::string const& s) {
  bool plain = !s.empty();
  for (char ch : s)
    plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) ||
                      std::string_view("-_=./:,+@%").find(ch) != std::string_view::npos);
  if (plain) return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string fmt(char const* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Google Benchmark's part of the command line and of the report

// The Google Benchmark flags whose values can be wrong, checked as it would check them (or as it
// would fail on them later): "" when all are fine, else one line naming the first bad one.
std::string check_benchmark_flags(int argc, char** argv) {
  auto is_number = [](std::string const& v, double* out) {
    if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return false;
    char* end = nullptr;
    double const d = std::strtod(v.c_str(), &end);
    if (end != v.c_str() + v.size() || !std::isfinite(d)) return false;
    *out = d;
    return true;
  };
  auto one_of = [](std::string const& v, std::initializer_list<char const*> names) {
    for (char const* n : names)
      if (v == n) return true;
    return false;
  };
  // Google Benchmark reads any other value of a boolean flag as true (--benchmark_color=x turns
  // colour on): only the spellings it reads as meant are taken.
  auto boolean = [&](std::string v) {
    for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
    return one_of(v, {"true", "false", "yes", "no", "on", "off", "1", "0", "t", "f", "y", "n"});
  };
  for (int i = 1; i < argc; ++i) {
    std::string const a = argv[i];
    std::string::size_type const eq = a.find('=');
    std::string const flag = a.substr(0, eq);
    std::string const v = eq == std::string::npos ? "" : a.substr(eq + 1);
    std::string const bad = flag + "=" + v + ": ";
    if (flag == "--v") {  // Google Benchmark's log verbosity: it prints its own line and leaves a bad one
      if (eq == std::string::npos || v.empty() || v.size() > 9 ||
          v.find_first_not_of("0123456789", v[0] == '-' ? 1 : 0) != std::string::npos || v == "-")
        return bad + "expected a whole number (the log verbosity)";
      continue;
    }
    if (a.rfind("--benchmark_", 0) != 0) continue;
    double d = 0;
    if (flag == "--benchmark_list_tests" || flag == "--benchmark_enable_random_interleaving" ||
        flag == "--benchmark_report_aggregates_only" || flag == "--benchmark_display_aggregates_only" ||
        flag == "--benchmark_counters_tabular") {
      // Alone, the flag means true.
      if (eq != std::string::npos && !boolean(v)) return bad + "expected true or false";
    } else if (flag == "--benchmark_color") {
      if (!one_of(v, {"auto"}) && !boolean(v)) return bad + "expected auto, true or false";
    } else if (flag == "--benchmark_context") {
      // Google Benchmark leaves a malformed one in argv, which then reads as an unknown argument.
      std::string::size_type from = 0;
      while (!v.empty()) {
        std::string::size_type const comma = v.find(',', from);
        std::string const item = v.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        std::string::size_type const sep = item.find('=');
        if (sep == std::string::npos || sep == 0 || item.find('=', sep + 1) != std::string::npos)
          return bad + "expected key=value[,key=value...], found \"" + item + "\"";
        if (comma == std::string::npos) break;
        from = comma + 1;
      }
    } else if (flag == "--benchmark_format" || flag == "--benchmark_out_format") {
      if (!one_of(v, {"console", "json", "csv"})) return bad + "expected console, json or csv";
    } else if (flag == "--benchmark_time_unit") {
      if (!one_of(v, {"ns", "us", "ms", "s"})) return bad + "expected ns, us, ms or s";
    } else if (flag == "--benchmark_min_time") {
      std::string num = v;
#if LOOM_BENCHMARK_MIN_TIME_SUFFIX  // Google Benchmark >= 1.8: "2s" (seconds) or "100x" (iterations)
      if (!num.empty() && (num.back() == 's' || num.back() == 'x')) num.pop_back();
#endif
#if LOOM_BENCHMARK_MIN_TIME_SUFFIX
      if (!is_number(num, &d) || !(d > 0)) return bad + "expected a positive number of seconds (2 or 2s) or of iterations (100x)";
#else
      if (!is_number(num, &d) || !(d > 0)) return bad + "expected a positive number of seconds";
#endif
    } else if (flag == "--benchmark_min_warmup_time") {
      if (!is_number(v, &d) || d < 0) return bad + "expected a non-negative number of seconds";
    } else if (flag == "--benchmark_repetitions") {
      if (!is_number(v, &d) || d < 1 || d > 1e6 || d != std::floor(d) || v.find_first_not_of("0123456789") != std::string::npos)
        return bad + "expected a whole number of repetitions in [1, 1000000]";
    } else if (flag == "--benchmark_filter") {
      std::string re = v;
      if (re.empty() || re == "all") re = ".";
      if (re[0] == '-') re.erase(0, 1);  // a negative filter
      try {
        std::regex const r(re, std::regex_constants::extended);
      } catch (std::regex_error const& e) {
        return bad + "not a regular expression (" + e.what() + ")";
      }
    } else if (flag == "--benchmark_out") {
      if (std::string const why = harness::why_not_writable(v); !why.empty()) return bad + "cannot write the file: " + why;
    }
  }
  return "";
}

// loom-bench's options, whose help Google Benchmark's --help prints before its own (print_help).
CLI::App* g_app = nullptr;

// A JSON document as Google Benchmark writes it for a run (the context, --tags' and the device's
// keys included), with no rows: an empty --shard's report.
void write_empty_report(std::ostream& os) {
  benchmark::JSONReporter r;
  r.SetOutputStream(&os);
  r.SetErrorStream(&std::cerr);
  benchmark::BenchmarkReporter::Context ctx;
  ctx.name_field_width = 0;
  r.ReportContext(ctx);
  r.Finalize();
  os.flush();
}

void print_help() {
  if (g_app) std::cout << g_app->help() << std::flush;
  std::printf("\nGoogle Benchmark flags (passed through):\n");
  std::fflush(stdout);
  benchmark::PrintDefaultHelp();
}

// ---------------------------------------------------------------------------------------------
// main's steps: the command line, checked whole before the GPU is looked for; the listings; the
// run and its report

// The command as given, each argument shell-quoted: the JSON context's loom_command.
std::string command_text(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + shell_quote(argv[i]);
  return command;
}

// --benchmark_min_time's value ("" when not given). Google Benchmark's own min_time does not apply
// (one iteration is one measurement), so its value sets --min-time, or as "100x" --iterations.
std::string benchmark_min_time(int argc, char** argv) {
  std::string value;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]).rfind("--benchmark_min_time=", 0) == 0)
      value = std::string(argv[i]).substr(std::strlen("--benchmark_min_time="));
  return value;
}

constexpr char const* kAbout =
    "loom-bench: time Loom's kernels side by side with cuBLAS (and a device-to-device copy for "
    "bandwidth-bound ops), one Google Benchmark per case named <kernel>/<dtype>/<layout>/<M>x<N>x<K>.\n"
    "Lists take the CUTLASS-profiler syntax: 1024, 1,7,127, 1024:8192:1024 (inclusive).\n"
    "Without sweep options: add, f32/f16/bf16 ccc and f32 rrr, M=N in 2048,4096,8192,16384; gemm,\n"
    "each kernel's f32/f16/bf16 dtypes, ccc, 4096^3 and 8192^3, and for fp32 kernels 128x8192x8192,\n"
    "512x14336x4096 and 8192x8192x512. --kernels alone picks kernels from that sweep. 8-bit inputs\n"
    "(--dtypes=e4m3,e4m3xe5m2,...) are timed in rcr unless --layouts says otherwise, beside cuBLASLt's FP8 gemm,\n"
    "with tensor scales, or block scales (--scale=block, --dtypes=e4m3-block) in cuBLASLt's block modes.";

// The options loom-validate shares (harness/cli.hpp), then loom-bench's own.
void add_options(CLI::App& app, Options& o) {
  o.shared.add(app, cli::Tool::bench);
  app.add_option("--warmup", o.warmup, "Untimed launches before each benchmark's timed ones (default: 3)")
      ->check(CLI::Range(0, 1000));
  app.add_option("--min-time", o.min_time,
                 "Seconds of kept samples (timed launches) per benchmark at least (default: 0.2); "
                 "--benchmark_min_time sets it too")
      ->check(CLI::Range(1e-6, 3600.0));
  app.add_option("--iterations", o.iterations,
                 "Exactly this many kept samples per benchmark, whatever the noise (default: 0, by the criteria)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1000000000)));
  app.add_option("--min-samples", o.min_samples, "Kept samples per benchmark at least (default: 10)")
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--max-noise", o.max_noise,
                 "Sample until noise_pct, the relative standard error of the median in percent, is at most this "
                 "(default: 0.5; 0: until --max-time)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--max-time", o.max_time,
                 "Seconds of sampling per benchmark at most, wall clock, whatever the noise (default: 10)")
      ->check(CLI::Range(1e-3, 86400.0));
  app.add_option("--throttle-threshold", o.throttle_threshold,
                 "Discard and take again a sample after which NVML reads the SM clock below this percentage of the "
                 "highest SM clock (default: 60; 0: keep every sample)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--output", o.output,
                 "Write the rows as JSON (Google Benchmark's, with loom-bench's fields) to FILE, as "
                 "--benchmark_out=FILE --benchmark_out_format=json would");
  app.add_flag("--append", o.append,
               "Add this run's rows to the --output file's (a loom-bench JSON file; its first run's context is "
               "kept) instead of overwriting it");
  app.add_option("--providers", o.providers,
                 "What to time: comma list of loom (the kernels), cublas (the baseline), memcpy (the copy "
                 "ceiling of add) (default: all three)");
  app.add_option("--verification", o.verification,
                 "on (default): before timing a kernel's case, launch it once on a NaN-poisoned D and compare it "
                 "with cuBLAS (fp64 on the host where cuBLAS lacks the case), as loom-validate does; every row's "
                 "label says its disposition (passed, incorrect, not_verified), and an incorrect one makes the exit "
                 "status 1. off: no check (every row not_verified), e.g. for profiling");
  app.add_option("--plans", g.plans,
                 "For a kernel that plans each problem with a model (sm90): also time its model's N best plans "
                 "for each case, each a row named KERNEL[plan=SPEC]/... and labelled plan=SPEC; plan_desc=...; "
                 "estimate_us=... (the first is the model's choice; SPEC is LOOM_SM90_PLAN's form) (default: 0)")
      ->check(CLI::Range(0, 1000));
  app.add_option("--plan-set", o.plan_set,
                 "best (default): --plans times the model's N best plans. shapes: the model's best plan of each "
                 "tile shape and orientation whole, K split for every tile and the last wave split (each its "
                 "best split), at most N in the model's order, so that every shape is timed however the model "
                 "rates it (fit data)")
      ->check(CLI::IsMember({"best", "shapes"}));
  app.add_option("--plan-shapes", o.plan_shapes,
                 "With --plans: time only plans of these tile shapes (LOOM_SM90_PLAN's first field, "
                 "kernels/sm90/tile_menu.hpp's index), e.g. 33,34,35, so that fit data for a few shapes is "
                 "taken without timing the rest; a shape named is timed where the model does not offer it too")
      ->delimiter(',')
      ->check(CLI::Range(0, 1000));
  app.add_flag("--list-kernels", o.list_kernels,
               "List the kernels for scripts: one tab-separated line each of name, op, dtypes, description")
      ->disable_flag_override();
  app.add_flag("--repro", o.repro,
               "List the benchmarks the command would run, as --mode=enumerate plans them (no GPU needed), one "
               "tab-separated line each of name and a loom-bench command that times that case again")
      ->disable_flag_override();
  app.add_flag("--progress", o.progress,
               "One short line per benchmark on stderr as it ends: its place in the run, name, median time, "
               "throughput, vs_cublas and disposition (for a terminal, while the console table or JSON goes "
               "elsewhere)")
      ->disable_flag_override();
  app.footer(
      "Every --benchmark_* flag goes to Google Benchmark (--help lists them), e.g. "
      "--benchmark_filter=REGEX --benchmark_format=json --benchmark_out=FILE --benchmark_out_format=json.\n"
      "Counters: m, n, k, samples, noise_pct, min_us, median_us, host_us, throttled_discarded and sm_mhz (with NVML), GB/s "
      "or TFLOP/s, pct_peak, vs_cublas (throughput / cuBLAS's, same run); Time is the median launch. "
      "Labels: [path=P; ]dtype=D; layout=L[; out_dtype=O][; scale=tensor|block]; disposition=passed|incorrect|not_verified|"
      "failed, then the baseline's note (8-bit rows: cuBLASLt FP8), the sweep, --tags, and the GPU that ran the row: "
      "device=ORDINAL; device_name=NAME; "
      "pci_bus_id=BUS (the JSON context: loom_device_ordinal, loom_pci_bus_id, loom_uuid, loom_shard).");
}

// Where the run's JSON goes. --output FILE becomes Google Benchmark's --benchmark_out (JSON); with
// --append, to a part file whose rows are added to FILE's after the run
// (harness::append_benchmark_rows).
struct OutputFiles {
  std::string out_file;   // --output
  std::string part_file;  // --append to a file that has rows: this run's go here first
  std::string bm_out_path;                  // --benchmark_out's
  bool bm_out_json = false;                 // --benchmark_out is written as JSON
  bool stdout_json = false;                 // --benchmark_format=json: an empty shard's report goes to stdout too
  std::vector<std::string> benchmark_args;  // the --benchmark_out flags --output becomes

  // The JSON file this run's rows go to, if any.
  std::string json_file() const {
    if (!out_file.empty()) return part_file.empty() ? out_file : part_file;
    return bm_out_json ? bm_out_path : std::string();
  }
};

// Read from argv before either parser sees it (CLI11 would not see --benchmark_out), and checked
// here, before the GPU: a FILE that cannot be written, or that --append cannot extend.
OutputFiles output_files(int argc, char** argv) {
  OutputFiles f;
  bool appending = false, bm_out = false, bm_out_format = false;
  std::string out_format;
  for (int i = 1; i < argc; ++i) {
    std::string_view const a = argv[i];
    if (a.rfind("--output=", 0) == 0) f.out_file = std::string(a.substr(9));
    else if (a == "--output" && i + 1 < argc) f.out_file = argv[i + 1];
    else if (a == "--append") appending = true;
    else if (a.rfind("--benchmark_out=", 0) == 0) bm_out = true, f.bm_out_path = std::string(a.substr(16));
    else if (a.rfind("--benchmark_out_format=", 0) == 0) bm_out_format = true, out_format = std::string(a.substr(23));
    else if (a == "--benchmark_format=json") f.stdout_json = true;
  }
  // Google Benchmark writes --benchmark_out as JSON unless told otherwise.
  f.bm_out_json = bm_out && (!bm_out_format || out_format == "json");
  if (!f.out_file.empty()) {
    if (bm_out) die("--output and --benchmark_out name the same thing; give one", 2);
    if (bm_out_format && out_format != "json")
      die("--output writes JSON; --benchmark_out_format=" + out_format + " goes with --benchmark_out", 2);
    if (std::string const why = harness::why_not_writable(f.out_file); !why.empty())
      die("--output \"" + f.out_file + "\": cannot write the file: " + why, 2);
  }
  if (appending) {
    if (f.out_file.empty()) die("--append appends to the --output file; name one", 2);
    std::ifstream old(f.out_file, std::ios::binary);
    std::string const text((std::istreambuf_iterator<char>(old)), std::istreambuf_iterator<char>());
    if (old && !text.empty()) {
      std::string why;
      if (harness::append_benchmark_rows(text, "{\"benchmarks\": []}", &why).empty())
        die("--append: \"" + f.out_file + "\": " + why, 2);
      f.part_file = f.out_file + ".part";
      if (std::string const w = harness::why_not_writable(f.part_file); !w.empty())
        die("--append: cannot write \"" + f.part_file + "\" beside it: " + w, 2);
    }
  }
  if (!f.out_file.empty())
    f.benchmark_args = {"--benchmark_out=" + (f.part_file.empty() ? f.out_file : f.part_file),
                        "--benchmark_out_format=json"};
  return f;
}

// Both parsers over argv, Google Benchmark's flags checked first: on a bad one it prints its own
// line and leaves it in argv (--benchmark_min_time=abc), or prints the whole help and exits 0
// (--benchmark_format=xml), or finds the problem only when it runs (--benchmark_out into a missing
// directory). --help prints both parsers' help and ends the process.
void parse_command_line(CLI::App& app, int argc, char** argv, OutputFiles& files) {
  if (std::string const why = check_benchmark_flags(argc, argv); !why.empty()) die(why, 2);
  try {
    cli::check_argv(argc, argv, {"--list-kernels", "--list", "--repro", "--progress", "--append"});
  } catch (UsageError const& e) {
    die(e.what(), 2);
  }
  files = output_files(argc, argv);
  // argv with --output's flags for Google Benchmark, kept for the process's life as argv is.
  static std::vector<char*> args;
  args.assign(argv, argv + argc);
  for (auto& a : files.benchmark_args) args.push_back(a.data());
  args.push_back(nullptr);
  int n = int(args.size()) - 1;
  // Google Benchmark takes its flags out of argv first; CLI11 then gets the rest, strictly.
  benchmark::Initialize(&n, args.data(), print_help);
  try {
    app.parse(n, args.data());
  } catch (CLI::ParseError const& e) {
    if (e.get_exit_code() == 0) std::exit(app.exit(e));  // --help
    die(std::string(e.what()) + " (see --help)", 2);
  }
}

// --list and --list-kernels print the same text whatever else is given: anything else given is a
// mistake. Returns whether one was printed.
bool print_listing(CLI::App const& app, Options const& o) {
  try {
    if (o.shared.run.list) cli::alone(app, "--list");
    if (o.list_kernels) cli::alone(app, "--list-kernels");
  } catch (UsageError const& e) {
    die(e.what(), 2);
  }
  if (o.shared.run.list) {
    std::fputs(harness::kernel_list().c_str(), stdout);
    return true;
  }
  if (o.list_kernels) {
    for (auto const& k : loom::kernels()) {
      std::string dts;
      for (DType t : k.dtypes) {
        if (!dts.empty()) dts += ',';
        dts += loom::to_string(t);
      }
      std::printf("%s\t%s\t%s\t%s\n", k.name.c_str(), loom::to_string(k.op), dts.c_str(), k.description.c_str());
    }
    return true;
  }
  return false;
}

// Every shared option's value, then the sampling options against each other and --timeout, and
// the run's settings from them (g, guard).
void check_values(CLI::App const& app, Options& o, std::string const& user_min_time) {
  // The label's own fields may not be tags; m, n and k neither, lest a tag read as the case's size.
  try {
    o.shared.parse(cli::Tool::bench, {"dtype", "layout", "out_dtype", "scale", "path", "sweep", "beta", "m", "n", "k",
                                      "device", "device_name", "pci_bus_id"});
  } catch (UsageError const& e) {
    die(e.what(), 2);
  }
  guard.timeout = o.shared.run.timeout;
  guard.fault = o.shared.run.fault;
  for (auto [name, v, lo, hi] : {std::tuple{"--max-noise", o.max_noise, 0.0, 100.0},
                                 std::tuple{"--max-time", o.max_time, 1e-3, 86400.0},
                                 std::tuple{"--throttle-threshold", o.throttle_threshold, 0.0, 100.0}})
    if (!(v >= lo && v <= hi))  // NaN too, which CLI11's range check lets through
      die(std::string(name) + ": expected a number in [" + fmt("%g", lo) + ", " + fmt("%g", hi) + "], found " +
              fmt("%g", v),
          2);
  // The watchdog watches a whole run of a benchmark, its sampling included: a --max-time given must
  // be below --timeout, and the default one shrinks to half a smaller --timeout.
  if (guard.timeout > 0 && app.count("--max-time") && o.max_time >= guard.timeout)
    die("--max-time=" + fmt("%g", o.max_time) + " is not below --timeout=" + fmt("%g", guard.timeout) +
            ": the watchdog would stop a benchmark that samples that long (raise --timeout, or 0: no limit)",
        2);
  if (guard.timeout > 0 && !app.count("--max-time")) o.max_time = std::min(o.max_time, guard.timeout / 2);
  g.sampling.iterations = o.iterations;
  g.sampling.min_samples = o.min_samples;
  g.sampling.min_time = o.min_time;
  g.sampling.max_noise = o.max_noise;
  g.sampling.max_time = o.max_time;
  if (!user_min_time.empty()) {  // checked by check_benchmark_flags: "2", "2s" or "100x"
    std::string v = user_min_time;
    if (v.back() == 'x') {
      v.pop_back();
      g.sampling.iterations = std::int64_t(std::strtod(v.c_str(), nullptr));
    } else {
      if (v.back() == 's') v.pop_back();
      g.sampling.min_time = std::strtod(v.c_str(), nullptr);
    }
  }
  g.sweep = o.shared.sweep.text;
  g.tags = o.shared.run.tags;
  g.shard_index = o.shared.run.shard_index;
  g.shard_count = o.shared.run.shard_count;
  g.progress = o.progress;
}

// The sweep's cases, --out-dtypes checked against it; a sweep of none is an error.
std::vector<harness::Case> build_cases(Options const& o) {
  std::vector<harness::Case> cases;
  try {
    std::vector<harness::SweepSpec> const specs = build_specs(o);
    cli::check_out_dtypes(o.shared.problem.out_dtypes.value_or(std::vector<DType>{}), specs);
    for (auto const& spec : specs) {
      auto more = harness::expand(spec);
      cases.insert(cases.end(), more.begin(), more.end());
    }
  } catch (UsageError const& e) {
    die(e.what(), 2);
  } catch (std::invalid_argument const& e) {
    die(e.what(), 2);
  }
  if (cases.empty())
    die("the sweep has no case: no selected kernel takes the selected dtypes (see --list-kernels)", 2);
  return cases;
}

// --providers, --plans, --verification and the options of --mode=enumerate alone, against the
// selected kernels and the mode: a value that would time nothing, or be ignored, is an error.
void check_run_options(CLI::App const& app, Options const& o) {
  g.use_loom = g.use_cublas = g.use_memcpy = false;
  try {
    for (auto const& pr : cli::name_list("--providers", o.providers)) {
      if (pr == "loom") g.use_loom = true;
      else if (pr == "cublas") g.use_cublas = true;
      else if (pr == "memcpy") g.use_memcpy = true;
      else die("--providers: unknown provider \"" + pr + "\" (loom, cublas, memcpy)", 2);
    }
  } catch (UsageError const& e) {
    die(e.what(), 2);
  }
  if (!g.use_loom && !g.use_cublas && !g.use_memcpy) die("--providers: name at least one of loom, cublas, memcpy", 2);
  auto any_selected = [&](auto&& pred) {
    auto const& sel = o.shared.kernels.selected;
    return std::any_of(sel.begin(), sel.end(), [&](KernelInfo const* k) { return pred(*k); });
  };
  // A provider or --plans named for kernels none of which it applies to would time nothing.
  if (g.use_memcpy && app.count("--providers") && !any_selected([](KernelInfo const& k) { return k.op == OpKind::add; }))
    die("--providers: memcpy is the copy ceiling of add, and no selected kernel computes add", 2);
  if (g.plans > 0 && !any_selected([](KernelInfo const& k) { return bool(k.ranked_plans); }))
    die("--plans: no selected kernel plans its problems with a model (see --list; sm90 does)", 2);
  if (app.count("--plan-set") && g.plans == 0) die("--plan-set: it picks which plans --plans=N times; give --plans", 2);
  g.plan_spread = o.plan_set == "shapes";
  if (app.count("--plan-shapes") && g.plans == 0) die("--plan-shapes: it filters the plans --plans=N times; give --plans", 2);
  g.plan_shapes = std::set<int>(o.plan_shapes.begin(), o.plan_shapes.end());
  if (o.shared.device.cc && !o.shared.device.enumerate && !o.repro)
    die("--compute-capability is for --mode=enumerate and --repro (a run takes the GPU's)", 2);
  if (o.shared.device.sms && !o.shared.device.enumerate) die("--sms is for --mode=enumerate (a run takes the GPU's)", 2);
  if (o.shared.device.card && !o.shared.device.enumerate)
    die("--card is for --mode=enumerate (a run takes the GPU's)", 2);
  g.plan_target = o.shared.device.plan_target();
  if (o.verification != "on" && o.verification != "off")
    die("--verification is on or off, found \"" + o.verification + "\"", 2);
  g.verify = o.verification == "on";
}

// The GPU --device names, with the run's stream, cuBLAS handle, L2 flush buffer and free memory.
void open_device(Options const& o) {
  try {
    g.info = harness::query_device(o.shared.device.device);
  } catch (harness::NoGpu const&) {
    die("no CUDA GPU found", 2);
  } catch (std::exception const& e) {
    die(e.what(), 2);
  }
  try {
    LOOM_CUDA(cudaSetDevice(g.info.ordinal));
    LOOM_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    LOOM_CUBLAS(cublasCreate(&g.cublas));
    g.flusher = std::make_unique<loom::bench::L2Flusher>(std::size_t(g.info.l2_bytes), g.info.sm_count);
    g.free_bytes = harness::free_device_bytes();
  } catch (std::exception const& e) {
    die(e.what(), 1);
  }
  g.warmup = o.warmup;
  harness::DeviceInfo const& d = g.info;
  g.device_fields = "device=" + std::to_string(d.ordinal) + "; device_name=" + d.name + "; pci_bus_id=" + d.pci_bus_id;
}

// What the run's start knows of the GPU: its peaks, and through NVML its clocks, which the sampling
// reads after every sample and the report compares with the clocks after the run.
struct RunStart {
  double peak_tensor = 0;
  std::string tensor_how;  // how peak_tensor was found
  std::string no_nvml;     // "unavailable (NVML: why)", for a field NVML would give
  harness::Clocks before;  // at start
  int max_sm_mhz = 0;      // the highest SM clock, which --throttle-threshold is a percentage of
};

RunStart start_run(Options const& o) {
  harness::DeviceInfo const& d = g.info;
  RunStart s;
  s.peak_tensor = tensor_peak_tflops(d, &s.tensor_how);
  std::string const nvml_why = harness::nvml_unavailable(d.ordinal);
  s.no_nvml = "unavailable (NVML: " + nvml_why + ")";
  s.before = harness::current_clocks(d.ordinal);
  s.max_sm_mhz = harness::max_sm_clock_mhz(d.ordinal) > 0 ? harness::max_sm_clock_mhz(d.ordinal) : d.sm_clock_mhz;
  g.sampling.read_clock = nvml_why.empty() && harness::sm_clock_mhz(d.ordinal) > 0;
  g.sampling.throttle_mhz = g.sampling.read_clock ? int(o.throttle_threshold / 100.0 * s.max_sm_mhz) : 0;
  return s;
}

void context(char const* key, std::string const& value) { benchmark::AddCustomContext(key, value); }

// The JSON context's GPU: which one ran the rows, its software and its peaks.
void add_device_context(Options const& o, RunStart const& s) {
  harness::DeviceInfo const& d = g.info;
  context("loom_device", d.name);
  // The GPU of this process: the ordinal is the process's (CUDA_VISIBLE_DEVICES renumbers), the bus
  // id and UUID the physical card's.
  context("loom_device_ordinal", std::to_string(d.ordinal));
  context("loom_pci_bus_id", d.pci_bus_id);
  context("loom_uuid", d.uuid);
  context("loom_shard", o.shared.run.shard());
  context("loom_cc", std::to_string(d.cc / 10) + "." + std::to_string(d.cc % 10));
  context("loom_sm_count", std::to_string(d.sm_count));
  context("loom_driver", version(d.driver_version));
  std::string const nvidia_driver = harness::nvidia_driver_version(d.ordinal);
  context("loom_nvidia_driver", nvidia_driver.empty() ? s.no_nvml : nvidia_driver);
  context("loom_cuda_runtime", version(d.runtime_version));
  context("loom_cublas", std::to_string(d.cublas_version / 10000) + "." + std::to_string(d.cublas_version / 100 % 100) +
                             "." + std::to_string(d.cublas_version % 100));
  context("loom_sm_clock_max_mhz", std::to_string(d.sm_clock_mhz));
  context("loom_clocks_at_start", s.before.sm_mhz > 0 ? "SM " + std::to_string(s.before.sm_mhz) + " MHz, memory " +
                                                            std::to_string(s.before.mem_mhz) + " MHz"
                                                      : s.no_nvml);
  context("loom_l2_bytes", std::to_string(d.l2_bytes));
  context("loom_peak_dram_gbs", fmt("%.1f", d.peak_dram_gbs));
  context("loom_peak_fp32_tflops", fmt("%.2f", d.peak_fp32_tflops));
  context("loom_peak_f16_bf16_tensor_tflops", fmt("%.1f", s.peak_tensor));
  context("loom_peak_fp8_tensor_tflops", fmt("%.1f", d.cc == 90 ? 2 * s.peak_tensor : 0.0));
  context("loom_peaks", "add: DRAM " + fmt("%.0f", d.peak_dram_gbs) + " GB/s (" + std::to_string(d.mem_clock_mhz) +
                            " MHz x bus width x 2 / 8); gemm f32: FP32 FMA " + fmt("%.1f", d.peak_fp32_tflops) +
                            " TFLOP/s (" + std::to_string(d.sm_count) + " SMs x " +
                            std::to_string(d.fp32_lanes_per_sm) + " FMA/clk x 2 x " + std::to_string(d.sm_clock_mhz) +
                            " MHz); gemm f16/bf16: dense tensor " + s.tensor_how +
                            "; gemm e4m3/e5m2: twice that on compute capability 9.0, else unknown");
}

// The JSON context's method: how each row was timed, sampled and checked, the command, --tags.
void add_method_context(Options const& o, RunStart const& s, std::string const& command) {
  context("loom_timing", "median of CUDA-event times, one launch each; L2 flushed by reading " +
                             std::to_string(g.flusher->bytes() >> 20) + " MiB before every timed launch; " +
                             std::to_string(o.warmup) + " warm-up launches");
  Sampling const& sp = g.sampling;
  context("loom_sampling",
          sp.iterations > 0
              ? std::to_string(sp.iterations) + " samples per benchmark (--iterations)"
              : "samples until at least " + std::to_string(sp.min_samples) + " samples and " + fmt("%g", sp.min_time) +
                    " s of them are kept and noise_pct (relative standard error of the median, from the MAD) <= " +
                    fmt("%g", sp.max_noise) + "%, or " + fmt("%g", sp.max_time) + " s of sampling (--max-time)");
  context("loom_clock_threshold",
          sp.read_clock
              ? (sp.throttle_mhz > 0 ? "samples taken with the SM clock below " + std::to_string(sp.throttle_mhz) +
                                           " MHz (" + fmt("%g", o.throttle_threshold) + "% of the highest, " +
                                           std::to_string(s.max_sm_mhz) +
                                           " MHz) are discarded and taken again (counter throttled_discarded)"
                                     : std::string("none (--throttle-threshold=0); counter sm_mhz"))
              : "none: the SM clock is " + s.no_nvml);
  context("loom_verification",
          g.verify ? "on: each kernel's case launched once on a NaN-poisoned D and compared with cuBLAS (fp64 on the "
                     "host where cuBLAS lacks it) before it is timed, loom-validate's tolerances; label disposition=..."
                   : "off: rows not_verified");
  context("loom_command", command);
  for (auto const& [key, value] : g.tags) context(("loom_tag_" + key).c_str(), value);
}

// A shard with nothing to time (--shard=I/N: the sweep has fewer than N cases, or this GPU can run
// none of the shard's, while another shard's may) is not an error: with one process per GPU
// (scripts/multi_gpu.sh), a small sweep leaves some without work. Its JSON has the context and no
// rows, so that the reports still merge; scripts/merge_reports.py refuses a merge of no row.
// Returns whether this is such a shard, its report written; no benchmark without a shard is an error.
bool empty_shard(std::deque<Bench> const& benches, Options const& o, OutputFiles const& files) {
  if (!benches.empty()) return false;
  if (o.shared.run.shard_count <= 1) die("no case of the sweep runs on this GPU", 2);
  if (g.shard_cases == 0)
    std::fprintf(stderr, "loom-bench: --shard=%s holds none of the sweep's cases; nothing to time\n",
                 o.shared.run.shard().c_str());
  else
    std::fprintf(stderr, "loom-bench: --shard=%s: no case of the shard runs on this GPU; nothing to time\n",
                 o.shared.run.shard().c_str());
  if (std::string const json_file = files.json_file(); !json_file.empty()) {
    std::ofstream f(json_file, std::ios::binary | std::ios::trunc);
    write_empty_report(f);
    if (!f) die("cannot write \"" + json_file + "\"", 1);
  }
  if (files.stdout_json) write_empty_report(std::cout);
  return true;
}

void register_benchmarks(std::deque<Bench> const& benches) {
  std::size_t place = 0;
  auto const started = std::chrono::steady_clock::now();
  for (Bench const& b : benches) {
    Bench const* pb = &b;
    std::size_t const i = ++place, n = benches.size();
    auto* bm = benchmark::RegisterBenchmark(b.name.c_str(), [pb, i, n, started](benchmark::State& st) {
      run_bench(st, *pb);
      if (g.progress) progress_line(st, *pb, i, n, std::chrono::steady_clock::now() - started);
    });
    // One iteration is one measurement (measure()): Google Benchmark's own min_time does not apply.
    bm->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(1);
  }
}

// Throttling: the SM clock just after the run against the one at start, and the driver's reasons.
void report_clocks(RunStart const& s) {
  harness::DeviceInfo const& d = g.info;
  harness::Clocks const after = harness::current_clocks(d.ordinal);
  if (after.sm_mhz > 0)
    std::fprintf(stderr, "loom-bench: clocks after the run: SM %d MHz, memory %d MHz (SM at start %d MHz, max %d MHz)\n",
                 after.sm_mhz, after.mem_mhz, s.before.sm_mhz, d.sm_clock_mhz);
  if (after.sm_mhz > 0 && s.before.sm_mhz > 0 && after.sm_mhz < 0.9 * s.before.sm_mhz)
    std::fprintf(stderr, "loom-bench: warning: the SM clock dropped from %d to %d MHz during the run (throttling?)\n",
                 s.before.sm_mhz, after.sm_mhz);
  if (auto mask = harness::clock_event_reasons(d.ordinal)) {
    unsigned long long const bad = *mask & ~0x3ull;  // ignore gpu_idle (0x1) and applications_clocks (0x2)
    if (bad)
      std::fprintf(stderr, "loom-bench: warning: NVML reports clock throttling: %s\n",
                   harness::describe_clock_event_reasons(bad).c_str());
  }
  if (g.discarded > 0)
    std::fprintf(stderr,
                 "loom-bench: %d sample(s) taken with the SM clock below %d MHz were discarded and taken again "
                 "(counter throttled_discarded)\n",
                 g.discarded, g.sampling.throttle_mhz);
}

void close_device() {
  g.ws.reset();
  g.flusher.reset();
  cublasDestroy(g.cublas);
  cudaStreamDestroy(g.stream);
}

// --append: this run's rows (in the part file) join the --output file's. Returns false, having
// said where the rows are, when they could not.
bool append_rows(OutputFiles const& files) {
  if (files.part_file.empty()) return true;
  auto slurp = [](std::string const& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  std::string why;
  std::string const merged = harness::append_benchmark_rows(slurp(files.out_file), slurp(files.part_file), &why);
  std::ofstream f;
  if (!merged.empty()) f.open(files.out_file, std::ios::binary | std::ios::trunc);
  if (merged.empty() || !(f << merged) || (f.close(), !f)) {
    std::fprintf(stderr, "loom-bench: --append: could not add this run's rows to \"%s\" (%s); they are in \"%s\"\n",
                 files.out_file.c_str(), why.empty() ? "write failed" : why.c_str(), files.part_file.c_str());
    return false;
  }
  std::remove(files.part_file.c_str());
  return true;
}

// The run's end: a line for incorrect, failed and not-run benchmarks, and the exit status, 1 if any.
int exit_status() {
  if (g.incorrect > 0)
    std::fprintf(stderr, "loom-bench: %d benchmark(s) incorrect (disposition=incorrect); first: %s\n", g.incorrect,
                 g.first_incorrect.c_str());
  if (!guard.lost.empty()) {
    std::fprintf(stderr, "loom-bench: %s; %d benchmark(s) failed, %zu not run\n", guard.lost.c_str(), g.failures,
                 guard.not_run.size());
    return 1;
  }
  if (g.failures > 0) {
    std::fprintf(stderr, "loom-bench: %d benchmark(s) failed; first: %s\n", g.failures, g.first_failure.c_str());
    return 1;
  }
  return g.incorrect > 0 ? 1 : 0;
}

}  // namespace

// Every value of the command line is checked, and the sweep built, before the GPU is looked for: a
// mistake is one line and exit status 2, never a message about the machine. Then the listings
// (--mode=enumerate, --repro), or the run: Google Benchmark times the planned benchmarks and writes
// the rows, and loom-bench adds what it knows of the run around them.
int main(int argc, char** argv) {
  std::string const command = command_text(argc, argv);
  std::string const user_min_time = benchmark_min_time(argc, argv);
  Options o;
  CLI::App app{kAbout, "loom-bench"};
  add_options(app, o);
  g_app = &app;
  OutputFiles files;
  parse_command_line(app, argc, argv, files);
  // CLI11's range check lets NaN through (every comparison with it is false).
  if (!(o.min_time >= 1e-6 && o.min_time <= 3600.0))
    die("--min-time: expected seconds in [1e-06, 3600], found " + fmt("%g", o.min_time), 2);
  if (print_listing(app, o)) return 0;
  check_values(app, o, user_min_time);
  std::vector<harness::Case> const cases = build_cases(o);
  check_run_options(app, o);
  if (o.shared.device.enumerate || o.repro) return enumerate(o, cases);

  open_device(o);
  RunStart const start = start_run(o);
  add_device_context(o, start);
  add_method_context(o, start, command);
  std::deque<Bench> const benches = plan(cases, g.info.peak_fp32_tflops, start.peak_tensor);
  bool const nothing_to_time = empty_shard(benches, o, files);
  register_benchmarks(benches);
  // A hung kernel: Google Benchmark's rows so far are flushed (its --benchmark_out file is its own).
  watchdog.on_timeout([](std::string const&) {
    std::cout.flush();
    std::fflush(stdout);
  });
  if (!nothing_to_time) benchmark::RunSpecifiedBenchmarks();
  report_clocks(start);
  close_device();
  benchmark::Shutdown();
  if (!append_rows(files)) return 1;
  return exit_status();
}
