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

// How transient failures of one endpoint's events are retried: built by the
// worker loop from [worker] and the endpoint's effective retry_for
// (ScheduleFor), so a test builds one in a line.
struct RetrySchedule {
  std::optional<int> max_attempts;   // worker.max_attempts; nullopt = only the horizon ends retries
  int64_t initial_ms = 1000;         // worker.backoff_initial_ms
  int64_t max_ms = 3600000;          // worker.backoff_max_ms: the longest interval, Retry-After included
  int64_t retry_for_ms = int64_t{3} * 24 * 3600 * 1000;  // Config::RetryForMs of the endpoint
};

// The schedule of `endpoint`'s events under `config`.
RetrySchedule ScheduleFor(const config::Config& config, const config::EndpointConfig& endpoint);
// The schedule under [worker] alone (an endpoint no longer in the config).
RetrySchedule ScheduleFor(const config::WorkerConfig& worker);

// Exponential backoff with full jitter: uniform01 * min(max_ms, initial_ms *
// 2^(attempt-1)), for the failure of attempt `attempt` (1 = the first).
// `uniform01` is in [0, 1); values outside are clamped. Never negative,
// never above max_ms; no overflow for any attempt.
int64_t BackoffMs(int attempt, int64_t initial_ms, int64_t max_ms, double uniform01);

// The time (ms since the epoch) the next attempt is due after attempt
// `attempt` failed transiently at `now_ms`: now + BackoffMs, but never
// earlier than now + retry_after_ms when the downstream asked for a delay,
// and never later than now + max_ms: Retry-After is honoured up to the cap,
// so a downstream cannot push an event years away.
int64_t NextAttemptAt(int64_t now_ms, int attempt, std::optional<int64_t> retry_after_ms, int64_t initial_ms,
                      int64_t max_ms, double uniform01);

// The state an attempt's outcome moves its event to, as an AttemptResult
// (owner/id/attempt/finished_at filled from `event`): success → completed,
// transient → retryable_failed after a backoff, permanent → dead_lettered,
// unknown → unknown. A transient failure is dead-lettered instead once
// schedule.max_attempts (when set) is spent, or once it failed at or after
// the horizon, event.retry_window_start_ms + retry_for_ms; before that the
// next attempt is due no later than the horizon, so the last one happens
// there. `uniform01` picks the jitter.
store::AttemptResult MapOutcome(const RetrySchedule& schedule, const store::LeasedEvent& event,
                                const std::string& owner, const action::Outcome& outcome, int64_t now_ms,
                                double uniform01);

// Reconcile before retry: `r` (an unknown outcome from MapOutcome) after
// the probe answered `probe`, started at `probe_started_ms`. Found →
// completed with the probe's result_ref; not found → as a transient failure
// (backoff, or dead_lettered at max_attempts or the horizon); cannot tell →
// stays unknown.
void ApplyProbe(const RetrySchedule& schedule, const store::LeasedEvent& event, const action::ProbeResult& probe,
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
