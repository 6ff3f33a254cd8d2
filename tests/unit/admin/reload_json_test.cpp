// The body and the answer of POST /admin/api/reload (admin/reload_json.cpp):
// what a body may say (nothing, or accept_key_change with endpoint names),
// the clear 400 messages for anything else, and the answer's JSON, field by
// field, with its status (200 applied, 422 refused).
#include <catch2/catch.hpp>

#include "admin/reload_json.h"

using namespace hookinbox;
using namespace hookinbox::admin;

TEST_CASE("reload body: empty or accept_key_change; the actor is admin", "[admin][reload]") {
  auto empty = ParseReloadAsk("");
  REQUIRE(empty.ok());
  CHECK(empty->actor == "admin");
  CHECK(empty->accept_key_change.empty());
  auto none = ParseReloadAsk("{}");
  REQUIRE(none.ok());
  CHECK(none->accept_key_change.empty());
  auto two = ParseReloadAsk(R"({"accept_key_change": ["orders", "refunds"]})");
  REQUIRE(two.ok());
  CHECK(two->actor == "admin");
  CHECK(two->accept_key_change == std::vector<std::string>{"orders", "refunds"});
}

TEST_CASE("reload body: anything else is InvalidArgument saying what is wrong", "[admin][reload]") {
  struct Case {
    const char* body;
    const char* says;
  };
  const Case cases[] = {
      {"not json", "JSON object"},
      {"[]", "JSON object"},
      {" ", "JSON object"},
      {R"({"accept_key_change": "orders"})", "array of endpoint names"},
      {R"({"accept_key_change": [1]})", "array of endpoint names"},
      {R"({"accept_key_change": [""]})", "array of endpoint names"},
      {R"({"accept_key_changes": ["orders"]})", "unknown member \"accept_key_changes\""},
      {R"({"accept_key_change": [], "dry_run": true})", "unknown member \"dry_run\""},
  };
  for (const Case& c : cases) {
    INFO(c.body);
    auto ask = ParseReloadAsk(c.body);
    REQUIRE_FALSE(ask.ok());
    CHECK(ask.status().code() == Code::kInvalidArgument);
    CHECK_THAT(ask.status().message(), Catch::Contains(c.says));
  }
}

TEST_CASE("reload answer: every field, in order; 200 when applied", "[admin][reload]") {
  config::ReloadAnswer a;
  a.applied = true;
  a.config_path = "/etc/hookinbox/hookinbox.toml";
  a.generation = 3;
  a.changed = {"endpoint \"orders\" added"};
  a.needs_restart = {"server.listen"};
  a.warnings = {{"endpoint[0].rotation_ends", 12, "passed"}};
  CHECK(ReloadAnswerJson(a).dump() ==
        R"({"applied":true,"config":"/etc/hookinbox/hookinbox.toml","generation":3,)"
        R"("changed":["endpoint \"orders\" added"],"needs_restart":["server.listen"],)"
        R"("warnings":[{"key":"endpoint[0].rotation_ends","line":12,"message":"passed"}],"errors":[]})");
  CHECK(ReloadAnswerStatus(a) == 200);
}

TEST_CASE("reload answer: a refusal lists its errors with the file; 422", "[admin][reload]") {
  config::ReloadAnswer a;
  a.config_path = "/etc/hookinbox/hookinbox.toml";
  a.generation = 1;
  a.errors = {{"endpoint[1].provider", 7, "unknown preset \"strpie\""}, {"", 0, "cannot read the file"}};
  CHECK(ReloadAnswerJson(a).dump() ==
        R"({"applied":false,"config":"/etc/hookinbox/hookinbox.toml","generation":1,"changed":[],"needs_restart":[],)"
        R"("warnings":[],"errors":[{"file":"/etc/hookinbox/hookinbox.toml","key":"endpoint[1].provider","line":7,)"
        R"("message":"unknown preset \"strpie\""},{"file":"/etc/hookinbox/hookinbox.toml","key":"","line":0,)"
        R"("message":"cannot read the file"}]})");
  CHECK(ReloadAnswerStatus(a) == 422);
}
