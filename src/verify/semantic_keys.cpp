#include "verify/semantic_keys.h"

#include <charconv>

#include "common/digest.h"
#include "verify/json.h"
#include "verify/timestamp.h"

namespace hookinbox::verify {
namespace {

using nlohmann::json;

// A value's text for hashing: strings as they are (so "42" and 42 differ
// only by type marker), everything else in canonical JSON.
std::string ValueText(const json& v) { return v.is_string() ? "s:" + v.get<std::string>() : "j:" + CanonicalJson(v); }

// Length-prefixed parts under a versioned label: no two tuples share an encoding.
std::string Digest(std::string_view label, const std::vector<std::string>& parts) {
  std::string joined(label);
  for (const std::string& part : parts) joined += "\n" + std::to_string(part.size()) + ":" + part;
  return Sha256Hex(joined);
}

Status AddBusinessKey(const config::BusinessKeyConfig& b, const json& doc, EventIdentity* out) {
  const std::string operation = b.OperationFor(out->event_type);
  if (operation.empty()) return Status::Ok();  // this event type is no business action
  std::vector<std::string> parts = {operation};
  std::string hint = operation + "(";
  for (size_t i = 0; i < b.fields.size(); ++i) {
    const json* v = FindPointer(doc, b.fields[i]);
    if (v == nullptr || v->is_null() || (v->is_string() && v->get<std::string>().empty())) {
      return InvalidArgument("business key field " + b.fields[i] + " missing (operation " + operation + ")");
    }
    parts.push_back(ValueText(*v));
    hint += (i > 0 ? ", " : "") + b.fields[i];
  }
  out->business_key = Digest("hookinbox-business-key-v1", parts);
  out->business_key_hint = hint + ") #" + out->business_key.substr(0, 8);
  return Status::Ok();
}

Status AddOrdering(const config::OrderingConfig& o, const json& doc, EventIdentity* out) {
  const json* object = FindPointer(doc, o.object);
  if (object == nullptr || object->is_null()) return Status::Ok();  // not about an ordered object
  const json* version = FindPointer(doc, o.version);
  if (version == nullptr) return InvalidArgument("ordering version " + o.version + " missing");
  std::optional<int64_t> comparable = ComparableVersion(*version);
  if (!comparable) {
    return InvalidArgument("ordering version " + o.version +
                           " is not an integer in the signed 64-bit range, a Unix time or an RFC 3339 time");
  }
  out->object_key = Digest("hookinbox-object-v1", {ValueText(*object)});
  out->object_version = *comparable;
  return Status::Ok();
}

}  // namespace

std::optional<int64_t> ComparableVersion(const json& value) {
  // Unsigned first: nlohmann's is_number_integer() is true for unsigned
  // values too, and get<int64_t>() would wrap 2^64-1 to -1, an event that
  // sorts before every real one. Above INT64_MAX is refused, as the digit
  // string of the same value is (from_chars reports out of range).
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();  // negative: fits, as "-5" does
  if (!value.is_string()) return std::nullopt;
  const std::string& text = value.get_ref<const std::string&>();
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (!text.empty() && ec == std::errc() && end == text.data() + text.size()) return n;
  return ParseRfc3339Millis(text);
}

Status AddSemanticKeys(const config::EndpointConfig& endpoint, const json* doc, EventIdentity* out) {
  if (!endpoint.business_key.enabled() && !endpoint.ordering.enabled()) return Status::Ok();
  if (doc == nullptr) return InvalidArgument("body is not JSON; the endpoint's business_key or ordering needs JSON");
  if (endpoint.business_key.enabled()) {
    if (Status s = AddBusinessKey(endpoint.business_key, *doc, out); !s.ok()) return s;
  }
  if (endpoint.ordering.enabled()) return AddOrdering(endpoint.ordering, *doc, out);
  return Status::Ok();
}

}  // namespace hookinbox::verify
