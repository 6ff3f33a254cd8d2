// The worker's http action against a downstream whose TLS fails
// (tag [worker][tls-fault]). Everything that fails before the request left
// (unknown CA, hostname mismatch, plain HTTP behind an https:// URL, a peer
// resetting during the handshake) is "not sent": retried with backoff, then
// dead-lettered, never `unknown`, and the error says what failed without a
// secret. A reset after the request was written is `unknown` on a
// non-idempotent target (retried on an idempotent one). The TLS peer is a
// tiny OpenSSL server on a loopback port inside this test, scripted per
// connection; certificates are made by `openssl req` into a temp dir.
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// What the scripted peer does with one connection.
enum class Peer {
  kAnswer200,          // handshake, read the request, answer 200
  kResetInHandshake,   // read the ClientHello, then RST
  kResetAfterRequest,  // handshake, read the whole request, then RST without an answer
};

// Test certificates: a CA, a leaf for 127.0.0.1 it signed, and one for other.example.
struct Certs {
  TempDir dir;
  std::string ca() const { return dir.File("ca.pem"); }
  Certs() {
    const std::string d = dir.path();
    const std::string ec = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 ";
    Run(ec + "-keyout " + d + "/ca.key -out " + d + "/ca.pem -subj /CN=hookinbox-tls-fault-test-ca");
    for (const auto& [name, san] : {std::pair<std::string, std::string>{"good", "IP:127.0.0.1"},
                                    {"other", "DNS:other.example"}}) {
      Run(ec + "-keyout " + d + "/" + name + ".key -out " + d + "/" + name + ".pem -CA " + d + "/ca.pem -CAkey " + d +
          "/ca.key -subj /CN=" + name + " -addext subjectAltName=" + san +
          " -addext basicConstraints=critical,CA:FALSE");
    }
  }
  static void Run(const std::string& cmd) {
    auto r = RunCommand(cmd + " 2>&1");
    INFO(cmd << "\n" << r.out);
    REQUIRE(r.exit_code == 0);
  }
};

// A one-thread TLS server on 127.0.0.1: connection n does script[n] (the
// last entry repeats). Counts what got how far.
class TlsPeer {
 public:
  TlsPeer(const Certs& certs, const std::string& leaf, std::vector<Peer> script) : script_(std::move(script)) {
    ctx_ = SSL_CTX_new(TLS_server_method());
    REQUIRE(SSL_CTX_use_certificate_chain_file(ctx_, certs.dir.File(leaf + ".pem").c_str()) == 1);
    REQUIRE(SSL_CTX_use_PrivateKey_file(ctx_, certs.dir.File(leaf + ".key").c_str(), SSL_FILETYPE_PEM) == 1);
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~TlsPeer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
    SSL_CTX_free(ctx_);
  }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/effects"; }
  int connections() const { return connections_.load(); }
  int handshakes() const { return handshakes_.load(); }  // completed
  int requests() const { return requests_.load(); }      // read in full

 private:
  void Serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int conn = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (conn < 0) continue;
      const int n = connections_++;
      Handle(conn, script_[std::min<size_t>(n, script_.size() - 1)]);
    }
  }
  static void Reset(int conn) {
    linger l{1, 0};  // close with RST, not FIN
    ::setsockopt(conn, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(conn);
  }
  void Handle(int conn, Peer what) {
    timeval tv{5, 0};
    ::setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (what == Peer::kResetInHandshake) {
      char hello[512];
      (void)::recv(conn, hello, sizeof hello, 0);  // the ClientHello (part of it is enough)
      Reset(conn);
      return;
    }
    SSL* ssl = SSL_new(ctx_);
    SSL_set_fd(ssl, conn);
    if (SSL_accept(ssl) != 1) {  // the client gave up on our certificate
      ERR_clear_error();
      SSL_free(ssl);
      ::close(conn);
      return;
    }
    ++handshakes_;
    if (!ReadRequest(ssl)) {
      SSL_free(ssl);
      ::close(conn);
      return;
    }
    ++requests_;
    if (what == Peer::kResetAfterRequest) {
      SSL_free(ssl);
      Reset(conn);
      return;
    }
    static const std::string kOk = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
    SSL_write(ssl, kOk.data(), static_cast<int>(kOk.size()));
    SSL_shutdown(ssl);
    SSL_free(ssl);
    ::close(conn);
  }
  // Reads the head and a Content-Length body; true when all of it arrived.
  static bool ReadRequest(SSL* ssl) {
    std::string in;
    char buf[4096];
    size_t need = std::string::npos;
    while (need == std::string::npos || in.size() < need) {
      const int n = SSL_read(ssl, buf, sizeof buf);
      if (n <= 0) return false;
      in.append(buf, n);
      const size_t head_end = in.find("\r\n\r\n");
      if (need == std::string::npos && head_end != std::string::npos) {
        size_t length = 0;
        std::istringstream lines(in.substr(0, head_end));
        for (std::string line; std::getline(lines, line);) {
          if (line.rfind("Content-Length:", 0) == 0) length = std::stoul(line.substr(15));
        }
        need = head_end + 4 + length;
      }
    }
    return true;
  }

  std::vector<Peer> script_;
  SSL_CTX* ctx_ = nullptr;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0}, handshakes_{0}, requests_{0};
  std::thread thread_;
};

// The demo endpoint forwarding to `url`; `action_extra` goes into [endpoint.action].
std::string Config(const Installation& inst, const std::string& url, const std::string& action_extra,
                   bool idempotent_target = false) {
  return ForwardingAction(inst, url) + action_extra + "idempotent_target = " +
         (idempotent_target ? "true" : "false") +
         "\ntimeout_ms = 10000\n\n[worker]\nthreads = 2\nlease_seconds = 5\nmax_attempts = 3\n"
         "backoff_initial_ms = 20\nbackoff_max_ms = 100\nshutdown_grace_seconds = 5\n";
}

struct Fixture {
  Installation inst;
  ServerProcess server{inst};
  int64_t Deliver(const std::string& event_id) {
    auto r = server.PostSigned("/hooks/demo", R"({"id":")" + event_id + R"(","type":"invoice.paid"})");
    INFO(r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body).at("id").get<int64_t>();
  }
  std::string Field(int64_t id, const std::string& expr) const {
    return inst.Sql("SELECT " + expr + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
  bool Becomes(int64_t id, const std::string& status) const {
    return PollUntil([&] { return Field(id, "status") == status; }, 30s);
  }
  std::string Attempts(int64_t id, const std::string& expr) const {
    return inst.Sql("SELECT group_concat(v, ',') FROM (SELECT " + expr +
                    " AS v FROM webhook_attempts WHERE inbox_id = " + std::to_string(id) + " ORDER BY id) AS sub");
  }
  // Retried with backoff, every attempt "not sent", then dead-lettered; the
  // errors name the failure and no secret. httplib's error name differs by
  // timing for one certificate failure (under TSan it sometimes comes out as
  // "SSLConnection", not "SSLServerVerification") — so `cause` is an SQL LIKE
  // pattern; `reason`, when given, must be named by at least one attempt.
  void ExpectNotSentThenDeadLettered(int64_t id, const std::string& cause, const std::string& reason = "") {
    REQUIRE(Becomes(id, "dead_lettered"));
    CHECK(Attempts(id, "attempt || ':' || outcome || ':' || ifnull(http_status, '-')") ==
          "1:retryable_failed:-,2:retryable_failed:-,3:dead_lettered:-");
    INFO("errors (ms taken): " << Attempts(id, "error || ' (' || (finished_at - started_at) || ')'"));
    CHECK(inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(id) +
                   " AND error LIKE '%not sent: " + cause + "'") == "3");
    if (!reason.empty()) {
      CHECK(inst.Sql("SELECT CASE WHEN count(*) > 0 THEN 1 ELSE 0 END FROM webhook_attempts WHERE inbox_id = " +
                     std::to_string(id) + " AND (" + reason + ")") == "1");
    }
    // One after the other: each retry started after the previous attempt ended.
    CHECK(inst.Sql("SELECT count(*) FROM webhook_attempts a JOIN webhook_attempts b ON b.inbox_id = a.inbox_id"
                   " AND b.attempt = a.attempt + 1 WHERE a.inbox_id = " + std::to_string(id) +
                   " AND b.started_at >= a.finished_at") == "2");
    CHECK(inst.Sql("SELECT count(*) FROM webhook_attempts WHERE error LIKE '%Zm9yd2FyZC1zZWNyZXQ%'"
                   " OR error LIKE '%whsec%' OR error LIKE '%v1,%'") == "0");
  }
};

}  // namespace

TEST_CASE("worker tls fault: a certificate from an unknown CA is not sent, retried, then dead-lettered",
          "[worker][tls-fault]") {
  ::signal(SIGPIPE, SIG_IGN);  // the peer's writes to a client that hung up
  Certs certs;
  TlsPeer peer(certs, "good", {Peer::kAnswer200});
  Fixture f;
  f.inst.WriteTestConfig(Config(f.inst, peer.url(), ""));  // no ca_file: the system's CAs only
  f.server.Start();
  const int64_t id = f.Deliver("evt_tls_unknown_ca");
  f.ExpectNotSentThenDeadLettered(id, "SSL%", "error LIKE '%(unable to get local issuer certificate)'");
  CHECK(peer.connections() == 3);
  CHECK(peer.requests() == 0);
}

TEST_CASE("worker tls fault: a certificate for another host is not sent, retried, then dead-lettered",
          "[worker][tls-fault]") {
  ::signal(SIGPIPE, SIG_IGN);
  Certs certs;
  TlsPeer peer(certs, "other", {Peer::kAnswer200});
  Fixture f;
  f.inst.WriteTestConfig(Config(f.inst, peer.url(), "ca_file = \"" + certs.ca() + "\"\n"));
  f.server.Start();
  const int64_t id = f.Deliver("evt_tls_hostname");
  f.ExpectNotSentThenDeadLettered(id, "SSL%",
                                  "error LIKE '%(the certificate does not name the URL''s host)'"
                                  " OR error LIKE '%mismatch)'");
  CHECK(peer.requests() == 0);
}

TEST_CASE("worker tls fault: plain HTTP behind an https URL is not sent, retried, then dead-lettered",
          "[worker][tls-fault]") {
  DownstreamProcess plain;  // speaks HTTP only
  Fixture f;
  f.inst.WriteTestConfig(Config(f.inst, "https://127.0.0.1:" + std::to_string(plain.port()) + "/effects", ""));
  f.server.Start();
  const int64_t id = f.Deliver("evt_tls_plain");
  f.ExpectNotSentThenDeadLettered(id, "SSLConnection");
  CHECK(plain.Calls().empty());
}

TEST_CASE("worker tls fault: a reset during the handshake is retried, and the next attempt completes",
          "[worker][tls-fault]") {
  ::signal(SIGPIPE, SIG_IGN);
  Certs certs;
  TlsPeer peer(certs, "good", {Peer::kResetInHandshake, Peer::kAnswer200});
  Fixture f;
  f.inst.WriteTestConfig(Config(f.inst, peer.url(), "ca_file = \"" + certs.ca() + "\"\n"));
  f.server.Start();
  const int64_t id = f.Deliver("evt_tls_handshake_reset");
  REQUIRE(f.Becomes(id, "completed"));
  INFO("attempts (ms taken): " << f.Attempts(id, "ifnull(error, 'ok') || ' (' || (finished_at - started_at) || ')'"));
  CHECK(f.Attempts(id, "attempt || ':' || outcome") == "1:retryable_failed,2:completed");
  CHECK(f.Attempts(id, "ifnull(error, '')") == "not sent: SSLConnection,");
  CHECK(peer.connections() == 2);
  CHECK(peer.requests() == 1);
}

TEST_CASE("worker tls fault: a reset after the request was sent is unknown, or retried on an idempotent target",
          "[worker][tls-fault]") {
  ::signal(SIGPIPE, SIG_IGN);
  Certs certs;
  TlsPeer peer(certs, "good", {Peer::kResetAfterRequest, Peer::kAnswer200});
  Fixture f;
  const bool idempotent = GENERATE(false, true);
  f.inst.WriteTestConfig(Config(f.inst, peer.url(), "ca_file = \"" + certs.ca() + "\"\n", idempotent));
  f.server.Start();
  const int64_t id = f.Deliver("evt_tls_reset_after");
  if (!idempotent) {
    // It may have arrived and acted: never sent again by itself.
    REQUIRE(f.Becomes(id, "unknown"));
    CHECK(f.Attempts(id, "attempt || ':' || outcome") == "1:unknown");
    CHECK(f.Attempts(id, "error") .rfind("no answer: ", 0) == 0);
    CHECK(peer.requests() == 1);
  } else {
    REQUIRE(f.Becomes(id, "completed"));
    CHECK(f.Attempts(id, "attempt || ':' || outcome") == "1:retryable_failed,2:completed");
    CHECK(f.Attempts(id, "ifnull(error, '')").rfind("no answer: ", 0) == 0);
    CHECK(peer.requests() == 2);
  }
}

}  // namespace hookinbox::testing
