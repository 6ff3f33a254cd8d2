// The retry horizon against the real binary: transient failures are retried
// for worker.retry_for (an endpoint's own retry_for overriding it), counted
// from the event's arrival, and dead-lettered once it has passed, however
// many attempts that took; max_attempts, when set, still ends retries
// early; Retry-After is honoured only up to backoff_max_ms. Time is scaled
// down in the config (a 2 s horizon, millisecond backoffs); every wait
// polls the database with a deadline (harness.h).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// The demo endpoint forwarding to `url`; `action_extra` and `worker` are
// lines of [endpoint.action] and [worker].
std::string Config(const Installation& inst, const std::string& url, const std::string& action_extra,
                   const std::string& worker) {
  // No circuit breaker: these tests watch each event's own retries (an open
  // breaker would hold them; outage_test.cpp covers it).
  return ForwardingAction(inst, url) + "idempotent_target = true\ntimeout_ms = 5000\nbreaker_failures = 0\n" +
         action_extra +
         "\n[worker]\nthreads = 2\nlease_seconds = 5\nshutdown_grace_seconds = 5\n" + worker;
}

struct Fixture : ForwardingRig {
  Fixture(const std::string& action_extra, const std::string& worker) {
    inst.WriteTestConfig(Config(inst, downstream.url(), action_extra, worker));
  }
  int64_t Number(int64_t id, const std::string& expr) const { return std::stoll(Field(id, expr)); }
  int64_t AttemptField(int64_t id, int attempt, const std::string& column) const {
    return std::stoll(inst.Sql("SELECT " + column + " FROM webhook_attempts WHERE inbox_id = " + std::to_string(id) +
                               " AND attempt = " + std::to_string(attempt) + " AND kind = 'action'"));
  }
  json CheckConfigJson() const {
    auto r = RunCommand(BinaryPath() + " check-config --json -c " + inst.config_path());
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  }
};

}  // namespace

TEST_CASE("retry horizon: Retry-After: 99999999 waits backoff_max_ms, not three years", "[worker][horizon]") {
  Fixture f("", "backoff_initial_ms = 10\nbackoff_max_ms = 2000\n");
  f.downstream.Script(json::parse(R"([{"status":503,"retry_after":"99999999"}])"));
  f.server.Start();
  const int64_t id = f.Deliver("evt_retry_after");
  // The first attempt's backoff is at most 10 ms, so a due time 2 s out can
  // only be the capped Retry-After: read it before the second attempt starts.
  REQUIRE(PollUntil([&] { return f.Field(id, "status") == "retryable_failed"; }, 20s));
  const int64_t failed_at = f.AttemptField(id, 1, "finished_at");
  const int64_t next_at = f.Number(id, "next_attempt_at");
  INFO("next attempt due " << next_at - failed_at << " ms after the 503");
  CHECK(next_at <= failed_at + 2000);
  CHECK(next_at >= failed_at + 1000);  // Retry-After was honoured, up to the cap
  CHECK(next_at < failed_at + int64_t{99999999} * 1000);
  CHECK(f.Field(id, "last_error") == "HTTP 503");
  // And it is retried then: the event completes at once after the pause.
  REQUIRE(f.Becomes(id, "completed"));
  const int64_t gap = f.AttemptField(id, 2, "started_at") - failed_at;
  CHECK(gap >= 1000);
  CHECK(gap < 6000);
}

TEST_CASE("retry horizon: without max_attempts an always-failing downstream is retried for retry_for, then "
          "dead-lettered naming the horizon",
          "[worker][horizon]") {
  // The endpoint's own 2 s overrides the worker's hour.
  Fixture f("retry_for = \"2s\"\n", "retry_for = \"1h\"\nbackoff_initial_ms = 10\nbackoff_max_ms = 200\n");
  const json report = f.CheckConfigJson();
  REQUIRE(report["endpoints"].size() == 1);
  CHECK(report["endpoints"][0]["name"] == "demo");
  CHECK(report["endpoints"][0]["action"] == "http");
  CHECK(report["endpoints"][0]["retry_for_seconds"] == 2);
  CHECK(report["endpoints"][0]["max_attempts"].is_null());

  f.downstream.Default(json{{"status", 503}});
  f.server.Start();
  const int64_t id = f.Deliver("evt_down");
  REQUIRE(f.Becomes(id, "dead_lettered", 30s));
  const int64_t received = f.Number(id, "received_at");
  const int attempts = static_cast<int>(f.Number(id, "attempt_count"));
  INFO(attempts << " attempts");
  CHECK(attempts > 1);
  CHECK(f.Field(id, "last_error") == "retry horizon reached after 2s: HTTP 503");
  // Given up only at the horizon, having tried up to it.
  const int64_t last_failed = f.AttemptField(id, attempts, "finished_at");
  CHECK(last_failed >= received + 2000);
  CHECK(last_failed < received + 2000 + 5000);
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(id) +
                   " AND attempt < " + std::to_string(attempts) + " AND outcome <> 'retryable_failed'") == "0");
  CHECK(f.downstream.Stats()["calls"] == attempts);
}

TEST_CASE("retry horizon: max_attempts, when set, still dead-letters early", "[worker][horizon]") {
  Fixture f("", "max_attempts = 3\nbackoff_initial_ms = 10\nbackoff_max_ms = 50\n");
  const json report = f.CheckConfigJson();
  REQUIRE(report["endpoints"].size() == 1);
  CHECK(report["endpoints"][0]["retry_for_seconds"] == 259200);  // the default 3 days
  CHECK(report["endpoints"][0]["max_attempts"] == 3);
  auto text = RunCommand(BinaryPath() + " check-config -c " + f.inst.config_path());
  CHECK(text.out.find("demo: retried for 3d, at most 3 attempts") != std::string::npos);

  f.downstream.Default(json{{"status", 503}});
  f.server.Start();
  const int64_t id = f.Deliver("evt_three");
  REQUIRE(f.Becomes(id, "dead_lettered"));
  CHECK(f.Field(id, "attempt_count || '|' || last_error") == "3|attempts exhausted: HTTP 503");
  CHECK(f.downstream.Stats()["calls"] == 3);
}

}  // namespace hookinbox::testing
