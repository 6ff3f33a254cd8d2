#include <catch2/catch.hpp>

#include <regex>

#include "http/routes.h"

using namespace hookinbox::http;

TEST_CASE("routes: /hooks/{endpoint} and /hooks/{endpoint}/{tenant} parse", "[http]") {
  auto a = ParseHookPath("/hooks/payments");
  REQUIRE(a);
  CHECK(a->endpoint == "payments");
  CHECK(a->tenant.empty());
  auto b = ParseHookPath("/hooks/shop.orders/acme-1_x");
  REQUIRE(b);
  CHECK(b->endpoint == "shop.orders");
  CHECK(b->tenant == "acme-1_x");
}

TEST_CASE("routes: malformed paths are refused, never normalised", "[http]") {
  for (const char* path : {"/hooks", "/hooks/", "/hooks//x", "/hooks/a/", "/hooks/a/b/c", "/hooks/..",
                           "/hooks/../etc", "/hooks/a/..", "/hooks/.hidden", "/hooks/a b", "/hooks/a%2Fb",
                           "/hooksx/a", "/other/a"}) {
    INFO(path);
    CHECK_FALSE(ParseHookPath(path));
  }
  CHECK_FALSE(ParseHookPath("/hooks/" + std::string(65, 'a')));
  CHECK(ParseHookPath("/hooks/" + std::string(64, 'a')));
}

TEST_CASE("routes: IsHooksPath covers /hooks and everything below it only", "[http]") {
  CHECK(IsHooksPath("/hooks"));
  CHECK(IsHooksPath("/hooks/"));
  CHECK(IsHooksPath("/hooks/a/b/c"));
  CHECK_FALSE(IsHooksPath("/hooksx"));
  CHECK_FALSE(IsHooksPath("/healthz"));
}

TEST_CASE("routes: the registered /hooks pattern matches every path IsHooksPath accepts", "[http]") {
  std::regex pattern(kHooksPattern);
  for (const char* path : {"/hooks", "/hooks/", "/hooks/demo", "/hooks/demo/acme", "/hooks/de\nmo", "/hooks/a\r\nb",
                           "/hooks/a/b/c/d", "/hooks/%00"}) {
    INFO(path);
    CHECK(IsHooksPath(path));
    CHECK(std::regex_match(std::string(path), pattern));
  }
}
