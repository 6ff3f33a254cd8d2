#include <catch2/catch.hpp>

#include "common/headers.h"

using namespace hookinbox;

TEST_CASE("headers: lookup ignores case; Set replaces", "[common]") {
  MapHeaders h{{"Content-Type", "application/json"}};
  REQUIRE(h.Get("content-type"));
  CHECK(*h.Get("CONTENT-TYPE") == "application/json");
  CHECK_FALSE(h.Get("X-Missing"));
  h.Set("content-TYPE", "text/plain");
  CHECK(*h.Get("Content-Type") == "text/plain");
  CHECK(h.items().size() == 1);
}
