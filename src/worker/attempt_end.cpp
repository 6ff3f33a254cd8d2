#include "worker/attempt_end.h"

#include <random>

#include "common/log.h"
#include "common/metrics.h"
#include "worker/policy.h"

namespace hookinbox::worker {
namespace {

double Uniform01() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

void CountEnd(const store::LeasedEvent& event, const action::Outcome& outcome, const std::optional<ProbeAnswer>& probe,
              const store::AttemptResult& result) {
  auto& registry = metrics::Registry::Default();
  registry.Add(metrics::kAttemptsTotal, {event.endpoint, event.provider, store::AttemptOutcomeName(result.outcome)});
  if (result.outcome != store::AttemptOutcome::kRetryableFailed) return;
  const bool probe_not_found = probe && probe->result.verdict == action::ProbeVerdict::kNotFound;
  const RetryReason reason = RetryReasonOf(outcome, probe_not_found);
  registry.Add(metrics::kRetriesTotal, {event.endpoint, event.provider, RetryReasonLabel(reason)});
}

}  // namespace

store::AttemptResult MapAttemptEnd(const config::Config& config, const store::LeasedEvent& event,
                                   const action::Outcome& outcome, const std::optional<ProbeAnswer>& probe,
                                   int64_t now_ms) {
  const config::EndpointConfig* endpoint = config.FindEndpoint(event.endpoint);
  const RetrySchedule schedule = endpoint ? ScheduleFor(config, *endpoint) : ScheduleFor(config.worker);
  store::AttemptResult r = MapOutcome(schedule, event, std::string(), outcome, now_ms, Uniform01());
  if (probe && r.outcome == store::AttemptOutcome::kUnknown) {
    ApplyProbe(schedule, event, probe->result, probe->started_ms, Uniform01(), &r);
  }
  return r;
}

void ReportAttemptEnd(EndedBy by, const store::LeasedEvent& event, const action::Outcome& outcome,
                      const std::optional<ProbeAnswer>& probe, const store::AttemptResult& result, double seconds) {
  CountEnd(event, outcome, probe, result);
  if (by == EndedBy::kHandler) {
    log::Info("attempt", {{"endpoint", event.endpoint},
                          {"provider", event.provider},
                          {"id", event.id},
                          {"event_id", event.event_id},
                          {"attempt", event.attempt},
                          {"outcome", store::AttemptOutcomeName(result.outcome)},
                          {"by", "handler"}});
    return;
  }
  log::Info("attempt", {{"endpoint", event.endpoint},
                        {"provider", event.provider},
                        {"id", event.id},
                        {"event_id", event.event_id},
                        {"attempt", event.attempt},
                        {"outcome", store::AttemptOutcomeName(result.outcome)},
                        {"status", outcome.http_status},
                        {"duration_ms", seconds * 1000.0},
                        {"error", result.error}});
}

}  // namespace hookinbox::worker
