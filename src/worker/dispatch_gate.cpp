// worker/dispatch_gate.cpp — see dispatch_gate.h.
#include "worker/dispatch_gate.h"

#include <algorithm>

namespace hookinbox::worker {

DispatchGate::DispatchGate(const config::Config& config, int64_t now_ms) { Reconfigure(config, now_ms); }

std::vector<DispatchGate::Reset> DispatchGate::Reconfigure(const config::Config& next, int64_t now_ms) {
  std::map<std::string, Settings> settings;
  std::map<std::string, Breaker> breakers;
  std::map<std::string, RateLimit> limits;
  for (const config::EndpointConfig& e : next.endpoints) {
    if (!e.HasAction()) continue;
    const Settings now{e.action.breaker_failures, e.action.breaker_probe_seconds, e.action.max_per_second};
    settings[e.name] = now;
    auto old = settings_.find(e.name);
    const bool same_breaker = old != settings_.end() && old->second.breaker_failures == now.breaker_failures &&
                              old->second.breaker_probe_seconds == now.breaker_probe_seconds;
    const bool same_limit = old != settings_.end() && old->second.max_per_second == now.max_per_second;
    if (auto b = breakers_.find(e.name); same_breaker && b != breakers_.end()) {
      breakers.insert(breakers_.extract(b));
    } else if (now.breaker_failures > 0) {
      breakers.try_emplace(e.name, now.breaker_failures, int64_t{now.breaker_probe_seconds} * 1000);
    }
    if (auto l = limits_.find(e.name); same_limit && l != limits_.end()) {
      limits.insert(limits_.extract(l));
    } else if (now.max_per_second > 0) {
      limits.try_emplace(e.name, now.max_per_second, now_ms);
    }
  }
  // What is left of the old breakers was replaced or dropped: one that was
  // open or half-open is closed now, and its record should say so.
  std::vector<Reset> resets;
  for (const auto& [endpoint, breaker] : breakers_) {
    if (breaker.state() == store::BreakerState::kClosed) continue;
    BreakerChange change;
    change.from = breaker.state();
    change.to = store::BreakerState::kClosed;
    resets.emplace_back(endpoint, std::move(change));
  }
  settings_ = std::move(settings);
  breakers_ = std::move(breakers);
  limits_ = std::move(limits);
  return resets;
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
