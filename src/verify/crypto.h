// verify/crypto.h — hashing, HMAC and byte encodings over OpenSSL 3.
//
// Owns: the only calls into OpenSSL's digest and MAC APIs outside TLS, and the
// hex/base64 codecs every signature scheme needs. Used by verify/, and by the
// http layer and send-test to sign what they send. All functions are pure and
// thread-safe; digests and MACs are returned as raw bytes (encode them with
// HexEncode/Base64Encode where text is needed).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hookinbox::verify {

enum class HashAlg { kSha1, kSha256, kSha512 };

// "sha1" | "sha256" | "sha512" (lower case, as in the config), else nullopt.
std::optional<HashAlg> ParseHashAlg(std::string_view name);

// HMAC of `data` under `key` (any length, may be empty): 20, 32 or 64 raw bytes.
std::string Hmac(HashAlg alg, std::string_view key, std::string_view data);

// SHA-256 of `data`: 32 raw bytes.
std::string Sha256(std::string_view data);

// Lowercase hex of `raw` (two characters per byte).
std::string HexEncode(std::string_view raw);

// The bytes `hex` encodes; upper and lower case accepted. nullopt for an odd
// length or a non-hex character. "" decodes to "".
std::optional<std::string> HexDecode(std::string_view hex);

// Standard base64 (RFC 4648 §4) with '=' padding.
std::string Base64Encode(std::string_view raw);

// The bytes `text` encodes. Accepts the standard and the URL-safe alphabet
// (RFC 4648 §5) and missing padding, because providers send both. Rejects
// anything else: whitespace, misplaced or excess '=', an impossible length, or
// non-zero leftover bits (a non-canonical encoding).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace hookinbox::verify
