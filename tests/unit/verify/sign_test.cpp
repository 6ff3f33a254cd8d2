// SignDelivery + SampleBody round trips: what send-test signs, Verify accepts
// and Identify reads, for the generic HMAC shapes, the credential schemes and
// a handful of presets (each loaded through config::LoadString with the real
// preset table); one changed body byte is rejected.
#include <catch2/catch.hpp>

#include <string>

#include "common/encoding.h"
#include "preset_test_util.h"
#include "verify/sign.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;
using namespace hookinbox::verify::test;

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

TEST_CASE("SignDelivery: signatures inside a provider's own body are refused clearly", "[verify][sign][vn_ua]") {
  for (const char* provider : {"vnpay", "zalopay", "payos"}) {
    config::EndpointConfig e = Load(provider, "some-secret");
    Result<SignedDelivery> d = SignDelivery(e, e.secrets.front(), "", kNowMs, "POST", "");
    INFO(provider);
    CHECK(d.status().code() == Code::kInvalidArgument);
    CHECK_THAT(d.status().message(), Catch::Contains("send-test cannot sign this endpoint"));
  }
  SECTION("sepay (a key in a header) can be sent") { RoundTrip(Load("sepay", "sepay-key"), false); }
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
