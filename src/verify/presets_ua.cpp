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

}  // namespace

void AddUaPresets(std::vector<Preset>& t) {
  t.push_back({{"monobank"},
               Monobank(),
               "a public key, no secret: the \"key\" of GET https://api.monobank.ua/api/merchant/pubkey "
               "(header X-Token: your merchant token from web.monobank.ua → API), as returned"});
}

}  // namespace hookinbox::verify::presets
