// The reason label of webhook_retries_total: a small fixed set, never free text.
#include <catch2/catch.hpp>

#include "worker/policy.h"

using namespace hookinbox;

namespace {
action::Outcome Http(int status) {
  action::Outcome o;
  o.verdict = action::Verdict::kTransient;
  o.http_status = status;
  o.error = "HTTP " + std::to_string(status);
  return o;
}
action::Outcome Error(std::string error, action::NoAnswer no_answer = action::NoAnswer::kNone) {
  action::Outcome o;
  o.verdict = action::Verdict::kTransient;
  o.no_answer = no_answer;
  o.error = std::move(error);
  return o;
}
std::string Reason(const action::Outcome& outcome, bool probe_not_found) {
  return worker::RetryReasonLabel(worker::RetryReasonOf(outcome, probe_not_found));
}
}  // namespace

TEST_CASE("worker: retry reasons name the cause from a fixed set", "[worker][metrics]") {
  CHECK(Reason(Http(429), false) == "status_429");
  CHECK(Reason(Http(503), false) == "status_5xx");
  CHECK(Reason(Http(500), false) == "status_5xx");
  CHECK(Reason(Http(408), false) == "status_4xx");
  action::Outcome exit75 = Error("exit status 75");
  exit75.exit_code = 75;
  CHECK(Reason(exit75, false) == "exit_75");
  CHECK(Reason(Error("timed out after 10000 ms; process group killed", action::NoAnswer::kTimedOut), false) ==
        "timeout");
  CHECK(Reason(Error("not sent: Connection", action::NoAnswer::kNotSent), false) == "connect");
  CHECK(Reason(Error("cannot fork: Resource temporarily unavailable", action::NoAnswer::kNotSent), false) == "connect");
  CHECK(Reason(Error("no answer: Read", action::NoAnswer::kLost), false) == "no_answer");
  CHECK(Reason(Error("something new"), false) == "other");
  CHECK(Reason(Error("no answer: Read", action::NoAnswer::kLost), true) == "probe_not_found");
}
