// admin/endpoint_json.h — one endpoint's dispatch state as GET
// /admin/api/endpoints and `hookinbox endpoints list --json` show it: the
// configured endpoint (name, provider, whether an action processes it) with
// its stored pause and circuit breaker (store/endpoint_states.h).
//
// Only configured endpoints are shown: a row left by an endpoint since
// removed from the config is history, not something an operator can act on.
// An endpoint without a row is running with its breaker closed. Times are
// ISO-8601 UTC strings, absent values null (admin/api_json.h). Pure.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "config/config.h"
#include "store/endpoint_states.h"

namespace hookinbox::admin {

// {"name", "provider", "has_action", "paused", "paused_at", "paused_by", "paused_reason",
//  "breaker": {"state", "failures", "changed_at", "next_probe_at", "last_error"}}
// `state` null: no row (running, breaker closed).
nlohmann::ordered_json EndpointJson(const config::EndpointConfig& endpoint, const store::EndpointState* state);

// {"endpoints": [EndpointJson…]} in the config's order.
nlohmann::ordered_json EndpointsJson(const config::Config& config, const std::vector<store::EndpointState>& states);

}  // namespace hookinbox::admin
