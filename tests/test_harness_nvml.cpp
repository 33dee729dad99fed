// NVML through the harness (harness/nvml.cpp): the library is opened at run time, so that a machine
// without the driver still runs the tools and reads every query as unavailable. The GPU tests skip
// without a GPU; the others run anywhere.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "harness/harness.hpp"
#include "tests/gpu_test_util.hpp"

namespace {

using namespace loom::harness;

using loom::test::have_gpu;

TEST(HarnessNvml, DescribeReasons) {
  EXPECT_EQ(describe_clock_event_reasons(0), "none (0x0)");
  EXPECT_EQ(describe_clock_event_reasons(0x4), "sw_power_cap (0x4)");
  EXPECT_EQ(describe_clock_event_reasons(0xc), "sw_power_cap, hw_slowdown (0xc)");
  EXPECT_EQ(describe_clock_event_reasons(0x1 | 0x40 | 0x100), "gpu_idle, hw_thermal_slowdown, display_clock_setting (0x141)");
  EXPECT_EQ(describe_clock_event_reasons(0x10000), "unknown (0x10000)");
}

// Without a GPU (or without the driver) every query is "unavailable", with a reason, and nothing throws.
TEST(HarnessNvml, UnavailableWithoutGpu) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present";
  EXPECT_FALSE(nvml_unavailable(0).empty());
  EXPECT_EQ(sm_clock_mhz(0), -1);
  EXPECT_EQ(max_sm_clock_mhz(0), -1);
  Clocks const c = current_clocks(0);
  EXPECT_EQ(c.sm_mhz, -1);
  EXPECT_EQ(c.mem_mhz, -1);
  EXPECT_FALSE(clock_event_reasons(0).has_value());
  // A second call answers the same from the cached state.
  EXPECT_EQ(nvml_unavailable(0), nvml_unavailable(0));
  std::printf("NVML: %s\n", nvml_unavailable(0).c_str());
}

// A device NVML cannot find by its PCI bus id (an ordinal CUDA does not have) is unavailable too.
TEST(HarnessNvml, NoSuchDevice) {
  EXPECT_FALSE(nvml_unavailable(1023).empty());
  EXPECT_EQ(sm_clock_mhz(1023), -1);
  EXPECT_FALSE(clock_event_reasons(1023).has_value());
}

// With a GPU and its driver: clocks, reasons and the driver's version.
TEST(HarnessNvml, ClocksOnGpu) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA GPU";
  ASSERT_EQ(nvml_unavailable(0), "") << "NVML should work where a CUDA GPU does";
  int const sm = sm_clock_mhz(0), max = max_sm_clock_mhz(0);
  EXPECT_GT(sm, 0);
  EXPECT_GT(max, 0);
  EXPECT_LE(sm, max + 50);  // boost can read a step above the nominal maximum on some boards
  Clocks const c = current_clocks(0);
  EXPECT_GT(c.sm_mhz, 0);
  EXPECT_GT(c.mem_mhz, 0);
  EXPECT_TRUE(clock_event_reasons(0).has_value());
  std::string const v = nvidia_driver_version(0);
  ASSERT_FALSE(v.empty());
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(v[0]))) << v;
  EXPECT_NE(v.find('.'), std::string::npos) << v;
  std::printf("SM %d MHz (max %d), memory %d MHz, driver %s, reasons %s\n", sm, max, c.mem_mhz, v.c_str(),
              describe_clock_event_reasons(clock_event_reasons(0).value_or(0)).c_str());
}

}  // namespace
