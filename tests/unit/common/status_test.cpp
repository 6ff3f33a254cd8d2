#include <catch2/catch.hpp>

#include "common/status.h"

using namespace hookinbox;

TEST_CASE("status: ok by default, codes keep their message", "[common]") {
  Status ok;
  CHECK(ok.ok());
  CHECK(ok.ToString() == "ok");
  Status bad = TooLarge("body is 5 bytes over");
  CHECK_FALSE(bad.ok());
  CHECK(bad.code() == Code::kTooLarge);
  CHECK(bad.ToString() == "too_large: body is 5 bytes over");
}

TEST_CASE("result: holds a value or the status explaining its absence", "[common]") {
  Result<int> value = 7;
  REQUIRE(value.ok());
  CHECK(*value == 7);
  CHECK(value.status().ok());
  Result<int> missing = NotFound("no such row");
  CHECK_FALSE(missing.ok());
  CHECK(missing.status().code() == Code::kNotFound);
}
