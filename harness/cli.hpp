// The command line loom-validate and loom-bench share: the options both declare, with the same
// name, meaning and checks, their list parsers and their one error type. Options is made of
// sub-structs, each with its own add() (declares its options on a CLI11 app) and parse() (checks
// every value given and fills the typed fields), so that a tool takes the groups it has and
// declares its own options beside them. Every check here runs before a tool looks for a GPU.
//
// Errors: UsageError, whose message a tool prints as one line (one_line) after "<tool>: ", with
// exit status 2.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/fault.hpp"
#include "harness/harness.hpp"
#include "harness/watchdog.hpp"

namespace loom::cli {

// A bad command line.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The message as one line: line breaks become "; ", other control characters \xNN, and past 400
// characters (a huge option value quoted back) it is cut.
std::string one_line(std::string const& msg);

// List parsers (CUTLASS-profiler syntax: harness::parse_int_list), each error naming the option.
// Integers of at least `min` (`what` says why, e.g. "sizes must be positive").
std::vector<std::int64_t> int_list(std::string const& opt, std::string const& text, std::int64_t min,
                                   std::string const& what);
// Sizes: positive integers.
std::vector<std::int64_t> size_list(std::string const& opt, std::string const& text);
std::vector<double> real_list(std::string const& opt, std::string const& text);
std::vector<std::string> name_list(std::string const& opt, std::string const& text);
// f32, f16, bf16: the names the reports print, and no others, repeated ones once (output dtypes).
std::vector<DType> dtype_list(std::string const& opt, std::string const& text);
// Input types (--dtypes): f32, f16, bf16, e4m3, e5m2, and the 8-bit pairs of A's and B's types
// e4m3xe5m2 and e5m2xe4m3, each 8-bit one also with "-fast" (the fast accumulation mode) or
// "-block" (block scales), as the reports print them, repeated ones once. Both suffixes at once
// ("e4m3-fast-block"), or either after a 16- or 32-bit type, are refused saying why.
std::vector<harness::InputTypes> input_types_list(std::string const& opt, std::string const& text);
// Three letters c or r each (A, B, C/D).
std::vector<std::string> layout_list(std::string const& opt, std::string const& text);
// An integer in [lo, hi]: digits only, no sign, no wrap-around.
std::uint64_t unsigned_value(std::string const& opt, std::string const& text, std::uint64_t lo, std::uint64_t hi);
// "90" or "9.0" -> 90.
int compute_capability(std::string const& text);
// A flag given a value (--list=2) or an option missing its value that CLI11 would misname: throws
// before CLI11 parses.
void check_argv(int argc, char** argv, std::initializer_list<char const*> flags);
// A listing flag (--list) that prints the same text whatever else is given: throws naming the first
// other option given, since its value would be ignored unchecked.
void alone(CLI::App const& app, std::string const& flag);

enum class Tool { validate, bench };

// --kernels, --ignore-kernels
struct KernelOptions {
  std::string kernels_text, ignore_text;
  CLI::Option *kernels_opt = nullptr, *ignore_opt = nullptr;
  std::vector<std::string> patterns, ignore;  // parsed
  std::vector<KernelInfo const*> selected;    // registry order
  bool one_by_one = false;                    // --kernels names kernels, no glob among them

  void add(CLI::App&, Tool);
  void parse();
};

// --dtypes, --out-dtypes, --layouts, --m, --n, --k, --alpha, --beta: each set when given. --scale:
// the 8-bit inputs' scaling, an axis (harness::SweepSpec::scales, a case per mode): a comma list of
// tensor (per-tensor fp32 scales, the default) and block (per row of A and 128 of K, per 128 x 128
// block of B); given, --dtypes must name 8-bit inputs, some of them without "-block" (which are
// block whatever --scale says), and with block none of them "-fast" (the fast accumulation mode
// has no block scales). --out-dtypes is checked against the sweep once the tool has built it
// (check_out_dtypes).
struct ProblemOptions {
  std::string dtypes_text, out_dtypes_text, layouts_text, m_text, n_text, k_text, alpha_text, beta_text, scale_text;
  CLI::Option *dtypes_opt = nullptr, *out_dtypes_opt = nullptr, *layouts_opt = nullptr, *m_opt = nullptr,
              *n_opt = nullptr, *k_opt = nullptr, *alpha_opt = nullptr, *beta_opt = nullptr, *scale_opt = nullptr;
  std::optional<std::vector<harness::InputTypes>> dtypes;
  std::optional<std::vector<DType>> out_dtypes;  // gemm's D and C (harness::SweepSpec::out_dtypes)
  std::optional<std::vector<std::string>> layouts;
  std::optional<std::vector<std::int64_t>> m, n, k;
  std::optional<std::vector<double>> alpha, beta;
  std::optional<std::vector<ScaleMode>> scales;  // --scale, repeated ones once (harness::SweepSpec::scales)

  void add(CLI::App&, Tool);
  void parse();
  // Any of the sweep's lists given (loom-bench: a custom sweep instead of the default one).
  // --out-dtypes is not one: it sets the output types of whatever sweep runs, the default one too.
  bool any() const { return dtypes || layouts || m || n || k || alpha || beta; }
};

// --out-dtypes against the sweep the tool built from the command line: each value must be an
// output (harness::takes_output) of some f16, bf16 or 8-bit input of its gemm cases, since a value
// that fits none would be ignored; throws UsageError naming the inputs and the outputs they take.
void check_out_dtypes(std::vector<DType> const& out_dtypes, std::vector<harness::SweepSpec> const& specs);

// --sweep=NAME (harness/named_sweeps.hpp): the tool's names only; --n and --k do not go with it.
struct SweepOptions {
  std::string text;
  CLI::Option* opt = nullptr;
  harness::NamedSweep const* sweep = nullptr;  // set when given
  bool ragged = false;                         // loom-validate's NAME-ragged

  void add(CLI::App&, Tool);
  void parse(Tool, ProblemOptions const&);
};

// --device, --mode, --compute-capability
struct DeviceOptions {
  std::string device_text, mode = "run", cc_text;
  CLI::Option *device_opt = nullptr, *cc_opt = nullptr;
  int device = 0;
  bool enumerate = false;
  std::optional<int> cc;  // --compute-capability
  std::string sms_text, card_text;
  CLI::Option *sms_opt = nullptr, *card_opt = nullptr;
  std::optional<int> sms;  // --sms (loom-bench only)
  // --card (loom-bench only): a named GPU's SMs, clocks and bus, then --sms over its SM count.
  std::optional<PlanTarget> card;
  // What --mode=enumerate plans for: --card's, --sms over it; zero fields: the GPU's.
  PlanTarget plan_target() const;

  void add(CLI::App&, Tool);
  void parse();
};

// --shard's value: "I/N" -> {I, N}, whole numbers with 0 <= I < N; throws UsageError naming --shard.
std::pair<std::uint64_t, std::uint64_t> shard_value(std::string const& text);

// --max-cases, --shard, --timeout, --inject-fault, --tags, --list
struct RunOptions {
  std::string max_cases_text, shard_text, timeout_text, fault_text, tags_text;
  CLI::Option *max_cases_opt = nullptr, *shard_opt = nullptr, *timeout_opt = nullptr, *fault_opt = nullptr,
              *tags_opt = nullptr;
  std::uint64_t max_cases = 0;  // the tool's default until parse()
  // --shard=I/N: the tool keeps the cases whose index in its full list (the same list in every
  // process) is I modulo N, so that N processes, one per GPU, cover the sweep once between them.
  std::uint64_t shard_index = 0, shard_count = 1;
  bool in_shard(std::uint64_t index) const { return index % shard_count == shard_index; }
  std::string shard() const { return std::to_string(shard_index) + "/" + std::to_string(shard_count); }
  double timeout = harness::kDefaultCaseTimeout;
  harness::Fault fault = harness::Fault::none;
  std::vector<std::pair<std::string, std::string>> tags;
  bool list = false;

  void add(CLI::App&, Tool);
  // `reserved`: the report's own fields, which a tag may not be named after.
  void parse(std::vector<std::string> const& reserved);
};

// The 21 options both tools declare.
struct Options {
  KernelOptions kernels;
  ProblemOptions problem;
  SweepOptions sweep;
  DeviceOptions device;
  RunOptions run;

  void add(CLI::App& app, Tool tool) {
    kernels.add(app, tool);
    problem.add(app, tool);
    sweep.add(app, tool);
    device.add(app, tool);
    run.add(app, tool);
  }
  // Every value checked, in the order of --help's groups; throws UsageError.
  void parse(Tool tool, std::vector<std::string> const& reserved_tags) {
    kernels.parse();
    problem.parse();
    sweep.parse(tool, problem);
    device.parse();
    run.parse(reserved_tags);
  }
};

}  // namespace loom::cli
