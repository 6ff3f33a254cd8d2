// cli/secret_rotation.h — one step of a secret rotation, shared by
// `hookinbox secrets rotate|retire` and the service's admin hook (POST
// /admin/api/endpoints/{name}/secret/rotate|retire).
//
// The step is recorded only once it is in force, and undone when it cannot
// be: an audit row never claims a rotation the service does not serve.
#pragma once

#include <cstdint>
#include <functional>

#include "cli/load_config.h"
#include "config/rotation.h"
#include "store/endpoint_states.h"

namespace hookinbox::cli {

// Loads and checks the config file as it is on disk now, with the checks the
// reload that follows runs (LoadAndCheck with the caller's environment).
using LoadNow = std::function<CheckedConfig()>;

// What putting the changed files in force came to.
struct InForce {
  bool keep = true;  // false: not in force; the files are put back, nothing is recorded
  // keep false: why (the message ends the refusal). keep true: ok, or why it
  // is not in force yet although kept (the CLI found no service to ask: its
  // next start reads the files).
  Status status;
};
// Puts the changed files in force: the service reloads itself; the CLI asks
// the running service to reload.
using PutInForce = std::function<InForce()>;

// Does `ask` (rotate, or retire) for an endpoint of `in_force`: checks the
// ask, locks the secret's directory (`wait_for_lock` false: refuse when
// another step holds it), changes the files, checks the config file as it
// now is (undoing on any problem), puts it in force (undoing when that is
// refused), then records the step in endpoint_actions. The answer's status
// says what was wrong (config/rotation.h); nothing changed then, except when
// it says the audit row could not be written after the change was in force.
config::SecretRotateAnswer ApplySecretStep(const config::Config& in_force, const config::SecretRotateAsk& ask,
                                           const LoadNow& load_now, const PutInForce& put_in_force,
                                           store::EndpointStates& audit, int64_t now_ms, bool wait_for_lock);

}  // namespace hookinbox::cli
