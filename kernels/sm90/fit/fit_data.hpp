// The plan model's fit data and its score (host code, plain C++): timings of forced plans on real
// cards (kernels/sm90/fit/data/*.csv, written by collect.py from `loom-bench --plans` runs), read
// back and set against the model (kernels/sm90/plan.hpp). loom-sm90-fit fits the model's
// parameters on them; test Sm90Fit checks the committed parameters against them.
//
// The score of a machine (its parameters) on the data, per group of timings of one problem on one
// card:
// - regret: how much slower the plan the model picks among the timed ones it offers measured than
//   the fastest of those (0: it picks the fastest);
// - log error: log(estimate / measured) of every timing, whose rms says how far the estimates are
//   from the times themselves.
#pragma once

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/sm90/plan.hpp"

namespace loom::sm90::fit {

struct Timing {
  std::string card;  // the card's name, e.g. "NVIDIA H100 80GB HBM3"
  Card facts;
  PlanInput in;
  Plan plan;
  double us = 0;  // measured: the CUDA-event median after an L2 flush
};

// The CSV's columns, in order (collect.py writes them): kColumns, then the inputs' type as loom-bench
// names it without its mode (bf16, f16, e4m3, e4m3xe5m2, e5m2xe4m3) and whether 8-bit partial sums
// are promoted (1: the accurate mode; 0: -fast, and 16-bit). Files of kColumns alone (written before
// 8-bit inputs were timed) hold 16-bit timings.
inline constexpr char const* kColumns =
    "card,sms,clusters1,clusters2,clusters4,clusters8,sm_khz,mem_khz,bus_bits,a_k_major,b_k_major,out_bytes,beta,m,n,k,"
    "plan,median_us";
inline constexpr char const* kTypeColumns = "dtype,promote";

// The input types a dtype column names (A's, then B's where they differ), or false.
inline bool parse_input_types(std::string const& dtype, PlanInput* in) {
  auto one = [](std::string const& t, WgmmaType* w) {
    if (t == "e4m3") *w = WgmmaType::kE4M3;
    else if (t == "e5m2") *w = WgmmaType::kE5M2;
    else return false;
    return true;
  };
  if (dtype == "bf16" || dtype == "f16") {
    in->in_bytes = 2;
    return true;
  }
  std::size_t const x = dtype.find('x');
  std::string const a = dtype.substr(0, x), b = x == std::string::npos ? a : dtype.substr(x + 1);
  in->in_bytes = 1;
  return one(a, &in->type_a) && one(b, &in->type_b);
}

// Reads one data file; throws std::runtime_error naming the file and line of anything malformed.
inline std::vector<Timing> read_csv(std::string const& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot be read");
  std::string line;
  std::string const typed = std::string(kColumns) + "," + kTypeColumns;
  if (!std::getline(f, line) || (line != kColumns && line != typed))
    throw std::runtime_error(path + ": the header is neither " + std::string(kColumns) + " nor that and " + kTypeColumns);
  std::size_t const fields = line == typed ? 20 : 18;
  std::vector<Timing> out;
  for (int no = 2; std::getline(f, line); ++no) {
    if (line.empty()) continue;
    std::vector<std::string> c;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) c.push_back(x);
    auto bad = [&](char const* why) { return std::runtime_error(path + ":" + std::to_string(no) + ": " + why); };
    if (c.size() != fields) throw bad(fields == 20 ? "not 20 fields" : "not 18 fields");
    try {
      Timing t;
      t.card = c[0];
      t.in.res.sms = std::stoi(c[1]);
      // The data has clusters of 1, 2, 4 and 8 CTAs; the other sizes are the SM count over the size.
      t.in.res = Residency::of_sms(t.in.res.sms);
      for (int i = 0; i < 4; ++i) t.in.res.clusters[(1 << i) - 1] = std::stoi(c[2 + i]);
      t.facts.sm_clock_khz = std::stod(c[6]);
      t.facts.mem_clock_khz = std::stod(c[7]);
      t.facts.bus_bits = std::stoi(c[8]);
      t.in.a_k_major = c[9] == "1", t.in.b_k_major = c[10] == "1";
      t.in.out_bytes = std::stoi(c[11]);
      t.in.beta = c[12] == "1";
      t.in.m = std::stoll(c[13]), t.in.n = std::stoll(c[14]), t.in.k = std::stoll(c[15]);
      if (!parse_plan_spec(c[16], &t.plan)) throw bad("the plan is not a LOOM_SM90_PLAN spec");
      t.us = std::stod(c[17]);
      if (!(t.us > 0)) throw bad("median_us is not positive");
      if (fields == 20) {
        if (!parse_input_types(c[18], &t.in)) throw bad("the dtype is none of bf16, f16, e4m3, e5m2 and their pairs");
        if (c[19] != "0" && c[19] != "1") throw bad("promote is not 0 or 1");
        t.in.promote = t.in.in_bytes == 1 && c[19] == "1";
      }
      out.push_back(t);
    } catch (std::logic_error const&) {
      throw bad("a number does not parse");
    }
  }
  return out;
}

// The accumulation modes, whose timings are scored apart: 16-bit inputs, 8-bit fast, 8-bit accurate.
enum class Mode { k16Bit, k8BitFast, k8BitAccurate };
inline Mode mode_of(PlanInput const& in) {
  return in.in_bytes != 1 ? Mode::k16Bit : in.promote ? Mode::k8BitAccurate : Mode::k8BitFast;
}
inline char const* mode_name(Mode m) {
  return m == Mode::k16Bit ? "16-bit" : m == Mode::k8BitFast ? "8-bit fast" : "8-bit accurate";
}
// The timings of `all` in mode m.
inline std::vector<Timing> of_mode(std::vector<Timing> const& all, Mode m) {
  std::vector<Timing> out;
  for (Timing const& t : all)
    if (mode_of(t.in) == m) out.push_back(t);
  return out;
}

// The timings of one problem (its inputs' types and mode among what defines it) on one card.
struct Group {
  std::vector<Timing> timings;
};
inline std::vector<Group> groups_of(std::vector<Timing> const& all) {
  std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, bool, bool, int, bool, int, int, int, bool>,
           std::size_t>
      index;
  std::vector<Group> out;
  for (Timing const& t : all) {
    auto const key = std::make_tuple(t.card, t.in.m, t.in.n, t.in.k, t.in.a_k_major, t.in.b_k_major, t.in.out_bytes, t.in.beta,
                                     t.in.in_bytes, int(t.in.type_a), int(t.in.type_b), t.in.promote);
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) out.emplace_back();
    out[it->second].timings.push_back(t);
  }
  return out;
}

struct Score {
  int groups = 0;
  double mean_regret = 0, max_regret = 0;  // fractions: 0.05 is 5% slower than the fastest timed
  double rms_log_error = 0;
  std::string worst;  // the group of the largest regret, in words
};

// Whether the model weighs timing t's plan for its problem: a stream-K plan only where mc takes
// them, and a tile shape only where gemm offers it (plan.hpp's offered, in the plan's orientation),
// not the shapes timed forced alone or beyond their token range (loom-bench --plan-shapes). Those
// rows are fit data for a shape not yet offered; as candidates they would score a choice gemm
// never has. forced_only weighs them too, as PlanInput's does (to fit a shape before offering it).
inline bool offers(Timing const& t, Machine const& mc, bool forced_only = false) {
  if (t.plan.stream && !mc.stream_k) return false;
  std::int64_t const m = t.plan.swap ? t.in.n : t.in.m, n = t.plan.swap ? t.in.m : t.in.n;
  return offered(kTileShapes[t.plan.shape], m, n, forced_only);
}

// A problem in words: "card MxNxK" and the 8-bit mode where there is one.
inline std::string problem_name(Timing const& t) {
  return t.card + " " + std::to_string(t.in.m) + "x" + std::to_string(t.in.n) + "x" + std::to_string(t.in.k) +
         (t.in.in_bytes == 1 ? std::string(" ") + mode_name(mode_of(t.in)) : "");
}

// One problem's pick among the timed plans the model offers (offers): the one of the smallest
// estimate, and the fastest of them.
struct Pick {
  Timing const* pick = nullptr;
  Timing const* best = nullptr;
  double regret() const { return pick->us / best->us - 1; }  // 0: the pick is the fastest
};

// Each group's pick with parameters `mc` (its card replaced by each timing's); a group of fewer
// than two timings, or with none offered, has none. `each(timing, estimate)` sees every offered
// timing.
template <class F>
std::vector<Pick> picks(std::vector<Group> const& groups, Machine mc, bool forced_only, F&& each) {
  std::vector<Pick> out;
  for (Group const& g : groups) {
    if (g.timings.size() < 2) continue;
    Pick p;
    double pick_est = 1e300;
    for (Timing const& t : g.timings) {
      if (!offers(t, mc, forced_only)) continue;
      mc.card = t.facts;
      double const est = estimate_plan(t.in, t.plan, mc);
      each(t, est);
      if (p.best == nullptr || t.us < p.best->us) p.best = &t;
      if (est < pick_est) pick_est = est, p.pick = &t;
    }
    if (p.pick) out.push_back(p);
  }
  return out;
}
inline std::vector<Pick> picks(std::vector<Group> const& groups, Machine const& mc, bool forced_only = false) {
  return picks(groups, mc, forced_only, [](Timing const&, double) {});
}

// The model's score with parameters `mc` over the plans it offers: the regret is its pick's time
// over the fastest of those.
inline Score score(std::vector<Group> const& groups, Machine const& mc, bool forced_only = false) {
  Score s;
  double sq = 0;
  int n = 0;
  for (Pick const& p : picks(groups, mc, forced_only, [&](Timing const& t, double est) {
         double const e = std::log(est / t.us);
         sq += e * e, ++n;
       })) {
    double const regret = p.regret();
    s.mean_regret += regret;
    if (regret > s.max_regret || s.groups == 0) s.max_regret = regret, s.worst = problem_name(*p.pick);
    ++s.groups;
  }
  if (s.groups) s.mean_regret /= s.groups;
  if (n) s.rms_log_error = std::sqrt(sq / n);
  return s;
}

}  // namespace loom::sm90::fit
