// The generic HMAC verifier (scheme = "hmac").
//
// Steps: find the signature header and its candidates; read the timestamp
// (from timestamp_header, a {timestamp} part or the body at timestamp_pointer,
// in seconds, milliseconds or RFC 3339 per timestamp_unit); build the signed bytes from
// the raw body, the method and the configured public URL; MAC them with every active secret and compare each decoded
// candidate in constant time; only then apply the tolerance window. Checking
// the window after the MAC means "timestamp outside tolerance" is only ever
// said about authentic deliveries (a replay or a skewed clock), so it tells an
// attacker nothing.
#include <openssl/crypto.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include "verify/crypto.h"
#include "verify/form.h"
#include "verify/json.h"
#include "verify/schemes.h"
#include "verify/signature_header.h"
#include "verify/signed_fields.h"
#include "verify/signed_payload.h"
#include "verify/text.h"
#include "verify/timestamp.h"

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

// Fields of a JSON body that the signature check reads (timestamp_pointer,
// token_pointer, signature_pointer). The body is parsed at most once here, on
// first use (shared with Identify through DeliveryView::parsed); only
// endpoints with such pointers pay for it.
class BodyFields {
 public:
  // `shared` (may be null): the delivery's one parse, used instead of a parse of its own.
  BodyFields(std::string_view body, ParsedBody* shared) : own_(body), shared_(shared) {}

  // The value at `pointer` as text: a string (trimmed) or, unless
  // `strings_only`, a non-negative integer; nullopt when the body is not JSON,
  // the value is absent, negative, fractional or of another type.
  std::optional<std::string> Text(const std::string& pointer, bool strings_only = false) {
    const Result<nlohmann::json>& doc = (shared_ != nullptr ? *shared_ : own_).Get();
    if (!doc.ok()) return std::nullopt;
    const nlohmann::json* v = FindPointer(*doc, pointer);
    if (v == nullptr) return std::nullopt;
    if (v->is_string()) return std::string(TrimSpaces(v->get_ref<const std::string&>()));
    if (v->is_number_unsigned() && !strings_only) return std::to_string(v->get<uint64_t>());
    return std::nullopt;
  }

  // The body's JSON document, or nullptr when the body is not JSON.
  const nlohmann::json* Doc() {
    const Result<nlohmann::json>& doc = (shared_ != nullptr ? *shared_ : own_).Get();
    return doc.ok() ? &*doc : nullptr;
  }

 private:
  ParsedBody own_;
  ParsedBody* shared_;
};

// The timestamp as received (what a {timestamp} placeholder signs), from the one configured source.
std::optional<std::string> FindTimestamp(const config::SignatureConfig& sig, const DeliveryView& d,
                                         const SignatureHeader& parsed, BodyFields& fields) {
  if (!sig.timestamp_header.empty()) {
    auto v = d.headers.Get(sig.timestamp_header);
    return v ? std::optional(std::string(TrimSpaces(*v))) : std::nullopt;
  }
  if (!sig.timestamp_pointer.empty()) return fields.Text(sig.timestamp_pointer);
  return parsed.timestamp ? std::optional(std::string(*parsed.timestamp)) : std::nullopt;
}

// The received timestamp as a number: seconds for unit "s", milliseconds for
// "ms" and "iso8601" (RFC 3339 text, e.g. Zendesk's "2026-11-30T17:00:00Z").
std::optional<int64_t> ParseTimestamp(std::string_view text, const std::string& unit) {
  return unit == "iso8601" ? ParseRfc3339Millis(text) : ParseUnixTime(text);
}

// Tolerance 0 disables the window (providers.md, "tolerance_seconds"). In
// seconds the comparison is in whole seconds, as the providers compute it; in
// milliseconds (HubSpot, Linear, Zoho Payments, and RFC 3339 times) it is exact.
bool WithinTolerance(int64_t ts, bool in_ms, int64_t now_ms, int64_t tolerance_seconds) {
  if (tolerance_seconds <= 0) return true;
  const int64_t now = in_ms ? now_ms : now_ms / 1000;
  const int64_t window = in_ms ? tolerance_seconds * 1000 : tolerance_seconds;
  // ts is non-negative (digits only) or an RFC 3339 time no earlier than year
  // 0000, and now is a real clock, so the difference cannot overflow.
  int64_t diff = now - ts;
  return (diff < 0 ? -diff : diff) <= window;
}

// The received signatures as raw bytes; undecodable candidates are dropped.
// A hex candidate may carry the algorithm as a label ("sha256=<hex>", which
// Mollie may send; providers.md): `label` ("sha256=") is dropped first. Hex
// never contains '=', so this only turns a malformed value into a checked one.
std::vector<std::string> DecodeCandidates(const std::vector<std::string_view>& candidates, bool base64,
                                          std::string_view label) {
  std::vector<std::string> out;
  for (std::string_view c : candidates) {
    if (!base64 && StartsWithIgnoreCase(c, label)) c.remove_prefix(label.size());
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
// signature.url_decode names percent-escapes the provider decodes before
// signing (HubSpot v3); they are decoded here the same way.
// `public_url` is endpoint.public_url or one of its DefaultPortVariants.
std::string SignedUrl(const config::EndpointConfig& e, std::string_view public_url, const DeliveryView& d) {
  std::string url(public_url);
  if (!d.query.empty()) url += "?" + std::string(d.query);
  return e.signature.url_decode.empty() ? url : DecodeEscapes(url, e.signature.url_decode);
}

// The bytes that were signed, or Unauthenticated/Internal explaining why not.
// `secret` is what {secret} stands for: set only for a "<hash>-digest" algorithm.
Result<std::string> SignedBytes(const config::EndpointConfig& e, const DeliveryView& d,
                                std::optional<std::string_view> ts, BodyFields& fields, std::string_view public_url,
                                std::optional<std::string_view> secret) {
  const config::SignatureConfig& sig = e.signature;
  if (!secret && TemplateUses(sig.signed_payload, "{secret}")) {
    return Internal("signed_payload uses {secret}, which only a \"<hash>-digest\" algorithm signs");
  }
  std::optional<std::string_view> id;
  if (TemplateUses(sig.signed_payload, "{id}")) {
    if (e.key.id_header.empty()) return Internal("signed_payload uses {id} but key.id_header is not set");
    id = d.headers.Get(e.key.id_header);
    if (!id || id->empty()) return Unauthenticated("missing signed id");
  }
  std::string url;
  if (TemplateUses(sig.signed_payload, "{url}")) {
    if (e.public_url.empty()) return Internal("signed_payload uses {url} but public_url is not set");
    url = SignedUrl(e, public_url, d);
  }
  std::string form_kv;
  if (TemplateUses(sig.signed_payload, "{form_sorted_kv}")) {
    Result<std::string> kv = FormKvForSigning(sig.body_kind, d.headers, d.body, d.query);
    if (!kv.ok()) return kv.status();
    form_kv = std::move(kv).value();
  }
  std::optional<std::string> token;
  if (TemplateUses(sig.signed_payload, "{token}")) {
    if (sig.token_pointer.empty()) return Internal("signed_payload uses {token} but signature.token_pointer is not set");
    token = fields.Text(sig.token_pointer, /*strings_only=*/true);
    if (!token || token->empty()) return Unauthenticated("missing signed token");
  }
  std::optional<std::string_view> token_view;
  if (token) token_view = *token;
  const bool uses_fields = TemplateUses(sig.signed_payload, "{field:");
  const bool uses_join = TemplateUses(sig.signed_payload, "{sorted_fields}");
  const bool join_json = sig.field_join.source.rfind("json:", 0) == 0;
  const FieldInputs in{sig.body_kind, d.headers, d.body, d.query,
                       uses_fields || (uses_join && join_json) ? fields.Doc() : nullptr};
  std::string joined;
  if (uses_join) {
    Result<std::string> j = SortedFieldsForSigning(sig.field_join, in);
    if (!j.ok()) return j.status();
    joined = std::move(j).value();
  }
  SignedParts parts{d.body, ts, id, d.method, url, token_view};
  parts.form_sorted_kv = form_kv;
  parts.sorted_fields = joined;
  parts.access_key = sig.access_key;
  parts.secret = secret;
  parts.doc = in.doc;
  Result<std::string> payload = ExpandSignedPayload(sig.signed_payload, parts);
  // A signed field the delivery lacks is its fault (Unauthenticated); anything else is the config's.
  if (!payload.ok() && payload.status().code() != Code::kUnauthenticated) return Internal(payload.status().message());
  return payload;
}

// Whether an active secret made one of `received` over the bytes built with
// `public_url`: an HMAC under the secret, or for a digest algorithm
// (`digest`) the plain hash of a payload that contains the secret ({secret}),
// built once per secret. A payload that cannot be built is the error.
Result<bool> AnySecretMatches(const config::EndpointConfig& e, const DeliveryView& d,
                              std::optional<std::string_view> ts, BodyFields& fields, std::string_view public_url,
                              HashAlg alg, bool digest, const std::vector<Secret>& secrets,
                              const std::vector<std::string>& received) {
  if (!digest) {
    Result<std::string> payload = SignedBytes(e, d, ts, fields, public_url, std::nullopt);
    if (!payload.ok()) return payload.status();
    return AnyMacMatches(alg, secrets, *payload, received);
  }
  for (const Secret& secret : secrets) {
    if (secret.empty()) continue;
    Result<std::string> payload = SignedBytes(e, d, ts, fields, public_url, secret.bytes());
    if (!payload.ok()) return payload.status();
    std::string expected = Digest(alg, *payload);
    OPENSSL_cleanse(payload->data(), payload->size());  // it holds the secret (a plain fill may be elided)
    for (const std::string& r : received) {
      if (ConstantTimeEqual(expected, r)) return true;
    }
  }
  return false;
}

}  // namespace

Status VerifyHmac(const config::EndpointConfig& endpoint, const std::vector<Secret>& secrets, const DeliveryView& d,
                  int64_t now_ms) {
  const config::SignatureConfig& sig = endpoint.signature;
  // "<hash>-digest": a plain hash over a payload containing {secret} (LiqPay, Fondy).
  const std::optional<HashAlg> digest_alg = ParseDigestAlg(sig.algorithm);
  const std::optional<HashAlg> alg = digest_alg ? digest_alg : ParseHashAlg(sig.algorithm);
  if (!alg) return Internal("unknown signature.algorithm");
  if (!KnownSignatureEncoding(sig.encoding)) return Internal("unknown signature.encoding");
  if (sig.timestamp_unit != "s" && sig.timestamp_unit != "ms" && sig.timestamp_unit != "iso8601") {
    return Internal("unknown signature.timestamp_unit");
  }
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return Internal(format.status().message());
  if (!HasUsableSecret(secrets)) return Internal("endpoint has no secret");

  // The signature is in a header, in the JSON body at signature_pointer
  // (Mailgun) or in the query (PandaDoc); each is read through the same format.
  BodyFields fields(d.body, d.parsed);
  std::optional<std::string> value;
  if (!sig.signature_pointer.empty()) {
    value = fields.Text(sig.signature_pointer, /*strings_only=*/true);
  } else if (!sig.signature_source.empty()) {
    // In a JSON field, a form field or a query parameter (VNPay, MoMo, ZaloPay).
    std::optional<SignatureSource> source = ParseSignatureSource(sig.signature_source);
    if (!source) return Internal("malformed signature.signature_source");
    const FieldInputs in{sig.body_kind, d.headers, d.body, d.query, source->kind == "json" ? fields.Doc() : nullptr};
    Result<std::optional<std::string>> read = ReadSignatureSource(*source, in);
    if (!read.ok()) return read.status();
    value = std::move(read).value();
  } else if (std::optional<std::string_view> h = d.headers.Get(sig.header)) {
    value = std::string(*h);
  }
  if (!value || TrimSpaces(*value).empty()) return Unauthenticated("missing signature");
  Result<SignatureHeader> parsed = ParseSignatureHeader(*format, *value);
  if (!parsed.ok()) return parsed.status();

  const bool uses_ts = UsesTimestamp(sig, *format);
  std::optional<std::string> ts_text = uses_ts ? FindTimestamp(sig, d, *parsed, fields) : std::nullopt;
  std::optional<int64_t> ts = ts_text ? ParseTimestamp(*ts_text, sig.timestamp_unit) : std::nullopt;
  if (uses_ts && !ts) return Unauthenticated("missing or malformed timestamp");

  // The exact text received is what was signed, so it goes in unparsed.
  std::vector<std::string> received =
      DecodeCandidates(parsed->signatures, Base64SignatureEncoding(sig.encoding), sig.algorithm + "=");
  const bool digest = digest_alg.has_value();
  Result<bool> first =
      AnySecretMatches(endpoint, d, ts_text, fields, endpoint.public_url, *alg, digest, secrets, received);
  if (!first.ok()) return first.status();
  if (received.empty()) return Unauthenticated("malformed signature");
  bool matched = *first;
  // The same URL with its default port spelled the other way (Twilio signs
  // either; twilio-node tries both). Only tried after a mismatch.
  if (!matched && TemplateUses(sig.signed_payload, "{url}")) {
    for (const std::string& url : DefaultPortVariants(endpoint.public_url)) {
      Result<bool> alt = AnySecretMatches(endpoint, d, ts_text, fields, url, *alg, digest, secrets, received);
      if (alt.ok() && *alt) matched = true;
    }
  }
  if (!matched) return Unauthenticated("signature mismatch");
  if (uses_ts && !WithinTolerance(*ts, sig.timestamp_unit != "s", now_ms, sig.tolerance_seconds)) {
    return Unauthenticated("timestamp outside tolerance");
  }
  return Status::Ok();
}

}  // namespace hookinbox::verify
