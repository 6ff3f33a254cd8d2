#include "worker/policy.h"

#include <algorithm>

#include "config/duration.h"

namespace hookinbox::worker {
namespace {

std::string Capped(std::string text) {
  if (text.size() > store::kMaxErrorBytes) text.resize(store::kMaxErrorBytes);
  return text;
}

// A transient failure of `event`'s attempt at `failed_at_ms`: retried after a
// backoff, or dead-lettered when it was the last attempt allowed, by count
// or by time.
void RetryOrGiveUp(const RetrySchedule& schedule, const store::LeasedEvent& event, int64_t failed_at_ms,
                   std::optional<int64_t> retry_after_ms, double uniform01, store::AttemptResult* r) {
  if (schedule.max_attempts && event.attempt >= *schedule.max_attempts) {
    r->outcome = store::AttemptOutcome::kDeadLettered;
    r->error = Capped("attempts exhausted: " + r->error);
    return;
  }
  const int64_t horizon = event.retry_window_start_ms + schedule.retry_for_ms;
  if (failed_at_ms >= horizon) {
    r->outcome = store::AttemptOutcome::kDeadLettered;
    r->error = Capped("retry horizon reached after " + config::FormatDurationMs(schedule.retry_for_ms) + ": " +
                      r->error);
    return;
  }
  r->outcome = store::AttemptOutcome::kRetryableFailed;
  // Capped at the horizon: the last attempt is made when the window closes,
  // so an event is retried for at least retry_for, never given up early.
  r->next_attempt_at_ms = std::min(horizon, NextAttemptAt(failed_at_ms, event.attempt, retry_after_ms,
                                                          schedule.initial_ms, schedule.max_ms, uniform01));
}

}  // namespace

RetrySchedule ScheduleFor(const config::WorkerConfig& worker) {
  return RetrySchedule{worker.max_attempts, worker.backoff_initial_ms, worker.backoff_max_ms, worker.retry_for_ms};
}

RetrySchedule ScheduleFor(const config::Config& config, const config::EndpointConfig& endpoint) {
  RetrySchedule s = ScheduleFor(config.worker);
  s.retry_for_ms = config.RetryForMs(endpoint);
  return s;
}

int64_t BackoffMs(int attempt, int64_t initial_ms, int64_t max_ms, double uniform01) {
  max_ms = std::max<int64_t>(max_ms, 0);
  int64_t ceiling = std::clamp<int64_t>(initial_ms, 0, max_ms);
  // Doubling stops once the cap is reached, so no shift can overflow.
  for (int i = 1; i < attempt && ceiling < max_ms; ++i) ceiling = std::min(max_ms, ceiling * 2);
  const double u = std::clamp(uniform01, 0.0, 1.0);
  return std::min(ceiling, static_cast<int64_t>(u * static_cast<double>(ceiling)));
}

int64_t NextAttemptAt(int64_t now_ms, int attempt, std::optional<int64_t> retry_after_ms, int64_t initial_ms,
                      int64_t max_ms, double uniform01) {
  int64_t delay = BackoffMs(attempt, initial_ms, max_ms, uniform01);
  // Honoured up to the cap: Retry-After: 99999999 waits max_ms, not three years.
  if (retry_after_ms) delay = std::max(delay, std::min(*retry_after_ms, std::max<int64_t>(max_ms, 0)));
  return now_ms + delay;
}

store::AttemptResult MapOutcome(const RetrySchedule& schedule, const store::LeasedEvent& event,
                                const std::string& owner, const action::Outcome& outcome, int64_t now_ms,
                                double uniform01) {
  store::AttemptResult r;
  r.id = event.id;
  r.owner = owner;
  r.attempt = event.attempt;
  r.finished_at_ms = now_ms;
  r.error = Capped(outcome.error);
  if (outcome.http_status > 0) r.http_status = outcome.http_status;
  r.exit_code = outcome.exit_code;
  switch (outcome.verdict) {
    case action::Verdict::kSuccess:
      r.outcome = store::AttemptOutcome::kCompleted;
      r.result_ref = outcome.result_ref;
      break;
    case action::Verdict::kTransient:
      RetryOrGiveUp(schedule, event, now_ms, outcome.retry_after_ms, uniform01, &r);
      break;
    case action::Verdict::kPermanent: r.outcome = store::AttemptOutcome::kDeadLettered; break;
    case action::Verdict::kUnknown: r.outcome = store::AttemptOutcome::kUnknown; break;
  }
  return r;
}

void ApplyProbe(const RetrySchedule& schedule, const store::LeasedEvent& event, const action::ProbeResult& probe,
                int64_t probe_started_ms, double uniform01, store::AttemptResult* r) {
  r->probe = store::AttemptResult::Probe{probe_started_ms, std::nullopt, probe.error};
  if (probe.http_status > 0) r->probe->http_status = probe.http_status;
  r->error = Capped(r->error + "; " + probe.error);
  switch (probe.verdict) {
    case action::ProbeVerdict::kFound:
      r->outcome = store::AttemptOutcome::kCompleted;
      r->result_ref = probe.result_ref;
      break;
    case action::ProbeVerdict::kNotFound:
      RetryOrGiveUp(schedule, event, r->finished_at_ms, std::nullopt, uniform01, r);
      break;
    case action::ProbeVerdict::kUnclear: break;  // stays unknown, for a person
  }
}

RetryReason RetryReasonOf(const action::Outcome& outcome, bool probe_not_found) {
  if (probe_not_found) return RetryReason::kProbeNotFound;
  const int status = outcome.http_status;
  if (status == 429) return RetryReason::kStatus429;
  if (status >= 500) return RetryReason::kStatus5xx;
  if (status >= 400) return RetryReason::kStatus4xx;
  if (outcome.exit_code && *outcome.exit_code == 75) return RetryReason::kExit75;
  switch (outcome.no_answer) {
    case action::NoAnswer::kTimedOut: return RetryReason::kTimeout;
    case action::NoAnswer::kNotSent: return RetryReason::kConnect;
    case action::NoAnswer::kLost: return RetryReason::kNoAnswer;
    case action::NoAnswer::kNone: break;
  }
  return RetryReason::kOther;
}

const char* RetryReasonLabel(RetryReason reason) {
  switch (reason) {
    case RetryReason::kStatus429: return "status_429";
    case RetryReason::kStatus5xx: return "status_5xx";
    case RetryReason::kStatus4xx: return "status_4xx";
    case RetryReason::kExit75: return "exit_75";
    case RetryReason::kTimeout: return "timeout";
    case RetryReason::kConnect: return "connect";
    case RetryReason::kNoAnswer: return "no_answer";
    case RetryReason::kProbeNotFound: return "probe_not_found";
    case RetryReason::kOther: break;
  }
  return "other";
}

}  // namespace hookinbox::worker
