#include "common/json_depth.h"

#include <catch2/catch.hpp>
#include <string>

using namespace hookinbox;

namespace {
std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }
}  // namespace

TEST_CASE("json depth: arrays and objects count alike, up to the limit inclusive", "[common][json]") {
  CHECK(kMaxJsonDepth == 64);
  CHECK_FALSE(JsonNestsDeeperThan(""));
  CHECK_FALSE(JsonNestsDeeperThan("1"));
  CHECK_FALSE(JsonNestsDeeperThan(Nested(64)));
  CHECK(JsonNestsDeeperThan(Nested(65)));
  CHECK_FALSE(JsonNestsDeeperThan("[{\"a\":[{}]}]", 4));
  CHECK(JsonNestsDeeperThan("[{\"a\":[{}]}]", 3));
  // Depth, not count: many shallow siblings are fine.
  std::string wide = "[";
  for (int i = 0; i < 10000; ++i) wide += "[],";
  wide += "[]]";
  CHECK_FALSE(JsonNestsDeeperThan(wide, 2));
}

TEST_CASE("json depth: brackets inside strings, and escaped quotes, do not count", "[common][json]") {
  const std::string brackets(1000, '[');
  CHECK_FALSE(JsonNestsDeeperThan("{\"a\":\"" + brackets + "\"}", 1));
  CHECK_FALSE(JsonNestsDeeperThan("[\"\\\"" + brackets + "\"]", 1));  // \" does not end the string
  // A string ending in an escaped backslash ends there: what follows counts.
  CHECK(JsonNestsDeeperThan("[\"\\\\\"," + Nested(2) + "]", 2));
}

TEST_CASE("json depth: invalid JSON is scanned without harm; a megabyte of '[' stops at the limit",
          "[common][json]") {
  CHECK_FALSE(JsonNestsDeeperThan("]]]]]]", 1));
  CHECK_FALSE(JsonNestsDeeperThan("\"unterminated [[[[", 1));
  CHECK(JsonNestsDeeperThan(std::string(1 << 20, '['), kMaxJsonDepth));
  CHECK(JsonNestsDeeperThan(std::string(1 << 20, '{'), kMaxJsonDepth));
}
