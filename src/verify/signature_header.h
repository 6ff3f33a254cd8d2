// verify/signature_header.h — where the signature sits in a header value.
//
// Owns: turning `[endpoint.signature] format` into a SignatureFormat once, and
// pulling the candidate signatures (and a timestamp part) out of a received
// header value with it. Two shapes cover the generic scheme today:
//   template  "{signature}", "sha256={signature}", "Bearer {signature}":
//             a literal prefix and suffix around one signature;
//   list      "t={timestamp},v1={signature}" (key-value, Stripe-style; the
//             pairs may be separated by ';' instead, as Paddle's "ts={timestamp};h1={signature}") and
//             "v1={signature}," (a list of one key: the trailing separator
//             says so; Revolut) and
//             "v1,{signature}" (versioned entries separated by spaces,
//             Standard Webhooks): parts split on a separator, matched by key,
//             any order, any number of signature parts, unknown parts ignored;
//   positional "{timestamp},{signature}" (Recurly): the first comma-separated
//             part is the timestamp, every later one a signature.
// Separators are fields, not constants: a format's own separator (',' or ';')
// becomes pair_separator, and presets may fill the fields in directly.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hookinbox::verify {

struct SignatureFormat {
  enum class Kind { kTemplate, kList, kPositional };
  Kind kind = Kind::kTemplate;
  // kTemplate: the literal text around {signature}; matched ignoring ASCII case
  // because auth schemes are case-insensitive (RFC 9110 §11.1: "bearer" = "Bearer").
  std::string prefix;
  std::string suffix;
  // kList: the value is split on pair_separator; each part is key, kv_separator, value.
  // kPositional: split on pair_separator; the first part is the timestamp, the rest signatures.
  char pair_separator = ',';
  char kv_separator = '=';
  std::string signature_key;  // parts with this key are candidate signatures ("v1")
  std::string timestamp_key;  // the part with this key is the timestamp ("t"); empty = none
};

// `format` parsed. InvalidArgument naming the problem when it has no or several
// {signature}, an unknown placeholder, a {timestamp} outside a key-value list,
// or a list part that is not `key={signature}` / `key={timestamp}`.
Result<SignatureFormat> ParseSignatureFormat(std::string_view format);

// What a header value yields under a format. Views point into the header value.
struct SignatureHeader {
  std::vector<std::string_view> signatures;   // non-empty candidates, in header order
  std::optional<std::string_view> timestamp;  // the timestamp part, when the format has one
};

// Candidates in `value`. Unauthenticated("malformed signature") when the value
// does not fit the format or yields no non-empty signature, or a list repeats
// the timestamp key.
Result<SignatureHeader> ParseSignatureHeader(const SignatureFormat& format, std::string_view value);

// signature.encoding: "hex", "base64" or "base64url" (unpadded, RFC 4648 §5:
// Sanity). Reading, both base64 spellings accept either alphabet and missing
// padding (Base64Decode); writing (send-test) uses the one named.
bool KnownSignatureEncoding(std::string_view encoding);
bool Base64SignatureEncoding(std::string_view encoding);
std::string EncodeSignature(std::string_view encoding, std::string_view raw);

}  // namespace hookinbox::verify
