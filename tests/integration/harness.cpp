#include "harness.h"

#include <fcntl.h>
#include <httplib.h>
#include <openssl/hmac.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

namespace hookinbox::testing {

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string BinaryPath() { return HOOKINBOX_BINARY; }

bool PollUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() > deadline) return condition();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // poll interval, bounded by the deadline
  }
}

std::string HmacSha256Hex(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[mac[i] >> 4]);
    out.push_back(kHex[mac[i] & 15]);
  }
  return out;
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

static std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

Installation::Installation() {
  auto r = RunCommand(BinaryPath() + " init " + dir_.path() + " 2>&1");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(dir_.File("secrets/demo.secret"));
  std::getline(in, secret_);
  REQUIRE(secret_.size() == 64);
}

void Installation::WriteConfig(const std::string& toml) const { dir_.Write("hookinbox.toml", toml); }

void Installation::WriteTestConfig(const std::string& extra) const {
  WriteConfig(R"([server]
listen = "127.0.0.1:0"
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
max_body_bytes = 65536

[storage]
path = "data/hookinbox.db"

[[endpoint]]
name = "demo"
provider = "generic"
secret_file = "secrets/demo.secret"

[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
tolerance_seconds = 300

[endpoint.key]
id_pointer = "/id"
event_type_pointer = "/type"
)" + extra);
}

std::string Installation::Sql(const std::string& query) const {
  auto r = RunCommand("sqlite3 -readonly " + db_path() + " \"" + query + "\" 2>&1");
  return Trim(r.out);
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

std::string ServerProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool ServerProcess::TryStart() {
  log_path_ = inst_.dir() + "/serve-" + std::to_string(++starts_) + ".log";
  pid_ = ::fork();
  if (pid_ == 0) {
    int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::string bin = BinaryPath(), cfg = inst_.config_path();
    ::execl(bin.c_str(), bin.c_str(), "serve", "-c", cfg.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  static const std::regex kListening(R"(event=listening url=https?://[^ ]*:(\d+))");
  bool listening = PollUntil(
      [&] {
        std::smatch m;
        std::string text = log();
        if (!std::regex_search(text, m, kListening)) return false;
        port_ = std::stoi(m[1]);
        return true;
      },
      std::chrono::seconds(30));
  return listening;
}

void ServerProcess::Start() {
  bool ok = TryStart();
  INFO(log());
  REQUIRE(ok);
}

void ServerProcess::Kill(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

int ServerProcess::WaitExit(std::chrono::milliseconds timeout) {
  int status = 0, code = -1;
  bool exited = PollUntil(
      [&] {
        pid_t r = ::waitpid(pid_, &status, WNOHANG);
        return r == pid_;
      },
      timeout);
  if (!exited) return -1;
  pid_ = -1;
  if (WIFEXITED(status)) code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) code = 128 + WTERMSIG(status);
  return code;
}

HttpResult ServerProcess::Request(const std::string& method, const std::string& path, const std::string& body,
                                  const std::vector<std::pair<std::string, std::string>>& headers,
                                  const std::string& content_type) const {
  httplib::SSLClient client("127.0.0.1", port_);
  client.set_ca_cert_path(inst_.cert_path().c_str());
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(10, 0);
  client.set_read_timeout(30, 0);
  httplib::Headers h;
  for (const auto& [k, v] : headers) h.emplace(k, v);
  auto send = [&]() -> httplib::Result {
    if (method == "POST") return client.Post(path.c_str(), h, body, content_type.c_str());
    if (method == "PUT") return client.Put(path.c_str(), h, body, content_type.c_str());
    if (method == "DELETE") return client.Delete(path.c_str(), h);
    return client.Get(path.c_str(), h);
  };
  httplib::Result res = send();
  HttpResult out;
  if (!res) return out;
  out.status = res->status;
  out.body = res->body;
  for (const auto& [k, v] : res->headers) out.headers[k] = v;
  return out;
}

HttpResult ServerProcess::PostSigned(const std::string& path, const std::string& body, int64_t timestamp,
                                     const std::string& content_type) const {
  std::string ts = std::to_string(timestamp != 0 ? timestamp : NowSeconds());
  std::string sig = "sha256=" + HmacSha256Hex(inst_.secret(), ts + "." + body);
  return Request("POST", path, body, {{"X-Timestamp", ts}, {"X-Signature", sig}}, content_type);
}

}  // namespace hookinbox::testing
