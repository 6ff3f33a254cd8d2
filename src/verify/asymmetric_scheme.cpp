// The asymmetric verifier kinds: scheme = ed25519 | ecdsa-p256-sha256 | rsa-sha256-cert | rsa-sha256.
//
// The provider signs with a private key only it holds; hookinbox holds the
// public keys of endpoint.public_keys (Discord, SendGrid, PayPal). The steps
// are the HMAC verifier's, with "verify with any public key" in place of "MAC
// with any secret": an optional algorithm header must name the scheme's
// algorithm; the signature header gives candidates through `format`; the
// timestamp (header, {timestamp} part or body pointer; s, ms or ISO-8601)
// is read as received; the signed bytes come from the same signed_payload
// expansion ({timestamp}{body} for Discord and SendGrid, PayPal's
// "{header:PAYPAL-TRANSMISSION-ID}|{timestamp}|{webhook_id}|{crc32}"); and the
// tolerance window is applied only after a signature verified, so "timestamp
// outside tolerance" is only ever said about authentic deliveries.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

#include "common/encoding.h"
#include "verify/json.h"
#include "verify/public_key.h"
#include "verify/schemes.h"
#include "verify/signature_header.h"
#include "verify/signed_payload.h"
#include "verify/text.h"
#include "verify/timestamp.h"

namespace hookinbox::verify {

namespace {

bool UsesTimestamp(const config::SignatureConfig& sig, const SignatureFormat& format) {
  return TemplateUses(sig.signed_payload, "{timestamp}") || !sig.timestamp_header.empty() ||
         !format.timestamp_key.empty() || !sig.timestamp_pointer.empty();
}

// The timestamp text as received, from the one configured source.
std::optional<std::string> FindTimestamp(const config::SignatureConfig& sig, const DeliveryView& d,
                                         const SignatureHeader& parsed) {
  if (!sig.timestamp_header.empty()) {
    auto v = d.headers.Get(sig.timestamp_header);
    return v ? std::optional(std::string(TrimSpaces(*v))) : std::nullopt;
  }
  if (!sig.timestamp_pointer.empty()) {
    ParsedBody own(d.body);
    const Result<nlohmann::json>& doc = (d.parsed != nullptr ? *d.parsed : own).Get();
    if (!doc.ok()) return std::nullopt;
    const nlohmann::json* v = FindPointer(*doc, sig.timestamp_pointer);
    if (v != nullptr && v->is_string()) return std::string(TrimSpaces(v->get_ref<const std::string&>()));
    if (v != nullptr && v->is_number_unsigned()) return std::to_string(v->get<uint64_t>());
    return std::nullopt;
  }
  return parsed.timestamp ? std::optional(std::string(*parsed.timestamp)) : std::nullopt;
}

// The timestamp in milliseconds since the epoch: decimal digits in seconds or
// milliseconds, or an RFC 3339 date-time (timestamp_unit = "iso8601").
std::optional<int64_t> TimestampMillis(std::string_view text, const std::string& unit) {
  if (unit == "iso8601") return ParseRfc3339Millis(text);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (unit == "ms") return v;
  if (v > INT64_MAX / 1000) return std::nullopt;
  return v * 1000;
}

// Tolerance 0 disables the window. In seconds the comparison is in whole
// seconds, as the providers compute it; otherwise to the millisecond.
bool WithinTolerance(int64_t ts_ms, const std::string& unit, int64_t now_ms, int64_t tolerance_seconds) {
  if (tolerance_seconds <= 0) return true;
  const bool seconds = unit == "s";
  const int64_t ts = seconds ? ts_ms / 1000 : ts_ms;
  const int64_t now = seconds ? now_ms / 1000 : now_ms;
  const int64_t window = seconds ? tolerance_seconds : tolerance_seconds * 1000;
  // Both are within ±10^4 years of the epoch (ParseRfc3339Millis, or digits of a sane clock): no overflow.
  const int64_t diff = now - ts;
  return (diff < 0 ? -diff : diff) <= window;
}

// The bytes that were signed, or Unauthenticated naming the signed header a delivery lacks.
Result<std::string> SignedBytes(const config::EndpointConfig& e, const DeliveryView& d,
                                std::optional<std::string_view> ts) {
  const config::SignatureConfig& sig = e.signature;
  for (std::string_view name : HeaderPlaceholders(sig.signed_payload)) {
    auto v = d.headers.Get(name);
    if (!v || TrimSpaces(*v).empty()) return Unauthenticated("missing signed header " + std::string(name));
  }
  SignedParts parts{d.body, ts, std::nullopt, d.method, std::nullopt, std::nullopt};
  if (TemplateUses(sig.signed_payload, "{id}")) {
    if (e.key.id_header.empty()) return Internal("signed_payload uses {id} but key.id_header is not set");
    parts.id = d.headers.Get(e.key.id_header);
    if (!parts.id || parts.id->empty()) return Unauthenticated("missing signed id");
  }
  std::string url;
  if (TemplateUses(sig.signed_payload, "{url}")) {
    if (e.public_url.empty()) return Internal("signed_payload uses {url} but public_url is not set");
    url = d.query.empty() ? e.public_url : e.public_url + "?" + std::string(d.query);
    parts.url = url;
  }
  parts.headers = &d.headers;
  if (!sig.webhook_id.empty()) parts.webhook_id = sig.webhook_id;
  Result<std::string> payload = ExpandSignedPayload(sig.signed_payload, parts);
  if (!payload.ok()) return Internal(payload.status().message());
  return payload;
}

// A public-key verification costs ~100 µs (an HMAC ~1 µs), so a header
// listing thousands of candidates would let one request burn a core for a
// while. Providers send one signature, or a few while rotating keys.
constexpr size_t kMaxCandidates = 8;

// The received signatures as raw bytes, at most kMaxCandidates; undecodable candidates are dropped.
std::vector<std::string> DecodeCandidates(const std::vector<std::string_view>& candidates, bool base64) {
  std::vector<std::string> out;
  for (std::string_view c : candidates) {
    if (out.size() == kMaxCandidates) break;
    std::optional<std::string> raw = base64 ? Base64Decode(c) : HexDecode(c);
    if (raw && !raw->empty()) out.push_back(std::move(*raw));
  }
  return out;
}

bool AnyKeyVerifies(KeyKind kind, const std::vector<std::string>& keys, std::string_view payload,
                    const std::vector<std::string>& received) {
  for (const std::string& key : keys) {
    for (const std::string& signature : received) {
      if (VerifySignature(kind, key, payload, signature)) return true;
    }
  }
  return false;
}

}  // namespace

Status VerifyAsymmetric(const config::EndpointConfig& endpoint, const DeliveryView& d, int64_t now_ms) {
  const config::SignatureConfig& sig = endpoint.signature;
  std::optional<KeyKind> kind = AsymmetricKind(sig.scheme);
  if (!kind) return Internal("not an asymmetric signature scheme");
  if (endpoint.public_keys.empty()) return Internal("endpoint has no public key");
  if (!KnownSignatureEncoding(sig.encoding)) return Internal("unknown signature.encoding");
  const std::string& unit = sig.timestamp_unit;
  if (unit != "s" && unit != "ms" && unit != "iso8601") return Internal("unknown signature.timestamp_unit");
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return Internal(format.status().message());

  if (!sig.algorithm_header.empty()) {
    std::optional<std::string_view> algorithm = d.headers.Get(sig.algorithm_header);
    if (!algorithm || TrimSpaces(*algorithm).empty()) return Unauthenticated("missing signature algorithm");
    if (TrimSpaces(*algorithm) != AlgorithmName(*kind)) return Unauthenticated("unsupported signature algorithm");
  }
  std::optional<std::string_view> value = d.headers.Get(sig.header);
  if (!value || TrimSpaces(*value).empty()) return Unauthenticated("missing signature");
  Result<SignatureHeader> parsed = ParseSignatureHeader(*format, *value);
  if (!parsed.ok()) return parsed.status();

  const bool uses_ts = UsesTimestamp(sig, *format);
  std::optional<std::string> ts_text = uses_ts ? FindTimestamp(sig, d, *parsed) : std::nullopt;
  std::optional<int64_t> ts_ms = ts_text ? TimestampMillis(*ts_text, unit) : std::nullopt;
  if (uses_ts && !ts_ms) return Unauthenticated("missing or malformed timestamp");

  // The exact text received is what was signed, so it goes in unparsed.
  Result<std::string> payload = SignedBytes(endpoint, d, ts_text);
  if (!payload.ok()) return payload.status();
  std::vector<std::string> received = DecodeCandidates(parsed->signatures, Base64SignatureEncoding(sig.encoding));
  if (received.empty()) return Unauthenticated("malformed signature");
  if (!AnyKeyVerifies(*kind, endpoint.public_keys, *payload, received)) {
    return Unauthenticated("signature mismatch");
  }
  if (uses_ts && !WithinTolerance(*ts_ms, unit, now_ms, sig.tolerance_seconds)) {
    return Unauthenticated("timestamp outside tolerance");
  }
  return Status::Ok();
}

}  // namespace hookinbox::verify
