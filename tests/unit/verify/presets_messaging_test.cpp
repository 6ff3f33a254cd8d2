// The "messaging" group of wave-2 presets (src/verify/presets_messaging.cpp):
// Telegram, Viber, LINE, Telnyx, Help Scout, Front, Freshdesk, KeyCRM,
// Cal.com, Acuity, DocuSign, PandaDoc, Xero, QuickBooks. Each preset is loaded through
// config::LoadString with only provider + secret (+ what the provider
// requires); deliveries shaped like the provider's are signed here with
// OpenSSL (HMAC(), EVP_DigestSign), never with verify/'s own signer, and
// checked with Verify and Identify (CheckPresetCase, preset_case.h); each
// handshake is answered.
#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <functional>
#include <string>

#include "common/encoding.h"
#include "ed25519_key.h"
#include "preset_case.h"
#include "support/openssl_hmac.h"
#include "verify/handshake.h"
#include "verify/identity.h"
#include "verify/public_key.h"
#include "verify/registry.h"
#include "verify/sign.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

namespace {

// The canonical-hash id of a body that is already canonical JSON (sorted keys, no spaces).
std::string HashId(const std::string& body) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  return "sha256:" + HexEncode(std::string(reinterpret_cast<char*>(digest), sizeof digest));
}

Status VerifyCt(const config::EndpointConfig& e, const std::string& ct, const Headers& h, const std::string& body,
                const std::string& without = "") {
  return VerifyAt(e, WithType(ct, h, without), body, kNow);
}

// The first event's identity: the whole body's, or the first of a batch.
Result<EventIdentity> First(const config::EndpointConfig& e, const std::string& ct, const Headers& h,
                            const std::string& body) {
  if (!e.key.batch) return Identify(e, WithType(ct, h), body, ct == kJson);
  Result<std::vector<BatchEvent>> events = IdentifyBatch(e, WithType(ct, h), body);
  if (!events.ok()) return events.status();
  return events->front().identity;
}

// Bodies written in canonical form (sorted keys, no spaces) where the key is the canonical hash.
const std::string kHelpScoutBody =
    R"({"createdAt":"2026-01-01T00:00:00Z","id":2391938111,"number":349,"status":"active","subject":"Refund?","type":"email"})";
const std::string kFreshdeskBody = R"({"freshdesk_webhook":{"ticket_id":4711,"ticket_status":"Open"}})";

std::vector<Case> Cases() {
  std::vector<Case> c;
  c.push_back({"telegram", "tg_secret-Token_1", "tg_other-token",
               [](int64_t, int) {
                 return std::string(R"({"update_id":735591844,"message":{"message_id":52,"date":1767225590,)"
                                    R"("chat":{"id":111222333,"type":"private"},"text":"/start"}})");
               },
               [](const std::string& s, const std::string&, int64_t) -> Headers {
                 return {{"X-Telegram-Bot-Api-Secret-Token", s}};
               },
               "X-Telegram-Bot-Api-Secret-Token", "735591844", "message", false});
  // The docs' example token and message event (providers-wave2.md, Viber).
  c.push_back({"viber", "445da6az1s345z78-dazcczb2542zv51a-e0vc5fva17480im9", "other-viber-token",
               [](int64_t, int) {
                 return std::string(R"({"event":"message","timestamp":1457764197627,"message_token":4912661846655238145,)"
                                    R"("sender":{"id":"01234567890A="},"message":{"type":"text","text":"a message"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Viber-Content-Signature", HexSha256(s, b)}};
               },
               "X-Viber-Content-Signature", "message:4912661846655238145", "message"});
  c.push_back({"line", "8c570fa6dd201bb328f1c1eac23a96d8", "0123456789abcdef0123456789abcdef",
               [](int64_t, int attempt) {
                 return R"({"destination":"U1234567890abcdef1234567890abcdef","events":[{"type":"message",)"
                        R"("message":{"type":"text","id":"468789577898262530","text":"hi"},"webhookEventId":)"
                        R"("01H810YECXQQZ37VAXPF6H9E6T","deliveryContext":{"isRedelivery":)" +
                        std::string(attempt > 1 ? "true" : "false") +
                        R"(},"timestamp":1692251666727,"source":{"type":"user","userId":"U4af4980629"},"mode":"active"}]})";
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"x-line-signature", B64Sha256(s, b)}};
               },
               "x-line-signature", "01H810YECXQQZ37VAXPF6H9E6T", "message", true, false, true});
  c.push_back({"help-scout", "hs-secret-key", "another-secret", [](int64_t, int) { return kHelpScoutBody; },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-HelpScout-Signature", B64Sha1(s, b)}, {"X-HelpScout-Event", "convo.created"}};
               },
               "X-HelpScout-Signature", HashId(kHelpScoutBody), "convo.created"});
  c.push_back({"front", "front-app-secret", "another-secret",
               [](int64_t, int) {
                 return std::string(R"({"type":"inbound_received","authorization":{"id":"cmp_123"},)"
                                    R"("payload":{"_links":{},"id":"evt_55c8c149","type":"inbound","emitted_at":1767225590.1}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 const std::string ms = std::to_string(ts * 1000 + 250);
                 return {{"X-Front-Signature", B64Sha256(s, ms + ":" + b)}, {"X-Front-Request-Timestamp", ms}};
               },
               "X-Front-Signature", "evt_55c8c149", "inbound_received", true, true});
  c.push_back({"freshdesk", "fd-user:fd-password", "fd-user:other", [](int64_t, int) { return kFreshdeskBody; },
               [](const std::string& s, const std::string&, int64_t) -> Headers {
                 return {{"Authorization", "Basic " + Base64Encode(s)}};
               },
               "Authorization", HashId(kFreshdeskBody), "", false});
  c.push_back({"cal-com", "cal-webhook-secret", "another-secret",
               [](int64_t, int) {
                 return std::string(R"({"triggerEvent":"BOOKING_CREATED","createdAt":"2026-01-01T00:00:00.000Z",)"
                                    R"("payload":{"type":"30min","title":"30 min","uid":"bFJeNb2uX8ANpT3JL5EfXw",)"
                                    R"("bookingId":91,"startTime":"2026-01-02T09:00:00Z"}})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Cal-Signature-256", HexSha256(s, b)}};
               },
               "X-Cal-Signature-256", "BOOKING_CREATED:bFJeNb2uX8ANpT3JL5EfXw", "BOOKING_CREATED"});
  c.push_back({"cal", "cal-webhook-secret", "another-secret", c.back().body, c.back().headers, "X-Cal-Signature-256",
               "BOOKING_CREATED:bFJeNb2uX8ANpT3JL5EfXw", "BOOKING_CREATED"});
  c.push_back({"acuity", "acuity-api-key-0123", "another-api-key",
               [](int64_t, int) { return std::string("action=scheduled&id=1185342577&calendarID=3428191&appointmentTypeID=19238"); },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Acuity-Signature", B64Sha256(s, b)}};
               },
               "X-Acuity-Signature", "scheduled:1185342577", "scheduled"});
  c.back().content_type = kForm;
  c.push_back({"docusign", "dsHMACkey+0123456789abcdefABCDEF=", "another-key",
               [](int64_t, int attempt) {
                 return R"({"event":"envelope-completed","apiVersion":"v2.1","uri":"/restapi/v2.1/accounts/a1/envelopes/e1",)"
                        R"("retryCount":)" +
                        std::to_string(attempt - 1) +
                        R"(,"configurationId":10418,"generatedDateTime":"2026-01-01T00:00:00.1234567Z",)"
                        R"("data":{"accountId":"a1","userId":"u1","envelopeId":"93be49ab-afa0-4adf-933c-f752070d71ec"}})";
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-DocuSign-Signature-1", B64Sha256(s, b)}, {"x-authorization-digest", "HMACSHA256"}};
               },
               "X-DocuSign-Signature-1",
               "envelope-completed:93be49ab-afa0-4adf-933c-f752070d71ec:2026-01-01T00:00:00.1234567Z",
               "envelope-completed", true, false, true});
  c.push_back({"xero", "xeroWebhookKey/0123456789+abcdefghijklmnopqrstuvwxyz==", "another-key",
               [](int64_t, int) {
                 return std::string(
                     R"({"events":[{"resourceUrl":"https://api.xero.com/api.xro/2.0/Contacts/717f2bfc",)"
                     R"("resourceId":"717f2bfc-c6d4-41fd-b238-3f2f0c0cf777","eventDateUtc":"2026-01-01T00:00:00.153",)"
                     R"("eventType":"UPDATE","eventCategory":"CONTACT","tenantId":"c2cc9b6e-9458-4c7d-93cc-f02b81b0594f",)"
                     R"("tenantType":"ORGANISATION"}],"lastEventSequence":1,"firstEventSequence":1,"entropy":"S0m3r4Nd0mt3xt"})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"x-xero-signature", B64Sha256(s, b)}};
               },
               "x-xero-signature",
               "c2cc9b6e-9458-4c7d-93cc-f02b81b0594f:CONTACT:717f2bfc-c6d4-41fd-b238-3f2f0c0cf777:"
               "2026-01-01T00:00:00.153:UPDATE",
               "CONTACT"});
  c.push_back({"quickbooks", "qbo-verifier-token-0123", "another-token",
               [](int64_t, int) {
                 return std::string(R"([{"specversion":"1.0","id":"88cd52a4-8a04-4e3b-9a8f-1f2e3d4c5b6a",)"
                                    R"("source":"intuit.dsnBgbseACLLRZNxo2dfc4evmEJdxde58xeeYcZliOU=",)"
                                    R"("type":"qbo.invoice.created.v1","datacontenttype":"application/json",)"
                                    R"("time":"2026-01-01T00:00:00Z","intuitentityid":"130","intuitaccountid":"9341453",)"
                                    R"("data":{}}])");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"intuit-signature", B64Sha256(s, b)}};
               },
               "intuit-signature", "88cd52a4-8a04-4e3b-9a8f-1f2e3d4c5b6a", "qbo.invoice.created.v1"});
  return c;
}

}  // namespace

TEST_CASE("presets messaging: a delivery verifies and identifies; resent it is the same key; tampering is refused",
          "[presets][messaging]") {
  for (const Case& c : Cases()) {
    SECTION("preset " + c.provider) { CheckPresetCase(c); }
  }
}

TEST_CASE("preset telegram: the event type is the update's one member besides update_id", "[presets][messaging]") {
  const config::EndpointConfig e = LoadEndpoint("telegram", "tg_secret");
  auto type_of = [&](const std::string& body) {
    Result<EventIdentity> id = Identify(e, WithType(kJson, {}), body, true);
    REQUIRE(id.ok());
    return id->event_type;
  };
  CHECK(type_of(R"({"update_id":1,"callback_query":{"id":"4382","data":"ok"}})") == "callback_query");
  CHECK(type_of(R"({"my_chat_member":{"date":1},"update_id":2})") == "my_chat_member");
  CHECK(type_of(R"({"update_id":3})").empty());  // nothing else: no type, still keyed

  // The knob counts as an event type source for an allow-list, and a file's own source replaces it.
  CHECK(LoadPreset("telegram", "tg_secret", "event_types = [\"message\"]\n").ok());
  const config::EndpointConfig own = LoadEndpoint("telegram", "tg_secret", "[endpoint.key]\nevent_type_pointer = \"/message/chat/type\"\n");
  CHECK(own.key.event_type_member_besides.empty());
  Result<EventIdentity> id = Identify(own, WithType(kJson, {}), R"({"update_id":4,"message":{"chat":{"type":"group"}}})", true);
  REQUIRE(id.ok());
  CHECK(id->event_type == "group");
  CHECK(FindPreset("telegram")->redelivery_window_hours == 24);
}

TEST_CASE("preset viber: the signed \"webhook\" callback is answered 200 and not stored", "[presets][messaging]") {
  const std::string token = "445da6az1s345z78-dazcczb2542zv51a-e0vc5fva17480im9";
  const config::EndpointConfig e = LoadEndpoint("viber", token);
  CHECK(e.redelivery_window_hours == 1);
  const std::string body =
      R"({"event":"webhook","timestamp":1457764197627,"chat_hostname":"SN-376_","message_token":5019291014405669354})";
  MapHeaders h = WithType(kJson, {{"X-Viber-Content-Signature", HexSha256(token, body)}});
  const DeliveryView view{"POST", "/hooks/hooks", h, body};
  REQUIRE(Verify(e, e.secrets, view, kNow * 1000).ok());
  auto answer = AnswerSignedHandshake(e, e.secrets, view, kNow * 1000);
  REQUIRE(answer);
  CHECK(answer->http_status == 200);
  CHECK(answer->body.empty());
  CHECK(answer->what == "viber webhook");

  const std::string message = R"({"event":"message","timestamp":1,"message_token":2,"sender":{"id":"x"}})";
  MapHeaders mh = WithType(kJson, {{"X-Viber-Content-Signature", HexSha256(token, message)}});
  CHECK_FALSE(AnswerSignedHandshake(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", mh, message}, kNow * 1000));
  // A forged "webhook" callback never reaches the handshake: Verify refuses it first.
  MapHeaders forged = WithType(kJson, {{"X-Viber-Content-Signature", HexSha256("not-the-token", body)}});
  CHECK(Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", forged, body}, kNow * 1000).code() ==
        Code::kUnauthenticated);
}

TEST_CASE("presets line and xero: a signed body with no events is the handshake", "[presets][messaging]") {
  struct Shake {
    std::string provider, secret, header, body, what;
  };
  const Shake shakes[] = {
      {"line", "8c570fa6dd201bb328f1c1eac23a96d8", "x-line-signature",
       R"({"destination":"U1234567890abcdef1234567890abcdef","events":[]})", "line verify"},
      {"xero", "xeroWebhookKey==", "x-xero-signature",
       R"({"events":[],"firstEventSequence":0,"lastEventSequence":0,"entropy":"YSXCMKAQBJOEMGUZEPFZ"})",
       "xero intent to receive"},
  };
  for (const Shake& s : shakes) {
    SECTION(s.provider) {
      const config::EndpointConfig e = LoadEndpoint(s.provider, s.secret);
      MapHeaders h = WithType(kJson, {{s.header, B64Sha256(s.secret, s.body)}});
      const DeliveryView view{"POST", "/hooks/hooks", h, s.body};
      REQUIRE(Verify(e, e.secrets, view, kNow * 1000).ok());
      auto answer = AnswerSignedHandshake(e, e.secrets, view, kNow * 1000);
      REQUIRE(answer);
      CHECK(answer->http_status == 200);
      CHECK(answer->body.empty());
      CHECK(answer->what == s.what);
      // Xero's check also sends badly signed bodies and expects 401: Verify's answer.
      MapHeaders bad = WithType(kJson, {{s.header, B64Sha256("another-key", s.body)}});
      CHECK(Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", bad, s.body}, kNow * 1000).code() ==
            Code::kUnauthenticated);
      // Events present: not a handshake.
      const std::string full = R"({"events":[{"type":"x"}]})";
      MapHeaders fh = WithType(kJson, {{s.header, B64Sha256(s.secret, full)}});
      CHECK_FALSE(AnswerSignedHandshake(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", fh, full}, kNow * 1000));
    }
  }
}

TEST_CASE("preset front: the x-front-challenge request is answered with the challenge", "[presets][messaging]") {
  const std::string secret = "front-app-secret";
  const config::EndpointConfig e = LoadEndpoint("front", secret);
  const std::string body = R"({"type":"sync","authorization":{"id":"cmp_abc"}})";
  const std::string ms = std::to_string(kNow * 1000);
  auto headers = [&](const std::string& challenge) {
    return WithType(kJson, {{"X-Front-Signature", B64Sha256(secret, ms + ":" + body)},
                        {"X-Front-Request-Timestamp", ms},
                        {"x-front-challenge", challenge}});
  };
  MapHeaders h = headers("bm90LWEtcmVhbC1jaGFsbGVuZ2U");
  const DeliveryView view{"POST", "/hooks/hooks", h, body};
  REQUIRE(Verify(e, e.secrets, view, kNow * 1000).ok());
  auto answer = AnswerSignedHandshake(e, e.secrets, view, kNow * 1000);
  REQUIRE(answer);
  CHECK(answer->http_status == 200);
  CHECK(answer->content_type == "text/plain");
  CHECK(answer->body == "bm90LWEtcmVhbC1jaGFsbGVuZ2U");

  MapHeaders markup = headers("<script>");
  auto refused = AnswerSignedHandshake(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", markup, body}, kNow * 1000);
  REQUIRE(refused);
  CHECK(refused->http_status == 400);
  CHECK(refused->body.find("<script>") == std::string::npos);

  MapHeaders plain = WithType(kJson, {{"X-Front-Signature", B64Sha256(secret, ms + ":" + body)}, {"X-Front-Request-Timestamp", ms}});
  CHECK_FALSE(AnswerSignedHandshake(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", plain, body}, kNow * 1000));
}

TEST_CASE("preset keycrm: unsigned, so it needs insecure = true; keyed on event + order + status + time",
          "[presets][messaging]") {
  config::LoadResult refused = LoadPreset("keycrm", "unused");
  REQUIRE(!refused.ok());
  CHECK(refused.errors.at(0).key == "endpoint[0].signature.scheme");
  const config::EndpointConfig e = LoadEndpoint("keycrm", "unused", "insecure = true\n");
  const std::string body = R"({"event":"order.change_order_status","context":{"id":5120,"status_id":3,)"
                           R"("source_uuid":"ab-12","grand_total":1520.5,"updated_at":"2026-01-01 10:00:00"}})";
  CHECK(VerifyAt(e, WithType(kJson, {}), body, kNow).ok());
  Result<EventIdentity> id = Identify(e, WithType(kJson, {}), body, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "order.change_order_status:5120:3:2026-01-01 10:00:00");
  CHECK(id->event_type == "order.change_order_status");
  // A body without the order's fields is refused, not keyed on something else.
  CHECK_FALSE(Identify(e, WithType(kJson, {}), R"({"event":"order.created"})", true).ok());
}

namespace {

// As Telnyx's portal shows it: the raw 32-byte key in base64.
std::string RawBase64(const Key& k) {
  unsigned char raw[32];
  size_t len = sizeof raw;
  REQUIRE(EVP_PKEY_get_raw_public_key(k.get(), raw, &len) == 1);
  return Base64Encode(std::string(reinterpret_cast<char*>(raw), len));
}

}  // namespace

TEST_CASE("preset telnyx: Ed25519 over timestamp|body with the base64 public key", "[presets][messaging]") {
  const Key key = NewEd25519();
  const Key other = NewEd25519();
  ::setenv("HOOKINBOX_VT_TELNYX_KEY", RawBase64(key).c_str(), 1);
  config::LoadResult r = config::LoadString(
      "[[endpoint]]\nname = \"hooks\"\nprovider = \"telnyx\"\npublic_key_env = \"HOOKINBOX_VT_TELNYX_KEY\"\n", "test.toml",
      "/tmp", &Presets());
  INFO(Dump(r));
  REQUIRE(r.ok());
  const config::EndpointConfig& e = r.config.endpoints.at(0);
  REQUIRE(CheckEndpoint(e).ok());

  const std::string body =
      R"({"data":{"event_type":"message.received","id":"b301ed3f-1490-491f-995f-6e64e69674d4",)"
      R"("occurred_at":"2026-01-01T00:00:00.000+00:00","payload":{"text":"hi"},"record_type":"event"},)"
      R"("meta":{"attempt":1,"delivered_to":"https://example.com/hooks"}})";
  auto headers = [&](const Key& signer, const std::string& b, int64_t ts) -> Headers {
    return {{"telnyx-signature-ed25519", Base64Encode(Ed25519Sign(signer, Ts(ts) + "|" + b))},
            {"telnyx-timestamp", Ts(ts)}};
  };
  CHECK(VerifyAt(e, WithType(kJson, headers(key, body, kNow - 5)), body, kNow).ok());
  Result<EventIdentity> id = Identify(e, WithType(kJson, headers(key, body, kNow - 5)), body, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "b301ed3f-1490-491f-995f-6e64e69674d4");
  CHECK(id->event_type == "message.received");

  std::string tampered = body;
  tampered[20] ^= 0x01;
  CHECK(VerifyAt(e, WithType(kJson, headers(key, body, kNow - 5)), tampered, kNow).code() == Code::kUnauthenticated);
  CHECK(VerifyAt(e, WithType(kJson, headers(other, body, kNow - 5)), body, kNow).code() == Code::kUnauthenticated);
  Status old = VerifyAt(e, WithType(kJson, headers(key, body, kNow - 3600)), body, kNow);
  CHECK(old.code() == Code::kUnauthenticated);
  CHECK(old.message() == "timestamp outside tolerance");
  CHECK(VerifyAt(e, WithType(kJson, headers(key, body, kNow), "telnyx-signature-ed25519"), body, kNow).code() ==
        Code::kUnauthenticated);

  // The key forms: base64 of 32 bytes is accepted beside hex; base64 of another length is not.
  CHECK(CheckPublicKey(KeyKind::kEd25519, RawBase64(key)).ok());
  CHECK_FALSE(CheckPublicKey(KeyKind::kEd25519, Base64Encode(std::string(31, 'k'))).ok());
  ::setenv("HOOKINBOX_VT_TELNYX_KEY", Base64Encode(std::string(31, 'k')).c_str(), 1);
  config::LoadResult short_key = config::LoadString(
      "[[endpoint]]\nname = \"hooks\"\nprovider = \"telnyx\"\npublic_key_env = \"HOOKINBOX_VT_TELNYX_KEY\"\n", "test.toml",
      "/tmp", &Presets());
  CHECK_FALSE(short_key.ok());
}

TEST_CASE("presets messaging: send-test signs what Verify accepts and Identify reads", "[presets][messaging][sign]") {
  struct Row {
    std::string provider, secret, extra;
  };
  const Row rows[] = {
      {"telegram", "tg_secret", ""}, {"viber", "viber-token", ""},    {"line", "line-secret", ""},
      {"help-scout", "hs", ""},      {"front", "front-secret", ""},   {"freshdesk", "u:p", ""},
      {"cal-com", "cal", ""},        {"acuity", "acuity-key", ""},    {"docusign", "ds", ""},
      {"xero", "xero-key", ""},      {"quickbooks", "qbo-token", ""}, {"keycrm", "unused", "insecure = true\n"},
  };
  const int64_t now_ms = kNow * 1000;
  for (const Row& row : rows) {
    SECTION(row.provider) {
      const config::EndpointConfig e = LoadEndpoint(row.provider, row.secret, row.extra);
      const SentSample sent = CheckSendTestSample(e, now_ms, "thing.happened", row.provider != "freshdesk");
      // A delivery, not a handshake.
      CHECK_FALSE(AnswerSignedHandshake(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", sent.headers, sent.body}, now_ms));
    }
  }
}

TEST_CASE("preset quickbooks: the legacy eventNotifications body with the documented key override",
          "[presets][messaging]") {
  const std::string token = "qbo-verifier-token-0123";
  const config::EndpointConfig e = LoadEndpoint("quickbooks", token,
                                        "[endpoint.key]\ncanonical_hash = true\nbatch_pointer = \"/eventNotifications\"\n"
                                        "event_type_pointer = \"/dataChangeEvent/entities/0/name\"\n");
  const std::string body =
      R"({"eventNotifications":[{"realmId":"1185883450","dataChangeEvent":{"entities":[{"name":"Customer","id":"1",)"
      R"("operation":"Create","lastUpdated":"2026-01-01T00:00:00.000Z"}]}}]})";
  const Headers h = {{"intuit-signature", B64Sha256(token, body)}};
  CHECK(VerifyCt(e, kJson, h, body).ok());
  Result<EventIdentity> id = First(e, kJson, h, body);
  REQUIRE(id.ok());
  CHECK(id->event_id.rfind("sha256:", 0) == 0);
  CHECK(id->event_type == "Customer");
  CHECK(VerifyCt(e, kJson, {{"intuit-signature", B64Sha256("another-token", body)}}, body).code() ==
        Code::kUnauthenticated);
}

TEST_CASE("preset pandadoc: the signature is the query parameter \"signature\"; the key is the event-id header",
          "[presets][messaging]") {
  const std::string key = "pd-shared-key-0123456789";
  const config::EndpointConfig e = LoadEndpoint("pandadoc", key);
  const std::string body =
      R"([{"event":"document_state_changed","data":{"id":"msFYActMfJHqNTKH8YSvF1","name":"Quote 42",)"
      R"("status":"document.completed","date_modified":"2026-01-01T00:00:00.000Z"}}])";
  MapHeaders h = WithType(kJson, {{"X-PandaDoc-Webhook-Event-Id", "3f1c4b8e-9d2a-4c6b-8e7f-0a1b2c3d4e5f"}});
  auto verify = [&](const std::string& query, const std::string& b) {
    return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, b, query}, kNow * 1000);
  };
  const std::string query = "signature=" + HexSha256(key, body);
  CHECK(verify(query, body).ok());
  CHECK(verify("tenant=a&" + query, body).ok());  // other parameters are ignored
  Result<EventIdentity> id = Identify(e, h, body, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "3f1c4b8e-9d2a-4c6b-8e7f-0a1b2c3d4e5f");
  CHECK(id->event_type == "document_state_changed");
  Result<EventIdentity> again = Identify(e, h, body, true);  // a retry keeps the header (PandaDoc's docs)
  REQUIRE(again.ok());
  CHECK(again->event_id == id->event_id);

  std::string tampered = body;
  tampered[tampered.size() / 2] ^= 0x01;
  CHECK(verify(query, tampered).code() == Code::kUnauthenticated);
  CHECK(verify("signature=" + HexSha256("another-key", body), body).code() == Code::kUnauthenticated);
  Status none = verify("", body);
  CHECK(none.code() == Code::kUnauthenticated);
  CHECK(none.message() == "missing signature");
  CHECK(verify("signature=%zz", body).code() == Code::kUnauthenticated);  // not form encoding: nothing read
  // In a header it is not looked for.
  MapHeaders in_header = WithType(kJson, {{"signature", HexSha256(key, body)}});
  CHECK(Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", in_header, body}, kNow * 1000).code() ==
        Code::kUnauthenticated);

  // send-test puts the signature in the query, where Verify reads it.
  Result<SignedDelivery> d = SignDelivery(e, e.secrets.front(), SampleBody(e, "thing.happened", kNow * 1000),
                                          kNow * 1000, "POST", "", "thing.happened");
  REQUIRE(d.ok());
  CHECK(d->query.rfind("signature=", 0) == 0);
  MapHeaders sent;
  for (const auto& [name, value] : d->headers) sent.Set(name, value);
  CHECK(Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", sent, d->body, d->query}, kNow * 1000).ok());
  Result<EventIdentity> sample = Identify(e, sent, d->body, true);
  REQUIRE(sample.ok());
  CHECK(sample->event_type == "thing.happened");

  // Writing signature.header moves the signature back to that header.
  const config::EndpointConfig moved = LoadEndpoint("pandadoc", key, "[endpoint.signature]\nheader = \"X-Signature\"\n");
  CHECK(moved.signature.signature_source.empty());
  MapHeaders hh = WithType(kJson, {{"X-Signature", HexSha256(key, body)}});
  CHECK(Verify(moved, moved.secrets, DeliveryView{"POST", "/hooks/hooks", hh, body}, kNow * 1000).ok());
}
