// Signatures inside the delivery, over fields; see signed_fields.h.
#include "verify/signed_fields.h"

#include <algorithm>
#include <vector>

#include "verify/form.h"
#include "verify/json.h"
#include "verify/text.h"

namespace hookinbox::verify {

namespace {

using nlohmann::json;

// The (name, value) pairs at `source`, or Unauthenticated. A JSON object's
// members come in the parser's order; the caller sorts.
Result<std::vector<FormField>> FieldsAt(std::string_view source, std::string_view null_as, const FieldInputs& in) {
  if (source == "query") {
    Result<std::vector<FormField>> q = ParseUrlEncoded(in.query);
    if (!q.ok()) return Unauthenticated("malformed query");
    return q;
  }
  if (source == "form") {
    Result<std::vector<FormField>> f = ReadFormFields(in.body_kind, in.headers, in.body);
    if (!f.ok()) return Unauthenticated("malformed form body");
    return f;
  }
  constexpr std::string_view kJson = "json:";
  if (source.substr(0, kJson.size()) != kJson) return Internal("unknown field_join.source");
  const json* object = in.doc != nullptr ? FindPointer(*in.doc, source.substr(kJson.size())) : nullptr;
  if (object == nullptr || !object->is_object()) return Unauthenticated("missing signed fields");
  std::vector<FormField> out;
  for (const auto& [name, value] : object->items()) {
    // payOS writes nested arrays and objects as JSON; canonical text sorts their keys as it does.
    std::optional<std::string> text = SignedText(value, null_as);
    out.push_back({name, text ? std::move(*text) : CanonicalJson(value)});
  }
  return out;
}

bool Excluded(const config::FieldJoinConfig& join, const FormField& f) {
  if (f.name.rfind(join.include_prefix, 0) != 0) return true;
  if (std::find(join.exclude.begin(), join.exclude.end(), f.name) != join.exclude.end()) return true;
  return join.skip_empty && f.value.empty();
}

}  // namespace

std::optional<SignatureSource> ParseSignatureSource(std::string_view source) {
  const size_t colon = source.find(':');
  if (colon == std::string_view::npos || colon + 1 == source.size()) return std::nullopt;
  SignatureSource out{std::string(source.substr(0, colon)), std::string(source.substr(colon + 1))};
  if (out.kind != "json" && out.kind != "form" && out.kind != "query") return std::nullopt;
  if (out.kind == "json" && !IsValidJsonPointer(out.name)) return std::nullopt;
  return out;
}

Result<std::optional<std::string>> ReadSignatureSource(const SignatureSource& source, const FieldInputs& in) {
  if (source.kind == "json") {
    const json* v = in.doc != nullptr ? FindPointer(*in.doc, source.name) : nullptr;
    if (v == nullptr || !v->is_string()) return std::optional<std::string>();
    return std::optional(std::string(TrimSpaces(v->get_ref<const std::string&>())));
  }
  Result<std::vector<FormField>> fields = FieldsAt(source.kind, "", in);
  if (!fields.ok()) return fields.status();
  for (const FormField& f : *fields) {
    if (f.name == source.name) return std::optional(std::string(TrimSpaces(f.value)));
  }
  return std::optional<std::string>();
}

std::optional<std::string> SignedText(const json& v, std::string_view null_as) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return std::string(null_as);
  if (v.is_boolean()) return std::string(v.get<bool>() ? "true" : "false");
  if (v.is_number()) return v.dump();  // integers exactly; see the header for fractions
  return std::nullopt;
}

Result<std::string> FieldForSigning(const json* doc, std::string_view pointer) {
  const json* v = doc != nullptr ? FindPointer(*doc, pointer) : nullptr;
  std::optional<std::string> text = v != nullptr ? SignedText(*v) : std::nullopt;
  if (!text) return Unauthenticated("missing signed field");
  return std::move(*text);
}

std::string PhpUrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Result<std::string> SortedFieldsForSigning(const config::FieldJoinConfig& join, const FieldInputs& in) {
  Result<std::vector<FormField>> all = FieldsAt(join.source, join.null_as, in);
  if (!all.ok()) return all.status();
  std::vector<FormField> fields;
  for (FormField& f : *all) {
    if (!Excluded(join, f)) fields.push_back(std::move(f));
  }
  std::stable_sort(fields.begin(), fields.end(), [](const FormField& a, const FormField& b) { return a.name < b.name; });
  const bool php = join.value_encoding == "php-urlencode";
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += join.separator;
    if (!join.values_only) out += (php ? PhpUrlEncode(fields[i].name) : fields[i].name) + "=";
    out += php ? PhpUrlEncode(fields[i].value) : fields[i].value;
  }
  return out;
}

}  // namespace hookinbox::verify
