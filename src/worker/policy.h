// worker/policy.h — what an attempt's outcome makes of its event: the next
// state, when a retry is due, and why it is retried.
//
// Pure: no clock, no randomness, no I/O of its own. The caller passes `now`
// and a uniform random number, so tests pin both; the worker loop
// (worker_loop.h) only leases, runs the action and records what this decides.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "action/action.h"
#include "action/probe.h"
#include "config/config.h"
#include "store/work_queue.h"

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

// The state an attempt's outcome moves its event to, as an AttemptResult
// (owner/id/attempt/finished_at filled from `event`): success → completed,
// transient → retryable_failed after a backoff (dead_lettered once
// worker.max_attempts is spent), permanent → dead_lettered, unknown →
// unknown. `uniform01` picks the jitter.
store::AttemptResult MapOutcome(const config::WorkerConfig& worker, const store::LeasedEvent& event,
                                const std::string& owner, const action::Outcome& outcome, int64_t now_ms,
                                double uniform01);

// Reconcile before retry: `r` (an unknown outcome from MapOutcome) after
// the probe answered `probe`, started at `probe_started_ms`. Found →
// completed with the probe's result_ref; not found → as a transient failure
// (backoff, or dead_lettered at max_attempts); cannot tell → stays unknown.
void ApplyProbe(const config::WorkerConfig& worker, const store::LeasedEvent& event, const action::ProbeResult& probe,
                int64_t probe_started_ms, double uniform01, store::AttemptResult* r);

// Why an attempt ended retryable_failed: the `reason` label of
// webhook_retries_total, from a fixed set (never free text).
enum class RetryReason {
  kStatus429,
  kStatus5xx,
  kStatus4xx,  // 408/425, and 409 on an idempotent target
  kExit75,
  kTimeout,
  kConnect,   // not sent
  kNoAnswer,  // sent, no reply, idempotent target
  kProbeNotFound,
  kOther,
};

RetryReason RetryReasonOf(const action::Outcome& outcome, bool probe_not_found);

// "status_429", "status_5xx", "status_4xx", "exit_75", "timeout", "connect",
// "no_answer", "probe_not_found", "other".
const char* RetryReasonLabel(RetryReason reason);

}  // namespace hookinbox::worker
