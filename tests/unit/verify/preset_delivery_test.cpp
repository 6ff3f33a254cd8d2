// Every provider preset, end to end: each preset is loaded through
// config::LoadString with only `provider` and the secret (plus public_url for
// Square), proving the preset fills everything else; then a delivery shaped
// like the provider's is signed here, independently, with OpenSSL's HMAC()
// (never verify::Hmac), and checked with Verify and Identify by
// CheckPresetCase (preset_case.h).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "common/encoding.h"
#include "preset_case.h"
#include "verify/registry.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

namespace {

constexpr const char* kSquareUrl = "https://hooks.example.com/hooks/square";

// Standard Webhooks key bytes: "whsec_" removed, the rest base64-decoded.
std::string SwKey(const std::string& secret) { return Base64Decode(secret.substr(6)).value(); }

Headers StandardWebhooksHeaders(const std::string& prefix, const std::string& secret, const std::string& body,
                                int64_t ts) {
  const std::string id = "msg_2mTnK8wQ1vXcZf7yLr4pA9bE0sH";
  return {{prefix + "id", id},
          {prefix + "timestamp", Ts(ts)},
          {prefix + "signature", "v1a,c2lnbmF0dXJl v1," + B64Sha256(SwKey(secret), id + "." + Ts(ts) + "." + body)}};
}

Case StandardWebhooksCase(const std::string& provider, const std::string& prefix) {
  return {provider,
          "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          "whsec_c2Vjb25kLWVuZHBvaW50LXNlY3JldA==",
          [](int64_t, int) {
            return std::string(R"({"type":"user.created","timestamp":"2026-01-01T00:00:00Z","data":{"id":"user_29w83"}})");
          },
          [prefix](const std::string& s, const std::string& b, int64_t ts) {
            return StandardWebhooksHeaders(prefix, s, b, ts);
          },
          prefix + "signature",
          "msg_2mTnK8wQ1vXcZf7yLr4pA9bE0sH",
          "user.created",
          true,
          true};
}

std::vector<Case> Cases() {
  std::vector<Case> c;
  c.push_back({"stripe", "whsec_test_5WbX5kEWLlfzwGOEmOwIoAkD", "whsec_test_other_0000000000000000",
               [](int64_t, int) {
                 return std::string(R"({"id":"evt_1NG8Du2eZvKYlo2CUI79vXWy","object":"event","type":"invoice.paid",)"
                                    R"("data":{"object":{"id":"in_1NG8Dt2eZvKYlo2C"}}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 // Stripe keys the HMAC with the whole secret, "whsec_" included; v0 is a legacy part to skip.
                 return {{"Stripe-Signature",
                          "t=" + Ts(ts) + ",v1=" + HexSha256(s, Ts(ts) + "." + b) + ",v0=" + std::string(64, '0')}};
               },
               "Stripe-Signature", "evt_1NG8Du2eZvKYlo2CUI79vXWy", "invoice.paid", true, true});
  c.push_back({"github", "gh-webhook-secret", "another-secret",
               [](int64_t, int) { return std::string(R"({"ref":"refs/heads/main","repository":{"id":1296269}})"); },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Hub-Signature-256", "sha256=" + HexSha256(s, b)},
                         {"X-GitHub-Event", "push"},
                         {"X-GitHub-Hook-ID", "292430182"},
                         {"X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958"}};
               },
               "X-Hub-Signature-256", "292430182:72d3162e-cc78-11e3-81ab-4c9367dc0958", "push"});
  c.push_back({"gitlab", "glpat-like-secret-token", "another-token",
               [](int64_t, int) { return std::string(R"({"object_kind":"push","ref":"refs/heads/main"})"); },
               [](const std::string& s, const std::string&, int64_t) -> Headers {
                 return {{"X-Gitlab-Token", s},
                         {"X-Gitlab-Event", "Push Hook"},
                         {"Idempotency-Key", "f1c2e0a4-6a8e-4d43-9d57-0d3c1a1b2c3d"}};
               },
               "X-Gitlab-Token", "f1c2e0a4-6a8e-4d43-9d57-0d3c1a1b2c3d", "Push Hook", false});
  c.push_back({"bitbucket", "bb-secret", "another-secret",
               [](int64_t, int) { return std::string(R"({"push":{"changes":[]},"repository":{"full_name":"a/b"}})"); },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Hub-Signature", "sha256=" + HexSha256(s, b)},
                         {"X-Event-Key", "repo:push"},
                         {"X-Hook-UUID", "{4a5e3f1c-0d2b-4c6e-9f8a-7b6c5d4e3f2a}"},
                         {"X-Request-UUID", "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"},
                         {"X-Attempt-Number", "1"}};
               },
               "X-Hub-Signature", "{4a5e3f1c-0d2b-4c6e-9f8a-7b6c5d4e3f2a}:0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
               "repo:push"});
  c.push_back({"shopify", "shpss_0123456789abcdef", "shpss_fedcba9876543210",
               [](int64_t, int) { return std::string(R"({"id":820982911946154508,"email":"jon@example.com"})"); },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Shopify-Hmac-Sha256", B64Sha256(s, b)},
                         {"X-Shopify-Topic", "orders/create"},
                         {"X-Shopify-Webhook-Id", "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043"},
                         {"X-Shopify-Shop-Domain", "shop.myshopify.com"}};
               },
               "X-Shopify-Hmac-Sha256", "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043", "orders/create"});
  c.push_back({"slack", "8f742231b10e8888abcd99yyyzzz85a5", "another-signing-secret",
               [](int64_t ts, int) {
                 return R"({"type":"event_callback","event_id":"Ev08MFMKH6J","event_time":)" + Ts(ts) +
                        R"(,"team_id":"T0001","event":{"type":"app_mention","text":"hi"}})";
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 return {{"X-Slack-Signature", "v0=" + HexSha256(s, "v0:" + Ts(ts) + ":" + b)},
                         {"X-Slack-Request-Timestamp", Ts(ts)}};
               },
               "X-Slack-Signature", "Ev08MFMKH6J", "app_mention", true, true});
  c.push_back(StandardWebhooksCase("standard-webhooks", "webhook-"));
  c.push_back(StandardWebhooksCase("standardwebhooks", "webhook-"));
  c.push_back(StandardWebhooksCase("svix", "svix-"));
  c.push_back(StandardWebhooksCase("clerk", "svix-"));
  c.push_back(StandardWebhooksCase("resend", "svix-"));
  c.push_back({"typeform", "tf-secret", "another-secret",
               [](int64_t, int) {
                 return std::string(R"({"event_id":"01HV8ZQ7R4","event_type":"form_response",)"
                                    R"("form_response":{"token":"a1b2c3"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"Typeform-Signature", "sha256=" + B64Sha256(s, b)}};
               },
               "Typeform-Signature", "01HV8ZQ7R4", "form_response"});
  c.push_back({"tally", "tally-secret", "another-secret",
               [](int64_t, int) {
                 return std::string(R"({"eventId":"a4cb511e-d513-4fa5-baee-b815d718dfd1","eventType":"FORM_RESPONSE",)"
                                    R"("data":{"responseId":"2wgx4n"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"Tally-Signature", B64Sha256(s, b)}};
               },
               "Tally-Signature", "a4cb511e-d513-4fa5-baee-b815d718dfd1", "FORM_RESPONSE"});
  c.push_back({"calendly", "calendly-signing-key", "another-key",
               [](int64_t, int) {
                 return std::string(R"({"event":"invitee.created","created_at":"2026-01-01T00:00:00.000000Z",)"
                                    R"("payload":{"uri":"https://api.calendly.com/scheduled_events/E1/invitees/I1"}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 return {{"Calendly-Webhook-Signature", "t=" + Ts(ts) + ",v1=" + HexSha256(s, Ts(ts) + "." + b)}};
               },
               "Calendly-Webhook-Signature",
               "invitee.created:https://api.calendly.com/scheduled_events/E1/invitees/I1", "invitee.created", true,
               true});
  c.push_back({"intercom", "intercom-client-secret", "another-secret",
               [](int64_t, int attempt) {
                 return R"({"type":"notification_event","id":"notif_ccd8a4d2-3b4c","topic":"conversation.user.created",)"
                        R"("delivery_attempts":)" +
                        std::to_string(attempt) + R"(,"data":{"item":{"id":"1"}}})";
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Hub-Signature", "sha1=" + HexSha1(s, b)}};
               },
               "X-Hub-Signature", "notif_ccd8a4d2-3b4c", "conversation.user.created", true, false, true});
  c.push_back({"paddle", "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI", "pdl_ntfset_other",
               [](int64_t, int) {
                 return std::string(R"({"event_id":"evt_01h8bzakzx3hm2fmen703n5q45","event_type":"transaction.completed",)"
                                    R"("notification_id":"ntf_01h8bzam1z32agrxjwhjgqk8w6","data":{}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 return {{"Paddle-Signature", "ts=" + Ts(ts) + ";h1=" + HexSha256(s, Ts(ts) + ":" + b)}};
               },
               "Paddle-Signature", "evt_01h8bzakzx3hm2fmen703n5q45", "transaction.completed", true, true});
  c.push_back({"square", "sq-signature-key", "another-key",
               [](int64_t, int) {
                 return std::string(R"({"merchant_id":"6SSW7HV8K2ST5","type":"payment.updated",)"
                                    R"("event_id":"13b867cf-db3d-4b1c-90b6-2f32a9d78124","data":{"id":"KkA"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"x-square-hmacsha256-signature", B64Sha256(s, std::string(kSquareUrl) + b)}};
               },
               "x-square-hmacsha256-signature", "13b867cf-db3d-4b1c-90b6-2f32a9d78124", "payment.updated"});
  c.back().extra_toml = "public_url = \"" + std::string(kSquareUrl) + "\"\n";
  c.push_back({"linear", "lin_wh_secret", "another-secret",
               [](int64_t ts, int attempt) {
                 // webhookTimestamp is set at each send: a retry differs only there.
                 return R"({"action":"create","type":"Issue","data":{"id":"2174add1"},"webhookId":"wh1",)"
                        R"("webhookTimestamp":)" +
                        std::to_string((ts + attempt) * 1000) + "}";
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"Linear-Signature", HexSha256(s, b)},
                         {"Linear-Delivery", "234d1a4e-b617-4388-90fe-adc3633d6b72"},
                         {"Linear-Event", "Issue"}};
               },
               "Linear-Signature", "234d1a4e-b617-4388-90fe-adc3633d6b72", "Issue", true, true, true});
  c.push_back({"sentry", "sentry-client-secret", "another-secret",
               [](int64_t, int) { return std::string(R"({"action":"created","installation":{"uuid":"u1"},"data":{}})"); },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 return {{"Sentry-Hook-Signature", HexSha256(s, b)},
                         {"Sentry-Hook-Resource", "issue"},
                         {"Sentry-Hook-Timestamp", Ts(ts)},
                         {"Request-ID", "4b2d6c4e-0f1a-4a8b-9c3d-2e1f0a9b8c7d"}};
               },
               "Sentry-Hook-Signature", "4b2d6c4e-0f1a-4a8b-9c3d-2e1f0a9b8c7d", "issue"});
  c.push_back({"vercel", "vercel-secret", "another-secret",
               [](int64_t, int) {
                 return std::string(R"({"id":"uHpNCcgaN9PpMvZ2","type":"deployment.created","createdAt":1767225600000,)"
                                    R"("payload":{}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"x-vercel-signature", HexSha1(s, b)}};
               },
               "x-vercel-signature", "uHpNCcgaN9PpMvZ2", "deployment.created"});
  c.push_back({"razorpay", "rzp-webhook-secret", "another-secret",
               [](int64_t, int) {
                 return std::string(R"({"entity":"event","account_id":"acc_1","event":"payment.captured","payload":{}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Razorpay-Signature", HexSha256(s, b)}, {"x-razorpay-event-id", "JnJ3ZLDkXhXqyx"}};
               },
               "X-Razorpay-Signature", "JnJ3ZLDkXhXqyx", "payment.captured"});
  c.push_back({"zoho-payments", "zoho-signing-key", "another-key",
               [](int64_t, int) {
                 return std::string(R"({"event_id":"1987000000123","event_type":"payment.succeeded","event_object":{}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 const std::string ms = std::to_string(ts * 1000);  // Zoho Payments signs milliseconds
                 return {{"X-ZohoWebhook-Signature", "t=" + ms + ",v=" + HexSha256(s, ms + "." + b)}};
               },
               "X-ZohoWebhook-Signature", "1987000000123", "payment.succeeded", true, true});
  return c;
}

}  // namespace

// Presets whose deliveries are tested in a file of their own.
const std::set<std::string> kCoveredElsewhere = {
    "twilio", "jotform", "mollie", "woocommerce", "postmark", "pipedrive",  // form_presets_test.cpp
    "zendesk", "mailgun", "zoom", "hubspot", "meta", "facebook", "instagram", "whatsapp",  // knob_presets_test.cpp
    "discord", "sendgrid", "paypal",  // asymmetric_test.cpp
    "lemon-squeezy", "paystack", "checkout-com", "gocardless", "coinbase-commerce", "squarespace", "polar",
    "revolut-business", "revolut", "chargebee", "flutterwave", "xendit", "ecwid", "bigcommerce",
    "gumroad", "wise", "recurly", "adyen",  // presets_shops_payments_test.cpp
    "clickup", "todoist", "ghost", "heroku", "circleci", "pagerduty", "workos", "sanity", "box", "twitch",
    "twitch-eventsub", "dropbox",  // presets_devtools_test.cpp
    "formstack", "webflow", "surveymonkey", "close", "attio", "airtable", "highlevel", "gohighlevel",  // presets_forms_crm_test.cpp
    "mandrill", "mailchimp-transactional", "brevo", "sendinblue",
    "telegram", "viber", "line", "telnyx", "help-scout", "helpscout", "front", "freshdesk", "keycrm", "cal-com",
    "cal", "acuity", "acuity-scheduling", "docusign", "docusign-connect", "xero", "quickbooks",
    "intuit", "pandadoc",  // presets_messaging_test.cpp
    "vnpay", "momo", "zalopay", "payos", "sepay",  // presets_vn_ua_test.cpp
    "monobank", "liqpay", "fondy", "flitt",  // presets_ua_test.cpp
};

TEST_CASE("preset table: every name loads and every name is covered by a delivery case", "[verify]") {
  std::set<std::string> covered;
  for (const Case& c : Cases()) covered.insert(c.provider);
  for (const std::string& name : PresetNames()) {
    INFO(name);
    CHECK(covered.count(name) + kCoveredElsewhere.count(name) == 1);
    CHECK(FindPreset(name) != nullptr);
  }
  CHECK(covered.size() + kCoveredElsewhere.size() == PresetNames().size());
  CHECK(FindPreset("generic") == nullptr);
  CHECK(FindPreset("Stripe") == nullptr);  // names are exact
}

TEST_CASE("preset *: a signed delivery verifies and identifies; tampering is refused", "[verify]") {
  for (const Case& c : Cases()) {
    SECTION("preset " + c.provider) { CheckPresetCase(c); }
  }
}
