// The sm90 plan model against its fit data (kernels/sm90/fit/data/*.csv: timings of the model's
// best plans under `loom-bench --plans`, one file per card): on every card, the plan the model
// picks among the timed ones is close to the fastest timed one. The bounds are the committed
// parameters' score (loom-sm90-fit prints it) with a margin, so that a change to the model that
// makes its picks worse on either card fails here.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "kernels/sm90/fit/fit_data.hpp"

namespace loom::sm90::fit {
namespace {

std::vector<std::string> data_files() {
  std::vector<std::string> out;
  for (auto const& e : std::filesystem::directory_iterator(LOOM_SM90_FIT_DATA))
    if (e.path().extension() == ".csv") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Sm90Fit, TheModelPicksNearTheFastestTimedPlanOnEveryCard) {
  std::vector<std::string> const files = data_files();
  ASSERT_FALSE(files.empty()) << "no data in " << LOOM_SM90_FIT_DATA;
  for (std::string const& f : files) {
    std::vector<Group> const groups = groups_of(read_csv(f));
    Score const s = score(groups, Machine{});
    SCOPED_TRACE(f);
    EXPECT_GE(s.groups, 30) << "too few problems to judge the model by";
    EXPECT_LE(s.mean_regret, 0.035) << "mean regret";  // 3.26% on h100.csv since its 1x2-cluster rows (2026-11-26)
    EXPECT_LE(s.max_regret, 0.40) << "largest regret, on " << s.worst;
    EXPECT_LE(s.rms_log_error, 0.15) << "rms log error of the estimates";
  }
}

TEST(Sm90Fit, MalformedDataIsRefusedWithItsLine) {
  std::string const path = std::filesystem::temp_directory_path() / "loom_sm90_fit_bad.csv";
  {
    std::ofstream f(path);
    f << kColumns << "\n";
    f << "H100,132,132,66,30,15,1980000,2619000,5120,1,1,2,0,16,5120,5120,99:1:0:0,21.3\n";
  }
  try {
    read_csv(path);
    FAIL() << "a plan of shape 99 was taken";
  } catch (std::runtime_error const& e) {
    EXPECT_NE(std::string(e.what()).find(":2: the plan"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace loom::sm90::fit
