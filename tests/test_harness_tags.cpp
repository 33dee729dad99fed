// --tags of loom-validate and loom-bench: harness::parse_tags. No GPU needed.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/harness.hpp"

namespace {

using loom::harness::parse_tags;
using Tags = std::vector<std::pair<std::string, std::string>>;

std::string tags_error(std::string const& s, std::vector<std::string> const& reserved = {}) {
  try {
    parse_tags(s, reserved);
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HarnessTags, Good) {
  EXPECT_EQ(parse_tags("gpu:h100", {}), Tags({{"gpu", "h100"}}));
  // In the order given; blanks around keys and values go; a value may hold ':' and blanks.
  EXPECT_EQ(parse_tags(" commit : abc123 , run.id:2026-11-23 04:00:00,host-name:node 7", {}),
            Tags({{"commit", "abc123"}, {"run.id", "2026-11-23 04:00:00"}, {"host-name", "node 7"}}));
  EXPECT_EQ(parse_tags("k_1:\"quoted\"", {}), Tags({{"k_1", "\"quoted\""}}));
}

TEST(HarnessTags, Bad) {
  EXPECT_EQ(tags_error("gpu"), "\"gpu\" is not key:value (tags are separated by commas, so a value cannot hold one)");
  // A comma in a value leaves its second half without a key.
  EXPECT_EQ(tags_error("gpu:h100,80GB"),
            "\"80GB\" is not key:value (tags are separated by commas, so a value cannot hold one)");
  EXPECT_EQ(tags_error(":h100"), "\":h100\" has an empty key");
  EXPECT_EQ(tags_error("gpu:"), "\"gpu:\" has an empty value");
  EXPECT_EQ(tags_error("g pu:x"), "key \"g pu\" may hold only letters, digits, '_', '.' and '-'");
  EXPECT_EQ(tags_error("a=b:x"), "key \"a=b\" may hold only letters, digits, '_', '.' and '-'");
  EXPECT_EQ(tags_error("gpu:h1\n00"), "the value of \"gpu\" holds a line break");
  EXPECT_EQ(tags_error("gpu:h1;00"), "the value of \"gpu\" holds ';'");
  EXPECT_EQ(tags_error("gpu:h1\t00"), "the value of \"gpu\" holds a control character");
  EXPECT_EQ(tags_error("gpu:a,run:1,gpu:b"), "key \"gpu\" is given twice");
  EXPECT_EQ(tags_error("m:7", {"kernel", "m"}), "key \"m\" is one of the report's own fields");
  EXPECT_EQ(tags_error("gpu:a,,run:1"), "bad item \"\" in \"gpu:a,,run:1\": empty item");
  EXPECT_EQ(tags_error(""), "empty list");
}

}  // namespace
