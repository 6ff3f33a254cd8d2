#include "admin/endpoint_json.h"

#include "admin/api_json.h"

namespace hookinbox::admin {
namespace {

using nlohmann::ordered_json;

ordered_json OrNull(const std::string& s) { return s.empty() ? ordered_json(nullptr) : ordered_json(s); }
ordered_json Time(const std::optional<int64_t>& ms) { return ms ? ordered_json(IsoTime(*ms)) : ordered_json(nullptr); }

ordered_json RotationJson(const config::Rotation* rotation, int64_t now_ms) {
  if (rotation == nullptr) return nullptr;
  return {{"previous_until", ordered_json(IsoTime(rotation->previous_until_ms))},
          {"previous_active", now_ms < rotation->previous_until_ms}};
}

}  // namespace

ordered_json EndpointJson(const config::EndpointConfig& endpoint, const store::EndpointState* state,
                          const config::Rotation* rotation, int64_t now_ms) {
  const store::EndpointState none;
  const store::EndpointState& s = state != nullptr ? *state : none;
  ordered_json breaker = {{"state", store::BreakerStateName(s.breaker)},
                          {"failures", s.breaker_failures},
                          {"changed_at", Time(s.breaker_changed_at_ms)},
                          {"next_probe_at", Time(s.breaker_next_probe_at_ms)},
                          {"last_error", OrNull(s.breaker_last_error)}};
  return {{"name", endpoint.name},
          {"provider", endpoint.provider},
          {"has_action", endpoint.HasAction()},
          {"paused", s.paused()},
          {"paused_at", Time(s.paused_at_ms)},
          {"paused_by", OrNull(s.paused_by)},
          {"paused_reason", OrNull(s.paused_reason)},
          {"breaker", std::move(breaker)},
          {"secret_rotation", RotationJson(rotation, now_ms)}};
}

ordered_json EndpointsJson(const config::Config& config, const std::vector<store::EndpointState>& states,
                           const std::map<std::string, config::Rotation>& rotations, int64_t now_ms) {
  ordered_json list = ordered_json::array();
  for (const auto& endpoint : config.endpoints) {
    const store::EndpointState* state = nullptr;
    for (const auto& s : states) {
      if (s.endpoint == endpoint.name) state = &s;
    }
    auto rotation = rotations.find(endpoint.name);
    list.push_back(EndpointJson(endpoint, state, rotation == rotations.end() ? nullptr : &rotation->second, now_ms));
  }
  return {{"endpoints", std::move(list)}};
}

}  // namespace hookinbox::admin
