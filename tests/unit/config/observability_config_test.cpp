// [log] redact and [admin] metrics_token_env.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "config_test_util.h"

using namespace hookinbox::config;
using namespace hookinbox::config::test;

TEST_CASE("config: log.redact takes log field names", "[config]") {
  auto r = Load("[log]\nredact = [\"remote_addr\", \"tenant\"]\n" + kEndpoint);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.log.redact == std::vector<std::string>{"remote_addr", "tenant"});
  CHECK(Load(kEndpoint).config.log.redact.empty());
}

TEST_CASE("config: log.redact refuses malformed names and the fixed keys", "[config]") {
  auto bad = Load("[log]\nredact = [\"Remote Addr\"]\n" + kEndpoint);
  REQUIRE(Find(bad.errors, "log.redact[0]") != nullptr);
  CHECK_THAT(Find(bad.errors, "log.redact[0]")->message, Catch::Contains("a-z, 0-9 and _"));
  auto fixed = Load("[log]\nredact = [\"tenant\", \"event\"]\n" + kEndpoint);
  REQUIRE(Find(fixed.errors, "log.redact[1]") != nullptr);
  CHECK_THAT(Find(fixed.errors, "log.redact[1]")->message, Catch::Contains("cannot be redacted"));
  CHECK(Find(fixed.errors, "log.redact[0]") == nullptr);
  CHECK(Find(Load("[log]\nredact = [\"\"]\n" + kEndpoint).errors, "log.redact[0]") != nullptr);
}

TEST_CASE("config: admin.metrics_token_env resolves into admin.metrics_token", "[config]") {
  ::setenv("HOOKINBOX_CT_METRICS", "scrape-token-1-0123456789abcdef0123", 1);
  auto r = Load("[admin]\nmetrics_token_env = \"HOOKINBOX_CT_METRICS\"\n" + kEndpoint);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.admin.metrics_token.bytes() == "scrape-token-1-0123456789abcdef0123");
  CHECK(Load(kEndpoint).config.admin.metrics_token.empty());
}

TEST_CASE("config: admin.metrics_token_env must be set and differ from the admin token", "[config]") {
  ::unsetenv("HOOKINBOX_CT_METRICS_UNSET");
  auto unset = Load("[admin]\nmetrics_token_env = \"HOOKINBOX_CT_METRICS_UNSET\"\n" + kEndpoint);
  REQUIRE(Find(unset.errors, "admin.metrics_token_env") != nullptr);
  CHECK_THAT(Find(unset.errors, "admin.metrics_token_env")->message, Catch::Contains("not set"));

  ::setenv("HOOKINBOX_CT_SAME", "same-token-for-both-0123456789abcdef", 1);
  auto same = Load("[admin]\ntoken_env = \"HOOKINBOX_CT_SAME\"\nmetrics_token_env = \"HOOKINBOX_CT_SAME\"\n" + kEndpoint);
  REQUIRE(Find(same.errors, "admin.metrics_token_env") != nullptr);
  CHECK_THAT(Find(same.errors, "admin.metrics_token_env")->message, Catch::Contains("different token"));
}
