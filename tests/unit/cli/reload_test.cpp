// `hookinbox reload` (cli/reload.cpp): its flags, and what it prints and
// exits with for each answer of the running service, played here by a tiny
// httplib server on the admin address the test config names.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "http/tls.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

const std::string kToken = "admin-token-0123456789abcdef0123456789abcdef";

// A config whose admin listener is 0.0.0.0:`port` (reached at 127.0.0.1; with
// TLS when `tls`), with an admin token and one endpoint, "demo".
std::string WriteConfig(const testing::TempDir& dir, int port, bool tls = false) {
  std::string token = dir.Write("admin.token", kToken + "\n");
  ::chmod(token.c_str(), 0600);
  std::string secret = dir.Write("demo.secret", "0123456789abcdef0123456789abcdef\n");
  ::chmod(secret.c_str(), 0600);
  return dir.Write(
      "hookinbox.toml",
      "[server]\n"
      "listen = \"127.0.0.1:8443\"\n"
      "[admin]\n"
      "listen = \"0.0.0.0:" +
          std::to_string(port) +
          "\"\n"
          "token_file = \"admin.token\"\n" +
          (tls ? "tls_cert = \"admin-cert.pem\"\ntls_key = \"admin-key.pem\"\n" : "allow_plain_http = true\n") +
          "[storage]\n"
          "path = \"hookinbox.db\"\n"
          "[[endpoint]]\n"
          "name = \"demo\"\n"
          "secret_file = \"demo.secret\"\n"
          "[endpoint.key]\n"
          "id_pointer = \"/id\"\n");
}

// Answers POST /admin/api/reload with `status` and `body`, and remembers what it was sent.
class FakeService {
 public:
  explicit FakeService(httplib::Server* server) : server_(server) {
    server_->Post("/admin/api/reload", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      authorization_ = req.get_header_value("Authorization");
      request_body_ = req.body;
      ++calls_;
      res.status = status_;
      res.set_content(body_, "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_->is_running() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  }
  ~FakeService() {
    server_->stop();
    thread_.join();
  }
  void Answer(int status, std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = status;
    body_ = std::move(body);
  }
  int port() const { return port_; }
  int calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::string authorization() {
    std::lock_guard<std::mutex> lock(mu_);
    return authorization_;
  }
  std::string request_body() {
    std::lock_guard<std::mutex> lock(mu_);
    return request_body_;
  }

 private:
  httplib::Server* server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  int status_ = 200;
  std::string body_;
  std::string authorization_, request_body_;
  int calls_ = 0;
};

constexpr auto ClosedPort = &hookinbox::testing::ClosedLoopbackPort;

struct Run {
  int code = -1;
  std::string out, err;
};

Run Reload(const std::string& config, std::vector<std::string> accept = {}, bool json = false) {
  cli::CommonOptions common{config, json};
  std::ostringstream out, err;
  Run r;
  r.code = cli::RunReload({std::move(accept)}, common, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

const char* kApplied = R"({"applied":true,"config":"/etc/hookinbox/hookinbox.toml","generation":4,)"
                       R"("changed":["endpoint \"orders\" added","endpoint \"demo\": secret changed"],)"
                       R"("needs_restart":["server.listen"],"warnings":[],"errors":[]})";
const char* kRefused = R"({"applied":false,"config":"/etc/hookinbox/hookinbox.toml","generation":3,"changed":[],)"
                       R"("needs_restart":[],"warnings":[],"errors":[)"
                       R"({"file":"/etc/hookinbox/hookinbox.toml","key":"endpoint[1].provider","line":12,)"
                       R"("message":"unknown provider \"strpie\""},)"
                       R"({"file":"/etc/hookinbox/orders.secret","key":"","line":0,"message":"cannot read"}]})";

// argv for cli::Main.
int Main(std::vector<std::string> args) {
  args.insert(args.begin(), "hookinbox");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream sink;
  std::streambuf* old = std::cerr.rdbuf(sink.rdbuf());  // CLI11's usage text
  int code = cli::Main(static_cast<int>(argv.size()), argv.data());
  std::cerr.rdbuf(old);
  return code;
}

}  // namespace

TEST_CASE("reload: applied — what changed and what needs a restart, exit 0, the token only in the header",
          "[cli][reload]") {
  testing::TempDir dir;
  httplib::Server server;
  FakeService service(&server);
  service.Answer(200, kApplied);
  Run r = Reload(WriteConfig(dir, service.port()), {"demo"});
  INFO(r.err);
  CHECK(r.code == cli::kExitOk);
  CHECK(r.out ==
        "reloaded /etc/hookinbox/hookinbox.toml (generation 4)\n"
        "changed: endpoint \"orders\" added\n"
        "changed: endpoint \"demo\": secret changed\n"
        "needs a restart: server.listen\n");
  CHECK(r.err.empty());
  CHECK(service.authorization() == "Bearer " + kToken);
  CHECK(service.request_body() == R"({"accept_key_change":["demo"]})");
  CHECK(r.out.find(kToken) == std::string::npos);
}

TEST_CASE("reload: no --accept-key-change sends an empty list; nothing changed says so", "[cli][reload]") {
  testing::TempDir dir;
  httplib::Server server;
  FakeService service(&server);
  service.Answer(200, R"({"applied":true,"config":"c.toml","generation":2,"changed":[],"needs_restart":[],)"
                      R"("warnings":[{"key":"endpoint[0].rotation_ends","line":7,"message":"passed"}],"errors":[]})");
  Run r = Reload(WriteConfig(dir, service.port()));
  CHECK(r.code == cli::kExitOk);
  CHECK(r.out == "reloaded c.toml (generation 2)\nchanged: nothing\n");
  CHECK(r.err == "warning: c.toml:7: endpoint[0].rotation_ends: passed\n");
  CHECK(service.request_body() == R"({"accept_key_change":[]})");
}

TEST_CASE("reload: refused (422) — the errors with file, line and key on stderr, exit 1", "[cli][reload]") {
  testing::TempDir dir;
  httplib::Server server;
  FakeService service(&server);
  service.Answer(422, kRefused);
  Run r = Reload(WriteConfig(dir, service.port()));
  CHECK(r.code == cli::kExitFailure);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "refused: nothing changed, still serving the previous config\n"
        "/etc/hookinbox/hookinbox.toml:12: endpoint[1].provider: unknown provider \"strpie\"\n"
        "/etc/hookinbox/orders.secret: cannot read\n");
}

TEST_CASE("reload: --json prints the service's answer as is", "[cli][reload]") {
  testing::TempDir dir;
  httplib::Server server;
  FakeService service(&server);
  const std::string config = WriteConfig(dir, service.port());
  service.Answer(200, kApplied);
  Run applied = Reload(config, {}, /*json=*/true);
  CHECK(applied.code == cli::kExitOk);
  CHECK(applied.out == std::string(kApplied) + "\n");
  service.Answer(422, kRefused);
  Run refused = Reload(config, {}, /*json=*/true);
  CHECK(refused.code == cli::kExitFailure);
  CHECK(refused.out == std::string(kRefused) + "\n");
}

TEST_CASE("reload: a refused token (401) or an unavailable admin API (503) exits 1 saying which", "[cli][reload]") {
  testing::TempDir dir;
  httplib::Server server;
  FakeService service(&server);
  const std::string config = WriteConfig(dir, service.port());
  SECTION("401") {
    service.Answer(401, R"({"error":"admin token"})");
    Run r = Reload(config);
    CHECK(r.code == cli::kExitFailure);
    CHECK(r.err.find("refused the admin token (401)") != std::string::npos);
    CHECK(r.err.find(kToken) == std::string::npos);
    CHECK(r.out.empty());
  }
  SECTION("503") {
    service.Answer(503, R"({"error":"admin token not configured: set admin.token_env or admin.token_file"})");
    Run r = Reload(config);
    CHECK(r.code == cli::kExitFailure);
    CHECK(r.err == "hookinbox reload: the running service at http://127.0.0.1:" + std::to_string(service.port()) +
                       " answered 503: admin token not configured: set admin.token_env or admin.token_file\n");
  }
}

TEST_CASE("reload: nothing listening exits 1 and asks whether serve runs", "[cli][reload]") {
  testing::TempDir dir;
  const int port = ClosedPort();
  Run r = Reload(WriteConfig(dir, port));
  CHECK(r.code == cli::kExitFailure);
  CHECK(r.err == "hookinbox reload: cannot reach the running service at http://127.0.0.1:" + std::to_string(port) +
                     ": connection refused or unreachable — is `hookinbox serve` running?\n");
}

TEST_CASE("reload: over HTTPS it trusts admin.tls_cert, and only that certificate", "[cli][reload]") {
  testing::TempDir dir;
  const std::string cert = dir.File("admin-cert.pem"), key = dir.File("admin-key.pem");
  REQUIRE(http::WriteSelfSignedCertificate(cert, key, {}).ok());
  SECTION("the configured certificate verifies") {
    httplib::SSLServer server(cert.c_str(), key.c_str());
    FakeService service(&server);
    service.Answer(200, kApplied);
    Run r = Reload(WriteConfig(dir, service.port(), /*tls=*/true));
    INFO(r.err);
    CHECK(r.code == cli::kExitOk);
    CHECK(service.authorization() == "Bearer " + kToken);
  }
  SECTION("another certificate is refused before the token is sent") {
    const std::string other_cert = dir.File("other-cert.pem"), other_key = dir.File("other-key.pem");
    REQUIRE(http::WriteSelfSignedCertificate(other_cert, other_key, {}).ok());
    httplib::SSLServer server(other_cert.c_str(), other_key.c_str());
    FakeService service(&server);
    service.Answer(200, kApplied);
    Run r = Reload(WriteConfig(dir, service.port(), /*tls=*/true));
    CHECK(r.code == cli::kExitFailure);
    CHECK(r.err.find("did not verify against admin.tls_cert") != std::string::npos);
    CHECK(service.calls() == 0);
  }
}

TEST_CASE("reload: usage errors exit 2 and ask the service nothing", "[cli][reload]") {
  testing::TempDir dir;
  httplib::Server server;
  FakeService service(&server);
  service.Answer(200, kApplied);
  const std::string config = WriteConfig(dir, service.port());
  SECTION("an endpoint the config does not have") {
    Run r = Reload(config, {"demo", "nosuch"});
    CHECK(r.code == cli::kExitUsage);
    CHECK(r.err.find("--accept-key-change: no endpoint named \"nosuch\"") != std::string::npos);
    CHECK(r.err.find("endpoints: demo") != std::string::npos);
  }
  SECTION("flags") {
    CHECK(Main({"reload", "-c", config, "--accept-key-change"}) == cli::kExitUsage);
    CHECK(Main({"reload", "-c", config, "--accept-key-change", "demo", "extra"}) == cli::kExitUsage);
    CHECK(Main({"reload", "-c", config, "--bogus"}) == cli::kExitUsage);
    CHECK(Main({"serve", "-c", config, "--accept-key-change"}) == cli::kExitUsage);
  }
  CHECK(service.calls() == 0);
}

TEST_CASE("reload: the flags reach the service through the command line", "[cli][reload]") {
  testing::TempDir dir;
  httplib::Server server;
  FakeService service(&server);
  service.Answer(200, kApplied);
  const std::string config = WriteConfig(dir, service.port());
  std::ostringstream sink;
  std::streambuf* old = std::cout.rdbuf(sink.rdbuf());
  int code = Main({"reload", "--accept-key-change", "demo", "-c", config, "--accept-key-change", "demo"});
  std::cout.rdbuf(old);
  CHECK(code == cli::kExitOk);
  CHECK(service.request_body() == R"({"accept_key_change":["demo","demo"]})");
  CHECK(sink.str().find("reloaded /etc/hookinbox/hookinbox.toml (generation 4)") == 0);
}

TEST_CASE("reload: a config that does not load asks the service nothing", "[cli][reload]") {
  testing::TempDir dir;
  const std::string config = dir.Write("hookinbox.toml", "[server\n");
  Run r = Reload(config);
  CHECK(r.code == cli::kExitFailure);
  CHECK(r.err.find("the running service was not asked to reload: it keeps its config") != std::string::npos);
}
