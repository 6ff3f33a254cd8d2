// alert/dispatcher.h — sends the outbox (store::Incidents'
// alert_notifications): leases due rows, sends each through the channel of
// its name, and records the outcome.
//
// A failed send is tried again after 30 s, doubling up to 1 h between tries,
// and given up ('failed') once the next try would be more than 24 h after the
// message was queued: a channel that is down never loops and never piles up.
// A row naming a channel the current config does not have fails at once,
// with that reason. Every outcome is logged (alert_sent, alert_send_failed:
// channel, kind, incident id, reason) — never a URL, a secret or the body.
//
// Order: the store leases a row only when no older row about the same
// incident for the same channel is pending, so a "resolved" never goes out
// before its "started" that is still backing off.
// One failing channel does not hold up the others: a pass (RunOnce) tries a
// channel that failed (not for good) no more in that pass, and leases past
// its rows; they wait for their retry time or the next pass.
//
// One row is leased at a time, for max(min_lease_ms, 3 × the largest
// timeout_seconds of the channels + 60 s) (LeaseMsFor): an HTTP channel's
// timeout bounds each step (connect, write, each read), so one send may take
// about three times it, and the lease must outlast it, or another sender
// would lease the row and send it again. The outcome is recorded only under
// the lease the row was sent with; should it have lapsed and another sender
// leased the row (this one paused for longer), the store answers Conflict and
// that is logged as alert_record_failed.
// Recording is logged as alert_record_failed whenever it fails (the error,
// never the body or the URL). After a send that succeeded this means the row
// is still pending: it goes out again once its lease lapses — a message is
// sent at least once, rarely twice, never lost.
//
// Its own thread: woken by Wake() after the engine queued messages, otherwise
// every idle_poll_ms (another replica's rows, retries coming due). A slow
// channel delays only this thread, never a check, ingest or the worker.
// Stop waits for the send in progress only (about 3 × its channel's timeout at most).
// Thread-safety: Wake and SetChannels from any thread; RunOnce from one
// thread at a time (the dispatcher's own once Start was called).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "alert/channel.h"
#include "common/clock.h"
#include "store/incidents.h"

namespace hookinbox::alert {

struct DispatcherOptions {
  int64_t min_lease_ms = 5 * 60 * 1000;        // a row is leased for at least this long (LeaseMsFor)
  int64_t idle_poll_ms = 5000;                 // look for due rows this often without a wake
  int64_t first_retry_ms = 30 * 1000;          // after the first failure
  int64_t max_retry_ms = 3600 * 1000;          // the longest wait between tries
  int64_t give_up_after_ms = 24 * 3600 * 1000;  // from when the message was queued
};

// When to try again after a failure, or nullopt to give up. `attempts` counts
// the tries so far including the failed one (1 after the first failure).
std::optional<int64_t> NextTryAt(const DispatcherOptions& o, int attempts, int64_t created_at_ms, int64_t now_ms);

// How long a row is leased for when the slowest channel's timeout_seconds is
// `max_timeout_seconds`: max(min_lease_ms, 3 × it + 60 s).
int64_t LeaseMsFor(const DispatcherOptions& o, int max_timeout_seconds);

class Dispatcher {
 public:
  // `incidents` and `clock` outlive the dispatcher.
  Dispatcher(store::Incidents& incidents, std::vector<std::unique_ptr<Channel>> channels, const Clock& clock,
             DispatcherOptions options = {});
  ~Dispatcher();  // stops the thread
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Leases the due rows one by one and sends them until none is due (past
  // the channels that failed in this pass); the number handled (sent or not).
  int RunOnce();
  void Wake();
  // A reload: the next send uses these (rows naming a removed channel fail),
  // and the next lease lasts long enough for their slowest timeout.
  void SetChannels(std::vector<std::unique_ptr<Channel>> channels);

  void Start();
  void Stop();

 private:
  // true when the channel failed and may fail again (not a permanent failure).
  bool SendFailed(const store::PendingNotification& row);
  void Record(const store::PendingNotification& row, bool sent, const std::string& error,
              std::optional<int64_t> retry_at_ms, int64_t now_ms);
  std::shared_ptr<Channel> FindChannel(const std::string& name);
  int64_t LeaseMs();
  bool Stopping();
  void Run();

  store::Incidents& incidents_;
  const Clock& clock_;
  const DispatcherOptions options_;

  std::mutex mu_;
  std::vector<std::shared_ptr<Channel>> channels_;  // guarded by mu_; a send holds its channel, not mu_
  int64_t lease_ms_ = 0;                            // guarded by mu_; LeaseMsFor the channels
  bool woken_ = false;                              // guarded by mu_
  bool stop_ = false;                               // guarded by mu_
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace hookinbox::alert
