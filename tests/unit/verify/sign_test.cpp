// SignDelivery + SampleBody round trips: what send-test signs, Verify accepts
// and Identify reads, for the generic HMAC shapes, the credential schemes and
// a handful of presets (each loaded through config::LoadString with the real
// preset table); one changed body byte is rejected. The presets that sign
// their own fields (VNPay, MoMo, ZaloPay, payOS) are also checked against
// OpenSSL's HMAC() where the signed string is simple to rebuild (MoMo, ZaloPay).
#include <catch2/catch.hpp>

#include <openssl/evp.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "support/openssl_hmac.h"
#include "verify/sign.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;
using hookinbox::testing::OpensslHmac;

namespace {

constexpr int64_t kNowMs = 1767225600123;  // 2026-01-01T00:00:00.123Z

MapHeaders ToHeaders(const SignedDelivery& d) {
  MapHeaders m;
  for (const auto& [name, value] : d.headers) m.Set(name, value);
  return m;
}

Status VerifyDelivery(const config::EndpointConfig& e, const SignedDelivery& d) {
  MapHeaders h = ToHeaders(d);
  return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, d.body}, kNowMs);
}

// Signs a sample for `e`, checks Verify + Identify accept it, and that a
// changed body byte is rejected when the scheme signs the body.
void RoundTrip(const config::EndpointConfig& e, bool body_signed = true) {
  std::string body = SampleBody(e, "thing.happened", kNowMs);
  Result<SignedDelivery> d = SignDelivery(e, e.secrets.front(), body, kNowMs, "POST", e.public_url, "thing.happened");
  REQUIRE(d.ok());
  INFO(d->body);
  CHECK(VerifyDelivery(e, *d).ok());
  MapHeaders h = ToHeaders(*d);
  Result<EventIdentity> id = Identify(e, h, d->body, true);
  REQUIRE(id.ok());
  CHECK_FALSE(id->event_id.empty());
  CHECK(id->event_type == "thing.happened");

  // A second sample gets a different id.
  Result<SignedDelivery> d2 = SignDelivery(e, e.secrets.front(), SampleBody(e, "thing.happened", kNowMs), kNowMs,
                                           "POST", e.public_url, "thing.happened");
  REQUIRE(d2.ok());
  MapHeaders h2 = ToHeaders(*d2);
  Result<EventIdentity> id2 = Identify(e, h2, d2->body, true);
  REQUIRE(id2.ok());
  CHECK(id2->event_id != id->event_id);

  if (body_signed) {
    SignedDelivery tampered = *d;
    size_t at = tampered.body.find("send-test");
    REQUIRE(at != std::string::npos);
    tampered.body[at] = 'S';
    CHECK(VerifyDelivery(e, tampered).code() == Code::kUnauthenticated);
  }
}

config::EndpointConfig Load(const std::string& provider, const std::string& secret, const std::string& extra = "") {
  config::LoadResult r = LoadPreset(provider, secret, extra);
  INFO(Dump(r));
  REQUIRE(r.ok());
  REQUIRE(r.config.endpoints.size() == 1);
  return r.config.endpoints.front();
}

const std::string kKey = "[endpoint.key]\nid_pointer = \"/id\"\nevent_type_pointer = \"/type\"\n";

}  // namespace

TEST_CASE("SignDelivery: generic HMAC shapes round-trip through Verify and Identify", "[verify][sign]") {
  SECTION("prefix template over {timestamp}.{body} with a timestamp header") {
    RoundTrip(Load("generic", "k1",
                   "[endpoint.signature]\nformat = \"sha256={signature}\"\nsigned_payload = "
                   "\"{timestamp}.{body}\"\ntimestamp_header = \"X-Timestamp\"\n" + kKey));
  }
  SECTION("plain hex signature, sha512, base64") {
    RoundTrip(Load("generic", "k2", "[endpoint.signature]\nalgorithm = \"sha512\"\nencoding = \"base64\"\n" + kKey));
  }
  SECTION("key-value list with ',' and a {timestamp} part in ms") {
    RoundTrip(Load("generic", "k3",
                   "[endpoint.signature]\nformat = \"t={timestamp},v1={signature}\"\nsigned_payload = "
                   "\"{timestamp}.{body}\"\ntimestamp_unit = \"ms\"\n" + kKey));
  }
  SECTION("key-value list with ';'") {
    RoundTrip(Load("generic", "k4",
                   "[endpoint.signature]\nformat = \"ts={timestamp};h1={signature}\"\nsigned_payload = "
                   "\"{timestamp}:{body}\"\n" + kKey));
  }
  SECTION("versioned list, header id signed as {id}, composite key with a header part") {
    RoundTrip(Load("generic", "k5",
                   "[endpoint.signature]\nformat = \"v1,{signature}\"\nencoding = \"base64\"\nsigned_payload = "
                   "\"{id}.{timestamp}.{body}\"\ntimestamp_header = \"X-Ts\"\n[endpoint.key]\nid_header = "
                   "\"X-Id\"\nevent_type_header = \"X-Type\"\n"));
  }
  SECTION("timestamp in the body") {
    RoundTrip(Load("generic", "k6",
                   "[endpoint.signature]\ntimestamp_pointer = \"/meta/sent_at\"\ntimestamp_unit = \"ms\"\n"
                   "[endpoint.key]\nfields = [\"/object/id\", \"header:X-Attempt-Group\"]\nevent_type_pointer = "
                   "\"/type\"\n"));
  }
}

TEST_CASE("SignDelivery: presets round-trip through Verify and Identify", "[verify][sign]") {
  const std::string sw_secret = "whsec_" + Base64Encode("0123456789abcdef0123456789abcdef");
  SECTION("stripe") { RoundTrip(Load("stripe", "whsec_stripe_test")); }
  SECTION("github") { RoundTrip(Load("github", "gh-secret")); }
  SECTION("slack") { RoundTrip(Load("slack", "slack-secret")); }
  SECTION("standard-webhooks") { RoundTrip(Load("standard-webhooks", sw_secret)); }
  SECTION("svix") { RoundTrip(Load("svix", sw_secret)); }
  SECTION("paddle") { RoundTrip(Load("paddle", "pdl_ntfset_secret")); }
  SECTION("shopify") { RoundTrip(Load("shopify", "shpss_secret")); }
  SECTION("calendly") { RoundTrip(Load("calendly", "cal-secret")); }
  SECTION("linear") { RoundTrip(Load("linear", "lin-secret")); }
  SECTION("square with public_url") {
    RoundTrip(Load("square", "sq-secret", "public_url = \"https://hooks.example.com/hooks/square\"\n"));
  }
  SECTION("gitlab (token: the body is not signed)") { RoundTrip(Load("gitlab", "gl-token"), false); }
}

namespace {

// A signature inside the provider's own delivery (VNPay, MoMo, ZaloPay,
// payOS): send-test's sample, signed, is what Verify and Identify accept, as
// the receive path calls them (a GET's query is its form body).
struct FieldDelivery {
  SignedDelivery d;
  EventIdentity id;
};
FieldDelivery SignFields(const config::EndpointConfig& e, std::string_view event_type = kTestEventType) {
  const std::string method = e.get_deliveries ? "GET" : "POST";
  Result<SignedDelivery> d =
      SignDelivery(e, e.secrets.front(), SampleBody(e, event_type, kNowMs), kNowMs, method, "", event_type);
  REQUIRE(d.ok());
  INFO(d->body << d->query);
  CHECK(d->method == method);
  MapHeaders h = ToHeaders(*d);
  const std::string& body = e.get_deliveries ? d->query : d->body;
  if (e.get_deliveries) {
    CHECK(d->body.empty());
    h.Set("Content-Type", "application/x-www-form-urlencoded");  // what receive.cpp reads a GET's query as
  }
  Status verified = Verify(e, e.secrets, DeliveryView{method, "/hooks/hooks", h, body, d->query}, kNowMs);
  INFO(verified.ToString());
  CHECK(verified.ok());
  Result<EventIdentity> id = Identify(e, h, body, !e.get_deliveries);
  INFO(id.status().ToString());
  REQUIRE(id.ok());
  return {*d, *id};
}

Status VerifyFields(const config::EndpointConfig& e, const std::string& body) {
  MapHeaders h = MapHeaders{{"Content-Type", "application/json"}};
  return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, body}, kNowMs);
}

}  // namespace

TEST_CASE("SignDelivery: signatures over the provider's own fields round-trip", "[verify][sign][vn_ua]") {
  SECTION("vnpay: a GET whose query is the signed vnp_* form") {
    config::EndpointConfig e = Load("vnpay", "vnp-hash-secret");
    FieldDelivery a = SignFields(e);
    CHECK(a.id.event_type == "00");  // VNPay's success code, as in its example
    CHECK_THAT(a.d.query, Catch::Contains("vnp_SecureHash=") && Catch::Contains("vnp_Amount=1000000"));
    FieldDelivery b = SignFields(e);
    CHECK(b.id.event_id != a.id.event_id);  // a fresh vnp_TmnCode:vnp_TxnRef each run
    // One changed signed byte is refused.
    std::string forged = a.d.query;
    forged.replace(forged.find("vnp_Amount=1000000"), 18, "vnp_Amount=9000000");
    MapHeaders h{{"Content-Type", "application/x-www-form-urlencoded"}};
    CHECK(Verify(e, e.secrets, DeliveryView{"GET", "/hooks/hooks", h, forged, forged}, kNowMs).code() ==
          Code::kUnauthenticated);
    CHECK(SignFields(e, "24").id.event_type == "24");  // --event-type names VNPay's code
  }
  SECTION("momo: the 13-field string with the configured accessKey, checked with OpenSSL") {
    config::EndpointConfig e = Load("momo", "momo-secret", "[endpoint.signature]\naccess_key = \"F8BBA842ECF85\"\n");
    FieldDelivery a = SignFields(e);
    CHECK(a.id.event_type == "0");
    nlohmann::json body = nlohmann::json::parse(a.d.body);
    CHECK(a.id.event_id == body["partnerCode"].get<std::string>() + ":" + body["orderId"].get<std::string>() + ":0");
    std::string raw = "accessKey=F8BBA842ECF85";
    for (const char* f : {"amount", "extraData", "message", "orderId", "orderInfo", "orderType", "partnerCode",
                          "payType", "requestId", "responseTime", "resultCode", "transId"}) {
      const nlohmann::json& v = body[f];
      raw += std::string("&") + f + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    }
    CHECK(body["signature"] == HexEncode(OpensslHmac(EVP_sha256(), "momo-secret", raw)));
    CHECK(SignFields(e).id.event_id != a.id.event_id);
    body["amount"] = 2000;
    CHECK(VerifyFields(e, body.dump()).code() == Code::kUnauthenticated);
  }
  SECTION("zalopay: mac over the data string, checked with OpenSSL") {
    config::EndpointConfig e = Load("zalopay", "zalo-key2");
    FieldDelivery a = SignFields(e);
    CHECK(a.id.event_type == "1");
    nlohmann::json body = nlohmann::json::parse(a.d.body);
    const std::string data = body["data"].get<std::string>();
    nlohmann::json inner = nlohmann::json::parse(data);
    CHECK(a.id.event_id == inner["app_id"].dump() + ":" + inner["app_trans_id"].get<std::string>());
    CHECK(inner["amount"] == 10000);  // the rest of the documented example stays
    CHECK(body["mac"] == HexEncode(OpensslHmac(EVP_sha256(), "zalo-key2", data)));
    CHECK(SignFields(e).id.event_id != a.id.event_id);
  }
  SECTION("payos: sorted members of data") {
    config::EndpointConfig e = Load("payos", "payos-checksum-key");
    FieldDelivery a = SignFields(e);
    CHECK(a.id.event_type == "00");
    nlohmann::json body = nlohmann::json::parse(a.d.body);
    CHECK(a.id.event_id == body["data"]["orderCode"].dump() + ":" + body["data"]["reference"].get<std::string>());
    CHECK(body["data"]["orderCode"].is_number());  // a payOS order code stays a number
    CHECK(SignFields(e).id.event_id != a.id.event_id);
    body["data"]["amount"] = 4000;
    CHECK(VerifyFields(e, body.dump()).code() == Code::kUnauthenticated);
  }
  SECTION("sepay (a key in a header) can be sent") { RoundTrip(Load("sepay", "sepay-key"), false); }
}

TEST_CASE("SignDelivery: a body without the fields the signature covers is refused clearly", "[verify][sign][vn_ua]") {
  config::EndpointConfig momo = Load("momo", "s", "[endpoint.signature]\naccess_key = \"AK\"\n");
  Result<SignedDelivery> d = SignDelivery(momo, momo.secrets.front(), R"({"orderId":"1"})", kNowMs, "POST", "");
  CHECK(d.status().code() == Code::kInvalidArgument);
  CHECK_THAT(d.status().message(), Catch::Contains("lacks the fields the signature covers"));
  d = SignDelivery(momo, momo.secrets.front(), "not json", kNowMs, "POST", "");
  CHECK(d.status().code() == Code::kInvalidArgument);
  CHECK_THAT(d.status().message(), Catch::Contains("not JSON"));
  config::EndpointConfig payos = Load("payos", "s");
  d = SignDelivery(payos, payos.secrets.front(), R"({"data":"not an object"})", kNowMs, "POST", "");
  CHECK(d.status().code() == Code::kInvalidArgument);
  CHECK_THAT(d.status().message(), Catch::Contains("lacks the fields the signature covers"));
  config::EndpointConfig vnpay = Load("vnpay", "s");
  d = SignDelivery(vnpay, vnpay.secrets.front(), "vnp_Amount=%ZZ", kNowMs, "GET", "");
  CHECK(d.status().code() == Code::kInvalidArgument);
  // Config validation refuses a signature placed in the body it signs; SignDelivery does too.
  config::EndpointConfig own = momo;
  own.signature.signed_payload = "{body}";
  d = SignDelivery(own, own.secrets.front(), R"({"orderId":"1"})", kNowMs, "POST", "");
  CHECK(d.status().code() == Code::kInvalidArgument);
  CHECK_THAT(d.status().message(), Catch::Contains("placed in the body it signs"));
}

TEST_CASE("SignDelivery: basic credentials and a caller's own body", "[verify][sign]") {
  config::EndpointConfig e =
      Load("generic", "user:pass", "[endpoint.signature]\nscheme = \"basic\"\n" + kKey);
  Result<SignedDelivery> d = SignDelivery(e, e.secrets.front(), R"({"id":"mine","type":"x"})", kNowMs, "POST", "");
  REQUIRE(d.ok());
  CHECK(d->body == R"({"id":"mine","type":"x"})");  // sent as-is
  CHECK(VerifyDelivery(e, *d).ok());
  CHECK(d->headers.front().first == "Content-Type");
  CHECK(d->headers.front().second == "application/json");
}
