// alert/engine.h — the thread that checks the alert conditions every
// alert.check_every and keeps the incidents in step with them.
//
// Design: each check reads the figures (store/alert_signals.h, plus what only
// this process knows: its 503s and its TLS certificate), lets the pure
// Evaluate (alert/conditions.h) judge them, and tells store::Incidents
// what holds (ObserveCondition) and what no longer does (ResolveCondition),
// with the messages rendered in advance. The store decides when a message is
// due (start, a reminder every alert.remind_every, resolved) and queues it in
// the same transaction.
//
// One replica checks at a time: the one holding the alert lead (a lease row,
// store::Incidents::HoldAlertLead), renewed at the start of every check for
// 3 × alert.check_every (at least a minute). Some figures are this process's
// own (its 503s, since when it has seen a breaker open), so two replicas
// checking at once would disagree and make incidents flap; the others skip
// their checks, and one of them takes over once a stopped leader's lease lapses.
//
// A check stops writing when Stop is asked or the database answers
// Unavailable (each write may wait busy_timeout_ms on a locked SQLite), so
// shutdown stays bounded; and it writes only what changed: a condition that
// does not hold is resolved only when an incident is open for it.
// The engine never sends: it wakes the dispatcher (alert/dispatcher.h), so a
// channel that is down never slows a check, and no check ever touches ingest
// or the worker (it reads on the store's reader connections).
//
// Once a day at alert.digest_at it also queues the digest (alert/digest.h).
//
// Thread-safety: Start/Stop from one thread; CheckOnce and SetConfig from any
// (a check holds mu_ only to copy the config).
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <deque>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "alert/conditions.h"
#include "alert/digest.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "common/status.h"
#include "config/config.h"
#include "store/alert_signals.h"
#include "store/incidents.h"

namespace hookinbox::alert {

struct EngineSources {
  store::AlertSignals* signals = nullptr;  // not owned; outlive the engine
  store::Incidents* incidents = nullptr;
  const Clock* clock = nullptr;
  // This process's 503s (storage unavailable) since it started; empty = not counted.
  std::function<int64_t()> storage_failures_total;
  // The public listener's certificate notAfter (Unix ms); empty or nullopt = no TLS listener.
  std::function<std::optional<int64_t>()> certificate_not_after_ms;
  // Called after a check or a digest queued messages (wakes the dispatcher).
  std::function<void()> on_queued;
  // Who this process is in the alert lead; "" = "<hostname>:<pid>".
  std::string lead_owner;
};

// The alert lead's lease: 3 × check_every, at least a minute, so a leader
// that misses a check or two keeps it, and one that stopped is replaced
// within the lease.
int64_t LeadLeaseMs(const config::AlertConfig& alert);

// What one check did, for tests and the log.
struct CheckReport {
  bool leading = false;  // this process held the alert lead; false = the check was skipped
  bool stopped = false;  // Stop was asked during the check: it ended early
  int findings = 0;  // conditions judged
  int holding = 0;   // of which hold now
  int opened = 0, reminded = 0, resolved = 0;
  bool digest_queued = false;
};

class Engine {
 public:
  Engine(EngineSources sources, config::Config config);
  ~Engine();  // stops the thread and gives up the alert lead
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // One check now, when this process holds (or takes) the alert lead. A
  // failed read of the database skips the check (logged, returned); a failed
  // write of one incident is logged and the others go on, except Unavailable,
  // which ends the check (returned). A Stop asked meanwhile ends it too.
  Result<CheckReport> CheckOnce();
  void SetConfig(config::Config config);  // a reload: the next check uses it

  void Start();  // the thread: CheckOnce every alert.check_every
  void Stop();

 private:
  // The incidents open when the check began (its writes alone change them).
  struct OpenIncidents {
    std::vector<store::Incident> list;
    bool complete = true;  // false: the list was cut at its limit, so absence proves nothing
    bool Has(const std::string& condition, const std::string& endpoint) const;
  };

  config::Config ConfigCopy();
  bool StopRequested();
  Result<bool> HoldLead(const config::Config& config, int64_t now_ms);
  void ForgetOwnFigures();
  CheckInput ReadInput(const config::Config& config, int64_t now_ms, OpenIncidents* open, Status* error);
  std::optional<int64_t> StorageFailuresInWindow(const config::AlertConfig& alert, int64_t now_ms);
  void TrackBreakers(const config::Config& config, const OpenIncidents& open, CheckInput* in);
  Status Apply(const config::Config& config, const std::vector<Finding>& findings, const OpenIncidents& open,
               int64_t now_ms, CheckReport* r);
  Status ResolveOrphans(const config::Config& config, const std::vector<Finding>& findings, const OpenIncidents& open,
                        int64_t now_ms, CheckReport* r);
  bool QueueDigestIfDue(const config::Config& config, int64_t now_ms);
  void Run();

  const EngineSources sources_;
  const std::string lead_owner_;

  std::mutex mu_;
  config::Config config_;  // guarded by mu_
  bool stop_ = false;      // guarded by mu_
  std::condition_variable cv_;
  std::thread thread_;

  // Used only by the checking thread (CheckOnce is not called concurrently with itself).
  std::mutex check_mu_;
  bool leading_ = false;                                      // held the lead at the last check
  std::deque<std::pair<int64_t, int64_t>> storage_samples_;  // (monotonic ms, total 503s)
  std::map<std::string, int64_t> breaker_seen_since_;         // endpoint → first check that saw it open
  DigestSchedule digest_;
};

// The channels messages go to: every [[alert.channel]] by name.
std::vector<std::string> ChannelNames(const config::AlertConfig& alert);

// This process's 503s (storage unavailable) so far, over the configured
// endpoints: webhook_rejected_total{reason="unavailable"} in `registry`
// (what EngineSources::storage_failures_total wants in `serve`).
int64_t StorageFailuresTotal(const metrics::Registry& registry, const config::Config& config);

}  // namespace hookinbox::alert
