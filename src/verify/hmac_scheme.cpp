// The generic HMAC verifier (scheme = "hmac").
//
// Steps: find the signature header and its candidates; read the timestamp
// (from timestamp_header or a {timestamp} part); build the signed bytes from
// the raw body; MAC them with every active secret and compare each decoded
// candidate in constant time; only then apply the tolerance window. Checking
// the window after the MAC means "timestamp outside tolerance" is only ever
// said about authentic deliveries (a replay or a skewed clock), so it tells an
// attacker nothing.
#include <charconv>
#include <optional>
#include <string>

#include "verify/crypto.h"
#include "verify/schemes.h"
#include "verify/signature_header.h"
#include "verify/signed_payload.h"
#include "verify/text.h"

namespace hookinbox::verify {

namespace {

constexpr std::string_view kTimestamp = "{timestamp}";

// Unix seconds from a string of decimal digits only (no sign, no fraction).
std::optional<int64_t> ParseUnixSeconds(std::string_view s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;  // overflow
  return v;
}

// Whether this configuration signs or carries a timestamp at all. If any
// source is configured the timestamp is required, so a sender cannot skip the
// replay window by leaving it out.
bool UsesTimestamp(const config::SignatureConfig& sig, const SignatureFormat& format) {
  return TemplateUses(sig.signed_payload, kTimestamp) || !sig.timestamp_header.empty() || !format.timestamp_key.empty();
}

std::optional<std::string_view> FindTimestamp(const config::SignatureConfig& sig, const HeaderView& headers,
                                              const SignatureHeader& parsed) {
  if (!sig.timestamp_header.empty()) {
    auto v = headers.Get(sig.timestamp_header);
    return v ? std::optional(TrimSpaces(*v)) : std::nullopt;
  }
  return parsed.timestamp;
}

// Tolerance 0 disables the window (providers.md, "tolerance_seconds").
bool WithinTolerance(int64_t ts, int64_t now_ms, int64_t tolerance_seconds) {
  if (tolerance_seconds <= 0) return true;
  int64_t diff = now_ms / 1000 - ts;
  return (diff < 0 ? -diff : diff) <= tolerance_seconds;
}

// The received signatures as raw bytes; undecodable candidates are dropped.
std::vector<std::string> DecodeCandidates(const std::vector<std::string_view>& candidates, bool base64) {
  std::vector<std::string> out;
  for (std::string_view c : candidates) {
    std::optional<std::string> raw = base64 ? Base64Decode(c) : HexDecode(c);
    if (raw && !raw->empty()) out.push_back(std::move(*raw));
  }
  return out;
}

bool AnyMacMatches(HashAlg alg, const std::vector<Secret>& secrets, std::string_view payload,
                   const std::vector<std::string>& received) {
  for (const Secret& secret : secrets) {
    if (secret.empty()) continue;
    std::string expected = Hmac(alg, secret.bytes(), payload);
    for (const std::string& r : received) {
      if (ConstantTimeEqual(expected, r)) return true;
    }
  }
  return false;
}

// The bytes that were signed, or Unauthenticated/Internal explaining why not.
Result<std::string> SignedBytes(const config::SignatureConfig& sig, std::string_view id_header, const DeliveryView& d,
                                std::optional<std::string_view> ts) {
  std::optional<std::string_view> id;
  if (TemplateUses(sig.signed_payload, "{id}")) {
    if (id_header.empty()) return Internal("signed_payload uses {id} but key.id_header is not set");
    id = d.headers.Get(id_header);
    if (!id || id->empty()) return Unauthenticated("missing signed id");
  }
  Result<std::string> payload = ExpandSignedPayload(sig.signed_payload, {d.body, ts, id});
  if (!payload.ok()) return Internal(payload.status().message());
  return payload;
}

}  // namespace

Status VerifyHmac(const config::SignatureConfig& sig, std::string_view id_header, const std::vector<Secret>& secrets,
                  const DeliveryView& d, int64_t now_ms) {
  std::optional<HashAlg> alg = ParseHashAlg(sig.algorithm);
  if (!alg) return Internal("unknown signature.algorithm");
  if (sig.encoding != "hex" && sig.encoding != "base64") return Internal("unknown signature.encoding");
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return Internal(format.status().message());
  if (!HasUsableSecret(secrets)) return Internal("endpoint has no secret");

  std::optional<std::string_view> value = d.headers.Get(sig.header);
  if (!value || TrimSpaces(*value).empty()) return Unauthenticated("missing signature");
  Result<SignatureHeader> parsed = ParseSignatureHeader(*format, *value);
  if (!parsed.ok()) return parsed.status();

  const bool uses_ts = UsesTimestamp(sig, *format);
  std::optional<std::string_view> ts_text = FindTimestamp(sig, d.headers, *parsed);
  std::optional<int64_t> ts = ts_text ? ParseUnixSeconds(*ts_text) : std::nullopt;
  if (uses_ts && !ts) return Unauthenticated("missing or malformed timestamp");

  // The exact text received is what was signed, so it goes in unparsed.
  Result<std::string> payload = SignedBytes(sig, id_header, d, uses_ts ? ts_text : std::nullopt);
  if (!payload.ok()) return payload.status();
  std::vector<std::string> received = DecodeCandidates(parsed->signatures, sig.encoding == "base64");
  if (received.empty()) return Unauthenticated("malformed signature");
  if (!AnyMacMatches(*alg, secrets, *payload, received)) return Unauthenticated("signature mismatch");
  if (uses_ts && !WithinTolerance(*ts, now_ms, sig.tolerance_seconds)) {
    return Unauthenticated("timestamp outside tolerance");
  }
  return Status::Ok();
}

}  // namespace hookinbox::verify
