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
// Its own thread: woken by Wake() after the engine queued messages, otherwise
// every idle_poll_ms (another replica's rows, retries coming due). A slow
// channel delays only this thread, never a check, ingest or the worker.
// Stop waits for the send in progress only (at most its channel's timeout).
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
  int batch = 4;                               // rows leased at once
  int64_t lease_ms = 5 * 60 * 1000;            // covers a batch of sends at their timeouts
  int64_t idle_poll_ms = 5000;                 // look for due rows this often without a wake
  int64_t first_retry_ms = 30 * 1000;          // after the first failure
  int64_t max_retry_ms = 3600 * 1000;          // the longest wait between tries
  int64_t give_up_after_ms = 24 * 3600 * 1000;  // from when the message was queued
};

// When to try again after a failure, or nullopt to give up. `attempts` counts
// the tries so far including the failed one (1 after the first failure).
std::optional<int64_t> NextTryAt(const DispatcherOptions& o, int attempts, int64_t created_at_ms, int64_t now_ms);

class Dispatcher {
 public:
  // `incidents` and `clock` outlive the dispatcher.
  Dispatcher(store::Incidents& incidents, std::vector<std::unique_ptr<Channel>> channels, const Clock& clock,
             DispatcherOptions options = {});
  ~Dispatcher();  // stops the thread
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Leases the due rows and sends them, batch after batch until none is due;
  // the number handled (sent or not).
  int RunOnce();
  void Wake();
  // A reload: the next send uses these (rows naming a removed channel fail).
  void SetChannels(std::vector<std::unique_ptr<Channel>> channels);

  void Start();
  void Stop();

 private:
  void Send(const store::PendingNotification& row);
  std::shared_ptr<Channel> FindChannel(const std::string& name);
  bool Stopping();
  void Run();

  store::Incidents& incidents_;
  const Clock& clock_;
  const DispatcherOptions options_;

  std::mutex mu_;
  std::vector<std::shared_ptr<Channel>> channels_;  // guarded by mu_; a send holds its channel, not mu_
  bool woken_ = false;                              // guarded by mu_
  bool stop_ = false;                               // guarded by mu_
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace hookinbox::alert
