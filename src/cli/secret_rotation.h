// cli/secret_rotation.h — one step of a secret rotation, shared by
// `hookinbox secrets rotate|retire` and the service's admin hook (POST
// /admin/api/endpoints/{name}/secret/rotate|retire).
//
// Checks the ask against the config in force, changes the files beside the
// endpoint's secret_file (config/rotation.h), loads the config file again as
// check-config would — undoing the change when it does not load — and
// records the step in endpoint_actions. The reload that puts it in force is
// the caller's: the CLI asks the running service, the service reloads itself.
#pragma once

#include <cstdint>
#include <functional>

#include "cli/load_config.h"
#include "config/rotation.h"
#include "store/endpoint_states.h"

namespace hookinbox::cli {

// Loads and checks the config file as it is on disk now (LoadAndCheck with
// the caller's environment).
using LoadNow = std::function<CheckedConfig()>;

// Does `ask` (rotate, or retire) for an endpoint of `in_force`. The answer's
// status says what was wrong, changing nothing (rotation.h); `reloaded` is
// always false here.
config::SecretRotateAnswer ApplySecretStep(const config::Config& in_force, const config::SecretRotateAsk& ask,
                                           const LoadNow& load_now, store::EndpointStates& audit, int64_t now_ms);

}  // namespace hookinbox::cli
