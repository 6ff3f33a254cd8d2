#include "downstream.h"

#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>

#include "harness.h"

namespace hookinbox::testing {

DownstreamProcess::DownstreamProcess(bool dedup) : dedup_(dedup) { Start(); }

DownstreamProcess::~DownstreamProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

void DownstreamProcess::Start(int port) {
  const std::string log = dir_.File("downstream-" + std::to_string(++starts_) + ".log");
  const std::string program = DownstreamPath();  // before fork: the child only execs
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test binary
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    const std::string port_text = std::to_string(port);
    ::execl(program.c_str(), program.c_str(), "--port", port_text.c_str(),
            dedup_ ? static_cast<char*>(nullptr) : "--no-dedup", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  static const std::regex kListening(R"(listening port=(\d+))");
  std::string text;
  bool listening = PollUntil(
      [&] {
        text = ReadFile(log);
        std::smatch m;
        if (!std::regex_search(text, m, kListening)) return false;
        port_ = std::stoi(m[1]);
        return true;
      },
      std::chrono::seconds(20));
  INFO(text);
  REQUIRE(listening);
}

void DownstreamProcess::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string DownstreamProcess::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

nlohmann::json DownstreamProcess::Control(const std::string& method, const std::string& what,
                                          const std::string& body) const {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(10, 0);
  const std::string path = "/_control/" + what;
  auto res = method == "GET" ? client.Get(path.c_str()) : client.Post(path.c_str(), body, "application/json");
  INFO("downstream " << method << " " << path);
  REQUIRE(res);
  REQUIRE(res->status == 200);
  return nlohmann::json::parse(res->body);
}

std::string ForwardingAction(const Installation& inst, const std::string& url) {
  const std::string secret = inst.dir() + "/secrets/forward.secret";
  std::ofstream(secret) << "whsec_Zm9yd2FyZC1zZWNyZXQtZm9yLXRlc3Rz\n";  // "forward-secret-for-tests"
  ::chmod(secret.c_str(), 0600);
  RegisterLeakMarker("Zm9yd2FyZC1zZWNyZXQtZm9yLXRlc3Rz");  // the log-leak check (harness.h)
  return "\n[endpoint.action]\ntype = \"http\"\nurl = \"" + url +
         "\"\nforward_secret_file = \"secrets/forward.secret\"\n";
}

std::string ForwardingConfig(const Installation& inst, const std::string& url) {
  return ForwardingAction(inst, url) + R"(result_ref_header = "X-Ref"
idempotent_target = true
timeout_ms = 5000
concurrency = 4

[worker]
threads = 4
lease_seconds = 1
max_attempts = 50
backoff_initial_ms = 10
backoff_max_ms = 200
)";
}

void DownstreamProcess::Script(const nlohmann::json& replies) const { Control("POST", "script", replies.dump()); }
void DownstreamProcess::Default(const nlohmann::json& reply) const { Control("POST", "default", reply.dump()); }
void DownstreamProcess::Release() const { Control("POST", "release"); }
nlohmann::json DownstreamProcess::Calls() const { return Control("GET", "calls"); }
nlohmann::json DownstreamProcess::Stats() const { return Control("GET", "stats"); }

int64_t ForwardingRig::DeliverBody(const std::string& body, const std::string& endpoint) const {
  HttpResult r = server.PostSigned("/hooks/" + endpoint, body);
  INFO(r.body);
  REQUIRE(r.status == 200);
  return nlohmann::json::parse(r.body).at("id").get<int64_t>();
}

int64_t ForwardingRig::Deliver(const std::string& event_id) const {
  return DeliverBody(R"({"id":")" + event_id + R"(","type":"invoice.paid"})");
}

std::string ForwardingRig::Field(int64_t id, const std::string& expr) const {
  return inst.Sql("SELECT " + expr + " FROM webhook_inbox WHERE id = " + std::to_string(id));
}

bool ForwardingRig::Becomes(int64_t id, const std::string& status, std::chrono::milliseconds timeout) const {
  return PollUntil([&] { return Field(id, "status") == status; }, timeout);
}

int64_t ForwardingRig::Count(const std::string& where) const {
  return std::stoll(inst.Sql("SELECT count(*) FROM webhook_inbox WHERE " + where));
}

}  // namespace hookinbox::testing
