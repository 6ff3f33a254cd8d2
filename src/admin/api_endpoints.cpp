// The endpoint routes of the admin API: every configured endpoint with its
// pause and circuit breaker, and pause / resume (store/endpoint_states.h).
// See admin_api.h.
//
// Pausing a paused endpoint (or resuming a running one) is not an error: it
// answers 200 with "changed": false and writes nothing, so a retried request
// or a second click finds the state it asked for. The worker of every
// replica reads the pause at its next poll.
#include <nlohmann/json.hpp>

#include "admin/admin_api.h"
#include "admin/api_json.h"
#include "admin/endpoint_json.h"
#include "common/log.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

using nlohmann::ordered_json;

std::string DumpOrdered(const ordered_json& j) { return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }

}  // namespace

void AdminApi::ListEndpoints(const config::Config& config, httplib::Response& res) const {
  auto states = store_.ListEndpointStates();
  if (!states.ok()) return http::ReplyError(res, states.status());
  res.set_header("Cache-Control", "no-store");
  http::ReplyJson(res, 200, DumpOrdered(EndpointsJson(config, *states)));
}

void AdminApi::PauseEndpoint(const config::Config& config, const AdminRoute& route, const httplib::Request& req,
                             httplib::Response& res) const {
  const bool pause = route.action == "pause";
  const config::EndpointConfig* endpoint = config.FindEndpoint(route.param);
  if (endpoint == nullptr) return http::ReplyError(res, NotFound("no endpoint named " + route.param + " in the config"));
  auto body = ParseJsonObject(req.body, true);
  if (!body.ok()) return http::ReplyError(res, body.status());
  auto reason = StringMember(*body, "reason", false);
  if (!reason.ok()) return http::ReplyError(res, reason.status());
  const std::string actor = AdminActor(req);
  auto changed = store_.SetPaused(endpoint->name, pause, actor, *reason, clock_.NowMs());
  if (!changed.ok()) return http::ReplyError(res, changed.status());
  // One line per change (a no-op writes nothing, so logs nothing). The
  // reason stays in the database: it is an operator's free text.
  if (*changed) log::Info(pause ? "endpoint_paused" : "endpoint_resumed", {{"endpoint", endpoint->name}, {"actor", actor}});
  auto states = store_.ListEndpointStates();
  if (!states.ok()) return http::ReplyError(res, states.status());
  const store::EndpointState* state = nullptr;
  for (const auto& s : *states) {
    if (s.endpoint == endpoint->name) state = &s;
  }
  http::ReplyJson(res, 200, DumpOrdered({{"endpoint", EndpointJson(*endpoint, state)}, {"changed", *changed}}));
}

}  // namespace hookinbox::admin
