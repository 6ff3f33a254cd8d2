// Wave 2 preset rows: forms, surveys, CRMs and marketing (helper A, group
// "forms_crm"; docs/providers.md has one section per row).
//
// Each comment names the scheme facts the row encodes, the page they were
// read from, and what is not confirmed. Rows only combine the existing knobs
// of config::SignatureConfig and KeyConfig (preset_rows.h).
#include "verify/preset_rows.h"

// Designated initializers name only what a provider sets (registry.cpp says why).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hookinbox::verify::presets {

using config::EndpointConfig;

void AddFormsCrmPresets(std::vector<Preset>& t) {
  // Formstack: HMAC-SHA256 of the raw body with the webhook's "HMAC Key",
  // sent as "sha256=<hex>" in X-FS-Signature (the header Formstack uses when
  // "Custom HMAC Header" is left blank; help.formstack.com and the
  // developers.formstack.com webhook reference name the key and header; the
  // digest form is confirmed on a captured delivery, used as the test vector).
  // The body is form-encoded by default or JSON; either way UniqueID is the
  // submission id. Nothing is timestamped, so a replay is not refused.
  t.push_back({{"formstack"},
               WithTypes(Endpoint({.header = "X-FS-Signature", .format = "sha256={signature}", .body_kind = "form"},
                                  {.id_pointer = "/UniqueID"}),
                         {"application/x-www-form-urlencoded", "application/json"}),
               "Form → Settings → Emails & Redirects → WebHook → HMAC Key"});

  // Webflow (form_submission and site/CMS/ecommerce events): hex
  // HMAC-SHA256 of "<x-webflow-timestamp>:<body>", the timestamp in ms,
  // refused beyond 5 minutes (developers.webflow.com/data/docs/working-with-webhooks,
  // "Validating request signatures"). Only webhooks of an OAuth app (or made
  // through the API) are signed; the key is the app's client secret or the
  // webhook's own secret. Events carry no event id, so the key is the
  // canonical hash of the body; the type is /triggerType.
  t.push_back({{"webflow"},
               Endpoint({.header = "x-webflow-signature",
                         .signed_payload = "{timestamp}:{body}",
                         .timestamp_header = "x-webflow-timestamp",
                         .timestamp_unit = "ms"},
                        {.canonical_hash = true, .event_type_pointer = "/triggerType"}),
               "Webflow app → client secret (or the secret returned when the webhook was created)"});

  // SurveyMonkey: Sm-Signature = base64 HMAC-SHA1 of the body keyed with
  // "<API key>&<API secret>" of the app (developer.surveymonkey.com/api/v3,
  // "Webhooks"); the secret to configure is that joined string. Body:
  // event_id, event_type, object_type, object_id. SurveyMonkey checks the URL
  // with a HEAD request when the webhook is created: answered 200, unstored.
  EndpointConfig surveymonkey = Endpoint({.header = "Sm-Signature", .algorithm = "sha1", .encoding = "base64"},
                                         {.id_pointer = "/event_id", .event_type_pointer = "/event_type"});
  surveymonkey.handshake = "head";
  t.push_back({{"surveymonkey"}, std::move(surveymonkey), "My Apps → your app → Settings: API key + \"&\" + API secret"});

  // Close: close-sig-hash = hex HMAC-SHA256 of close-sig-timestamp (s)
  // followed by the body, keyed with the subscription's signature_key
  // hex-decoded (developer.close.com/topics/webhooks, "Webhook signatures",
  // whose Python example bytes.fromhex()es the key). Event id /event/id; the
  // type is /event/object_type (the action is /event/action). Close retries
  // for up to 72 h before pausing the subscription (same page, "Retries").
  EndpointConfig close = Endpoint({.header = "close-sig-hash",
                                   .secret_encoding = "hex",
                                   .signed_payload = "{timestamp}{body}",
                                   .timestamp_header = "close-sig-timestamp"},
                                  {.id_pointer = "/event/id", .event_type_pointer = "/event/object_type"});
  close.redelivery_window_hours = 72;
  t.push_back({{"close"}, std::move(close), "POST /api/v1/webhook/ response → signature_key (64 hex digits)"});

  // Attio: Attio-Signature (also sent as X-Attio-Signature) = hex
  // HMAC-SHA256 of the body with the webhook secret
  // (docs.attio.com/rest-api/guides/webhooks). A delivery carries
  // {webhook_id, events:[…]} and an Idempotency-Key header that Attio
  // documents for deduplication (at-least-once delivery); the type is the
  // first event's event_type. No timestamp is signed. Retries: up to 10
  // over about three days (as Attio's page is summarised in a receiver's
  // design notes; not read first-hand), so 72 h.
  EndpointConfig attio = Endpoint({.header = "Attio-Signature"},
                                  {.id_header = "Idempotency-Key", .event_type_pointer = "/events/0/event_type"});
  attio.redelivery_window_hours = 72;
  t.push_back({{"attio"}, std::move(attio), "Workspace settings → Developers → Webhooks → signing secret"});

  // Airtable: X-Airtable-Content-MAC = "hmac-sha256=" + hex HMAC-SHA256 of
  // the body, keyed with macSecretBase64 (returned once when the webhook is
  // created) base64-decoded (airtable.com/developers/web/api/webhooks-overview,
  // "Webhook notification delivery"). A delivery is only a ping {base,
  // webhook, timestamp}: the handler fetches the payloads itself. No event
  // id: webhook id + ping timestamp. The timestamp is not checked against a
  // window: Airtable does not say whether a retried ping keeps it.
  t.push_back({{"airtable"},
               Endpoint({.header = "X-Airtable-Content-MAC",
                         .format = "hmac-sha256={signature}",
                         .secret_encoding = "base64"},
                        {.fields = {"/webhook/id", "/timestamp"}}),
               "Create-webhook API response → macSecretBase64 (shown once)"});

  // HighLevel (GoHighLevel): X-GHL-Signature = base64 Ed25519 signature of
  // the body, checked with HighLevel's published public key (PEM)
  // (marketplace.gohighlevel.com/docs/webhook/WebhookIntegrationGuide; the
  // RSA X-WH-Signature it replaces is not supported). /webhookId is the
  // delivery's id, /type the event type. The body's /timestamp is not used:
  // whether retries keep it is not documented.
  t.push_back({{"highlevel", "gohighlevel"},
               Endpoint({.scheme = "ed25519", .header = "X-GHL-Signature", .encoding = "base64"},
                        {.id_pointer = "/webhookId", .event_type_pointer = "/type"}),
               "HighLevel's published Ed25519 public key (Webhook Integration Guide), in public_key_file"});

  // Mailchimp Transactional (Mandrill): X-Mandrill-Signature = base64
  // HMAC-SHA1 of the webhook URL followed by each POST field name and value,
  // sorted by name (mailchimp.com/developer/transactional/guides/track-respond-activity-webhooks,
  // "Authenticating webhook requests") — the endpoint must set public_url.
  // The body is one form field, mandrill_events, a JSON array: its events
  // have no common id, so the batch is keyed on the hash of the raw body
  // (a retry resends the same batch). Mandrill checks the URL with a HEAD
  // request when the webhook is added: answered 200, unstored.
  EndpointConfig mandrill = WithTypes(Endpoint({.header = "X-Mandrill-Signature",
                                                .algorithm = "sha1",
                                                .encoding = "base64",
                                                .signed_payload = "{url}{form_sorted_kv}",
                                                .body_kind = "form"},
                                               {.canonical_hash = true}),
                                      {"application/x-www-form-urlencoded"});
  mandrill.handshake = "head";
  t.push_back({{"mandrill", "mailchimp-transactional"}, std::move(mandrill), "Settings → Webhooks → the webhook's Key"});

  // Brevo (Sendinblue): no signature; a webhook may carry a bearer token
  // (createWebhook "auth": {"type": "bearer", "token": …},
  // developers.brevo.com/docs/how-to-secure-your-webhooks). The token is the
  // secret. Events carry no event id (/id is the webhook's): keyed on the
  // canonical hash of the body; the type is /event.
  t.push_back({{"brevo", "sendinblue"},
               Endpoint({.scheme = "token", .header = "Authorization", .format = "Bearer {signature}"},
                        {.canonical_hash = true, .event_type_pointer = "/event"}),
               "the bearer token you set in the webhook's auth (Brevo API createWebhook / dashboard)"});
}

}  // namespace hookinbox::verify::presets
