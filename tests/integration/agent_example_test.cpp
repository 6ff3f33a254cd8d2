// examples/agent/agent.py through the real binary, as an exec action: a
// fake model server counts its calls and a fake mail API refuses the first
// reply (503), so the event is retried; then a person replays it. The model
// is paid once for the event and one reply goes out, whatever runs again.
#include <httplib.h>
#include <sys/stat.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// An HTTP server on a free loopback port, run on its own thread.
class FakeServer {
 public:
  FakeServer() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
  }
  ~FakeServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Server& server() { return server_; }
  void Start() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    REQUIRE(PollUntil([this] { return server_.is_running(); }, 10s));
  }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace

TEST_CASE("agent example: a retry and a replay call the model once in total and send one reply",
          "[integration][handler-api][agent]") {
  const std::string agent = std::string(HOOKINBOX_SOURCE_DIR) + "/examples/agent/agent.py";
  struct stat st {};
  REQUIRE(::stat(agent.c_str(), &st) == 0);

  std::atomic<int> model_calls{0}, mail_requests{0}, mails_accepted{0};
  std::mutex mu;  // the fakes' threads write what the test reads
  std::string last_prompt, last_mail;
  FakeServer model;
  model.server().Post("/v1/chat/completions", [&](const httplib::Request& req, httplib::Response& res) {
    ++model_calls;
    json ask = json::parse(req.body);
    std::lock_guard<std::mutex> lock(mu);
    last_prompt = ask["messages"][1]["content"].get<std::string>();
    res.set_content(R"({"choices":[{"message":{"role":"assistant","content":"Billing"}}]})", "application/json");
  });
  model.Start();
  FakeServer mail;
  mail.server().Post("/send", [&](const httplib::Request& req, httplib::Response& res) {
    if (++mail_requests == 1) {  // the first reply is refused: nothing sent, retry later
      res.status = 503;
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      last_mail = req.body;
    }
    res.set_content(R"({"id":"mail-)" + std::to_string(++mails_accepted) + R"("})", "application/json");
  });
  mail.Start();

  Installation inst;
  inst.WriteTestConfig(R"(
[endpoint.action]
type = "exec"
command = ["/usr/bin/python3", ")" +
                       agent + R"(", "--model-url", ")" + model.Url("/v1/chat/completions") +
                       R"(", "--model", "test-model", "--reply-url", ")" + mail.Url("/send") + R"(", "--timeout", "20"]
timeout_ms = 60000

[worker]
threads = 2
lease_seconds = 30
backoff_initial_ms = 10
backoff_max_ms = 50
shutdown_grace_seconds = 1
)");
  ServerProcess server(inst);
  server.Start();

  const std::string body =
      R"({"id":"msg_1","type":"support.message","data":{"email":"ana@example.com","message":"I was charged twice"}})";
  auto r = server.PostSigned("/hooks/demo", body);
  REQUIRE(r.status == 200);
  const std::string id = std::to_string(json::parse(r.body).at("id").get<int64_t>());
  auto status = [&] { return inst.Sql("SELECT status FROM webhook_inbox WHERE id = " + id); };
  REQUIRE(PollUntil([&] { return status() == "completed"; }, 60s));
  // Attempt 1 paid for the classification and failed to send; attempt 2 read
  // the stored classification and sent.
  CHECK(model_calls == 1);
  CHECK(mail_requests == 2);
  CHECK(mails_accepted == 1);
  {
    std::lock_guard<std::mutex> lock(mu);
    CHECK(last_prompt == "I was charged twice");
    CHECK(json::parse(last_mail)["text"].get<std::string>().find("billing team") != std::string::npos);
  }
  CHECK(inst.Sql("SELECT attempt_count FROM webhook_inbox WHERE id = " + id) == "2");
  CHECK(inst.Sql("SELECT result_ref FROM webhook_inbox WHERE id = " + id) == "mail-1");
  CHECK(inst.Sql("SELECT status || ':' || external_ref FROM effects WHERE inbox_id = " + id) == "done:mail-1");

  // A duplicate delivery runs nothing; a replay runs the agent again, which
  // finds both the classification and the reply done.
  REQUIRE(server.PostSigned("/hooks/demo", body).status == 200);
  auto replay = RunCommand(BinaryPath() + " events replay " + id + " -c " + inst.config_path() + " 2>&1");
  INFO(replay.out);
  REQUIRE(replay.exit_code == 0);
  REQUIRE(PollUntil(
      [&] {
        return inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + id +
                        " AND outcome = 'completed'") == "2";
      },
      60s));
  CHECK(status() == "completed");
  CHECK(model_calls == 1);
  CHECK(mail_requests == 2);
  CHECK(mails_accepted == 1);
  CHECK(inst.Sql("SELECT result_ref FROM webhook_inbox WHERE id = " + id) == "mail-1");
}

}  // namespace hookinbox::testing
