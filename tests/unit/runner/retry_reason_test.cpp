// The reason label of webhook_retries_total: a small fixed set, never free text.
#include <catch2/catch.hpp>

#include "runner/worker_loop.h"

using namespace hookinbox;

namespace {
worker::Outcome Http(int status) {
  worker::Outcome o;
  o.verdict = worker::Verdict::kTransient;
  o.http_status = status;
  o.error = "HTTP " + std::to_string(status);
  return o;
}
worker::Outcome Error(std::string error) {
  worker::Outcome o;
  o.verdict = worker::Verdict::kTransient;
  o.error = std::move(error);
  return o;
}
}  // namespace

TEST_CASE("runner: retry reasons name the cause from a fixed set", "[runner][metrics]") {
  CHECK(std::string(runner::RetryReason(Http(429), false)) == "status_429");
  CHECK(std::string(runner::RetryReason(Http(503), false)) == "status_5xx");
  CHECK(std::string(runner::RetryReason(Http(500), false)) == "status_5xx");
  CHECK(std::string(runner::RetryReason(Http(408), false)) == "status_4xx");
  worker::Outcome exit75 = Error("exit status 75");
  exit75.exit_code = 75;
  CHECK(std::string(runner::RetryReason(exit75, false)) == "exit_75");
  CHECK(std::string(runner::RetryReason(Error("timed out after 10000 ms; process group killed"), false)) == "timeout");
  CHECK(std::string(runner::RetryReason(Error("not sent: Connection"), false)) == "connect");
  CHECK(std::string(runner::RetryReason(Error("cannot fork: Resource temporarily unavailable"), false)) == "connect");
  CHECK(std::string(runner::RetryReason(Error("no answer: Read"), false)) == "no_answer");
  CHECK(std::string(runner::RetryReason(Error("something new"), false)) == "other");
  CHECK(std::string(runner::RetryReason(Error("no answer: Read"), true)) == "probe_not_found");
}
