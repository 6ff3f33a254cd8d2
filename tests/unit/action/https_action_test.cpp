// The http action over TLS: the server is verified against ca_file or the
// system CAs, host name included. The certificate is made here, at test time.
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <thread>

#include "common/clock.h"
#include "support/temp_dir.h"
#include "action/http_action.h"

namespace hookinbox::action {
namespace {

// Writes a self-signed EC certificate whose SAN is `san` (e.g.
// "IP:127.0.0.1,DNS:localhost") and its key to `cert_path` / `key_path`.
void MakeSelfSigned(const std::string& cert_path, const std::string& key_path, const std::string& san) {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  REQUIRE(key != nullptr);
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("hookinbox test"), -1,
                             -1, 0);
  X509_set_issuer_name(cert, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  for (const auto& [nid, value] : {std::pair{NID_subject_alt_name, san}, std::pair{NID_basic_constraints,
                                                                                    std::string("critical,CA:TRUE")}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    REQUIRE(ext != nullptr);
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  REQUIRE(X509_sign(cert, key, EVP_sha256()) > 0);
  FILE* f = std::fopen(cert_path.c_str(), "w");
  PEM_write_X509(f, cert);
  std::fclose(f);
  f = std::fopen(key_path.c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  X509_free(cert);
  EVP_PKEY_free(key);
}

class TlsDownstream {
 public:
  TlsDownstream(const std::string& cert, const std::string& key) : server_(cert.c_str(), key.c_str()) {
    REQUIRE(server_.is_valid());
    server_.Post("/ok", [](const httplib::Request&, httplib::Response& res) { res.set_content("{}", "application/json"); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    REQUIRE(server_.is_running());
  }
  ~TlsDownstream() {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& host) const { return "https://" + host + ":" + std::to_string(port_) + "/ok"; }

 private:
  httplib::SSLServer server_;
  int port_ = 0;
  std::thread thread_;
};

ActionInput Input() {
  ActionInput in;
  in.event_id = "evt_tls";
  in.idempotency_key = IdempotencyKey("generic", "tls", "default", "evt_tls");
  in.content_type = "application/json";
  in.body = "{}";
  return in;
}

TEST_CASE("https action: verified against ca_file; unknown CA or wrong host is transient and not sent",
          "[action][http][tls]") {
  testing::TempDir dir;
  MakeSelfSigned(dir.File("cert.pem"), dir.File("key.pem"), "IP:127.0.0.1");
  MakeSelfSigned(dir.File("other.pem"), dir.File("other-key.pem"), "DNS:other.example");
  TlsDownstream down(dir.File("cert.pem"), dir.File("key.pem"));
  FakeClock clock(1700000000000);
  config::ActionConfig c;
  c.type = "http";
  c.url = down.Url("127.0.0.1");
  c.timeout_ms = 5000;
  c.forward_secret = Secret("k");

  SECTION("the downstream's certificate as ca_file") {
    c.ca_file = dir.File("cert.pem");
    const Outcome o = HttpAction(c, clock).Run(Input());
    INFO(o.error);
    CHECK(o.verdict == Verdict::kSuccess);
    CHECK(o.http_status == 200);
  }
  SECTION("the system CAs do not know it") {
    const Outcome o = HttpAction(c, clock).Run(Input());
    CHECK(o.verdict == Verdict::kTransient);
    CHECK_FALSE(o.sent);
    CHECK(o.error.rfind("not sent", 0) == 0);
  }
  SECTION("a trusted certificate for another host name") {
    TlsDownstream other(dir.File("other.pem"), dir.File("other-key.pem"));
    c.url = other.Url("127.0.0.1");
    c.ca_file = dir.File("other.pem");
    const Outcome o = HttpAction(c, clock).Run(Input());
    CHECK(o.verdict == Verdict::kTransient);
    CHECK_FALSE(o.sent);
  }
  SECTION("a CA that does not sign it") {
    c.ca_file = dir.File("other.pem");
    const Outcome o = HttpAction(c, clock).Run(Input());
    CHECK(o.verdict == Verdict::kTransient);
    CHECK_FALSE(o.sent);
  }
}

}  // namespace
}  // namespace hookinbox::action
