#include "admin/routes.h"

#include <catch2/catch.hpp>

#include "store/ledger.h"

using namespace hookinbox::admin;

TEST_CASE("admin routes: the handler API's paths, their parameters and methods", "[admin][routes]") {
  struct Case {
    const char* path;
    RouteId id;
    const char* param;
    const char* action;
    const char* allow;
  };
  const Case cases[] = {
      {"/v1/effects/claim", RouteId::kEffectClaim, "", "", "POST"},
      {"/v1/effects/notify:evt_1:welcome/complete", RouteId::kEffectEnd, "notify:evt_1:welcome", "complete", "POST"},
      {"/v1/effects/k/fail", RouteId::kEffectEnd, "k", "fail", "POST"},
      {"/v1/effects/k/unknown", RouteId::kEffectEnd, "k", "unknown", "POST"},
      {"/v1/effects/claim/complete", RouteId::kEffectEnd, "claim", "complete", "POST"},  // a key named "claim"
      {"/v1/effects/a/b/complete", RouteId::kEffectEnd, "a/b", "complete", "POST"},      // '/' sent as %2F
      {"/v1/steps/draft", RouteId::kStep, "draft", "", "GET, PUT"},
      {"/v1/steps/a/b", RouteId::kStep, "a/b", "", "GET, PUT"},
      {"/v1/effects/k", RouteId::kNone, "", "", ""},
      {"/v1/effects/k/delete", RouteId::kNone, "", "", ""},
      {"/v1/effects//complete", RouteId::kNone, "", "", ""},
      {"/v1/effects/", RouteId::kNone, "", "", ""},
      {"/v1/steps/", RouteId::kNone, "", "", ""},
      {"/v1/steps", RouteId::kNone, "", "", ""},
      {"/v1", RouteId::kNone, "", "", ""},
      {"/", RouteId::kNone, "", "", ""},
      {"/admin/api/events", RouteId::kNone, "", "", ""},
  };
  for (const auto& c : cases) {
    INFO(c.path);
    AdminRoute r = MatchAdminRoute(c.path);
    CHECK(r.id == c.id);
    CHECK(r.param == c.param);
    CHECK(r.action == c.action);
    CHECK(std::string(r.allow) == c.allow);
  }
}

TEST_CASE("admin routes: methods and body limits", "[admin][routes]") {
  AdminRoute claim = MatchAdminRoute("/v1/effects/claim");
  CHECK(MethodAllowed(claim, "POST"));
  CHECK_FALSE(MethodAllowed(claim, "GET"));
  CHECK_FALSE(MethodAllowed(claim, "POS"));
  CHECK(claim.max_body == kMaxJsonBodyBytes);
  AdminRoute step = MatchAdminRoute("/v1/steps/x");
  CHECK(MethodAllowed(step, "GET"));
  CHECK(MethodAllowed(step, "PUT"));
  CHECK_FALSE(MethodAllowed(step, "DELETE"));
  CHECK_FALSE(MethodAllowed(step, "HEAD"));
  CHECK(step.max_body == hookinbox::store::kMaxStepBytes);
  CHECK_FALSE(MethodAllowed(MatchAdminRoute("/nope"), "GET"));
}
