// Wave 2, group "ua": Ukraine's payment providers (monobank acquiring,
// LiqPay, Fondy).
//
// monobank signs the raw body with the bank's ECDSA key (the SendGrid kind);
// LiqPay and Fondy sign with a plain hash over a string that contains the
// merchant's secret (signature.algorithm "<hash>-digest" with {secret} in
// signed_payload), and put the signature in the body. Facts and vectors:
// /work/shared/providers-wave2.md; the URLs read are on each row and in
// docs/providers.md. None of them documents a freshness window and each
// resends the same signed body on retries, so no row checks a timestamp.
#include "verify/preset_rows.h"

// Designated initializers name only what a provider sets (registry.cpp says why).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hookinbox::verify::presets {

using config::EndpointConfig;

namespace {

// monobank acquiring, invoice status webhook: POST JSON, header X-Sign =
// base64 of an ASN.1 DER ECDSA P-256 signature with SHA-256 over the raw
// body. The key is the bank's: GET /api/merchant/pubkey (X-Token) answers
// {"key": base64 of a PEM "PUBLIC KEY"}, which public_key_env takes as is.
// No event id: invoiceId + status + modifiedDate (one invoice moves through
// several statuses; a retry repeats the same modifiedDate). "Up to 3" retries
// until 200, no duration given, so no redelivery window. Docs:
// https://monobank.ua/api-docs/acquiring/dev/webhooks/get--api--merchant--pubkey and
// https://monobank.ua/api-docs/acquiring/instrumenty-rozrobky/webhooks/pryklady-veryfikatsii-pidpysu-webhook
// (official key/signature/body vector in the test). Unverified: whether the
// 3 attempts include the first; hookinbox never fetches the key (a rotated
// key must be pasted again).
EndpointConfig Monobank() {
  return Endpoint({.scheme = "ecdsa-p256-sha256", .header = "X-Sign", .encoding = "base64", .signed_payload = "{body}"},
                  {.fields = {"/invoiceId", "/status", "/modifiedDate"}, .event_type_pointer = "/status"});
}

// LiqPay API 3 server callback (server_url): a form POST with `data` (base64
// of the JSON notification) and `signature` = base64 of the raw SHA-1 of
// private_key + data + private_key, `data` exactly as received (no decode
// before hashing; the form value is URL-decoded once). Only `data` is
// signed: the join takes the form fields named data… (LiqPay sends only data
// and signature). An added "data2…" field joins the signed text: the split
// "data=A&data2=B" verifies when A+B is the signed data, but A is then a cut
// base64 JSON, which Identify refuses, so no other event gets through.
// Key payment_id + status, read inside the decoded `data`: one payment
// notifies per status (wait_accept → success → reversed). Answer: HTTP 200.
// Docs: https://www.liqpay.ua/en/doc/callback (and the uk/ru pages of
// liqpay.ua/documentation/api/callback), github.com/liqpay/sdk-php
// (str_to_sign). Unverified: the retry schedule; the vector in the test is
// self-computed (LiqPay's page uses placeholder keys).
EndpointConfig Liqpay() {
  return WithTypes(Endpoint({.algorithm = "sha1-digest",
                             .encoding = "base64",
                             .signed_payload = "{secret}{sorted_fields}{secret}",
                             .body_kind = "form",
                             .signature_source = "form:signature",
                             .field_join = {.source = "form",
                                            .include_prefix = "data",
                                            .exclude = {"signature"},
                                            .separator = "",
                                            .values_only = true}},
                            {.fields = {"form:data#base64/payment_id", "form:data#base64/status"},
                             .event_type_pointer = "/data#base64/status"}),
                   {"application/x-www-form-urlencoded"});
}

// Fondy (now Flitt), protocol 1.0 server callback (server_callback_url),
// JSON: `signature` = hex SHA-1 of the merchant's payment key, then "|" and
// the values of every other non-empty field sorted by name, joined with "|"
// (`signature` and `response_signature_string` left out). Every field is
// signed. Key order_id + order_status (a reversal is another callback);
// answer HTTP 200; retries after 2, 60, 300, 600, 3600 and 86400 s (≈25 h).
// Docs: https://docs.fondy.io/docs/callbacks (retries),
// https://docs.fondy.io/gateway/signatures and the official SDK
// github.com/cloudipsp/node-js-sdk (lib/util.js). Unverified: whether a
// merchant using form requests gets form callbacks (this row reads JSON);
// fractional amounts (Fondy sends minor units as integers).
EndpointConfig Fondy() {
  EndpointConfig e = Endpoint({.algorithm = "sha1-digest",
                               .signed_payload = "{secret}|{sorted_fields}",
                               .signature_source = "json:/signature",
                               .field_join = {.source = "json:",
                                              .exclude = {"signature", "response_signature_string"},
                                              .skip_empty = true,
                                              .separator = "|",
                                              .values_only = true}},
                              {.fields = {"/order_id", "/order_status"}, .event_type_pointer = "/order_status"});
  e.redelivery_window_hours = 26;
  return e;
}

}  // namespace

void AddUaPresets(std::vector<Preset>& t) {
  t.push_back({{"monobank"},
               Monobank(),
               "a public key, no secret: the \"key\" of GET https://api.monobank.ua/api/merchant/pubkey "
               "(header X-Token: your merchant token from web.monobank.ua → API), as returned"});
  t.push_back({{"liqpay"}, Liqpay(), "LiqPay → Settings (Налаштування) → API: the private_key"});
  t.push_back({{"fondy", "flitt"}, Fondy(), "Fondy/Flitt merchant portal → Merchant settings → payment key"});
}

}  // namespace hookinbox::verify::presets
