// The generic HMAC verifier (scheme = "hmac").
//
// Steps: find the signature header and its candidates; read the timestamp
// (from timestamp_header, a {timestamp} part or the body at timestamp_pointer,
// in seconds or milliseconds per timestamp_unit); build the signed bytes from
// the raw body, the method and the configured public URL; MAC them with every active secret and compare each decoded
// candidate in constant time; only then apply the tolerance window. Checking
// the window after the MAC means "timestamp outside tolerance" is only ever
// said about authentic deliveries (a replay or a skewed clock), so it tells an
// attacker nothing.
#include <charconv>
#include <optional>
#include <string>

#include "verify/crypto.h"
#include "verify/json.h"
#include "verify/schemes.h"
#include "verify/signature_header.h"
#include "verify/signed_payload.h"
#include "verify/text.h"

namespace hookinbox::verify {

namespace {

constexpr std::string_view kTimestamp = "{timestamp}";

// A Unix time from a string of decimal digits only (no sign, no fraction).
std::optional<int64_t> ParseUnixTime(std::string_view s) {
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
  return TemplateUses(sig.signed_payload, kTimestamp) || !sig.timestamp_header.empty() ||
         !format.timestamp_key.empty() || !sig.timestamp_pointer.empty();
}

// The timestamp at `pointer` in a JSON body, as text: a non-negative integer
// or a string (checked for digits by the caller). The body is parsed here and
// again by Identify; only endpoints with timestamp_pointer pay for it.
std::optional<std::string> TimestampFromBody(std::string_view body, const std::string& pointer) {
  Result<nlohmann::json> doc = ParseJson(body);
  if (!doc.ok()) return std::nullopt;
  const nlohmann::json* v = FindPointer(*doc, pointer);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return std::string(TrimSpaces(v->get_ref<const std::string&>()));
  if (v->is_number_unsigned()) return std::to_string(v->get<uint64_t>());
  return std::nullopt;  // negative, fractional or not a number
}

// The timestamp as received (what a {timestamp} placeholder signs), from the one configured source.
std::optional<std::string> FindTimestamp(const config::SignatureConfig& sig, const DeliveryView& d,
                                         const SignatureHeader& parsed) {
  if (!sig.timestamp_header.empty()) {
    auto v = d.headers.Get(sig.timestamp_header);
    return v ? std::optional(std::string(TrimSpaces(*v))) : std::nullopt;
  }
  if (!sig.timestamp_pointer.empty()) return TimestampFromBody(d.body, sig.timestamp_pointer);
  return parsed.timestamp ? std::optional(std::string(*parsed.timestamp)) : std::nullopt;
}

// Tolerance 0 disables the window (providers.md, "tolerance_seconds"). In
// seconds the comparison is in whole seconds, as the providers compute it; in
// milliseconds (HubSpot, Linear, Zoho Payments) it is exact.
bool WithinTolerance(int64_t ts, bool in_ms, int64_t now_ms, int64_t tolerance_seconds) {
  if (tolerance_seconds <= 0) return true;
  const int64_t now = in_ms ? now_ms : now_ms / 1000;
  const int64_t window = in_ms ? tolerance_seconds * 1000 : tolerance_seconds;
  // ts is non-negative (digits only) and now is a real clock, so the difference cannot overflow.
  int64_t diff = now - ts;
  return (diff < 0 ? -diff : diff) <= window;
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

// {url}: the configured public URL, never the Host header, plus the received
// query when there is one (the provider signs the URL it called).
std::string SignedUrl(const config::EndpointConfig& e, const DeliveryView& d) {
  return d.query.empty() ? e.public_url : e.public_url + "?" + std::string(d.query);
}

// The bytes that were signed, or Unauthenticated/Internal explaining why not.
Result<std::string> SignedBytes(const config::EndpointConfig& e, const DeliveryView& d,
                                std::optional<std::string_view> ts) {
  const config::SignatureConfig& sig = e.signature;
  std::optional<std::string_view> id;
  if (TemplateUses(sig.signed_payload, "{id}")) {
    if (e.key.id_header.empty()) return Internal("signed_payload uses {id} but key.id_header is not set");
    id = d.headers.Get(e.key.id_header);
    if (!id || id->empty()) return Unauthenticated("missing signed id");
  }
  std::string url;
  if (TemplateUses(sig.signed_payload, "{url}")) {
    if (e.public_url.empty()) return Internal("signed_payload uses {url} but public_url is not set");
    url = SignedUrl(e, d);
  }
  Result<std::string> payload = ExpandSignedPayload(sig.signed_payload, {d.body, ts, id, d.method, url});
  if (!payload.ok()) return Internal(payload.status().message());
  return payload;
}

}  // namespace

Status VerifyHmac(const config::EndpointConfig& endpoint, const std::vector<Secret>& secrets, const DeliveryView& d,
                  int64_t now_ms) {
  const config::SignatureConfig& sig = endpoint.signature;
  std::optional<HashAlg> alg = ParseHashAlg(sig.algorithm);
  if (!alg) return Internal("unknown signature.algorithm");
  if (sig.encoding != "hex" && sig.encoding != "base64") return Internal("unknown signature.encoding");
  if (sig.timestamp_unit != "s" && sig.timestamp_unit != "ms") return Internal("unknown signature.timestamp_unit");
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return Internal(format.status().message());
  if (!HasUsableSecret(secrets)) return Internal("endpoint has no secret");

  std::optional<std::string_view> value = d.headers.Get(sig.header);
  if (!value || TrimSpaces(*value).empty()) return Unauthenticated("missing signature");
  Result<SignatureHeader> parsed = ParseSignatureHeader(*format, *value);
  if (!parsed.ok()) return parsed.status();

  const bool uses_ts = UsesTimestamp(sig, *format);
  std::optional<std::string> ts_text = uses_ts ? FindTimestamp(sig, d, *parsed) : std::nullopt;
  std::optional<int64_t> ts = ts_text ? ParseUnixTime(*ts_text) : std::nullopt;
  if (uses_ts && !ts) return Unauthenticated("missing or malformed timestamp");

  // The exact text received is what was signed, so it goes in unparsed.
  Result<std::string> payload = SignedBytes(endpoint, d, ts_text);
  if (!payload.ok()) return payload.status();
  std::vector<std::string> received = DecodeCandidates(parsed->signatures, sig.encoding == "base64");
  if (received.empty()) return Unauthenticated("malformed signature");
  if (!AnyMacMatches(*alg, secrets, *payload, received)) return Unauthenticated("signature mismatch");
  if (uses_ts && !WithinTolerance(*ts, sig.timestamp_unit == "ms", now_ms, sig.tolerance_seconds)) {
    return Unauthenticated("timestamp outside tolerance");
  }
  return Status::Ok();
}

}  // namespace hookinbox::verify
