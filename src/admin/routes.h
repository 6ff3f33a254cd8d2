// admin/routes.h — every route of the admin listener, in one place.
//
// cpp-httplib 0.11.4 routes by regex and has no 404/405 distinction, so the
// admin listener matches paths itself: MatchAdminRoute is the only table,
// used by the pre-routing check (404, 405, 413 before a body is read) and
// by the dispatcher. Only the handler API (/v1) exists so far; /admin and
// /metrics arrive with the admin issue. Pure: no I/O.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hookinbox::admin {

enum class RouteId {
  kNone,         // no such path: 404
  kEffectClaim,  // POST /v1/effects/claim
  kEffectEnd,    // POST /v1/effects/{key}/complete|fail|unknown
  kStep,         // PUT|GET /v1/steps/{name}
};

// The largest JSON body the effect routes read (bytes); a step body may be
// up to store::kMaxStepBytes.
inline constexpr size_t kMaxJsonBodyBytes = 64 * 1024;

struct AdminRoute {
  RouteId id = RouteId::kNone;
  std::string param;   // the effect key or step name, as decoded from the path
  std::string action;  // kEffectEnd: "complete" | "fail" | "unknown"
  const char* allow = "";  // the methods the path accepts, as an Allow header
  size_t max_body = 0;     // the largest body the route reads
};

// The route of a decoded request path. A key or name may itself contain '/'
// (sent percent-encoded); the action is the last segment.
AdminRoute MatchAdminRoute(std::string_view path);

// True when `method` is one of `allow` ("GET, PUT").
bool MethodAllowed(const AdminRoute& route, std::string_view method);

}  // namespace hookinbox::admin
