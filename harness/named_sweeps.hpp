// The named gemm sweeps of loom-bench and loom-validate (--sweep=NAME), defined once: the shapes of
// transformer layers. M is the tokens in flight, from one (decoding) to a long prefill; (N, K) are
// a model's projections, each both ways where the model has both (up: N large; down: K large).
// Decoding (M <= 16) is bound by reading B, the rest by the tensor cores: one sweep covers both
// regimes.
//
// loom-bench times each sweep's M list over its (N, K) pairs in bf16 and f16, in its layouts.
// loom-validate checks each sweep's M values up to 1024 (the larger M take the big-tile path that
// the default sweeps' shapes already take) over the same (N, K) pairs in every layout, and its
// NAME-ragged form with M, N and K each off by 1 to 7 (harness::llm_validate_sweep).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loom::harness {

struct NamedSweep {
  char const* name;
  std::vector<std::int64_t> m;                                 // loom-bench's M list
  std::vector<std::pair<std::int64_t, std::int64_t>> nk;       // (N, K) pairs
  std::vector<std::string> bench_layouts;                      // loom-bench's layouts
  bool validate = true;  // loom-validate has NAME and NAME-ragged
  char const* about;     // one phrase for --help
};

// Attention and output projections of a 4096-wide model, the MLP projections of 4096-wide models
// (11008, 14336 wide) and of an 8192-wide one (28672).
inline std::vector<std::pair<std::int64_t, std::int64_t>> const kLlmNk = {
    {4096, 4096}, {11008, 4096}, {4096, 11008}, {14336, 4096}, {4096, 14336}, {28672, 8192}, {8192, 28672}};
// Llama-3-8B (fused QKV 6144x4096, fused gate/up 28672x4096), Llama-3-70B (fused QKV 10240x8192,
// output 8192x8192, fused gate/up 57344x8192), Qwen2.5-7B (fused QKV 4608x3584, output 3584x3584,
// fused gate/up 37888x3584, down 3584x18944).
inline std::vector<std::pair<std::int64_t, std::int64_t>> const kLlmWideNk = {
    {6144, 4096}, {28672, 4096}, {10240, 8192}, {8192, 8192}, {57344, 8192},
    {4608, 3584}, {3584, 3584}, {37888, 3584}, {3584, 18944}};

// llm: rcr, a linear layer's y = x W^T with x row-major and W stored one output feature per row
// (B = W^T column-major). llm-layouts: ccc and crr at a short, a medium and a long M, the same as
// --sweep=llm --layouts=ccc,crr --m=128,1024,8192. llm-wide: more models' projections, at M between
// llm's (and 6144).
inline std::vector<NamedSweep> const& named_sweeps() {
  static std::vector<NamedSweep> const s = {
      {"llm", {1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192}, kLlmNk, {"rcr"}, true,
       "transformer-layer shapes of 4096- and 8192-wide models"},
      {"llm-layouts", {128, 1024, 8192}, kLlmNk, {"ccc", "crr"}, false, "llm's shapes at three M, ccc and crr"},
      {"llm-wide", {1, 4, 32, 96, 160, 384, 640, 1536, 2560, 6144}, kLlmWideNk, {"rcr"}, true,
       "the projections of Llama-3-8B, Llama-3-70B and Qwen2.5-7B"},
  };
  return s;
}

// The sweep named `name` (loom-validate: also NAME-ragged, with *ragged set), or nullptr.
inline NamedSweep const* find_named_sweep(std::string const& name, bool for_validate, bool* ragged = nullptr) {
  for (NamedSweep const& s : named_sweeps()) {
    if (name == s.name && (!for_validate || s.validate)) {
      if (ragged) *ragged = false;
      return &s;
    }
    if (for_validate && s.validate && name == std::string(s.name) + "-ragged") {
      if (ragged) *ragged = true;
      return &s;
    }
  }
  return nullptr;
}

// "llm, llm-layouts, llm-wide" (loom-bench) or "llm, llm-ragged, llm-wide, llm-wide-ragged".
inline std::string named_sweep_list(bool for_validate) {
  std::string out;
  for (NamedSweep const& s : named_sweeps()) {
    if (for_validate && !s.validate) continue;
    out += (out.empty() ? "" : ", ") + std::string(s.name);
    if (for_validate) out += ", " + std::string(s.name) + "-ragged";
  }
  return out;
}

}  // namespace loom::harness
