// Wave 2 presets for forms, surveys, CRMs and marketing (presets_forms_crm.cpp).
// Each preset is loaded through config::LoadString with only provider and the
// secret (plus what the provider requires, e.g. public_url), and deliveries
// shaped like the provider's are signed here independently — OpenSSL's HMAC()
// and EVP_DigestSign, never verify::Hmac — or taken from a captured delivery
// (Formstack). Checked: accepted with the right id and type; the same delivery
// again gives the same identity; a changed byte, another secret, a missing
// signature and (where signed) a stale timestamp are refused (CheckPresetCase,
// preset_case.h); handshakes.
#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "common/encoding.h"
#include "config/load.h"
#include "ed25519_key.h"
#include "preset_case.h"
#include "verify/handshake.h"
#include "verify/registry.h"
#include "verify/sign.h"
#include "verify/verify.h"
#include "support/openssl_hmac.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

namespace {

constexpr const char* kMandrillUrl = "https://hooks.example.com/hooks/mandrill";


// Close's key is the hex signature_key as shown; HMAC uses its bytes.
std::string Unhex(const std::string& hex) { return HexDecode(hex).value(); }

std::vector<Case> Cases() {
  std::vector<Case> c;
  c.push_back({"webflow", "wf-oauth-client-secret-7d3f", "another-client-secret",
               [](int64_t, int) {
                 return std::string(R"({"triggerType":"form_submission","payload":{"name":"Contact Us",)"
                                    R"("siteId":"65427cf400e02b306eaa049c","data":{"email":"zaphod@heartofgold.ai"},)"
                                    R"("id":"6321ca84df3949bfc6752327"}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 const std::string ms = std::to_string(ts * 1000);  // Webflow's timestamp is in ms
                 return {{"x-webflow-timestamp", ms}, {"x-webflow-signature", HexSha256(s, ms + ":" + b)}};
               },
               "x-webflow-signature", "", "form_submission", true, true});
  c.push_back({"surveymonkey", "sm-api-key-1&sm-api-secret-1", "sm-api-key-1&another-secret",
               [](int64_t, int) {
                 return std::string(R"({"name":"My Webhook","filter_type":"survey","filter_id":"123456789",)"
                                    R"("event_type":"response_completed","event_id":"10000000001",)"
                                    R"("object_type":"response","object_id":"11800000001",)"
                                    R"("event_datetime":"2026-01-01T00:00:00.000000+00:00"})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"Sm-Apikey", "sm-api-key-1"}, {"Sm-Signature", B64Sha1(s, b)}};
               },
               "Sm-Signature", "10000000001", "response_completed"});
  c.push_back({"close", "058bfb6a3d8cfdc4da7c3be5901b16ae11da982b46a25fb2cd7016e97a140a1c",
               "158bfb6a3d8cfdc4da7c3be5901b16ae11da982b46a25fb2cd7016e97a140a1c",
               [](int64_t, int) {
                 return std::string(R"({"subscription_id":"whsub_1AbCdEfGh","event":{"id":"ev_2XyZ0123",)"
                                    R"("date_created":"2026-01-01T00:00:00.000000","object_type":"lead",)"
                                    R"("object_id":"lead_9Qw","action":"created","data":{"id":"lead_9Qw"}}})");
               },
               [](const std::string& s, const std::string& b, int64_t ts) -> Headers {
                 return {{"close-sig-timestamp", Ts(ts)}, {"close-sig-hash", HexSha256(Unhex(s), Ts(ts) + b)}};
               },
               "close-sig-hash", "ev_2XyZ0123", "lead", true, true});
  c.push_back({"attio", "attio-webhook-secret", "another-secret",
               [](int64_t, int) {
                 return std::string(R"({"webhook_id":"7b1f0c1e-1d2e-4f3a-9b8c-0d1e2f3a4b5c","events":[)"
                                    R"({"event_type":"record.created","id":{"workspace_id":"w1","object_id":"o1",)"
                                    R"("record_id":"r1"},"actor":{"type":"workspace-member","id":"m1"}}]})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"Attio-Signature", HexSha256(s, b)},
                         {"X-Attio-Signature", HexSha256(s, b)},
                         {"Idempotency-Key", "0c2b6a8e-58c6-4d0b-9c1e-2f7d3b4a5e6f"}};
               },
               "Attio-Signature", "0c2b6a8e-58c6-4d0b-9c1e-2f7d3b4a5e6f", "record.created"});
  // Airtable's secret is macSecretBase64 as the API returns it; HMAC uses its bytes.
  c.push_back({"airtable", "GBcFq3Wm0h8cCeA1b2Xy9zQ4n5o6p7r8s9t0u1v2w3A=", "bm90LXRoZS1zYW1lLWtleS1hdC1hbGwtMDEyMzQ1Njc=",
               [](int64_t, int) {
                 return std::string(R"({"base":{"id":"appABC123def456gh"},"webhook":{"id":"achXYZ789uvw012st"},)"
                                    R"("timestamp":"2026-01-01T00:00:00.000Z"})");
               },
               [](const std::string& s, const std::string& b, int64_t) -> Headers {
                 return {{"X-Airtable-Content-MAC", "hmac-sha256=" + HexSha256(Base64Decode(s).value(), b)}};
               },
               "X-Airtable-Content-MAC", "achXYZ789uvw012st:2026-01-01T00:00:00.000Z", ""});
  c.push_back({"brevo", "brevo-bearer-token-9f8e", "another-token",
               [](int64_t, int) {
                 return std::string(R"({"event":"delivered","email":"jane@example.com","id":1234567,)"
                                    R"("date":"2026-01-01 01:00:00","ts":1767225600,)"
                                    R"("message-id":"<202601010000.12345678901@smtp-relay.mailin.fr>",)"
                                    R"("ts_event":1767225600,"subject":"Welcome"})");
               },
               [](const std::string& s, const std::string&, int64_t) -> Headers {
                 return {{"Authorization", "Bearer " + s}};
               },
               "Authorization", "", "delivered", false});
  return c;
}

}  // namespace

TEST_CASE("forms_crm presets: a signed delivery is accepted; resend, tamper, other secret, stale", "[presets][forms_crm]") {
  for (const Case& c : Cases()) {
    SECTION("preset " + c.provider) { CheckPresetCase(c); }
  }
}

// Formstack's scheme is not in its current docs; this delivery was captured
// from Formstack (hookdeck/webhook-skills, skills/formstack-webhooks/references/
// verification.md: HMAC Key "test1", a 52-byte form body and its X-FS-Signature).
TEST_CASE("preset formstack: a captured Formstack delivery verifies", "[presets][forms_crm]") {
  config::LoadResult loaded = LoadPreset("formstack", "test1");
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string body = "FormID=6606394&UniqueID=1500878955&HandshakeKey=test";
  const Headers captured = {{"X-FS-Signature", "sha256=30dff7f180b6d69eab397a5d51719474df490b730514c253e8b5832d3b51b970"}};
  const MapHeaders h = WithType("application/x-www-form-urlencoded; charset=utf-8", captured);
  REQUIRE(VerifyAt(e, h, body, kNow).ok());
  Result<EventIdentity> id = Identify(e, h, body, false);
  INFO(id.status().ToString());
  REQUIRE(id.ok());
  CHECK(id->event_id == "1500878955");
  Result<EventIdentity> again = Identify(e, h, body, false);
  REQUIRE(again.ok());
  CHECK(again->event_id == id->event_id);

  std::string tampered = body;
  tampered.back() = 'T';
  CHECK(VerifyAt(e, h, tampered, kNow).code() == Code::kUnauthenticated);
  CHECK(VerifyAt(e, WithType(kForm, captured, "X-FS-Signature"), body, kNow).code() == Code::kUnauthenticated);
  config::LoadResult other = LoadPreset("formstack", "test");  // the key before the capture's rotation
  REQUIRE(other.ok());
  CHECK(VerifyAt(other.config.endpoints.at(0), h, body, kNow).code() == Code::kUnauthenticated);

  // The JSON variant of the webhook: the same UniqueID, the same HMAC over the body.
  const std::string json = R"({"FormID":"6606394","UniqueID":"1500878956","Name":"Jane"})";
  const MapHeaders jh = WithType(kJson, {{"X-FS-Signature", "sha256=" + HexSha256("test1", json)}});
  REQUIRE(VerifyAt(e, jh, json, kNow).ok());
  Result<EventIdentity> jid = Identify(e, jh, json, true);
  REQUIRE(jid.ok());
  CHECK(jid->event_id == "1500878956");
}

TEST_CASE("preset mandrill: URL + sorted form fields, HMAC-SHA1; keyed on the batch", "[presets][forms_crm]") {
  const std::string key = "mandrill-webhook-key-Ab12";
  for (const char* name : {"mandrill", "mailchimp-transactional"}) {
    INFO(name);
    config::LoadResult loaded = LoadPreset(std::string(name), key, "public_url = \"" + std::string(kMandrillUrl) + "\"\n");
    INFO(Dump(loaded));
    REQUIRE(loaded.ok());
    const config::EndpointConfig& e = loaded.config.endpoints.at(0);
    CHECK(e.signature.header == "X-Mandrill-Signature");
    const std::string events = R"([{"event":"send","_id":"exampleaaaaaaaaaaaaaaaaaaaaaaaaa","ts":1767225590}])";
    const std::string body = "mandrill_events=" + PercentEncode(events);
    // Signed independently: the URL, then each field name and (decoded) value.
    auto headers = [&](const std::string& k) {
      return WithType(kForm, {{"X-Mandrill-Signature", B64Sha1(k, std::string(kMandrillUrl) + "mandrill_events" + events)}});
    };
    REQUIRE(VerifyAt(e, headers(key), body, kNow).ok());
    Result<EventIdentity> id = Identify(e, headers(key), body, false);
    INFO(id.status().ToString());
    REQUIRE(id.ok());
    CHECK(id->event_id.rfind("sha256:", 0) == 0);
    Result<EventIdentity> again = Identify(e, headers(key), body, false);
    REQUIRE(again.ok());
    CHECK(again->event_id == id->event_id);

    std::string tampered = body;
    tampered[20] ^= 0x01;
    CHECK(VerifyAt(e, headers(key), tampered, kNow).code() == Code::kUnauthenticated);
    CHECK(VerifyAt(e, headers("another-key"), body, kNow).code() == Code::kUnauthenticated);
    CHECK(VerifyAt(e, WithType(kForm, {}), body, kNow).code() == Code::kUnauthenticated);
  }
}

TEST_CASE("preset mandrill: without public_url the endpoint is refused", "[presets][forms_crm]") {
  config::LoadResult loaded = LoadPreset("mandrill", "k");
  CHECK_FALSE(loaded.ok());
  CHECK_THAT(Dump(loaded), Catch::Contains("public_url"));
}

namespace {

config::LoadResult LoadWithPublicKey(const std::string& provider, const std::string& pem) {
  ::setenv("HOOKINBOX_VT_FC_PUBKEY", pem.c_str(), 1);
  const std::string toml = "[[endpoint]]\nname = \"hooks\"\nprovider = \"" + provider +
                           "\"\npublic_key_env = \"HOOKINBOX_VT_FC_PUBKEY\"\n";
  return config::LoadString(toml, "test.toml", "/tmp", &Presets());
}

}  // namespace

TEST_CASE("preset highlevel: Ed25519 over the body with HighLevel's public key", "[presets][forms_crm]") {
  const Key key = NewEd25519();
  const Key other = NewEd25519();
  for (const char* name : {"highlevel", "gohighlevel"}) {
    INFO(name);
    config::LoadResult loaded = LoadWithPublicKey(name, PublicPem(key));
    INFO(Dump(loaded));
    REQUIRE(loaded.ok());
    const config::EndpointConfig& e = loaded.config.endpoints.at(0);
    REQUIRE(CheckEndpoint(e).ok());
    const std::string body = R"({"type":"ContactCreate","locationId":"ve9EPM428h8vShlRW1KT",)"
                             R"("id":"nmFmQEsNgz6AVpgLVUJ0","email":"jane@example.com",)"
                             R"("timestamp":"2026-01-01T00:00:00.000Z","webhookId":"9f3a2b1c-7d6e-4f5a-8b9c-0d1e2f3a4b5c"})";
    auto headers = [&](const Key& k, const std::string& b) {
      return WithType(kJson, {{"X-GHL-Signature", Base64Encode(Ed25519Sign(k, b))}});
    };
    REQUIRE(VerifyAt(e, headers(key, body), body, kNow).ok());
    Result<EventIdentity> id = Identify(e, headers(key, body), body, true);
    REQUIRE(id.ok());
    CHECK(id->event_id == "9f3a2b1c-7d6e-4f5a-8b9c-0d1e2f3a4b5c");
    CHECK(id->event_type == "ContactCreate");
    Result<EventIdentity> again = Identify(e, headers(key, body), body, true);
    REQUIRE(again.ok());
    CHECK(again->event_id == id->event_id);

    std::string tampered = body;
    tampered[30] ^= 0x01;
    CHECK(VerifyAt(e, headers(key, body), tampered, kNow).code() == Code::kUnauthenticated);
    CHECK(VerifyAt(e, headers(other, body), body, kNow).code() == Code::kUnauthenticated);
    CHECK(VerifyAt(e, WithType(kJson, {}), body, kNow).code() == Code::kUnauthenticated);
  }
}

TEST_CASE("forms_crm presets: the HEAD check of SurveyMonkey and Mandrill is answered, nothing else's",
          "[presets][forms_crm]") {
  config::LoadResult sm = LoadPreset("surveymonkey", "k&s");
  REQUIRE(sm.ok());
  std::optional<HandshakeAnswer> a = AnswerHeadHandshake(sm.config.endpoints.at(0));
  REQUIRE(a.has_value());
  CHECK(a->http_status == 200);
  CHECK(a->body.empty());
  config::LoadResult md = LoadPreset("mandrill", "k", "public_url = \"" + std::string(kMandrillUrl) + "\"\n");
  REQUIRE(md.ok());
  CHECK(AnswerHeadHandshake(md.config.endpoints.at(0)).has_value());
  // Other presets and generic endpoints keep refusing HEAD (405 in receive.cpp).
  config::LoadResult close = LoadPreset("close", std::string(64, 'a'));
  REQUIRE(close.ok());
  CHECK_FALSE(AnswerHeadHandshake(close.config.endpoints.at(0)).has_value());
  CHECK_FALSE(AnswerHeadHandshake(config::EndpointConfig{}).has_value());
}

TEST_CASE("preset close: a signature_key that is not hex is refused at load", "[presets][forms_crm]") {
  config::LoadResult loaded = LoadPreset("close", "not-hex-at-all");
  CHECK_FALSE(loaded.ok());
  CHECK_THAT(Dump(loaded), Catch::Contains("hex"));
}

TEST_CASE("forms_crm presets: each has a secret hint for init --provider", "[presets][forms_crm]") {
  for (const char* name : {"formstack", "webflow", "surveymonkey", "close", "attio", "airtable", "highlevel",
                           "mandrill", "mailchimp-transactional", "brevo"}) {
    INFO(name);
    CHECK_FALSE(PresetSecretHint(name).empty());
  }
}

// `hookinbox send-test` is generic (verify/sign.cpp): what it signs for these
// presets must pass their own Verify and Identify. HighLevel is asymmetric and
// needs --private-key, as Discord does; it is covered by sign_test's kinds.
TEST_CASE("forms_crm presets: send-test's sample is accepted", "[presets][forms_crm][sign]") {
  struct Row {
    const char* provider;
    std::string secret;
    std::string extra;
    bool typed;
  };
  const std::vector<Row> rows = {
      {"formstack", "fs-hmac-key", "", false},
      {"webflow", "wf-secret", "", true},
      {"surveymonkey", "k&s", "", true},
      {"close", std::string(64, 'b'), "", true},
      {"attio", "attio-secret", "", true},
      {"airtable", Base64Encode("0123456789abcdef0123456789abcdef"), "", false},
      {"mandrill", "md-key", "public_url = \"" + std::string(kMandrillUrl) + "\"\n", false},
      {"brevo", "brevo-token", "", true},
  };
  const int64_t now_ms = kNow * 1000;
  for (const Row& row : rows) {
    SECTION(row.provider) {
      CheckSendTestSample(LoadEndpoint(row.provider, row.secret, row.extra), now_ms, "thing.happened", row.typed);
    }
  }
}

TEST_CASE("forms_crm presets: documented retry windows set the retention floor", "[presets][forms_crm]") {
  CHECK(FindPreset("close")->redelivery_window_hours == 72);
  CHECK(FindPreset("attio")->redelivery_window_hours == 72);
  CHECK(FindPreset("formstack")->redelivery_window_hours == 0);  // not documented
  CHECK(FindPreset("mailchimp-transactional")->redelivery_window_hours == 0);
}
