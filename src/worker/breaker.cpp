// worker/breaker.cpp — see breaker.h.
#include "worker/breaker.h"

#include <algorithm>

namespace hookinbox::worker {
namespace {

constexpr int64_t kProbeCeilingMs = 10 * 60 * 1000;

}  // namespace

bool CountsAgainstBreaker(const action::Outcome& outcome) {
  if (outcome.verdict == action::Verdict::kSuccess || outcome.verdict == action::Verdict::kPermanent) return false;
  if (outcome.http_status >= 500) return true;
  return outcome.no_answer != action::NoAnswer::kNone;
}

Breaker::Breaker(int failures, int64_t probe_ms)
    : threshold_(failures), probe_ms_(std::max<int64_t>(probe_ms, 1)),
      probe_max_ms_(std::max(probe_ms_, kProbeCeilingMs)), interval_ms_(probe_ms_) {}

std::optional<int> Breaker::Capacity(int64_t now_ms) const {
  switch (state_) {
    case store::BreakerState::kClosed: return std::nullopt;
    case store::BreakerState::kOpen: return now_ms >= next_probe_at_ms_ ? 1 : 0;
    case store::BreakerState::kHalfOpen: return 1;  // the trial, counted in flight while it runs
  }
  return std::nullopt;
}

std::optional<int64_t> Breaker::NextChangeAt(int64_t now_ms) const {
  if (state_ == store::BreakerState::kOpen && next_probe_at_ms_ > now_ms) return next_probe_at_ms_;
  return std::nullopt;
}

std::optional<BreakerChange> Breaker::Leased(int64_t event_id, int64_t now_ms) {
  if (state_ != store::BreakerState::kOpen || now_ms < next_probe_at_ms_) return std::nullopt;
  state_ = store::BreakerState::kHalfOpen;
  trial_id_ = event_id;
  return BreakerChange{store::BreakerState::kOpen, state_, consecutive_, std::nullopt, {}};
}

std::optional<BreakerChange> Breaker::Finished(int64_t event_id, bool failed, const std::string& error,
                                               int64_t now_ms) {
  const bool trial = trial_id_ == event_id;
  if (trial) trial_id_.reset();
  if (!failed) {
    consecutive_ = 0;
    if (state_ == store::BreakerState::kClosed) return std::nullopt;
    const store::BreakerState from = state_;
    state_ = store::BreakerState::kClosed;
    interval_ms_ = probe_ms_;
    trial_id_.reset();  // a trial still running is an ordinary attempt now
    return BreakerChange{from, state_, 0, std::nullopt, {}};
  }
  switch (state_) {
    case store::BreakerState::kClosed:
      ++consecutive_;
      if (threshold_ > 0 && consecutive_ >= threshold_) return Open(now_ms, error);
      return std::nullopt;
    case store::BreakerState::kHalfOpen:
      if (!trial) return std::nullopt;  // began before the breaker opened
      ++consecutive_;
      interval_ms_ = std::min(probe_max_ms_, interval_ms_ * 2);
      return Open(now_ms, error);
    case store::BreakerState::kOpen: return std::nullopt;  // began before it opened
  }
  return std::nullopt;
}

std::optional<BreakerChange> Breaker::Abandoned(int64_t event_id, int64_t now_ms) {
  if (trial_id_ != event_id) return std::nullopt;
  trial_id_.reset();
  if (state_ != store::BreakerState::kHalfOpen) return std::nullopt;
  state_ = store::BreakerState::kOpen;
  next_probe_at_ms_ = now_ms;
  return BreakerChange{store::BreakerState::kHalfOpen, state_, consecutive_, next_probe_at_ms_, {}};
}

BreakerChange Breaker::Open(int64_t now_ms, const std::string& error) {
  const store::BreakerState from = state_;
  state_ = store::BreakerState::kOpen;
  next_probe_at_ms_ = now_ms + interval_ms_;
  return BreakerChange{from, state_, consecutive_, next_probe_at_ms_, error};
}

}  // namespace hookinbox::worker
