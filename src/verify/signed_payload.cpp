// Signed-payload template expansion; see signed_payload.h.
#include "verify/signed_payload.h"

namespace hookinbox::verify {

namespace {

// The value of placeholder `name` ("body", "timestamp", "id", "method", "url"), or an error.
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
  else
    return InvalidArgument("signed_payload: unknown placeholder {" + std::string(name) + "}");
  if (!v) return InvalidArgument("signed_payload: no value for {" + std::string(name) + "}");
  return *v;
}

}  // namespace

bool TemplateUses(std::string_view tmpl, std::string_view placeholder) {
  return tmpl.find(placeholder) != std::string_view::npos;
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
    Result<std::string_view> value = Lookup(tmpl.substr(open + 1, close - open - 1), parts);
    if (!value.ok()) return value.status();
    out.append(*value);
    tmpl.remove_prefix(close + 1);
  }
  return out;
}

}  // namespace hookinbox::verify
