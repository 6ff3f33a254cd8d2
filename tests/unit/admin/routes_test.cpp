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
      {"/v1/events/complete", RouteId::kAttemptEnd, "", "complete", "POST"},
      {"/v1/events/fail", RouteId::kAttemptEnd, "", "fail", "POST"},
      {"/v1/events/unknown", RouteId::kAttemptEnd, "", "unknown", "POST"},
      {"/v1/events/renew", RouteId::kAttemptRenew, "", "", "POST"},
      {"/v1/events/finish", RouteId::kNone, "", "", ""},
      {"/v1/events/", RouteId::kNone, "", "", ""},
      {"/v1/events/1/complete", RouteId::kNone, "", "", ""},
      {"/v1/effects/k", RouteId::kNone, "", "", ""},
      {"/v1/effects/k/delete", RouteId::kNone, "", "", ""},
      {"/v1/effects//complete", RouteId::kNone, "", "", ""},
      {"/v1/effects/", RouteId::kNone, "", "", ""},
      {"/v1/steps/", RouteId::kNone, "", "", ""},
      {"/v1/steps", RouteId::kNone, "", "", ""},
      {"/v1", RouteId::kNone, "", "", ""},
      {"/", RouteId::kNone, "", "", ""},
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

TEST_CASE("admin routes: the endpoints list, pause and resume", "[admin][routes]") {
  AdminRoute list = MatchAdminRoute("/admin/api/endpoints");
  CHECK(list.id == RouteId::kEndpoints);
  CHECK(std::string(list.allow) == "GET");
  CHECK(list.guard == Guard::kAdminToken);
  for (const char* verb : {"pause", "resume"}) {
    INFO(verb);
    AdminRoute r = MatchAdminRoute(std::string("/admin/api/endpoints/crm-eu_1/") + verb);
    CHECK(r.id == RouteId::kEndpointPause);
    CHECK(r.param == "crm-eu_1");
    CHECK(r.action == verb);
    CHECK(std::string(r.allow) == "POST");
    CHECK(r.guard == Guard::kAdminToken);
    CHECK(r.max_body == kMaxJsonBodyBytes);
  }
  for (const char* none : {"/admin/api/endpoints/", "/admin/api/endpoints/crm", "/admin/api/endpoints/crm/",
                           "/admin/api/endpoints//pause", "/admin/api/endpoints/crm/stop",
                           "/admin/api/endpoints/a/b/pause", "/admin/api/endpoints/crm/pause/"}) {
    INFO(none);
    CHECK(MatchAdminRoute(none).id == RouteId::kNone);
  }
}

TEST_CASE("admin routes: an endpoint's secret, rotate and retire", "[admin][routes]") {
  for (const char* verb : {"rotate", "retire"}) {
    INFO(verb);
    AdminRoute r = MatchAdminRoute(std::string("/admin/api/endpoints/crm-eu_1/secret/") + verb);
    CHECK(r.id == RouteId::kEndpointSecret);
    CHECK(r.param == "crm-eu_1");
    CHECK(r.action == verb);
    CHECK(std::string(r.allow) == "POST");
    CHECK(r.guard == Guard::kAdminToken);
    CHECK(r.max_body == kMaxSecretBodyBytes);  // a 64 KiB secret fits, however it is escaped
    CHECK(r.max_body > hookinbox::config::kMaxSecretBytes);
  }
  for (const char* none : {"/admin/api/endpoints/crm/secret", "/admin/api/endpoints/crm/secret/",
                           "/admin/api/endpoints/crm/secret/show", "/admin/api/endpoints//secret/rotate",
                           "/admin/api/endpoints/crm/secret/rotate/", "/admin/api/endpoints/crm/rotate",
                           "/admin/api/endpoints/a/b/secret/rotate"}) {
    INFO(none);
    CHECK(MatchAdminRoute(none).id == RouteId::kNone);
  }
}

TEST_CASE("admin routes: the incidents list, one incident, acknowledge and mute", "[admin][routes]") {
  struct Case {
    const char* path;
    RouteId id;
    const char* param;
    const char* allow;
  };
  const Case cases[] = {
      {"/admin/api/incidents", RouteId::kIncidents, "", "GET"},
      {"/admin/api/incidents/42", RouteId::kIncident, "42", "GET"},
      {"/admin/api/incidents/42/ack", RouteId::kIncidentAck, "42", "POST"},
      {"/admin/api/incidents/42/mute", RouteId::kIncidentMute, "42", "POST"},
  };
  for (const auto& c : cases) {
    INFO(c.path);
    AdminRoute r = MatchAdminRoute(c.path);
    CHECK(r.id == c.id);
    CHECK(r.param == c.param);
    CHECK(std::string(r.allow) == c.allow);
    CHECK(r.guard == Guard::kAdminToken);
  }
  CHECK(MatchAdminRoute("/admin/api/incidents/42/mute").max_body == kMaxJsonBodyBytes);
  for (const char* none : {"/admin/api/incidents/", "/admin/api/incidents/x", "/admin/api/incidents/4x/ack",
                           "/admin/api/incidents/42/", "/admin/api/incidents/42/unmute", "/admin/api/incidents//ack",
                           "/admin/api/incidents/1234567890123456789"}) {
    INFO(none);
    CHECK(MatchAdminRoute(none).id == RouteId::kNone);
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

TEST_CASE("admin routes: the admin API, the UI and /metrics, with the credential each needs", "[admin][routes]") {
  struct Case {
    const char* path;
    RouteId id;
    const char* param;
    const char* allow;
    Guard guard;
  };
  const Case cases[] = {
      {"/admin/api/events", RouteId::kEvents, "", "GET", Guard::kAdminToken},
      {"/admin/api/events/42", RouteId::kEvent, "42", "GET", Guard::kAdminToken},
      {"/admin/api/events/42/replay", RouteId::kEventReplay, "42", "POST", Guard::kAdminToken},
      {"/admin/api/events/42/resolve", RouteId::kEventResolve, "42", "POST", Guard::kAdminToken},
      {"/admin/api/events/replay", RouteId::kEventsReplay, "", "POST", Guard::kAdminToken},
      {"/admin/api/dead-letters", RouteId::kDeadLetters, "", "GET", Guard::kAdminToken},
      {"/admin/api/unknown", RouteId::kUnknownQueue, "", "GET", Guard::kAdminToken},
      {"/admin/api/conflicts", RouteId::kConflicts, "", "GET", Guard::kAdminToken},
      {"/admin/api/effects/resolve", RouteId::kEffectResolve, "", "POST", Guard::kAdminToken},
      {"/admin/api/stats", RouteId::kStats, "", "GET", Guard::kAdminToken},
      {"/admin/api/activity", RouteId::kActivity, "", "GET", Guard::kAdminToken},
      {"/admin/api/export.db", RouteId::kExport, "", "GET", Guard::kAdminToken},
      {"/admin/api/reconcile", RouteId::kReconcile, "", "GET, POST", Guard::kAdminToken},
      {"/admin/api/reload", RouteId::kReload, "", "POST", Guard::kAdminToken},
      {"/admin/api/reload/x", RouteId::kNone, "", "", Guard::kHandlerToken},
      {"/metrics", RouteId::kMetrics, "", "GET", Guard::kMetricsToken},
      {"/admin/", RouteId::kUi, "", "GET", Guard::kOpen},
      {"/admin", RouteId::kUi, "", "GET", Guard::kOpen},
      {"/admin/app.js", RouteId::kUi, "app.js", "GET", Guard::kOpen},
      {"/admin/api/events/4x", RouteId::kNone, "", "", Guard::kHandlerToken},
      {"/admin/api/events/", RouteId::kNone, "", "", Guard::kHandlerToken},
      {"/admin/api/events/1/delete", RouteId::kNone, "", "", Guard::kHandlerToken},
      {"/admin/api/events/1234567890123456789", RouteId::kNone, "", "", Guard::kHandlerToken},
      {"/admin/api/nope", RouteId::kNone, "", "", Guard::kHandlerToken},
      {"/admin/api", RouteId::kNone, "", "", Guard::kHandlerToken},
      {"/metrics/x", RouteId::kNone, "", "", Guard::kHandlerToken},
  };
  for (const auto& c : cases) {
    INFO(c.path);
    AdminRoute r = MatchAdminRoute(c.path);
    CHECK(r.id == c.id);
    CHECK(r.param == c.param);
    CHECK(std::string(r.allow) == c.allow);
    CHECK(r.guard == c.guard);
  }
  CHECK(MatchAdminRoute("/admin").action == "redirect");
  CHECK(MatchAdminRoute("/admin/api/reconcile").max_body == kMaxReconcileBodyBytes);
  CHECK(MatchAdminRoute("/admin/api/events/1/replay").max_body == kMaxJsonBodyBytes);
  CHECK(MatchAdminRoute("/admin/api/events").max_body == 0);
  CHECK(MatchAdminRoute("/admin/api/reload").max_body == kMaxJsonBodyBytes);
}
