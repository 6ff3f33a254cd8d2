// Integration tests of the worker loop: the real binary forwards accepted
// events to the test downstream process (downstream.h) or runs an exec
// action, and the database is polled with deadlines for the resulting states.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

// The demo endpoint with an http action to `url`, tiny backoff and lease.
// backoff_max_ms leaves room for a Retry-After of 1 s (honoured up to it);
// five attempts from 10 ms never reach it otherwise.
std::string HttpActionConfig(const Installation& inst, const std::string& url) {
  return ForwardingAction(inst, url) + R"(result_ref_header = "X-Ref"
idempotent_target = true
timeout_ms = 5000

[worker]
threads = 2
lease_seconds = 1
max_attempts = 5
backoff_initial_ms = 10
backoff_max_ms = 2000
shutdown_grace_seconds = 5
)";
}

std::string KeyOf(const json& call) { return call["headers"].value("Idempotency-Key", ""); }

struct Fixture {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess downstream;
  explicit Fixture(bool http_action = true) {
    if (http_action) inst.WriteTestConfig(HttpActionConfig(inst, downstream.url()));
  }
  int64_t Deliver(const std::string& id) const {
    auto r = server.PostSigned("/hooks/demo", R"({"id":")" + id + R"(","type":"invoice.paid"})");
    INFO(r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body).at("id").get<int64_t>();
  }
  std::string Status(int64_t id) const {
    return inst.Sql("SELECT status FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
  bool Becomes(int64_t id, const std::string& status, std::chrono::milliseconds timeout = 20s) const {
    return PollUntil([&] { return Status(id) == status; }, timeout);
  }
};

}  // namespace

TEST_CASE("worker: an accepted delivery reaches the downstream once and completes", "[worker]") {
  Fixture f;
  f.server.Start();
  int64_t id = f.Deliver("evt_ok");
  REQUIRE(f.Becomes(id, "completed"));
  auto calls = f.downstream.Calls();
  REQUIRE(calls.size() == 1);
  CHECK(KeyOf(calls[0]).size() == 64);
  CHECK(calls[0]["body"] == R"({"id":"evt_ok","type":"invoice.paid"})");
  CHECK(f.inst.Sql("SELECT result_ref || '|' || attempt_count FROM webhook_inbox WHERE id = " + std::to_string(id)) ==
        "eff_1|1");
  CHECK(f.inst.Sql("SELECT attempt || '|' || outcome || '|' || http_status FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id)) == "1|completed|200");
  // A duplicate starts nothing and answers with the state and result_ref.
  auto again = f.server.PostSigned("/hooks/demo", R"({"id":"evt_ok","type":"invoice.paid"})");
  REQUIRE(again.status == 200);
  CHECK(json::parse(again.body) ==
        json{{"status", "duplicate"}, {"id", id}, {"state", "completed"}, {"result_ref", "eff_1"}});
  CHECK(f.downstream.Calls().size() == 1);
}

TEST_CASE("worker: 400 from the downstream dead-letters after one attempt", "[worker]") {
  Fixture f;
  f.downstream.Script(json::parse(R"([{"status":400}])"));
  f.server.Start();
  int64_t id = f.Deliver("evt_bad");
  REQUIRE(f.Becomes(id, "dead_lettered"));
  CHECK(f.downstream.Calls().size() == 1);
  CHECK(f.inst.Sql("SELECT count(*) || '|' || max(outcome) || '|' || max(http_status) FROM webhook_attempts "
                   "WHERE inbox_id = " + std::to_string(id)) == "1|dead_lettered|400");
  CHECK(f.inst.Sql("SELECT CASE WHEN last_error <> '' THEN 1 ELSE 0 END FROM webhook_inbox WHERE id = " +
                   std::to_string(id)) == "1");
}

TEST_CASE("worker: 503 then 200 completes after a retry; 429 honours Retry-After", "[worker]") {
  Fixture f;
  f.downstream.Script(json::parse(R"([{"status":503},{"status":429,"retry_after":"1"}])"));
  f.server.Start();
  int64_t id = f.Deliver("evt_retry");
  REQUIRE(f.Becomes(id, "completed"));
  auto calls = f.downstream.Calls();
  REQUIRE(calls.size() == 3);
  CHECK(KeyOf(calls[0]) == KeyOf(calls[2]));
  CHECK(f.inst.Sql("SELECT group_concat(outcome, ',') FROM (SELECT outcome FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id) + " ORDER BY id) AS sub") == "retryable_failed,retryable_failed,completed");
  // The third attempt started no earlier than 1 s after the 429 ended.
  CHECK(f.inst.Sql("SELECT CASE WHEN (SELECT started_at FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id) + " AND attempt = 3) -"
                   " (SELECT finished_at FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id) + " AND attempt = 2) >= 1000 THEN 1 ELSE 0 END") == "1");
}

TEST_CASE("worker: SIGKILL while the downstream holds the request; the restart completes it after the lease",
          "[worker]") {
  Fixture f;
  f.downstream.Script(json::parse(R"([{"hold":true}])"));
  f.server.Start();
  int64_t id = f.Deliver("evt_kill");
  REQUIRE(PollUntil([&] { return f.downstream.Stats()["holding"] == 1; }, 20s));
  CHECK(f.Status(id) == "processing");
  f.server.Kill(SIGKILL);
  f.server.WaitExit();
  // The effect happens although nobody hears the answer any more.
  f.downstream.Release();
  REQUIRE(PollUntil([&] { return f.downstream.Stats()["effects"] == 1; }, 20s));
  f.server.Start();
  REQUIRE(f.Becomes(id, "completed"));
  auto calls = f.downstream.Calls();
  REQUIRE(calls.size() == 2);
  CHECK(KeyOf(calls[0]) == KeyOf(calls[1]));
  CHECK(calls[1]["replayed"] == true);  // the retry got the saved answer; no second effect
  CHECK(f.downstream.Stats()["effects"] == 1);
  CHECK(f.inst.Sql("SELECT result_ref FROM webhook_inbox WHERE id = " + std::to_string(id)) == "eff_1");
  CHECK(f.inst.Sql("SELECT group_concat(outcome, ',') FROM (SELECT outcome FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id) + " ORDER BY id) AS sub") == "lost,completed");
}

TEST_CASE("worker: a hanging downstream holds only its own endpoint's slots", "[worker]") {
  Fixture f(false);
  DownstreamProcess other;
  other.Default(json{{"hold", true}});  // this downstream never answers
  std::string toml = HttpActionConfig(f.inst, f.downstream.url());
  toml.replace(toml.find("threads = 2"), 11, "threads = 4");
  // A second endpoint, signed like the demo one, whose action hangs; at most
  // two of its events run at once, so two threads stay for the demo endpoint.
  toml += R"(
[[endpoint]]
name = "slow"
provider = "generic"
secret_file = "secrets/demo.secret"

[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"

[endpoint.key]
id_pointer = "/id"

[endpoint.action]
type = "http"
url = ")" + other.url() + R"("
forward_secret_file = "secrets/forward.secret"
idempotent_target = true
timeout_ms = 60000
concurrency = 2
)";
  f.inst.WriteTestConfig(toml);
  f.server.Start();
  for (int i = 0; i < 6; ++i)
    REQUIRE(f.server.PostSigned("/hooks/slow", R"({"id":"slow_)" + std::to_string(i) + R"("})").status == 200);
  REQUIRE(PollUntil([&] { return other.Stats()["holding"] == 2; }, 20s));
  std::vector<int64_t> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(f.Deliver("evt_fast_" + std::to_string(i)));
  for (int64_t id : ids) CHECK(f.Becomes(id, "completed"));
  // The hanging endpoint never had more than its two slots.
  CHECK(other.Stats()["calls"] == 2);
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE endpoint = 'slow' AND status = 'processing'") == "2");
  other.Release();
}

TEST_CASE("worker: an exec action completes with result_ref from its last stdout line", "[worker]") {
  Fixture f(false);
  WriteFile(f.inst.dir() + "/handle.sh",
            "#!/bin/bash\nbody=$(cat)\necho \"working on $HOOKINBOX_EVENT_ID\"\n"
            "echo \"{\\\"result_ref\\\":\\\"done-$HOOKINBOX_EVENT_ID-${#body}\\\"}\"\n",
            0700);
  f.inst.WriteTestConfig(R"(
[endpoint.action]
type = "exec"
command = ["handle.sh"]
timeout_ms = 10000
)");
  f.server.Start();
  int64_t id = f.Deliver("evt_exec");
  REQUIRE(f.Becomes(id, "completed"));
  CHECK(f.inst.Sql("SELECT result_ref FROM webhook_inbox WHERE id = " + std::to_string(id)) == "done-evt_exec-39");
  CHECK(f.inst.Sql("SELECT outcome || '|' || exit_code FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id)) == "completed|0");
}

TEST_CASE("worker: SIGTERM stops the worker and releases a lease still held after the grace period", "[worker]") {
  Fixture f(false);
  std::string toml = HttpActionConfig(f.inst, f.downstream.url());
  toml.replace(toml.find("shutdown_grace_seconds = 5"), 26, "shutdown_grace_seconds = 1");
  f.inst.WriteTestConfig(toml);
  f.downstream.Script(json::parse(R"([{"hold":true}])"));
  f.server.Start();
  int64_t id = f.Deliver("evt_term");
  REQUIRE(PollUntil([&] { return f.downstream.Stats()["holding"] == 1; }, 20s));
  f.server.Kill(SIGTERM);
  CHECK(f.server.WaitExit() == 0);  // after the action's own 5 s timeout
  // The action outlived the grace period: its lease was released, so the
  // event is claimable at once on the next start.
  CHECK(f.inst.Sql("SELECT outcome FROM webhook_attempts WHERE inbox_id = " + std::to_string(id)) == "released");
  f.downstream.Release();
  f.server.Start();
  REQUIRE(f.Becomes(id, "completed"));
}

}  // namespace hookinbox::testing
