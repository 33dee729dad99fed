// loom-sm90-fit: fits the sm90 plan model's parameters (kernels/sm90/plan.hpp's Machine) on timings
// of forced plans (kernels/sm90/fit/data/*.csv), and prints the score before and after, and the
// fitted parameters as the C++ initializers to put in Machine.
//
//   build/loom-sm90-fit kernels/sm90/fit/data/*.csv
//   build/loom-sm90-fit --only='efficiency[128x224]' kernels/sm90/fit/data/*.csv
//
// --only=NAME[,NAME...] fits those parameters alone (the names it prints), holding the rest.
// The objective is the mean regret (how much slower the model's pick among the timed plans measured
// than the fastest one) plus a tenth of the rms log error of the estimates, which keeps the estimates
// near the times themselves, not only their order. The search is coordinate descent over
// multiplicative steps, starting from the committed parameters; shares stay in (0, 1].
#include <cstdio>
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
};

double objective(Score const& s) { return s.mean_regret + 0.1 * s.rms_log_error; }

void print(char const* what, Score const& s) {
  std::printf("%s: %d problems, mean regret %.2f%%, max %.2f%% (%s), rms log error %.3f\n", what, s.groups,
              100 * s.mean_regret, 100 * s.max_regret, s.worst.c_str(), s.rms_log_error);
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;  // ",NAME,NAME,": the parameters --only names
  int first = 1;
  if (argc > 1 && std::string(argv[1]).rfind("--only=", 0) == 0) {
    only.append(",").append(argv[1] + 7).append(",");
    first = 2;
  }
  if (argc <= first) {
    std::fprintf(stderr, "usage: loom-sm90-fit [--only=NAME,...] DATA.csv...\n");
    return 2;
  }
  std::vector<loom::sm90::fit::Timing> all;
  try {
    for (int i = first; i < argc; ++i) {
      auto const t = loom::sm90::fit::read_csv(argv[i]);
      all.insert(all.end(), t.begin(), t.end());
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "loom-sm90-fit: %s\n", e.what());
    return 2;
  }
  std::vector<Group> const groups = loom::sm90::fit::groups_of(all);
  Machine mc;
  Score const before = loom::sm90::fit::score(groups, mc);
  print("committed", before);

  std::vector<Param> params = {{"clock_share", &mc.clock_share, 1},    {"dram_share", &mc.dram_share, 1},
                               {"l2_bytes_per_clk", &mc.l2_bytes_per_clk, 0}, {"sm_load_bw", &mc.sm_load_bw, 0},
                               {"load_latency_us", &mc.load_latency_us, 0}, {"fixup_us", &mc.fixup_us, 0},
                               {"fixup_bw", &mc.fixup_bw, 0},           {"wave_us", &mc.wave_us, 0},
                               {"overlap_loss", &mc.overlap_loss, 1}};
  static std::string names[loom::sm90::kTileShapeCount];
  for (int i = 0; i < loom::sm90::kTileShapeCount; ++i) {
    names[i] = std::string("efficiency[") + loom::sm90::kTileShapes[i].name + "]";
    params.push_back({names[i].c_str(), &mc.efficiency[i], 1});
  }
  if (!only.empty()) {
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
        if (p.max > 0 && v > p.max) continue;
        *p.value = v;
        double const o = objective(loom::sm90::fit::score(groups, mc));
        if (o < best - 1e-9) best = o, keep = v, improved = true;
      }
      *p.value = keep;
    }
    if (!improved) break;
  }
  print("fitted", loom::sm90::fit::score(groups, mc));
  std::printf("parameters:\n");
  // Six digits: the regret is a count of picks, and values printed to four moved ties (2.6% fitted, 3.0% pasted).
  for (Param const& p : params) std::printf("  %-24s %.6g\n", p.name, *p.value);

  return 0;
}
