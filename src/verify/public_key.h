// verify/public_key.h — the asymmetric signature kinds over OpenSSL 3 EVP.
//
// Owns: reading the public keys of `[endpoint] public_key_env / public_key_file`
// in the form a provider's dashboard shows them, verifying a signature with
// one, and (for send-test only) signing with a PEM private key. No OpenSSL type
// crosses this header, so verify/'s other files and the tests never see one.
//
// Kinds and the key text each accepts (surrounding whitespace ignored):
//   ed25519           Discord: 64 hex digits (the raw 32-byte key); Telnyx:
//                     the same 32 bytes in base64; or a PEM "PUBLIC KEY" block
//                     holding an Ed25519 key.
//   ecdsa-p256-sha256 SendGrid: base64 of a DER SubjectPublicKeyInfo, or the
//                     same as a PEM "PUBLIC KEY" block, or (monobank) base64
//                     of that PEM block; the curve must be P-256.
//                     Signatures are ASN.1 DER (r, s), SHA-256.
//   rsa-sha256-cert   PayPal: a PEM "CERTIFICATE" whose key is RSA (pinned:
//                     hookinbox never fetches one); PKCS#1 v1.5 with SHA-256.
//   rsa-sha256        Wise: the RSA public key itself, as a PEM "PUBLIC KEY"
//                     block or base64 DER; PKCS#1 v1.5 with SHA-256.
//
// Parsing a key costs more than verifying with it under OpenSSL 3 (measured on
// 3.0: ~135 µs for DER, ~390 µs for PEM, against ~100 µs for a P-256 verify),
// so parsed keys are kept in a small process-wide cache keyed by kind and key
// text: the first use (CheckEndpoint at start-up) pays, every request after
// that does not. The cache holds only keys that parsed, is bounded, and is
// guarded by a mutex; a parsed key is used read-only, which OpenSSL allows
// from several threads at once. All functions are thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace hookinbox::verify {

enum class KeyKind { kEd25519, kEcdsaP256Sha256, kRsaSha256Cert, kRsaSha256 };

// The kind of `[endpoint.signature] scheme`, or nullopt for a scheme that is not asymmetric.
std::optional<KeyKind> AsymmetricKind(std::string_view scheme);

// The name a provider gives the kind's algorithm in an algorithm header
// (signature.algorithm_header): "Ed25519", "SHA256withECDSA", "SHA256withRSA" (PayPal's PAYPAL-AUTH-ALGO).
std::string_view AlgorithmName(KeyKind kind);

// What a key of this kind is called in messages: "an Ed25519 public key (64 hex digits)".
std::string DescribeKey(KeyKind kind);

// Ok when `key_text` is a usable public key of `kind` (and caches it);
// InvalidArgument saying what was expected otherwise. The message never
// contains the key text.
Status CheckPublicKey(KeyKind kind, std::string_view key_text);

// True when `signature` (raw bytes: 64 for Ed25519, DER for ECDSA, the RSA
// block for RSA) is a valid signature of `data` under the key `key_text`.
// False for a key that does not parse (CheckEndpoint refuses those at start).
bool VerifySignature(KeyKind kind, std::string_view key_text, std::string_view data, std::string_view signature);

// Signs `data` with a PEM private key of `kind` (PKCS#8 "PRIVATE KEY", or the
// traditional "EC PRIVATE KEY" / "RSA PRIVATE KEY"): the raw signature bytes.
// InvalidArgument when the PEM does not parse or holds another kind of key
// (never echoing the PEM). For send-test; nothing on the receive path signs.
Result<std::string> SignWithPrivateKey(KeyKind kind, std::string_view private_pem, std::string_view data);

}  // namespace hookinbox::verify
