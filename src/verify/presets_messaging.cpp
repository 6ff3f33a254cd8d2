// Wave 2 presets: messaging, support, scheduling, documents and accounting
// (docs/providers.md has one section each).
//
// Every row is data over the existing verifier kinds. Facts come from the
// provider's documentation (URL on each row) or /work/shared/providers-wave2.md
// (Telegram, Viber, Zalo OA, KeyCRM); "unverified" on a row says which part
// we chose without a first-hand source.
#include "verify/preset_rows.h"

// Designated initializers name only what a provider sets (registry.cpp says why).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hookinbox::verify::presets {

using config::EndpointConfig;

namespace {

void AddChatPresets(std::vector<Preset>& t) {
  // Telegram Bot API: no signature; setWebhook's secret_token comes back
  // verbatim in X-Telegram-Bot-Api-Secret-Token (core.telegram.org/bots/api#setwebhook).
  // update_id is the documented dedupe id; the type is the name of the one
  // optional field an Update carries (message, callback_query, …). Telegram
  // gives up "after a reasonable amount of attempts" and keeps updates ≤24 h.
  EndpointConfig telegram = Endpoint({.scheme = "token", .header = "X-Telegram-Bot-Api-Secret-Token"},
                                     {.id_pointer = "/update_id", .event_type_member_besides = "update_id"});
  telegram.redelivery_window_hours = 24;
  t.push_back({{"telegram"}, std::move(telegram), "the secret_token you pass to setWebhook (you choose it)"});

  // Viber REST bot: hex HMAC-SHA256 of the body keyed with the bot's auth
  // token (official viber-bot-python _calculate_message_signature). No event
  // id: event + message_token (delivered/seen repeat the token of the message
  // they report, so the event name keeps them apart). The signed
  // {"event":"webhook"} callback of set_webhook is answered by the handshake.
  // Retries "several times for an hour" (developers.viber.com/docs/faq).
  // Unverified: whether Viber also sends ?sig= (the Node SDK reads it); only the header is read.
  EndpointConfig viber = Endpoint({.header = "X-Viber-Content-Signature"},
                                  {.fields = {"/event", "/message_token"}, .event_type_pointer = "/event"});
  viber.handshake = "viber";
  viber.redelivery_window_hours = 1;
  t.push_back({{"viber"}, std::move(viber), "the bot's authentication token (Viber Admin Panel → your bot → Token)"});

  // LINE Messaging API: base64 HMAC-SHA256 of the body with the channel secret
  // in x-line-signature (developers.line.biz/en/docs/messaging-api/verify-webhook-signature).
  // A body carries /events; each has webhookEventId, kept on redelivery, and
  // deliveryContext.isRedelivery, which is not. The console's "Verify" sends
  // an empty events array, answered by the handshake.
  EndpointConfig line = Endpoint({.header = "x-line-signature", .encoding = "base64"},
                                 {.id_pointer = "/webhookEventId",
                                  .event_type_pointer = "/type",
                                  .batch = true,
                                  .batch_pointer = "/events"},
                                 {"/deliveryContext/isRedelivery"});
  line.handshake = "line";
  t.push_back({{"line"}, std::move(line), "LINE Developers Console → your Messaging API channel → Basic settings → Channel secret"});

  // Telnyx API v2: Ed25519 over "{timestamp}|{body}", base64 signature in
  // telnyx-signature-ed25519, seconds in telnyx-timestamp; the account's
  // public key is base64 of the raw 32 bytes (developers.telnyx.com
  // /docs/development/sdk/python/webhooks; telnyx-python PR 242). /data/id is
  // the event id, /data/event_type the type. Tolerance: the SDKs' 300 s.
  t.push_back({{"telnyx"},
               Endpoint({.scheme = "ed25519",
                         .header = "telnyx-signature-ed25519",
                         .encoding = "base64",
                         .signed_payload = "{timestamp}|{body}",
                         .timestamp_header = "telnyx-timestamp"},
                        {.id_pointer = "/data/id", .event_type_pointer = "/data/event_type"}),
               "Mission Control Portal → Account Settings → Keys & Credentials → Public Key (public_key_env)"});
}

void AddSupportPresets(std::vector<Preset>& t) {
  // Help Scout: base64 HMAC-SHA1 of the body in X-HelpScout-Signature, the
  // event name in X-HelpScout-Event (developer.helpscout.com/webhooks; the
  // SHA-1/base64 detail from the LasLabs python-helpscout client). The
  // body is the conversation/customer object itself, with no event id, and
  // one object changes many times: the key is the body's canonical hash.
  t.push_back({{"help-scout", "helpscout"},
               Endpoint({.header = "X-HelpScout-Signature", .algorithm = "sha1", .encoding = "base64"},
                        {.canonical_hash = true, .event_type_header = "X-HelpScout-Event"}),
               "Help Scout → Manage → Apps → Webhooks → Secret Key (you choose it)"});
  // Front application webhooks: base64 HMAC-SHA256 of "{timestamp}:{body}",
  // the timestamp in ms (dev.frontapp.com/docs/application-webhooks); Front
  // advises rejecting beyond 5 minutes. Saving the webhook sends a signed
  // request with x-front-challenge, answered by the handshake. /payload/id is
  // the event id and /type the event type (unverified: from the event
  // object's documented shape). Rule webhooks (SHA-1 with the API secret) are not this preset.
  EndpointConfig front = Endpoint({.header = "X-Front-Signature",
                                   .encoding = "base64",
                                   .signed_payload = "{timestamp}:{body}",
                                   .timestamp_header = "X-Front-Request-Timestamp",
                                   .timestamp_unit = "ms"},
                                  {.id_pointer = "/payload/id", .event_type_pointer = "/type"});
  front.handshake = "front";
  t.push_back({{"front"}, std::move(front), "Front → Settings → Developers → your app → Basic information → App secret"});
  // Freshdesk automation webhooks sign nothing; they can send Basic
  // credentials ("Requires authentication", username and password). The body
  // is what the rule's author wrote, so the key is its canonical hash.
  t.push_back({{"freshdesk"},
               Endpoint({.scheme = "basic"}, {.canonical_hash = true}),
               "the username:password you enter under the rule's \"Requires authentication\""});
  // KeyCRM "Send webhook" trigger action: no signature, no secret (providers-wave2.md ~).
  // scheme none needs insecure = true; put an unguessable token in the URL path.
  t.push_back({{"keycrm"},
               Endpoint({.scheme = "none"},
                        {.fields = {"/event", "/context/id", "/context/status_id", "/context/updated_at"},
                         .event_type_pointer = "/event"}),
               "none: KeyCRM signs nothing (insecure = true)"});
}

void AddSchedulingAndDocumentPresets(std::vector<Preset>& t) {
  // Cal.com: hex HMAC-SHA256 of the body in X-Cal-Signature-256, only when
  // the webhook has a secret (cal.com/docs/developing/guides/automation/webhooks).
  // No event id: triggerEvent + the booking uid (a reschedule makes a new uid).
  t.push_back({{"cal-com", "cal"},
               Endpoint({.header = "X-Cal-Signature-256"},
                        {.fields = {"/triggerEvent", "/payload/uid"}, .event_type_pointer = "/triggerEvent"}),
               "Cal.com → Settings → Developer → Webhooks → Secret (you choose it)"});
  // Acuity Scheduling: form body action, id, calendarID, appointmentTypeID;
  // base64 HMAC-SHA256 of the body keyed with the API key in X-Acuity-Signature
  // (developers.acuityscheduling.com/docs/webhooks). action + id is all there
  // is: two "changed" of one appointment are one key (docs/providers.md).
  t.push_back({{"acuity", "acuity-scheduling"},
               WithTypes(Endpoint({.header = "X-Acuity-Signature", .encoding = "base64", .body_kind = "form"},
                                  {.fields = {"form:action", "form:id"}, .event_type_pointer = "/action"}),
                         {"application/x-www-form-urlencoded"}),
               "Acuity → Integrations → API → API Key (the main admin's key for static webhooks)"});
  // DocuSign Connect (JSON SIM): base64 HMAC-SHA256 of the body in
  // X-DocuSign-Signature-1, …-2 when a second key is active (developers.docusign.com
  // /platform/webhooks/connect/validate); only -1 is read, so rotate with two
  // secrets here. No event id: event + envelope + generatedDateTime (unverified
  // that it is kept on retries); retryCount grows on each retry.
  t.push_back({{"docusign", "docusign-connect"},
               Endpoint({.header = "X-DocuSign-Signature-1", .encoding = "base64"},
                        {.fields = {"/event", "/data/envelopeId", "/generatedDateTime"}, .event_type_pointer = "/event"},
                        {"/retryCount"}),
               "DocuSign eSignature Admin → Connect → Connect Keys → Add Secret Key"});
  // PandaDoc: hex HMAC-SHA256 of the body with the subscription's shared key,
  // sent as the query parameter "signature" (developers.pandadoc.com/docs/webhook-verification).
  // The body is an array of notifications; X-PandaDoc-Webhook-Event-Id is
  // "a stable ID … across automatic and manual retries" (…/docs/webhooks-overview),
  // so the delivery is one row keyed on it, typed by its first notification.
  t.push_back({{"pandadoc"},
               Endpoint({.header = "", .signature_source = "query:signature"},
                        {.id_header = "X-PandaDoc-Webhook-Event-Id", .event_type_pointer = "/0/event"}),
               "PandaDoc Developer Dashboard → Webhooks → your subscription → Shared key"});
}

void AddAccountingPresets(std::vector<Preset>& t) {
  // Xero: base64 HMAC-SHA256 of the body in x-xero-signature, keyed with the
  // app's webhook key (developer.xero.com/documentation/guides/webhooks). The
  // body's /events carry no id: tenant + category + resource + time + type.
  // Intent to receive: signed bodies with no events must get 200, badly signed
  // ones 401 — Verify gives the 401, the handshake the 200.
  EndpointConfig xero = Endpoint({.header = "x-xero-signature", .encoding = "base64"},
                                 {.fields = {"/tenantId", "/eventCategory", "/resourceId", "/eventDateUtc", "/eventType"},
                                  .event_type_pointer = "/eventCategory",
                                  .batch = true,
                                  .batch_pointer = "/events"});
  xero.handshake = "xero";
  t.push_back({{"xero"}, std::move(xero), "developer.xero.com → My Apps → your app → Webhooks → Webhooks key"});
  // QuickBooks Online: base64 HMAC-SHA256 of the body in intuit-signature,
  // keyed with the verifier token (developer.intuit.com …/develop/webhooks).
  // The CloudEvents payload (Intuit's SDK releases, 2025-11) is an array of
  // events, each with id and type ("qbo.invoice.created.v1"); the legacy
  // eventNotifications body needs a key override (docs/providers.md).
  t.push_back({{"quickbooks", "intuit"},
               Endpoint({.header = "intuit-signature", .encoding = "base64"},
                        {.id_pointer = "/id", .event_type_pointer = "/type", .batch = true, .batch_pointer = ""}),
               "developer.intuit.com → your app → Webhooks → Show verifier token"});
}

}  // namespace

void AddMessagingPresets(std::vector<Preset>& t) {
  AddChatPresets(t);
  AddSupportPresets(t);
  AddSchedulingAndDocumentPresets(t);
  AddAccountingPresets(t);
}

}  // namespace hookinbox::verify::presets
