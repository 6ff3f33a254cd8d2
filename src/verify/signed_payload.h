// verify/signed_payload.h — the bytes a provider signs.
//
// Owns: expanding `[endpoint.signature] signed_payload` templates such as
// "{timestamp}.{body}" or "{id}.{timestamp}.{body}" into the exact bytes to
// MAC. {body} is always the raw body as received, never re-serialised.
// {method} is the request method and {url} the endpoint's configured public
// URL plus the received query (HubSpot v3, Square). Further placeholders
// ({form_sorted_kv}) join here as presets need them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace hookinbox::verify {

// The values placeholders stand for; nullopt = not available for this delivery.
struct SignedParts {
  std::string_view body;
  std::optional<std::string_view> timestamp;
  std::optional<std::string_view> id;
  std::optional<std::string_view> method;
  std::optional<std::string_view> url;
};

// True when `tmpl` contains `placeholder` (e.g. "{timestamp}").
bool TemplateUses(std::string_view tmpl, std::string_view placeholder);

// `tmpl` with each placeholder replaced. InvalidArgument for an unknown
// placeholder, an unclosed '{', or a placeholder whose value is nullopt.
Result<std::string> ExpandSignedPayload(std::string_view tmpl, const SignedParts& parts);

}  // namespace hookinbox::verify
