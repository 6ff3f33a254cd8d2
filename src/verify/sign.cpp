// SignDelivery() and SampleBody(); see sign.h. Each step mirrors one in
// hmac_scheme.cpp / credential_schemes.cpp / identify.cpp, through the same
// parsers, so a change to how a format is read changes how it is written.
#include "verify/sign.h"

#include <optional>

#include "common/encoding.h"
#include "verify/crypto.h"
#include "verify/form.h"
#include "verify/json.h"
#include "verify/provider_sample.h"
#include "verify/public_key.h"
#include "verify/schemes.h"
#include "verify/signature_header.h"
#include "verify/signed_fields.h"
#include "verify/signed_payload.h"
#include "verify/timestamp.h"

namespace hookinbox::verify {

namespace {

using nlohmann::json;

bool IsHeaderField(std::string_view field) { return field.rfind(config::kHeaderField, 0) == 0; }

// "8-4-4-4-12" lowercase hex from 16 random bytes: the shape providers use for delivery ids.
std::string RandomUuid() {
  std::string hex = RandomHex(16);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

int64_t InUnit(const config::SignatureConfig& sig, int64_t now_ms) {
  return sig.timestamp_unit == "ms" ? now_ms : now_ms / 1000;
}

// The current time as the endpoint's timestamp_unit writes it: RFC 3339 text
// for "iso8601" (Zendesk), else the decimal number of seconds or milliseconds.
std::string NowText(const config::SignatureConfig& sig, int64_t now_ms) {
  return sig.timestamp_unit == "iso8601" ? FormatRfc3339Utc(now_ms / 1000) : std::to_string(InUnit(sig, now_ms));
}

// Sets `value` at `pointer`, creating objects on the way; a malformed pointer
// (config validation refuses those) is skipped rather than thrown.
void SetAt(json& doc, const std::string& pointer, json value) {
  if (pointer.empty() || !IsValidJsonPointer(pointer)) return;
  try {
    doc[json::json_pointer(pointer)] = std::move(value);
  } catch (const json::exception&) {
    // e.g. a pointer through a scalar set by an earlier part: leave it out.
  }
}

// The timestamp text that goes into the signature: from the body when the
// endpoint reads it there (as Verify will), else the current time.
std::string TimestampText(const config::SignatureConfig& sig, std::string_view body, int64_t now_ms) {
  if (!sig.timestamp_pointer.empty()) {
    if (Result<json> doc = ParseJson(body); doc.ok()) {
      if (const json* v = FindPointer(*doc, sig.timestamp_pointer); v != nullptr) {
        if (v->is_string()) return v->get<std::string>();
        if (v->is_number_unsigned()) return std::to_string(v->get<uint64_t>());
      }
    }
  }
  return NowText(sig, now_ms);
}

// The signature header value: `signature` placed as `format` says.
std::string FormatSignature(const SignatureFormat& f, std::string_view signature, std::string_view timestamp) {
  if (f.kind == SignatureFormat::Kind::kTemplate) return f.prefix + std::string(signature) + f.suffix;
  if (f.kind == SignatureFormat::Kind::kPositional) {
    return std::string(timestamp) + f.pair_separator + std::string(signature);
  }
  std::string out;
  if (!f.timestamp_key.empty()) out = f.timestamp_key + f.kv_separator + std::string(timestamp) + f.pair_separator;
  return out + f.signature_key + f.kv_separator + std::string(signature);
}

// Adds the id headers the key reads, each with a fresh id; returns the
// key.id_header value (for {id}), or nullopt.
std::optional<std::string> AddIdHeaders(const config::KeyConfig& key, SignedDelivery& out) {
  std::optional<std::string> id;
  if (!key.id_header.empty()) {
    id = RandomUuid();
    out.headers.emplace_back(key.id_header, *id);
  }
  for (const std::string& field : key.fields) {
    if (IsHeaderField(field)) out.headers.emplace_back(field.substr(config::kHeaderField.size()), RandomUuid());
  }
  return id;
}

// The body field {token} stands for (Mailgun's /signature/token), nullopt when
// signed_payload has no {token}. SampleBody puts one there; a caller's own body must have it.
Result<std::optional<std::string>> TokenFromBody(const config::SignatureConfig& sig, std::string_view body) {
  if (!TemplateUses(sig.signed_payload, "{token}")) return std::optional<std::string>();
  if (Result<json> doc = ParseJson(body); doc.ok()) {
    if (const json* v = FindPointer(*doc, sig.token_pointer); v != nullptr && v->is_string()) {
      return std::optional<std::string>(v->get<std::string>());
    }
  }
  return InvalidArgument("the body has no string at signature.token_pointer " + sig.token_pointer);
}

// Writes the signature into the JSON body at `pointer` (Mailgun's
// signature_pointer; MoMo's, ZaloPay's and payOS's signature_source "json:").
// The body is re-serialised, which is safe only because such a signature
// never covers {body} (config validation refuses that combination for
// signature_pointer; SignHmac refuses it for signature_source), and what it
// does cover is read back from the parsed values, which a dump keeps.
Status PutSignatureInBody(const std::string& pointer, const std::string& value, SignedDelivery& out) {
  Result<json> doc = ParseJson(out.body);
  if (!doc.ok()) {
    return InvalidArgument("the signature goes in the body at " + pointer + ", which needs a JSON object body");
  }
  SetAt(*doc, pointer, value);
  const json* placed = FindPointer(*doc, pointer);
  if (placed == nullptr || !placed->is_string()) return InvalidArgument("cannot place the signature at " + pointer);
  out.body = doc->dump();
  return Status::Ok();
}

// The signed fields of the delivery for {field:…}, {sorted_fields} and
// {access_key}, read by the verifier's own functions (signed_fields.h) from
// what will be sent: the body, and for a GET (VNPay) the body as the query.
// `doc` keeps the body's parse alive for `parts`. A body without the fields
// the signature covers is InvalidArgument: the caller's --body is wrong.
Status FillSignedFields(const config::SignatureConfig& sig, std::string_view method, const SignedDelivery& out,
                        std::optional<json>& doc, std::string& joined, SignedParts& parts) {
  const bool uses_fields = TemplateUses(sig.signed_payload, "{field:");
  const bool uses_join = TemplateUses(sig.signed_payload, "{sorted_fields}");
  if (!uses_fields && !uses_join) return Status::Ok();
  if (uses_fields || sig.field_join.source.rfind("json:", 0) == 0) {
    Result<json> parsed = ParseJson(out.body);
    if (!parsed.ok()) return InvalidArgument("the signature covers fields of a JSON body, and the body is not JSON");
    doc = std::move(parsed).value();
    parts.doc = &*doc;
  }
  MapHeaders sent;
  for (const auto& [name, value] : out.headers) sent.Set(name, value);
  const std::string_view query = method == "GET" ? std::string_view(out.body) : std::string_view(out.query);
  const FieldInputs in{sig.body_kind, sent, out.body, query, parts.doc};
  if (uses_join) {
    Result<std::string> j = SortedFieldsForSigning(sig.field_join, in);
    if (!j.ok()) {
      return InvalidArgument("the body lacks the fields the signature covers (" + j.status().message() + ")");
    }
    joined = std::move(j).value();
    parts.sorted_fields = joined;
  }
  return Status::Ok();
}

Status SignHmac(const config::EndpointConfig& e, const Secret& secret, int64_t now_ms, std::string_view method,
                std::string_view url, const std::optional<std::string>& id, SignedDelivery& out) {
  const config::SignatureConfig& sig = e.signature;
  // signature_source: the signature is a query parameter (PandaDoc), a JSON
  // field (MoMo, ZaloPay, payOS) or a form field (VNPay, whose form is the
  // GET's query). One placed in the body cannot also sign the body's bytes.
  std::optional<SignatureSource> source;
  if (!sig.signature_source.empty()) {
    source = ParseSignatureSource(sig.signature_source);
    if (!source) return InvalidArgument("malformed signature.signature_source");
    if (source->kind != "query" && TemplateUses(sig.signed_payload, "{body}")) {
      return InvalidArgument("the signature (signature_source = \"" + sig.signature_source +
                             "\") is placed in the body it signs ({body})");
    }
  }
  if (ParseDigestAlg(sig.algorithm)) {
    return InvalidArgument("send-test cannot sign this endpoint: signature.algorithm \"" + sig.algorithm +
                           "\" hashes the secret with the provider's own fields; use the provider's test delivery");
  }
  std::optional<HashAlg> alg = ParseHashAlg(sig.algorithm);
  if (!alg) return InvalidArgument("unknown signature.algorithm");
  if (!KnownSignatureEncoding(sig.encoding)) return InvalidArgument("unknown signature.encoding");
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return format.status();

  const std::string ts = TimestampText(sig, out.body, now_ms);
  if (!sig.timestamp_header.empty()) out.headers.emplace_back(sig.timestamp_header, ts);
  if (TemplateUses(sig.signed_payload, "{id}") && !id) {
    return InvalidArgument("signed_payload uses {id} but key.id_header is not set");
  }
  std::optional<std::string_view> id_view;
  if (id) id_view = *id;
  const std::string signed_url = sig.url_decode.empty() ? std::string(url) : DecodeEscapes(url, sig.url_decode);
  Result<std::optional<std::string>> token = TokenFromBody(sig, out.body);
  if (!token.ok()) return token.status();
  std::optional<std::string_view> token_view;
  if (*token) token_view = **token;
  std::string form_kv;
  if (TemplateUses(sig.signed_payload, "{form_sorted_kv}")) {
    MapHeaders sent;
    for (const auto& [name, value] : out.headers) sent.Set(name, value);
    Result<std::string> kv = FormKvForSigning(sig.body_kind, sent, out.body, "");
    if (!kv.ok()) return InvalidArgument("the body is not a " + sig.body_kind + " body");
    form_kv = std::move(kv).value();
  }
  SignedParts parts{out.body, ts, id_view, method, signed_url, token_view};
  parts.form_sorted_kv = form_kv;
  parts.access_key = sig.access_key;  // as the verifier sets it
  std::optional<json> doc;
  std::string joined;
  if (Status st = FillSignedFields(sig, method, out, doc, joined, parts); !st.ok()) return st;
  Result<std::string> payload = ExpandSignedPayload(sig.signed_payload, parts);
  if (!payload.ok()) {
    if (payload.status().code() != Code::kUnauthenticated) return payload.status();
    return InvalidArgument("the body lacks the fields the signature covers (" + payload.status().message() + ")");
  }
  const std::string mac = Hmac(*alg, secret.bytes(), *payload);
  const std::string encoded = EncodeSignature(sig.encoding, mac);
  const std::string value = FormatSignature(*format, encoded, ts);
  if (!sig.signature_pointer.empty()) return PutSignatureInBody(sig.signature_pointer, value, out);
  if (!source) {
    out.headers.emplace_back(sig.header, value);
  } else if (source->kind == "json") {
    return PutSignatureInBody(source->name, value, out);
  } else if (source->kind == "form") {
    out.body += (out.body.empty() ? "" : "&") + PercentEncode(source->name) + "=" + PercentEncode(value);
  } else {
    out.query = PercentEncode(source->name) + "=" + PercentEncode(value);
  }
  return Status::Ok();
}

// The asymmetric schemes (helper "asym"): `private_pem` is the PEM private
// key send-test was given (--private-key). Besides the signature, the headers
// the verifier reads are sent as the provider sends them: the timestamp, the
// algorithm name, and a fresh id for each {header:NAME} (PayPal's
// PAYPAL-TRANSMISSION-ID) that no other step has set.
Status SignAsymmetric(const config::EndpointConfig& e, KeyKind kind, const Secret& private_pem, int64_t now_ms,
                      std::string_view method, std::string_view url, const std::optional<std::string>& id,
                      SignedDelivery& out) {
  const config::SignatureConfig& sig = e.signature;
  if (!KnownSignatureEncoding(sig.encoding)) return InvalidArgument("unknown signature.encoding");
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return format.status();
  const std::string ts = TimestampText(sig, out.body, now_ms);
  if (!sig.timestamp_header.empty()) out.headers.emplace_back(sig.timestamp_header, ts);
  if (!sig.algorithm_header.empty()) out.headers.emplace_back(sig.algorithm_header, std::string(AlgorithmName(kind)));
  MapHeaders sent;
  for (const auto& [name, value] : out.headers) sent.Set(name, value);
  for (std::string_view name : HeaderPlaceholders(sig.signed_payload)) {
    if (sent.Get(name)) continue;
    out.headers.emplace_back(std::string(name), RandomUuid());
    sent.Set(std::string(name), out.headers.back().second);
  }
  if (TemplateUses(sig.signed_payload, "{id}") && !id) {
    return InvalidArgument("signed_payload uses {id} but key.id_header is not set");
  }
  SignedParts parts{out.body, ts, std::nullopt, method, url, std::nullopt};
  if (id) parts.id = *id;
  parts.headers = &sent;
  if (!sig.webhook_id.empty()) parts.webhook_id = sig.webhook_id;
  Result<std::string> payload = ExpandSignedPayload(sig.signed_payload, parts);
  if (!payload.ok()) return payload.status();
  Result<std::string> signature = SignWithPrivateKey(kind, private_pem.bytes(), *payload);
  if (!signature.ok()) return InvalidArgument("--private-key: " + signature.status().message());
  const std::string encoded = EncodeSignature(sig.encoding, *signature);
  out.headers.emplace_back(sig.header, FormatSignature(*format, encoded, ts));
  return Status::Ok();
}

// A batch sample (key.batch): two events in the array at key.batch_pointer,
// each with its own ids at the key's pointers (relative to the element) and
// `event_type`, so the split yields two distinct rows (HubSpot, Meta).
std::string BatchSampleBody(const config::EndpointConfig& e, std::string_view event_type) {
  json events = json::array();
  for (int n = 1; n <= 2; ++n) {
    json element = json::object();
    const std::string suffix = RandomHex(12);
    SetAt(element, e.key.id_pointer, "evt_test_" + suffix);
    int part = 0;
    for (const std::string& field : e.key.fields) {
      if (!IsHeaderField(field)) SetAt(element, field, "test_" + std::to_string(++part) + "_" + suffix);
    }
    SetAt(element, e.key.event_type_pointer, std::string(event_type));
    element["data"] = {{"hookinbox", "send-test"}, {"endpoint", e.name}, {"n", n}, {"nonce", suffix}};
    events.push_back(std::move(element));
  }
  if (e.key.batch_pointer.empty()) return events.dump();
  json doc = json::object();
  SetAt(doc, e.key.batch_pointer, std::move(events));
  return doc.dump();
}

}  // namespace

std::string SampleBody(const config::EndpointConfig& e, std::string_view event_type, int64_t now_ms) {
  // A signature over the provider's own fields needs the provider's own shape.
  if (!ProviderExample(e).empty()) return ProviderSample(e, event_type == kTestEventType ? "" : event_type);
  if (e.key.batch) return BatchSampleBody(e, event_type);
  if (IsFormBodyKind(e.signature.body_kind)) return SampleFormBody(e, event_type, "test_" + RandomHex(12));
  json doc = json::object();
  const std::string suffix = RandomHex(12);
  SetAt(doc, e.key.id_pointer, "evt_test_" + suffix);
  int part = 0;
  for (const std::string& field : e.key.fields) {
    if (!IsHeaderField(field)) SetAt(doc, field, "test_" + std::to_string(++part) + "_" + suffix);
  }
  SetAt(doc, e.key.event_type_pointer, std::string(event_type));
  // Telegram: the type is the name of the update's one other member.
  if (!e.key.event_type_member_besides.empty()) {
    doc[std::string(event_type)] = {{"hookinbox", "send-test"}, {"endpoint", e.name}};
  }
  if (e.signature.timestamp_unit == "iso8601") {
    SetAt(doc, e.signature.timestamp_pointer, NowText(e.signature, now_ms));
  } else {
    SetAt(doc, e.signature.timestamp_pointer, InUnit(e.signature, now_ms));
  }
  SetAt(doc, e.signature.token_pointer, RandomHex(25));  // Mailgun: a random 50-character token
  // No "data" beside Telegram's one member, or "data" would be read as the type.
  if (!doc.contains("data") && e.key.event_type_member_besides.empty()) {
    doc["data"] = {{"hookinbox", "send-test"}, {"endpoint", e.name}};
  }
  // A body keyed on its own hash must differ per run, or a second send-test is a duplicate.
  if (e.key.canonical_hash && doc["data"].is_object()) doc["data"]["nonce"] = suffix;
  if (e.handshake == "discord") {  // a webhook event (type 1), not the PING (type 0) the handshake answers
    doc["version"] = 1;
    doc["type"] = 1;
  }
  return doc.dump();
}

namespace {

// scheme = "adyen-hmac": each notification item gets its own signature in
// additionalData.hmacSignature (adyen_scheme.cpp says what is signed); the
// body is written again with them.
Status SignAdyen(const Secret& secret, SignedDelivery& out) {
  Result<json> doc = ParseJson(out.body);
  if (!doc.ok()) return InvalidArgument("adyen-hmac: the body is not JSON");
  json* items = doc->contains("notificationItems") ? &(*doc)["notificationItems"] : nullptr;
  if (items == nullptr || !items->is_array() || items->empty()) {
    return InvalidArgument("adyen-hmac: the body has no notificationItems to sign");
  }
  for (json& element : *items) {
    if (!element.is_object() || !element.contains("NotificationRequestItem")) {
      return InvalidArgument("adyen-hmac: a notification item has no NotificationRequestItem");
    }
    json& item = element["NotificationRequestItem"];
    item["additionalData"]["hmacSignature"] =
        Base64Encode(Hmac(HashAlg::kSha256, secret.bytes(), AdyenSignedString(item)));
  }
  out.body = doc->dump();
  return Status::Ok();
}

}  // namespace

Result<SignedDelivery> SignDelivery(const config::EndpointConfig& e, const Secret& secret, std::string body,
                                    int64_t now_ms, std::string_view method, std::string_view url_for_signing,
                                    std::string_view event_type) {
  SignedDelivery out;
  out.method = std::string(method);
  out.body = std::move(body);
  out.headers.emplace_back("Content-Type", FormContentType(e.content_types.empty() ? std::string("application/json")
                                                                                   : e.content_types.front(),
                                                           out.body));
  std::optional<std::string> id = AddIdHeaders(e.key, out);
  if (!e.key.event_type_header.empty()) out.headers.emplace_back(e.key.event_type_header, std::string(event_type));
  for (const auto& header : e.sample_headers) out.headers.push_back(header);

  const config::SignatureConfig& sig = e.signature;
  if (sig.scheme == "hmac") {
    if (Status st = SignHmac(e, secret, now_ms, method, url_for_signing, id, out); !st.ok()) return st;
  } else if (sig.scheme == "token") {
    Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
    if (!format.ok()) return format.status();
    if (format->kind != SignatureFormat::Kind::kTemplate) return InvalidArgument("token scheme needs a template format");
    out.headers.emplace_back(sig.header, FormatSignature(*format, secret.bytes(), ""));
  } else if (sig.scheme == "basic") {
    out.headers.emplace_back("Authorization", "Basic " + Base64Encode(secret.bytes()));
  } else if (sig.scheme == "adyen-hmac") {
    if (Status st = SignAdyen(secret, out); !st.ok()) return st;
  } else if (std::optional<KeyKind> kind = AsymmetricKind(sig.scheme)) {
    if (Status st = SignAsymmetric(e, *kind, secret, now_ms, method, url_for_signing, id, out); !st.ok()) return st;
  } else if (sig.scheme != "none") {
    return InvalidArgument("unknown signature scheme");
  }
  // A GET delivery (VNPay) carries its form in the query and has no body.
  if (out.method == "GET") {
    out.query = out.body + (out.query.empty() || out.body.empty() ? "" : "&") + out.query;
    out.body.clear();
    std::erase_if(out.headers, [](const auto& h) { return h.first == "Content-Type"; });
  }
  return out;
}

}  // namespace hookinbox::verify
