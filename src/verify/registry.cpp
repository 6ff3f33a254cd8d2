// The provider preset table: one row per provider, listed explicitly.
//
// No self-registration: every preset is a row below, so the set of supported
// providers is what this file says. Facts (headers, formats, algorithms,
// signed bytes, timestamps, ids, event types, volatile fields) come from
// /work/shared/providers.md; where it marks one unverified, the comment on
// the row says which documented or SDK behaviour was chosen. Each row is
// expressed with the generic knobs of config::SignatureConfig and KeyConfig
// (plus the handshake name); helpers' rows are grouped in marked blocks, and
// the second wave's groups are files of their own (presets_*.cpp).
#include "verify/registry.h"

#include "verify/preset_rows.h"

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
using presets::Endpoint;
using presets::Preset;
using presets::StandardWebhooks;
using presets::WithTypes;

// --- Form bodies, unsigned and Basic presets (helper "form"; docs/providers.md) ---

void AddFormPresets(std::vector<Preset>& t) {
  // Twilio: HMAC-SHA1 (base64) of the configured URL followed by the form
  // fields sorted by name (twilio-node getExpectedTwilioSignature); the
  // endpoint must set public_url. JSON bodies carry bodySHA256 in the query.
  // I-Twilio-Idempotency-Token is unverified (providers.md), so the key is the
  // resource SID + status of a messaging status callback; voice and incoming
  // SMS need a key override (docs/providers.md).
  t.push_back({{"twilio"},
               WithTypes(Endpoint({.header = "X-Twilio-Signature",
                                   .algorithm = "sha1",
                                   .encoding = "base64",
                                   .signed_payload = "{url}{form_sorted_kv}",
                                   .body_kind = "form"},
                                  {.fields = {"form:MessageSid", "form:MessageStatus"},
                                   .event_type_pointer = "/MessageStatus"}),
                         {"application/x-www-form-urlencoded", "application/json"}),
               "Console → Account Info → Auth Token"});
  // Jotform signs nothing: scheme "none", which config validation accepts
  // only with endpoint.insecure = true — the explicit opt-in.
  t.push_back({{"jotform"},
               WithTypes(Endpoint({.scheme = "none", .body_kind = "multipart"},
                                  {.fields = {"form:formID", "form:submissionID"}}),
                         {"multipart/form-data"}),
               "none: Jotform signs nothing (the endpoint needs insecure = true)"});
  // Mollie next-gen (JSON events). Classic webhooks (form "id=tr_…", unsigned)
  // name a resource, not an event, and are deliberately not keyed on.
  t.push_back({{"mollie"},
               Endpoint({.header = "X-Mollie-Signature"}, {.id_pointer = "/id", .event_type_pointer = "/type"}),
               "Dashboard → Developers → Webhooks → the webhook's shared secret"});
  // WooCommerce: no event id; hook id + topic + resource id + modification
  // time. The secret is HTML-entity decoded before use (wp_specialchars_decode).
  // The unsigned creation ping is a form body, answered by the handshake.
  EndpointConfig woo = WithTypes(Endpoint({.header = "X-WC-Webhook-Signature",
                                           .encoding = "base64",
                                           .secret_encoding = "html-entities"},
                                          {.fields = {"header:X-WC-Webhook-ID", "header:X-WC-Webhook-Topic", "/id",
                                                      "/date_modified_gmt"},
                                           .event_type_header = "X-WC-Webhook-Topic"}),
                                 {"application/json", "application/x-www-form-urlencoded"});
  woo.handshake = "woocommerce";
  t.push_back({{"woocommerce"}, std::move(woo),
               "WooCommerce → Settings → Advanced → Webhooks → the webhook's Secret, exactly as typed"});
  // Postmark: Basic credentials in the webhook URL; secret = "user:password".
  t.push_back({{"postmark"},
               Endpoint({.scheme = "basic"}, {.fields = {"/MessageID", "/RecordType"}, .event_type_pointer = "/RecordType"}),
               "user:password, the Basic credentials you put in the webhook URL (https://user:password@host/hooks/…)"});
  // Pipedrive webhooks v2: Basic auth; no delivery id, so the meta block's
  // webhook, entity, action and time. Attempt counters change per retry.
  t.push_back({{"pipedrive"},
               Endpoint({.scheme = "basic"},
                        {.fields = {"/meta/webhook_id", "/meta/entity_id", "/meta/action", "/meta/timestamp"},
                         .event_type_pointer = "/meta/entity"},
                        {"/meta/attempt", "/retry"}),
               "user:password, the HTTP auth user name and password of Settings → Tools and apps → Webhooks"});
}
// --- end of helper "form"'s block ---

// --- Presets that need the newer generic knobs (helper "b2"; docs/providers.md) ---
// HubSpot v3 decodes these percent-escapes in the request URI before signing
// (HubSpot "Validating requests"; the list as HubSpot-based verifiers apply it).
const std::vector<std::string> kHubSpotUrlDecode = {"%3A", "%2F", "%3F", "%40", "%21", "%24",
                                                    "%27", "%28", "%29", "%2A", "%2C", "%3B"};

void AddKnobPresets(std::vector<Preset>& t) {
  // Zendesk: the timestamp header is RFC 3339 ("2021-03-25T05:09:27Z" in
  // Zendesk's "Anatomy of a webhook request"). Keyed on the invocation id: it
  // is in every request, trigger webhooks included (their bodies are the
  // user's own and carry no /id), and Zendesk lists retries as attempts of one
  // invocation. Event webhooks' /type is the event type; absent for triggers.
  t.push_back({{"zendesk"},
               Endpoint({.header = "X-Zendesk-Webhook-Signature",
                         .encoding = "base64",
                         .signed_payload = "{timestamp}{body}",
                         .timestamp_header = "X-Zendesk-Webhook-Signature-Timestamp",
                         .timestamp_unit = "iso8601"},
                        {.id_header = "X-Zendesk-Webhook-Invocation-Id", .event_type_pointer = "/type"}),
               "Admin Center → Apps and integrations → Webhooks → the webhook → Reveal secret"});
  // Mailgun: the signature, its timestamp and token are inside the body and
  // sign only "{timestamp}{token}", not the event data (docs/providers.md
  // explains what that leaves open). /signature changes per attempt.
  t.push_back({{"mailgun"},
               Endpoint({.header = "",
                         .signed_payload = "{timestamp}{token}",
                         .timestamp_pointer = "/signature/timestamp",
                         .signature_pointer = "/signature/signature",
                         .token_pointer = "/signature/token"},
                        {.id_pointer = "/event-data/id", .event_type_pointer = "/event-data/event"},
                        {"/signature"}),
               "Settings → Webhooks → HTTP webhook signing key (not the API key)"});
  // Zoom: no event id; event + event_ts (ms) + object id, which meeting,
  // webinar, recording and user events carry. url_validation is answered by the handshake.
  EndpointConfig zoom = Endpoint({.header = "x-zm-signature",
                                  .format = "v0={signature}",
                                  .signed_payload = "v0:{timestamp}:{body}",
                                  .timestamp_header = "x-zm-request-timestamp"},
                                 {.fields = {"/event", "/event_ts", "/payload/object/id"}, .event_type_pointer = "/event"});
  zoom.handshake = "zoom";
  t.push_back({{"zoom"}, std::move(zoom), "App Marketplace → your app → Features → Secret Token (not the client secret)"});
  // HubSpot v3: a batch (the body is an array of events, each keyed on
  // subscriptionId:eventId); attemptNumber grows on each retry. The endpoint
  // must set public_url, since the URL is signed.
  t.push_back({{"hubspot"},
               Endpoint({.header = "X-HubSpot-Signature-v3",
                         .encoding = "base64",
                         .signed_payload = "{method}{url}{body}{timestamp}",
                         .timestamp_header = "X-HubSpot-Request-Timestamp",
                         .timestamp_unit = "ms",
                         .url_decode = kHubSpotUrlDecode},
                        {.fields = {"/subscriptionId", "/eventId"},
                         .event_type_pointer = "/subscriptionType",
                         .batch = true,
                         .batch_pointer = ""},
                        {"/attemptNumber"}),
               "Developer account → your app → Auth → Client secret"});
  // Meta (Facebook, Instagram, WhatsApp): entries carry no event id, so each
  // entry of /entry is keyed on its canonical hash; its type is the first
  // change's field. The GET subscription check is answered by the handshake.
  EndpointConfig meta = Endpoint({.header = "X-Hub-Signature-256", .format = "sha256={signature}"},
                                 {.canonical_hash = true,
                                  .event_type_pointer = "/changes/0/field",
                                  .batch = true,
                                  .batch_pointer = "/entry"});
  meta.handshake = "meta";
  t.push_back({{"meta", "facebook", "instagram", "whatsapp"}, std::move(meta),
               "Meta for Developers → your app → App settings → Basic → App Secret"});
}
// --- end of helper "b2"'s block ---

// --- Asymmetric presets: Discord, SendGrid, PayPal (helper "asym"; docs/providers.md) ---
void AddAsymmetricPresets(std::vector<Preset>& t) {
  // Discord webhook events (not interactions, see kRefused): Ed25519 over
  // timestamp + body with the application's public key (hex). The envelope
  // {version, application_id, type, event: {type, timestamp, data}} carries no
  // event id, so the key is the canonical hash of the body; /type 0 is the
  // PING, answered by the handshake. Tolerance: Discord states none; 300 s.
  EndpointConfig discord = Endpoint({.scheme = "ed25519",
                                     .header = "X-Signature-Ed25519",
                                     .signed_payload = "{timestamp}{body}",
                                     .timestamp_header = "X-Signature-Timestamp"},
                                    {.canonical_hash = true, .event_type_pointer = "/event/type"});
  discord.handshake = "discord";
  t.push_back({{"discord"}, std::move(discord),
               "a public key, no secret: Developer Portal → your app → General Information → Public Key (hex)"});
  // SendGrid signed Event Webhook: ECDSA P-256/SHA-256, DER signature in
  // base64, over timestamp + body; the body is an array of events, each keyed
  // on its sg_event_id. Tolerance: SendGrid states none; 300 s.
  t.push_back({{"sendgrid"},
               Endpoint({.scheme = "ecdsa-p256-sha256",
                         .header = "X-Twilio-Email-Event-Webhook-Signature",
                         .encoding = "base64",
                         .signed_payload = "{timestamp}{body}",
                         .timestamp_header = "X-Twilio-Email-Event-Webhook-Timestamp"},
                        {.id_pointer = "/sg_event_id", .event_type_pointer = "/event", .batch = true,
                         .batch_pointer = ""}),
               "a public key, no secret: Settings → Mail Settings → Event Webhook → Signed Event Webhook → "
               "Verification Key"});
  // PayPal: SHA256withRSA over "transmission id|transmission time|webhook
  // id|CRC-32 of the body", checked offline against a pinned certificate
  // (PAYPAL-CERT-URL is never fetched). The endpoint sets signature.webhook_id.
  // The transmission time is checked with the usual 300 s (each retry is a new
  // transmission, signed afresh). /id is the event id, the same on retries.
  t.push_back({{"paypal"},
               Endpoint({.scheme = "rsa-sha256-cert",
                         .header = "PAYPAL-TRANSMISSION-SIG",
                         .encoding = "base64",
                         .signed_payload = "{header:PAYPAL-TRANSMISSION-ID}|{timestamp}|{webhook_id}|{crc32}",
                         .timestamp_header = "PAYPAL-TRANSMISSION-TIME",
                         .timestamp_unit = "iso8601",
                         .algorithm_header = "PAYPAL-AUTH-ALGO"},
                        {.id_pointer = "/id", .event_type_pointer = "/event_type"}),
               "a public key, no secret: PayPal's signing certificate (PEM) from the PAYPAL-CERT-URL of a genuine "
               "delivery; the Webhook ID is under Developer Dashboard → your app → Webhooks"});
}

// Provider names that are refused on purpose, with the reason config loading reports.
struct Refused {
  std::string_view name;
  std::string_view reason;
};
constexpr Refused kRefused[] = {
    {"discord-interactions",
     "Discord interactions need a synchronous answer within 3 s; hookinbox stores and answers later — use "
     "provider = \"discord\" for webhook events"},
};
// --- end of helper "asym"'s block ---

// How long each provider keeps redelivering an event, in hours: the "Retry
// window" of docs/providers.md (the README's "provider retries" column),
// manual redelivery periods included since a person's redelivery repeats the
// key too. Where two figures are given the longer one counts (square: 24 h,
// some pages 72 h; meta: ~36 h, WhatsApp up to 7 days). 0 = not documented
// or only seconds to minutes: no minimum beyond the one day key_days allows.
// check-config refuses a retention.key_days shorter than this.
struct Window {
  std::string_view provider;
  int hours;
};
constexpr Window kRedeliveryWindows[] = {
    {"stripe", 72},    {"github", 72},     {"shopify", 4},    {"slack", 1},        {"svix", 27},
    {"typeform", 10},  {"tally", 31},      {"calendly", 24},  {"paddle", 72},      {"square", 72},
    {"razorpay", 24},  {"zoho-payments", 48}, {"postmark", 11}, {"mailgun", 8},     {"zoom", 2},
    {"hubspot", 24},   {"meta", 168},      {"sendgrid", 24},  {"paypal", 72},
    // gitlab, bitbucket, standard-webhooks (the sender's own), intercom,
    // linear, sentry, vercel, twilio, jotform, mollie, woocommerce, pipedrive,
    // zendesk, discord: not documented as a duration → 0.
};

int RedeliveryWindowHours(std::string_view provider) {
  for (const Window& w : kRedeliveryWindows) {
    if (w.provider == provider) return w.hours;
  }
  return 0;
}

std::vector<Preset> BuildTable() {
  std::vector<Preset> t;
  // Stripe: the secret is used as written, "whsec_" included; v0 parts are skipped.
  t.push_back({{"stripe"},
               Endpoint({.header = "Stripe-Signature",
                         .format = "t={timestamp},v1={signature}",
                         .signed_payload = "{timestamp}.{body}"},
                        {.id_pointer = "/id", .event_type_pointer = "/type"}),
               "Dashboard → Developers → Webhooks → the endpoint → Signing secret (whsec_…, whole)"});
  // GitHub: a delivery GUID is shared by every hook subscribed to the event,
  // so the key is hook id + delivery id (SPEC §9). No timestamp is signed.
  t.push_back({{"github"},
               Endpoint({.header = "X-Hub-Signature-256", .format = "sha256={signature}"},
                        {.fields = {"header:X-GitHub-Hook-ID", "header:X-GitHub-Delivery"},
                         .event_type_header = "X-GitHub-Event"}),
               "Repository or organisation → Settings → Webhooks → the webhook's Secret (as you typed it)"});
  // GitLab classic secret token, sent in clear; Idempotency-Key needs GitLab 17.4+.
  t.push_back({{"gitlab"},
               Endpoint({.scheme = "token", .header = "X-Gitlab-Token"},
                        {.id_header = "Idempotency-Key", .event_type_header = "X-Gitlab-Event"}),
               "Project → Settings → Webhooks → the webhook's Secret token (as you set it)"});
  // Bitbucket Cloud: whether X-Request-UUID survives a retry is unverified, so
  // the key is the safer X-Hook-UUID + X-Request-UUID that providers.md recommends.
  t.push_back({{"bitbucket"},
               Endpoint({.header = "X-Hub-Signature", .format = "sha256={signature}"},
                        {.fields = {"header:X-Hook-UUID", "header:X-Request-UUID"},
                         .event_type_header = "X-Event-Key"}),
               "Repository settings → Webhooks → the webhook's Secret (as you set it)"});
  // Shopify: the prefixed header spellings; the unprefixed variants (~ in
  // providers.md) need a header override. Key on the webhook id, reused on retries.
  t.push_back({{"shopify"},
               Endpoint({.header = "X-Shopify-Hmac-Sha256", .encoding = "base64"},
                        {.id_header = "X-Shopify-Webhook-Id", .event_type_header = "X-Shopify-Topic"}),
               "app webhooks: the app's client secret; shop-admin webhooks: the key shown under Settings → "
               "Notifications → Webhooks"});
  // Always sent by Shopify, checked by @shopify/shopify-api, unused by us.
  t.back().endpoint.sample_headers = {{"X-Shopify-Shop-Domain", "example.myshopify.com"},
                                      {"X-Shopify-API-Version", "2025-07"}};
  // Slack Events API. Guide: reject beyond 5 minutes either way (chosen over
  // Bolt's past-only check). The event type is the inner /event/type.
  t.push_back({{"slack"},
               Endpoint({.header = "X-Slack-Signature",
                         .format = "v0={signature}",
                         .signed_payload = "v0:{timestamp}:{body}",
                         .timestamp_header = "X-Slack-Request-Timestamp"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/event/type"}),
               "App settings → Basic Information → App Credentials → Signing Secret (not a bot token)"});
  t.back().endpoint.handshake = "slack";  // url_verification is answered, not stored
  t.push_back({{"standard-webhooks", "standardwebhooks"},
               StandardWebhooks("webhook-"),
               "the sender's webhook settings: the endpoint's signing secret (whsec_…)"});
  // Svix's own deliveries, and Clerk and Resend, which send through Svix.
  t.push_back({{"svix", "clerk", "resend"},
               StandardWebhooks("svix-"),
               "the endpoint's Signing Secret (whsec_…, whole): Svix or Clerk Dashboard → Webhooks, Resend's "
               "Webhooks page"});
  // Typeform: base64 output despite the "sha256=" prefix. That /event_id is
  // unchanged on retries is assumed (providers.md ~); it is the only event id.
  t.push_back({{"typeform"},
               Endpoint({.header = "Typeform-Signature", .format = "sha256={signature}", .encoding = "base64"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/event_type"}),
               "Form → Connect → Webhooks → the webhook's settings → Secret (as you set it)"});
  t.push_back({{"tally"},
               Endpoint({.header = "Tally-Signature", .encoding = "base64"},
                        {.id_pointer = "/eventId", .event_type_pointer = "/eventType"}),
               "Form → Integrations → Webhooks → Signing secret (as you set it)"});
  // Calendly has no event id: the key is event + invitee URI. Tolerance: the
  // commonly quoted 3 minutes (unverified, providers.md ~).
  t.push_back({{"calendly"},
               Endpoint({.header = "Calendly-Webhook-Signature",
                         .format = "t={timestamp},v1={signature}",
                         .signed_payload = "{timestamp}.{body}",
                         .tolerance_seconds = 180},
                        {.fields = {"/event", "/payload/uri"}, .event_type_pointer = "/event"}),
               "the signing_key of the webhook subscription created through the API (yours with a personal "
               "access token, generated for OAuth apps)"});
  // Intercom: HMAC-SHA1; /delivery_attempts grows on each attempt.
  t.push_back({{"intercom"},
               Endpoint({.header = "X-Hub-Signature", .format = "sha1={signature}", .algorithm = "sha1"},
                        {.id_pointer = "/id", .event_type_pointer = "/topic"}, {"/delivery_attempts"}),
               "Developer Hub → your app → the app's Client secret"});
  // Paddle: the SDK allows 5 s of age; 300 s is the practical window for a
  // receiver under load (providers.md). Every h1 part is tried (rotation).
  t.push_back({{"paddle"},
               Endpoint({.header = "Paddle-Signature",
                         .format = "ts={timestamp};h1={signature}",
                         .signed_payload = "{timestamp}:{body}"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/event_type"}),
               "Developer tools → Notifications → the destination → Secret key (pdl_ntfset_…, whole)"});
  // Square signs the notification URL: the endpoint must set public_url
  // (config validation says so). The legacy SHA-1 header is not used.
  t.push_back({{"square"},
               Endpoint({.header = "x-square-hmacsha256-signature",
                         .encoding = "base64",
                         .signed_payload = "{url}{body}"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/type"}),
               "Developer Console → Webhooks → the subscription → Signature key"});
  // Linear: the timestamp is in the body (ms), checked with the SDK's 60 s;
  // it is set per send, so it is left out of the payload hash. Linear-Delivery
  // stability on retries is unverified; it is the only id Linear documents.
  t.push_back({{"linear"},
               Endpoint({.header = "Linear-Signature",
                         .timestamp_pointer = "/webhookTimestamp",
                         .timestamp_unit = "ms",
                         .tolerance_seconds = 60},
                        {.id_header = "Linear-Delivery", .event_type_header = "Linear-Event"},
                        {"/webhookTimestamp"}),
               "Settings → API → Webhooks → the webhook → Signing secret"});
  // Sentry: Sentry-Hook-Timestamp is not signed, so it is not checked (a
  // window on it would only look like replay protection).
  t.push_back({{"sentry"},
               Endpoint({.header = "Sentry-Hook-Signature"},
                        {.id_header = "Request-ID", .event_type_header = "Sentry-Hook-Resource"}),
               "Settings → Developer Settings → your integration → Client Secret"});
  // Vercel: HMAC-SHA1; /id stability on retries unverified.
  t.push_back({{"vercel"},
               Endpoint({.header = "x-vercel-signature", .algorithm = "sha1"},
                        {.id_pointer = "/id", .event_type_pointer = "/type"}),
               "account or team Settings → Webhooks → the webhook's secret (integration webhooks: the "
               "integration's client secret)"});
  t.push_back({{"razorpay"},
               Endpoint({.header = "X-Razorpay-Signature"},
                        {.id_header = "x-razorpay-event-id", .event_type_pointer = "/event"}),
               "Dashboard → Webhooks → the webhook's Secret (as you set it; not the API key secret)"});
  // Zoho Payments: the header as the docs spell it (X-ZohoWebhook-Signature;
  // the other spelling needs a header override). The id and type field names
  // are unverified (providers.md ~): /event_id and /event_type are assumed.
  t.push_back({{"zoho-payments"},
               Endpoint({.header = "X-ZohoWebhook-Signature",
                         .format = "t={timestamp},v={signature}",
                         .signed_payload = "{timestamp}.{body}",
                         .timestamp_unit = "ms"},
                        {.id_pointer = "/event_id", .event_type_pointer = "/event_type"}),
               "Zoho Payments → webhook settings → the webhook's signing key"});
  AddFormPresets(t);
  AddKnobPresets(t);
  AddAsymmetricPresets(t);
  // Wave 2: one file of rows per group of providers (presets_*.cpp, declared in preset_rows.h).
  presets::AddShopsPaymentsPresets(t);
  presets::AddDevtoolsPresets(t);
  presets::AddFormsCrmPresets(t);
  presets::AddMessagingPresets(t);
  presets::AddVnUaPresets(t);
  presets::AddUaPresets(t);
  for (Preset& p : t) {
    p.endpoint.provider = p.names.front();
    // A row of the wave-2 files sets its own window; the table above holds the first wave's.
    if (const int hours = RedeliveryWindowHours(p.names.front()); hours > 0) p.endpoint.redelivery_window_hours = hours;
  }
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

std::string_view RefusedPresetReason(std::string_view name) {
  for (const Refused& r : kRefused) {
    if (r.name == name) return r.reason;
  }
  return {};
}

std::string_view PresetSecretHint(std::string_view name) {
  for (const Preset& p : Table()) {
    for (const std::string& n : p.names) {
      if (n == name) return p.secret_hint;
    }
  }
  return {};
}

std::vector<std::string> PresetNames() {
  std::vector<std::string> out;
  for (const Preset& p : Table()) out.insert(out.end(), p.names.begin(), p.names.end());
  return out;
}

}  // namespace hookinbox::verify
