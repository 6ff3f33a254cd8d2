// The endpoint routes of the admin API: every configured endpoint with its
// pause, circuit breaker and secret rotation, and pause / resume
// (store/endpoint_states.h). See admin_api.h.
//
// Pausing a paused endpoint (or resuming a running one) is not an error: it
// answers 200 with "changed": false and writes nothing, so a retried request
// or a second click finds the state it asked for. The worker of every
// replica reads the pause at its next poll.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>

#include "admin/admin_api.h"
#include "admin/api_json.h"
#include "admin/endpoint_json.h"
#include "common/log.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

using nlohmann::ordered_json;

std::string DumpOrdered(const ordered_json& j) { return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }

// The rotation beside an endpoint's secret_file (config/rotation.h), read
// at each request: `hookinbox secrets rotate` in another process, or a
// replica, may have written it since. Only an endpoint whose secret is that
// one file can have one (what rotation rotates). A file that cannot be read
// is logged and shown as no rotation: the list still answers.
std::optional<config::Rotation> RotationOf(const config::EndpointConfig& e) {
  const std::string file = config::RotatableSecretFile(e);
  if (file.empty()) return std::nullopt;
  auto rotation = config::ReadRotation(file);
  if (!rotation.ok()) {
    log::Warn("secret_rotation_unreadable", {{"endpoint", e.name}, {"error", rotation.status().message()}});
    return std::nullopt;
  }
  return *rotation;
}

std::map<std::string, config::Rotation> Rotations(const config::Config& config) {
  std::map<std::string, config::Rotation> out;
  for (const auto& e : config.endpoints) {
    if (auto rotation = RotationOf(e)) out.emplace(e.name, *rotation);
  }
  return out;
}

}  // namespace

void AdminApi::ListEndpoints(const config::Config& config, httplib::Response& res) const {
  auto states = store_.ListEndpointStates();
  if (!states.ok()) return http::ReplyError(res, states.status());
  res.set_header("Cache-Control", "no-store");
  http::ReplyJson(res, 200, DumpOrdered(EndpointsJson(config, *states, Rotations(config), clock_.NowMs())));
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
  const std::optional<config::Rotation> rotation = RotationOf(*endpoint);
  http::ReplyJson(res, 200,
                  DumpOrdered({{"endpoint", EndpointJson(*endpoint, state, rotation ? &*rotation : nullptr, clock_.NowMs())},
                               {"changed", *changed}}));
}

}  // namespace hookinbox::admin
