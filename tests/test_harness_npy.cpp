// harness::write_npy (loom-validate --save-workspace): the .npy header and the data, host only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include "harness/npy.hpp"

namespace {

using namespace loom::harness;

std::string slurp(std::string const& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(HarnessNpy, Header) {
  for (auto [r, c] : {std::pair<std::int64_t, std::int64_t>{3, 2}, {1, 1}, {0, 5}, {16384, 16384}, {123456789, 7}}) {
    std::string const h = npy_header(r, c);
    ASSERT_EQ(h.size() % 64, 0u) << h;
    EXPECT_EQ(h.substr(0, 6), "\x93NUMPY");
    EXPECT_EQ(h[6], 1);
    EXPECT_EQ(h[7], 0);
    std::size_t const len = static_cast<unsigned char>(h[8]) | (static_cast<unsigned char>(h[9]) << 8);
    EXPECT_EQ(len + 10, h.size());
    EXPECT_EQ(h.back(), '\n');
    std::string const dict = "{'descr': '<f8', 'fortran_order': True, 'shape': (" + std::to_string(r) + ", " +
                             std::to_string(c) + "), }";
    EXPECT_EQ(h.substr(10, dict.size()), dict);
    EXPECT_EQ(h.find_first_not_of(' ', 10 + dict.size()), h.size() - 1);
  }
}

TEST(HarnessNpy, WritesColumnMajorDoubles) {
  char tmpl[] = "/tmp/loom_npy_XXXXXX";
  int const fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string const path = tmpl;
  // 3 x 2, logical column-major: (0,0)=1 (1,0)=2 (2,0)=3 (0,1)=-0.5 (1,1)=inf (2,1)=nan.
  std::vector<double> const v = {1, 2, 3, -0.5, std::numeric_limits<double>::infinity(), std::nan("")};
  ASSERT_EQ(write_npy(path, 3, 2, v), "");
  std::string const f = slurp(path);
  std::string const h = npy_header(3, 2);
  ASSERT_EQ(f.size(), h.size() + v.size() * sizeof(double));
  EXPECT_EQ(f.substr(0, h.size()), h);
  EXPECT_EQ(std::memcmp(f.data() + h.size(), v.data(), v.size() * sizeof(double)), 0);
  std::remove(path.c_str());
}

TEST(HarnessNpy, Errors) {
  EXPECT_NE(write_npy("/tmp/loom_npy_bad.npy", 2, 2, {1, 2, 3}), "");  // 3 values for 2 x 2
  std::string const why = write_npy("/nonexistent/dir/x.npy", 1, 1, {1});
  EXPECT_NE(why.find("/nonexistent/dir/x.npy"), std::string::npos) << why;
}

}  // namespace
