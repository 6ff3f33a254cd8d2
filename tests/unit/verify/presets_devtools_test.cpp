// The developer, ops and workspace tool presets (src/verify/presets_devtools.cpp),
// end to end: each preset is loaded through config::LoadString with only
// provider + secret, a delivery shaped like the provider's is signed here with
// OpenSSL's HMAC() (never verify::Hmac), and Verify, Identify
// (CheckPresetCase, preset_case.h) and the handshakes are checked on it.
#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include <ctime>
#include <functional>
#include <string>

#include "common/encoding.h"
#include "preset_case.h"
#include "support/openssl_hmac.h"
#include "verify/handshake.h"
#include "verify/registry.h"
#include "verify/sign.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

namespace {

// Sanity's signature: base64url without padding (@sanity/webhook).
std::string B64UrlSha256(std::string_view key, std::string_view data) {
  return Base64UrlEncode(testing::OpensslHmac(EVP_sha256(), key, data));
}

std::string Ms(int64_t ts) { return std::to_string(ts * 1000 + 417); }

// RFC 3339 of `ts` shifted into the zone `offset_hours` east of UTC, with `fraction` (".123456789" or "").
std::string Rfc3339(int64_t ts, int offset_hours, const std::string& fraction) {
  std::time_t local = static_cast<std::time_t>(ts + int64_t{offset_hours} * 3600);
  std::tm tm{};
  gmtime_r(&local, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (offset_hours == 0) return buf + fraction + "Z";
  char zone[16];
  std::snprintf(zone, sizeof zone, "%c%02d:00", offset_hours < 0 ? '-' : '+', offset_hours < 0 ? -offset_hours : offset_hours);
  return buf + fraction + zone;
}

const char* const kTwitchMessageId = "befa7b53-d79d-478f-86b9-120f112b044e";

Headers TwitchHeaders(const std::string& s, const std::string& b, int64_t ts, const std::string& type) {
  const std::string when = Rfc3339(ts, 0, ".123456789");
  return {{"Twitch-Eventsub-Message-Id", kTwitchMessageId},
          {"Twitch-Eventsub-Message-Retry", "0"},
          {"Twitch-Eventsub-Message-Type", type},
          {"Twitch-Eventsub-Message-Timestamp", when},
          {"Twitch-Eventsub-Subscription-Type", "channel.follow"},
          {"Twitch-Eventsub-Subscription-Version", "2"},
          {"Twitch-Eventsub-Message-Signature", "sha256=" + HexSha256(s, kTwitchMessageId + when + b)}};
}

std::vector<Case> Cases() {
  std::vector<Case> c;
  c.push_back({"clickup", "4F0Y3RMHQCV8WZ2XJ1S7KD5N6TBGAPLE", "CKDN3B8W6XQ1Z0RJ5VTS7YMH4FA2LPGE",
               [](int64_t, int) {
                 return std::string(R"({"event":"taskStatusUpdated","history_items":[{"id":"2800787326392773237",)"
                                    R"("field":"status"}],"task_id":"1vj37mc","webhook_id":)"
                                    R"("7fa3ec74-69a8-4530-a251-8a13730bd204"})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Signature", HexSha256(s, b)}};
               },
               "X-Signature", "", "taskStatusUpdated"});
  c.push_back({"todoist", "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210",
               [](int64_t, int) {
                 return std::string(R"({"event_name":"item:completed","user_id":"2671355",)"
                                    R"("event_data":{"id":"6X7rM8997g3RQmvh","content":"Buy Milk"},)"
                                    R"("initiator":{"id":"2671355"},"version":"10"})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Todoist-Hmac-SHA256", B64Sha256(s, b)},
                         {"X-Todoist-Delivery-ID", "2dd2b4a7-5bd9-4c5c-8d9e-3c1d9a4f7b10"},
                         {"User-Agent", "Todoist-Webhooks"}};
               },
               "X-Todoist-Hmac-SHA256", "2dd2b4a7-5bd9-4c5c-8d9e-3c1d9a4f7b10", "item:completed"});
  c.push_back({"ghost", "6c1f0e0bd2f84cbb9b8a7d2c4e1f3a5b", "another-ghost-webhook-secret",
               [](int64_t, int) {
                 return std::string(R"({"post":{"current":{"id":"6776a7f2c1d0a20001f3b2c1","title":"Hello",)"
                                    R"("status":"published"},"previous":{"status":"draft"}}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 return {{"X-Ghost-Signature", "sha256=" + HexSha256(s, b + Ms(ts)) + ", t=" + Ms(ts)}};
               },
               "X-Ghost-Signature", "", "", true, true});
  c.push_back({"heroku", "heroku-webhook-secret-1f2e3d4c", "another-heroku-secret",
               [](int64_t, int attempt) {
                 return std::string(R"({"id":"43d64e30-2b5e-4b52-9a3f-2a5d6e7f8091","action":"create",)"
                                    R"("resource":"release","data":{"id":"8f2c4b1a","version":13},"previous_data":{},)"
                                    R"("webhook_metadata":{"attempt":{"id":"att-)") +
                        std::to_string(attempt) +
                        R"("},"delivery":{"id":"d1c4f2a0-7e3b-4c9d-8a1f-5b6c7d8e9f00"},)"
                        R"("event":{"id":"43d64e30-2b5e-4b52-9a3f-2a5d6e7f8091","include":"api:release"},)"
                        R"("webhook":{"id":"a1b2c3d4-0000-4000-8000-123456789abc"}}})";
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"Heroku-Webhook-Hmac-SHA256", B64Sha256(s, b)}};
               },
               "Heroku-Webhook-Hmac-SHA256", "d1c4f2a0-7e3b-4c9d-8a1f-5b6c7d8e9f00", "api:release", true, false, true});
  c.push_back({"circleci", "circleci-secret-token", "another-token",
               [](int64_t, int) {
                 return std::string(R"({"id":"3888f21b-eaa7-38e3-8f3d-75a63bba8895","type":"workflow-completed",)"
                                    R"("happened_at":"2026-01-01T00:00:00.000Z","webhook":{"id":"cf8c4fdd"},)"
                                    R"("workflow":{"status":"success"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"circleci-signature", "v1=" + HexSha256(s, b)},
                         {"circleci-event-type", "workflow-completed"}};
               },
               "circleci-signature", "3888f21b-eaa7-38e3-8f3d-75a63bba8895", "workflow-completed"});
  c.push_back({"pagerduty", "ChGpSPDvMsHAuVHLW9WaRX7xkcyF9ZBx", "ZHd1TxPSd3u5s7A1gBqNXGo1mWkTLaJ2",
               [](int64_t, int) {
                 return std::string(R"({"event":{"id":"01DEN4HPBQAM5CHQ9M4D5ENRLT","event_type":"incident.triggered",)"
                                    R"("resource_type":"incident","occurred_at":"2026-01-01T00:00:00.000Z",)"
                                    R"("data":{"id":"PGR0VU2","type":"incident"}}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-PagerDuty-Signature", "v1=" + HexSha256(s, b)},
                         {"X-Webhook-Id", "2f6a0b0e-8a38-4b8b-9c5e-8f4bfa0a1c11"}};
               },
               "X-PagerDuty-Signature", "01DEN4HPBQAM5CHQ9M4D5ENRLT", "incident.triggered"});
  c.push_back({"workos", "wk_sig_8f1d2c3b4a5e6f708192a3b4c5d6e7f8", "wk_sig_another",
               [](int64_t, int) {
                 return std::string(R"({"id":"event_01J9ZT8YQ2C3E4F5G6H7J8K9M0","event":"user.created",)"
                                    R"("data":{"object":"user","id":"user_01E4ZCR3C56J083X43JQXF3JK5"},)"
                                    R"("created_at":"2026-01-01T00:00:00.000Z"})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 return {{"WorkOS-Signature", "t=" + Ms(ts) + ", v1=" + HexSha256(s, Ms(ts) + "." + b)}};
               },
               "WorkOS-Signature", "event_01J9ZT8YQ2C3E4F5G6H7J8K9M0", "user.created", true, true});
  c.push_back({"sanity", "sanity-webhook-secret", "another-sanity-secret",
               [](int64_t, int) { return std::string(R"({"_id":"post-123","_type":"post","slug":"hello-world"})"); },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 return {{"sanity-webhook-signature", "t=" + Ms(ts) + ",v1=" + B64UrlSha256(s, Ms(ts) + "." + b)},
                         {"idempotency-key", "msg-1ZeoZyG9UuKoBOGcBUVVbP"},
                         {"sanity-operation", "update"},
                         {"sanity-document-id", "post-123"},
                         {"sanity-project-id", "3do82whm"},
                         {"sanity-dataset", "production"}};
               },
               "sanity-webhook-signature", "msg-1ZeoZyG9UuKoBOGcBUVVbP", "update", true, true});
  c.push_back({"box", "SamplePrimaryKey0123456789abcdef", "SampleSecondaryKeyfedcba98765432",
               [](int64_t, int) {
                 return std::string(R"({"type":"webhook_event","id":"eb0c4e06-751f-442c-86f8-fd5bb404dbec",)"
                                    R"("created_at":"2026-01-01T00:00:00-08:00","trigger":"FILE.UPLOADED",)"
                                    R"("webhook":{"id":"1234567890"},"source":{"id":"1234567890","type":"file"}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 const std::string when = Rfc3339(ts, -7, "");
                 return {{"BOX-DELIVERY-ID", "f96bb54b-ee16-4fc5-aa65-8c2d9e5b546f"},
                         {"BOX-DELIVERY-TIMESTAMP", when},
                         {"BOX-SIGNATURE-ALGORITHM", "HmacSHA256"},
                         {"BOX-SIGNATURE-VERSION", "1"},
                         {"BOX-SIGNATURE-PRIMARY", B64Sha256(s, b + when)},
                         {"BOX-SIGNATURE-SECONDARY", B64Sha256("some-other-key", b + when)}};
               },
               "BOX-SIGNATURE-PRIMARY", "eb0c4e06-751f-442c-86f8-fd5bb404dbec", "FILE.UPLOADED", true, true});
  for (const char* name : {"twitch", "twitch-eventsub"}) {
    c.push_back({name, "s3cRe7-twitch-eventsub", "another-twitch-secret",
                 [](int64_t, int) {
                   return std::string(R"({"subscription":{"id":"f1c2a387-161a-49f9-a165-0f21d7a4e1c4",)"
                                      R"("type":"channel.follow","version":"2","status":"enabled"},)"
                                      R"("event":{"user_id":"1234","broadcaster_user_id":"1337"}})");
                 },
                 [](const std::string& s, const std::string& b, int64_t ts) {
                   return TwitchHeaders(s, b, ts, "notification");
                 },
                 "Twitch-Eventsub-Message-Signature", kTwitchMessageId, "channel.follow", true, true});
  }
  c.push_back({"dropbox", "dropbox-app-secret-xyz", "another-app-secret",
               [](int64_t, int) {
                 return std::string(R"({"list_folder":{"accounts":["dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc"]},)"
                                    R"("delta":{"users":[12345678]}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Dropbox-Signature", HexSha256(s, b)}};
               },
               "X-Dropbox-Signature", "", ""});
  return c;
}

}  // namespace

TEST_CASE("devtools presets: a signed delivery verifies and identifies; tampering is refused", "[presets][devtools]") {
  for (const Case& c : Cases()) {
    SECTION("preset " + c.provider) { CheckPresetCase(c); }
  }
}

TEST_CASE("devtools presets: the documented tolerances and retry windows", "[presets][devtools]") {
  CHECK(FindPreset("workos")->signature.tolerance_seconds == 180);  // the SDK's default
  CHECK(FindPreset("box")->signature.tolerance_seconds == 600);     // Box: ten minutes
  CHECK(FindPreset("twitch")->signature.tolerance_seconds == 600);  // Twitch: ten minutes
  CHECK(FindPreset("heroku")->redelivery_window_hours == 72);
  CHECK(FindPreset("workos")->redelivery_window_hours == 72);
  CHECK(FindPreset("todoist")->redelivery_window_hours == 1);
  CHECK(FindPreset("dropbox")->redelivery_window_hours == 0);  // about ten minutes
  CHECK(PresetSecretHint("twitch-eventsub") == PresetSecretHint("twitch"));
  for (const char* name : {"clickup", "todoist", "ghost", "heroku", "circleci", "pagerduty", "workos", "sanity", "box",
                           "twitch", "dropbox"}) {
    INFO(name);
    CHECK_FALSE(PresetSecretHint(name).empty());
  }
}

TEST_CASE("devtools presets: a stale timestamp is refused even a few minutes out", "[presets][devtools]") {
  // WorkOS allows 180 s and Box 600 s: just inside passes, just outside does not.
  const config::EndpointConfig workos = LoadEndpoint("workos", "wk_sig_secret");
  const std::string body = R"({"id":"event_1","event":"user.created"})";
  auto workos_at = [&](int64_t ts) {
    return VerifyAt(workos,
                    ToMap({{"WorkOS-Signature", "t=" + Ms(ts) + ", v1=" + HexSha256("wk_sig_secret", Ms(ts) + "." + body)}}),
                    body, kNow);
  };
  CHECK(workos_at(kNow - 170).ok());
  CHECK(workos_at(kNow - 200).code() == Code::kUnauthenticated);

  const config::EndpointConfig box = LoadEndpoint("box", "box-primary");
  auto box_at = [&](int64_t ts) {
    const std::string when = Rfc3339(ts, 2, "");
    return VerifyAt(box, ToMap({{"BOX-DELIVERY-TIMESTAMP", when}, {"BOX-SIGNATURE-PRIMARY", B64Sha256("box-primary", body + when)}}),
                    body, kNow);
  };
  CHECK(box_at(kNow - 590).ok());
  CHECK(box_at(kNow - 610).code() == Code::kUnauthenticated);
}

TEST_CASE("devtools presets: PagerDuty's several v1 signatures during a rotation", "[presets][devtools]") {
  const config::EndpointConfig e = LoadEndpoint("pagerduty", "new-pagerduty-secret");
  const std::string body = R"({"event":{"id":"01DEN4HPBQAM5CHQ9M4D5ENRLT","event_type":"incident.resolved"}})";
  const std::string mine = "v1=" + HexSha256("new-pagerduty-secret", body);
  const std::string theirs = "v1=" + HexSha256("old-pagerduty-secret", body);
  CHECK(VerifyAt(e, ToMap({{"X-PagerDuty-Signature", theirs + "," + mine}}), body, kNow).ok());
  CHECK(VerifyAt(e, ToMap({{"X-PagerDuty-Signature", mine + ", " + theirs}}), body, kNow).ok());
  CHECK(VerifyAt(e, ToMap({{"X-PagerDuty-Signature", theirs}}), body, kNow).code() == Code::kUnauthenticated);
  CHECK(VerifyAt(e, ToMap({{"X-PagerDuty-Signature", "v0=" + HexSha256("new-pagerduty-secret", body)}}), body, kNow)
            .code() == Code::kUnauthenticated);
}

TEST_CASE("devtools presets: Box reads only the primary signature", "[presets][devtools]") {
  const config::EndpointConfig e = LoadEndpoint("box", "box-primary");
  const std::string body = R"({"type":"webhook_event","id":"e1","trigger":"FILE.UPLOADED"})";
  const std::string when = Rfc3339(kNow, 0, "");
  // Signed only under the secondary key (primary = another key): refused,
  // since the endpoint was configured with the primary key alone.
  CHECK(VerifyAt(e,
                 ToMap({{"BOX-DELIVERY-TIMESTAMP", when},
                        {"BOX-SIGNATURE-PRIMARY", B64Sha256("rotated-primary", body + when)},
                        {"BOX-SIGNATURE-SECONDARY", B64Sha256("box-primary", body + when)}}),
                 body, kNow)
            .code() == Code::kUnauthenticated);
}

TEST_CASE("devtools presets: Twitch's callback verification is answered with its challenge", "[presets][devtools]") {
  const config::EndpointConfig e = LoadEndpoint("twitch", "s3cRe7-twitch-eventsub");
  const std::string body = R"({"challenge":"pogchamp-kappa-360noscope-vohiyo","subscription":{"id":"f1c2a387",)"
                           R"("status":"webhook_callback_verification_pending","type":"channel.follow"}})";
  const Headers headers = TwitchHeaders("s3cRe7-twitch-eventsub", body, kNow - 5, "webhook_callback_verification");
  const MapHeaders map = ToMap(headers);
  const DeliveryView view{"POST", "/hooks/hooks", map, body};
  REQUIRE(VerifyAt(e, map, body, kNow).ok());  // the verification request is signed like any message
  std::optional<HandshakeAnswer> answer = AnswerSignedHandshake(e, e.secrets, view, kNow * 1000);
  REQUIRE(answer.has_value());
  CHECK(answer->http_status == 200);
  CHECK(answer->content_type == "text/plain");
  CHECK(answer->body == "pogchamp-kappa-360noscope-vohiyo");
  CHECK_FALSE(answer->unverified);

  SECTION("a notification is a delivery, not a handshake") {
    const std::string note = R"({"challenge":"x","event":{"user_id":"1"}})";
    const MapHeaders h = ToMap(TwitchHeaders("s3cRe7-twitch-eventsub", note, kNow, "notification"));
    CHECK_FALSE(AnswerSignedHandshake(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, note}, kNow * 1000));
  }
  SECTION("a challenge that cannot be echoed safely is refused") {
    const std::string bad = R"({"challenge":"<script>alert(1)</script>"})";
    const MapHeaders h = ToMap(TwitchHeaders("s3cRe7-twitch-eventsub", bad, kNow, "webhook_callback_verification"));
    std::optional<HandshakeAnswer> refused = AnswerSignedHandshake(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, bad}, kNow * 1000);
    REQUIRE(refused.has_value());
    CHECK(refused->http_status == 400);
    CHECK(refused->body.find("script") == std::string::npos);
  }
  SECTION("a verification without a challenge is refused") {
    const std::string none = R"({"subscription":{"id":"f1c2a387"}})";
    const MapHeaders h = ToMap(TwitchHeaders("s3cRe7-twitch-eventsub", none, kNow, "webhook_callback_verification"));
    std::optional<HandshakeAnswer> refused = AnswerSignedHandshake(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, none}, kNow * 1000);
    REQUIRE(refused.has_value());
    CHECK(refused->http_status == 400);
  }
}

TEST_CASE("devtools presets: Dropbox's GET challenge is echoed, unverified", "[presets][devtools]") {
  const config::EndpointConfig e = LoadEndpoint("dropbox", "dropbox-app-secret-xyz");
  std::optional<HandshakeAnswer> answer = AnswerGetHandshake(e, "challenge=abc123XYZ-_");
  REQUIRE(answer.has_value());
  CHECK(answer->http_status == 200);
  CHECK(answer->content_type == "text/plain");
  CHECK(answer->body == "abc123XYZ-_");
  CHECK(answer->unverified);  // audited like an unsigned ping: nothing in it is signed

  for (const char* query : {"", "other=1", "challenge=", "challenge=%3Cb%3E", "challenge=a%ZZ"}) {
    INFO(query);
    std::optional<HandshakeAnswer> refused = AnswerGetHandshake(e, query);
    REQUIRE(refused.has_value());
    CHECK(refused->http_status == 400);
  }
  // Another preset answers no Dropbox challenge.
  CHECK_FALSE(AnswerGetHandshake(LoadEndpoint("box", "k"), "challenge=abc"));
}

TEST_CASE("devtools presets: send-test writes Sanity's signature as Sanity does (base64url, unpadded)",
          "[presets][devtools][sign]") {
  const config::EndpointConfig e = LoadEndpoint("sanity", "send-test-secret");
  Result<SignedDelivery> d = SignDelivery(e, e.secrets.front(), SampleBody(e, "update", kNow * 1000), kNow * 1000,
                                          "POST", "https://h/hooks/sanity", "update");
  REQUIRE(d.ok());
  std::string header;
  for (const auto& [name, value] : d->headers) {
    if (name == "sanity-webhook-signature") header = value;
  }
  const size_t v1 = header.find(",v1=");
  REQUIRE(v1 != std::string::npos);
  const std::string sig = header.substr(v1 + 4);
  const std::string ts = header.substr(2, v1 - 2);
  CHECK(sig == B64UrlSha256("send-test-secret", ts + "." + d->body));
  CHECK(sig.find_first_of("+/=") == std::string::npos);
}

TEST_CASE("devtools presets: send-test signs a sample each preset accepts", "[presets][devtools][sign]") {
  constexpr int64_t kNowMs = kNow * 1000 + 123;
  for (const char* name : {"clickup", "todoist", "ghost", "heroku", "circleci", "pagerduty", "workos", "sanity", "box",
                           "twitch", "dropbox"}) {
    SECTION(name) { CheckSendTestSample(LoadEndpoint(name, "send-test-secret"), kNowMs, "thing.happened", false); }
  }
}
