// SignDelivery() and SampleBody(); see sign.h. Each step mirrors one in
// hmac_scheme.cpp / credential_schemes.cpp / identify.cpp, through the same
// parsers, so a change to how a format is read changes how it is written.
#include "verify/sign.h"

#include <optional>

#include "verify/crypto.h"
#include "verify/json.h"
#include "verify/signature_header.h"
#include "verify/signed_payload.h"

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
  return std::to_string(InUnit(sig, now_ms));
}

// The signature header value: `signature` placed as `format` says.
std::string FormatSignature(const SignatureFormat& f, std::string_view signature, std::string_view timestamp) {
  if (f.kind == SignatureFormat::Kind::kTemplate) return f.prefix + std::string(signature) + f.suffix;
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

Status SignHmac(const config::EndpointConfig& e, const Secret& secret, int64_t now_ms, std::string_view method,
                std::string_view url, const std::optional<std::string>& id, SignedDelivery& out) {
  const config::SignatureConfig& sig = e.signature;
  std::optional<HashAlg> alg = ParseHashAlg(sig.algorithm);
  if (!alg) return InvalidArgument("unknown signature.algorithm");
  if (sig.encoding != "hex" && sig.encoding != "base64") return InvalidArgument("unknown signature.encoding");
  Result<SignatureFormat> format = ParseSignatureFormat(sig.format);
  if (!format.ok()) return format.status();

  const std::string ts = TimestampText(sig, out.body, now_ms);
  if (!sig.timestamp_header.empty()) out.headers.emplace_back(sig.timestamp_header, ts);
  if (TemplateUses(sig.signed_payload, "{id}") && !id) {
    return InvalidArgument("signed_payload uses {id} but key.id_header is not set");
  }
  std::optional<std::string_view> id_view;
  if (id) id_view = *id;
  Result<std::string> payload = ExpandSignedPayload(sig.signed_payload, {out.body, ts, id_view, method, url});
  if (!payload.ok()) return payload.status();
  const std::string mac = Hmac(*alg, secret.bytes(), *payload);
  const std::string encoded = sig.encoding == "base64" ? Base64Encode(mac) : HexEncode(mac);
  out.headers.emplace_back(sig.header, FormatSignature(*format, encoded, ts));
  return Status::Ok();
}

}  // namespace

std::string SampleBody(const config::EndpointConfig& e, std::string_view event_type, int64_t now_ms) {
  json doc = json::object();
  const std::string suffix = RandomHex(12);
  SetAt(doc, e.key.id_pointer, "evt_test_" + suffix);
  int part = 0;
  for (const std::string& field : e.key.fields) {
    if (!IsHeaderField(field)) SetAt(doc, field, "test_" + std::to_string(++part) + "_" + suffix);
  }
  SetAt(doc, e.key.event_type_pointer, std::string(event_type));
  SetAt(doc, e.signature.timestamp_pointer, InUnit(e.signature, now_ms));
  if (!doc.contains("data")) doc["data"] = {{"hookinbox", "send-test"}, {"endpoint", e.name}};
  return doc.dump();
}

Result<SignedDelivery> SignDelivery(const config::EndpointConfig& e, const Secret& secret, std::string body,
                                    int64_t now_ms, std::string_view method, std::string_view url_for_signing,
                                    std::string_view event_type) {
  SignedDelivery out;
  out.body = std::move(body);
  out.headers.emplace_back("Content-Type",
                           e.content_types.empty() ? std::string("application/json") : e.content_types.front());
  std::optional<std::string> id = AddIdHeaders(e.key, out);
  if (!e.key.event_type_header.empty()) out.headers.emplace_back(e.key.event_type_header, std::string(event_type));

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
  } else if (sig.scheme != "none") {
    return InvalidArgument("unknown signature scheme");
  }
  return out;
}

}  // namespace hookinbox::verify
