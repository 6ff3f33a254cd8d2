// store/endpoint_states.h — each endpoint's dispatch state (schema.sql,
// endpoint_states and endpoint_actions): an operator's pause, with who, why
// and since when, and the circuit breaker as a worker last recorded it.
//
// A paused endpoint still receives and stores its deliveries; the worker
// leases none of its events until it is resumed (worker/worker_loop.h reads
// PausedEndpoints at every poll, so a pause from the CLI, the admin API or
// another replica takes hold within one poll). Running attempts finish.
// Pause and resume write an endpoint_actions row naming the actor. The
// breaker's decisions live in the worker (worker/breaker.h); RecordBreaker
// only makes them visible (UI, API, CLI) and survives a restart as history.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::store {

enum class BreakerState { kClosed, kOpen, kHalfOpen };
const char* BreakerStateName(BreakerState s);  // "closed", "open", "half_open" (the stored text)
std::optional<BreakerState> BreakerStateFromName(const std::string& name);

struct EndpointState {
  std::string endpoint;
  std::optional<int64_t> paused_at_ms;  // set = paused
  std::string paused_by, paused_reason;
  BreakerState breaker = BreakerState::kClosed;
  std::optional<int64_t> breaker_changed_at_ms;
  int breaker_failures = 0;                        // consecutive failures that opened it
  std::optional<int64_t> breaker_next_probe_at_ms;  // open: the next trial delivery
  std::string breaker_last_error;                  // open: what opened it
  bool paused() const { return paused_at_ms.has_value(); }
};

// What a worker records when its breaker for an endpoint changes state.
struct BreakerRecord {
  std::string endpoint;
  BreakerState state = BreakerState::kClosed;
  int failures = 0;
  std::optional<int64_t> next_probe_at_ms;
  std::string last_error;  // short, never payload or secrets
  int64_t at_ms = 0;
};

class EndpointStates {
 public:
  virtual ~EndpointStates() = default;

  // Every endpoint with a row (paused now or once, or a breaker ever recorded), by name.
  virtual Result<std::vector<EndpointState>> ListEndpointStates() = 0;
  // The names of the endpoints paused now. Cheap: read at every worker poll.
  // Never waits for a busy reader: Unavailable then, to ask again later.
  virtual Result<std::vector<std::string>> PausedEndpoints() = 0;
  // Pauses `endpoint` (true) or resumes it (false), recording `actor` and
  // `reason` in endpoint_actions. Returns false, changing nothing, when it was
  // already in that state. The caller checks that the endpoint exists in the config.
  virtual Result<bool> SetPaused(const std::string& endpoint, bool paused, const std::string& actor,
                                 const std::string& reason, int64_t now_ms) = 0;
  // Records a breaker transition (upsert of the endpoint's row; pause fields untouched).
  virtual Status RecordBreaker(const BreakerRecord& record) = 0;

  // The steps of a secret rotation (config/rotation.h), as endpoint_actions
  // rows naming `actor`; `reason` says until when, never the secret.
  // 'secret_rotated': a new secret in force, the previous one kept for a while.
  virtual Status RecordSecretRotated(const std::string& endpoint, const std::string& actor, const std::string& reason,
                                     int64_t now_ms) = 0;
  // 'secret_retired': the previous secret no longer accepted. With
  // `only_after_rotation` (the service noticing that a window ended), it is
  // written only when the endpoint's latest rotation step is
  // 'secret_rotated', so restarts and replicas record one end per rotation.
  // Returns whether a row was written.
  virtual Result<bool> RecordSecretRetired(const std::string& endpoint, const std::string& actor,
                                           const std::string& reason, int64_t now_ms, bool only_after_rotation) = 0;
};

}  // namespace hookinbox::store
