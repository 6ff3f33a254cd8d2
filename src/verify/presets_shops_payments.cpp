// Wave 2 presets: shops and international payments (docs/providers.md, one
// section each). Every row is data over the generic HMAC, token and Basic
// schemes; none of these providers has a handshake to answer. Each comment
// gives the scheme facts, the page they were read from, and what is not
// confirmed there.
#include "verify/preset_rows.h"

// Designated initializers name only what a provider sets (registry.cpp says why).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hookinbox::verify::presets {

using config::EndpointConfig;

namespace {

EndpointConfig WithWindow(EndpointConfig e, int hours) {
  e.redelivery_window_hours = hours;
  return e;
}

}  // namespace

void AddShopsPaymentsPresets(std::vector<Preset>& t) {
  // Lemon Squeezy: hex HMAC-SHA256 of the body in X-Signature, keyed with the
  // signing secret the user typed when creating the webhook; X-Event-Name
  // names the event. The body is a JSON:API resource with no event id, so the
  // key is event name + resource type + id + updated_at (every resource
  // Lemon Squeezy sends has updated_at; two events of one name on one object
  // differ in it). Three retries at about 5 s, 25 s and 125 s: no window in
  // hours. https://docs.lemonsqueezy.com/help/webhooks/signing-requests and
  // .../webhook-requests. Unconfirmed: that a retry repeats the body byte for byte.
  t.push_back({{"lemon-squeezy"},
               Endpoint({.header = "X-Signature"},
                        {.fields = {"/meta/event_name", "/data/type", "/data/id", "/data/attributes/updated_at"},
                         .event_type_header = "X-Event-Name"}),
               "Settings → Webhooks → (your webhook) → Signing secret (you choose it)"});
  // Paystack: hex HMAC-SHA512 of the body in x-paystack-signature, keyed with
  // the account's secret key (sk_live_… / sk_test_…). No event id: the key is
  // the event name + data.id (the transaction, transfer … id). Live retries:
  // every 3 minutes for 4 tries, then hourly for 72 hours (Paystack's
  // webhook guide, https://paystack.com/docs/payments/webhooks/ — read through
  // mirrors; the exact wording is unverified here).
  t.push_back({{"paystack"},
               WithWindow(Endpoint({.header = "x-paystack-signature", .algorithm = "sha512"},
                                   {.fields = {"/event", "/data/id"}, .event_type_pointer = "/event"}),
                          73),
               "Settings → API Keys & Webhooks → Secret Key (the same key signs webhooks)"});
  // Checkout.com (workflows): hex HMAC-SHA256 of the body in Cko-Signature,
  // keyed with the signature key of the workflow's webhook action. /id is the
  // event id (evt_…), /type its type. Retries: 5 m, 10 m, 15 m, 30 m, 1 h, 4 h,
  // 12 h, 12 h = 30 h. https://www.checkout.com/docs/developer-resources/webhooks/
  // manage-webhooks/set-up-your-webhook-receiver. The optional custom
  // Authorization header is not checked (the HMAC is).
  t.push_back({{"checkout-com"},
               WithWindow(Endpoint({.header = "Cko-Signature"}, {.id_pointer = "/id", .event_type_pointer = "/type"}),
                          30),
               "Dashboard → Developers → Workflows → (webhook action) → Signature key"});
  // GoCardless: hex HMAC-SHA256 of the body in Webhook-Signature, keyed with
  // the webhook endpoint's secret. One request carries up to 250 events in
  // /events, each its own row keyed on its id (EV…); its type is the action
  // ("confirmed"), the resource_type staying in the payload. Up to 8 retries
  // at growing intervals, total not stated: no window.
  // https://developer.gocardless.com/getting-started/stay-up-to-date-with-webhooks-v2,
  // https://support.gocardless.com/hc/en-nz/articles/360000989989-Webhook-retries-failures
  t.push_back({{"gocardless"},
               Endpoint({.header = "Webhook-Signature"},
                        {.id_pointer = "/id", .event_type_pointer = "/action", .batch = true, .batch_pointer = "/events"}),
               "Dashboard → Developers → Webhook endpoints → (endpoint) → Secret"});
  // Coinbase Commerce: hex HMAC-SHA256 of the body in X-CC-Webhook-Signature,
  // keyed with the shared secret. The envelope's id, attempt_number and
  // scheduled_for describe the attempt (volatile); /event/id is the event.
  // Retries with backoff for up to three days.
  // https://docs.cdp.coinbase.com/commerce/api-arcitecture/webhooks-security and
  // .../webhooks-fields. Unconfirmed: whether the envelope id changes per attempt.
  t.push_back({{"coinbase-commerce"},
               WithWindow(Endpoint({.header = "X-CC-Webhook-Signature"},
                                   {.id_pointer = "/event/id", .event_type_pointer = "/event/type"},
                                   {"/id", "/attempt_number", "/scheduled_for"}),
                          72),
               "Settings → Notifications → Webhook subscriptions → Show shared secret"});
  // Squarespace: hex HMAC-SHA256 of the body in Squarespace-Signature, keyed
  // with the subscription secret decoded from hex. /id is the notification
  // id, /topic the event. https://developers.squarespace.com/webhooks/
  // verifying-notifications and .../overview. Unconfirmed: the retry schedule
  // (not stated) and that a retry keeps /id.
  t.push_back({{"squarespace"},
               Endpoint({.header = "Squarespace-Signature", .secret_encoding = "hex"},
                        {.id_pointer = "/id", .event_type_pointer = "/topic"}),
               "the secret returned when creating (or rotating) the Webhook Subscription through the API"});
  // Polar: Standard Webhooks headers and signed bytes (webhook-id /
  // -timestamp / -signature, "{id}.{timestamp}.{body}", base64 "v1," parts),
  // but the HMAC key is the secret's own UTF-8 bytes: Polar's SDK
  // (polarsource/polar-js src/webhooks.ts, validateEvent) base64-encodes the
  // secret before the standardwebhooks library decodes it again, and strips
  // no prefix. https://www.mintlify.com/polarsource/polar/integrate/webhooks/delivery.
  // Unconfirmed: reports (third-party code, not Polar's docs) of newer
  // "whsec_<base64>" secrets used the Standard Webhooks way; those need
  // secret_encoding = "base64" and secret_prefix = "whsec_" (docs/providers.md).
  EndpointConfig polar = StandardWebhooks("webhook-");
  polar.signature.secret_encoding = "utf8";
  polar.signature.secret_prefix = "";
  t.push_back({{"polar"}, std::move(polar), "Settings → Webhooks → (endpoint) → Secret"});
  // Revolut Business API: "v1=<hex>" in Revolut-Signature, HMAC-SHA256 over
  // "v1.{timestamp}.{body}" with the webhook's signing secret (wsk_…);
  // Revolut-Request-Timestamp is in ms, checked within 5 minutes. While a
  // rotated secret is still valid the header carries several "v1=" parts,
  // hence the list format. No event id: event + data.id + the event's
  // timestamp. Three retries 10 minutes apart.
  // https://developer.revolut.com/docs/guides/manage-accounts/webhooks/verify-the-payload-signature,
  // https://developer.revolut.com/docs/business/webhooks-v-2. Unconfirmed: that
  // a retry repeats /timestamp. The Merchant API (Accept Payments) signs the
  // same way but sends other bodies: it needs a key override.
  t.push_back({{"revolut-business", "revolut"},
               WithWindow(Endpoint({.header = "Revolut-Signature",
                                    .format = "v1={signature},",
                                    .signed_payload = "v1.{timestamp}.{body}",
                                    .timestamp_header = "Revolut-Request-Timestamp",
                                    .timestamp_unit = "ms"},
                                   {.fields = {"/event", "/data/id", "/timestamp"}, .event_type_pointer = "/event"}),
                          1),
               "Business API → GET /webhooks/{id} → signing_secret (shown when the webhook is created)"});
  // Chargebee: no signature; Basic credentials set on the webhook (secret =
  // "user:password"). /id identifies the event across retries, /event_type is
  // its type. The last retry comes about 3 days 7 hours after the event.
  // https://apidocs.chargebee.com/docs/api/v2/pcv-1/events
  t.push_back({{"chargebee"},
               WithWindow(Endpoint({.scheme = "basic"}, {.id_pointer = "/id", .event_type_pointer = "/event_type"}), 80),
               "Settings → Configure Chargebee → Webhooks → (webhook) → Basic authentication user name and password"});
  // Flutterwave (v3): no signature; the "secret hash" the user sets in the
  // dashboard comes back as is in verif-hash (a token). No event id: event +
  // data.id. https://developer.flutterwave.com/docs/webhooks (read through
  // SDK guides and examples). Unconfirmed: v4's flutterwave-signature HMAC
  // (its encoding is not documented where we read) and the retry schedule.
  t.push_back({{"flutterwave"},
               Endpoint({.scheme = "token", .header = "verif-hash"},
                        {.fields = {"/event", "/data/id"}, .event_type_pointer = "/event"}),
               "Settings → Webhooks → Secret hash (you choose it)"});
  // Xendit: no signature; the account's callback verification token in
  // x-callback-token. Bodies differ per product (invoices, payments, VA, …)
  // with no common event id, and Xendit warns of duplicate deliveries, so the
  // key is the canonical hash of the body; a product's own id can replace it
  // (docs/providers.md). Type: /event where the product sends one.
  // https://docs.xendit.co/api-integration/callback/setup,
  // https://docsv2.xendit.co/v1/docs/handling-webhooks. Unconfirmed: the retry schedule.
  t.push_back({{"xendit"},
               Endpoint({.scheme = "token", .header = "x-callback-token"},
                        {.canonical_hash = true, .event_type_pointer = "/event"}),
               "Settings → Developers → Webhooks (Callbacks) → View Webhook Verification Token"});
  // Ecwid: base64 HMAC-SHA256 of "{eventCreated}.{eventId}" (both body
  // fields) with the app's client_secret, in X-Ecwid-Webhook-Signature. The
  // event data is not signed: the key is eventId, so a body altered under a
  // replayed signature keeps the original's key and is never a new event.
  // eventCreated is when the event happened and Ecwid retries for 24 hours,
  // so the window is 26 hours, not 5 minutes.
  // https://api-docs.ecwid.com/reference/authenticate-webhooks-with-signature,
  // https://docs.ecwid.com/webhook-automations/setup-webhooks
  t.push_back({{"ecwid"},
               WithWindow(Endpoint({.header = "X-Ecwid-Webhook-Signature",
                                    .encoding = "base64",
                                    .signed_payload = "{timestamp}.{token}",
                                    .timestamp_pointer = "/eventCreated",
                                    .tolerance_seconds = 26 * 3600,
                                    .token_pointer = "/eventId"},
                                   {.id_pointer = "/eventId", .event_type_pointer = "/eventType"}),
                          24),
               "my.ecwid.com → Develop apps → (your app) → client_secret (not the secret_ access token)"});
  // BigCommerce: no signature; the webhook's own custom header (set in the
  // "headers" of the create-webhook call) is the credential: a token in the
  // header named here, X-Webhook-Token unless overridden. The light payload
  // carries a hash that "two requests for the same event" share: key scope +
  // hash. https://developer-beta.bigcommerce.com/docs/integrations/webhooks/http.
  // Unconfirmed: the retry window (not stated there).
  t.push_back({{"bigcommerce"},
               Endpoint({.scheme = "token", .header = "X-Webhook-Token"},
                        {.fields = {"/scope", "/hash"}, .event_type_pointer = "/scope"}),
               "the value you put in the webhook's custom headers (POST /v3/hooks \"headers\")"});
  // Recurly (JSON webhooks; XML ones are not signed): recurly-signature is
  // "<timestamp>,<hex>[,<hex>]" — the timestamp first, then one HMAC-SHA256
  // of "{timestamp}.{body}" per valid secret (old and new for 24 hours after
  // a regeneration). The docs give the timestamp in milliseconds (their
  // example has 10 digits; ms is what the text says). Key: the notification
  // id /id; type /event_type (with object_type beside it in the payload).
  // https://docs.recurly.com/v1.3/docs/signature-verification. Unconfirmed:
  // the JSON body fields and the retry schedule.
  t.push_back({{"recurly"},
               Endpoint({.header = "recurly-signature",
                         .format = "{timestamp},{signature}",
                         .signed_payload = "{timestamp}.{body}",
                         .timestamp_unit = "ms"},
                        {.id_pointer = "/id", .event_type_pointer = "/event_type"}),
               "Integrations → Webhooks → (endpoint) → Secret key"});
  // Wise: X-Signature-SHA256 = base64 RSA (PKCS#1 v1.5) SHA-256 signature of
  // the body, checked against Wise's published public key (endpoint
  // public_key_env / public_key_file; sandbox and production differ). No
  // timestamp is signed. X-Delivery-Id is per notification, but whether a
  // redelivery keeps it is not said, so the key is event type + resource id +
  // occurred_at (schema v2 bodies); sent_at is volatile. Up to 25 tries over
  // two weeks. https://docs.wise.com/api-docs/features/webhooks-notifications/event-handling
  t.push_back({{"wise"},
               WithWindow(Endpoint({.scheme = "rsa-sha256", .header = "X-Signature-SHA256", .encoding = "base64"},
                                   {.fields = {"/event_type", "/data/resource/id", "/data/occurred_at"},
                                    .event_type_pointer = "/event_type"},
                                   {"/sent_at"}),
                          14 * 24),
               "Wise's public key for webhooks (API docs → Webhooks → signature; sandbox and production differ) "
               "→ public_key_env"});
  // Adyen standard webhooks: no header signature; each item of
  // /notificationItems is signed on its own (scheme adyen-hmac, see
  // adyen_scheme.cpp) with the webhook's HMAC key, given in hex. Each item
  // is its own row, keyed on pspReference + eventCode + success (Adyen sends
  // an event again, identical, when it is not accepted; success tells a
  // failed authorisation from a later successful one). No timestamp is signed.
  // https://docs.adyen.com/development-resources/webhooks/verify-hmac-signatures.
  // Unconfirmed: the retry window; Basic credentials Adyen can add are not checked.
  t.push_back({{"adyen"},
               Endpoint({.scheme = "adyen-hmac", .header = "", .secret_encoding = "hex"},
                        {.fields = {"/NotificationRequestItem/pspReference", "/NotificationRequestItem/eventCode",
                                    "/NotificationRequestItem/success"},
                         .event_type_pointer = "/NotificationRequestItem/eventCode",
                         .batch = true,
                         .batch_pointer = "/notificationItems"}),
               "Customer Area → Developers → Webhooks → (webhook) → Security → HMAC key"});
  // Gumroad Ping and resource subscriptions: a form post signed by nothing,
  // so scheme "none", which needs endpoint.insecure = true. A refund or
  // dispute repeats its sale's sale_id, so the key is the canonical hash of
  // the fields; resource_name (resource subscriptions only) is the type.
  // Retried hourly for up to 3 hours. https://www.gumroad.com/ping
  t.push_back({{"gumroad"},
               WithWindow(WithTypes(Endpoint({.scheme = "none", .body_kind = "form"},
                                             {.canonical_hash = true, .event_type_pointer = "/resource_name"}),
                                    {"application/x-www-form-urlencoded"}),
                          3),
               "no secret: Gumroad signs nothing (Settings → Advanced → Ping URL)"});
}

}  // namespace hookinbox::verify::presets
