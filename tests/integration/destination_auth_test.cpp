// Handlers as downstreams through the real binary: the destination
// credential ([endpoint.action] auth) on every forward, X-Hookinbox-Api and
// HOOKINBOX_API (admin.handler_api_url / handler_api_listen), and the handler
// API's own listener serving /v1 only. The downstream is an in-process
// httplib server that checks the credential as n8n's Webhook node does.
#include <sys/stat.h>

#include <httplib.h>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

constexpr const char* kToken = "n8n-header-t0ken-7f3a9c";  // registered as a leak marker

// Answers 200 when `header` is `value`, else 403; records what hookinbox sent.
class CheckingDownstream {
 public:
  CheckingDownstream(std::string header, std::string value) : header_(std::move(header)), value_(std::move(value)) {
    server_.Post("/webhook/orders", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      ++calls_;
      api_ = req.get_header_value("X-Hookinbox-Api");
      signed_ = req.has_header("webhook-signature");
      res.status = req.get_header_value(header_) == value_ ? 200 : 403;
      if (res.status == 200) ++accepted_;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    REQUIRE(PollUntil([this] { return server_.is_running(); }, 10s));
  }
  ~CheckingDownstream() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/webhook/orders"; }
  int accepted() {
    std::lock_guard<std::mutex> lock(mu_);
    return accepted_;
  }
  int calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::string api() {
    std::lock_guard<std::mutex> lock(mu_);
    return api_;
  }
  bool was_signed() {
    std::lock_guard<std::mutex> lock(mu_);
    return signed_;
  }

 private:
  const std::string header_, value_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  int calls_ = 0, accepted_ = 0;
  std::string api_;
  bool signed_ = false;
};

std::string Status(const Installation& inst, int64_t id) {
  return inst.Sql("SELECT status FROM webhook_inbox WHERE id = " + std::to_string(id));
}

int64_t Deliver(const ServerProcess& server, const std::string& path, const std::string& event_id) {
  auto r = server.PostSigned(path, R"({"id":")" + event_id + R"(","type":"order.created"})");
  INFO(r.body);
  REQUIRE(r.status == 200);
  return json::parse(r.body).at("id").get<int64_t>();
}

TEST_CASE("destination auth: a forward carries the header credential from the environment, never logged",
          "[worker][auth]") {
  RegisterLeakMarker(kToken);
  CheckingDownstream down("X-N8n-Auth", kToken);
  Installation inst;
  inst.WriteTestConfig(ForwardingAction(inst, down.url()) +
                       "auth = \"header\"\nauth_header = \"X-N8n-Auth\"\nauth_secret_env = \"N8N_HEADER_TOKEN\"\n");
  ServerProcess server(inst);
  server.SetEnvironment({{"N8N_HEADER_TOKEN", kToken}});
  server.Start();
  const int64_t id = Deliver(server, "/hooks/demo", "evt_auth_1");
  REQUIRE(PollUntil([&] { return Status(inst, id) == "completed"; }, 20s));
  CHECK(down.accepted() == 1);
  CHECK(down.was_signed());  // beside, not instead of, the Standard Webhooks signature
  // The default handler API base: the admin listener's own address.
  CHECK(down.api() == "http://127.0.0.1:" + std::to_string(server.admin_port()) + "/v1");
  CHECK(server.log().find(kToken) == std::string::npos);
  CHECK(inst.Sql("SELECT count(*) FROM webhook_attempts WHERE coalesce(error, '') LIKE '%t0ken%'") == "0");
}

TEST_CASE(
    "destination auth: a refused basic credential from a file is the downstream's 403, the credential "
    "in no error; handler_api_url is what X-Hookinbox-Api says",
    "[worker][auth]") {
  RegisterLeakMarker("hookinbox:wr0ng-pass");
  CheckingDownstream down("Authorization", "Basic aG9va2luYm94OnJpZ2h0");  // hookinbox:right
  Installation inst;
  const std::string file = inst.dir() + "/secrets/n8n.basic";
  std::ofstream(file) << "hookinbox:wr0ng-pass\n";
  ::chmod(file.c_str(), 0600);
  inst.WriteTestConfig(
      ForwardingAction(inst, down.url()) + "auth = \"basic\"\nauth_secret_file = \"secrets/n8n.basic\"\n", "", "",
      "handler_api_url = \"http://172.17.0.1:8082\"\n");
  ServerProcess server(inst);
  server.Start();
  const int64_t id = Deliver(server, "/hooks/demo", "evt_auth_2");
  REQUIRE(PollUntil([&] { return Status(inst, id) == "dead_lettered"; }, 20s));  // 403 is permanent
  CHECK(down.calls() == 1);
  CHECK(down.accepted() == 0);
  CHECK(down.api() == "http://172.17.0.1:8082/v1");
  CHECK(inst.Sql("SELECT error FROM webhook_attempts WHERE inbox_id = " + std::to_string(id)) == "HTTP 403");
  CHECK(server.log().find("wr0ng") == std::string::npos);
}

TEST_CASE("destination auth: check-config refuses auth on an exec action, naming key and line", "[cli][auth]") {
  Installation inst;
  inst.WriteTestConfig("\n[endpoint.action]\ntype = \"exec\"\ncommand = [\"/bin/true\"]\nauth = \"bearer\"\n");
  CommandResult r = RunCommand(BinaryPath() + " check-config -c " + inst.config_path() + " 2>&1");
  CHECK(r.exit_code != 0);
  CHECK(r.out.find("endpoint[0].action.auth: not allowed with type = \"exec\"") != std::string::npos);
}

// An exec endpoint whose handler records HOOKINBOX_API and stores a step
// through it (proving the address answers /v1 with the attempt's token).
std::string ExecRecorder(const Installation& inst) {
  const std::string script = inst.dir() + "/record_api.sh";
  std::ofstream(script) << "#!/bin/bash\nprintf '%s' \"$HOOKINBOX_API\" >'" << inst.dir() << "/api.tmp'\n"
                        << "code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -X PUT "
                           "\"$HOOKINBOX_API/steps/seen\" -H @<(printf 'Authorization: Bearer %s\\n' "
                           "\"$HOOKINBOX_TOKEN\") --data-binary x)\n"
                        << "printf '%s' \"$code\" >'" << inst.dir() << "/step.tmp'\n"
                        << "mv '" << inst.dir() << "/api.tmp' '" << inst.dir() << "/api'\n"
                        << "mv '" << inst.dir() << "/step.tmp' '" << inst.dir() << "/step'\n";
  ::chmod(script.c_str(), 0700);
  return DemoLikeEndpoint("jobs") + "\n[endpoint.action]\ntype = \"exec\"\ncommand = [\"record_api.sh\"]\n";
}

TEST_CASE("handler API listener: serves /v1 only on its own address; forwards and exec commands are sent there",
          "[admin][auth]") {
  CheckingDownstream down("X-Unused", "");  // no credential configured: an absent header reads as ""
  Installation inst;
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  inst.WriteTestConfig(ForwardingAction(inst, down.url()) + ExecRecorder(inst), "", "",
                       "handler_api_listen = \"127.0.0.1:" + std::to_string(port) + "\"\n");
  ServerProcess server(inst);
  server.Start();

  httplib::Client handler("127.0.0.1", port);
  handler.set_connection_timeout(10, 0);
  handler.set_read_timeout(10, 0);
  for (const char* path : {"/admin/api/stats", "/admin/", "/metrics", "/admin/api/events"}) {
    INFO(path);
    auto r = handler.Get(path);
    REQUIRE(r);
    CHECK(r->status == 404);
  }
  // /v1 answers here: a claim without a token is the handler API's 401.
  auto claim = handler.Post("/v1/effects/claim", R"({"key":"k"})", "application/json");
  REQUIRE(claim);
  CHECK(claim->status == 401);
  CHECK(claim->get_header_value("WWW-Authenticate") == "Bearer");
  // The admin listener still serves everything.
  httplib::Client admin("127.0.0.1", server.admin_port());
  auto stats = admin.Get("/admin/api/stats");
  REQUIRE(stats);
  CHECK(stats->status != 404);  // there (behind an admin token this test config does not set: 503)

  const int64_t forwarded = Deliver(server, "/hooks/demo", "evt_api_1");
  REQUIRE(PollUntil([&] { return Status(inst, forwarded) == "completed"; }, 20s));
  CHECK(down.api() == base + "/v1");

  const int64_t executed = Deliver(server, "/hooks/jobs", "evt_api_2");
  REQUIRE(PollUntil([&] { return Status(inst, executed) == "completed"; }, 20s));
  CHECK(ReadFile(inst.dir() + "/api") == base + "/v1");
  CHECK(ReadFile(inst.dir() + "/step") == "200");
  CHECK(inst.Sql("SELECT count(*) FROM step_results WHERE name = 'seen'") == "1");
}

}  // namespace
}  // namespace hookinbox::testing
