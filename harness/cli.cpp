#include "harness/cli.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <tuple>

#include "harness/watchdog.hpp"

namespace loom::cli {

std::string one_line(std::string const& s) {
  constexpr std::size_t kMaxMessage = 400;
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      if (!out.empty() && out.back() != ' ') out += "; ";
    } else if (c == '\r') {
    } else if ((unsigned char)c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", (unsigned char)c);
      out += buf;
    } else {
      out += c;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
  if (out.size() > kMaxMessage) out = out.substr(0, kMaxMessage - 3) + "...";
  return out;
}

std::vector<std::int64_t> int_list(std::string const& opt, std::string const& text, std::int64_t min,
                                   std::string const& what) {
  std::vector<std::int64_t> v;
  try {
    v = harness::parse_int_list(text);
  } catch (std::invalid_argument const& e) {
    throw UsageError(opt + ": " + e.what());
  }
  for (auto x : v)
    if (x < min) throw UsageError(opt + ": " + what + ", found " + std::to_string(x));
  return v;
}

std::vector<std::int64_t> size_list(std::string const& opt, std::string const& text) {
  return int_list(opt, text, 1, "sizes must be positive");
}

std::vector<double> real_list(std::string const& opt, std::string const& text) {
  try {
    return harness::parse_real_list(text);
  } catch (std::invalid_argument const& e) {
    throw UsageError(opt + ": " + e.what());
  }
}

std::vector<std::string> name_list(std::string const& opt, std::string const& text) {
  try {
    return harness::split_list(text);
  } catch (std::invalid_argument const& e) {
    throw UsageError(opt + ": " + e.what());
  }
}

std::vector<DType> dtype_list(std::string const& opt, std::string const& text) {
  std::vector<DType> out;
  for (auto const& s : name_list(opt, text)) {
    // The registry's parser also takes aliases (half, float, ...); the tools take the names their
    // reports print, so that a command and its rows spell a dtype alike.
    DType t;
    if ((s != "f32" && s != "f16" && s != "bf16") || !parse_dtype(s, &t))
      throw UsageError(opt + ": unknown dtype \"" + s + "\" (known: f32, f16, bf16)");
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

std::vector<harness::InputTypes> input_types_list(std::string const& opt, std::string const& text) {
  // The names the reports print (InputTypes::name): a pair only where A's and B's types differ,
  // and only of 8-bit types, which are the only inputs that mix; "-fast" or "-block" after 8-bit
  // ones.
  using harness::InputTypes;
  static std::vector<InputTypes> const known = [] {
    std::vector<InputTypes> v = {DType::f32, DType::f16, DType::bf16};
    std::vector<InputTypes> const eight = {DType::e4m3, DType::e5m2, InputTypes(DType::e4m3, DType::e5m2),
                                           InputTypes(DType::e5m2, DType::e4m3)};
    for (auto [fast, scale] : {std::pair{false, ScaleMode::tensor}, std::pair{true, ScaleMode::tensor},
                               std::pair{false, ScaleMode::block}})
      for (InputTypes t : eight) v.push_back(InputTypes(t.a, t.b, fast, scale));
    return v;
  }();
  auto named = [](std::string const& s) {
    return std::find_if(known.begin(), known.end(), [&](InputTypes const& t) { return t.name() == s; });
  };
  std::vector<harness::InputTypes> out;
  for (auto const& s : name_list(opt, text)) {
    auto const it = named(s);
    if (it == known.end()) {
      // The two likely mistakes, said as such: block scales with the fast mode, or on wide inputs.
      auto strip = [](std::string t, std::string const& suffix) {
        if (std::size_t const at = t.find(suffix); at != std::string::npos) t.erase(at, suffix.size());
        return t;
      };
      std::string const base = strip(strip(s, "-block"), "-fast");
      if (base != s && named(base) != known.end()) {
        if (s.find("-block") != std::string::npos && s.find("-fast") != std::string::npos)
          throw UsageError(opt + ": \"" + s + "\": block scales need the promoted accumulation (each 128 of K's "
                           "partial sum is scaled as it is promoted to fp32), which -fast leaves out; name " + base +
                           "-block or " + base + "-fast");
        if (s.find("-block") != std::string::npos && !is_8bit(named(base)->a))
          throw UsageError(opt + ": \"" + s + "\": block scales are for 8-bit inputs (e4m3, e5m2, e4m3xe5m2, "
                           "e5m2xe4m3), not " + base);
      }
      std::string names;
      for (auto const& t : known) names += (names.empty() ? "" : ", ") + t.name();
      throw UsageError(opt + ": unknown dtype \"" + s + "\" (known: " + names + ")");
    }
    if (std::find(out.begin(), out.end(), *it) == out.end()) out.push_back(*it);
  }
  return out;
}

std::vector<std::string> layout_list(std::string const& opt, std::string const& text) {
  std::vector<std::string> out = name_list(opt, text);
  for (auto const& s : out) {
    Problem tmp;
    if (!parse_layout(s, &tmp))
      throw UsageError(opt + ": bad layout \"" + s + "\": expected three letters c or r, the orders of A, B, C");
  }
  return out;
}

std::uint64_t unsigned_value(std::string const& opt, std::string const& text, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  bool ok = !text.empty() && text.size() <= 20;
  for (char c : text) ok = ok && c >= '0' && c <= '9';
  if (ok) {
    auto const r = std::from_chars(text.data(), text.data() + text.size(), v);
    ok = r.ec == std::errc() && r.ptr == text.data() + text.size() && v >= lo && v <= hi;
  }
  if (!ok)
    throw UsageError(opt + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], found \"" + text + "\"");
  return v;
}

std::pair<std::uint64_t, std::uint64_t> shard_value(std::string const& text) {
  std::size_t const slash = text.find('/');
  // Digits only on either side (no sign, no spaces), each within what unsigned_value takes.
  auto whole = [](std::string const& t, std::uint64_t* v) {
    if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos) return false;
    return std::from_chars(t.data(), t.data() + t.size(), *v).ec == std::errc();
  };
  std::uint64_t i = 0, n = 0;
  if (slash == std::string::npos || !whole(text.substr(0, slash), &i) || !whole(text.substr(slash + 1), &n) || i >= n)
    throw UsageError("--shard: expected I/N, whole numbers with 0 <= I < N (e.g. 0/4), found \"" + text + "\"");
  return {i, n};
}

int compute_capability(std::string const& s) {
  int major = 0, minor = 0;
  char extra = 0;
  if (std::sscanf(s.c_str(), "%d.%d%c", &major, &minor, &extra) == 2 && major > 0 && major < 100 && minor >= 0 &&
      minor < 10 && s.find_first_not_of("0123456789.") == std::string::npos)
    return major * 10 + minor;
  if (!s.empty() && s.size() <= 3 && s.find_first_not_of("0123456789") == std::string::npos && std::stoi(s) >= 10)
    return std::stoi(s);
  throw UsageError("--compute-capability: expected e.g. 90 or 9.0, found \"" + s + "\"");
}

void check_argv(int argc, char** argv, std::initializer_list<char const*> flags) {
  for (int i = 1; i < argc; ++i) {
    std::string_view const a = argv[i];
    for (char const* flag : flags) {
      std::string const with_value = std::string(flag) + "=";
      if (a.rfind(with_value, 0) == 0)
        throw UsageError(std::string(flag) + " takes no value, found \"" + std::string(a) + "\"");
    }
    // CLI11 names an option of no group "" in its errors: a missing value is caught here.
    if (a == "--inject-fault=" || (a == "--inject-fault" && (i + 1 == argc || argv[i + 1][0] == '-')))
      throw UsageError("--inject-fault: expected hang, trap or illegal-address, found no value");
  }
}

// ---------------------------------------------------------------------------------------------

void alone(CLI::App const& app, std::string const& flag) {
  for (CLI::Option const* o : app.get_options()) {
    if (o->count() == 0) continue;
    std::string const name = o->get_name();
    if (name != flag) throw UsageError(flag + " lists every kernel and takes no other option, found " + name);
  }
}

void KernelOptions::add(CLI::App& app, Tool tool) {
  kernels_opt = app.add_option("--kernels", kernels_text,
                               tool == Tool::bench ? "Kernels or shell globs to time, e.g. 'sm*' (default: all; see --list)"
                                                   : "Comma list of kernels or shell globs, e.g. 'sm*' (default: all registered)");
  ignore_opt = app.add_option("--ignore-kernels", ignore_text, "Comma list of kernels or shell globs to leave out");
}

void KernelOptions::parse() {
  if (kernels_opt->count()) patterns = name_list("--kernels", kernels_text);
  if (ignore_opt->count()) ignore = name_list("--ignore-kernels", ignore_text);
  one_by_one = !patterns.empty() &&
               std::none_of(patterns.begin(), patterns.end(), [](std::string const& q) { return harness::is_glob(q); });
  try {
    selected = harness::select_kernels(patterns, ignore);
  } catch (std::invalid_argument const& e) {
    throw UsageError(e.what());
  }
  if (selected.empty()) throw UsageError(ignore.empty() ? "no kernels registered" : "--ignore-kernels leaves no kernel");
}

void ProblemOptions::add(CLI::App& app, Tool tool) {
  bool const bench = tool == Tool::bench;
  dtypes_opt = app.add_option(
      "--dtypes", dtypes_text,
      "Input types: comma list of f32, f16, bf16, e4m3, e5m2, and the 8-bit pairs of A's and B's e4m3xe5m2, "
      "e5m2xe4m3, each 8-bit one also with -fast (fast accumulation: partial sums not promoted to fp32) or "
      "-block (block scales, as --scale=block) (gemm; k-major A and B, layouts rc?) (default: f32, f16, bf16)");
  out_dtypes_opt = app.add_option(
      "--out-dtypes", out_dtypes_text,
      "gemm: comma list of output dtypes (D and C); f16/bf16 inputs take their own or f32, 8-bit inputs bf16, "
      "f16 or f32 (default: the input dtype; bf16 for 8-bit inputs)");
  layouts_opt = app.add_option("--layouts", layouts_text,
                               "Storage orders of A, B and C/D, c or r each, e.g. ccc,rcr (default: " +
                                   std::string(bench ? "ccc" : "all eight") + ")");
  m_opt = app.add_option("--m", m_text,
                         bench ? "M (default: 2048:16384 in powers of 2 for add, 1024:8192 for gemm)"
                               : "M sweep (default: the default sweep's)");
  n_opt = app.add_option("--n", n_text, "N (default: N = M when --m is given)");
  k_opt = app.add_option("--k", k_text, "K, gemm only (default: K = M when --m is given)");
  alpha_opt = app.add_option("--alpha", alpha_text, "alpha list (default: 1)");
  beta_opt = app.add_option("--beta", beta_text,
                            bench ? "beta list (default: 1 for add, so that B is read; 0 for gemm)" : "beta list");
  scale_opt = app.add_option(
      "--scale", scale_text,
      "Scaling of 8-bit inputs, a comma list (a case of each): tensor (one fp32 scale each for A and B), block "
      "(DeepSeek-V3's: one fp32 scale per row of A and 128 of K, and per 128x128 block of B; the promoted "
      "accumulation only, so no -fast input), scales drawn from the case's seed; inputs named -block are block "
      "whatever it says (default: tensor)");
}

void ProblemOptions::parse() {
  if (dtypes_opt->count()) dtypes = input_types_list("--dtypes", dtypes_text);
  if (out_dtypes_opt->count()) out_dtypes = dtype_list("--out-dtypes", out_dtypes_text);
  if (layouts_opt->count()) layouts = layout_list("--layouts", layouts_text);
  if (m_opt->count()) m = size_list("--m", m_text);
  if (n_opt->count()) n = size_list("--n", n_text);
  if (k_opt->count()) k = size_list("--k", k_text);
  if (alpha_opt->count()) alpha = real_list("--alpha", alpha_text);
  if (beta_opt->count()) beta = real_list("--beta", beta_text);
  if (scale_opt->count()) {
    std::vector<ScaleMode> modes;
    for (std::string const& s : name_list("--scale", scale_text)) {
      ScaleMode m;
      if (s == "tensor") m = ScaleMode::tensor;
      else if (s == "block") m = ScaleMode::block;
      else throw UsageError("--scale is tensor or block (or a comma list of both), found \"" + s + "\"");
      if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
    }
    // A scaling that applies to no input would be ignored: it is for 8-bit inputs named without
    // -block (those named with it are block whatever it says).
    if (!dtypes || std::none_of(dtypes->begin(), dtypes->end(), [](harness::InputTypes t) { return is_8bit(t.a); }))
      throw UsageError("--scale is for 8-bit inputs, and --dtypes names none (e4m3, e5m2, e4m3xe5m2, e5m2xe4m3)");
    if (std::none_of(dtypes->begin(), dtypes->end(),
                     [](harness::InputTypes t) { return is_8bit(t.a) && t.scale != ScaleMode::block; }))
      throw UsageError("--scale is for 8-bit inputs named without -block, and --dtypes names only -block ones "
                       "(block whatever --scale says)");
    if (std::find(modes.begin(), modes.end(), ScaleMode::block) != modes.end())
      for (harness::InputTypes t : *dtypes)
        if (is_8bit(t.a) && t.fast)
          throw UsageError("--scale=block does not go with " + t.name() +
                           ": block scales need the promoted accumulation (each 128 of K's partial sum is scaled as "
                           "it is promoted to fp32), which the fast mode leaves out; name " +
                           harness::InputTypes(t.a, t.b).name() + " instead");
    scales = std::move(modes);
  }
}

void check_out_dtypes(std::vector<DType> const& out_dtypes, std::vector<harness::SweepSpec> const& specs) {
  if (out_dtypes.empty()) return;
  std::vector<harness::InputTypes> inputs;  // the f16, bf16 and 8-bit inputs of the sweep's gemm cases
  for (harness::SweepSpec const& spec : specs) {
    if (spec.op != OpKind::gemm) continue;
    for (harness::InputTypes t : spec.dtypes)
      for (std::string const& name : spec.kernels) {
        KernelInfo const* k = find_kernel(name);  // harness::expand refuses an unknown one
        if (!k) continue;
        auto has = [&](DType d) { return std::find(k->dtypes.begin(), k->dtypes.end(), d) != k->dtypes.end(); };
        if (t.a != DType::f32 && k->op == OpKind::gemm && has(t.a) && has(t.b) &&
            std::find(inputs.begin(), inputs.end(), t) == inputs.end())
          inputs.push_back(t);
      }
  }
  if (inputs.empty()) throw UsageError("--out-dtypes is for gemm with f16, bf16 or 8-bit inputs, and the sweep has none");
  std::string names;
  for (harness::InputTypes t : inputs) {
    std::string outs;
    for (DType o : {DType::bf16, DType::f16, DType::f32})
      if (harness::takes_output(OpKind::gemm, t, o)) outs += (outs.empty() ? "" : " or ") + std::string(to_string(o));
    names += (names.empty() ? "" : "; ") + t.name() + ": " + outs;
  }
  for (DType o : out_dtypes)
    if (std::none_of(inputs.begin(), inputs.end(),
                     [&](harness::InputTypes t) { return harness::takes_output(OpKind::gemm, t, o); }))
      throw UsageError(std::string("--out-dtypes: ") + to_string(o) + " is no output of the sweep's gemm inputs (" +
                       names + ")");
}

void SweepOptions::add(CLI::App& app, Tool tool) {
  std::string help = "A named gemm sweep instead of the default one (harness/named_sweeps.hpp): ";
  for (auto const& s : harness::named_sweeps()) {
    if (tool == Tool::validate && !s.validate) continue;
    std::string ms;
    for (auto m : s.m)
      if (tool == Tool::bench || m <= 1024) ms += (ms.empty() ? "" : ",") + std::to_string(m);
    help += std::string(s.name) + " (" + s.about + "; M in " + ms + ", " + std::to_string(s.nk.size()) + " (N, K) pairs";
    if (tool == Tool::bench) {
      std::string ls;
      for (auto const& l : s.bench_layouts) ls += (ls.empty() ? "" : ",") + l;
      help += "; bf16 and f16; " + ls;
    }
    help += "), ";
  }
  help += tool == Tool::bench
              ? "--kernels picks kernels from it; --dtypes, --layouts, --m, --alpha and --beta replace its lists"
              : "each every layout, bf16/f16 and alpha/beta 1/0 or 1.5/0.5 alternating; NAME-ragged: the same with "
                "M, N and K each off by 1 to 7";
  opt = app.add_option("--sweep", text, help);
}

void SweepOptions::parse(Tool tool, ProblemOptions const& problem) {
  if (!opt->count()) return;
  bool const validate = tool == Tool::validate;
  sweep = harness::find_named_sweep(text, validate, &ragged);
  if (!sweep)
    throw UsageError("--sweep: unknown sweep \"" + text + "\" (known: " + harness::named_sweep_list(validate) + ")");
  // The (N, K) pairs are what the sweep is; a different N or K is another, custom sweep.
  if (problem.n || problem.k)
    throw UsageError("--sweep=" + text + " sets N and K (its (N, K) pairs); --n and --k do not go with it");
}

namespace {
// --card's GPUs: SMs, the highest SM clock, the memory clock and bus width as the driver reports
// them (cudaDeviceGetAttribute). h100-sxm and h200 as the device tool's cards reported them
// (2026-11-26); h100-pcie from NVIDIA's published figures (114 SMs, 1755 MHz, 2.0 TB/s of HBM2e).
// The clusters resident as cudaOccupancyMaxActiveClusters gave them on the device tool's cards:
// every size on an H100 SXM (docs/tuning/sm90.md, twentieth round), sizes 1, 2, 4 and 8 on an H200
// (kernels/sm90/fit/data/h200.csv; the others are the SM count over the size); none on an H100 PCIe.
struct NamedCard {
  char const* name;
  PlanTarget target;
};
constexpr NamedCard kCards[] = {{"h100-sxm", {132, 1980000, 2619000, 5120, {132, 66, 39, 30, 22, 17, 15, 15}}},
                                {"h100-pcie", {114, 1755000, 1593000, 5120, {}}},
                                {"h200", {132, 1980000, 3201000, 6016, {132, 66, 0, 30, 0, 0, 0, 15}}}};

std::string card_names() {
  std::string s;
  for (NamedCard const& c : kCards) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}
}  // namespace

PlanTarget DeviceOptions::plan_target() const {
  PlanTarget t = card.value_or(PlanTarget{});
  if (sms) t = PlanTarget{*sms, t.sm_khz, t.mem_khz, t.bus_bits, {}};  // the card's clusters were of its own SMs
  return t;
}

void DeviceOptions::add(CLI::App& app, Tool tool) {
  device_opt = app.add_option("--device", device_text, "CUDA device ordinal (default: 0)");
  app.add_option("--mode", mode,
                 std::string("run (default), or enumerate: list the ") + (tool == Tool::bench ? "benchmarks" : "cases") +
                     " this command would run, and those it leaves out (not_supported, with the reason), without "
                     "running anything (no GPU needed)");
  cc_opt = app.add_option("--compute-capability", cc_text,
                          "enumerate: the GPU to plan for, e.g. 90 or 9.0 (default: GPU --device's, else 90)");
  if (tool == Tool::bench) {
    sms_opt = app.add_option("--sms", sms_text,
                             "enumerate: the multiprocessors of the GPU to plan for, e.g. 114 for an H100 PCIe "
                             "(default: GPU --device's, else 132)");
    card_opt = app.add_option("--card", card_text,
                              "enumerate: the GPU to plan for by name, its SMs, clocks and memory bus (" + card_names() +
                                  "; --sms overrides its SM count, and the clusters it holds are then the SMs over the size) (default: GPU --device's, else h100-sxm)");
  }
}

void DeviceOptions::parse() {
  if (device_opt->count()) device = int(unsigned_value("--device", device_text, 0, 1023));
  if (mode != "run" && mode != "enumerate") throw UsageError("--mode is run or enumerate, found \"" + mode + "\"");
  enumerate = mode == "enumerate";
  if (cc_opt->count()) cc = compute_capability(cc_text);
  if (sms_opt && sms_opt->count()) sms = int(unsigned_value("--sms", sms_text, 1, 1024));
  if (card_opt && card_opt->count()) {
    for (NamedCard const& c : kCards)
      if (card_text == c.name) card = c.target;
    if (!card) throw UsageError("--card: unknown card \"" + card_text + "\" (known: " + card_names() + ")");
  }
}

void RunOptions::add(CLI::App& app, Tool tool) {
  bool const bench = tool == Tool::bench;
  max_cases = bench ? harness::kBenchMaxCases : harness::kValidateMaxCases;
  max_cases_opt = app.add_option("--max-cases", max_cases_text,
                                 "Refuse a sweep of more cases than this (default: " + std::to_string(max_cases) + ")");
  shard_opt = app.add_option(
      "--shard", shard_text,
      std::string("I/N: run only every Nth ") +
          (bench ? "case of the sweep (a case's kernel rows and its cuBLAS and copy baselines stay together)"
                 : "case of the sweep") +
          ", those whose index in the full list (the same in every process) is I modulo N, so that N processes "
          "with --shard=0/N .. N-1/N cover it once between them, e.g. one per GPU with --device=I "
          "(scripts/multi_gpu.sh); --max-cases counts the full sweep; with --mode=enumerate, lists the shard's "
          "(default: 0/1, all)");
  timeout_opt = app.add_option(
      "--timeout", timeout_text,
      std::string("Seconds ") + (bench ? "one run of a benchmark (its warm-up and timed launches)" : "a case") +
          " may take on the GPU; one that takes longer (a hung kernel) stops the run with one line naming it and "
          "exit status 3; 0: no limit (default: 60)");
  // A testing aid, left out of --help (bench/README.md, validate/README.md): the GPU tests of the
  // watchdog and of a lost context launch a kernel that hangs or faults in place of the first launch.
  fault_opt = app.add_option("--inject-fault", fault_text,
                             "Testing aid: hang, trap or illegal-address in place of each case's first launch")
                  ->group("");
  tags_opt = app.add_option("--tags", tags_text,
                            std::string("key:value[,key:value...]: constant fields added to every row (") +
                                (bench ? "its label as key=value, and the JSON context as loom_tag_<key>"
                                       : "csv columns, json keys, JUnit properties, a line of the table") +
                                "), e.g. gpu:h100,commit:abc123");
  // A flag takes no value: --list=2 is an error, not a yes (check_argv).
  app.add_flag("--list", list,
               "List the kernels (name, op, dtypes, minimum compute capability, description) and exit")
      ->disable_flag_override();
}

void RunOptions::parse(std::vector<std::string> const& reserved) {
  if (max_cases_opt->count())
    max_cases = unsigned_value("--max-cases", max_cases_text, 1, std::uint64_t(1) << 62);
  if (shard_opt->count()) std::tie(shard_index, shard_count) = shard_value(shard_text);
  if (timeout_opt->count()) {
    try {
      timeout = harness::parse_timeout(timeout_text);
    } catch (std::invalid_argument const& e) {
      throw UsageError(std::string("--timeout: ") + e.what());
    }
  }
  if (fault_opt->count()) {
    try {
      fault = harness::parse_fault(fault_text);
    } catch (std::invalid_argument const& e) {
      throw UsageError(std::string("--inject-fault: ") + e.what());
    }
  }
  if (tags_opt->count()) {
    try {
      tags = harness::parse_tags(tags_text, reserved);
    } catch (std::invalid_argument const& e) {
      throw UsageError(std::string("--tags: ") + e.what());
    }
  }
}

}  // namespace loom::cli
