// cli/purge.h — retention from the config: `hookinbox purge` and the hourly
// purge thread of `serve` (owned by cli/app.cpp). What goes is store/purge.h.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "config/config.h"
#include "store/maintenance.h"

namespace hookinbox::cli {

// True when some endpoint sets retention.payload_days or key_days.
bool HasRetention(const config::Config& config);

// The store's purge options for `config` at `now_ms`: one policy per
// endpoint; rows of no configured endpoint use the longest key_days.
store::PurgeOptions PurgeOptionsFor(const config::Config& config, int64_t now_ms);

// Runs the purge every `interval` (first after `first_delay`) on the store's
// writer, in bounded batches, until Stop(). Logs what it removed; a failed
// run is logged and retried at the next interval.
class PurgeLoop {
 public:
  PurgeLoop(store::Maintenance& store, const config::Config& config, const Clock& clock,
            std::chrono::milliseconds first_delay = std::chrono::minutes(5),
            std::chrono::milliseconds interval = std::chrono::hours(1))
      : store_(store), config_(config), clock_(clock), first_delay_(first_delay), interval_(interval) {}
  ~PurgeLoop() { Stop(); }

  void Start();
  void Stop();  // wakes the thread and joins it; a batch in progress finishes first

 private:
  void Run();

  store::Maintenance& store_;
  const config::Config& config_;
  const Clock& clock_;
  const std::chrono::milliseconds first_delay_, interval_;
  std::mutex mu_;
  std::condition_variable wake_;  // guarded by mu_
  bool stopping_ = false;         // guarded by mu_
  std::thread thread_;
};

}  // namespace hookinbox::cli
