// worker/backoff.h — when a transient failure is tried again.
//
// Pure functions: no clock, no randomness of their own. The caller passes
// `now` and a uniform random number, so tests pin both.
#pragma once

#include <cstdint>
#include <optional>

namespace hookinbox::worker {

// Exponential backoff with full jitter: uniform01 * min(max_ms, initial_ms *
// 2^(attempt-1)), for the failure of attempt `attempt` (1 = the first).
// `uniform01` is in [0, 1); values outside are clamped. Never negative,
// never above max_ms; no overflow for any attempt.
int64_t BackoffMs(int attempt, int64_t initial_ms, int64_t max_ms, double uniform01);

// The time (ms since the epoch) the next attempt is due after attempt
// `attempt` failed transiently at `now_ms`: now + BackoffMs, but never
// earlier than now + retry_after_ms when the downstream asked for a delay
// (Retry-After is honoured even beyond max_ms: the downstream knows best).
int64_t NextAttemptAt(int64_t now_ms, int attempt, std::optional<int64_t> retry_after_ms, int64_t initial_ms,
                      int64_t max_ms, double uniform01);

}  // namespace hookinbox::worker
