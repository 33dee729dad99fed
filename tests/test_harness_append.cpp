// loom-bench --append's merge of two Google Benchmark JSON documents (harness::append_benchmark_rows).
#include <gtest/gtest.h>

#include <string>

#include "harness/harness.hpp"

namespace loom::harness {
namespace {

std::string doc(std::string const& context, std::string const& rows) {
  return "{\n  \"context\": {" + context + "},\n  \"benchmarks\": [" + rows + "\n  ]\n}\n";
}

TEST(HarnessAppend, RowsFollowTheFirstRunsAndItsContextStays) {
  std::string why;
  std::string const merged = append_benchmark_rows(doc("\"date\": \"one\"", "\n    {\"name\": \"a\"},\n    {\"name\": \"b\"}"),
                                                   doc("\"date\": \"two\"", "\n    {\"name\": \"c\"}"), &why);
  EXPECT_EQ(why, "");
  EXPECT_EQ(merged, doc("\"date\": \"one\"", "\n    {\"name\": \"a\"},\n    {\"name\": \"b\"},\n    {\"name\": \"c\"}"));
  EXPECT_EQ(merged.find("two"), std::string::npos);
}

TEST(HarnessAppend, EmptyArraysOnEitherSide) {
  std::string why;
  EXPECT_EQ(append_benchmark_rows(doc("", ""), doc("", "\n    {\"name\": \"c\"}"), &why),
            doc("", "\n    {\"name\": \"c\"}"));
  EXPECT_EQ(append_benchmark_rows(doc("", "\n    {\"name\": \"a\"}"), doc("", ""), &why),
            doc("", "\n    {\"name\": \"a\"}"));
  EXPECT_EQ(append_benchmark_rows(doc("", ""), doc("", ""), &why), doc("", ""));
  EXPECT_EQ(why, "");
}

TEST(HarnessAppend, AFileThatIsNotLoomBenchJsonIsRefused) {
  for (std::string const& bad : {std::string(""), std::string("name,median_us\na,1\n"), std::string("{\"context\": {}}\n"),
                                std::string("{\"benchmarks\": [{\"name\": \"a\"}]"),  // cut off
                                std::string("{\"benchmarks\": [], \"context\": {}}\n")}) {
    std::string why;
    EXPECT_EQ(append_benchmark_rows(bad, doc("", "{\"name\": \"c\"}"), &why), "") << bad;
    EXPECT_NE(why.find("not a loom-bench JSON file"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace loom::harness
