// The public listener's TLS, tuned for providers that open
// a new connection per delivery, seen from outside with OpenSSL's client API
// (http/tls.cpp TuneServerContext): TLS 1.3 and 1.2 negotiate (1.2 only with ECDHE and AEAD ciphers), TLS 1.1 is
// refused; X25519 is the key exchange; the certificate `init` makes is ECDSA
// P-256; sessions resume on TLS 1.3 tickets, TLS 1.2 tickets and TLS 1.2
// session ids — also after the client closed first, which is how cpp-httplib
// connections usually end and what makes OpenSSL, left alone, evict a TLS 1.2
// session from its cache; and every connection, resumed or not, serves
// several requests.
//
// Made to fail (each a mutant of tls.cpp): without KeepSessionOnFree the
// session-id cases are full handshakes (as `openssl s_client -no_ticket
// -sess_in` showed before), without SSL_OP_IGNORE_UNEXPECTED_EOF the one
// where the client closes without close_notify; SSL_OP_NO_TICKET leaves the
// TLS 1.2 ticket case without a ticket; a TLS 1.1 minimum connects TLS 1.1;
// "P-256:X25519" groups negotiate P-256 on TLS 1.2; OpenSSL's default cipher
// list accepts CBC and static-RSA TLS 1.2 ciphers.
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "integration/harness.h"

namespace hookinbox::testing {
namespace {

struct ClientOptions {
  int min_version = TLS1_2_VERSION;
  int max_version = TLS1_3_VERSION;
  bool offer_ticket = true;              // false: SSL_OP_NO_TICKET, so TLS 1.2 resumes by session id
  SSL_SESSION* resume = nullptr;         // offered when set (not owned)
  bool send_close_notify = true;         // false: close the socket without a TLS close
  const char* ciphers = nullptr;         // TLS 1.2 cipher list offered; null: OpenSSL's DEFAULT
};

// One client connection to 127.0.0.1:port that verifies the server against `ca`.
class TlsClient {
 public:
  TlsClient(int port, const std::string& ca, const ClientOptions& o) : options_(o) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_min_proto_version(ctx_, o.min_version);
    SSL_CTX_set_max_proto_version(ctx_, o.max_version);
    // Lets this client offer what the server must refuse (TLS 1.1 needs level 0).
    SSL_CTX_set_security_level(ctx_, 0);
    SSL_CTX_set_cipher_list(ctx_, (std::string(o.ciphers ? o.ciphers : "DEFAULT") + ":@SECLEVEL=0").c_str());
    if (!o.offer_ticket) SSL_CTX_set_options(ctx_, SSL_OP_NO_TICKET);
    SSL_CTX_load_verify_locations(ctx_, ca.c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{10, 0};  // a bound on every read: a silent server fails the test instead of hanging it
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), "127.0.0.1");
    if (o.resume != nullptr) SSL_set_session(ssl_, o.resume);
    ERR_clear_error();
    connected_ = SSL_connect(ssl_) == 1;
    if (!connected_) error_ = ERR_peek_last_error();
  }
  ~TlsClient() {
    if (ssl_ != nullptr) {
      // Without close_notify (quiet): the client still counts its SSL as
      // closed cleanly and keeps the session; only the server sees an abrupt end.
      if (!options_.send_close_notify) SSL_set_quiet_shutdown(ssl_, 1);
      if (connected_) SSL_shutdown(ssl_);
      SSL_free(ssl_);
    }
    if (fd_ >= 0) ::close(fd_);
    SSL_CTX_free(ctx_);
  }
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  bool connected() const { return connected_; }
  unsigned long error() const { return error_; }
  int version() const { return SSL_version(ssl_); }
  bool reused() const { return SSL_session_reused(ssl_) == 1; }
  // "X25519", "prime256v1", …: the server's ephemeral key ("Server Temp Key" in s_client).
  std::string KeyExchange() const {
    EVP_PKEY* key = nullptr;
    if (SSL_get_peer_tmp_key(ssl_, &key) != 1) return "";
    char group[64] = {0};
    size_t len = 0;
    std::string name = EVP_PKEY_get_id(key) == EVP_PKEY_X25519                            ? "X25519"
                       : EVP_PKEY_get_group_name(key, group, sizeof group, &len) == 1 ? group
                                                                                      : OBJ_nid2sn(EVP_PKEY_get_id(key));
    EVP_PKEY_free(key);
    return name;
  }
  // "EC prime256v1", "RSA", …: the served certificate's key.
  // "ECDHE-ECDSA-AES128-GCM-SHA256", …: the negotiated cipher (OpenSSL's name).
  std::string Cipher() const { return SSL_get_cipher_name(ssl_); }
  std::string CertificateKey() const {
    X509* cert = SSL_get1_peer_certificate(ssl_);
    if (cert == nullptr) return "";
    EVP_PKEY* key = X509_get0_pubkey(cert);
    std::string out = EVP_PKEY_get_base_id(key) == EVP_PKEY_EC ? "EC" : OBJ_nid2sn(EVP_PKEY_get_base_id(key));
    char group[64] = {0};
    size_t len = 0;
    if (EVP_PKEY_get_group_name(key, group, sizeof group, &len) == 1) out += std::string(" ") + group;
    X509_free(cert);
    return out;
  }
  // GET path on this connection; the status, or 0. Keeps the connection
  // (HTTP/1.1 keep-alive); false in *closing when the answer says close.
  int Get(const std::string& path, bool* closing) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    if (SSL_write(ssl_, req.data(), static_cast<int>(req.size())) <= 0) return 0;
    std::string in;
    char buf[4096];
    size_t head_end = std::string::npos;
    size_t length = 0;
    while (head_end == std::string::npos || in.size() < head_end + 4 + length) {
      int n = SSL_read(ssl_, buf, sizeof buf);
      if (n <= 0) return 0;
      in.append(buf, static_cast<size_t>(n));
      if (head_end == std::string::npos && (head_end = in.find("\r\n\r\n")) != std::string::npos) {
        size_t cl = in.find("Content-Length: ");
        length = cl != std::string::npos && cl < head_end ? std::stoul(in.substr(cl + 16)) : 0;
      }
    }
    *closing = in.substr(0, head_end).find("Connection: close") != std::string::npos;
    return in.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(in.substr(9, 3)) : 0;
  }
  // The session to resume later (after a request: TLS 1.3 tickets arrive after the handshake).
  SSL_SESSION* Session() const { return SSL_get1_session(ssl_); }

 private:
  ClientOptions options_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  bool connected_ = false;
  unsigned long error_ = 0;
};

// Two requests on `c`, both answered 200 with the connection kept open.
void RequireKeepAlive(TlsClient& c) {
  for (int i = 0; i < 2; ++i) {
    bool closing = true;
    REQUIRE(c.Get("/healthz", &closing) == 200);
    REQUIRE_FALSE(closing);
  }
}

TEST_CASE("tls tuning: TLS 1.3 and 1.2 over X25519 with init's ECDSA P-256 certificate; TLS 1.1 refused",
          "[integration][tls]") {
  RunningServer s;
  for (int version : {TLS1_3_VERSION, TLS1_2_VERSION}) {
    INFO("version " << std::hex << version);
    TlsClient c(s.server.port(), s.inst.cert_path(), {.min_version = version, .max_version = version});
    REQUIRE(c.connected());
    CHECK(c.version() == version);
    CHECK(c.KeyExchange() == "X25519");
    CHECK(c.CertificateKey() == "EC prime256v1");
    RequireKeepAlive(c);
  }
  TlsClient old(s.server.port(), s.inst.cert_path(), {.min_version = TLS1_1_VERSION, .max_version = TLS1_1_VERSION});
  CHECK_FALSE(old.connected());
  // The server's protocol_version alert, not a refusal of our own client.
  CHECK(ERR_GET_REASON(old.error()) == SSL_R_TLSV1_ALERT_PROTOCOL_VERSION);
}

// TLS 1.2 with `cipher` as the only one offered: connects, or the server's
// handshake_failure alert (no shared cipher), not a refusal of our own client.
void CheckTls12Cipher(int port, const std::string& ca, const char* cipher, bool accepted) {
  INFO(cipher);
  TlsClient c(port, ca, {.max_version = TLS1_2_VERSION, .ciphers = cipher});
  CHECK(c.connected() == accepted);
  if (accepted) {
    CHECK(c.Cipher() == cipher);
  } else {
    CHECK(ERR_GET_REASON(c.error()) == SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE);
  }
}

// An RSA pair for 127.0.0.1 in place of init's ECDSA one (the key 0600, as serve requires).
void UseRsaCertificate(const Installation& inst) {
  auto r = RunCommand("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -addext "
                      "subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " +
                      inst.dir() + "/tls/key.pem -out " + inst.cert_path() + " 2>&1 && chmod 600 " + inst.dir() +
                      "/tls/key.pem");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
}

TEST_CASE("tls tuning: TLS 1.2 only with ECDHE and AEAD ciphers, for ECDSA and RSA certificates",
          "[integration][tls]") {
  SECTION("init's ECDSA certificate") {
    RunningServer s;
    for (const char* ok : {"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
                           "ECDHE-ECDSA-CHACHA20-POLY1305"}) {
      CheckTls12Cipher(s.server.port(), s.inst.cert_path(), ok, true);
    }
    for (const char* cbc : {"ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES128-SHA256", "ECDHE-ECDSA-AES256-SHA384"}) {
      CheckTls12Cipher(s.server.port(), s.inst.cert_path(), cbc, false);
    }
  }
  SECTION("an RSA certificate") {
    Installation inst;
    UseRsaCertificate(inst);
    inst.WriteTestConfig();
    ServerProcess server(inst);
    server.Start();
    for (const char* ok : {"ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384",
                           "ECDHE-RSA-CHACHA20-POLY1305"}) {
      CheckTls12Cipher(server.port(), inst.cert_path(), ok, true);
    }
    // CBC with ECDHE; static RSA key exchange (no forward secrecy), CBC or
    // GCM; finite-field DHE.
    for (const char* refused : {"ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES128-SHA256", "AES128-SHA", "AES128-GCM-SHA256",
                                "AES256-GCM-SHA384", "DHE-RSA-AES128-GCM-SHA256"}) {
      CheckTls12Cipher(server.port(), inst.cert_path(), refused, false);
    }
  }
}

TEST_CASE("tls tuning: sessions resume on TLS 1.3 tickets, TLS 1.2 tickets and TLS 1.2 session ids",
          "[integration][tls]") {
  RunningServer s;
  struct Case {
    const char* name;
    int version;
    bool ticket;
    bool close_notify;
  };
  const Case cases[] = {
      {"TLS 1.3 ticket", TLS1_3_VERSION, true, true},
      {"TLS 1.3 ticket, client closes without close_notify", TLS1_3_VERSION, true, false},
      {"TLS 1.2 ticket", TLS1_2_VERSION, true, true},
      {"TLS 1.2 session id", TLS1_2_VERSION, false, true},
      {"TLS 1.2 session id, client closes without close_notify", TLS1_2_VERSION, false, false},
  };
  for (const Case& k : cases) {
    INFO(k.name);
    ClientOptions o{.min_version = k.version, .max_version = k.version, .offer_ticket = k.ticket,
                    .send_close_notify = k.close_notify};
    SSL_SESSION* session = nullptr;
    {
      TlsClient first(s.server.port(), s.inst.cert_path(), o);
      REQUIRE(first.connected());
      CHECK_FALSE(first.reused());
      RequireKeepAlive(first);
      session = first.Session();
    }
    REQUIRE(session != nullptr);
    // A ticket when the client offered the extension (stateless on the
    // server), none otherwise: the session-id case really uses the cache.
    CHECK(SSL_SESSION_has_ticket(session) == (k.ticket ? 1 : 0));
    o.resume = session;
    // Twice: a resumed connection's own end must not spoil the session either.
    for (int i = 0; i < 2; ++i) {
      TlsClient again(s.server.port(), s.inst.cert_path(), o);
      REQUIRE(again.connected());
      CHECK(again.reused());
      RequireKeepAlive(again);
    }
    SSL_SESSION_free(session);
  }
}

}  // namespace
}  // namespace hookinbox::testing
