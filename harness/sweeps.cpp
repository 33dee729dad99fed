// Sweeps: the CUTLASS-profiler list syntax, --tags, expand() and count_cases().
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

// =============================================================================================
// Sweeps

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_raw(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

[[noreturn]] void bad_item(std::string_view item, std::string_view list, std::string const& why) {
  std::string msg = "bad item \"" + std::string(item) + "\"";
  if (trim(item) != trim(list)) msg += " in \"" + std::string(list) + "\"";
  throw std::invalid_argument(msg + ": " + why);
}

constexpr std::size_t kMaxListSize = 1 << 20;

std::int64_t parse_int(std::string_view tok, std::string_view item, std::string_view list) {
  tok = trim(tok);
  if (tok.empty()) bad_item(item, list, "expected an integer, found nothing");
  std::string_view digits = tok;
  if (digits.front() == '+') digits.remove_prefix(1);  // from_chars takes '-' but not '+'
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range) bad_item(item, list, "integer out of range");
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty())
    bad_item(item, list, "expected an integer, found \"" + std::string(tok) + "\"");
  return v;
}

double parse_real(std::string_view tok, std::string_view item, std::string_view list) {
  tok = trim(tok);
  if (tok.empty()) bad_item(item, list, "expected a number, found nothing");
  std::string_view digits = tok;
  if (digits.front() == '+') digits.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty() || !std::isfinite(v))
    bad_item(item, list, "expected a finite number, found \"" + std::string(tok) + "\"");
  return v;
}

}  // namespace

std::vector<std::int64_t> parse_int_list(std::string_view list) {
  if (trim(list).empty()) throw std::invalid_argument("empty list");
  std::vector<std::int64_t> out;
  for (std::string_view item : split_raw(list, ',')) {
    std::string_view t = trim(item);
    if (t.empty()) bad_item(item, list, "empty item");
    auto parts = split_raw(t, ':');
    if (parts.size() == 1) {
      out.push_back(parse_int(parts[0], t, list));
    } else if (parts.size() <= 3) {
      std::int64_t const lo = parse_int(parts[0], t, list), hi = parse_int(parts[1], t, list);
      std::int64_t const step = parts.size() == 3 ? parse_int(parts[2], t, list) : 1;
      if (step <= 0) bad_item(t, list, "the step must be positive");
      if (hi < lo) bad_item(t, list, "the end is smaller than the start");
      if ((hi - lo) / step + 1 + out.size() > kMaxListSize) bad_item(t, list, "too many values");
      for (std::int64_t v = lo;; v += step) {
        out.push_back(v);
        if (hi - v < step) break;  // no overflow past hi
      }
    } else {
      bad_item(t, list, "expected N, START:END or START:END:STEP");
    }
    if (out.size() > kMaxListSize) bad_item(t, list, "too many values");
  }
  return out;
}

std::vector<double> parse_real_list(std::string_view list) {
  if (trim(list).empty()) throw std::invalid_argument("empty list");
  std::vector<double> out;
  for (std::string_view item : split_raw(list, ',')) {
    std::string_view t = trim(item);
    if (t.empty()) bad_item(item, list, "empty item");
    auto parts = split_raw(t, ':');
    if (parts.size() == 1) {
      out.push_back(parse_real(parts[0], t, list));
    } else if (parts.size() <= 3) {
      double const lo = parse_real(parts[0], t, list), hi = parse_real(parts[1], t, list);
      double const step = parts.size() == 3 ? parse_real(parts[2], t, list) : 1.0;
      if (!(step > 0)) bad_item(t, list, "the step must be positive");
      if (hi < lo) bad_item(t, list, "the end is smaller than the start");
      double const count = std::floor((hi - lo) / step + 1e-9) + 1;
      if (count + double(out.size()) > double(kMaxListSize)) bad_item(t, list, "too many values");
      for (std::int64_t i = 0; i < std::int64_t(count); ++i) out.push_back(lo + double(i) * step);
    } else {
      bad_item(t, list, "expected X, START:END or START:END:STEP");
    }
  }
  return out;
}

std::vector<std::string> split_list(std::string_view list) {
  if (trim(list).empty()) throw std::invalid_argument("empty list");
  std::vector<std::string> out;
  for (std::string_view item : split_raw(list, ',')) {
    std::string_view t = trim(item);
    if (t.empty()) bad_item(item, list, "empty item");
    out.emplace_back(t);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_tags(std::string_view text,
                                                            std::vector<std::string> const& reserved) {
  std::vector<std::pair<std::string, std::string>> tags;
  for (std::string const& item : split_list(text)) {
    std::size_t const colon = item.find(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("\"" + item + "\" is not key:value (tags are separated by commas, so a value cannot hold one)");
    std::string const key(trim(std::string_view(item).substr(0, colon)));
    std::string const value(trim(std::string_view(item).substr(colon + 1)));
    if (key.empty()) throw std::invalid_argument("\"" + item + "\" has an empty key");
    for (char c : key)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
        throw std::invalid_argument("key \"" + key + "\" may hold only letters, digits, '_', '.' and '-'");
    if (value.empty()) throw std::invalid_argument("\"" + item + "\" has an empty value");
    for (char c : value) {
      if (c == '\n' || c == '\r') throw std::invalid_argument("the value of \"" + key + "\" holds a line break");
      if (c == ';') throw std::invalid_argument("the value of \"" + key + "\" holds ';'");
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        throw std::invalid_argument("the value of \"" + key + "\" holds a control character");
    }
    if (std::find(reserved.begin(), reserved.end(), key) != reserved.end())
      throw std::invalid_argument("key \"" + key + "\" is one of the report's own fields");
    for (auto const& t : tags)
      if (t.first == key) throw std::invalid_argument("key \"" + key + "\" is given twice");
    tags.emplace_back(key, value);
  }
  return tags;
}

std::string InputTypes::name() const {
  std::string s = a == b ? std::string(to_string(a)) : std::string(to_string(a)) + "x" + to_string(b);
  if (fast && is_8bit(a)) s += "-fast";
  if (scale == ScaleMode::block && is_8bit(a)) s += "-block";
  return s;
}

bool takes_output(OpKind op, InputTypes in, DType out) {
  if (op == OpKind::add || in.a == DType::f32) return out == in.a;
  if (is_8bit(in.a)) return out == DType::bf16 || out == DType::f16 || out == DType::f32;
  return out == in.a || out == DType::f32;
}

DType default_output(InputTypes in) { return is_8bit(in.a) ? DType::bf16 : in.a; }

namespace {

// Whether kernel k takes inputs t: both types among its dtypes.
bool kernel_takes(KernelInfo const& k, InputTypes t) {
  auto has = [&](DType d) { return std::find(k.dtypes.begin(), k.dtypes.end(), d) != k.dtypes.end(); };
  return has(t.a) && has(t.b);
}

// The inputs of sweep s with their scaling (SweepSpec::scales), in the order of s.dtypes, each
// 8-bit one named without "-block" once per mode of s.scales, "-fast" ones never with block scales;
// a pair two inputs give alike once.
std::vector<InputTypes> scaled_inputs(SweepSpec const& s) {
  std::vector<ScaleMode> const modes = s.scales.empty() ? std::vector<ScaleMode>{ScaleMode::tensor} : s.scales;
  std::vector<InputTypes> out;
  auto add = [&out](InputTypes t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  for (InputTypes t : s.dtypes) {
    if (!is_8bit(t.a)) {
      t.fast = false, t.scale = ScaleMode::tensor;
      add(t);
    } else if (t.scale == ScaleMode::block) {
      if (!t.fast) add(t);
    } else {
      for (ScaleMode m : modes)
        if (m == ScaleMode::tensor || !t.fast) add(InputTypes(t.a, t.b, t.fast, m));
    }
  }
  return out;
}

// The output dtypes of inputs t in sweep s, in the order of s.out_dtypes (add and f32 gemm: their
// input dtype, whatever s.out_dtypes holds).
std::vector<DType> outputs(SweepSpec const& s, InputTypes t) {
  if (s.op != OpKind::gemm || t.a == DType::f32) return {t.a};
  if (s.out_dtypes.empty()) return {default_output(t)};
  std::vector<DType> out;
  for (DType o : s.out_dtypes)
    if (takes_output(s.op, t, o)) out.push_back(o);
  return out;
}

}  // namespace

std::vector<Case> expand(SweepSpec const& s) {
  std::vector<KernelInfo const*> ks;
  for (auto const& name : s.kernels) {
    KernelInfo const* k = find_kernel(name);
    if (!k) throw std::invalid_argument("unknown kernel \"" + name + "\"");
    if (k->op == s.op) ks.push_back(k);
  }
  std::vector<Problem> layouts;
  for (auto const& l : s.layouts) {
    Problem p;
    if (!parse_layout(l, &p))
      throw std::invalid_argument("bad layout \"" + l + "\": expected three of 'c' or 'r' (A, B, C)");
    layouts.push_back(p);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> mn = s.mn_pairs;
  if (mn.empty())
    for (auto m : s.m)
      for (auto n : s.n) mn.emplace_back(m, n);
  std::vector<std::int64_t> ks_dim = s.op == OpKind::add || s.k_follows_m ? std::vector<std::int64_t>{0} : s.k;
  std::vector<std::pair<double, double>> ab = s.ab_pairs;
  if (ab.empty())
    for (auto a : s.alpha)
      for (auto b : s.beta) ab.emplace_back(a, b);

  std::vector<InputTypes> const inputs = scaled_inputs(s);
  std::vector<Case> out;
  for (KernelInfo const* k : ks)
    for (InputTypes t : inputs)
    for (DType o : outputs(s, t)) {
      if (!kernel_takes(*k, t)) continue;
      for (Problem const& l : layouts)
        for (auto [m, n] : mn)
          for (std::int64_t kk : ks_dim)
            for (auto [alpha, beta] : ab)
              for (std::int64_t pad : s.ld_pad)
                for (int mis : s.misalign) {
                  Problem p;
                  p.op = s.op;
                  p.dtype = t.a;
                  if (t.b != t.a) p.b_dtype = t.b;
                  p.fast_accum = t.fast && is_8bit(t.a);
                  p.scale = t.scale;  // tensor but for 8-bit inputs (scaled_inputs)
                  p.out_dtype = o;
                  p.m = m;
                  p.n = n;
                  p.k = s.op == OpKind::gemm && s.k_follows_m ? m : kk;
                  p.a = l.a;
                  p.b = l.b;
                  p.c = l.c;
                  p.alpha = alpha;
                  p.beta = beta;
                  p.lda = min_ld(p.a, rows_a(p), cols_a(p)) + pad;
                  p.ldb = min_ld(p.b, rows_b(p), cols_b(p)) + pad;
                  p.ldc = min_ld(p.c, p.m, p.n) + pad;
                  out.push_back(Case{k, p, mis});
                }
    }
  return out;
}

std::uint64_t count_cases(SweepSpec const& s) {
  using u128 = unsigned __int128;
  u128 const cap = ~std::uint64_t(0);
  auto mul = [&](u128 a, u128 b) { return a > 0 && b > cap / a ? cap : a * b; };
  u128 per_dims = 0;  // (kernel, dtype, out dtype) triples, as expand's outer loops take them
  std::vector<InputTypes> const inputs = scaled_inputs(s);
  for (auto const& name : s.kernels) {
    KernelInfo const* k = find_kernel(name);
    if (!k) throw std::invalid_argument("unknown kernel \"" + name + "\"");
    if (k->op != s.op) continue;
    for (InputTypes t : inputs)
      if (kernel_takes(*k, t)) per_dims += outputs(s, t).size();
  }
  u128 n = per_dims;
  n = mul(n, s.layouts.size());
  n = mul(n, s.mn_pairs.empty() ? mul(s.m.size(), s.n.size()) : u128(s.mn_pairs.size()));
  n = mul(n, s.op == OpKind::add || s.k_follows_m ? 1 : s.k.size());
  n = mul(n, s.ab_pairs.empty() ? mul(s.alpha.size(), s.beta.size()) : u128(s.ab_pairs.size()));
  n = mul(n, s.ld_pad.size());
  n = mul(n, s.misalign.size());
  return n > cap ? std::uint64_t(cap) : std::uint64_t(n);
}

}  // namespace loom::harness
