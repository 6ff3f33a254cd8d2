// Tests of worker/policy: what an attempt's outcome, and a probe's answer,
// make of the event (backoff and retry reasons have their own files).
#include "worker/policy.h"

#include <catch2/catch.hpp>

namespace hookinbox::worker {
namespace {

store::LeasedEvent Claimed(int attempt) {
  store::LeasedEvent e;
  e.id = 7;
  e.attempt = attempt;
  return e;
}

}  // namespace

TEST_CASE("MapOutcome: success completes with its result_ref") {
  config::WorkerConfig w;
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
  config::WorkerConfig w;
  w.max_attempts = 3;
  w.backoff_initial_ms = 100;
  w.backoff_max_ms = 1000;
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
  CHECK(r.error.find("HTTP 503") != std::string::npos);
}

TEST_CASE("MapOutcome: permanent dead-letters, unknown stays unknown, errors are capped") {
  config::WorkerConfig w;
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
  config::WorkerConfig w;
  w.max_attempts = 2;
  w.backoff_initial_ms = 100;
  w.backoff_max_ms = 1000;
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

}  // namespace hookinbox::worker
