// tests/integration/reload_fixture.h — what the live-reload and the
// secret-rotation tests share: an installation whose whole config a test
// rewrites, signed deliveries over one kept-alive connection, the admin
// API's reload, and the server's log lines by event.
#pragma once

#include <fcntl.h>
#include <httplib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness.h"

namespace hookinbox::testing {

using json = nlohmann::json;

inline std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// A secret file as init writes them: owner-only.
inline void WriteSecret(const std::string& path, const std::string& secret) {
  RegisterLeakMarker(secret);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, secret.data(), secret.size()) == static_cast<ssize_t>(secret.size()));
  ::close(fd);
}

// An endpoint signed like demo, with its own secret lines (secret_file,
// secrets_file, secret_env ...) and extra lines (event_types ...).
inline std::string Endpoint(const std::string& name, const std::string& secret_lines, const std::string& extra = "") {
  return "\n[[endpoint]]\nname = \"" + name + "\"\nprovider = \"generic\"\n" + extra + secret_lines + "\n" +
         kDemoSignatureTables;
}

inline std::string Body(const std::string& id) { return R"({"id":")" + id + R"(","type":"invoice.paid","data":{}})"; }

// Signed deliveries over one kept-alive HTTPS connection, each signed with the
// secret the caller names. Registers what it sends for the log-leak check.
class Sender {
 public:
  Sender(const Installation& inst, int port) : client_("127.0.0.1", port) {
    client_.set_ca_cert_path(inst.cert_path().c_str());
    client_.enable_server_certificate_verification(true);
    client_.set_keep_alive(true);
    client_.set_connection_timeout(10, 0);
    client_.set_read_timeout(120, 0);  // a busy sanitizer run is slow; latency is not what is tested
  }
  HttpResult Post(const std::string& path, const std::string& body, const std::string& secret) {
    const std::string ts = std::to_string(NowSeconds());
    const std::string sig = HmacSha256Hex(secret, ts + "." + body);
    RegisterLeakMarker(sig);
    RegisterLeakMarker(body);
    httplib::Headers headers{{"X-Timestamp", ts}, {"X-Signature", "sha256=" + sig}};
    HttpResult out;
    auto res = client_.Post(path.c_str(), headers, body, "application/json");
    if (!res) return out;
    out.status = res->status;
    out.body = res->body;
    return out;
  }

 private:
  httplib::SSLClient client_;
};

// One installation and server whose whole config the test rewrites: the
// demo endpoint plus what a case adds, the admin token from init's file.
struct ReloadFixture {
  Installation inst;
  ServerProcess server{inst};
  int admin_port;
  std::string listen = "127.0.0.1:0";
  std::string token;
  std::string top_lines;  // whole tables written before [storage], e.g. "[log]\n…"

  explicit ReloadFixture(int admin = FreePort()) : admin_port(admin) {
    token = Trimmed(ReadFile(inst.dir() + "/secrets/admin.token"));
  }
  std::string ConfigText(const std::string& endpoints) const {
    return "[server]\nlisten = \"" + listen + R"("
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
max_body_bytes = 65536
keep_alive_timeout_seconds = 120

[admin]
listen = "127.0.0.1:)" +
           std::to_string(admin_port) +
           R"("
token_file = "secrets/admin.token"

)" + top_lines +
           "[storage]\n" + inst.StorageLines() + DemoLikeEndpoint("demo") + endpoints;
  }
  void Write(const std::string& endpoints) const { inst.WriteConfig(ConfigText(endpoints)); }

  HttpResult Api(const ServerProcess& s, const std::string& body = "") const {
    httplib::Client client("127.0.0.1", s.admin_port());
    client.set_connection_timeout(10, 0);
    client.set_read_timeout(120, 0);
    httplib::Headers h{{"Authorization", "Bearer " + token}};
    auto res = client.Post("/admin/api/reload", h, body, "application/json");
    HttpResult r;
    if (res) {
      r.status = res->status;
      r.body = res->body;
    }
    return r;
  }
  // POST /admin/api/reload; REQUIREs `status` and returns the answer.
  json ApiReload(int status, const std::string& body = "") const { return ApiReloadOf(server, status, body); }
  json ApiReloadOf(const ServerProcess& s, int status, const std::string& body = "") const {
    auto r = Api(s, body);
    INFO("reload → " << r.status << " " << r.body);
    REQUIRE(r.status == status);
    return json::parse(r.body);
  }
  // `hookinbox reload ARGS -c CONFIG`, stderr in the output.
  CommandResult Cli(const std::string& args = "") const {
    return RunCommand(BinaryPath() + " reload " + args + " -c " + inst.config_path() + " 2>&1");
  }
};

// The log lines of `s` whose event is `event`, parsed.
inline std::vector<json> LogEvents(const ServerProcess& s, const std::string& event) {
  std::vector<json> out;
  for (const std::string& line : Lines(s.log())) {
    if (line.find("\"" + event + "\"") == std::string::npos) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("event", "") == event) out.push_back(std::move(j));
  }
  return out;
}

inline bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace hookinbox::testing
