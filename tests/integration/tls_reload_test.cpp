// SIGHUP certificate reload on the real binary: the listener, the
// process and open connections stay; new handshakes get the new pair; a bad
// pair is refused and the old one kept; serve and check-config refuse bad
// pairs at start, naming the file.
#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "harness.h"
#include "support/cert_fingerprint.h"

using namespace hookinbox::testing;

namespace {

constexpr long kDay = 86400;

// A self-signed P-256 pair valid from now+not_before_s to now+not_after_s,
// made here with OpenSSL so the test does not depend on the product's writer.
void WritePair(const std::string& cert_path, const std::string& key_path, long not_before_s, long not_after_s) {
  static long serial = 1000;
  EVP_PKEY* key = EVP_EC_gen("P-256");
  REQUIRE(key != nullptr);
  X509* x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), ++serial);
  X509_gmtime_adj(X509_getm_notBefore(x), not_before_s);
  X509_gmtime_adj(X509_getm_notAfter(x), not_after_s);
  X509_set_pubkey(x, key);
  X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(x, X509_get_subject_name(x));
  REQUIRE(X509_sign(x, key, EVP_sha256()) > 0);
  FILE* cf = std::fopen(cert_path.c_str(), "w");
  REQUIRE(cf != nullptr);
  PEM_write_X509(cf, x);
  std::fclose(cf);
  int fd = ::open(key_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  FILE* kf = ::fdopen(fd, "w");
  PEM_write_PrivateKey(kf, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(kf);
  X509_free(x);
  EVP_PKEY_free(key);
}


// Copies cert and key to temp names beside `cert_dest`/`key_dest` and renames
// both into place, as a deploy script would (a reader sees the old or the new
// file, never half of one).
void Install(const std::string& cert_src, const std::string& key_src, const std::string& cert_dest,
             const std::string& key_dest) {
  namespace fs = std::filesystem;
  fs::copy_file(cert_src, cert_dest + ".new", fs::copy_options::overwrite_existing);
  fs::copy_file(key_src, key_dest + ".new", fs::copy_options::overwrite_existing);
  fs::rename(cert_dest + ".new", cert_dest);
  fs::rename(key_dest + ".new", key_dest);
}

// One TLS connection kept open across requests (keep-alive), with the
// certificate it was handshaken with. It never reconnects: once the server
// closes it, Get answers 0.
class TlsConnection {
 public:
  explicit TlsConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
    ctx_ = SSL_CTX_new(TLS_client_method());
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    if (SSL_connect(ssl_) != 1) {
      ERR_clear_error();
      return;
    }
    X509* peer = SSL_get1_peer_certificate(ssl_);
    if (peer != nullptr) peer_sha256_ = CertificateSha256Hex(peer);
    X509_free(peer);
  }
  ~TlsConnection() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
    if (fd_ >= 0) ::close(fd_);
  }
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  // "" when the handshake failed.
  const std::string& peer_sha256() const { return peer_sha256_; }

  // GET `path` on this connection; the status, or 0 when the connection is gone.
  int Get(const std::string& path) {
    if (peer_sha256_.empty()) return 0;
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    if (SSL_write(ssl_, req.data(), static_cast<int>(req.size())) <= 0) return 0;
    std::string in;
    char buf[4096];
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      size_t head_end = in.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        size_t cl = in.find("Content-Length: ");
        size_t len = (cl != std::string::npos && cl < head_end) ? std::stoul(in.substr(cl + 16)) : 0;
        if (in.size() >= head_end + 4 + len) return std::stoi(in.substr(9, 3));
      }
      if (SSL_pending(ssl_) == 0) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) continue;  // bounded by the deadline above
      }
      int n = SSL_read(ssl_, buf, sizeof buf);
      if (n <= 0) return 0;  // closed by the server
      in.append(buf, static_cast<size_t>(n));
    }
    return 0;
  }

 private:
  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  std::string peer_sha256_;
};

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Waits until the log holds `count` lines of `event`.
bool AwaitEvents(const ServerProcess& server, const std::string& event, size_t count) {
  const std::string needle = "\"event\":\"" + event + "\"";
  return PollUntil([&] { return Count(server.log(), needle) >= count; }, std::chrono::seconds(20));
}

// The last log line of `event`.
std::string LastLine(const std::string& log, const std::string& event) {
  size_t at = log.rfind("\"event\":\"" + event + "\"");
  if (at == std::string::npos) return "";
  size_t begin = log.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return log.substr(begin, log.find('\n', at) - begin);
}

bool StillRunning(ServerProcess& server) { return server.WaitExit(std::chrono::milliseconds(0)) == -1; }

}  // namespace

TEST_CASE("tls: SIGHUP swaps the certificate, the listener and an open connection stay", "[integration][tls]") {
  Installation inst;
  inst.WriteTestConfig("", "keep_alive_timeout_seconds = 60\n");
  const std::string cert = inst.cert_path(), key = inst.dir() + "/tls/key.pem";
  TempDir staging;
  WritePair(staging.File("b.cert"), staging.File("b.key"), -3600, 90 * kDay);
  WritePair(staging.File("c.cert"), staging.File("c.key"), -3600, 90 * kDay);
  WritePair(staging.File("old.cert"), staging.File("old.key"), -90 * kDay, -kDay);
  const std::string sha_a = CertificateFileSha256Hex(cert), sha_b = CertificateFileSha256Hex(staging.File("b.cert"));
  REQUIRE(sha_a != sha_b);

  ServerProcess server(inst);
  server.Start();
  const int port = server.port();
  auto kept_owner = std::make_unique<TlsConnection>(port);
  TlsConnection& kept = *kept_owner;
  REQUIRE(kept.peer_sha256() == sha_a);
  REQUIRE(kept.Get("/healthz") == 200);

  // 1. A good new pair: reloaded; the open connection goes on, new ones get B.
  Install(staging.File("b.cert"), staging.File("b.key"), cert, key);
  server.Kill(SIGHUP);
  REQUIRE(AwaitEvents(server, "tls_reloaded", 1));
  std::string line = LastLine(server.log(), "tls_reloaded");
  CHECK(line.find(R"("level":"info")") != std::string::npos);
  CHECK(line.find(R"("listener":"public")") != std::string::npos);
  CHECK(line.find(R"("sha256":")" + sha_b + "\"") != std::string::npos);
  CHECK(line.find(R"("not_after":"20)") != std::string::npos);
  CHECK(kept.Get("/healthz") == 200);  // the same socket and TLS session: it cannot reconnect
  CHECK(kept.peer_sha256() == sha_a);
  {
    TlsConnection fresh(port);
    CHECK(fresh.peer_sha256() == sha_b);
    CHECK(fresh.Get("/healthz") == 200);
  }
  CHECK(StillRunning(server));
  CHECK(Count(server.log(), R"("event":"listening")") == 1);  // the same process, never restarted

  // 2. Certificate C with key B: refused, B stays.
  Install(staging.File("c.cert"), staging.File("b.key"), cert, key);
  server.Kill(SIGHUP);
  REQUIRE(AwaitEvents(server, "tls_reload_refused", 1));
  line = LastLine(server.log(), "tls_reload_refused");
  CHECK(line.find(R"("level":"error")") != std::string::npos);
  CHECK(line.find("server.tls_key " + key + " does not match server.tls_cert " + cert) != std::string::npos);
  CHECK(TlsConnection(port).peer_sha256() == sha_b);

  // 3. An expired pair: refused, B stays.
  Install(staging.File("old.cert"), staging.File("old.key"), cert, key);
  server.Kill(SIGHUP);
  REQUIRE(AwaitEvents(server, "tls_reload_refused", 2));
  line = LastLine(server.log(), "tls_reload_refused");
  CHECK(line.find("server.tls_cert " + cert + " expired on ") != std::string::npos);
  CHECK(TlsConnection(port).peer_sha256() == sha_b);
  CHECK(kept.Get("/healthz") == 200);
  CHECK(Count(server.log(), R"("event":"tls_reloaded")") == 1);

  // No key material in the log.
  std::string key_pem = ReadFile(staging.File("b.key"));
  CHECK(server.log().find(key_pem.substr(key_pem.find('\n') + 1, 40)) == std::string::npos);

  // An idle keep-alive connection holds a server thread until its timeout
  // (60 s here), and shutdown waits for it: close it first.
  kept_owner.reset();
  server.Kill(SIGTERM);
  CHECK(server.WaitExit() == 0);
}

TEST_CASE("tls: a renewal's SIGHUP swaps the certificate even while the config file has a mistake",
          "[integration][tls][reload]") {
  Installation inst;
  inst.WriteTestConfig();
  const std::string cert = inst.cert_path(), key = inst.dir() + "/tls/key.pem";
  TempDir staging;
  WritePair(staging.File("b.cert"), staging.File("b.key"), -3600, 90 * kDay);
  const std::string sha_b = CertificateFileSha256Hex(staging.File("b.cert"));

  ServerProcess server(inst);
  server.Start();
  REQUIRE(TlsConnection(server.port()).peer_sha256() != sha_b);
  // An unrelated mistake in the file: the config is refused and keeps serving...
  std::string toml = ReadFile(inst.config_path());
  inst.WriteConfig(toml + "\n[server\n");
  Install(staging.File("b.cert"), staging.File("b.key"), cert, key);
  server.Kill(SIGHUP);
  REQUIRE(AwaitEvents(server, "config_reload_refused", 1));
  // ...but the renewed certificate (the files, not the config) is served.
  REQUIRE(AwaitEvents(server, "tls_reloaded", 1));
  CHECK(LastLine(server.log(), "tls_reloaded").find(R"("sha256":")" + sha_b + "\"") != std::string::npos);
  CHECK(TlsConnection(server.port()).peer_sha256() == sha_b);
  CHECK(Count(server.log(), R"("event":"config_reloaded")") == 0);
  server.Kill(SIGTERM);
  CHECK(server.WaitExit() == 0);
}

TEST_CASE("tls: SIGHUP reloads the admin listener's pair too", "[integration][tls][admin]") {
  Installation inst;
  TempDir staging;
  WritePair(inst.dir() + "/tls/admin.cert", inst.dir() + "/tls/admin.key", -3600, 90 * kDay);
  WritePair(staging.File("b.cert"), staging.File("b.key"), -3600, 90 * kDay);
  inst.WriteTestConfig("", "", "", "tls_cert = \"tls/admin.cert\"\ntls_key = \"tls/admin.key\"\n");
  ServerProcess server(inst);
  server.Start();
  REQUIRE(server.admin_port() > 0);
  const std::string sha_a = CertificateFileSha256Hex(inst.dir() + "/tls/admin.cert");
  const std::string sha_b = CertificateFileSha256Hex(staging.File("b.cert"));
  const std::string public_sha = CertificateFileSha256Hex(inst.cert_path());
  CHECK(TlsConnection(server.admin_port()).peer_sha256() == sha_a);

  Install(staging.File("b.cert"), staging.File("b.key"), inst.dir() + "/tls/admin.cert", inst.dir() + "/tls/admin.key");
  server.Kill(SIGHUP);
  REQUIRE(AwaitEvents(server, "tls_reloaded", 2));  // public (unchanged files) and admin
  std::string log = server.log();
  CHECK(log.find(R"("listener":"admin","sha256":")" + sha_b + "\"") != std::string::npos);
  CHECK(log.find(R"("listener":"public","sha256":")" + public_sha + "\"") != std::string::npos);
  CHECK(TlsConnection(server.admin_port()).peer_sha256() == sha_b);
  CHECK(TlsConnection(server.port()).peer_sha256() == public_sha);
  CHECK(StillRunning(server));
}

TEST_CASE("tls: serve refuses to start with an expired or mismatched pair, naming the file", "[integration][tls]") {
  Installation inst;
  inst.WriteTestConfig();
  const std::string cert = inst.cert_path(), key = inst.dir() + "/tls/key.pem";
  TempDir staging;
  ServerProcess server(inst);

  SECTION("expired") {
    WritePair(staging.File("old.cert"), staging.File("old.key"), -90 * kDay, -kDay);
    Install(staging.File("old.cert"), staging.File("old.key"), cert, key);
    server.TryStartAsync();
    CHECK(server.WaitExit() == 1);
    INFO(server.log());
    CHECK(server.log().find("server.tls_cert: " + cert + " expired on ") != std::string::npos);
    CHECK(server.log().find(R"("event":"listening")") == std::string::npos);
  }
  SECTION("not yet valid") {
    WritePair(staging.File("new.cert"), staging.File("new.key"), 2 * kDay, 90 * kDay);
    Install(staging.File("new.cert"), staging.File("new.key"), cert, key);
    server.TryStartAsync();
    CHECK(server.WaitExit() == 1);
    INFO(server.log());
    CHECK(server.log().find("server.tls_cert: " + cert + " is not valid before ") != std::string::npos);
  }
  SECTION("mismatched: serve and check-config name the key file") {
    WritePair(staging.File("c.cert"), staging.File("c.key"), -3600, 90 * kDay);
    Install(staging.File("c.cert"), key, cert, key);  // C's certificate beside A's key
    const std::string expected = "server.tls_key: " + key + " does not match server.tls_cert " + cert;
    CommandResult check = RunCommand(BinaryPath() + " check-config -c " + inst.config_path() + " 2>&1");
    INFO(check.out);
    CHECK(check.exit_code == 1);
    CHECK(check.out.find("error: " + inst.config_path() + ": " + expected) != std::string::npos);
    CommandResult json = RunCommand(BinaryPath() + " check-config --json -c " + inst.config_path() + " 2>&1");
    CHECK(json.exit_code == 1);
    CHECK(json.out.find(R"("key": "server.tls_key")") != std::string::npos);
    server.TryStartAsync();
    CHECK(server.WaitExit() == 1);
    CHECK(server.log().find(expected) != std::string::npos);
  }
}

TEST_CASE("tls: check-config warns about a certificate that ends within 14 days", "[integration][tls]") {
  Installation inst;
  inst.WriteTestConfig();
  TempDir staging;
  WritePair(staging.File("soon.cert"), staging.File("soon.key"), -3600, 5 * kDay);
  Install(staging.File("soon.cert"), staging.File("soon.key"), inst.cert_path(), inst.dir() + "/tls/key.pem");
  CommandResult check = RunCommand(BinaryPath() + " check-config -c " + inst.config_path() + " 2>&1");
  INFO(check.out);
  CHECK(check.exit_code == 0);
  CHECK(check.out.find("warning: " + inst.config_path() + ": server.tls_cert: " + inst.cert_path() + " expires on ") !=
        std::string::npos);
}

TEST_CASE("tls: SIGHUP with plain_http does not stop the server", "[integration][tls]") {
  Installation inst;
  inst.WriteTestConfig("", "plain_http = true\n");
  ServerProcess server(inst);
  server.Start();
  for (size_t i = 1; i <= 3; ++i) {
    server.Kill(SIGHUP);
    REQUIRE(AwaitEvents(server, "tls_reload_skipped", i));
    CHECK(server.Request("GET", "/healthz", "", {}).status == 200);
  }
  CHECK(StillRunning(server));
  server.Kill(SIGTERM);
  CHECK(server.WaitExit() == 0);
}
