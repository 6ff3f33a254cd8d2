// The presets that need the newer signature knobs — zendesk (RFC 3339
// timestamp), mailgun (signature inside the body, {token}), zoom, hubspot
// ({url} with HubSpot's percent-decoding, batch) and meta (batch) — end to
// end: each is loaded through config::LoadString with only `provider`, the
// secret (and public_url for HubSpot), and deliveries shaped like the
// provider's are signed here, independently, with OpenSSL's HMAC(). Batch
// presets are checked with Verify only; splitting a batch is tested with batch.cpp.
#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include <string>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "verify/json.h"
#include "verify/registry.h"
#include "verify/sign.h"
#include "verify/signed_payload.h"
#include "verify/verify.h"
#include "support/openssl_hmac.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

namespace {

constexpr int64_t kNow = 1767225600;  // 2026-01-01T00:00:00Z, in seconds

std::string OpensslHmac(std::string_view key, std::string_view data) {
  return testing::OpensslHmac(EVP_sha256(), key, data);
}
std::string Hex(std::string_view key, std::string_view data) { return HexEncode(OpensslHmac(key, data)); }
std::string B64(std::string_view key, std::string_view data) { return Base64Encode(OpensslHmac(key, data)); }

config::EndpointConfig Loaded(const std::string& provider, const std::string& secret, const std::string& extra = "") {
  config::LoadResult r = LoadPreset(provider, secret, extra);
  INFO(Dump(r));
  REQUIRE(r.ok());
  for (const auto& w : r.warnings) FAIL_CHECK(config::Describe(w, "test.toml"));
  return r.config.endpoints.at(0);
}

Status VerifyWithQuery(const config::EndpointConfig& e, const MapHeaders& h, const std::string& body,
                       std::string_view query, int64_t now_s) {
  return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, body, query}, now_s * 1000);
}

// ---- Zendesk ----

constexpr const char* kZendeskSecret = "dGhpcy1pcy1hLXplbmRlc2stc2lnbmluZy1zZWNyZXQ";
const std::string kZendeskBody =
    R"({"type":"zen:event-type:ticket.created","id":"01HZ8J0Q7Y2K3","account_id":123456,)"
    R"("detail":{"id":"35436","subject":"Help"}})";

Headers ZendeskHeaders(const std::string& secret, const std::string& body, const std::string& ts) {
  return {{"X-Zendesk-Webhook-Signature", B64(secret, ts + body)},
          {"X-Zendesk-Webhook-Signature-Timestamp", ts},
          {"X-Zendesk-Webhook-Id", "01F1KRFQ6BG29CNWFR60NK5FNY"},
          {"X-Zendesk-Webhook-Invocation-Id", "8350205582"}};
}

// ---- Mailgun ----

constexpr const char* kMailgunKey = "mailgun-http-webhook-signing-key";

// A Mailgun delivery: the signature object signs timestamp + token only.
std::string MailgunBody(const std::string& key, int64_t ts, const std::string& token,
                        const std::string& event_data = R"({"id":"CPgfbmQMTCKtHW6uIWtuVe","event":"delivered",)"
                                                        R"("timestamp":1767225590.1,"recipient":"a@example.com"})") {
  const std::string t = std::to_string(ts);
  return R"({"signature":{"token":")" + token + R"(","timestamp":")" + t + R"(","signature":")" + Hex(key, t + token) +
         R"("},"event-data":)" + event_data + "}";
}

const std::string kToken = "e0b5477167110d68991efc6b9f89f0a11066af27834600e123";

// ---- HubSpot ----

constexpr const char* kHubSpotSecret = "6a1c7f3e-hubspot-client-secret";
constexpr const char* kHubSpotUrl = "https://hooks.example.com/hooks/hubspot";

std::string HubSpotBody(int attempt) {
  const std::string a = std::to_string(attempt);
  return R"([{"eventId":1001,"subscriptionId":4849549,"portalId":50687303,"occurredAt":1767225590000,)"
         R"("subscriptionType":"contact.creation","attemptNumber":)" + a + R"(,"objectId":173595202426},)"
         R"({"eventId":1002,"subscriptionId":4849549,"portalId":50687303,"occurredAt":1767225591000,)"
         R"("subscriptionType":"contact.propertyChange","attemptNumber":)" + a + R"(,"objectId":173595202427}])";
}

// `signed_url` is the URI as HubSpot signs it (escapes from its list decoded).
Headers HubSpotHeaders(const std::string& secret, const std::string& signed_url, const std::string& body,
                       int64_t ts_ms) {
  const std::string t = std::to_string(ts_ms);
  return {{"X-HubSpot-Signature-v3", B64(secret, "POST" + signed_url + body + t)},
          {"X-HubSpot-Request-Timestamp", t},
          {"X-HubSpot-Signature-Version", "v1"}};
}

// ---- Meta ----

constexpr const char* kAppSecret = "meta-app-secret-0123456789abcdef";
const std::string kMetaBody =
    R"({"object":"whatsapp_business_account","entry":[)"
    R"({"id":"102290129340398","changes":[{"field":"messages","value":{"messages":[{"id":"wamid.HBgL1","text":{"body":"hi \u00e9"}}]}}]},)"
    R"({"id":"102290129340398","changes":[{"field":"messages","value":{"statuses":[{"id":"wamid.HBgL0","status":"read"}]}}]}]})";

}  // namespace

TEST_CASE("preset zendesk: an RFC 3339 timestamp is signed and checked", "[verify]") {
  const config::EndpointConfig e = Loaded("zendesk", kZendeskSecret);
  const std::string ts = "2025-12-31T23:59:50Z";  // kNow - 10 s
  const Headers headers = ZendeskHeaders(kZendeskSecret, kZendeskBody, ts);

  Status ok = VerifyAt(e, ToMap(headers), kZendeskBody, kNow);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = Identify(e, ToMap(headers), kZendeskBody, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "8350205582");  // the invocation id, see docs/providers.md
  CHECK(id->event_type == "zen:event-type:ticket.created");

  SECTION("offsets and fractions are the same instant; the exact text is what is signed") {
    for (const std::string other : {"2026-01-01T00:59:50+01:00", "2025-12-31T23:59:50.250Z", "2025-12-31 23:59:50Z"}) {
      INFO(other);
      CHECK(VerifyAt(e, ToMap(ZendeskHeaders(kZendeskSecret, kZendeskBody, other)), kZendeskBody, kNow).ok());
    }
    // Signed over one spelling, sent with another: the text differs, so the MAC does.
    Headers swapped = headers;
    swapped[1].second = "2026-01-01T00:59:50+01:00";
    CHECK(VerifyAt(e, ToMap(swapped), kZendeskBody, kNow).message() == "signature mismatch");
  }
  SECTION("one body byte changed") {
    std::string tampered = kZendeskBody;
    tampered[20] ^= 0x01;
    CHECK(VerifyAt(e, ToMap(headers), tampered, kNow).code() == Code::kUnauthenticated);
  }
  SECTION("another secret") {
    CHECK(VerifyAt(e, ToMap(ZendeskHeaders("another-secret", kZendeskBody, ts)), kZendeskBody, kNow).code() ==
          Code::kUnauthenticated);
  }
  SECTION("stale: signed an hour ago") {
    Status old = VerifyAt(e, ToMap(ZendeskHeaders(kZendeskSecret, kZendeskBody, "2025-12-31T23:00:00Z")),
                          kZendeskBody, kNow);
    CHECK(old.message() == "timestamp outside tolerance");
  }
  SECTION("missing signature, missing or unparseable timestamp") {
    CHECK(VerifyAt(e, ToMap(headers, "X-Zendesk-Webhook-Signature"), kZendeskBody, kNow).code() ==
          Code::kUnauthenticated);
    CHECK(VerifyAt(e, ToMap(headers, "X-Zendesk-Webhook-Signature-Timestamp"), kZendeskBody, kNow).message() ==
          "missing or malformed timestamp");
    for (const std::string bad : {"1767225590", "2025-12-31T23:59:50", "2025-02-30T00:00:00Z"}) {
      INFO(bad);
      Status s = VerifyAt(e, ToMap(ZendeskHeaders(kZendeskSecret, kZendeskBody, bad)), kZendeskBody, kNow);
      CHECK(s.message() == "missing or malformed timestamp");
    }
  }
}

TEST_CASE("preset mailgun: the signature is read from the body and signs timestamp and token", "[verify]") {
  const config::EndpointConfig e = Loaded("mailgun", kMailgunKey);
  const std::string body = MailgunBody(kMailgunKey, kNow - 10, kToken);
  const MapHeaders headers = ToMap({});

  Status ok = VerifyAt(e, headers, body, kNow);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = Identify(e, headers, body, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "CPgfbmQMTCKtHW6uIWtuVe");
  CHECK(id->event_type == "delivered");

  SECTION("a byte of the signed token changed") {
    std::string tampered = body;
    tampered[tampered.find(kToken) + 5] ^= 0x01;
    CHECK(VerifyAt(e, headers, tampered, kNow).message() == "signature mismatch");
  }
  SECTION("the event data is not signed by Mailgun (documented limitation)") {
    std::string edited = body;
    edited.replace(edited.find("a@example.com"), 13, "b@example.com");
    // Still authentic as far as Mailgun's scheme can tell; docs/providers.md says what that leaves open.
    CHECK(VerifyAt(e, headers, edited, kNow).ok());
  }
  SECTION("another key") {
    CHECK(VerifyAt(e, headers, MailgunBody("another-key", kNow - 10, kToken), kNow).message() == "signature mismatch");
  }
  SECTION("stale") {
    CHECK(VerifyAt(e, headers, MailgunBody(kMailgunKey, kNow - 3600, kToken), kNow).message() ==
          "timestamp outside tolerance");
  }
  SECTION("a retry with a fresh signature object is the same payload") {
    const std::string retry = MailgunBody(kMailgunKey, kNow - 5, std::string(50, 'b'));
    REQUIRE(retry != body);
    CHECK(VerifyAt(e, headers, retry, kNow).ok());
    Result<EventIdentity> again = Identify(e, headers, retry, true);
    REQUIRE(again.ok());
    CHECK(again->event_id == id->event_id);
    CHECK(again->payload_hash == id->payload_hash);
  }
}

TEST_CASE("preset mailgun: missing or garbled signature fields are Unauthenticated, never a crash", "[verify]") {
  const config::EndpointConfig e = Loaded("mailgun", kMailgunKey);
  const MapHeaders headers = ToMap({});
  const std::string t = std::to_string(kNow - 10);
  const std::string sig = Hex(kMailgunKey, t + kToken);
  struct Case {
    const char* what;
    std::string body;
    const char* message;
  };
  const Case cases[] = {
      {"no signature object", R"({"event-data":{"id":"x","event":"delivered"}})", "missing signature"},
      {"signature object is a string", R"({"signature":"abc","event-data":{}})", "missing signature"},
      {"signature field missing",
       R"({"signature":{"token":")" + kToken + R"(","timestamp":")" + t + R"("}})", "missing signature"},
      {"signature field is a number",
       R"({"signature":{"token":")" + kToken + R"(","timestamp":")" + t + R"(","signature":12}})",
       "missing signature"},
      {"signature field is empty",
       R"({"signature":{"token":")" + kToken + R"(","timestamp":")" + t + R"(","signature":""}})",
       "missing signature"},
      {"signature is not hex",
       R"({"signature":{"token":")" + kToken + R"(","timestamp":")" + t + R"(","signature":"zz-not-hex"}})",
       "malformed signature"},
      {"token missing", R"({"signature":{"timestamp":")" + t + R"(","signature":")" + sig + R"("}})",
       "missing signed token"},
      {"token is an object",
       R"({"signature":{"token":{"a":1},"timestamp":")" + t + R"(","signature":")" + sig + R"("}})",
       "missing signed token"},
      {"timestamp missing", R"({"signature":{"token":")" + kToken + R"(","signature":")" + sig + R"("}})",
       "missing or malformed timestamp"},
      {"timestamp not a number",
       R"({"signature":{"token":")" + kToken + R"(","timestamp":"soon","signature":")" + sig + R"("}})",
       "missing or malformed timestamp"},
      {"timestamp negative",
       R"({"signature":{"token":")" + kToken + R"(","timestamp":-5,"signature":")" + sig + R"("}})",
       "missing or malformed timestamp"},
      {"body is not JSON", "signature=" + sig + "&token=" + kToken, "missing signature"},
      {"body is empty", "", "missing signature"},
      {"body is a JSON array", "[1,2,3]", "missing signature"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Status s = VerifyAt(e, headers, c.body, kNow);
    CHECK(s.code() == Code::kUnauthenticated);
    CHECK(s.message() == c.message);
  }
}

TEST_CASE("preset zoom: v0 signature over timestamp and body; key is event, event_ts and object id", "[verify]") {
  const config::EndpointConfig e = Loaded("zoom", "zoom-webhook-secret-token");
  CHECK(e.handshake == "zoom");
  const int64_t ts = kNow - 10;
  const std::string body =
      R"({"event":"meeting.started","event_ts":1767225590123,"payload":{"account_id":"AAAAAABBBB",)"
      R"("object":{"id":"85746065432","uuid":"4444AAAiAAAAAiAiAiiAii==","host_id":"x1","topic":"Standup","type":2}}})";
  auto headers = [&](const std::string& secret, const std::string& b, int64_t t) -> Headers {
    const std::string text = std::to_string(t);
    return {{"x-zm-signature", "v0=" + Hex(secret, "v0:" + text + ":" + b)},
            {"x-zm-request-timestamp", text},
            {"x-zm-trackingid", "v=2.0;clid=aw1;rid=WEB_ae3e"}};
  };
  Status ok = VerifyAt(e, ToMap(headers("zoom-webhook-secret-token", body, ts)), body, kNow);
  INFO(ok.ToString());
  CHECK(ok.ok());
  Result<EventIdentity> id = Identify(e, ToMap(headers("zoom-webhook-secret-token", body, ts)), body, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "meeting.started:1767225590123:85746065432");
  CHECK(id->event_type == "meeting.started");

  std::string tampered = body;
  tampered[30] ^= 0x01;
  CHECK(VerifyAt(e, ToMap(headers("zoom-webhook-secret-token", body, ts)), tampered, kNow).code() ==
        Code::kUnauthenticated);
  CHECK(VerifyAt(e, ToMap(headers("other-token", body, ts)), body, kNow).code() == Code::kUnauthenticated);
  CHECK(VerifyAt(e, ToMap(headers("zoom-webhook-secret-token", body, kNow - 3600)), body, kNow).message() ==
        "timestamp outside tolerance");
  CHECK(VerifyAt(e, ToMap(headers("zoom-webhook-secret-token", body, ts), "x-zm-signature"), body, kNow).code() ==
        Code::kUnauthenticated);
}

TEST_CASE("preset hubspot: v3 signs method, decoded URL, body and ms timestamp", "[verify]") {
  const config::EndpointConfig e =
      Loaded("hubspot", kHubSpotSecret, "public_url = \"" + std::string(kHubSpotUrl) + "\"\n");
  CHECK(e.key.batch);
  const int64_t ts_ms = (kNow - 10) * 1000 + 123;
  const std::string body = HubSpotBody(0);
  // HubSpot decodes %3A and %2a (its list, any case) but leaves %20 alone.
  const std::string query = "portal=a%3Ab&sel=%2a%20y";
  const std::string signed_url = std::string(kHubSpotUrl) + "?portal=a:b&sel=*%20y";
  const Headers headers = HubSpotHeaders(kHubSpotSecret, signed_url, body, ts_ms);

  Status ok = VerifyWithQuery(e, ToMap(headers), body, query, kNow);
  INFO(ok.ToString());
  CHECK(ok.ok());
  // Without a query the URL is public_url itself.
  CHECK(VerifyWithQuery(e, ToMap(HubSpotHeaders(kHubSpotSecret, kHubSpotUrl, body, ts_ms)), body, "", kNow).ok());

  SECTION("signed without HubSpot's decoding: refused") {
    const Headers raw = HubSpotHeaders(kHubSpotSecret, std::string(kHubSpotUrl) + "?" + query, body, ts_ms);
    CHECK(VerifyWithQuery(e, ToMap(raw), body, query, kNow).message() == "signature mismatch");
  }
  SECTION("one body byte changed") {
    std::string tampered = body;
    tampered[15] ^= 0x01;
    CHECK(VerifyWithQuery(e, ToMap(headers), tampered, query, kNow).code() == Code::kUnauthenticated);
  }
  SECTION("another secret, another method") {
    CHECK(VerifyWithQuery(e, ToMap(HubSpotHeaders("other", signed_url, body, ts_ms)), body, query, kNow).code() ==
          Code::kUnauthenticated);
    const std::string t = std::to_string(ts_ms);
    const Headers get = {{"X-HubSpot-Signature-v3", B64(kHubSpotSecret, "GET" + signed_url + body + t)},
                         {"X-HubSpot-Request-Timestamp", t}};
    CHECK(VerifyWithQuery(e, ToMap(get), body, query, kNow).message() == "signature mismatch");
  }
  SECTION("stale: 301 s old in milliseconds") {
    const int64_t old_ms = kNow * 1000 - 301000;
    CHECK(VerifyWithQuery(e, ToMap(HubSpotHeaders(kHubSpotSecret, signed_url, body, old_ms)), body, query, kNow)
              .message() == "timestamp outside tolerance");
    const int64_t edge_ms = kNow * 1000 - 300000;
    CHECK(VerifyWithQuery(e, ToMap(HubSpotHeaders(kHubSpotSecret, signed_url, body, edge_ms)), body, query, kNow)
              .ok());
  }
  SECTION("missing signature") {
    CHECK(VerifyWithQuery(e, ToMap(headers, "X-HubSpot-Signature-v3"), body, query, kNow).code() ==
          Code::kUnauthenticated);
  }
  SECTION("a retry (attemptNumber changed) is signed anew and verifies") {
    const std::string retry = HubSpotBody(1);
    CHECK(VerifyWithQuery(e, ToMap(HubSpotHeaders(kHubSpotSecret, signed_url, retry, ts_ms)), retry, query, kNow)
              .ok());
  }
}

TEST_CASE("preset hubspot: needs public_url", "[verify]") {
  config::LoadResult r = LoadPreset("hubspot", kHubSpotSecret);
  CHECK_FALSE(r.ok());
  INFO(Dump(r));
  bool named = false;
  for (const auto& p : r.errors) named = named || p.key == "endpoint[0].public_url";
  CHECK(named);
}

TEST_CASE("url_decode: only the listed escapes are decoded, in any case, once", "[verify]") {
  const std::vector<std::string> hubspot = FindPreset("hubspot")->signature.url_decode;
  REQUIRE(hubspot.size() == 12);
  CHECK(DecodeEscapes("%3A%2F%3F%40%21%24%27%28%29%2A%2C%3B", hubspot) == ":/?@!$'()*,;");
  CHECK(DecodeEscapes("%3a%2f%3f%2a%2c%3b", hubspot) == ":/?*,;");
  // Not on HubSpot's list: space, '&', '=', '+', '#', '%' itself, non-ASCII.
  CHECK(DecodeEscapes("a%20b%26c%3Dd%2Be%23f%25g%C3%A9", hubspot) == "a%20b%26c%3Dd%2Be%23f%25g%C3%A9");
  CHECK(DecodeEscapes("%253A", hubspot) == "%253A");                  // %25 stays, so no %3A appears
  CHECK(DecodeEscapes("%253A", {"%25", "%3A"}) == "%3A");             // one pass: never decoded twice
  CHECK(DecodeEscapes("%3", hubspot) == "%3");                        // truncated escape at the end
  CHECK(DecodeEscapes("%", hubspot) == "%");
  CHECK(DecodeEscapes("%G3A%3G", hubspot) == "%G3A%3G");              // not hex
  CHECK(DecodeEscapes("", hubspot).empty());
  CHECK(DecodeEscapes("https://h/x%3Ay", {}) == "https://h/x%3Ay");  // empty list: unchanged
}

TEST_CASE("preset meta: X-Hub-Signature-256 over the raw body; batch of entries", "[verify]") {
  for (const char* name : {"meta", "facebook", "instagram", "whatsapp"}) {
    INFO(name);
    ::setenv("HOOKINBOX_VT_META_VERIFY", "meta-verify", 1);
    const config::EndpointConfig e = Loaded(name, kAppSecret, "verify_token_env = \"HOOKINBOX_VT_META_VERIFY\"\n");
    CHECK(e.handshake == "meta");
    CHECK(e.verify_token.bytes() == "meta-verify");
    CHECK(e.key.batch);
    CHECK(e.key.batch_pointer == "/entry");
    CHECK(e.key.canonical_hash);
    const Headers headers = {{"X-Hub-Signature-256", "sha256=" + Hex(kAppSecret, kMetaBody)},
                             {"X-Hub-Signature", "sha1=0000000000000000000000000000000000000000"}};
    Status ok = VerifyAt(e, ToMap(headers), kMetaBody, kNow);
    INFO(ok.ToString());
    CHECK(ok.ok());

    std::string tampered = kMetaBody;
    tampered[tampered.find("\\u00e9") + 5] = '8';  // the escaped text is what was signed
    CHECK(VerifyAt(e, ToMap(headers), tampered, kNow).code() == Code::kUnauthenticated);
    const Headers other = {{"X-Hub-Signature-256", "sha256=" + Hex("another-app-secret", kMetaBody)}};
    CHECK(VerifyAt(e, ToMap(other), kMetaBody, kNow).code() == Code::kUnauthenticated);
    CHECK(VerifyAt(e, ToMap(headers, "X-Hub-Signature-256"), kMetaBody, kNow).code() == Code::kUnauthenticated);
  }
}

TEST_CASE("preset slack: answers its url_verification handshake", "[verify]") {
  CHECK(FindPreset("slack")->handshake == "slack");
}

// send-test's signer (verify/sign.cpp) for these presets: what SignDelivery
// writes, Verify accepts, and (for non-batch presets) Identify reads.
TEST_CASE("send-test: samples for the knob presets are signed as the provider would", "[verify]") {
  constexpr int64_t kNowMs = kNow * 1000 + 123;
  auto sign = [&](const config::EndpointConfig& e) {
    Result<SignedDelivery> d =
        SignDelivery(e, e.secrets.front(), SampleBody(e, "thing.happened", kNowMs), kNowMs, "POST", e.public_url,
                     "thing.happened");
    INFO(d.status().ToString());
    REQUIRE(d.ok());
    return *d;
  };
  auto headers_of = [](const SignedDelivery& d) {
    MapHeaders m;
    for (const auto& [name, value] : d.headers) m.Set(name, value);
    return m;
  };
  auto verify = [&](const config::EndpointConfig& e, const SignedDelivery& d) {
    MapHeaders h = headers_of(d);
    return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, d.body}, kNowMs);
  };

  SECTION("zendesk: RFC 3339 timestamp header") {
    const config::EndpointConfig e = Loaded("zendesk", kZendeskSecret);
    SignedDelivery d = sign(e);
    CHECK(headers_of(d).Get("X-Zendesk-Webhook-Signature-Timestamp") == "2026-01-01T00:00:00Z");
    CHECK(verify(e, d).ok());
    Result<EventIdentity> id = Identify(e, headers_of(d), d.body, true);
    REQUIRE(id.ok());
    CHECK(id->event_type == "thing.happened");
  }
  SECTION("mailgun: signature, token and timestamp inside the body") {
    const config::EndpointConfig e = Loaded("mailgun", kMailgunKey);
    SignedDelivery d = sign(e);
    INFO(d.body);
    CHECK(d.body.find("\"signature\":{") != std::string::npos);
    CHECK(verify(e, d).ok());
    Result<EventIdentity> id = Identify(e, headers_of(d), d.body, true);
    REQUIRE(id.ok());
    CHECK(id->event_type == "thing.happened");
    SignedDelivery other = d;
    other.body.replace(other.body.find("\"token\":\"") + 9, 1, "~");
    CHECK(verify(e, other).code() == Code::kUnauthenticated);
  }
  SECTION("mailgun: a caller's body without a token cannot be signed") {
    const config::EndpointConfig e = Loaded("mailgun", kMailgunKey);
    Result<SignedDelivery> d = SignDelivery(e, e.secrets.front(), R"({"event-data":{"id":"x"}})", kNowMs, "POST", "");
    CHECK(d.status().code() == Code::kInvalidArgument);
  }
  SECTION("zoom") {
    const config::EndpointConfig e = Loaded("zoom", "zoom-webhook-secret-token");
    SignedDelivery d = sign(e);
    CHECK(verify(e, d).ok());
    Result<EventIdentity> id = Identify(e, headers_of(d), d.body, true);
    REQUIRE(id.ok());
    CHECK(id->event_type == "thing.happened");
  }
  SECTION("hubspot: a batch of two events, URL decoded as HubSpot does") {
    const config::EndpointConfig e =
        Loaded("hubspot", kHubSpotSecret, "public_url = \"https://hooks.example.com/hooks/hub%3Aspot\"\n");
    SignedDelivery d = sign(e);
    INFO(d.body);
    Result<nlohmann::json> doc = ParseJson(d.body);
    REQUIRE(doc.ok());
    REQUIRE(doc->is_array());
    REQUIRE(doc->size() == 2);
    CHECK((*doc)[0]["eventId"] != (*doc)[1]["eventId"]);
    CHECK((*doc)[0]["subscriptionType"] == "thing.happened");
    CHECK(verify(e, d).ok());
    SignedDelivery tampered = d;
    tampered.body[tampered.body.find("send-test")] = 'S';
    CHECK(verify(e, tampered).code() == Code::kUnauthenticated);
  }
  SECTION("meta: a batch of two entries") {
    ::setenv("HOOKINBOX_VT_META_VERIFY", "meta-verify", 1);
    const config::EndpointConfig e = Loaded("whatsapp", kAppSecret, "verify_token_env = \"HOOKINBOX_VT_META_VERIFY\"\n");
    SignedDelivery d = sign(e);
    INFO(d.body);
    Result<nlohmann::json> doc = ParseJson(d.body);
    REQUIRE(doc.ok());
    REQUIRE((*doc)["entry"].size() == 2);
    CHECK((*doc)["entry"][0]["changes"][0]["field"] == "thing.happened");
    CHECK((*doc)["entry"][0] != (*doc)["entry"][1]);
    CHECK(verify(e, d).ok());
  }
}

TEST_CASE("preset meta: without a verify token the GET check would always fail, so loading warns", "[verify]") {
  config::LoadResult r = LoadPreset("meta", kAppSecret);
  REQUIRE(r.ok());
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].message.find("verify_token_env") != std::string::npos);
  CHECK(r.config.endpoints.at(0).verify_token.empty());
}

TEST_CASE("verify_token: unused on other presets, and env and file are exclusive", "[verify]") {
  ::setenv("HOOKINBOX_VT_META_VERIFY", "meta-verify", 1);
  config::LoadResult unused = LoadPreset("stripe", "whsec_x", "verify_token_env = \"HOOKINBOX_VT_META_VERIFY\"\n");
  REQUIRE(unused.ok());
  REQUIRE(unused.warnings.size() == 1);
  CHECK(unused.warnings[0].message.find("unused") != std::string::npos);
  config::LoadResult both = LoadPreset("meta", kAppSecret,
                                       "verify_token_env = \"HOOKINBOX_VT_META_VERIFY\"\nverify_token_file = \"t\"\n");
  CHECK_FALSE(both.ok());
  ::unsetenv("HOOKINBOX_VT_UNSET_VAR");
  config::LoadResult missing = LoadPreset("meta", kAppSecret, "verify_token_env = \"HOOKINBOX_VT_UNSET_VAR\"\n");
  REQUIRE_FALSE(missing.ok());
  CHECK(Dump(missing).find("HOOKINBOX_VT_UNSET_VAR is not set") != std::string::npos);
}
