#include "admin/routes.h"

#include "store/ledger.h"

namespace hookinbox::admin {
namespace {

constexpr std::string_view kEffectsPrefix = "/v1/effects/";
constexpr std::string_view kStepsPrefix = "/v1/steps/";

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

}  // namespace

AdminRoute MatchAdminRoute(std::string_view path) {
  if (StartsWith(path, kEffectsPrefix)) return EffectRoute(path.substr(kEffectsPrefix.size()));
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
