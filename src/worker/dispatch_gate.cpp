// worker/dispatch_gate.cpp — see dispatch_gate.h.
#include "worker/dispatch_gate.h"

#include <algorithm>

namespace hookinbox::worker {

DispatchGate::DispatchGate(const config::Config& config, int64_t now_ms) {
  for (const config::EndpointConfig& e : config.endpoints) {
    if (!e.HasAction()) continue;
    if (e.action.breaker_failures > 0) {
      breakers_.try_emplace(e.name, e.action.breaker_failures, int64_t{e.action.breaker_probe_seconds} * 1000);
    }
    if (e.action.max_per_second > 0) limits_.try_emplace(e.name, e.action.max_per_second, now_ms);
  }
}

void DispatchGate::SetPaused(const std::vector<std::string>& endpoints) {
  paused_ = std::set<std::string>(endpoints.begin(), endpoints.end());
}

int DispatchGate::Room(const std::string& endpoint, int in_flight, int claiming, int64_t now_ms, int most) const {
  if (Paused(endpoint)) return 0;
  int room = most;
  if (auto b = breakers_.find(endpoint); b != breakers_.end()) {
    if (const std::optional<int> capacity = b->second.Capacity(now_ms)) {
      room = std::min(room, *capacity - in_flight - claiming);
    }
  }
  if (auto l = limits_.find(endpoint); l != limits_.end()) {
    room = std::min(room, l->second.Available(now_ms) - claiming);
  }
  return std::max(room, 0);
}

bool DispatchGate::BreakerClosed(const std::string& endpoint, int64_t now_ms) const {
  auto b = breakers_.find(endpoint);
  return b == breakers_.end() || !b->second.Capacity(now_ms);
}

std::optional<int64_t> DispatchGate::NextChangeAt(int64_t now_ms) const {
  std::optional<int64_t> next;
  auto consider = [&](const std::string& endpoint, std::optional<int64_t> at) {
    if (at && !Paused(endpoint) && (!next || *at < *next)) next = at;
  };
  for (const auto& [endpoint, breaker] : breakers_) consider(endpoint, breaker.NextChangeAt(now_ms));
  for (const auto& [endpoint, limit] : limits_) consider(endpoint, limit.NextTokenAt(now_ms));
  return next;
}

std::optional<BreakerChange> DispatchGate::Leased(const std::string& endpoint, int64_t event_id, int64_t now_ms) {
  if (auto l = limits_.find(endpoint); l != limits_.end()) l->second.Take(now_ms);
  auto b = breakers_.find(endpoint);
  return b == breakers_.end() ? std::nullopt : b->second.Leased(event_id, now_ms);
}

std::optional<BreakerChange> DispatchGate::Finished(const std::string& endpoint, int64_t event_id, bool failed,
                                                    const std::string& error, int64_t now_ms) {
  auto b = breakers_.find(endpoint);
  return b == breakers_.end() ? std::nullopt : b->second.Finished(event_id, failed, error, now_ms);
}

std::optional<BreakerChange> DispatchGate::Abandoned(const std::string& endpoint, int64_t event_id, int64_t now_ms) {
  auto b = breakers_.find(endpoint);
  return b == breakers_.end() ? std::nullopt : b->second.Abandoned(event_id, now_ms);
}

}  // namespace hookinbox::worker
