// admin/endpoint_json: what GET /admin/api/endpoints and `hookinbox endpoints
// list --json` show for each configured endpoint.
#include "admin/endpoint_json.h"

#include <catch2/catch.hpp>

using namespace hookinbox;

namespace {

config::Config TwoEndpoints() {
  config::Config c;
  config::EndpointConfig crm;
  crm.name = "crm";
  crm.provider = "stripe";
  crm.action.type = "http";
  config::EndpointConfig keep;
  keep.name = "keep";  // no action: its events are only kept
  c.endpoints = {crm, keep};
  return c;
}

}  // namespace

TEST_CASE("endpoint json: an endpoint without a row is running with its breaker closed", "[admin][endpoints]") {
  auto j = admin::EndpointsJson(TwoEndpoints(), {});
  REQUIRE(j["endpoints"].size() == 2);
  auto keep = j["endpoints"][1];
  CHECK(keep["name"] == "keep");
  CHECK(keep["provider"] == "generic");
  CHECK(keep["has_action"] == false);
  CHECK(keep["paused"] == false);
  CHECK(keep["paused_at"].is_null());
  CHECK(keep["paused_by"].is_null());
  CHECK(keep["paused_reason"].is_null());
  CHECK(keep["breaker"] == nlohmann::ordered_json{{"state", "closed"}, {"failures", 0}, {"changed_at", nullptr},
                                                  {"next_probe_at", nullptr}, {"last_error", nullptr}});
}

TEST_CASE("endpoint json: a paused endpoint with an open breaker; rows of endpoints not configured are left out",
          "[admin][endpoints]") {
  store::EndpointState crm;
  crm.endpoint = "crm";
  crm.paused_at_ms = 1733040000000;  // 2024-12-01T08:00:00Z
  crm.paused_by = "cli:alice";
  crm.paused_reason = "CRM maintenance";
  crm.breaker = store::BreakerState::kOpen;
  crm.breaker_failures = 5;
  crm.breaker_changed_at_ms = 1733040000000;
  crm.breaker_next_probe_at_ms = 1733040030000;
  crm.breaker_last_error = "connection refused";
  store::EndpointState gone;
  gone.endpoint = "gone";
  gone.paused_at_ms = 1;
  auto j = admin::EndpointsJson(TwoEndpoints(), {gone, crm});
  REQUIRE(j["endpoints"].size() == 2);
  auto e = j["endpoints"][0];
  CHECK(e["name"] == "crm");
  CHECK(e["provider"] == "stripe");
  CHECK(e["has_action"] == true);
  CHECK(e["paused"] == true);
  CHECK(e["paused_at"] == "2024-12-01T08:00:00.000Z");
  CHECK(e["paused_by"] == "cli:alice");
  CHECK(e["paused_reason"] == "CRM maintenance");
  CHECK(e["breaker"]["state"] == "open");
  CHECK(e["breaker"]["failures"] == 5);
  CHECK(e["breaker"]["changed_at"] == "2024-12-01T08:00:00.000Z");
  CHECK(e["breaker"]["next_probe_at"] == "2024-12-01T08:00:30.000Z");
  CHECK(e["breaker"]["last_error"] == "connection refused");
  CHECK(j["endpoints"][1]["paused"] == false);  // "keep" has no row; "gone" is not listed
}

TEST_CASE("endpoint json: a secret rotation under way, still active or past its end", "[admin][endpoints]") {
  std::map<std::string, config::Rotation> rotations;
  rotations["crm"].previous_until_ms = 1796860800000;  // 2026-12-10T00:00:00Z
  auto active = admin::EndpointsJson(TwoEndpoints(), {}, rotations, 1796860800000 - 1);
  CHECK(active["endpoints"][0]["secret_rotation"] ==
        nlohmann::ordered_json{{"previous_until", "2026-12-10T00:00:00.000Z"}, {"previous_active", true}});
  CHECK(active["endpoints"][1]["secret_rotation"].is_null());  // keep: no rotation
  // At its end the previous secret is no longer accepted: still shown, as expired.
  auto ended = admin::EndpointsJson(TwoEndpoints(), {}, rotations, 1796860800000);
  CHECK(ended["endpoints"][0]["secret_rotation"]["previous_active"] == false);
  CHECK(ended["endpoints"][0]["secret_rotation"]["previous_until"] == "2026-12-10T00:00:00.000Z");
  // Without rotations (the CLI's list, a pause's answer): null.
  CHECK(admin::EndpointsJson(TwoEndpoints(), {})["endpoints"][0]["secret_rotation"].is_null());
}
