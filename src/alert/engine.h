// alert/engine.h — the thread that checks the alert conditions every
// alert.check_every and keeps the incidents in step with them.
//
// Design: each check reads the figures (store/alert_signals.h, plus what only
// this process knows: its 503s and its TLS certificate), lets the pure
// Evaluate (alert/conditions.h) judge them, and tells store::Incidents
// what holds (ObserveCondition) and what no longer does (ResolveCondition),
// with the messages rendered in advance. The store decides when a message is
// due (start, a reminder every alert.remind_every, resolved) and queues it in
// the same transaction, so replicas checking at once send each message once.
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
};

// What one check did, for tests and the log.
struct CheckReport {
  int findings = 0;  // conditions judged
  int holding = 0;   // of which hold now
  int opened = 0, reminded = 0, resolved = 0;
  bool digest_queued = false;
};

class Engine {
 public:
  Engine(EngineSources sources, config::Config config);
  ~Engine();  // stops the thread
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // One check now. A failed read of the database skips the check (logged,
  // returned); a failed write of one incident is logged and the others go on.
  Result<CheckReport> CheckOnce();
  void SetConfig(config::Config config);  // a reload: the next check uses it

  void Start();  // the thread: CheckOnce every alert.check_every
  void Stop();

 private:
  config::Config ConfigCopy();
  CheckInput ReadInput(const config::Config& config, int64_t now_ms, Status* error);
  std::optional<int64_t> StorageFailuresInWindow(int64_t now_ms);
  void TrackBreakers(const std::vector<store::EndpointSignals>& signals, CheckInput* in);
  void Apply(const config::Config& config, const std::vector<Finding>& findings, int64_t now_ms, CheckReport* r);
  void ResolveOrphans(const config::Config& config, const std::vector<Finding>& findings, int64_t now_ms,
                      CheckReport* r);
  bool QueueDigestIfDue(const config::Config& config, int64_t now_ms);
  void Run();

  const EngineSources sources_;

  std::mutex mu_;
  config::Config config_;  // guarded by mu_
  bool stop_ = false;      // guarded by mu_
  std::condition_variable cv_;
  std::thread thread_;

  // Used only by the checking thread (CheckOnce is not called concurrently with itself).
  std::mutex check_mu_;
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
