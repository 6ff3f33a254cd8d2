// worker/attempt_end.h — an attempt's end, decided, counted and logged one
// way whoever ended it: the worker loop with its action's answer
// (worker_loop.cpp), or a handler through the handler API's
// /v1/events/complete|fail|unknown (admin/handler_attempt.cpp). Both go
// through here so a handler's end leaves the same state, metrics and log
// line as the worker's.
//
// Unlike policy.h this is not pure: it draws the jitter from a per-thread
// generator and writes metrics and the log. Thread-safety: any thread.
#pragma once

#include <cstdint>
#include <optional>

#include "action/action.h"
#include "action/probe.h"
#include "config/config.h"
#include "store/work_queue.h"

namespace hookinbox::worker {

// What a probe answered, for an attempt whose outcome was unknown.
struct ProbeAnswer {
  action::ProbeResult result;
  int64_t started_ms = 0;
};

// The state `outcome` moves `event` to (MapOutcome), under the retry
// schedule of the event's endpoint in `config` — [worker] alone when the
// endpoint left the config — with the jitter drawn here; then, when the
// outcome is unknown and `probe` answered, as the probe says (ApplyProbe).
store::AttemptResult MapAttemptEnd(const config::Config& config, const store::LeasedEvent& event,
                                   const action::Outcome& outcome, const std::optional<ProbeAnswer>& probe,
                                   int64_t now_ms);

// Who recorded an attempt's end, for its log line.
enum class EndedBy {
  kWorker,   // the action's answer: the line has its HTTP status, duration and error
  kHandler,  // the handler API: "by":"handler", never the handler's texts (they may carry anything)
};

// Counts a recorded end (webhook_attempts_total by outcome,
// webhook_retries_total by reason when it is retried) and writes its
// "attempt" log line. `seconds`: how long the action ran (kWorker only).
void ReportAttemptEnd(EndedBy by, const store::LeasedEvent& event, const action::Outcome& outcome,
                      const std::optional<ProbeAnswer>& probe, const store::AttemptResult& result, double seconds = 0);

}  // namespace hookinbox::worker
