// alert/conditions.h — the alert conditions as a pure function: the figures
// of one check (store/alert_signals.h plus what only the process knows) and
// the thresholds in, one Finding per enabled (condition, endpoint) out, each
// with the three messages a person may get about it. No I/O, no clock: the
// engine (alert/engine.h) reads, calls Evaluate and hands the findings to
// store::Incidents. Semantics of each condition: README "Alerts: conditions".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "alert/notification.h"
#include "config/config.h"
#include "store/alert_signals.h"

namespace hookinbox::alert {

// The windows the figures are counted over.
inline constexpr int64_t kSignatureWindowMs = 5 * 60 * 1000;
inline constexpr int64_t kConflictWindowMs = 24 * 3600 * 1000;
inline constexpr int64_t kStorageWindowMs = 5 * 60 * 1000;

struct CheckInput {
  int64_t now_ms = 0;
  std::vector<store::EndpointSignals> endpoints;
  // Breaker open since, as the engine tracks it (the first check that saw it
  // not closed), which a half-open trial does not reset; overrides
  // EndpointSignals::breaker_open_since_ms when present.
  std::map<std::string, int64_t> breaker_open_since_ms;
  std::optional<store::InstallationSignals> installation;  // none = not read this time (no finding)
  std::optional<int64_t> storage_failures;                 // 503s in the last kStorageWindowMs
  std::optional<int64_t> certificate_not_after_ms;         // none = no TLS listener
};

struct Finding {
  std::string condition;  // store::Incident::condition
  std::string endpoint;   // "" = the whole installation
  bool holds = false;
  int64_t count = 0;      // the condition's figure (events, deliveries, seconds, days, bytes)
  std::string summary;    // one line, the start message's title
  Notification start, reminder, resolved;
};

// The findings of every enabled condition, endpoints in config order, then
// the installation-wide ones. `ui_url` becomes each message's link.
std::vector<Finding> Evaluate(const config::Config& config, const CheckInput& in);

// The engine's query for this check: windows relative to `now_ms`, the longest silence of any endpoint.
store::SignalQuery MakeSignalQuery(const config::Config& config, int64_t now_ms);

// "2 days 3 h", "45 min", "20 s": a duration as a person reads it.
std::string HumanDuration(int64_t ms);
// "2026-12-02 03:10 UTC".
std::string UtcMinute(int64_t ms);
// "1.5 GB", "320 MB".
std::string HumanBytes(int64_t bytes);

}  // namespace hookinbox::alert
