// admin/endpoint_json.h — one endpoint's dispatch state as GET
// /admin/api/endpoints and `hookinbox endpoints list --json` show it: the
// configured endpoint (name, provider, whether an action processes it) with
// its stored pause and circuit breaker (store/endpoint_states.h).
//
// Only configured endpoints are shown: a row left by an endpoint since
// removed from the config is history, not something an operator can act on.
// An endpoint without a row is running with its breaker closed. Times are
// ISO-8601 UTC strings, absent values null (admin/api_json.h). Pure: the
// caller reads each secret_file's rotation (config/rotation.h) and gives it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/rotation.h"
#include "store/endpoint_states.h"

namespace hookinbox::admin {

// {"name", "provider", "has_action", "paused", "paused_at", "paused_by", "paused_reason",
//  "breaker": {"state", "failures", "changed_at", "next_probe_at", "last_error"},
//  "secret_rotation": {"previous_until", "previous_active"} or null}
// `state` null: no row (running, breaker closed). `rotation` null: its
// secret_file has no rotation under way (or the secret is not one file);
// otherwise previous_active says whether the previous secret is still
// accepted at `now_ms` (false once previous_until has passed: "expired").
nlohmann::ordered_json EndpointJson(const config::EndpointConfig& endpoint, const store::EndpointState* state,
                                    const config::Rotation* rotation = nullptr, int64_t now_ms = 0);

// {"endpoints": [EndpointJson…]} in the config's order; `rotations` by endpoint name.
nlohmann::ordered_json EndpointsJson(const config::Config& config, const std::vector<store::EndpointState>& states,
                                     const std::map<std::string, config::Rotation>& rotations = {},
                                     int64_t now_ms = 0);

}  // namespace hookinbox::admin
