// Tests of worker/policy: what an attempt's outcome, and a probe's answer,
// make of the event (backoff and retry reasons have their own files).
#include "worker/policy.h"

#include <catch2/catch.hpp>

namespace hookinbox::worker {
namespace {

// Received (its retry window opened) at 0: tests' `now` is well inside a 3-day horizon.
store::LeasedEvent Claimed(int attempt, int64_t window_start_ms = 0) {
  store::LeasedEvent e;
  e.id = 7;
  e.attempt = attempt;
  e.received_at_ms = window_start_ms;
  e.retry_window_start_ms = window_start_ms;
  return e;
}

}  // namespace

TEST_CASE("MapOutcome: success completes with its result_ref") {
  RetrySchedule w;
  action::Outcome o;
  o.verdict = action::Verdict::kSuccess;
  o.result_ref = "r-1";
  o.http_status = 201;
  auto r = MapOutcome(w, Claimed(1), "me", o, 1000, 0.5);
  CHECK(r.outcome == store::AttemptOutcome::kCompleted);
  CHECK(r.result_ref == "r-1");
  CHECK(r.id == 7);
  CHECK(r.owner == "me");
  CHECK(r.attempt == 1);
  CHECK(r.finished_at_ms == 1000);
  CHECK(r.http_status == 201);
}

TEST_CASE("MapOutcome: transient retries with backoff and Retry-After, dead-letters at max_attempts") {
  RetrySchedule w;
  w.max_attempts = 3;
  w.initial_ms = 100;
  w.max_ms = 10000;
  action::Outcome o;
  o.verdict = action::Verdict::kTransient;
  o.error = "HTTP 503";
  auto r = MapOutcome(w, Claimed(2), "me", o, 1000, 0.999);
  CHECK(r.outcome == store::AttemptOutcome::kRetryableFailed);
  CHECK(r.next_attempt_at_ms > 1000);
  CHECK(r.next_attempt_at_ms <= 1000 + 200);
  o.retry_after_ms = 5000;
  r = MapOutcome(w, Claimed(2), "me", o, 1000, 0.0);
  CHECK(r.next_attempt_at_ms >= 6000);
  r = MapOutcome(w, Claimed(3), "me", o, 1000, 0.5);
  CHECK(r.outcome == store::AttemptOutcome::kDeadLettered);
  CHECK(r.error == "attempts exhausted: HTTP 503");
}

TEST_CASE("MapOutcome: permanent dead-letters, unknown stays unknown, errors are capped") {
  RetrySchedule w;
  action::Outcome o;
  o.verdict = action::Verdict::kPermanent;
  o.exit_code = 1;
  o.error = std::string(2000, 'x');
  auto r = MapOutcome(w, Claimed(1), "me", o, 1, 0.5);
  CHECK(r.outcome == store::AttemptOutcome::kDeadLettered);
  CHECK(r.exit_code == 1);
  CHECK(!r.http_status.has_value());
  CHECK(r.error.size() == store::kMaxErrorBytes);
  o.verdict = action::Verdict::kUnknown;
  CHECK(MapOutcome(w, Claimed(1), "me", o, 1, 0.5).outcome == store::AttemptOutcome::kUnknown);
}

TEST_CASE("ApplyProbe: found completes, not found retries (or dead-letters at the ceiling), unclear stays unknown") {
  RetrySchedule w;
  w.max_attempts = 2;
  w.initial_ms = 100;
  w.max_ms = 1000;
  action::Outcome lost;
  lost.verdict = action::Verdict::kUnknown;
  lost.error = "no answer: Read";
  auto probed = [&](action::ProbeVerdict verdict, int attempt) {
    store::AttemptResult r = MapOutcome(w, Claimed(attempt), "me", lost, 5000, 0.5);
    action::ProbeResult p;
    p.verdict = verdict;
    p.http_status = verdict == action::ProbeVerdict::kFound ? 200 : 404;
    p.result_ref = "ord_1";
    p.error = "probe: x";
    ApplyProbe(w, Claimed(attempt), p, 4900, 0.5, &r);
    return r;
  };
  auto found = probed(action::ProbeVerdict::kFound, 1);
  CHECK(found.outcome == store::AttemptOutcome::kCompleted);
  CHECK(found.result_ref == "ord_1");
  REQUIRE(found.probe.has_value());
  CHECK(found.probe->started_at_ms == 4900);
  CHECK(found.probe->http_status == 200);
  CHECK(found.error == "no answer: Read; probe: x");
  auto not_found = probed(action::ProbeVerdict::kNotFound, 1);
  CHECK(not_found.outcome == store::AttemptOutcome::kRetryableFailed);
  CHECK(not_found.next_attempt_at_ms >= 5000);
  CHECK(not_found.next_attempt_at_ms <= 5100);
  CHECK(probed(action::ProbeVerdict::kNotFound, 2).outcome == store::AttemptOutcome::kDeadLettered);
  auto unclear = probed(action::ProbeVerdict::kUnclear, 1);
  CHECK(unclear.outcome == store::AttemptOutcome::kUnknown);
  CHECK(unclear.probe.has_value());
}

TEST_CASE("MapOutcome: without max_attempts, retries go on until the horizon, the last one at it") {
  RetrySchedule w;  // max_attempts unset
  w.initial_ms = 1000;
  w.max_ms = 3600000;
  w.retry_for_ms = 3 * 86400000LL;
  const int64_t received = 1700000000000;
  const int64_t horizon = received + w.retry_for_ms;
  action::Outcome o;
  o.verdict = action::Verdict::kTransient;
  o.error = "HTTP 503";
  // Attempt 500, a day in: still retried, at most the cap later.
  auto r = MapOutcome(w, Claimed(500, received), "me", o, received + 86400000, 0.999);
  CHECK(r.outcome == store::AttemptOutcome::kRetryableFailed);
  CHECK(r.next_attempt_at_ms <= received + 86400000 + 3600000);
  // Ten minutes before the horizon: the next attempt is due at the horizon, not after it.
  r = MapOutcome(w, Claimed(80, received), "me", o, horizon - 600000, 0.999);
  CHECK(r.outcome == store::AttemptOutcome::kRetryableFailed);
  CHECK(r.next_attempt_at_ms == horizon);
  // That attempt, failing at (or after) the horizon, gives up, saying so.
  r = MapOutcome(w, Claimed(81, received), "me", o, horizon, 0.5);
  CHECK(r.outcome == store::AttemptOutcome::kDeadLettered);
  CHECK(r.error == "retry horizon reached after 3d: HTTP 503");
  r = MapOutcome(w, Claimed(81, received), "me", o, horizon + 5000, 0.5);
  CHECK(r.outcome == store::AttemptOutcome::kDeadLettered);
}

TEST_CASE("MapOutcome: the horizon counts from the retry window's start (a replay), not from receipt") {
  RetrySchedule w;
  w.retry_for_ms = 2000;
  w.initial_ms = 10;
  w.max_ms = 100;
  action::Outcome o;
  o.verdict = action::Verdict::kTransient;
  o.error = "HTTP 503";
  store::LeasedEvent replayed = Claimed(1, 50000);
  replayed.received_at_ms = 1000;  // received long ago, replayed at 50 000
  auto r = MapOutcome(w, replayed, "me", o, 51000, 0.5);
  CHECK(r.outcome == store::AttemptOutcome::kRetryableFailed);
  r = MapOutcome(w, replayed, "me", o, 52000, 0.5);
  CHECK(r.outcome == store::AttemptOutcome::kDeadLettered);
  CHECK(r.error == "retry horizon reached after 2s: HTTP 503");
}

TEST_CASE("MapOutcome: max_attempts, when set, still ends retries before the horizon") {
  RetrySchedule w;
  w.max_attempts = 4;
  action::Outcome o;
  o.verdict = action::Verdict::kTransient;
  o.error = "exit status 75";
  CHECK(MapOutcome(w, Claimed(3), "me", o, 1000, 0.5).outcome == store::AttemptOutcome::kRetryableFailed);
  auto r = MapOutcome(w, Claimed(4), "me", o, 1000, 0.5);
  CHECK(r.outcome == store::AttemptOutcome::kDeadLettered);
  CHECK(r.error == "attempts exhausted: exit status 75");
}

TEST_CASE("MapOutcome: Retry-After is honoured up to backoff_max_ms, and never past the horizon") {
  RetrySchedule w;
  w.initial_ms = 1000;
  w.max_ms = 2000;
  w.retry_for_ms = 86400000;
  action::Outcome o;
  o.verdict = action::Verdict::kTransient;
  o.error = "HTTP 503";
  o.retry_after_ms = int64_t{99999999} * 1000;  // Retry-After: 99999999 (seconds)
  auto r = MapOutcome(w, Claimed(1), "me", o, 1000, 0.0);
  CHECK(r.outcome == store::AttemptOutcome::kRetryableFailed);
  CHECK(r.next_attempt_at_ms == 1000 + 2000);
  o.retry_after_ms = 1500;  // below the cap: honoured as asked
  CHECK(MapOutcome(w, Claimed(1), "me", o, 1000, 0.0).next_attempt_at_ms == 2500);
  w.max_ms = 3600000;
  o.retry_after_ms = 3000000;  // within the cap, but beyond the horizon
  CHECK(MapOutcome(w, Claimed(1), "me", o, 86400000 - 1000, 0.0).next_attempt_at_ms == 86400000);
}

TEST_CASE("ApplyProbe: not found at the horizon is dead-lettered, naming it") {
  RetrySchedule w;
  w.retry_for_ms = 60000;
  action::Outcome lost;
  lost.verdict = action::Verdict::kUnknown;
  lost.error = "no answer: Read";
  store::AttemptResult r = MapOutcome(w, Claimed(3), "me", lost, 60000, 0.5);
  action::ProbeResult p;
  p.verdict = action::ProbeVerdict::kNotFound;
  p.http_status = 404;
  p.error = "probe: not found";
  ApplyProbe(w, Claimed(3), p, 59900, 0.5, &r);
  CHECK(r.outcome == store::AttemptOutcome::kDeadLettered);
  CHECK(r.error == "retry horizon reached after 1m: no answer: Read; probe: not found");
  r = MapOutcome(w, Claimed(3), "me", lost, 59000, 0.999);
  ApplyProbe(w, Claimed(3), p, 58900, 0.999, &r);
  CHECK(r.outcome == store::AttemptOutcome::kRetryableFailed);
  CHECK(r.next_attempt_at_ms == 60000);  // capped at the horizon
}

TEST_CASE("ScheduleFor: [worker] with the endpoint's effective retry_for") {
  config::Config c;
  c.worker.max_attempts = 9;
  c.worker.backoff_initial_ms = 20;
  c.worker.backoff_max_ms = 2000;
  c.worker.retry_for_ms = 3600000;
  config::EndpointConfig plain, own;
  own.action.retry_for_ms = 2000;
  RetrySchedule s = ScheduleFor(c, plain);
  CHECK(s.max_attempts == 9);
  CHECK(s.initial_ms == 20);
  CHECK(s.max_ms == 2000);
  CHECK(s.retry_for_ms == 3600000);
  CHECK(ScheduleFor(c, own).retry_for_ms == 2000);
  CHECK(ScheduleFor(c.worker).retry_for_ms == 3600000);
}

}  // namespace hookinbox::worker
