// The presets of form bodies, unsigned and Basic-auth providers: twilio,
// jotform, mollie, woocommerce, postmark, pipedrive. Each is loaded through
// config::LoadString with the real preset table; deliveries shaped like the
// provider's are signed here independently with OpenSSL's HMAC() (never
// verify::Hmac) and checked with Verify and Identify.
#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include <functional>
#include <string>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "verify/crypto.h"
#include "verify/registry.h"
#include "verify/sign.h"
#include "verify/verify.h"
#include "support/openssl_hmac.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

namespace {

constexpr int64_t kNow = 1767225600;
constexpr const char* kTwilioUrl = "https://hooks.example.com/hooks/twilio";
constexpr const char* kForm = "application/x-www-form-urlencoded";

std::string Mac(const EVP_MD* md, std::string_view key, std::string_view data) { return testing::OpensslHmac(md, key, data); }

MapHeaders With(const std::string& content_type, const Headers& headers) {
  MapHeaders m;
  m.Set("Content-Type", content_type);
  for (const auto& [n, v] : headers) m.Set(n, v);
  return m;
}

Status Check(const config::EndpointConfig& e, const MapHeaders& h, const std::string& body, std::string_view query = "") {
  return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, body, query}, kNow * 1000);
}

bool IsJson(const MapHeaders& h) { return IsJsonMediaType(h.Get("Content-Type").value_or("")); }

// The checks every signed preset gets: valid → id and type; a changed byte,
// another secret or no credentials → 401; the same delivery again → the same identity.
void CheckPreset(const config::EndpointConfig& e, const std::string& body,
                 const std::function<MapHeaders(const std::string& secret, const std::string& body)>& headers,
                 const std::string& secret, const std::string& drop_header, const std::string& event_id,
                 const std::string& event_type) {
  const MapHeaders good = headers(secret, body);
  Status ok = Check(e, good, body);
  INFO(ok.ToString());
  REQUIRE(ok.ok());
  Result<EventIdentity> id = Identify(e, good, body, IsJson(good));
  INFO(id.status().ToString());
  REQUIRE(id.ok());
  CHECK(id->event_id == event_id);
  CHECK(id->event_type == event_type);

  std::string tampered = body;
  tampered[tampered.size() / 2] ^= 0x01;
  CHECK(Check(e, headers(secret, body), tampered).code() == Code::kUnauthenticated);
  CHECK(Check(e, headers("another-endpoint-secret", body), body).code() == Code::kUnauthenticated);
  MapHeaders without;
  for (const auto& [n, v] : good.items()) {
    if (!EqualsIgnoreCase(n, drop_header)) without.Set(n, v);
  }
  CHECK(Check(e, without, body).code() == Code::kUnauthenticated);

  Result<EventIdentity> again = Identify(e, headers(secret, body), body, IsJson(good));
  REQUIRE(again.ok());
  CHECK(again->event_id == id->event_id);
  CHECK(again->payload_hash == id->payload_hash);
}

const std::string kTwilioBody =
    "AccountSid=AC0123456789abcdef0123456789abcdef&ApiVersion=2010-04-01&From=%2B15017122661"
    "&MessageSid=SM1f0e8ae6ade43cb3c0ce4525424e404f&MessageStatus=delivered&SmsStatus=delivered"
    "&To=%2B15558675310";
// The same fields sorted by name, name then value, decoded — written out by hand.
const std::string kTwilioSorted =
    "AccountSidAC0123456789abcdef0123456789abcdefApiVersion2010-04-01From+15017122661"
    "MessageSidSM1f0e8ae6ade43cb3c0ce4525424e404fMessageStatusdeliveredSmsStatusdeliveredTo+15558675310";

}  // namespace

TEST_CASE("preset twilio: a signed status callback verifies and is keyed on MessageSid + MessageStatus", "[verify]") {
  config::LoadResult loaded = LoadPreset("twilio", "twilio-auth-token", "public_url = \"" + std::string(kTwilioUrl) + "\"\n");
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  auto headers = [](const std::string& s, const std::string&) {
    return With(kForm, {{"X-Twilio-Signature", Base64Encode(Mac(EVP_sha1(), s, kTwilioUrl + kTwilioSorted))}});
  };
  CheckPreset(e, kTwilioBody, headers, "twilio-auth-token", "X-Twilio-Signature",
              "SM1f0e8ae6ade43cb3c0ce4525424e404f:delivered", "delivered");
  // Twilio may sign the URL with the default port spelled out.
  const std::string with_port = "https://hooks.example.com:443/hooks/twilio";
  MapHeaders ported = With(kForm, {{"X-Twilio-Signature",
                                    Base64Encode(Mac(EVP_sha1(), "twilio-auth-token", with_port + kTwilioSorted))}});
  CHECK(Check(e, ported, kTwilioBody).ok());
  // A signature over another URL is refused.
  MapHeaders other_url = With(kForm, {{"X-Twilio-Signature",
                                       Base64Encode(Mac(EVP_sha1(), "twilio-auth-token",
                                                        "https://evil.example.com/hooks/twilio" + kTwilioSorted))}});
  CHECK(Check(e, other_url, kTwilioBody).code() == Code::kUnauthenticated);
}

TEST_CASE("preset twilio: a JSON body is covered by bodySHA256 in the signed URL", "[verify]") {
  config::LoadResult loaded = LoadPreset("twilio", "twilio-auth-token", "public_url = \"" + std::string(kTwilioUrl) + "\"\n");
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string body = R"({"MessageSid":"SM1","MessageStatus":"sent"})";
  const std::string query = "bodySHA256=" + HexEncode(Sha256(body));
  MapHeaders h = With("application/json",
                      {{"X-Twilio-Signature",
                        Base64Encode(Mac(EVP_sha1(), "twilio-auth-token", std::string(kTwilioUrl) + "?" + query))}});
  CHECK(Check(e, h, body, query).ok());
  CHECK(Check(e, h, body + " ", query).code() == Code::kUnauthenticated);
  Result<EventIdentity> id = Identify(e, h, body, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "SM1:sent");

  // Without bodySHA256 a JSON body is not read as form fields: nothing would cover its bytes.
  const std::string kv_of_json = "{\"MessageSid\":\"SM1\",\"MessageStatus\":\"sent\"}";
  MapHeaders unhashed = With("application/json",
                             {{"X-Twilio-Signature", Base64Encode(Mac(EVP_sha1(), "twilio-auth-token",
                                                                      std::string(kTwilioUrl) + kv_of_json))}});
  CHECK(Check(e, unhashed, body, "").code() == Code::kUnauthenticated);
  CHECK(Check(e, With("application/json", {{"X-Twilio-Signature", Base64Encode(Mac(EVP_sha1(), "twilio-auth-token",
                                                                                   kTwilioUrl))}}),
              body, "")
            .code() == Code::kUnauthenticated);
}

TEST_CASE("preset twilio: without public_url the config is refused at that key", "[verify]") {
  config::LoadResult r = LoadPreset("twilio", "t");
  REQUIRE(!r.ok());
  CHECK(r.errors.at(0).key == "endpoint[0].public_url");
}

TEST_CASE("preset jotform: unsigned, so it needs insecure = true; keyed on formID + submissionID", "[verify]") {
  config::LoadResult refused = LoadPreset("jotform", "unused");
  REQUIRE(!refused.ok());
  CHECK(refused.errors.at(0).key == "endpoint[0].signature.scheme");
  CHECK_THAT(refused.errors.at(0).message, Catch::Contains("insecure = true"));

  config::LoadResult loaded = LoadPreset("jotform", "unused", "insecure = true\n");
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string b = "----JotformBoundary91";
  auto part = [&](const std::string& n, const std::string& v) {
    return "--" + b + "\r\nContent-Disposition: form-data; name=\"" + n + "\"\r\n\r\n" + v + "\r\n";
  };
  const std::string body = part("formID", "241234567890") + part("submissionID", "5890123456789012345") +
                           part("rawRequest", R"({"q3_name":"Ada"})") + "--" + b + "--\r\n";
  MapHeaders h = With("multipart/form-data; boundary=" + b, {});
  CHECK(Check(e, h, body).ok());
  Result<EventIdentity> id = Identify(e, h, body, false);
  REQUIRE(id.ok());
  CHECK(id->event_id == "241234567890:5890123456789012345");
  CHECK(Identify(e, h, body, false)->payload_hash == id->payload_hash);
  CHECK(id->payload_hash == HexEncode(Sha256(body)));
  CHECK(e.content_types == std::vector<std::string>{"multipart/form-data"});
}

TEST_CASE("preset mollie: hex HMAC-SHA256 of the body, with or without a sha256= label", "[verify]") {
  config::LoadResult loaded = LoadPreset("mollie", "mollie-shared-secret");
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string body = R"({"resource":"event","id":"event_GvJ8WHrp5isUdRub9CJyH","type":"payment-link.paid",)"
                           R"("entityId":"pl_qng5gbbv8NAZ5gpM5ZYgx","createdAt":"2026-01-01T00:00:00+00:00"})";
  auto headers = [](const std::string& s, const std::string& b) {
    return With("application/json", {{"X-Mollie-Signature", HexEncode(Mac(EVP_sha256(), s, b))}});
  };
  CheckPreset(e, body, headers, "mollie-shared-secret", "X-Mollie-Signature", "event_GvJ8WHrp5isUdRub9CJyH",
              "payment-link.paid");
  MapHeaders labelled =
      With("application/json", {{"X-Mollie-Signature", "sha256=" + HexEncode(Mac(EVP_sha256(), "mollie-shared-secret", body))}});
  CHECK(Check(e, labelled, body).ok());
}

TEST_CASE("preset woocommerce: base64 HMAC under the HTML-decoded secret; composite key", "[verify]") {
  // The secret as WooCommerce stores it, with entities; the key is its decoded form.
  const std::string stored = "wc&amp;sec&lt;ret&#039;";
  const std::string decoded = "wc&sec<ret'";
  config::LoadResult loaded = LoadPreset("woocommerce", stored);
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  CHECK(e.handshake == "woocommerce");
  CHECK(e.content_types == std::vector<std::string>{"application/json", kForm});
  const std::string body = R"({"id":4567,"status":"processing","date_modified_gmt":"2026-01-01T00:00:00",)"
                           R"("total":"29.00"})";
  auto headers = [](const std::string& s, const std::string& b) {
    return With("application/json", {{"X-WC-Webhook-Signature", Base64Encode(Mac(EVP_sha256(), s, b))},
                                      {"X-WC-Webhook-ID", "12"},
                                      {"X-WC-Webhook-Topic", "order.updated"},
                                      {"X-WC-Webhook-Delivery-ID", "a1b2c3"}});
  };
  CheckPreset(e, body, headers, decoded, "X-WC-Webhook-Signature", "12:order.updated:4567:2026-01-01T00:00:00",
              "order.updated");
  // Signed with the secret as stored (entities not decoded): refused.
  CHECK(Check(e, headers(stored, body), body).code() == Code::kUnauthenticated);
}

TEST_CASE("preset postmark: Basic credentials; keyed on MessageID + RecordType", "[verify]") {
  config::LoadResult loaded = LoadPreset("postmark", "pm-user:pm-password");
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  const std::string body = R"({"RecordType":"Delivery","ServerID":23,"MessageStream":"outbound",)"
                           R"("MessageID":"883953f4-6105-42a2-a16a-77a8eac79483","Recipient":"john@example.com"})";
  auto headers = [](const std::string& s, const std::string&) {
    return With("application/json", {{"Authorization", "Basic " + Base64Encode(s)}});
  };
  const MapHeaders good = headers("pm-user:pm-password", body);
  REQUIRE(Check(e, good, body).ok());
  Result<EventIdentity> id = Identify(e, good, body, true);
  REQUIRE(id.ok());
  CHECK(id->event_id == "883953f4-6105-42a2-a16a-77a8eac79483:Delivery");
  CHECK(id->event_type == "Delivery");
  CHECK(Check(e, headers("pm-user:other", body), body).code() == Code::kUnauthenticated);
  CHECK(Check(e, With("application/json", {}), body).code() == Code::kUnauthenticated);
  CHECK(Identify(e, good, body, true)->payload_hash == id->payload_hash);
}

TEST_CASE("preset pipedrive: Basic credentials; v2 meta key; a retry's attempt counter is volatile", "[verify]") {
  config::LoadResult loaded = LoadPreset("pipedrive", "pd-user:pd-password");
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  auto body = [](int attempt) {
    return R"({"data":{"id":42,"title":"Big deal"},"previous":null,"meta":{"action":"change","entity":"deal",)"
           R"("entity_id":"42","timestamp":"2026-01-01T00:00:00.000Z","webhook_id":"301","attempt":)" +
           std::to_string(attempt) + "}}";
  };
  MapHeaders good = With("application/json", {{"Authorization", "Basic " + Base64Encode("pd-user:pd-password")}});
  REQUIRE(Check(e, good, body(1)).ok());
  Result<EventIdentity> first = Identify(e, good, body(1), true);
  REQUIRE(first.ok());
  CHECK(first->event_id == "301:42:change:2026-01-01T00:00:00.000Z");
  CHECK(first->event_type == "deal");
  Result<EventIdentity> retry = Identify(e, good, body(2), true);
  REQUIRE(retry.ok());
  CHECK(retry->event_id == first->event_id);
  CHECK(retry->payload_hash == first->payload_hash);
  MapHeaders wrong = With("application/json", {{"Authorization", "Basic " + Base64Encode("pd-user:nope")}});
  CHECK(Check(e, wrong, body(1)).code() == Code::kUnauthenticated);
  CHECK(Check(e, With("application/json", {}), body(1)).code() == Code::kUnauthenticated);
}

TEST_CASE("form presets: send-test's signed samples verify and identify", "[verify]") {
  struct Row {
    const char* provider;
    const char* secret;
    const char* extra;
  } rows[] = {
      {"twilio", "twilio-auth-token", "public_url = \"https://hooks.example.com/hooks/twilio\"\n"},
      {"jotform", "unused", "insecure = true\n"},
      {"mollie", "mollie-secret", ""},
      {"woocommerce", "wc&amp;secret", ""},
      {"postmark", "u:p", ""},
      {"pipedrive", "u:p", ""},
  };
  for (const Row& row : rows) {
    INFO(row.provider);
    config::LoadResult loaded = LoadPreset(row.provider, row.secret, row.extra);
    REQUIRE(loaded.ok());
    const config::EndpointConfig& e = loaded.config.endpoints.at(0);
    const Secret secret = e.secrets.empty() ? Secret(std::string("unused")) : e.secrets.front();
    Result<SignedDelivery> d = SignDelivery(e, secret, SampleBody(e, "hookinbox.test", kNow * 1000), kNow * 1000,
                                            "POST", e.public_url);
    REQUIRE(d.ok());
    MapHeaders h;
    for (const auto& [n, v] : d->headers) h.Set(n, v);
    Status st = Check(e, h, d->body);
    INFO(st.ToString());
    CHECK(st.ok());
    Result<EventIdentity> id = Identify(e, h, d->body, IsJson(h));
    INFO(id.status().ToString());
    CHECK(id.ok());
  }
}
