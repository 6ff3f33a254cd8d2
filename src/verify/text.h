// verify/text.h — small byte-string helpers for header and id parsing.
//
// Owns: UTF-8 validation, trimming, splitting and ASCII case-insensitive
// prefix tests over string_views. Nothing here allocates except Split's vector;
// the views returned point into the caller's input.
#pragma once

#include <string_view>
#include <vector>

namespace hookinbox::verify {

// True when `s` is well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
bool IsValidUtf8(std::string_view s);

// True when `s` contains a C0 control character (< 0x20) or DEL (0x7f).
bool HasControlChars(std::string_view s);

// `s` without leading and trailing spaces and tabs (optional whitespace in HTTP).
std::string_view TrimSpaces(std::string_view s);

// The pieces of `s` between occurrences of `sep`, each trimmed; empty pieces are kept.
std::vector<std::string_view> SplitTrimmed(std::string_view s, char sep);

// ASCII case-insensitive prefix and suffix tests.
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);
bool EndsWithIgnoreCase(std::string_view s, std::string_view suffix);

}  // namespace hookinbox::verify
