#include "admin/routes.h"

#include "store/ledger.h"

namespace hookinbox::admin {
namespace {

constexpr std::string_view kEffectsPrefix = "/v1/effects/";
constexpr std::string_view kStepsPrefix = "/v1/steps/";
constexpr std::string_view kEventsPrefix = "/v1/events/";

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

AdminRoute EffectRoute(std::string_view rest) {
  AdminRoute r;
  if (rest == "claim") {
    r.id = RouteId::kEffectClaim;
  } else {
    size_t slash = rest.rfind('/');
    if (slash == std::string_view::npos || slash == 0) return r;
    std::string_view action = rest.substr(slash + 1);
    if (action != "complete" && action != "fail" && action != "unknown") return r;
    r.id = RouteId::kEffectEnd;
    r.param = std::string(rest.substr(0, slash));
    r.action = std::string(action);
  }
  r.allow = "POST";
  r.max_body = kMaxJsonBodyBytes;
  return r;
}

// /v1/events/{verb}: the handler's end or renewal of its (async) attempt.
AdminRoute AttemptRoute(std::string_view verb) {
  AdminRoute r;
  if (verb == "renew") {
    r.id = RouteId::kAttemptRenew;
  } else if (verb == "complete" || verb == "fail" || verb == "unknown") {
    r.id = RouteId::kAttemptEnd;
    r.action = std::string(verb);
  } else {
    return r;
  }
  r.allow = "POST";
  r.max_body = kMaxJsonBodyBytes;
  return r;
}

AdminRoute Make(RouteId id, const char* allow, Guard guard, size_t max_body = 0, std::string param = "") {
  AdminRoute r;
  r.id = id;
  r.allow = allow;
  r.guard = guard;
  r.max_body = max_body;
  r.param = std::move(param);
  return r;
}

// An event or incident id in a path: decimal digits only, so "/events/1x" is no route.
bool IsEventId(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// /admin/api/events/{id}[/replay|/resolve]
AdminRoute EventRoute(std::string_view rest) {
  size_t slash = rest.find('/');
  std::string_view id = rest.substr(0, slash);
  if (!IsEventId(id)) return {};
  if (slash == std::string_view::npos) return Make(RouteId::kEvent, "GET", Guard::kAdminToken, 0, std::string(id));
  std::string_view verb = rest.substr(slash + 1);
  if (verb == "replay") return Make(RouteId::kEventReplay, "POST", Guard::kAdminToken, kMaxJsonBodyBytes, std::string(id));
  if (verb == "resolve") {
    return Make(RouteId::kEventResolve, "POST", Guard::kAdminToken, kMaxJsonBodyBytes, std::string(id));
  }
  return {};
}

// /admin/api/endpoints/{name}/pause|resume and …/{name}/secret/rotate|retire;
// the name is one path segment.
AdminRoute EndpointRoute(std::string_view rest) {
  size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string_view::npos) return {};
  std::string_view verb = rest.substr(slash + 1);
  RouteId id = RouteId::kEndpointPause;
  if (verb == "secret/rotate" || verb == "secret/retire") {
    id = RouteId::kEndpointSecret;
    verb.remove_prefix(std::string_view("secret/").size());
  } else if (verb != "pause" && verb != "resume") {
    return {};
  }
  const size_t max_body = id == RouteId::kEndpointSecret ? kMaxSecretBodyBytes : kMaxJsonBodyBytes;
  AdminRoute r = Make(id, "POST", Guard::kAdminToken, max_body, std::string(rest.substr(0, slash)));
  r.action = std::string(verb);
  return r;
}

// /admin/api/incidents/{id}[/ack|/mute]
AdminRoute IncidentRoute(std::string_view rest) {
  size_t slash = rest.find('/');
  std::string_view id = rest.substr(0, slash);
  if (!IsEventId(id)) return {};
  if (slash == std::string_view::npos) return Make(RouteId::kIncident, "GET", Guard::kAdminToken, 0, std::string(id));
  std::string_view verb = rest.substr(slash + 1);
  if (verb == "ack") return Make(RouteId::kIncidentAck, "POST", Guard::kAdminToken, kMaxJsonBodyBytes, std::string(id));
  if (verb == "mute") return Make(RouteId::kIncidentMute, "POST", Guard::kAdminToken, kMaxJsonBodyBytes, std::string(id));
  return {};
}

AdminRoute ApiRoute(std::string_view rest) {
  constexpr std::string_view kEventsPrefix = "events/";
  if (rest == "events") return Make(RouteId::kEvents, "GET", Guard::kAdminToken);
  if (rest == "events/replay") return Make(RouteId::kEventsReplay, "POST", Guard::kAdminToken, kMaxJsonBodyBytes);
  if (StartsWith(rest, kEventsPrefix)) return EventRoute(rest.substr(kEventsPrefix.size()));
  if (rest == "dead-letters") return Make(RouteId::kDeadLetters, "GET", Guard::kAdminToken);
  if (rest == "unknown") return Make(RouteId::kUnknownQueue, "GET", Guard::kAdminToken);
  if (rest == "conflicts") return Make(RouteId::kConflicts, "GET", Guard::kAdminToken);
  if (rest == "effects/resolve") return Make(RouteId::kEffectResolve, "POST", Guard::kAdminToken, kMaxJsonBodyBytes);
  constexpr std::string_view kEndpointsPrefix = "endpoints/";
  if (rest == "endpoints") return Make(RouteId::kEndpoints, "GET", Guard::kAdminToken);
  if (StartsWith(rest, kEndpointsPrefix)) return EndpointRoute(rest.substr(kEndpointsPrefix.size()));
  constexpr std::string_view kIncidentsPrefix = "incidents/";
  if (rest == "incidents") return Make(RouteId::kIncidents, "GET", Guard::kAdminToken);
  if (StartsWith(rest, kIncidentsPrefix)) return IncidentRoute(rest.substr(kIncidentsPrefix.size()));
  if (rest == "stats") return Make(RouteId::kStats, "GET", Guard::kAdminToken);
  if (rest == "activity") return Make(RouteId::kActivity, "GET", Guard::kAdminToken);
  if (rest == "export.db") return Make(RouteId::kExport, "GET", Guard::kAdminToken);
  if (rest == "reconcile") return Make(RouteId::kReconcile, "GET, POST", Guard::kAdminToken, kMaxReconcileBodyBytes);
  if (rest == "reload") return Make(RouteId::kReload, "POST", Guard::kAdminToken, kMaxJsonBodyBytes);
  return {};
}

}  // namespace

AdminRoute MatchAdminRoute(std::string_view path) {
  constexpr std::string_view kApiPrefix = "/admin/api/";
  constexpr std::string_view kUiPrefix = "/admin/";
  if (StartsWith(path, kEffectsPrefix)) return EffectRoute(path.substr(kEffectsPrefix.size()));
  if (StartsWith(path, kEventsPrefix)) return AttemptRoute(path.substr(kEventsPrefix.size()));
  if (StartsWith(path, kApiPrefix)) return ApiRoute(path.substr(kApiPrefix.size()));
  if (path == "/metrics") return Make(RouteId::kMetrics, "GET", Guard::kMetricsToken);
  if (path == "/admin") {
    AdminRoute r = Make(RouteId::kUi, "GET", Guard::kOpen);
    r.action = "redirect";  // to "/admin/", so the page's relative links resolve below it
    return r;
  }
  if (StartsWith(path, kUiPrefix) && path != "/admin/api") {
    return Make(RouteId::kUi, "GET", Guard::kOpen, 0, std::string(path.substr(kUiPrefix.size())));
  }
  AdminRoute r;
  if (StartsWith(path, kStepsPrefix) && path.size() > kStepsPrefix.size()) {
    r.id = RouteId::kStep;
    r.param = std::string(path.substr(kStepsPrefix.size()));
    r.allow = "GET, PUT";
    r.max_body = store::kMaxStepBytes;
  }
  return r;
}

bool MethodAllowed(const AdminRoute& route, std::string_view method) {
  std::string_view allow = route.allow;
  while (!allow.empty()) {
    size_t comma = allow.find(", ");
    if (allow.substr(0, comma) == method) return true;
    if (comma == std::string_view::npos) break;
    allow.remove_prefix(comma + 2);
  }
  return false;
}

}  // namespace hookinbox::admin
