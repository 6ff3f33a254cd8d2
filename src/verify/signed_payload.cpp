// Signed-payload template expansion; see signed_payload.h.
#include "verify/signed_payload.h"

#include "verify/crypto.h"
#include "verify/signed_fields.h"

namespace hookinbox::verify {

namespace {

constexpr std::string_view kHeaderPrefix = "header:";
constexpr std::string_view kFieldPrefix = "field:";

// The value of placeholder `name` ("body", "timestamp", "id", "method", "url", "token"), or an error.
Result<std::string_view> Lookup(std::string_view name, const SignedParts& parts) {
  if (name == "body") return parts.body;
  std::optional<std::string_view> v;
  if (name == "timestamp")
    v = parts.timestamp;
  else if (name == "id")
    v = parts.id;
  else if (name == "method")
    v = parts.method;
  else if (name == "url")
    v = parts.url;
  else if (name == "token")
    v = parts.token;
  else if (name == "form_sorted_kv")
    v = parts.form_sorted_kv;
  else if (name == "webhook_id")
    v = parts.webhook_id;
  else if (name == "sorted_fields")
    v = parts.sorted_fields;
  else if (name == "access_key")
    v = parts.access_key;
  else if (name == "secret")
    v = parts.secret;
  else if (name.substr(0, kHeaderPrefix.size()) == kHeaderPrefix && name.size() > kHeaderPrefix.size())
    v = parts.headers != nullptr ? parts.headers->Get(name.substr(kHeaderPrefix.size())) : std::nullopt;
  else
    return InvalidArgument("signed_payload: unknown placeholder {" + std::string(name) + "}");
  if (!v) return InvalidArgument("signed_payload: no value for {" + std::string(name) + "}");
  return *v;
}

}  // namespace

bool TemplateUses(std::string_view tmpl, std::string_view placeholder) {
  return tmpl.find(placeholder) != std::string_view::npos;
}

std::vector<std::string_view> HeaderPlaceholders(std::string_view tmpl) {
  std::vector<std::string_view> out;
  const std::string open = "{" + std::string(kHeaderPrefix);
  for (size_t at = tmpl.find(open); at != std::string_view::npos; at = tmpl.find(open, at + 1)) {
    size_t close = tmpl.find('}', at);
    if (close == std::string_view::npos) break;
    out.push_back(tmpl.substr(at + open.size(), close - at - open.size()));
  }
  return out;
}

Result<std::string> ExpandSignedPayload(std::string_view tmpl, const SignedParts& parts) {
  std::string out;
  out.reserve(tmpl.size() + parts.body.size());
  while (!tmpl.empty()) {
    size_t open = tmpl.find('{');
    out.append(tmpl.substr(0, open));
    if (open == std::string_view::npos) break;
    size_t close = tmpl.find('}', open);
    if (close == std::string_view::npos) return InvalidArgument("signed_payload: unclosed '{'");
    std::string_view name = tmpl.substr(open + 1, close - open - 1);
    if (name == "crc32") {
      out.append(std::to_string(Crc32(parts.body)));  // computed, so not a SignedParts field
    } else if (name.substr(0, kFieldPrefix.size()) == kFieldPrefix) {
      if (parts.any_field) {
        tmpl.remove_prefix(close + 1);
        continue;
      }
      Result<std::string> field = FieldForSigning(parts.doc, name.substr(kFieldPrefix.size()));
      if (!field.ok()) return field.status();  // Unauthenticated: the delivery lacks what it signs
      out.append(*field);
    } else {
      Result<std::string_view> value = Lookup(name, parts);
      if (!value.ok()) return value.status();
      out.append(*value);
    }
    tmpl.remove_prefix(close + 1);
  }
  return out;
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool Listed(std::string_view escape, const std::vector<std::string>& escapes) {
  for (const std::string& e : escapes) {
    if (e.size() == 3 && e[0] == '%' && HexValue(e[1]) == HexValue(escape[1]) && HexValue(e[2]) == HexValue(escape[2]))
      return true;
  }
  return false;
}

}  // namespace

std::string DecodeEscapes(std::string_view url, const std::vector<std::string>& escapes) {
  std::string out;
  out.reserve(url.size());
  for (size_t i = 0; i < url.size(); ++i) {
    if (url[i] == '%' && i + 2 < url.size() && HexValue(url[i + 1]) >= 0 && HexValue(url[i + 2]) >= 0 &&
        Listed(url.substr(i, 3), escapes)) {
      out += static_cast<char>(HexValue(url[i + 1]) * 16 + HexValue(url[i + 2]));
      i += 2;
    } else {
      out += url[i];
    }
  }
  return out;
}

}  // namespace hookinbox::verify
