// loom-sm90-fit: fits the sm90 plan model's parameters (kernels/sm90/plan.hpp's Machine) on timings
// of forced plans (kernels/sm90/fit/data/*.csv), and prints the score before and after, and the
// fitted parameters as the C++ initializers to put in Machine.
//
//   build/loom-sm90-fit kernels/sm90/fit/data/h100.csv kernels/sm90/fit/data/h200.csv
//   build/loom-sm90-fit --only='efficiency[128x224]' kernels/sm90/fit/data/*.csv
//   build/loom-sm90-fit --only=8bit kernels/sm90/fit/data/*.csv
//   build/loom-sm90-fit --holdout=new.csv kernels/sm90/fit/data/h100.csv
//
// --holdout=FILE (repeatable) scores the committed and the fitted parameters on timings the fit
// does not see: whether a refit carries over to problems outside its data, before any GPU measures it.
//
// The score weighs the plans gemm offers (fit_data.hpp's offers); --forced-only weighs the shapes
// timed forced alone (never offered, or beyond their token range) too, to fit such a shape's share
// before it is offered. --picks lists each problem's pick and the fastest offered plan (the
// largest regret first) under the committed parameters, and fits nothing.
//
// --only=NAME[,NAME...] fits those parameters alone (the names it prints), holding the rest;
// --only=8bit fits the 8-bit efficiencies of the shapes built for e4m3 x e4m3 (both modes) and the
// 8-bit epilogue's direct_store_bw. The
// score is printed per mode (16-bit, 8-bit fast, 8-bit accurate) of the data, and over all of it.
// The objective is the mean regret (how much slower the model's pick among the timed plans measured
// than the fastest one) plus a tenth (--rms-weight) of the rms log error of the estimates, which
// keeps the estimates near the times themselves, not only their order. The search is coordinate descent over
// multiplicative steps, starting from the committed parameters; shares stay in (0, 1].
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "kernels/sm90/fit/fit_data.hpp"

namespace {

using loom::sm90::Machine;
using loom::sm90::fit::Group;
using loom::sm90::fit::Score;

struct Param {
  char const* name;
  double* value;
  double max;  // 0: unbounded
  double const* cap = nullptr;    // another parameter this one stays at or below
  double const* floor = nullptr;  // another parameter this one stays at or above
};

double rms_weight = 0.1;    // --rms-weight
bool forced_only = false;  // --forced-only
bool list_picks = false;   // --picks
double objective(Score const& s) { return s.mean_regret + rms_weight * s.rms_log_error; }

void print(char const* what, Score const& s) {
  std::printf("%s: %d problems, mean regret %.2f%%, max %.2f%% (%s), rms log error %.3f\n", what, s.groups,
              100 * s.mean_regret, 100 * s.max_regret, s.worst.c_str(), s.rms_log_error);
}

// The score over all timings, and per mode where the data has more than one.
void print_modes(char const* what, std::vector<loom::sm90::fit::Timing> const& all, Machine const& mc) {
  using namespace loom::sm90::fit;
  print(what, score(groups_of(all), mc, forced_only));
  for (Mode m : {Mode::k16Bit, Mode::k8BitFast, Mode::k8BitAccurate}) {
    std::vector<Timing> const t = of_mode(all, m);
    if (t.empty() || t.size() == all.size()) continue;
    print((std::string("  ") + mode_name(m)).c_str(), score(groups_of(t), mc, forced_only));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;  // ",NAME,NAME,": the parameters --only names
  std::vector<std::string> holdout;  // --holdout files
  int first = 1;
  for (; first < argc && std::string(argv[first]).rfind("--", 0) == 0; ++first) {
    std::string const a = argv[first];
    if (a.rfind("--only=", 0) == 0) {
      only.append(",").append(a.substr(7)).append(",");
    } else if (a.rfind("--holdout=", 0) == 0) {
      holdout.push_back(a.substr(10));
    } else if (a == "--forced-only") {
      forced_only = true;
    } else if (a == "--picks") {
      list_picks = true;
    } else if (a.rfind("--rms-weight=", 0) == 0) {
      rms_weight = std::atof(a.c_str() + 13);
    } else {
      std::fprintf(stderr, "loom-sm90-fit: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (argc <= first) {
    std::fprintf(stderr, "usage: loom-sm90-fit [--only=NAME,...] [--rms-weight=W] [--forced-only] [--picks] [--holdout=FILE] DATA.csv...\n");
    return 2;
  }
  std::vector<loom::sm90::fit::Timing> all, held;
  try {
    for (int i = first; i < argc; ++i) {
      auto const t = loom::sm90::fit::read_csv(argv[i]);
      all.insert(all.end(), t.begin(), t.end());
    }
    for (std::string const& f : holdout) {
      auto const t = loom::sm90::fit::read_csv(f);
      held.insert(held.end(), t.begin(), t.end());
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "loom-sm90-fit: %s\n", e.what());
    return 2;
  }
  if (all.empty()) {
    std::fprintf(stderr, "loom-sm90-fit: no timings in the data\n");
    return 2;
  }
  std::vector<Group> const groups = loom::sm90::fit::groups_of(all);
  Machine mc;
  Score const before = loom::sm90::fit::score(groups, mc, forced_only);
  print_modes("committed", all, mc);
  if (!held.empty()) print_modes("committed, held out", held, mc);
  if (list_picks) {  // each problem's pick and the fastest offered plan, the largest regret first; no fit
    std::vector<loom::sm90::fit::Pick> ps = loom::sm90::fit::picks(groups, mc, forced_only);
    std::stable_sort(ps.begin(), ps.end(), [](auto const& a, auto const& b) { return a.regret() > b.regret(); });
    for (auto const& p : ps)
      std::printf("%-44s pick %-12s %9.2f us  fastest %-12s %9.2f us  regret %5.2f%%\n",
                  loom::sm90::fit::problem_name(*p.pick).c_str(), loom::sm90::plan_spec(p.pick->plan).c_str(), p.pick->us,
                  loom::sm90::plan_spec(p.best->plan).c_str(), p.best->us, 100 * p.regret());
    return 0;
  }

  std::vector<Param> params = {{"clock_share", &mc.clock_share, 1},    {"dram_share", &mc.dram_share, 1},
                               {"l2_bytes_per_clk", &mc.l2_bytes_per_clk, 0}, {"sm_load_bw", &mc.sm_load_bw, 0},
                               {"load_latency_us", &mc.load_latency_us, 0}, {"fixup_us", &mc.fixup_us, 0},
                               {"fixup_bw", &mc.fixup_bw, 0},           {"wave_us", &mc.wave_us, 0},
                               {"overlap_loss", &mc.overlap_loss, 1}};
  static std::string names[3][loom::sm90::kTileShapeCount];
  for (int i = 0; i < loom::sm90::kTileShapeCount; ++i) {
    names[0][i] = std::string("efficiency[") + loom::sm90::kTileShapes[i].name + "]";
    params.push_back({names[0][i].c_str(), &mc.efficiency[i], 1});
  }
  // The 8-bit efficiencies of the shapes built for e4m3 x e4m3 in each mode (the others are never
  // weighed).
  using loom::sm90::WgmmaType;
  std::size_t const first_8bit = params.size();
  for (int i = 0; i < loom::sm90::kTileShapeCount; ++i) {
    char const* name = loom::sm90::kTileShapes[i].name;
    bool const fast = loom::sm90::built_8bit(i, WgmmaType::kE4M3, WgmmaType::kE4M3, false);
    bool const accurate = loom::sm90::built_8bit(i, WgmmaType::kE4M3, WgmmaType::kE4M3, true);
    if (fast) {
      names[1][i] = std::string("efficiency_8bit[") + name + "]";
      params.push_back({names[1][i].c_str(), &mc.efficiency_8bit[i], 1, nullptr,
                        accurate ? &mc.efficiency_8bit_accurate[i] : nullptr});
    }
    if (accurate) {
      // The accurate mode does the fast mode's wgmmas and more: never the higher share.
      names[2][i] = std::string("efficiency_8bit_accurate[") + name + "]";
      params.push_back({names[2][i].c_str(), &mc.efficiency_8bit_accurate[i], 1, fast ? &mc.efficiency_8bit[i] : nullptr});
    }
  }
  params.push_back({"direct_store_bw", &mc.direct_store_bw, 0});
  params.push_back({"load_latency_us_8bit", &mc.load_latency_us_8bit, 0});
  if (only == ",8bit,") {
    params.erase(params.begin(), params.begin() + std::ptrdiff_t(first_8bit));
  } else if (!only.empty()) {
    std::vector<Param> kept;
    for (Param const& p : params)
      if (only.find(std::string(",").append(p.name).append(",")) != std::string::npos) kept.push_back(p);
    if (kept.empty()) {
      std::fprintf(stderr, "loom-sm90-fit: --only names no parameter\n");
      return 2;
    }
    params = kept;
  }
  double best = objective(before);
  double const steps[] = {0.7, 0.85, 0.93, 0.97, 1.03, 1.07, 1.15, 1.4};
  for (int round = 0; round < 40; ++round) {
    bool improved = false;
    for (Param& p : params) {
      double const start = *p.value;
      double keep = start;
      for (double f : steps) {
        double const v = start * f;
        if ((p.max > 0 && v > p.max) || (p.cap && v > *p.cap) || (p.floor && v < *p.floor)) continue;
        *p.value = v;
        double const o = objective(loom::sm90::fit::score(groups, mc, forced_only));
        if (o < best - 1e-9) best = o, keep = v, improved = true;
      }
      *p.value = keep;
    }
    if (!improved) break;
  }
  print_modes("fitted", all, mc);
  if (!held.empty()) print_modes("fitted, held out", held, mc);
  std::printf("parameters:\n");
  // Six digits: the regret is a count of picks, and values printed to four moved ties (2.6% fitted, 3.0% pasted).
  for (Param const& p : params) std::printf("  %-24s %.6g\n", p.name, *p.value);

  return 0;
}
