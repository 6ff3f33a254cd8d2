// admin/routes.h — every route of the admin listener, in one place.
//
// cpp-httplib 0.11.4 routes by regex and has no 404/405 distinction, so the
// admin listener matches paths itself: MatchAdminRoute is the only table,
// used by the pre-routing check (404, 405, 413 before a body is read) and
// by the dispatcher: the handler API (/v1), the admin API (/admin/api), the
// UI's files (/admin/) and /metrics. Pure: no I/O.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "config/config.h"

namespace hookinbox::admin {

enum class RouteId {
  kNone,         // no such path: 404
  kEffectClaim,  // POST /v1/effects/claim
  kEffectEnd,    // POST /v1/effects/{key}/complete|fail|unknown
  kStep,         // PUT|GET /v1/steps/{name}
  kAttemptEnd,   // POST /v1/events/complete|fail|unknown (an async attempt's end, by its handler)
  kAttemptRenew, // POST /v1/events/renew
  kMetrics,      // GET /metrics
  kUi,           // GET /admin, /admin/, /admin/{asset}
  kEvents,       // GET /admin/api/events
  kEvent,        // GET /admin/api/events/{id}
  kEventReplay,  // POST /admin/api/events/{id}/replay
  kEventResolve, // POST /admin/api/events/{id}/resolve
  kEventsReplay, // POST /admin/api/events/replay (bulk, by filter)
  kDeadLetters,  // GET /admin/api/dead-letters
  kUnknownQueue, // GET /admin/api/unknown
  kConflicts,    // GET /admin/api/conflicts
  kEffectResolve,// POST /admin/api/effects/resolve
  kStats,        // GET /admin/api/stats
  kActivity,     // GET /admin/api/activity (the dashboard's charts)
  kExport,       // GET /admin/api/export.db
  kReconcile,    // GET|POST /admin/api/reconcile
  kEndpoints,    // GET /admin/api/endpoints
  kEndpointPause,// POST /admin/api/endpoints/{name}/pause|resume (action says which)
  kIncidents,    // GET /admin/api/incidents
  kIncident,     // GET /admin/api/incidents/{id}
  kIncidentAck,  // POST /admin/api/incidents/{id}/ack
  kIncidentMute, // POST /admin/api/incidents/{id}/mute
  kReload,       // POST /admin/api/reload
  kEndpointSecret,// POST /admin/api/endpoints/{name}/secret/rotate|retire (action says which)
};

// Which credential a route needs.
enum class Guard {
  kHandlerToken,  // /v1: the event's handler token (admin/handler_api)
  kAdminToken,    // /admin/api: the admin token (admin/auth)
  kMetricsToken,  // /metrics: a metrics token when one is configured
  kOpen,          // the UI's static files: they hold no data; every call they make needs the admin token
};

// The largest JSON body the effect routes read (bytes); a step body may be
// up to store::kMaxStepBytes.
inline constexpr size_t kMaxJsonBodyBytes = 64 * 1024;
// The largest new secret POST /admin/api/endpoints/{name}/secret/rotate takes
// (bytes, as decoded), and the largest body of that route: room for the
// secret written with JSON's longest escapes ("\u0001", six bytes per byte).
inline constexpr size_t kMaxSecretBodyBytes = 6 * config::kMaxSecretBytes + 1024;
// The largest body of POST /admin/api/reconcile: a provider's export of ids.
inline constexpr size_t kMaxReconcileBodyBytes = 1024 * 1024;
// A body past its route's limit is still read (and dropped) up to this, so
// the client reads our 413 instead of a reset; one declared larger is
// refused unread and its connection closed (reading it only to say no would
// let one client tie up a thread).
inline constexpr int64_t kAdminDrainLimit = 16 * 1024 * 1024;

struct AdminRoute {
  RouteId id = RouteId::kNone;
  std::string param;   // the effect key, step name, event or incident id, endpoint name or UI asset, as decoded from the path
  // kEffectEnd, kAttemptEnd: "complete" | "fail" | "unknown"; kEndpointPause:
  // "pause" | "resume"; kEndpointSecret: "rotate" | "retire"
  std::string action;
  const char* allow = "";  // the methods the path accepts, as an Allow header
  size_t max_body = 0;     // the largest body the route reads
  Guard guard = Guard::kHandlerToken;
};

// The route of a decoded request path. A key or name may itself contain '/'
// (sent percent-encoded); the action is the last segment.
AdminRoute MatchAdminRoute(std::string_view path);

// True when `method` is one of `allow` ("GET, PUT").
bool MethodAllowed(const AdminRoute& route, std::string_view method);

}  // namespace hookinbox::admin
