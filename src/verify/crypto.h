// verify/crypto.h — hashing, HMAC and byte encodings over OpenSSL 3.
//
// Owns: the only calls into OpenSSL's digest and MAC APIs outside TLS (the
// hex/base64 codecs live in common/encoding.h, shared with config/). Used by verify/, and by the
// http layer and send-test to sign what they send. All functions are pure and
// thread-safe; digests and MACs are returned as raw bytes (encode them with
// HexEncode/Base64Encode where text is needed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/digest.h"    // Sha256
#include "common/encoding.h"  // HexEncode/HexDecode/Base64Encode/Base64Decode

namespace hookinbox::verify {

// kMd5 exists for providers that still sign with HMAC-MD5 (WayForPay); HMAC
// keeps MD5's collisions from forging a MAC, but no new scheme should pick it.
enum class HashAlg { kSha1, kSha256, kSha512, kMd5 };

// "sha1" | "sha256" | "sha512" | "md5" (lower case, as in the config), else nullopt.
std::optional<HashAlg> ParseHashAlg(std::string_view name);

// HMAC of `data` under `key` (any length, may be empty): 20, 32, 64 or 16 raw bytes.
std::string Hmac(HashAlg alg, std::string_view key, std::string_view data);

// A plain hash whose input contains the secret (signature.algorithm
// "<hash>-digest", e.g. LiqPay's sha1(key + data + key), Fondy's
// sha1(key|values)): "sha1-digest" | "sha256-digest" | "sha512-digest" |
// "md5-digest", else nullopt. Weaker than HMAC (length extension where the
// secret only leads), so only for providers that sign this way.
std::optional<HashAlg> ParseDigestAlg(std::string_view name);

// The raw hash of `data`: 20, 32, 64 or 16 bytes.
std::string Digest(HashAlg alg, std::string_view data);

// SHA-256 (common/digest.h), under the name the verifier has always used.
using ::hookinbox::Sha256;

// CRC-32 (IEEE 802.3, as zlib computes it) of `data`. Not a cryptographic
// hash: PayPal signs it in place of the body (signed_payload {crc32}).
uint32_t Crc32(std::string_view data);

}  // namespace hookinbox::verify
