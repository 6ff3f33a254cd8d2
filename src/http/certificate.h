// http/certificate.h — the certificate a TLS listener serves, validated, and
// swapped without dropping the listener (SIGHUP in `serve`).
//
// Design: one SSL_CTX per listener, written only before it listens. The
// certificate is not stored in the ctx: SSL_CTX_set_cert_cb installs the
// current pair into each connection's own SSL during its handshake, so a
// reload only swaps a shared_ptr under a mutex. Replacing the ctx's
// certificate in place would race with SSL_new on connection threads (the
// library's ctx mutex is private) and leave a window with the new
// certificate next to the old key; swapping the whole ctx per connection
// would lose the session cache and ticket keys at every reload.
// Open connections keep the certificate they were handshaken with.
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace hookinbox::http {

// A validated certificate chain and its key. Immutable once loaded, shared by
// the handshakes in flight; frees what it holds when the last owner lets go.
struct CertificatePair {
  CertificatePair() = default;
  CertificatePair(const CertificatePair&) = delete;
  CertificatePair& operator=(const CertificatePair&) = delete;
  ~CertificatePair();

  X509* leaf = nullptr;
  EVP_PKEY* key = nullptr;
  STACK_OF(X509)* chain = nullptr;  // the certificates after the leaf in the file; may be empty
  int64_t not_after_ms = 0;         // Unix ms
  std::string not_after;            // "2027-03-01T12:00:00Z"
  std::string sha256;               // lowercase hex SHA-256 of the leaf's DER: what clients pin and see
  // Usable, but worth telling someone: expires within 14 days, chain out of order.
  std::vector<std::string> warnings;
};

// How close to notAfter a pair is still accepted, with a warning.
inline constexpr int64_t kExpiryWarningMs = 14LL * 86400 * 1000;

// Loads PEM files and refuses what would fail clients. Errors (InvalidArgument)
// name the file and the reason: unreadable, not PEM / no certificate, no
// private key, key does not match the certificate, expired ("expired on
// <ISO time>"), not yet valid ("is not valid before <ISO time>"). Validity is
// judged against `clock`, not the system clock. `section` ("server", "admin")
// makes messages name the config keys ("server.tls_cert /etc/…/cert.pem …");
// empty names them "certificate …" and "key …". Never puts key bytes in a message.
Result<std::shared_ptr<const CertificatePair>> LoadCertificatePair(const std::string& cert_path,
                                                                   const std::string& key_path, const Clock& clock,
                                                                   std::string_view section = {});

// The pair a listener serves.
// Thread-safety: Load and Attach before the listener runs; the handshake
// callback on any connection thread; Reload and Current from any thread.
class ServingCertificate {
 public:
  // `clock` must outlive this object.
  ServingCertificate(std::string cert_path, std::string key_path, const Clock& clock, std::string section);
  ServingCertificate(const ServingCertificate&) = delete;
  ServingCertificate& operator=(const ServingCertificate&) = delete;

  // First load; a listener must not start when this fails.
  Status Load() { return Reload(); }
  // Validates the files again. On success new handshakes get the new pair;
  // on failure the current pair stays and the error says why.
  Status Reload();
  // The pair new handshakes get; nullptr before a successful Load().
  std::shared_ptr<const CertificatePair> Current() const;

  // Makes `ctx` take its certificate from this object at every handshake.
  // This object must outlive every connection made from `ctx`.
  void Attach(SSL_CTX* ctx);

 private:
  static int OnHandshake(SSL* ssl, void* self);

  // Constant after construction.
  const std::string cert_path_;
  const std::string key_path_;
  const Clock& clock_;
  const std::string section_;

  mutable std::mutex mu_;
  std::shared_ptr<const CertificatePair> current_;  // guarded by mu_
};

// The setup of a listener's ctx (SSLServer's setup callback): the options the
// library's path constructor set, TuneServerContext, and the certificate
// callback. Returns true (the library then keeps the ctx).
bool SetUpServerContext(SSL_CTX& ctx, ServingCertificate& certificate);

}  // namespace hookinbox::http
