// One delivery case per preset, and the one check every preset test file runs
// on it (preset_case.cpp): load the preset with only provider + secret (+ what
// the provider requires), sign a delivery shaped like the provider's here with
// OpenSSL's HMAC() (never verify::Hmac), and require Verify + Identify to
// accept it with the provider's id and type, give the same key on a resend,
// and refuse a changed byte, another secret, a missing signature and a stale
// timestamp. Provider-specific checks stay in each provider's file.
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "support/openssl_hmac.h"

namespace hookinbox::verify::test {

inline constexpr int64_t kNow = 1767225600;  // 2026-01-01T00:00:00Z, in seconds
inline constexpr const char* kJson = "application/json";
inline constexpr const char* kForm = "application/x-www-form-urlencoded";

// Signatures as providers print them, computed by OpenSSL.
inline std::string HexSha256(std::string_view key, std::string_view data) {
  return HexEncode(hookinbox::testing::OpensslHmac(EVP_sha256(), key, data));
}
inline std::string HexSha1(std::string_view key, std::string_view data) {
  return HexEncode(hookinbox::testing::OpensslHmac(EVP_sha1(), key, data));
}
inline std::string B64Sha256(std::string_view key, std::string_view data) {
  return Base64Encode(hookinbox::testing::OpensslHmac(EVP_sha256(), key, data));
}
inline std::string B64Sha1(std::string_view key, std::string_view data) {
  return Base64Encode(hookinbox::testing::OpensslHmac(EVP_sha1(), key, data));
}
inline std::string Ts(int64_t ts) { return std::to_string(ts); }

// Rows are written positionally up to has_volatile; the rarer knobs after it
// are set on c.back(). Every member after event_type has a default member
// initializer, so rows may stop early without -Wmissing-field-initializers.
struct Case {
  std::string provider;
  std::string secret;        // as the provider's dashboard shows it
  std::string other_secret;  // a well-formed secret of another endpoint
  // A delivery of the event at `ts` (seconds); `attempt` changes only volatile fields.
  std::function<std::string(int64_t ts, int attempt)> body;
  // Every header of a delivery sent at `ts`, the signature computed from `secret`.
  std::function<Headers(const std::string& secret, const std::string& body, int64_t ts)> headers;
  std::string signature_header;
  std::string event_id;  // "" = the body's canonical hash (then its form and stability are checked)
  std::string event_type;
  bool body_signed = true;   // false for a token or Basic credentials: a changed body is not detectable
  bool timestamped = false;  // a signed timestamp with a tolerance window
  bool has_volatile = false;  // attempt 2 differs from attempt 1 only in fields the key ignores
  std::string content_type = kJson;
  std::string extra_toml = "";   // what the provider requires besides the secret (public_url …)
  int64_t stale_seconds = 3600;  // how old a delivery the stale check sends
  // Seconds between the first send and the resend; 0 where a resend repeats
  // the original's timestamp (Ecwid signs the event's own time).
  int64_t resend_after = 5;
};

// The whole common check of one case, as CHECKs (REQUIRE where the rest needs it).
void CheckPresetCase(const Case& c);

// What `hookinbox send-test` signs for `e` (verify/sign.cpp: the sample body of
// `event_type` at `now_ms`) must pass e's own Verify and Identify, with an id;
// `typed` also requires the event type back. Returns the delivery's headers and
// body for a file's own further checks.
struct SentSample {
  MapHeaders headers;
  std::string body;
};
SentSample CheckSendTestSample(const config::EndpointConfig& e, int64_t now_ms, const std::string& event_type,
                               bool typed);

}  // namespace hookinbox::verify::test
