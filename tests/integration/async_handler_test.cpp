// Asynchronous handlers (action.async = true) through the real binary: the
// downstream answers 202 "started" and ends the event later through the
// handler API (/v1/events/complete|fail|unknown, /v1/events/renew on the
// admin listener) with the token its forward carried. The downstream is an
// HTTP server in this process (AsyncHandler); what it does after its 202
// runs on a thread of its own, as a real handler's workflow would. The
// database is read with the sqlite3 CLI (psql on PostgreSQL); every wait
// polls with a deadline.
#include <signal.h>

#include <httplib.h>
#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// One forward as the handler saw it.
struct Forward {
  std::string event_id, token;
  int attempt = 0;
};

// A downstream that answers 202 to every forward and then runs `work` on a
// thread of its own with what the forward carried.
class AsyncHandler {
 public:
  explicit AsyncHandler(std::function<void(const Forward&)> work) : work_(std::move(work)) {
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string attempt = req.get_header_value("X-Hookinbox-Attempt");
      Forward f{req.get_header_value("X-Hookinbox-Event-Id"), req.get_header_value("X-Hookinbox-Token"),
                attempt.empty() ? 0 : std::stoi(attempt)};
      {
        std::lock_guard<std::mutex> lock(mu_);
        forwards_.push_back(f);
        workers_.emplace_back([this, f] { work_(f); });
      }
      res.status = 202;
      res.set_content(R"({"status":"started"})", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~AsyncHandler() {
    server_.stop();
    thread_.join();
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> lock(mu_);
      workers.swap(workers_);
    }
    for (auto& t : workers) t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/jobs"; }
  std::vector<Forward> forwards() {
    std::lock_guard<std::mutex> lock(mu_);
    return forwards_;
  }

 private:
  std::function<void(const Forward&)> work_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Forward> forwards_;
  std::vector<std::thread> workers_;
};

// POST `path` on the admin listener at `port` with `token`; {status, body}.
HttpResult CallApi(int port, const std::string& path, const std::string& body, const std::string& token) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(10, 0);
  httplib::Headers h{{"Authorization", "Bearer " + token}};
  HttpResult r;
  auto res = client.Post(path.c_str(), h, body, "application/json");
  if (!res) return r;
  r.status = res->status;
  r.body = res->body;
  return r;
}

// The async endpoint's action and a [worker] table with `lease_seconds`.
std::string AsyncConfig(const Installation& inst, const std::string& url, int lease_seconds) {
  return ForwardingAction(inst, url) + R"(async = true
timeout_ms = 5000
concurrency = 2

[worker]
threads = 2
lease_seconds = )" +
         std::to_string(lease_seconds) + R"(
max_attempts = 5
backoff_initial_ms = 10
backoff_max_ms = 50
shutdown_grace_seconds = 1
)";
}

struct AsyncRig {
  Installation inst;
  ServerProcess server{inst};
  std::atomic<int> admin_port{0};  // 0 while the server is down or not started
  std::mutex mu;
  std::vector<std::string> answers;  // "PATH CODE" of the handler's calls, in order

  void Start(const std::string& url, int lease_seconds) {
    inst.WriteTestConfig(AsyncConfig(inst, url, lease_seconds));
    Restart();
  }
  void Restart() {
    server.Start();
    REQUIRE(server.admin_port() > 0);
    admin_port = server.admin_port();
  }
  // The handler's call, once the server is up; recorded in `answers`.
  HttpResult Call(const std::string& path, const std::string& body, const std::string& token) {
    REQUIRE(PollUntil([&] { return admin_port.load() > 0; }, 30s));
    HttpResult r = CallApi(admin_port.load(), path, body, token);
    std::lock_guard<std::mutex> lock(mu);
    answers.push_back(path + " " + std::to_string(r.status));
    return r;
  }
  std::vector<std::string> Answers() {
    std::lock_guard<std::mutex> lock(mu);
    return answers;
  }
  int64_t Deliver(const std::string& event_id) const {
    auto r = server.PostSigned("/hooks/demo", R"({"id":")" + event_id + R"(","type":"job.run"})");
    INFO(r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body).at("id").get<int64_t>();
  }
  std::string Inbox(int64_t id, const std::string& expr) const {
    return inst.Sql("SELECT " + expr + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
  bool Becomes(int64_t id, const std::string& status, std::chrono::milliseconds timeout = 30s) const {
    return PollUntil([&] { return Inbox(id, "status") == status; }, timeout);
  }
  // "attempt|outcome" of each attempt row, oldest first, one a line.
  std::string Attempts(int64_t id) const {
    return inst.Sql("SELECT attempt || '|' || COALESCE(outcome, 'open') FROM webhook_attempts WHERE inbox_id = " +
                    std::to_string(id) + " ORDER BY id");
  }
};

}  // namespace

TEST_CASE("async: the event stays processing after the 202 and completes only on the handler's call",
          "[integration][async]") {
  AsyncRig f;
  AsyncHandler handler([](const Forward&) {});  // the test plays the handler's later call
  f.Start(handler.url(), 30);
  int64_t id = f.Deliver("evt_slow");
  REQUIRE(PollUntil([&] { return f.Inbox(id, "lease_owner").rfind("handler:", 0) == 0; }, 30s));
  CHECK(f.Inbox(id, "status") == "processing");
  CHECK(f.Attempts(id) == "1|open");
  REQUIRE(handler.forwards().size() == 1);
  const std::string token = handler.forwards()[0].token;
  REQUIRE_FALSE(token.empty());
  // Still processing a while later: the worker recorded nothing.
  CHECK_FALSE(PollUntil([&] { return f.Inbox(id, "status") != "processing"; }, 500ms));
  HttpResult renewed = CallApi(f.admin_port, "/v1/events/renew", R"({"lease_seconds":120})", token);
  CHECK(renewed.status == 200);
  CHECK(json::parse(renewed.body).at("lease_seconds") == 120);
  HttpResult done = CallApi(f.admin_port, "/v1/events/complete", R"({"result_ref":"crm-7"})", token);
  INFO(done.body);
  CHECK(done.status == 200);
  CHECK(json::parse(done.body).at("status") == "completed");
  CHECK(f.Inbox(id, "status || '|' || result_ref || '|' || attempt_count") == "completed|crm-7|1");
  CHECK(f.Attempts(id) == "1|completed");
  // A repeat is refused and changes nothing.
  HttpResult again = CallApi(f.admin_port, "/v1/events/complete", "", token);
  CHECK(again.status == 409);
  CHECK_THAT(again.body, Catch::Contains("already ended"));
  CHECK(handler.forwards().size() == 1);
}

TEST_CASE("async: a handler that completes at once, before the worker read its 202", "[integration][async]") {
  AsyncRig f;
  AsyncHandler handler([&](const Forward& fw) { f.Call("/v1/events/complete", "", fw.token); });
  f.Start(handler.url(), 30);
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(f.Deliver("evt_fast_" + std::to_string(i)));
  for (int64_t id : ids) {
    CHECK(f.Becomes(id, "completed"));
    CHECK(f.Attempts(id) == "1|completed");
  }
  for (const std::string& a : f.Answers()) CHECK(a == "/v1/events/complete 200");
  CHECK(handler.forwards().size() == 5);
}

TEST_CASE("async: fail is retried by the usual policy and a second attempt completes", "[integration][async]") {
  AsyncRig f;
  AsyncHandler handler([&](const Forward& fw) {
    if (fw.attempt == 1) {
      f.Call("/v1/events/fail", R"({"error":"crm down"})", fw.token);
    } else {
      f.Call("/v1/events/complete", R"({"result_ref":"crm-2"})", fw.token);
    }
  });
  f.Start(handler.url(), 30);
  int64_t id = f.Deliver("evt_retry");
  REQUIRE(f.Becomes(id, "completed"));
  CHECK(f.Inbox(id, "attempt_count || '|' || result_ref") == "2|crm-2");
  CHECK(f.Attempts(id) == "1|retryable_failed\n2|completed");
  CHECK(f.Answers() == std::vector<std::string>{"/v1/events/fail 200", "/v1/events/complete 200"});
  const auto forwards = handler.forwards();
  REQUIRE(forwards.size() == 2);
  CHECK(forwards[0].token != forwards[1].token);  // a new token per attempt
}

TEST_CASE("async: a lease the handler does not renew lapses, and the event is attempted again",
          "[integration][async]") {
  AsyncRig f;
  AsyncHandler handler([&](const Forward& fw) {
    if (fw.attempt == 1) return;  // a handler that died after its 202
    f.Call("/v1/events/renew", R"({"lease_seconds":30})", fw.token);
    f.Call("/v1/events/complete", "", fw.token);
  });
  f.Start(handler.url(), 1);
  int64_t id = f.Deliver("evt_lapse");
  REQUIRE(f.Becomes(id, "completed"));
  CHECK(f.Inbox(id, "attempt_count") == "2");
  CHECK(f.Attempts(id) == "1|lost\n2|completed");
  CHECK(f.Answers() == std::vector<std::string>{"/v1/events/renew 200", "/v1/events/complete 200"});
  // The first attempt's handler, back late: its token, replaced by the
  // second attempt's, no longer works and is told so (not a guess: 409).
  const auto forwards = handler.forwards();
  REQUIRE(forwards.size() == 2);
  const auto late = CallApi(f.admin_port, "/v1/events/complete", "", forwards[0].token);
  CHECK(late.status == 409);
  CHECK(late.body.find("attempt ended") != std::string::npos);
  CHECK(f.Inbox(id, "status || '|' || attempt_count") == "completed|2");
}

TEST_CASE(
    "async: SIGKILL while the handler has the event; after restart the lease lapses, the event is "
    "retried, and the handler's effect happens once",
    "[integration][async]") {
  AsyncRig f;
  std::atomic<int> effects{0};
  std::atomic<bool> first_done{false};
  AsyncHandler handler([&](const Forward& fw) {
    const std::string key = "email:" + fw.event_id;
    HttpResult claim = f.Call("/v1/effects/claim", json{{"key", key}}.dump(), fw.token);
    if (claim.status == 201) {
      ++effects;  // the e-mail goes out
      f.Call("/v1/effects/" + key + "/complete", R"({"external_ref":"msg-1"})", fw.token);
    }
    if (fw.attempt == 1) {
      first_done = true;  // hookinbox dies before this handler ends the event
      return;
    }
    f.Call("/v1/events/complete", R"({"result_ref":"msg-1"})", fw.token);
  });
  f.Start(handler.url(), 2);
  int64_t id = f.Deliver("evt_kill");
  REQUIRE(PollUntil([&] { return first_done.load(); }, 30s));
  f.admin_port = 0;
  f.server.Kill(SIGKILL);
  REQUIRE(f.server.WaitExit() != -1);
  CHECK(f.Inbox(id, "status") == "processing");
  f.Restart();
  REQUIRE(f.Becomes(id, "completed"));
  CHECK(effects == 1);
  CHECK(f.Inbox(id, "attempt_count || '|' || result_ref") == "2|msg-1");
  CHECK(f.Attempts(id) == "1|lost\n2|completed");
  CHECK(f.Answers() == std::vector<std::string>{"/v1/effects/claim 201", "/v1/effects/email:evt_kill/complete 200",
                                                "/v1/effects/claim 200", "/v1/events/complete 200"});
}

}  // namespace hookinbox::testing
