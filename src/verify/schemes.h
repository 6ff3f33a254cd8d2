// verify/schemes.h — one verifier per `[endpoint.signature] scheme` (internal).
//
// Owns: the split of Verify() into per-scheme functions, so verifier.cpp is
// only the dispatch table. Each has Verify()'s contract (verify.h): ok, or
// Unauthenticated with a reason that never contains a secret or signature;
// Internal for a configuration that validation should have refused.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/secret.h"
#include "common/status.h"
#include "config/config.h"
#include "verify/verify.h"

namespace hookinbox::verify {

// scheme = "hmac": the generic HMAC verifier (SPEC §9 "Generic HMAC"). Reads
// endpoint.signature, key.id_header (for {id}) and public_url (for {url});
// `secrets` are HMAC key bytes (config/ applied secret_prefix and secret_encoding).
Status VerifyHmac(const config::EndpointConfig& endpoint, const std::vector<Secret>& secrets,
                  const DeliveryView& delivery, int64_t now_ms);

// scheme = "token": the header, after `format`, equals one of the secrets.
Status VerifyToken(const config::SignatureConfig& sig, const std::vector<Secret>& secrets,
                   const DeliveryView& delivery);

// scheme = "basic": "Authorization: Basic base64(user:pass)"; each secret is "user:pass".
Status VerifyBasic(const std::vector<Secret>& secrets, const DeliveryView& delivery);

// scheme = ed25519 | ecdsa-p256-sha256 | rsa-sha256-cert | rsa-sha256: the signature
// verifies under one of endpoint.public_keys (verify/public_key.h says which
// key text each kind accepts), over signed_payload, within the tolerance.
// The endpoint's secrets are not used.
Status VerifyAsymmetric(const config::EndpointConfig& endpoint, const DeliveryView& delivery, int64_t now_ms);

// scheme = "adyen-hmac": every /notificationItems element's
// NotificationRequestItem carries its own base64 HMAC-SHA256 (of Adyen's
// eight-field string) in additionalData.hmacSignature; all must verify.
// `secrets` are HMAC key bytes (the hex key, decoded by config/).
Status VerifyAdyenHmac(const std::vector<Secret>& secrets, const DeliveryView& delivery);

// The string Adyen signs for one NotificationRequestItem (adyen_scheme.cpp),
// for send-test and the tests' documentation.
std::string AdyenSignedString(const nlohmann::json& item);

// True when some non-empty secret equals `presented`, compared in constant time
// over SHA-256 digests so neither content nor length leaks through timing.
bool MatchesAnySecret(std::string_view presented, const std::vector<Secret>& secrets);

// True when `secrets` holds at least one non-empty secret.
bool HasUsableSecret(const std::vector<Secret>& secrets);

}  // namespace hookinbox::verify
