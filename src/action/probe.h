// action/probe.h — reconcile before retry: ask the downstream whether an
// attempt whose answer was lost took effect (SPEC §6 action.probe_url).
//
// A GET to action.probe_url with {idempotency_key}, {event_id} and
// {event_type} filled in (percent-encoded), carrying Idempotency-Key and
// X-Hookinbox-Probe: reconcile. 200 = found (result_ref from the action's
// result_ref_header / result_ref_pointer, else a JSON answer's "result_ref");
// 404 = not found; anything else, or no answer, = cannot tell. Only a clear
// 404 lets an event that may have had its effect run again.
#pragma once

#include <string>

#include "config/config.h"
#include "action/action.h"

namespace hookinbox::action {

enum class ProbeVerdict { kFound, kNotFound, kUnclear };

struct ProbeResult {
  ProbeVerdict verdict = ProbeVerdict::kUnclear;
  int http_status = 0;     // 0 = no answer
  std::string result_ref;  // kFound
  std::string error;       // short description for the attempt row, e.g. "probe: found", "probe: HTTP 500"
};

// `template_url` with its placeholders filled from `input`.
std::string ExpandProbeUrl(const std::string& template_url, const ActionInput& input);

// Asks action.probe_url (REQUIRES: not empty) about `input`'s event.
ProbeResult Probe(const config::ActionConfig& action, const ActionInput& input);

}  // namespace hookinbox::action
