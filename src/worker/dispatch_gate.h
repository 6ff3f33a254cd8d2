// worker/dispatch_gate.h — which endpoints the worker may send events to now,
// apart from their concurrency: not paused by an operator, not behind an open
// circuit breaker (worker/breaker.h), within action.max_per_second
// (worker/rate_limit.h).
//
// Held endpoints are simply not searched by a lease (store/due_search.h), so
// their events wait as they are — received or retryable_failed, due — and
// spend no attempts. The store also leaves paused endpoints out inside the
// lease's own transaction, so a pause holds at once even before this gate's
// copy of the paused set is refreshed (once per worker poll).
//
// A reload (Reconfigure) keeps what it can: an endpoint whose breaker
// settings did not change keeps its breaker (an open one stays open), one
// whose max_per_second did not change keeps its tokens; the rest start fresh,
// and endpoints that lost their action are dropped. An attempt of a dropped
// endpoint may still be running: its Finished/Abandoned are no-ops.
//
// Not thread-safe: the worker loop calls it under its own mutex. Pure apart
// from what the caller passes (the time, in ms of the worker's clock).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "worker/breaker.h"
#include "worker/rate_limit.h"

namespace hookinbox::worker {

class DispatchGate {
 public:
  // A breaker (unless action.breaker_failures = 0) and a rate limit (when
  // action.max_per_second > 0) for every endpoint of `config` with an action.
  DispatchGate(const config::Config& config, int64_t now_ms);

  // A breaker that a reload replaced or dropped while it was not closed: its
  // endpoint, and the change to closed, for the caller to log and record.
  using Reset = std::pair<std::string, BreakerChange>;
  // Takes `next`'s endpoints (see the file comment); the paused set is kept.
  std::vector<Reset> Reconfigure(const config::Config& next, int64_t now_ms);

  void SetPaused(const std::vector<std::string>& endpoints);
  bool Paused(const std::string& endpoint) const { return paused_.count(endpoint) > 0; }

  // Whether one more event of `endpoint` may be leased now, with `in_flight`
  // of its events running and `claiming` leases on their way (each of which
  // may take one of its events).
  bool MayLease(const std::string& endpoint, int in_flight, int claiming, int64_t now_ms) const {
    return Room(endpoint, in_flight, claiming, now_ms, 1) > 0;
  }
  // How many more events of `endpoint` may be leased now, at most `most`:
  // what its breaker's trial capacity and its rate limit's tokens leave.
  int Room(const std::string& endpoint, int in_flight, int claiming, int64_t now_ms, int most) const;
  // Whether `endpoint`'s breaker is closed (or it has none): not open, no trial out.
  bool BreakerClosed(const std::string& endpoint, int64_t now_ms) const;
  // When an endpoint held by time (a breaker's next trial, a rate limit's next
  // token) may be leased again, if later than `now_ms`; nullopt when nothing
  // is held by time (a wake-up at a time already past would spin).
  std::optional<int64_t> NextChangeAt(int64_t now_ms) const;

  // An event of `endpoint` was leased / its attempt ended (`failed`:
  // CountsAgainstBreaker). A breaker's change of state is returned for the
  // caller to log and record.
  std::optional<BreakerChange> Leased(const std::string& endpoint, int64_t event_id, int64_t now_ms);
  std::optional<BreakerChange> Finished(const std::string& endpoint, int64_t event_id, bool failed,
                                        const std::string& error, int64_t now_ms);
  std::optional<BreakerChange> Abandoned(const std::string& endpoint, int64_t event_id, int64_t now_ms);

 private:
  // What a breaker and a rate limit were built from: a reload compares these.
  struct Settings {
    int breaker_failures = 0;
    int breaker_probe_seconds = 0;
    int max_per_second = 0;
  };
  std::map<std::string, Settings> settings_;  // every endpoint with an action
  std::map<std::string, Breaker> breakers_;
  std::map<std::string, RateLimit> limits_;
  std::set<std::string> paused_;
};

}  // namespace hookinbox::worker
