// The provider preset table: one row per provider, listed explicitly.
//
// No self-registration: every preset is a row below, so the set of supported
// providers is what this file says. Facts (headers, formats, algorithms,
// signed bytes, timestamps, ids, event types, volatile fields) come from
// /work/shared/providers.md; where it marks one unverified, the comment on
// the row says which documented or SDK behaviour was chosen. Only providers
// the generic verifier can express today (HMAC with the knobs of
// config::SignatureConfig, token, basic) have a row: batch bodies,
// handshakes, form bodies, signatures inside the body, asymmetric keys and
// ISO-8601 timestamps (Zendesk) need verifier work first.
#include "verify/registry.h"

// Rows are designated initializers that name only what a provider sets; every
// other field keeps the default config.h gives it, which is the point. GCC
// still flags members without an in-class initializer, so that warning is off
// for this file only.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hookinbox::verify {

namespace {

using config::EndpointConfig;
using config::KeyConfig;
using config::SignatureConfig;

struct Preset {
  std::vector<std::string> names;  // the first is the name, the rest are aliases
  EndpointConfig endpoint;
};

EndpointConfig Endpoint(SignatureConfig signature, KeyConfig key, std::vector<std::string> volatile_fields = {}) {
  EndpointConfig e;
  e.signature = std::move(signature);
  e.key = std::move(key);
  e.volatile_fields = std::move(volatile_fields);
  return e;  // content_types stays {"application/json"}: every provider here sends JSON
}

// Standard Webhooks and Svix differ only in the header prefix ("webhook-" / "svix-").
EndpointConfig StandardWebhooks(const std::string& prefix) {
  return Endpoint({.header = prefix + "signature",
                   .format = "v1,{signature}",  // space-separated "v1,<base64>" entries; v1a (Ed25519) is ignored
                   .encoding = "base64",
                   .secret_encoding = "base64",
                   .secret_prefix = "whsec_",
                   .signed_payload = "{id}.{timestamp}.{body}",
                   .timestamp_header = prefix + "timestamp"},
                  {.id_header = prefix + "id", .event_type_pointer = "/type"});
}

std::vector<Preset> BuildTable() {
  std::vector<Preset> t;
  // Stripe: the secret is used as written, "whsec_" included; v0 parts are skipped.
  t.push_back({{"stripe"},
               Endpoint({.header = "Stripe-Signature",
                         .format = "t={timestamp},v1={signature}",
                         .signed_payload = "{timestamp}.{body}"},
                        {.id_pointer = "/id", .event_type_pointer = "/type"})});
  // GitHub: a delivery GUID is shared by every hook subscribed to the event,
  // so the key is hook id + delivery id (SPEC §9). No timestamp is signed.
  t.push_back({{"github"},
               Endpoint({.header = "X-Hub-Signature-256", .format = "sha256={signature}"},
                        {.fields = {"header:X-GitHub-Hook-ID", "header:X-GitHub-Delivery"},
                         .event_type_header = "X-GitHub-Event"})});
  // GitLab classic secret token, sent in clear; Idempotency-Key needs GitLab 17.4+.
  t.push_back({{"gitlab"},
               Endpoint({.scheme = "token", .header = "X-Gitlab-Token"},
                        {.id_header = "Idempotency-Key", .event_type_header = "X-Gitlab-Event"})});
  // Bitbucket Cloud: whether X-Request-UUID survives a retry is unverified, so
  // the key is the safer X-Hook-UUID + X-Request-UUID that providers.md recommends.
  t.push_back({{"bitbucket"},
               Endpoint({.header = "X-Hub-Signature", .format = "sha256={signature}"},
                        {.fields = {"header:X-Hook-UUID", "header:X-Request-UUID"},
                         .event_type_header = "X-Event-Key"})});
  // Shopify: the prefixed header spellings; the unprefixed variants (~ in
  // providers.md) need a header override. Key on the webhook id, reused on retries.
  t.push_back({{"shopify"},
               Endpoint({.header = "X-Shopify-Hmac-Sha256", .encoding = "base64"},
                        {.id_header = "X-Shopify-Webhook-Id", .event_type_header = "X-Shopify-Topic"})});
  // Slack Events API. Guide: reject beyond 5 minutes either way (chosen over
  // Bolt's past-only check). The event type is the inner /event/type.
  t.push_back({{"slack"},
               Endpoint({.header = "X-Slack-Signature",
                         .format = "v0={signature}",
                         .signed_payload = "v0:{timestamp}:{body}",
                         .timestamp_header = "X-Slack-Request-Timestamp"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/event/type"})});
  t.push_back({{"standard-webhooks", "standardwebhooks"}, StandardWebhooks("webhook-")});
  // Svix's own deliveries, and Clerk and Resend, which send through Svix.
  t.push_back({{"svix", "clerk", "resend"}, StandardWebhooks("svix-")});
  // Typeform: base64 output despite the "sha256=" prefix. That /event_id is
  // unchanged on retries is assumed (providers.md ~); it is the only event id.
  t.push_back({{"typeform"},
               Endpoint({.header = "Typeform-Signature", .format = "sha256={signature}", .encoding = "base64"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/event_type"})});
  t.push_back({{"tally"},
               Endpoint({.header = "Tally-Signature", .encoding = "base64"},
                        {.id_pointer = "/eventId", .event_type_pointer = "/eventType"})});
  // Calendly has no event id: the key is event + invitee URI. Tolerance: the
  // commonly quoted 3 minutes (unverified, providers.md ~).
  t.push_back({{"calendly"},
               Endpoint({.header = "Calendly-Webhook-Signature",
                         .format = "t={timestamp},v1={signature}",
                         .signed_payload = "{timestamp}.{body}",
                         .tolerance_seconds = 180},
                        {.fields = {"/event", "/payload/uri"}, .event_type_pointer = "/event"})});
  // Intercom: HMAC-SHA1; /delivery_attempts grows on each attempt.
  t.push_back({{"intercom"},
               Endpoint({.header = "X-Hub-Signature", .format = "sha1={signature}", .algorithm = "sha1"},
                        {.id_pointer = "/id", .event_type_pointer = "/topic"}, {"/delivery_attempts"})});
  // Paddle: the SDK allows 5 s of age; 300 s is the practical window for a
  // receiver under load (providers.md). Every h1 part is tried (rotation).
  t.push_back({{"paddle"},
               Endpoint({.header = "Paddle-Signature",
                         .format = "ts={timestamp};h1={signature}",
                         .signed_payload = "{timestamp}:{body}"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/event_type"})});
  // Square signs the notification URL: the endpoint must set public_url
  // (config validation says so). The legacy SHA-1 header is not used.
  t.push_back({{"square"},
               Endpoint({.header = "x-square-hmacsha256-signature",
                         .encoding = "base64",
                         .signed_payload = "{url}{body}"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/type"})});
  // Linear: the timestamp is in the body (ms), checked with the SDK's 60 s;
  // it is set per send, so it is left out of the payload hash. Linear-Delivery
  // stability on retries is unverified; it is the only id Linear documents.
  t.push_back({{"linear"},
               Endpoint({.header = "Linear-Signature",
                         .timestamp_pointer = "/webhookTimestamp",
                         .timestamp_unit = "ms",
                         .tolerance_seconds = 60},
                        {.id_header = "Linear-Delivery", .event_type_header = "Linear-Event"},
                        {"/webhookTimestamp"})});
  // Sentry: Sentry-Hook-Timestamp is not signed, so it is not checked (a
  // window on it would only look like replay protection).
  t.push_back({{"sentry"},
               Endpoint({.header = "Sentry-Hook-Signature"},
                        {.id_header = "Request-ID", .event_type_header = "Sentry-Hook-Resource"})});
  // Vercel: HMAC-SHA1; /id stability on retries unverified.
  t.push_back({{"vercel"},
               Endpoint({.header = "x-vercel-signature", .algorithm = "sha1"},
                        {.id_pointer = "/id", .event_type_pointer = "/type"})});
  t.push_back({{"razorpay"},
               Endpoint({.header = "X-Razorpay-Signature"},
                        {.id_header = "x-razorpay-event-id", .event_type_pointer = "/event"})});
  // Zoho Payments: the header as the docs spell it (X-ZohoWebhook-Signature;
  // the other spelling needs a header override). The id and type field names
  // are unverified (providers.md ~): /event_id and /event_type are assumed.
  t.push_back({{"zoho-payments"},
               Endpoint({.header = "X-ZohoWebhook-Signature",
                         .format = "t={timestamp},v={signature}",
                         .signed_payload = "{timestamp}.{body}",
                         .timestamp_unit = "ms"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/event_type"})});
  for (Preset& p : t) p.endpoint.provider = p.names.front();
  return t;
}

const std::vector<Preset>& Table() {
  static const std::vector<Preset> table = BuildTable();
  return table;
}

}  // namespace

const config::EndpointConfig* FindPreset(std::string_view name) {
  for (const Preset& p : Table()) {
    for (const std::string& n : p.names) {
      if (n == name) return &p.endpoint;
    }
  }
  return nullptr;
}

std::vector<std::string> PresetNames() {
  std::vector<std::string> out;
  for (const Preset& p : Table()) out.insert(out.end(), p.names.begin(), p.names.end());
  return out;
}

}  // namespace hookinbox::verify
