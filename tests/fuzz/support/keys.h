// tests/fuzz/support/keys.h — key pairs for the asymmetric schemes, made at
// start-up (never committed): Ed25519 (Discord: 64 hex digits), ECDSA P-256
// (SendGrid: base64 DER SubjectPublicKeyInfo) and RSA in a self-signed
// certificate (PayPal: PEM CERTIFICATE). Each gives the public text an
// endpoint's public_keys holds and the PEM private key SignDelivery signs with.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <string>

#include "common/encoding.h"
#include "verify/public_key.h"

namespace hookinbox::fuzz {

struct KeyPair {
  std::string public_text;  // as public_keys takes it
  std::string private_pem;  // PKCS#8
};

namespace keys_detail {

inline std::string BioText(BIO* bio) {
  char* p = nullptr;
  long n = BIO_get_mem_data(bio, &p);
  std::string out(p, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

inline std::string PrivatePem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  return BioText(bio);
}

inline std::string SelfSignedCertPem(EVP_PKEY* key) {
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -86400L * 365 * 10);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400L * 365 * 20);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("fuzz"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  X509_free(cert);
  return BioText(bio);
}

}  // namespace keys_detail

// A fresh pair of `kind`; empty texts if OpenSSL refuses (the caller checks).
inline KeyPair MakeKeyPair(verify::KeyKind kind) {
  using namespace keys_detail;
  EVP_PKEY* key = nullptr;
  switch (kind) {
    case verify::KeyKind::kEd25519: key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"); break;
    case verify::KeyKind::kEcdsaP256Sha256: key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"); break;
    case verify::KeyKind::kRsaSha256Cert:
    case verify::KeyKind::kRsaSha256: key = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048}); break;
  }
  if (key == nullptr) return {};
  KeyPair out;
  out.private_pem = PrivatePem(key);
  if (kind == verify::KeyKind::kEd25519) {
    unsigned char raw[32];
    size_t len = sizeof raw;
    EVP_PKEY_get_raw_public_key(key, raw, &len);
    out.public_text = HexEncode(std::string_view(reinterpret_cast<const char*>(raw), len));
  } else if (kind == verify::KeyKind::kEcdsaP256Sha256 || kind == verify::KeyKind::kRsaSha256) {
    unsigned char* der = nullptr;
    int len = i2d_PUBKEY(key, &der);
    out.public_text = Base64Encode(std::string_view(reinterpret_cast<const char*>(der), static_cast<size_t>(len)));
    OPENSSL_free(der);
  } else {
    out.public_text = SelfSignedCertPem(key);
  }
  EVP_PKEY_free(key);
  return out;
}

}  // namespace hookinbox::fuzz
