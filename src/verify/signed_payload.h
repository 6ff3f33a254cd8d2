// verify/signed_payload.h — the bytes a provider signs.
//
// Owns: expanding `[endpoint.signature] signed_payload` templates such as
// "{timestamp}.{body}" or "{id}.{timestamp}.{body}" into the exact bytes to
// MAC. {body} is always the raw body as received, never re-serialised.
// {method} is the request method and {url} the endpoint's configured public
// URL plus the received query (HubSpot v3, Square). Further placeholders
// ({form_sorted_kv}; {field:<pointer>}, {sorted_fields} and {access_key} for
// signatures inside the delivery) join here as presets need them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/headers.h"
#include "common/status.h"

namespace hookinbox::verify {

// The values placeholders stand for; nullopt = not available for this delivery.
struct SignedParts {
  std::string_view body;
  std::optional<std::string_view> timestamp;
  std::optional<std::string_view> id;
  std::optional<std::string_view> method;
  std::optional<std::string_view> url;
  std::optional<std::string_view> token = std::nullopt;  // {token}: a body field (Mailgun), signature.token_pointer
  // {form_sorted_kv}: the form fields sorted by name, name then value, no
  // separators (Twilio; verify/form.h FormSortedKv). Defaulted so positional
  // initialisers above need not spell it.
  std::optional<std::string_view> form_sorted_kv = std::nullopt;
  // {header:NAME}: the received header NAME (PayPal's PAYPAL-TRANSMISSION-ID);
  // nullptr = no headers, so {header:…} has no value.
  const HeaderView* headers = nullptr;
  // {webhook_id}: signature.webhook_id, a constant of the endpoint the provider signs (PayPal).
  std::optional<std::string_view> webhook_id = std::nullopt;
  // {crc32} needs no field: the CRC-32 of `body` as unsigned decimal (PayPal).
  // {sorted_fields}: signature.field_join applied (verify/signed_fields.h; VNPay, payOS).
  std::optional<std::string_view> sorted_fields = std::nullopt;
  // {access_key}: signature.access_key, a merchant constant the provider signs (MoMo).
  std::optional<std::string_view> access_key = std::nullopt;
  // {secret}: the secret being tried, for the "<hash>-digest" algorithms only
  // (LiqPay, Fondy hash it with the data). Never logged: an error names only the placeholder.
  std::optional<std::string_view> secret = std::nullopt;
  // {field:<pointer>}: the JSON value at the pointer in this document, as
  // text (signed_fields.h FieldForSigning); nullptr = the body is not JSON.
  const nlohmann::json* doc = nullptr;
  // For start-up checks (CheckEndpoint): every {field:…} stands for "".
  bool any_field = false;
};

// True when `tmpl` contains `placeholder` (e.g. "{timestamp}").
bool TemplateUses(std::string_view tmpl, std::string_view placeholder);

// The header names of the {header:NAME} placeholders in `tmpl`, in order
// (views into `tmpl`), so a verifier can say which header a delivery lacks.
std::vector<std::string_view> HeaderPlaceholders(std::string_view tmpl);

// `tmpl` with each placeholder replaced. InvalidArgument for an unknown
// placeholder, an unclosed '{', or a placeholder whose value is nullopt.
Result<std::string> ExpandSignedPayload(std::string_view tmpl, const SignedParts& parts);

// `url` with each percent-escape listed in `escapes` ("%3A", any case)
// replaced by its character, in one left-to-right pass (a decoded '%' never
// starts a new escape); other escapes stay as they are. For signature.url_decode.
std::string DecodeEscapes(std::string_view url, const std::vector<std::string>& escapes);

}  // namespace hookinbox::verify
