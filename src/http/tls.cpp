#include "http/tls.h"

#include <fcntl.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

namespace hookinbox::http {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;

Status OpenSslError(const std::string& what) {
  unsigned long err = ERR_get_error();
  char buf[256] = {0};
  if (err != 0) ERR_error_string_n(err, buf, sizeof buf);
  return Internal(what + (err != 0 ? std::string(": ") + buf : ""));
}

bool AddExtension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

std::string SubjectAltNames(const SelfSignedOptions& o) {
  std::string san;
  for (const auto& d : o.dns_names) san += (san.empty() ? "" : ",") + std::string("DNS:") + d;
  for (const auto& ip : o.ip_addresses) san += (san.empty() ? "" : ",") + std::string("IP:") + ip;
  return san;
}

Result<CertPtr> MakeCertificate(EVP_PKEY* key, const SelfSignedOptions& o) {
  CertPtr cert(X509_new());
  if (!cert) return OpenSslError("X509_new");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), o.not_before_offset_seconds);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(o.valid_days) * 86400);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(o.common_name.c_str()),
                             -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  if (!AddExtension(cert.get(), NID_subject_alt_name, SubjectAltNames(o)) ||
      !AddExtension(cert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !AddExtension(cert.get(), NID_key_usage, "critical,digitalSignature") ||
      !AddExtension(cert.get(), NID_ext_key_usage, "serverAuth")) {
    return OpenSslError("certificate extensions");
  }
  if (X509_sign(cert.get(), key, EVP_sha256()) == 0) return OpenSslError("X509_sign");
  return cert;
}

// Opens `path` for writing with `mode` from the start (no window where a
// private key is readable by others), truncating an old file. O_NOFOLLOW: init
// runs as root in directories the service user owns, where a planted symlink
// must not redirect the write.
FILE* OpenWithMode(const std::string& path, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return nullptr;
  ::fchmod(fd, mode);
  return ::fdopen(fd, "w");
}

}  // namespace

Status WriteSelfSignedCertificate(const std::string& cert_path, const std::string& key_path,
                                  const SelfSignedOptions& options) {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("generate P-256 key");
  auto cert = MakeCertificate(key.get(), options);
  if (!cert.ok()) return cert.status();

  FILE* kf = OpenWithMode(key_path, 0600);
  if (kf == nullptr) return Unavailable("cannot write " + key_path);
  bool key_ok = PEM_write_PrivateKey(kf, key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1;
  key_ok = (std::fclose(kf) == 0) && key_ok;
  if (!key_ok) return Unavailable("cannot write " + key_path);

  FILE* cf = OpenWithMode(cert_path, 0644);
  if (cf == nullptr) return Unavailable("cannot write " + cert_path);
  bool cert_ok = PEM_write_X509(cf, cert->get()) == 1;
  cert_ok = (std::fclose(cf) == 0) && cert_ok;
  if (!cert_ok) return Unavailable("cannot write " + cert_path);
  return Status::Ok();
}

namespace {

// Resumption: a session stays usable this long (OpenSSL's default, stated):
// a provider reconnecting within it skips the certificate signature.
constexpr long kSessionLifetimeSeconds = 7200;
// Session-ID cache (TLS 1.2 clients without tickets; tickets need no server
// state). A resumed handshake adds no entry, so the few senders a receiver
// has fit many times over; the bound keeps RSS bounded (~1 KB an entry)
// where OpenSSL's default is 20,480.
constexpr long kSessionCacheEntries = 1024;
// TLS 1.3 tickets sent after each handshake: a sender that opens one
// connection per delivery spends one per reconnect and gets a fresh one
// each time. OpenSSL's default of 2 costs a second encryption and TLS
// record on every connection for a ticket such a sender never uses.
constexpr size_t kTls13Tickets = 1;
constexpr unsigned char kSessionIdContext[] = "hookinbox";
// TLS 1.2 suites, in preference order: ECDSA before RSA, AES-128-GCM (cheap
// with AES-NI), ChaCha20-Poly1305 (cheap without), then AES-256-GCM.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES256-GCM-SHA384";

// Marks the contexts TuneServerContext set up (KeepSessionOnFree's scope).
int TunedContextIndex() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// cpp-httplib 0.11.4 calls SSL_shutdown only when the connection ended
// cleanly on its side; a sender that closes first (the usual end of a
// keep-alive connection) is freed without our close_notify, and SSL_free
// then drops the session from the cache as "bad": TLS 1.2 session-ID
// resumption never worked. Since TLS 1.1 (RFC 5246 §7.2.1) an unclosed
// connection no longer forbids resuming its session, so the SSL is marked
// as closed here. OpenSSL runs ex_data free callbacks at the start of
// SSL_free, before it judges the session; fatal alerts still evict sessions
// themselves (ssl3_send_alert), and TLS 1.3 tickets never depend on this.
void KeepSessionOnFree(void* parent, void*, CRYPTO_EX_DATA*, int, long, void*) {
  SSL* ssl = static_cast<SSL*>(parent);
  if (ssl == nullptr || !SSL_is_server(ssl) || !SSL_is_init_finished(ssl)) return;
  if (SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), TunedContextIndex()) == nullptr) return;
  SSL_set_shutdown(ssl, SSL_get_shutdown(ssl) | SSL_SENT_SHUTDOWN);
}

// The callback runs for every SSL at its free, whether or not it holds data
// at this index; registering it once is enough.
void RegisterKeepSessionOnFree() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, &KeepSessionOnFree);
  (void)index;
}

}  // namespace

void TuneServerContext(SSL_CTX* ctx) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // TLS 1.2 only with forward secrecy (ECDHE) and AEAD: no static-RSA key
  // exchange, no finite-field DHE, no CBC (Lucky13-style padding oracles).
  // Both ECDSA and RSA certificates work. TLS 1.3's suites are all of that
  // kind already and are set apart (SSL_CTX_set_ciphersuites), untouched here.
  SSL_CTX_set_cipher_list(ctx, kTls12Ciphers);
  // IGNORE_UNEXPECTED_EOF: a sender that closes its socket without a TLS
  // close reads as a clean end, not a fatal error that evicts its TLS 1.2
  // session. Safe for HTTP/1.1: every request is delimited by its own
  // framing (Content-Length or chunks), never by the end of the stream.
  SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
  // X25519 first: the cheapest key exchange, and what clients send a key share for.
  SSL_CTX_set1_groups_list(ctx, "X25519:P-256:P-384");
  // Resumption, explicitly: stateless tickets (TLS 1.3, and TLS 1.2 clients
  // that offer the extension; keys made per context at start, so a restart
  // costs each sender one full handshake) and a bounded session-ID cache.
  SSL_CTX_set_session_id_context(ctx, kSessionIdContext, sizeof kSessionIdContext - 1);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
  SSL_CTX_sess_set_cache_size(ctx, kSessionCacheEntries);
  SSL_CTX_set_timeout(ctx, kSessionLifetimeSeconds);
  SSL_CTX_set_num_tickets(ctx, kTls13Tickets);
  SSL_CTX_set_ex_data(ctx, TunedContextIndex(), ctx);
  RegisterKeepSessionOnFree();
}

}  // namespace hookinbox::http
