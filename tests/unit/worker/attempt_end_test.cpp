// An attempt's end, mapped and counted one way whoever ended it
// (worker/attempt_end.cpp): the schedule of the event's endpoint, the
// probe's answer, and the counters the worker loop and the handler API share.
#include <catch2/catch.hpp>

#include "common/metrics.h"
#include "worker/attempt_end.h"

using namespace hookinbox;
using namespace hookinbox::worker;
using store::AttemptOutcome;

namespace {

constexpr int64_t kNow = 1764669600000;  // 2025-12-02T10:00:00Z
constexpr int64_t kHour = 3600 * 1000;

config::Config TwoHourHorizon() {
  config::Config c;
  c.worker.retry_for_ms = 2 * kHour;
  c.endpoints.resize(1);
  c.endpoints[0].name = "orders";
  c.endpoints[0].action.retry_for_ms = 10 * kHour;
  return c;
}

// An event of `endpoint` whose retry window opened `age_ms` ago.
store::LeasedEvent EventOf(const std::string& endpoint, int64_t age_ms) {
  store::LeasedEvent e;
  e.id = 7;
  e.endpoint = endpoint;
  e.provider = "attempt-end-test";
  e.attempt = 1;
  e.retry_window_start_ms = kNow - age_ms;
  return e;
}

action::Outcome Transient() {
  action::Outcome o;
  o.sent = true;
  o.verdict = action::Verdict::kTransient;
  o.http_status = 503;
  return o;
}

}  // namespace

TEST_CASE("attempt end: the endpoint's retry_for decides; an endpoint gone from the config falls back to [worker]",
          "[worker][attempt_end]") {
  const config::Config c = TwoHourHorizon();
  // Three hours in: inside the endpoint's 10 h horizon, past [worker]'s 2 h.
  auto kept = MapAttemptEnd(c, EventOf("orders", 3 * kHour), Transient(), std::nullopt, kNow);
  CHECK(kept.outcome == AttemptOutcome::kRetryableFailed);
  CHECK(kept.next_attempt_at_ms >= kNow);
  CHECK(kept.owner.empty());
  auto gone = MapAttemptEnd(c, EventOf("removed", 3 * kHour), Transient(), std::nullopt, kNow);
  CHECK(gone.outcome == AttemptOutcome::kDeadLettered);
  CHECK_THAT(gone.error, Catch::StartsWith("retry horizon reached after"));
}

TEST_CASE("attempt end: the probe's answer decides an unknown outcome, and a retry it causes is counted as "
          "probe_not_found",
          "[worker][attempt_end]") {
  const config::Config c = TwoHourHorizon();
  const store::LeasedEvent e = EventOf("orders", 0);
  action::Outcome lost;
  lost.sent = true;
  lost.verdict = action::Verdict::kUnknown;
  ProbeAnswer probe{{action::ProbeVerdict::kFound, 200, "crm-9", "probe: found"}, kNow - 5};
  auto found = MapAttemptEnd(c, e, lost, probe, kNow);
  CHECK(found.outcome == AttemptOutcome::kCompleted);
  CHECK(found.result_ref == "crm-9");
  REQUIRE(found.probe);
  CHECK(found.probe->started_at_ms == kNow - 5);
  CHECK(MapAttemptEnd(c, e, lost, std::nullopt, kNow).outcome == AttemptOutcome::kUnknown);

  probe.result = {action::ProbeVerdict::kNotFound, 404, "", "probe: not found"};
  auto retried = MapAttemptEnd(c, e, lost, probe, kNow);
  REQUIRE(retried.outcome == AttemptOutcome::kRetryableFailed);
  auto& registry = metrics::Registry::Default();
  const metrics::LabelValues retries{"orders", "attempt-end-test", "probe_not_found"};
  const metrics::LabelValues attempts{"orders", "attempt-end-test", "retryable_failed"};
  const uint64_t retries_before = registry.CounterValue(metrics::kRetriesTotal, retries);
  const uint64_t attempts_before = registry.CounterValue(metrics::kAttemptsTotal, attempts);
  ReportAttemptEnd(EndedBy::kWorker, e, lost, probe, retried, 0.25);
  CHECK(registry.CounterValue(metrics::kRetriesTotal, retries) == retries_before + 1);
  CHECK(registry.CounterValue(metrics::kAttemptsTotal, attempts) == attempts_before + 1);
}

TEST_CASE("attempt end: a handler's end is counted like the worker's, its retry by the handler's outcome",
          "[worker][attempt_end]") {
  const store::LeasedEvent e = EventOf("orders", 0);
  action::Outcome failed;
  failed.sent = true;
  failed.verdict = action::Verdict::kTransient;
  store::AttemptResult r;
  r.outcome = AttemptOutcome::kRetryableFailed;
  auto& registry = metrics::Registry::Default();
  const metrics::LabelValues retries{"orders", "attempt-end-test", "other"};
  const uint64_t before = registry.CounterValue(metrics::kRetriesTotal, retries);
  ReportAttemptEnd(EndedBy::kHandler, e, failed, std::nullopt, r);
  CHECK(registry.CounterValue(metrics::kRetriesTotal, retries) == before + 1);
  r.outcome = AttemptOutcome::kCompleted;
  const metrics::LabelValues completed{"orders", "attempt-end-test", "completed"};
  const uint64_t done_before = registry.CounterValue(metrics::kAttemptsTotal, completed);
  ReportAttemptEnd(EndedBy::kHandler, e, failed, std::nullopt, r);
  CHECK(registry.CounterValue(metrics::kAttemptsTotal, completed) == done_before + 1);
  CHECK(registry.CounterValue(metrics::kRetriesTotal, retries) == before + 1);
}
