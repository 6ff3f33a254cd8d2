// common/encoding.h — hex and base64, the byte encodings of secrets and signatures.
//
// Shared by config/ (decoding secrets with signature.secret_encoding) and
// verify/ (decoding received signatures), so both accept exactly the same
// text. Pure functions, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hookinbox {

// Lowercase hex of `raw` (two characters per byte).
std::string HexEncode(std::string_view raw);

// The bytes `hex` encodes; upper and lower case accepted. nullopt for an odd
// length or a non-hex character. "" decodes to "".
std::optional<std::string> HexDecode(std::string_view hex);

// Standard base64 (RFC 4648 §4) with '=' padding.
std::string Base64Encode(std::string_view raw);

// URL-safe base64 (RFC 4648 §5: '-' and '_'), without padding (Sanity's signatures).
std::string Base64UrlEncode(std::string_view raw);

// The bytes `text` encodes. Accepts the standard and the URL-safe alphabet
// (RFC 4648 §5) and missing padding, because providers send both. Rejects
// anything else: whitespace, misplaced or excess '=', an impossible length, or
// non-zero leftover bits (a non-canonical encoding).
std::optional<std::string> Base64Decode(std::string_view text);

// RFC 3986 percent-encoding: unreserved characters (ALPHA, DIGIT, "-", ".",
// "_", "~") stay, every other byte becomes %XX with upper-case hex.
std::string PercentEncode(std::string_view text);

// Length of the UTF-8 sequence starting at s[i] (1 for an ASCII byte), or 0
// when none starts there: a stray continuation byte, an overlong form, a
// surrogate, above U+10FFFF, or cut short.
size_t Utf8SequenceLength(std::string_view s, size_t i);

// `s` with each byte that starts no valid UTF-8 sequence, and each NUL,
// replaced by U+FFFD: text PostgreSQL accepts (it refuses both), the same
// text wherever `s` already was valid UTF-8 without NULs.
std::string ToValidUtf8(std::string_view s);

}  // namespace hookinbox
