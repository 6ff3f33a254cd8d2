// Integration tests of the worker when things fail: the real binary, its
// worker loop and the test downstream process (downstream.h), each able to
// fail. A downstream that answers 503 forever, one that is down for a while,
// one that asks for a pause with 429 + Retry-After, and one that takes the
// request but never answers a non-idempotent target; then the operator's
// `events resolve` and `events replay` on the states those leave behind.
// Every wait polls the database with a deadline (harness.h).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// The knobs these tests turn; the rest of the config is fixed.
struct Knobs {
  int threads = 2;
  int concurrency = 0;  // 0 = the product's default (half the threads, at least 1)
  int max_attempts = 5;
  int backoff_initial_ms = 10;
  int backoff_max_ms = 50;
  bool idempotent_target = true;
  int timeout_ms = 5000;
};

// The demo endpoint with an http action to `url`, tuned by `k`.
std::string ActionConfig(const Installation& inst, const std::string& url, const Knobs& k) {
  std::ostringstream toml;
  toml << ForwardingAction(inst, url) << "result_ref_header = \"X-Ref\"\n"
       << "idempotent_target = " << (k.idempotent_target ? "true" : "false") << "\n"
       << "timeout_ms = " << k.timeout_ms << "\nconcurrency = " << k.concurrency << "\n"
       // Each event's own retries are watched here; the breaker's holding is outage_test.cpp's.
       << "breaker_failures = 0\n\n"
       << "[worker]\nthreads = " << k.threads << "\nlease_seconds = 2\nmax_attempts = " << k.max_attempts
       << "\nbackoff_initial_ms = " << k.backoff_initial_ms << "\nbackoff_max_ms = " << k.backoff_max_ms
       << "\nshutdown_grace_seconds = 5\n";
  return toml.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// One webhook_attempts row, as far as these tests look at it.
struct AttemptRow {
  int attempt = 0;
  int64_t started_at = 0, finished_at = 0;  // ms; finished_at -1 while in flight
  std::string outcome;
};

std::string Header(const json& call, const std::string& name) { return call["headers"].value(name, ""); }

struct Fixture : ForwardingRig {
  explicit Fixture(const Knobs& knobs) {
    inst.WriteTestConfig(ActionConfig(inst, downstream.url(), knobs));
  }
  // `expr` over the attempt rows of `id`, oldest first, joined by ','.
  std::string AttemptList(int64_t id, const std::string& expr) const {
    return inst.Sql("SELECT group_concat(v, ',') FROM (SELECT " + expr +
                    " AS v FROM webhook_attempts WHERE inbox_id = " + std::to_string(id) + " ORDER BY id) AS sub");
  }
  // Every attempt row, by event, in attempt order.
  std::map<int64_t, std::vector<AttemptRow>> AttemptsByEvent() const {
    std::map<int64_t, std::vector<AttemptRow>> out;
    for (const auto& line : Lines(inst.Sql("SELECT inbox_id, attempt, started_at, ifnull(finished_at, -1),"
                                           " ifnull(outcome, '') FROM webhook_attempts ORDER BY inbox_id, id"))) {
      std::istringstream in(line);
      std::string f[5];
      for (auto& field : f) std::getline(in, field, '|');
      out[std::stoll(f[0])].push_back({std::stoi(f[1]), std::stoll(f[2]), std::stoll(f[3]), f[4]});
    }
    return out;
  }
  // The downstream's calls carrying the idempotency key of event `event_id`.
  std::vector<json> CallsFor(const std::string& event_id) const {
    std::vector<json> out;
    for (const auto& call : downstream.Calls())
      if (Header(call, "X-Hookinbox-Event-Id") == event_id) out.push_back(call);
    return out;
  }
  // `hookinbox events ARGS -c CONFIG` against the running server's database.
  CommandResult Events(const std::string& args) const {
    return RunCommand(BinaryPath() + " events " + args + " -c " + inst.config_path() + " 2>&1");
  }
};

}  // namespace

TEST_CASE("worker failure: 503 forever dead-letters after max_attempts; replay sends it again with the same key",
          "[worker][failure]") {
  Knobs knobs;
  knobs.max_attempts = 4;
  Fixture f(knobs);
  f.downstream.Default(json{{"status", 503}});
  f.server.Start();
  const int64_t id = f.Deliver("evt_503");
  REQUIRE(f.Becomes(id, "dead_lettered"));

  auto calls = f.CallsFor("evt_503");
  REQUIRE(calls.size() == 4);
  const std::string key = Header(calls[0], "Idempotency-Key");
  CHECK(key.size() == 64);
  for (size_t i = 0; i < calls.size(); ++i) {
    CHECK(Header(calls[i], "Idempotency-Key") == key);
    CHECK(Header(calls[i], "X-Hookinbox-Attempt") == std::to_string(i + 1));
    CHECK(calls[i]["status"] == 503);
  }
  CHECK(f.downstream.Stats()["calls"] == 4);  // nothing else reached it either
  // The product prefixes the exhausted attempt's error; the cause is kept.
  CHECK(f.Field(id, "attempt_count || '|' || last_error || '|' || ifnull(next_attempt_at, 'null')") ==
        "4|attempts exhausted: HTTP 503|null");
  CHECK(f.AttemptList(id, "attempt || ':' || outcome || ':' || http_status || ':' || error") ==
        "1:retryable_failed:503:HTTP 503,2:retryable_failed:503:HTTP 503,3:retryable_failed:503:HTTP 503,"
        "4:dead_lettered:503:attempts exhausted: HTTP 503");

  // A person replays it once the downstream is healthy: the event is received
  // again (the audit row says so), max_attempts starts afresh and the next
  // call carries the same key, so a target deduplicating by it stays safe.
  f.downstream.Default(json{{"status", 200}});
  auto replay = f.Events("replay " + std::to_string(id) + " --note 'downstream fixed'");
  INFO(replay.out);
  REQUIRE(replay.exit_code == 0);
  CHECK(replay.out.find("now received") != std::string::npos);
  CHECK(f.inst.Sql("SELECT action || '|' || from_status || '|' || to_status || '|' || note FROM webhook_event_actions"
                   " WHERE inbox_id = " + std::to_string(id)) == "replay|dead_lettered|received|downstream fixed");
  // The CLI closed its connection while the server ran; the server's later
  // commits must still land (they were lost before the PrepareFile fix in
  // store/database.cpp: the CLI deleted the WAL the server was writing to).
  const bool completed = f.Becomes(id, "completed");
  INFO(f.Field(id, "status || '|' || attempt_count") << " / "
                                                     << f.AttemptList(id, "attempt || ':' || ifnull(outcome, '')"));
  REQUIRE(completed);
  calls = f.CallsFor("evt_503");
  REQUIRE(calls.size() == 5);
  CHECK(Header(calls[4], "Idempotency-Key") == key);
  CHECK(Header(calls[4], "X-Hookinbox-Attempt") == "1");
  CHECK(calls[4]["status"] == 200);
  CHECK(f.downstream.Stats()["effects"] == 1);
  CHECK(f.Field(id, "attempt_count || '|' || result_ref") == "1|eff_1");
  CHECK(f.AttemptList(id, "attempt || ':' || outcome") ==
        "1:retryable_failed,2:retryable_failed,3:retryable_failed,4:dead_lettered,1:completed");
}

TEST_CASE("worker failure: downstream down for a while; retries back off with growing gaps, "
          "then each event completes once",
          "[worker][failure]") {
  constexpr int kEvents = 6;
  constexpr int64_t kInitialMs = 100;
  // Gap n (before retry n, after failed attempt n) has the jitter ceiling
  // kInitialMs * 2^(n-1): 100, 200, 400, 800, 1600 for the five gaps looked
  // at. The cap equals the fifth ceiling, so none of them is capped, and once
  // the downstream is back the next retry comes within 1.6 s.
  constexpr int kGaps = 5;
  constexpr int64_t kMaxMs = kInitialMs << (kGaps - 1);
  // A gap can exceed its backoff by the time from a retry becoming due to its
  // claim: waking the sleeping thread and the writer's queue and commits of
  // the other events (milliseconds normally, more under sanitizers).
  constexpr int64_t kSlackMs = 400;
  Knobs knobs;
  knobs.threads = 4;
  knobs.concurrency = 4;
  knobs.max_attempts = 50;
  knobs.backoff_initial_ms = static_cast<int>(kInitialMs);
  knobs.backoff_max_ms = static_cast<int>(kMaxMs);
  Fixture f(knobs);
  const int port = f.downstream.port();
  f.server.Start();
  f.downstream.Kill();
  std::vector<int64_t> ids;
  for (int i = 0; i < kEvents; ++i) ids.push_back(f.Deliver("evt_down_" + std::to_string(i)));

  // Until each event has failed kGaps + 1 times: attempt kGaps + 1 started after gap kGaps.
  auto failed_enough = [&] {
    return f.inst.Sql("SELECT count(*) FROM (SELECT inbox_id FROM webhook_attempts WHERE outcome = 'retryable_failed'"
                      " GROUP BY inbox_id HAVING count(*) >= " + std::to_string(kGaps + 1) + ") AS sub") ==
           std::to_string(kEvents);
  };
  REQUIRE(PollUntil(failed_enough, 30s));
  // Refused connections are transient and say nothing was sent.
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE outcome IS NOT NULL AND (outcome <> 'retryable_failed'"
                   " OR http_status IS NOT NULL OR ifnull(error, '') NOT LIKE 'not sent: %')") == "0");

  const auto attempts = f.AttemptsByEvent();
  REQUIRE(attempts.size() == static_cast<size_t>(kEvents));
  double early_sum = 0, late_sum = 0;  // gaps 1-2 and 4-5 of every event
  for (const auto& [id, rows] : attempts) {
    INFO("event " << id);
    REQUIRE(rows.size() >= static_cast<size_t>(kGaps + 1));
    for (int n = 1; n <= kGaps; ++n) {
      const AttemptRow& failed = rows[n - 1];
      const AttemptRow& retry = rows[n];
      REQUIRE(failed.attempt == n);
      REQUIRE(retry.attempt == n + 1);
      const int64_t gap = retry.started_at - failed.finished_at;
      const int64_t ceiling = kInitialMs << (n - 1);
      INFO("gap " << n << " = " << gap << " ms, jitter ceiling " << ceiling << " ms");
      CHECK(gap >= 0);
      CHECK(gap <= ceiling + kSlackMs);
      if (n <= 2) early_sum += static_cast<double>(gap);
      if (n >= 4) late_sum += static_cast<double>(gap);
    }
  }
  // Why this cannot flake in practice: with full jitter each gap is uniform
  // on [0, ceiling) plus a small non-negative slack. The 12 early gaps have
  // ceilings 100/200 ms, so their mean is at most 150 ms + slack. For the 12
  // late gaps (ceilings 800/1600 ms) to average no more than that, their
  // jitter must sum to under ~1800 ms + slack against an expected 7200 ms; the
  // simplex bound puts that below 1800^12 / (12! * 800^6 * 1600^6) < 1e-6
  // (a few times that with sanitizer-sized slack), and slack only ever adds
  // to the late gaps too.
  const double early_mean = early_sum / (2.0 * kEvents), late_mean = late_sum / (2.0 * kEvents);
  INFO("mean gap at retries 1-2: " << early_mean << " ms; at retries 4-5: " << late_mean << " ms");
  CHECK(late_mean > early_mean);

  // The downstream comes back where the config points: every event completes
  // with exactly one effect, one call per key.
  f.downstream.Start(port);
  for (int64_t id : ids) REQUIRE(f.Becomes(id, "completed"));
  const json stats = f.downstream.Stats();
  CHECK(stats["effects"] == kEvents);
  CHECK(stats["keys"] == kEvents);
  CHECK(stats["replays"] == 0);
  const json calls = f.downstream.Calls();
  CHECK(calls.size() == static_cast<size_t>(kEvents));
  std::set<std::string> keys;
  for (const auto& call : calls) keys.insert(Header(call, "Idempotency-Key"));
  CHECK(keys.size() == static_cast<size_t>(kEvents));
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE outcome = 'completed'") == std::to_string(kEvents));
  CHECK(f.inst.Sql("SELECT count(DISTINCT result_ref) FROM webhook_inbox WHERE status = 'completed'") ==
        std::to_string(kEvents));
}

TEST_CASE("worker failure: 429 with Retry-After 2 holds the next attempt back at least 2 s, then it completes",
          "[worker][failure]") {
  Knobs knobs;
  knobs.backoff_max_ms = 5000;  // Retry-After is honoured up to this cap
  Fixture f(knobs);
  f.downstream.Script(json::parse(R"([{"status":429,"retry_after":"2"}])"));
  f.server.Start();
  const int64_t id = f.Deliver("evt_429");
  REQUIRE(f.Becomes(id, "completed"));
  CHECK(f.AttemptList(id, "attempt || ':' || outcome || ':' || ifnull(http_status, '')") ==
        "1:retryable_failed:429,2:completed:200");
  const std::string gap = f.inst.Sql(
      "SELECT b.started_at - a.finished_at FROM webhook_attempts a JOIN webhook_attempts b"
      " ON b.inbox_id = a.inbox_id AND b.attempt = 2 WHERE a.inbox_id = " + std::to_string(id) + " AND a.attempt = 1");
  INFO("gap after the 429: " << gap << " ms");
  // The first backoff is at most backoff_initial_ms (10), so only Retry-After
  // can explain a pause of 2 s; the upper bound catches a misread unit (ms
  // taken for s, or the reverse).
  CHECK(std::stoll(gap) >= 2000);
  CHECK(std::stoll(gap) < 6000);
  CHECK(f.downstream.Stats()["effects"] == 1);
}

TEST_CASE("worker failure: a timeout after sending to a non-idempotent target is unknown, never retried; "
          "resolve closes it",
          "[worker][failure]") {
  Knobs knobs;
  knobs.idempotent_target = false;
  knobs.timeout_ms = 500;
  Fixture f(knobs);
  f.downstream.Script(json::parse(R"([{"hold":true}])"));
  f.server.Start();
  const int64_t first = f.Deliver("evt_held");
  REQUIRE(f.Becomes(first, "unknown"));
  CHECK(f.AttemptList(first, "attempt || ':' || outcome || ':' || ifnull(http_status, '') || ':' ||"
                             " (CASE WHEN error LIKE 'no answer: %' THEN 1 ELSE 0 END)") == "1:unknown::1");
  CHECK(f.Field(first, "attempt_count || '|' || ifnull(next_attempt_at, 'null')") == "1|null");

  // The held request now has its effect, though nobody hears the answer. A
  // second event completing shows the worker kept claiming afterwards; the
  // first (the older, so claimed first if it were due) was left alone.
  f.downstream.Release();
  REQUIRE(PollUntil([&] { return f.downstream.Stats()["effects"] == 1; }, 20s));
  const int64_t second = f.Deliver("evt_after");
  REQUIRE(f.Becomes(second, "completed"));
  CHECK(f.Field(first, "status || '|' || attempt_count") == "unknown|1");
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(first)) == "1");
  CHECK(f.CallsFor("evt_held").size() == 1);
  CHECK(f.downstream.Stats()["calls"] == 2);

  // Someone checked the downstream by hand and closes the event.
  auto resolve = f.Events("resolve " + std::to_string(first) + " --as completed --result-ref ref_by_hand"
                          " --note 'checked by hand'");
  INFO(resolve.out);
  REQUIRE(resolve.exit_code == 0);
  CHECK(f.Field(first, "status || '|' || result_ref || '|' || (CASE WHEN completed_at IS NOT NULL THEN 1 ELSE 0 END)"
                       " || '|' || attempt_count") ==
        "completed|ref_by_hand|1|1");
  CHECK(f.inst.Sql("SELECT action || '|' || from_status || '|' || to_status || '|' || result_ref || '|' || note ||"
                   " '|' || (CASE WHEN actor LIKE 'cli:%' THEN 1 ELSE 0 END)"
                   " FROM webhook_event_actions WHERE inbox_id = " +
                   std::to_string(first)) == "resolve|unknown|completed|ref_by_hand|checked by hand|1");
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(first)) == "1");
}

}  // namespace hookinbox::testing
