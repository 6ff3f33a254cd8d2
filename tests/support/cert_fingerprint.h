// tests/support/cert_fingerprint.h — a certificate's SHA-256 straight from
// OpenSSL, so tests that check which certificate is served (or loaded) do not
// agree with a bug in http/certificate's own fingerprint.
#pragma once

#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>
#include <string>

namespace hookinbox::testing {

// Lowercase hex SHA-256 of the certificate's DER.
inline std::string CertificateSha256Hex(X509* cert) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  REQUIRE(X509_digest(cert, EVP_sha256(), md, &len) == 1);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

// The same for the first certificate of a PEM file.
inline std::string CertificateFileSha256Hex(const std::string& cert_path) {
  FILE* f = std::fopen(cert_path.c_str(), "r");
  REQUIRE(f != nullptr);
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  REQUIRE(cert != nullptr);
  std::string sha = CertificateSha256Hex(cert);
  X509_free(cert);
  return sha;
}

}  // namespace hookinbox::testing
