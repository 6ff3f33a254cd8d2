#include "admin/login_limiter.h"

#include <algorithm>

namespace hookinbox::admin {

void LoginLimiter::Prune(Entry& e, int64_t now_ms) const {
  while (!e.failures.empty() && e.failures.front() <= now_ms - kWindowMs) e.failures.pop_front();
}

int64_t LoginLimiter::BlockedForMs(const std::string& addr, bool* first_refusal) {
  std::lock_guard<std::mutex> lock(mu_);
  if (first_refusal) *first_refusal = false;
  auto it = entries_.find(addr);
  if (it == entries_.end()) return 0;
  Entry& e = it->second;
  const int64_t wait_ms = std::max<int64_t>(0, e.blocked_until_ms - clock_.MonotonicMs());
  if (wait_ms > 0 && first_refusal && !e.block_reported) {
    e.block_reported = true;
    *first_refusal = true;
  }
  return wait_ms;
}

int LoginLimiter::RecordFailure(const std::string& addr) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now = clock_.MonotonicMs();
  if (entries_.size() >= kMaxTracked && entries_.find(addr) == entries_.end()) MakeRoom(now);
  Entry& e = entries_[addr];
  Prune(e, now);
  e.failures.push_back(now);
  const int failures = static_cast<int>(e.failures.size());
  if (failures >= kMaxFailures) {
    e.blocked_until_ms = now + kBlockMs;
    e.block_reported = false;
    e.failures.clear();  // the block is the consequence; counting restarts after it
  }
  return failures;
}

// Drops entries that no longer matter (nothing in the window, not blocked);
// when every entry still matters, drops the one whose last failure is oldest.
void LoginLimiter::MakeRoom(int64_t now_ms) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    Prune(it->second, now_ms);
    if (it->second.failures.empty() && it->second.blocked_until_ms <= now_ms) {
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  if (entries_.size() < kMaxTracked) return;
  auto last_failure = [](const Entry& e) { return e.failures.empty() ? e.blocked_until_ms : e.failures.back(); };
  auto oldest = std::min_element(entries_.begin(), entries_.end(), [&](const auto& a, const auto& b) {
    return last_failure(a.second) < last_failure(b.second);
  });
  entries_.erase(oldest);
}

}  // namespace hookinbox::admin
