// Wave 2 presets: developer, ops and workspace tools (the
// sections of docs/providers.md with the same names say what each row means
// for the user, and what is confirmed and what is not).
//
// Every row is data over the generic HMAC verifier. Where a provider sends
// no event id the key is the canonical hash of the body: a resend of the same
// notification is then the same event, which is what these providers' retries
// are (they resend the bytes they sent).
#include "verify/preset_rows.h"

// Designated initializers name only what a provider sets (registry.cpp says why).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hookinbox::verify::presets {

using config::EndpointConfig;

void AddDevtoolsPresets(std::vector<Preset>& t) {
  // ClickUp: hex HMAC-SHA256 of the body in X-Signature, keyed with the
  // webhook's secret (returned when the webhook is created). No timestamp is
  // signed. The body names the webhook, the event and the task but carries no
  // event id, and history_items is missing from some events, so the key is the
  // canonical hash. https://developer.clickup.com/docs/webhooksignature
  // Unverified: ClickUp's retry policy (none documented on that page).
  t.push_back({{"clickup"},
               Endpoint({.header = "X-Signature"}, {.canonical_hash = true, .event_type_pointer = "/event"}),
               "the \"secret\" field of the Create Webhook API response (POST /team/{team_id}/webhook)"});
  // Todoist: base64 HMAC-SHA256 of the body in X-Todoist-Hmac-SHA256, keyed
  // with the app's client secret. X-Todoist-Delivery-ID is reused when a failed
  // delivery is retried (up to three attempts, 15 minutes apart).
  // https://developer.todoist.com/sync/v9/#webhooks (as summarised by Doist's
  // TypeScript SDK, verifyWebhookSignature). No timestamp is signed.
  EndpointConfig todoist = Endpoint({.header = "X-Todoist-Hmac-SHA256", .encoding = "base64"},
                                    {.id_header = "X-Todoist-Delivery-ID", .event_type_pointer = "/event_name"});
  todoist.redelivery_window_hours = 1;
  t.push_back({{"todoist"}, std::move(todoist), "App Management Console → your app → Client secret"});
  // Ghost: "sha256=<hex>, t=<ms>" in X-Ghost-Signature; the HMAC-SHA256 is
  // over the body followed by the timestamp (no separator), keyed with the
  // custom integration's webhook secret (Ghost's webhook service; verifiers
  // of Ghost webhooks agree, e.g. github.com/Hequin0x/ghost-worker). The body
  // ({"post":{"current":…,"previous":…}}) carries neither an event id nor an
  // event name: canonical hash, no type. Unverified: Ghost's own page on the
  // header (ghost.org/docs/webhooks/ was not read) and its retries.
  t.push_back({{"ghost"},
               Endpoint({.header = "X-Ghost-Signature",
                         .format = "sha256={signature}, t={timestamp}",
                         .signed_payload = "{body}{timestamp}",
                         .timestamp_unit = "ms"},
                        {.canonical_hash = true}),
               "Ghost Admin → Settings → Integrations → your custom integration → webhook → Secret"});
  // Heroku app webhooks: base64 HMAC-SHA256 of the body in
  // Heroku-Webhook-Hmac-SHA256, keyed with the secret given when the webhook
  // was created. The delivery id (one per event and webhook) stays the same
  // across attempts; webhook_metadata.attempt changes per attempt. Events are
  // retried for up to 72 hours (changelog 2525).
  // https://devcenter.heroku.com/articles/app-webhooks
  // https://devcenter.heroku.com/changelog-items/2525
  EndpointConfig heroku = Endpoint({.header = "Heroku-Webhook-Hmac-SHA256", .encoding = "base64"},
                                   {.id_pointer = "/webhook_metadata/delivery/id",
                                    .event_type_pointer = "/webhook_metadata/event/include"},
                                   {"/webhook_metadata/attempt"});
  heroku.redelivery_window_hours = 72;
  t.push_back({{"heroku"}, std::move(heroku),
               "the --secret you passed to `heroku webhooks:add` (or the \"secret\" of the Platform API call)"});
  // CircleCI: "v1=<hex>" in circleci-signature, HMAC-SHA256 of the body keyed
  // with the webhook's secret token. /id is the event id, /type the event
  // (workflow-completed, job-completed). https://circleci.com/docs/webhooks/
  // and CircleCI's answer on discuss.circleci.com/t/40979. Unverified: retries.
  t.push_back({{"circleci"},
               Endpoint({.header = "circleci-signature", .format = "v1={signature}"},
                        {.id_pointer = "/id", .event_type_pointer = "/type"}),
               "Project Settings → Webhooks → Add Webhook → Secret token (you choose it)"});
  // PagerDuty v3 webhooks: "v1=<hex>" in X-PagerDuty-Signature, HMAC-SHA256
  // of the body; during a secret rotation several v1 parts are sent, comma
  // separated, hence the list format "v1={signature}," (any v1 part may
  // match). The event id and type are inside /event. Retries: 4 over about
  // 20 minutes. Read in secondary sources only (getconvoy.io "Let's replicate
  // PagerDuty V3 webhooks", svix.com PagerDuty webhook review); PagerDuty's own
  // "Verifying Signatures" page was not read.
  t.push_back({{"pagerduty"},
               Endpoint({.header = "X-PagerDuty-Signature", .format = "v1={signature},"},
                        {.id_pointer = "/event/id", .event_type_pointer = "/event/event_type"}),
               "Integrations → Generic Webhooks (v3) → New Webhook → the signing secret shown once on creation"});
  // WorkOS: "t=<ms>, v1=<hex>" in WorkOS-Signature; HMAC-SHA256 of
  // "{t}.{body}". The Node SDK allows 180 s by default. Retried up to 12
  // times over 3 days. https://workos.com/docs/sso/webhooks (the workos-node
  // Webhooks API reference for the tolerance).
  EndpointConfig workos = Endpoint({.header = "WorkOS-Signature",
                                    .format = "t={timestamp},v1={signature}",
                                    .signed_payload = "{timestamp}.{body}",
                                    .timestamp_unit = "ms",
                                    .tolerance_seconds = 180},
                                   {.id_pointer = "/id", .event_type_pointer = "/event"});
  workos.redelivery_window_hours = 72;
  t.push_back({{"workos"}, std::move(workos), "WorkOS Dashboard → Webhooks → your endpoint → Signing secret"});
  // Sanity GROQ-powered webhooks: "t=<ms>,v1=<base64url, unpadded>" in
  // sanity-webhook-signature; HMAC-SHA256 of "{t}.{body}" keyed with the
  // webhook's secret (@sanity/webhook). The body is the user's own projection,
  // so the key is the idempotency-key header Sanity sends with each event;
  // sanity-operation is create/update/delete. Retries: twice, 30 s apart
  // (changelog 2026-04). https://www.sanity.io/docs/webhooks
  t.push_back({{"sanity"},
               Endpoint({.header = "sanity-webhook-signature",
                         .format = "t={timestamp},v1={signature}",
                         .encoding = "base64url",
                         .signed_payload = "{timestamp}.{body}",
                         .timestamp_unit = "ms"},
                        {.id_header = "idempotency-key", .event_type_header = "sanity-operation"}),
               "sanity.io/manage → your project → API → Webhooks → your webhook → Secret (you set it)"});
  // Box: BOX-SIGNATURE-PRIMARY is the base64 HMAC-SHA256 of the body followed
  // by BOX-DELIVERY-TIMESTAMP (RFC 3339 with an offset), keyed with the primary
  // key; Box rejects nothing older than ten minutes. Only the primary header is
  // read: configure the primary key (both keys as a rotation list when you swap
  // them; docs/providers.md). /id is the webhook event id, /trigger the type.
  // https://developer.box.com/guides/webhooks/v2/signatures-v2/
  t.push_back({{"box"},
               Endpoint({.header = "BOX-SIGNATURE-PRIMARY",
                         .encoding = "base64",
                         .signed_payload = "{body}{timestamp}",
                         .timestamp_header = "BOX-DELIVERY-TIMESTAMP",
                         .timestamp_unit = "iso8601",
                         .tolerance_seconds = 600},
                        {.id_pointer = "/id", .event_type_pointer = "/trigger"}),
               "Developer Console → your app → Webhooks → Manage signature keys → Primary key"});
  // Twitch EventSub (webhook transport): "sha256=<hex>" in
  // Twitch-Eventsub-Message-Signature, HMAC-SHA256 of message id + timestamp
  // + body (no separators), keyed with the subscription's secret; the
  // timestamp is RFC 3339 with nanoseconds and Twitch says to refuse one older
  // than 10 minutes. The message id is the dedupe key Twitch names. The
  // webhook_callback_verification message is answered with its challenge.
  // https://dev.twitch.tv/docs/eventsub/handling-webhook-events/
  EndpointConfig twitch =
      Endpoint({.header = "Twitch-Eventsub-Message-Signature",
                .format = "sha256={signature}",
                .signed_payload = "{id}{timestamp}{body}",  // {id}: the key's id_header, the message id
                .timestamp_header = "Twitch-Eventsub-Message-Timestamp",
                .timestamp_unit = "iso8601",
                .tolerance_seconds = 600},
               {.id_header = "Twitch-Eventsub-Message-Id", .event_type_header = "Twitch-Eventsub-Subscription-Type"});
  twitch.handshake = "twitch";
  t.push_back({{"twitch", "twitch-eventsub"}, std::move(twitch),
               "the \"secret\" you passed in transport when creating the EventSub subscription"});
  // Dropbox: hex HMAC-SHA256 of the body in X-Dropbox-Signature, keyed with
  // the app secret. A notification only lists the accounts that changed
  // ({"list_folder":{"accounts":[…]},"delta":{"users":[…]}}): no id, no type,
  // so the canonical hash. Retried for about ten minutes. The GET ?challenge=
  // verification is echoed by the handshake.
  // https://www.dropbox.com/developers/reference/webhooks
  EndpointConfig dropbox = Endpoint({.header = "X-Dropbox-Signature"}, {.canonical_hash = true});
  dropbox.handshake = "dropbox";
  t.push_back({{"dropbox"}, std::move(dropbox), "App Console → your app → Settings → App secret"});
}

}  // namespace hookinbox::verify::presets
