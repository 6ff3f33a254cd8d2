// config/live.h — the configuration in force, replaced whole by a reload.
//
// Owns: one immutable Config at a time. Readers take a snapshot (a
// shared_ptr) at the start of a unit of work — a request, an attempt, an
// alert check — and use it to the end, so work that started on the old
// config finishes on it while new work sees the new one; the old Config is
// freed when its last snapshot goes. Replace never waits for readers.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "config/config.h"

namespace hookinbox::config {

class LiveConfig {
 public:
  explicit LiveConfig(Config initial) : current_(std::make_shared<const Config>(std::move(initial))) {}
  LiveConfig(const LiveConfig&) = delete;
  LiveConfig& operator=(const LiveConfig&) = delete;

  // The config in force now; stays valid (and unchanged) while held.
  std::shared_ptr<const Config> Current() const {
    std::lock_guard<std::mutex> lock(mu_);
    return current_;
  }
  // 1 for the config loaded at start, +1 per Replace.
  uint64_t generation() const {
    std::lock_guard<std::mutex> lock(mu_);
    return generation_;
  }
  // Puts `next` in force; returns its generation.
  uint64_t Replace(std::shared_ptr<const Config> next) {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = std::move(next);
    return ++generation_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Config> current_;  // guarded by mu_
  uint64_t generation_ = 1;                // guarded by mu_
};

}  // namespace hookinbox::config
