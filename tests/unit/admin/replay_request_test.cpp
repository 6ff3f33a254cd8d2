// admin/replay_request.h: the body of POST /admin/api/events/replay.
#include "admin/replay_request.h"

#include <catch2/catch.hpp>

using namespace hookinbox;
using nlohmann::json;

TEST_CASE("replay request: a full body becomes the store's filter", "[admin][replay]") {
  auto r = admin::ParseReplayRequest(json::parse(
      R"({"status":"dead_lettered","endpoint":"crm","since":"2025-12-01T10:00:00Z","until":1764590400000,
          "error":"HTTP 422","dry_run":true,"note":"after the outage"})"));
  REQUIRE(r.ok());
  CHECK(r->filter.status == "dead_lettered");
  CHECK(r->filter.endpoint == "crm");
  CHECK(r->filter.since_ms == 1764583200000);
  CHECK(r->filter.until_ms == 1764590400000);
  CHECK(r->filter.error_contains == "HTTP 422");
  CHECK(r->dry_run);
  CHECK(r->note == "after the outage");

  auto minimal = admin::ParseReplayRequest(json::parse(R"({"status":"completed","endpoint":"crm","since":null})"));
  REQUIRE(minimal.ok());
  CHECK_FALSE(minimal->dry_run);
  CHECK(minimal->filter.since_ms == 0);
  CHECK(minimal->filter.until_ms == 0);
  CHECK(minimal->filter.error_contains.empty());
}

TEST_CASE("replay request: anything malformed is refused, naming what", "[admin][replay]") {
  struct Case {
    const char* body;
    const char* says;
  };
  const Case cases[] = {
      {R"({"endpoint":"crm"})", "status is missing"},
      {R"({"status":"received","endpoint":"crm"})", "status must be"},
      {R"({"status":"dead_letters","endpoint":"crm"})", "status must be"},
      {R"({"status":"dead_lettered"})", "endpoint is missing"},
      {R"({"status":"dead_lettered","endpoint":""})", "endpoint must not be empty"},
      {R"({"status":"dead_lettered","endpoint":7})", "endpoint must be a string"},
      {R"({"status":"dead_lettered","endpoint":"crm","endpont":"x"})", "unknown member endpont"},
      {R"({"status":"dead_lettered","endpoint":"crm","since":"yesterday"})", "since: not a time"},
      {R"({"status":"dead_lettered","endpoint":"crm","until":true})", "until must be a time"},
      {R"({"status":"dead_lettered","endpoint":"crm","since":-5})", "since must be after 1970"},
      {R"({"status":"dead_lettered","endpoint":"crm","since":2000,"until":1000})", "until must be after since"},
      {R"({"status":"dead_lettered","endpoint":"crm","dry_run":"yes"})", "dry_run must be true or false"},
      {R"({"status":"dead_lettered","endpoint":"crm","error":["x"]})", "error must be a string"},
  };
  for (const Case& c : cases) {
    INFO(c.body);
    auto r = admin::ParseReplayRequest(json::parse(c.body));
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK(r.status().message().find(c.says) != std::string::npos);
  }
}
