// Integration tests of the worker loop: the real binary forwards accepted
// events to a recording downstream started inside the test (cpp-httplib on
// 127.0.0.1, port 0) or runs an exec action, and the database is polled
// with deadlines for the resulting states.
#include <httplib.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// A downstream that records every call and answers from a script (then 200).
class Downstream {
 public:
  struct Reply {
    int status = 200;
    std::string retry_after;  // "" = no Retry-After
    bool hold = false;        // hang until Release() (or the test ends)
  };
  struct Call {
    std::string idempotency_key, body;
  };

  Downstream() {
    server_.Post("/.*", [this](const httplib::Request& req, httplib::Response& res) {
      Reply reply;
      {
        std::unique_lock<std::mutex> lock(mu_);
        calls_.push_back({req.get_header_value("Idempotency-Key"), req.body});
        if (!script_.empty()) {
          reply = script_.front();
          script_.pop_front();
        }
        if (reply.hold) {
          ++holding_;
          cv_.notify_all();
          cv_.wait(lock, [this] { return released_; });
        }
      }
      if (!reply.retry_after.empty()) res.set_header("Retry-After", reply.retry_after);
      res.set_header("X-Ref", "ref-" + std::to_string(reply.status));
      res.status = reply.status;
      res.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });  // bound and listening already: calls queue
  }
  ~Downstream() {
    Release();
    server_.stop();
    thread_.join();
  }
  void Script(std::vector<Reply> replies) {
    std::lock_guard<std::mutex> lock(mu_);
    script_.assign(replies.begin(), replies.end());
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }
  int holding() {
    std::lock_guard<std::mutex> lock(mu_);
    return holding_;
  }
  std::vector<Call> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/effects"; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Reply> script_;
  std::vector<Call> calls_;
  int holding_ = 0;
  bool released_ = false;
};

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

// The demo endpoint with an http action to `url`, tiny backoff and lease.
std::string HttpActionConfig(const std::string& url) {
  return R"(
[endpoint.action]
type = "http"
url = ")" + url + R"("
forward_secret_file = "secrets/forward.secret"
result_ref_header = "X-Ref"
idempotent_target = true
timeout_ms = 5000

[worker]
threads = 2
lease_seconds = 1
max_attempts = 5
backoff_initial_ms = 10
backoff_max_ms = 50
shutdown_grace_seconds = 5
)";
}

struct Fixture {
  Installation inst;
  ServerProcess server{inst};
  Downstream downstream;
  explicit Fixture(bool http_action = true) {
    WriteFile(inst.dir() + "/secrets/forward.secret", "forward-secret-for-tests\n", 0600);
    if (http_action) inst.WriteTestConfig(HttpActionConfig(downstream.url()));
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
  auto calls = f.downstream.calls();
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].idempotency_key.size() == 64);
  CHECK(calls[0].body == R"({"id":"evt_ok","type":"invoice.paid"})");
  CHECK(f.inst.Sql("SELECT result_ref || '|' || attempt_count FROM webhook_inbox WHERE id = " + std::to_string(id)) ==
        "ref-200|1");
  CHECK(f.inst.Sql("SELECT attempt || '|' || outcome || '|' || http_status FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id)) == "1|completed|200");
  // A duplicate starts nothing.
  f.Deliver("evt_ok");
  CHECK(f.downstream.calls().size() == 1);
}

TEST_CASE("worker: 400 from the downstream dead-letters after one attempt", "[worker]") {
  Fixture f;
  f.downstream.Script({{400, "", false}});
  f.server.Start();
  int64_t id = f.Deliver("evt_bad");
  REQUIRE(f.Becomes(id, "dead_lettered"));
  CHECK(f.downstream.calls().size() == 1);
  CHECK(f.inst.Sql("SELECT count(*) || '|' || max(outcome) || '|' || max(http_status) FROM webhook_attempts "
                   "WHERE inbox_id = " + std::to_string(id)) == "1|dead_lettered|400");
  CHECK(f.inst.Sql("SELECT last_error <> '' FROM webhook_inbox WHERE id = " + std::to_string(id)) == "1");
}

TEST_CASE("worker: 503 then 200 completes after a retry; 429 honours Retry-After", "[worker]") {
  Fixture f;
  f.downstream.Script({{503, "", false}, {429, "1", false}, {200, "", false}});
  f.server.Start();
  int64_t id = f.Deliver("evt_retry");
  REQUIRE(f.Becomes(id, "completed"));
  auto calls = f.downstream.calls();
  REQUIRE(calls.size() == 3);
  CHECK(calls[0].idempotency_key == calls[2].idempotency_key);
  CHECK(f.inst.Sql("SELECT group_concat(outcome, ',') FROM (SELECT outcome FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id) + " ORDER BY id)") == "retryable_failed,retryable_failed,completed");
  // The third attempt started no earlier than 1 s after the 429 ended.
  CHECK(f.inst.Sql("SELECT (SELECT started_at FROM webhook_attempts WHERE inbox_id = " + std::to_string(id) +
                   " AND attempt = 3) - (SELECT finished_at FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id) + " AND attempt = 2) >= 1000") == "1");
}

TEST_CASE("worker: SIGKILL while the downstream holds the request; the restart completes it after the lease",
          "[worker]") {
  Fixture f;
  f.downstream.Script({{200, "", true}});
  f.server.Start();
  int64_t id = f.Deliver("evt_kill");
  REQUIRE(PollUntil([&] { return f.downstream.holding() == 1; }, 20s));
  CHECK(f.Status(id) == "processing");
  f.server.Kill(SIGKILL);
  f.server.WaitExit();
  f.server.Start();
  REQUIRE(f.Becomes(id, "completed"));
  auto calls = f.downstream.calls();
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].idempotency_key == calls[1].idempotency_key);
  CHECK(f.inst.Sql("SELECT group_concat(outcome, ',') FROM (SELECT outcome FROM webhook_attempts WHERE inbox_id = " +
                   std::to_string(id) + " ORDER BY id)") == "lost,completed");
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
  std::string toml = HttpActionConfig(f.downstream.url());
  toml.replace(toml.find("shutdown_grace_seconds = 5"), 26, "shutdown_grace_seconds = 1");
  f.inst.WriteTestConfig(toml);
  f.downstream.Script({{200, "", true}});
  f.server.Start();
  int64_t id = f.Deliver("evt_term");
  REQUIRE(PollUntil([&] { return f.downstream.holding() == 1; }, 20s));
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
