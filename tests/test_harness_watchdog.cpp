// The hang watchdog of loom-validate and loom-bench (harness/watchdog.hpp) and their --timeout
// values. No GPU needed: a case that "hangs" here is a sleep.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "harness/watchdog.hpp"

namespace {

using loom::harness::kTimeoutExitStatus;
using loom::harness::parse_timeout;
using loom::harness::Watchdog;
using loom::harness::WatchdogArm;
using namespace std::chrono_literals;

std::string timeout_error(std::string const& s) {
  try {
    parse_timeout(s);
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HarnessWatchdog, ParseTimeout) {
  EXPECT_EQ(parse_timeout("60"), 60);
  EXPECT_EQ(parse_timeout("0"), 0);  // no time-out
  EXPECT_EQ(parse_timeout("0.5"), 0.5);
  EXPECT_EQ(parse_timeout("2."), 2);
  EXPECT_EQ(parse_timeout(".25"), 0.25);
  EXPECT_EQ(parse_timeout("604800"), 604800);
  EXPECT_EQ(timeout_error("-1"), "expected seconds in [0, 604800] (0: no time-out), found \"-1\"");
  for (char const* bad : {"", "+5", "1e3", "nan", "inf", "0x10", " 5", "5 ", "1.2.3", ".", "604800.5", "5s"})
    EXPECT_NE(timeout_error(bad), "(no error)") << bad;
  // A huge value is quoted in part.
  std::string const huge(100000, '9');
  EXPECT_LT(timeout_error(huge).size(), 200u);
}

TEST(HarnessWatchdog, DisarmedInTimeDoesNotFire) {
  Watchdog w("loom-test");
  w.on_timeout([](std::string const&) { std::fputs("flushed\n", stderr); });
  for (int i = 0; i < 20; ++i) {
    WatchdogArm armed(w, "case quick", 0.2);
    std::this_thread::sleep_for(2ms);
  }
  w.arm("case off", 0);  // 0: not armed
  std::this_thread::sleep_for(400ms);
  w.arm("case rearmed", 0.2);
  std::this_thread::sleep_for(50ms);
  w.arm("case replaced", 0.3);  // a second arm() starts the clock again
  std::this_thread::sleep_for(250ms);
  w.disarm();
  std::this_thread::sleep_for(200ms);
  SUCCEED();  // still here
}

TEST(HarnessWatchdog, FiresOnceWithOneLineAndItsStatus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto hung = [] {
    Watchdog w("loom-test");
    w.on_timeout([](std::string const& message) { std::fprintf(stderr, "flushed before: %s\n", message.c_str()); });
    w.arm("case add/f32/ccc/64x64x0", 0.2, ", 3 cases not run");
    std::this_thread::sleep_for(30s);  // "the kernel": the watchdog ends the process first
    std::exit(0);
  };
  EXPECT_EXIT(hung(), testing::ExitedWithCode(kTimeoutExitStatus),
              "^flushed before: case add/f32/ccc/64x64x0 did not finish within 0.2 s \\(a hung kernel\\?\\); stopping, 3 "
              "cases not run\nloom-test: case add/f32/ccc/64x64x0 did not finish within 0.2 s \\(a hung kernel\\?\\); "
              "stopping, 3 cases not run\n$");
}

}  // namespace
