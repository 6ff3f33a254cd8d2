// http/certificate.h: what LoadCertificatePair refuses and how it says so,
// ServingCertificate keeping its pair when a reload fails, and handshakes
// getting the pair that was current when they started.
#include <catch2/catch.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "http/certificate.h"
#include "http/tls.h"
#include "support/cert_fingerprint.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

constexpr int64_t kDayMs = 86400LL * 1000;

// A fresh self-signed pair `name`.cert.pem / `name`.key.pem in `dir`.
struct Pair {
  std::string cert, key;
};
Pair MakePair(const testing::TempDir& dir, const std::string& name, http::SelfSignedOptions options = {}) {
  Pair p{dir.File(name + ".cert.pem"), dir.File(name + ".key.pem")};
  REQUIRE(http::WriteSelfSignedCertificate(p.cert, p.key, options).ok());
  return p;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A key file as a deploy writes it: mode 0600 (LoadCertificatePair refuses a readable one).
void WriteKey(const testing::TempDir& dir, const std::string& name, const std::string& pem) {
  dir.Write(name, pem);
  std::filesystem::permissions(dir.File(name), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

std::string RefusalOf(const Pair& p, const Clock& clock, std::string_view section = {}) {
  auto r = http::LoadCertificatePair(p.cert, p.key, clock, section);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  return r.status().message();
}

// One in-memory TLS handshake against a ctx set up like a listener's; returns
// the SHA-256 the client saw ("" when the handshake failed).
std::string HandshakeSha256(SSL_CTX* server_ctx) {
  SSL_CTX* client_ctx = SSL_CTX_new(TLS_client_method());
  SSL* client = SSL_new(client_ctx);
  SSL* server = SSL_new(server_ctx);
  BIO *client_bio = nullptr, *server_bio = nullptr;
  BIO_new_bio_pair(&client_bio, 0, &server_bio, 0);
  SSL_set_bio(client, client_bio, client_bio);
  SSL_set_bio(server, server_bio, server_bio);
  SSL_set_connect_state(client);
  SSL_set_accept_state(server);
  bool client_done = false, server_done = false, failed = false;
  for (int round = 0; round < 100 && !(client_done && server_done) && !failed; ++round) {
    for (auto [ssl, done] : {std::pair{client, &client_done}, std::pair{server, &server_done}}) {
      if (*done) continue;
      int rc = SSL_do_handshake(ssl);
      if (rc == 1) *done = true;
      int err = SSL_get_error(ssl, rc);
      if (rc != 1 && err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) failed = true;
    }
  }
  std::string sha;
  if (client_done && server_done) {
    X509* peer = SSL_get1_peer_certificate(client);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    X509_digest(peer, EVP_sha256(), md, &len);
    X509_free(peer);
    char hex[3];
    for (unsigned int i = 0; i < len; ++i) {
      std::snprintf(hex, sizeof hex, "%02x", md[i]);
      sha += hex;
    }
  }
  ERR_clear_error();
  SSL_free(client);
  SSL_free(server);
  SSL_CTX_free(client_ctx);
  return sha;
}

}  // namespace

TEST_CASE("certificate: a fresh self-signed pair loads, with its fingerprint and end date", "[http][tls]") {
  testing::TempDir dir;
  Pair a = MakePair(dir, "a");
  SystemClock clock;
  auto pair = http::LoadCertificatePair(a.cert, a.key, clock);
  REQUIRE(pair.ok());
  CHECK((*pair)->sha256 == testing::CertificateFileSha256Hex(a.cert));
  CHECK(std::regex_match((*pair)->not_after, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  // 825 days from now, to the second the certificate was made.
  CHECK(std::llabs((*pair)->not_after_ms - (clock.NowMs() + 825 * kDayMs)) < 60 * 1000);
  CHECK((*pair)->warnings.empty());
  CHECK(sk_X509_num((*pair)->chain) == 0);
}

TEST_CASE("certificate: a key of another certificate is refused, naming both files", "[http][tls]") {
  testing::TempDir dir;
  Pair a = MakePair(dir, "a"), b = MakePair(dir, "b");
  std::string msg = RefusalOf({a.cert, b.key}, SystemClock(), "server");
  CHECK(msg == "server.tls_key " + b.key + " does not match server.tls_cert " + a.cert +
                   " (it is the key of another certificate)");
}

TEST_CASE("certificate: expired and not yet valid are refused by the injected clock", "[http][tls]") {
  testing::TempDir dir;
  Pair a = MakePair(dir, "a");
  int64_t now = SystemClock().NowMs();
  auto loaded = http::LoadCertificatePair(a.cert, a.key, SystemClock());
  REQUIRE(loaded.ok());
  const std::string not_after = (*loaded)->not_after;

  SECTION("the clock past notAfter: expired on <notAfter>") {
    FakeClock later(now + 900 * kDayMs);
    CHECK(RefusalOf(a, later, "server") == "server.tls_cert " + a.cert + " expired on " + not_after);
  }
  SECTION("the clock before notBefore (an hour back): not valid before") {
    FakeClock earlier(now - 2 * kDayMs);
    std::string msg = RefusalOf(a, earlier);
    CHECK(msg.rfind("certificate " + a.cert + " is not valid before 20", 0) == 0);
  }
  SECTION("minted expired (valid_days = -1) against the system clock") {
    http::SelfSignedOptions o;
    o.valid_days = -1;
    Pair old = MakePair(dir, "old", o);
    CHECK(RefusalOf(old, SystemClock()).find(" expired on ") != std::string::npos);
  }
  SECTION("minted to start tomorrow against the system clock") {
    http::SelfSignedOptions o;
    o.not_before_offset_seconds = 86400;
    Pair future = MakePair(dir, "future", o);
    CHECK(RefusalOf(future, SystemClock()).find(" is not valid before ") != std::string::npos);
  }
}

TEST_CASE("certificate: fewer than 14 days left loads with a warning", "[http][tls]") {
  testing::TempDir dir;
  http::SelfSignedOptions o;
  o.valid_days = 10;
  Pair soon = MakePair(dir, "soon", o);
  auto pair = http::LoadCertificatePair(soon.cert, soon.key, SystemClock(), "admin");
  REQUIRE(pair.ok());
  REQUIRE((*pair)->warnings.size() == 1);
  CHECK((*pair)->warnings[0].rfind("admin.tls_cert " + soon.cert + " expires on ", 0) == 0);
  CHECK((*pair)->warnings[0].find("(in 9 days)") != std::string::npos);
}

TEST_CASE("certificate: missing, key-only, swapped and garbage files are refused by name", "[http][tls]") {
  testing::TempDir dir;
  Pair a = MakePair(dir, "a");
  SystemClock clock;
  SECTION("missing certificate") {
    std::string missing = dir.File("nope.pem");
    CHECK(RefusalOf({missing, a.key}, clock, "server") ==
          "server.tls_cert " + missing + " cannot be read: No such file or directory");
  }
  SECTION("missing key") {
    std::string missing = dir.File("nope.key");
    CHECK(RefusalOf({a.cert, missing}, clock) == "key " + missing + " cannot be read: No such file or directory");
  }
  SECTION("the certificate file holds only a key") {
    CHECK(RefusalOf({a.key, a.key}, clock, "server") ==
          "server.tls_cert " + a.key + " holds no PEM certificate (it holds a private key: are tls_cert and tls_key swapped?)");
  }
  SECTION("the key file holds only a certificate") {
    CHECK(RefusalOf({a.cert, a.cert}, clock) == "key " + a.cert + " holds no PEM private key (it holds a certificate)");
  }
  SECTION("not PEM at all") {
    std::string junk = dir.Write("junk.pem", "hello\n");
    CHECK(RefusalOf({junk, a.key}, clock) == "certificate " + junk + " holds no PEM certificate");
  }
  SECTION("no message carries key material") {
    std::string key_pem = ReadAll(a.key);
    std::string body = key_pem.substr(key_pem.find('\n') + 1, 40);
    CHECK(RefusalOf({a.key, a.key}, clock).find(body) == std::string::npos);
    CHECK(RefusalOf({a.key, a.cert}, clock).find(body) == std::string::npos);
  }
}

TEST_CASE("certificate: a key file readable by group or others is refused, at load and at reload", "[http][tls]") {
  testing::TempDir dir;
  Pair a = MakePair(dir, "a");
  SystemClock clock;
  for (unsigned mode : {0640u, 0604u, 0644u, 0660u}) {
    INFO(std::oct << mode);
    REQUIRE(::chmod(a.key.c_str(), mode) == 0);
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", mode);
    CHECK(RefusalOf(a, clock, "admin") == "admin.tls_key " + a.key + " is readable by group or others (mode " +
                                               octal + "); run: chmod 600 " + a.key);
  }
  for (unsigned mode : {0600u, 0400u}) {
    REQUIRE(::chmod(a.key.c_str(), mode) == 0);
    CHECK(http::LoadCertificatePair(a.cert, a.key, clock, "server").ok());
  }
  // A reload (SIGHUP) goes through the same check and keeps the served pair.
  http::ServingCertificate serving(a.cert, a.key, clock, "server");
  REQUIRE(serving.Load().ok());
  REQUIRE(::chmod(a.key.c_str(), 0644) == 0);
  CHECK(serving.Reload().message().find("run: chmod 600 " + a.key) != std::string::npos);
  CHECK(serving.Current() != nullptr);
}

TEST_CASE("certificate: a chain certificate that did not issue the one before it is a warning", "[http][tls]") {
  testing::TempDir dir;
  Pair a = MakePair(dir, "a"), b = MakePair(dir, "b");
  std::string bundle = dir.Write("bundle.pem", ReadAll(a.cert) + ReadAll(b.cert));
  auto pair = http::LoadCertificatePair(bundle, a.key, SystemClock());
  REQUIRE(pair.ok());
  CHECK(sk_X509_num((*pair)->chain) == 1);
  REQUIRE((*pair)->warnings.size() == 1);
  CHECK((*pair)->warnings[0].find("chain out of order (certificate 2 in the file did not issue certificate 1)") !=
        std::string::npos);
}

TEST_CASE("certificate: a failed reload keeps the served pair; a good one swaps it for new handshakes",
          "[http][tls]") {
  testing::TempDir dir;
  Pair a = MakePair(dir, "a"), b = MakePair(dir, "b");
  Pair live{dir.File("live.cert.pem"), dir.File("live.key.pem")};
  auto install = [&](const std::string& cert, const std::string& key) {
    dir.Write("live.cert.pem", ReadAll(cert));
    WriteKey(dir, "live.key.pem", ReadAll(key));
  };
  install(a.cert, a.key);
  SystemClock clock;
  http::ServingCertificate serving(live.cert, live.key, clock, "server");
  CHECK(serving.Current() == nullptr);
  REQUIRE(serving.Load().ok());
  const std::string sha_a = testing::CertificateFileSha256Hex(a.cert), sha_b = testing::CertificateFileSha256Hex(b.cert);
  REQUIRE(serving.Current()->sha256 == sha_a);

  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  REQUIRE(http::SetUpServerContext(*ctx, serving));
  CHECK(SSL_CTX_get_min_proto_version(ctx) == TLS1_2_VERSION);
  CHECK(HandshakeSha256(ctx) == sha_a);

  install(a.cert, b.key);  // mismatched
  Status st = serving.Reload();
  CHECK(st.message().find("does not match") != std::string::npos);
  CHECK(serving.Current()->sha256 == sha_a);
  CHECK(HandshakeSha256(ctx) == sha_a);

  ::remove(live.key.c_str());  // missing
  CHECK(serving.Reload().message().find("cannot be read") != std::string::npos);
  CHECK(HandshakeSha256(ctx) == sha_a);

  std::shared_ptr<const http::CertificatePair> held = serving.Current();
  install(b.cert, b.key);
  REQUIRE(serving.Reload().ok());
  CHECK(serving.Current()->sha256 == sha_b);
  CHECK(HandshakeSha256(ctx) == sha_b);
  CHECK(held->sha256 == sha_a);  // a holder of the old pair (a handshake in flight) keeps it intact

  FakeClock later(clock.NowMs() + 900 * kDayMs);
  http::ServingCertificate expiring(live.cert, live.key, later, "admin");
  CHECK(expiring.Load().message().find("expired on") != std::string::npos);
  CHECK(expiring.Current() == nullptr);
  SSL_CTX_free(ctx);
}

TEST_CASE("certificate: handshakes on other threads during reloads always get a whole pair", "[http][tls]") {
  testing::TempDir dir;
  Pair a = MakePair(dir, "a"), b = MakePair(dir, "b");
  SystemClock clock;
  // One object; the files are swapped by rename between reloads, as a deploy does.
  Pair live{dir.File("live.cert.pem"), dir.File("live.key.pem")};
  http::ServingCertificate swapping(live.cert, live.key, clock, "server");
  auto install = [&](const Pair& p) {
    dir.Write("tmp.cert.pem", ReadAll(p.cert));
    WriteKey(dir, "tmp.key.pem", ReadAll(p.key));
    REQUIRE(std::rename(dir.File("tmp.cert.pem").c_str(), live.cert.c_str()) == 0);
    REQUIRE(std::rename(dir.File("tmp.key.pem").c_str(), live.key.c_str()) == 0);
  };
  install(a);
  REQUIRE(swapping.Load().ok());
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  REQUIRE(http::SetUpServerContext(*ctx, swapping));
  const std::string sha_a = testing::CertificateFileSha256Hex(a.cert), sha_b = testing::CertificateFileSha256Hex(b.cert);

  std::atomic<bool> done{false};
  std::atomic<int> handshakes{0}, wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 3; ++t) {
    clients.emplace_back([&] {
      while (!done.load()) {
        std::string sha = HandshakeSha256(ctx);
        if (sha != sha_a && sha != sha_b) ++wrong;
        ++handshakes;
      }
    });
  }
  for (int round = 0; round < 20; ++round) {
    install(round % 2 == 0 ? b : a);
    CHECK(swapping.Reload().ok());
  }
  // Let handshakes overlap the last swap before stopping: a count, with a deadline.
  const int target = handshakes.load() + 30;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (handshakes.load() < target && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  done = true;
  for (auto& c : clients) c.join();
  CHECK(wrong.load() == 0);
  CHECK(handshakes.load() >= 30);
  CHECK(HandshakeSha256(ctx) == sha_a);  // round 19 installed a
  SSL_CTX_free(ctx);
}
