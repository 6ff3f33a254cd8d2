// `hookinbox secrets rotate|retire` (cli/secrets.cpp) through their Run
// functions: usage errors (exit 2) change nothing; a service that does not
// answer leaves the files changed and says so (exit 1); one that reloads
// gives exit 0. The service is a stand-in httplib server, or a closed port.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

const std::string kToken = "admin-token-0123456789abcdef0123456789abcdef";

constexpr auto Read = &hookinbox::testing::ReadWholeFile;
constexpr auto Exists = &hookinbox::testing::PathExists;
constexpr auto ClosedPort = &hookinbox::testing::ClosedLoopbackPort;

// Answers POST /admin/api/reload with 200 (or, `refusing`, 422 as a
// refused reload does) and counts the calls.
class ReloadingService {
 public:
  explicit ReloadingService(bool refusing = false) {
    server_.Post("/admin/api/reload", [this, refusing](const httplib::Request&, httplib::Response& res) {
      ++calls_;
      if (refusing) {
        res.status = 422;
        res.set_content(R"({"applied":false,"config":"c.toml","generation":1,"changed":[],"needs_restart":[],)"
                        R"("warnings":[],"errors":[{"file":"c.toml","key":"server.tls_key","line":4,)"
                        R"("message":"does not match the certificate"}]})",
                        "application/json");
        return;
      }
      res.set_content(R"({"applied":true,"config":"c.toml","generation":2,"changed":["endpoint \"demo\": secret )"
                      R"(changed"],"needs_restart":[],"warnings":[],"errors":[]})",
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  }
  ~ReloadingService() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  int calls() const { return calls_.load(); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> calls_{0};
};

struct Run {
  int code = -1;
  std::string out, err;
};

// A config whose admin listener is on `port` (plain HTTP, loopback), one endpoint "demo" with a secret_file.
struct Rig {
  testing::TempDir dir;
  std::string config;
  std::string secret = dir.File("demo.secret");

  explicit Rig(int port) {
    ::chmod(dir.Write("admin.token", kToken + "\n").c_str(), 0600);
    ::chmod(dir.Write("demo.secret", "old-secret\n").c_str(), 0600);
    config = dir.Write("hookinbox.toml",
                       "[server]\nlisten = \"127.0.0.1:8443\"\nplain_http = true\n"
                       "[admin]\nlisten = \"127.0.0.1:" +
                           std::to_string(port) +
                           "\"\ntoken_file = \"admin.token\"\nallow_plain_http = true\n"
                           "[storage]\npath = \"hookinbox.db\"\n"
                           "[[endpoint]]\nname = \"demo\"\nsecret_file = \"demo.secret\"\n"
                           "[endpoint.key]\nid_pointer = \"/id\"\n");
  }

  Run Rotate(const std::string& endpoint, const std::string& new_file, const std::string& until = "24h",
             bool json = false) {
    cli::SecretsOptions options{endpoint, new_file, until};
    return Go([&](std::ostream& out, std::ostream& err) {
      return cli::RunSecretsRotate(options, cli::CommonOptions{config, json}, out, err);
    });
  }
  Run Retire(const std::string& endpoint) {
    cli::SecretsOptions options{endpoint, "", "24h"};
    return Go([&](std::ostream& out, std::ostream& err) {
      return cli::RunSecretsRetire(options, cli::CommonOptions{config, false}, out, err);
    });
  }
  template <typename F>
  Run Go(F f) {
    std::ostringstream out, err;
    Run r;
    r.code = f(out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
  }
  std::string NewFile(const std::string& bytes) { return dir.Write("new.secret", bytes); }
  bool Unchanged() const {
    return Read(secret) == "old-secret\n" && !Exists(secret + ".previous") && !Exists(secret + ".rotation");
  }
};

}  // namespace

TEST_CASE("secrets verbs: usage errors exit 2 and change nothing", "[cli][rotation]") {
  Rig rig(ClosedPort());
  struct Case {
    const char* what;
    std::string endpoint, new_file, until;
    const char* says;
  };
  const std::string good = rig.NewFile("new-secret\n");
  const std::string empty = rig.dir.Write("empty.secret", "\n");
  for (const Case& c : {
           Case{"unknown endpoint", "nope", good, "24h", "hookinbox secrets: no endpoint named \"nope\""},
           Case{"unreadable --new-file", "demo", rig.dir.File("missing.secret"), "24h",
                "hookinbox secrets: --new-file: cannot read"},
           Case{"empty --new-file", "demo", empty, "24h", "is empty"},
           Case{"bad --keep-old-until", "demo", good, "tomorrow", "hookinbox secrets: --keep-old-until: not a time"},
           Case{"--keep-old-until in the past", "demo", good, "2020-01-01", "is not in the future"},
       }) {
    INFO(c.what);
    Run r = rig.Rotate(c.endpoint, c.new_file, c.until);
    CHECK(r.code == cli::kExitUsage);
    CHECK_THAT(r.err, Catch::Contains(c.says));
    CHECK(r.out.empty());
    CHECK(rig.Unchanged());
  }
  Run r = rig.Retire("nope");
  CHECK(r.code == cli::kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("no endpoint named \"nope\""));
}

TEST_CASE("secrets verbs: a service that does not answer leaves the files changed and says so (exit 1)",
          "[cli][rotation]") {
  Rig rig(ClosedPort());
  Run r = rig.Rotate("demo", rig.NewFile("new-secret\n"));
  INFO(r.err);
  CHECK(r.code == cli::kExitFailure);
  CHECK_THAT(r.out, Catch::StartsWith("demo: new secret in " + rig.secret + "; the previous one is accepted until "));
  CHECK_THAT(r.err, Catch::Contains("the files are changed and recorded; the service uses them once it starts or "
                                    "reloads"));
  CHECK(Read(rig.secret) == "new-secret\n");
  CHECK(Read(rig.secret + ".previous") == "old-secret\n");
  CHECK((r.out + r.err).find("new-secret\n") == std::string::npos);
  CHECK((r.out + r.err).find("old-secret") == std::string::npos);

  Run retired = rig.Retire("demo");
  CHECK(retired.code == cli::kExitFailure);
  CHECK_THAT(retired.out, Catch::StartsWith("demo: the previous secret is retired"));
  CHECK_FALSE(Exists(rig.secret + ".previous"));
  // Nothing left to retire: nothing to reload, exit 0.
  Run again = rig.Retire("demo");
  CHECK(again.code == cli::kExitOk);
  CHECK(again.out == "demo: no previous secret to retire; nothing changed\n");
}

TEST_CASE("secrets verbs: --json says what was done and that the reload did not happen", "[cli][rotation]") {
  Rig rig(ClosedPort());
  Run r = rig.Rotate("demo", rig.NewFile("new-secret\n"), "2099-01-01", /*json=*/true);
  CHECK(r.code == cli::kExitFailure);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["endpoint"] == "demo");
  CHECK(j["action"] == "rotate");
  CHECK(j["changed"] == true);
  CHECK(j["secret_file"] == rig.secret);
  CHECK(j["previous_until"] == "2099-01-01T00:00:00Z");
  CHECK(j["reloaded"] == false);
  CHECK(j["reload"].is_null());
  CHECK(j["reload_error"].is_string());
}

TEST_CASE("secrets verbs: rotate and retire ask the running service to reload (exit 0)", "[cli][rotation]") {
  ReloadingService service;
  Rig rig(service.port());
  Run r = rig.Rotate("demo", rig.NewFile("new-secret\n"), "48h");
  INFO(r.err);
  CHECK(r.code == cli::kExitOk);
  CHECK(service.calls() == 1);
  CHECK_THAT(r.out, Catch::Contains("reloaded c.toml (generation 2)"));
  CHECK(Read(rig.secret) == "new-secret\n");
  Run retired = rig.Retire("demo");
  CHECK(retired.code == cli::kExitOk);
  CHECK(service.calls() == 2);
  CHECK_FALSE(Exists(rig.secret + ".rotation"));
}

TEST_CASE("secrets verbs: a reload the service refuses undoes the step, unrecorded (exit 1)", "[cli][rotation]") {
  ReloadingService service(/*refusing=*/true);
  Rig rig(service.port());
  Run r = rig.Rotate("demo", rig.NewFile("new-secret\n"));
  INFO(r.out << r.err);
  CHECK(r.code == cli::kExitFailure);
  CHECK(service.calls() == 1);
  CHECK_THAT(r.err, Catch::Contains("c.toml:4: server.tls_key: does not match the certificate"));
  CHECK_THAT(r.err, Catch::Contains("the running service did not put it in force, so nothing changed"));
  CHECK(rig.Unchanged());
}
