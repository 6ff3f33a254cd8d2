// Identify(): the idempotency key, event type and payload hash of a delivery
// (SPEC §2, §9 "Hashing").
//
// The key comes from exactly one configured source, in SPEC §2 order: a
// header, a JSON Pointer, a composite of JSON Pointers and "header:<Name>"
// parts (GitHub's hook id + delivery id), or the canonical hash. With
// signature.body_kind form or multipart the body's fields stand in for the
// JSON document (verify/form.h), and hashes are of the raw bytes.
// A configured source that yields nothing valid is an error, never a reason to
// try the next source: silently switching sources would give one event two
// keys and break deduplication.
#include <optional>
#include <string>

#include "verify/crypto.h"
#include "verify/form.h"
#include "verify/identity.h"
#include "verify/json.h"
#include "verify/semantic_keys.h"
#include "verify/text.h"
#include "verify/verify.h"

namespace hookinbox::verify {

namespace {

using nlohmann::json;

// The id source is the canonical hash only when no earlier source is set.
bool IdFromHash(const config::KeyConfig& k) {
  return k.id_header.empty() && k.id_pointer.empty() && k.fields.empty() && k.canonical_hash;
}

bool HasKeySource(const config::KeyConfig& k) {
  return !k.id_header.empty() || !k.id_pointer.empty() || !k.fields.empty() || k.canonical_hash;
}

bool IsHeaderField(std::string_view field) { return field.rfind(config::kHeaderField, 0) == 0; }

// True when key.fields is set and every part is a header.
bool AllHeaderFields(const config::KeyConfig& k) {
  if (k.fields.empty()) return false;
  for (const std::string& f : k.fields) {
    if (!IsHeaderField(f)) return false;
  }
  return true;
}

// Whether identifying needs the body as JSON (anything but header ids and a header type).
bool NeedsJson(const config::KeyConfig& k) {
  return (k.id_header.empty() && !AllHeaderFields(k)) || !k.event_type_pointer.empty() ||
         !k.event_type_member_besides.empty();
}

// The name of the first top-level member other than `besides` (nlohmann keeps
// members sorted, so with Telegram's "exactly one" it is the only one), or "".
std::string MemberNameBesides(const json& doc, const std::string& besides) {
  if (!doc.is_object()) return "";
  for (const auto& [name, value] : doc.items()) {
    if (name != besides) return name;
  }
  return "";
}

// Rejects ids and types that would corrupt listings, logs or the unique key.
Status CheckText(std::string_view value, const std::string& what, size_t max_bytes) {
  if (value.size() > max_bytes) {
    return InvalidArgument(what + " longer than " + std::to_string(max_bytes) + " bytes");
  }
  if (!IsValidUtf8(value)) return InvalidArgument(what + " is not valid UTF-8");
  if (HasControlChars(value)) return InvalidArgument(what + " contains control characters");
  return Status::Ok();
}

// A scalar as key text: strings as-is, numbers and booleans canonically.
std::optional<std::string> ScalarText(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return CanonicalJson(v);
  return std::nullopt;
}

Result<std::string> IdFromPointer(const json& doc, const std::string& pointer) {
  const json* v = FindPointer(doc, pointer);
  if (v == nullptr) return InvalidArgument("event id missing (no value at " + pointer + ")");
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_integer()) return v->dump();
  return InvalidArgument("event id at " + pointer + " is not a string or an integer");
}

// The value at `pointer` in `doc`; a pointer "<outer>#<inner>" names the value
// at <inner> in the JSON text that is the string at <outer> (parsed into
// *inner), and "<outer>#base64/<inner>" the same when that string is the
// JSON's base64 (LiqPay's `data`). nullptr when absent, or the outer value is
// not a string holding such JSON.
const json* InnerJsonPart(const json& doc, const std::string& pointer, std::optional<json>* inner) {
  constexpr std::string_view kBase64 = "#base64/";
  size_t hash = pointer.find("#/");
  const bool base64 = hash == std::string::npos && (hash = pointer.find(kBase64)) != std::string::npos;
  if (hash == std::string::npos) return FindPointer(doc, pointer);
  const json* outer = FindPointer(doc, std::string_view(pointer).substr(0, hash));
  if (outer == nullptr || !outer->is_string()) return nullptr;
  std::optional<std::string> decoded;
  if (base64) {
    decoded = Base64Decode(outer->get_ref<const std::string&>());
    if (!decoded) return nullptr;
  }
  Result<json> parsed = ParseJson(base64 ? *decoded : outer->get_ref<const std::string&>());
  if (!parsed.ok()) return nullptr;
  *inner = std::move(parsed).value();
  return FindPointer(**inner, std::string_view(pointer).substr(hash + (base64 ? kBase64.size() - 1 : 1)));
}

// "form:Name" is the pointer "/Name" into the fields' object (one segment);
// "form:data#base64/payment_id" keeps its "#…" part for InnerJsonPart.
std::string FormPartPointer(std::string_view name) {
  const size_t hash = name.find('#');
  if (hash == std::string_view::npos) return FormFieldPointer(name);
  return FormFieldPointer(name.substr(0, hash)) + std::string(name.substr(hash));
}

// `doc` is null only when every part is a header (NeedsJson).
Result<std::string> IdFromFields(const json* doc, const HeaderView& headers, const std::vector<std::string>& parts) {
  std::string id;
  for (const std::string& part : parts) {
    if (IsHeaderField(part)) {
      const std::string name = part.substr(config::kHeaderField.size());
      std::optional<std::string_view> h = headers.Get(name);
      if (!h) return InvalidArgument("event id missing (no " + name + " header)");
      std::string_view text = TrimSpaces(*h);
      if (text.empty()) return InvalidArgument("key field header " + name + " is empty");
      if (!id.empty()) id += ':';
      id += text;
      continue;
    }
    const std::string pointer = part.rfind(config::kFormField, 0) == 0
                                    ? FormPartPointer(std::string_view(part).substr(config::kFormField.size()))
                                    : part;
    if (doc == nullptr) return InvalidArgument("body is not JSON; key field " + pointer + " needs JSON");
    // "/data#/app_trans_id": the string at /data is itself JSON (ZaloPay signs
    // it as text), and the part is the value at /app_trans_id inside it.
    std::optional<json> inner;
    const json* v = InnerJsonPart(*doc, pointer, &inner);
    if (v == nullptr) return InvalidArgument("event id missing (no value at key field " + pointer + ")");
    std::optional<std::string> text = ScalarText(*v);
    if (!text) return InvalidArgument("key field " + pointer + " is not a string, number or boolean");
    if (text->empty()) return InvalidArgument("key field " + pointer + " is empty");
    if (!id.empty()) id += ':';
    id += *text;
  }
  return id;
}

// The id from a header, pointer or fields; `doc` is null for non-JSON bodies.
Result<std::string> ExplicitId(const config::KeyConfig& k, const HeaderView& headers, const json* doc) {
  if (!k.id_header.empty()) {
    std::optional<std::string_view> v = headers.Get(k.id_header);
    if (!v) return InvalidArgument("event id missing (no " + k.id_header + " header)");
    return std::string(TrimSpaces(*v));
  }
  if (!k.id_pointer.empty()) return IdFromPointer(*doc, k.id_pointer);
  return IdFromFields(doc, headers, k.fields);
}

Result<std::string> EventType(const config::KeyConfig& k, const HeaderView& headers, const json* doc) {
  std::string type;
  if (!k.event_type_pointer.empty()) {
    std::optional<json> inner;  // "/data#base64/status": inside an encoded field (LiqPay)
    const json* v = InnerJsonPart(*doc, k.event_type_pointer, &inner);
    // An integer type is its decimal text: payment providers type their
    // notifications with a result code (MoMo resultCode 0, ZaloPay type 1).
    if (v != nullptr && !v->is_string() && !v->is_number_integer()) {
      return InvalidArgument("event type at " + k.event_type_pointer + " is not a string or an integer");
    }
    if (v != nullptr) type = v->is_string() ? v->get<std::string>() : v->dump();
  } else if (!k.event_type_header.empty()) {
    type = std::string(TrimSpaces(headers.Get(k.event_type_header).value_or("")));
  } else if (!k.event_type_member_besides.empty() && doc != nullptr) {
    type = MemberNameBesides(*doc, k.event_type_member_besides);
  }
  Status s = CheckText(type, "event type", kMaxEventTypeBytes);
  if (!s.ok()) return s;
  return type;
}

// Hex SHA-256 of the canonical JSON without volatile fields (edits *doc), or of
// the raw bytes when there is no JSON document.
std::string PayloadHash(const std::vector<std::string>& volatile_fields, std::string_view body, json* doc) {
  if (doc == nullptr) return HexEncode(Sha256(body));
  RemovePointers(*doc, volatile_fields);
  return HexEncode(Sha256(CanonicalJsonInPlace(doc)));
}

}  // namespace

Result<EventIdentity> Identify(const config::EndpointConfig& endpoint, const HeaderView& headers, std::string_view body,
                               bool is_json, ParsedBody* shared) {
  if (!HasKeySource(endpoint.key)) return InvalidArgument("endpoint has no key source");
  std::optional<json> doc;
  if (is_json) {
    Result<json> parsed = shared != nullptr ? shared->Take() : ParseJson(body);
    if (!parsed.ok()) return parsed.status();
    doc = std::move(parsed).value();
  } else if (IsFormBodyKind(endpoint.signature.body_kind)) {
    // Form fields become a flat JSON object, so "/MessageSid" names a field.
    // The payload hash stays over the raw bytes: volatile_fields are JSON-only.
    Result<std::vector<FormField>> fields = ReadFormFields(endpoint.signature.body_kind, headers, body);
    if (!fields.ok()) return fields.status();
    json form = FormFieldsAsJson(*fields);
    Result<EventIdentity> out = IdentifyParsed(endpoint, headers, body, &form);
    if (out.ok()) {
      out->payload_hash = HexEncode(Sha256(body));
      if (IdFromHash(endpoint.key)) out->event_id = "sha256:" + out->payload_hash;  // the hash of what was received
    }
    return out;
  } else if (NeedsJson(endpoint.key)) {
    return InvalidArgument("body is not JSON; the endpoint's key needs JSON");
  }
  return IdentifyParsed(endpoint, headers, body, doc ? &*doc : nullptr);
}

Result<EventIdentity> IdentifyParsed(const config::EndpointConfig& endpoint, const HeaderView& headers,
                                     std::string_view body, nlohmann::json* d) {
  const config::KeyConfig& key = endpoint.key;
  if (!HasKeySource(key)) return InvalidArgument("endpoint has no key source");
  if (d == nullptr && NeedsJson(key)) return InvalidArgument("body is not JSON; the endpoint's key needs JSON");

  EventIdentity out;
  Result<std::string> type = EventType(key, headers, d);
  if (!type.ok()) return type.status();
  out.event_type = std::move(type).value();
  if (!IdFromHash(key)) {
    Result<std::string> id = ExplicitId(key, headers, d);
    if (!id.ok()) return id.status();
    out.event_id = std::move(id).value();
  }
  if (Status s = AddSemanticKeys(endpoint, d, &out); !s.ok()) return s;
  out.payload_hash = PayloadHash(endpoint.volatile_fields, body, d);  // after the reads above: it edits *d
  if (IdFromHash(key)) out.event_id = "sha256:" + out.payload_hash;

  if (out.event_id.empty()) return InvalidArgument("event id missing");
  Status s = CheckText(out.event_id, "event id", kMaxEventIdBytes);
  if (!s.ok()) return s;
  return out;
}

}  // namespace hookinbox::verify
