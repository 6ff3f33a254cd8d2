// worker/breaker.h — one endpoint's circuit breaker: when its downstream is
// down, stop sending it events (they wait without spending attempts) and let
// one trial delivery at a growing interval decide when to send again.
//
// closed → open after `failures` consecutive failed attempts (a connection
// that could not be made, a timeout, an answer lost, or a 5xx: what
// CountsAgainstBreaker says); open → half_open when an event is leased as the
// trial once the probe interval has passed; half_open → closed when the trial
// succeeds (any answer that is not a failure: the downstream is up), → open
// again with the interval doubled (up to max(probe, 10 min)) when it fails.
// An attempt that started before the breaker opened and succeeds closes it
// too (the downstream answered); its failure changes nothing.
//
// Pure: the caller passes the time (ms) and is responsible for locking
// (worker/dispatch_gate.h, under the worker loop's mutex).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "action/action.h"
#include "store/endpoint_states.h"

namespace hookinbox::worker {

// Whether an attempt's outcome says the downstream is unavailable.
bool CountsAgainstBreaker(const action::Outcome& outcome);

// A change of state, for the log and for store::EndpointStates::RecordBreaker.
struct BreakerChange {
  store::BreakerState from, to;
  int failures = 0;                        // consecutive failures so far
  std::optional<int64_t> next_probe_at_ms;  // to == open: the next trial
  std::string last_error;
};

class Breaker {
 public:
  // `failures` 0 = never opens.
  Breaker(int failures, int64_t probe_ms);

  store::BreakerState state() const { return state_; }
  // How many events may be in flight now on its account: unlimited (nullopt)
  // when closed; 1 when open and a trial is due (the trial itself, and
  // in_flight counts it while it runs); 0 while open and waiting.
  std::optional<int> Capacity(int64_t now_ms) const;
  // When Capacity changes next without an attempt ending: the trial time,
  // while it is still ahead of `now_ms`. Once due, the trial waits for an
  // event or a free slot, which wake the worker themselves.
  std::optional<int64_t> NextChangeAt(int64_t now_ms) const;
  // An event was leased at `now_ms`: when a trial was due, it is the trial.
  std::optional<BreakerChange> Leased(int64_t event_id, int64_t now_ms);
  // An attempt of `event_id` ended; `failed`: CountsAgainstBreaker.
  std::optional<BreakerChange> Finished(int64_t event_id, bool failed, const std::string& error, int64_t now_ms);
  // An attempt of `event_id` ended without an outcome (its lease was lost or
  // released at shutdown): a trial's place goes to the next event, at once.
  std::optional<BreakerChange> Abandoned(int64_t event_id, int64_t now_ms);

 private:
  BreakerChange Open(int64_t now_ms, const std::string& error);

  const int threshold_;
  const int64_t probe_ms_;
  const int64_t probe_max_ms_;
  store::BreakerState state_ = store::BreakerState::kClosed;
  int consecutive_ = 0;
  int64_t interval_ms_ = 0;        // the current probe interval (grows after failed trials)
  int64_t next_probe_at_ms_ = 0;   // open: when a trial may start
  std::optional<int64_t> trial_id_;  // half_open: the trial's event
};

}  // namespace hookinbox::worker
