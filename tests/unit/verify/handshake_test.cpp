// Provider handshakes: recognised by their documented shape, answered as the
// provider expects, and never mistaken for (or hiding) a real delivery.
#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include <string>

#include "common/encoding.h"
#include "common/headers.h"
#include "verify/handshake.h"
#include "support/openssl_hmac.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

constexpr int64_t kNowS = 1764511200;

std::string HmacHex(const std::string& key, const std::string& data) {
  return HexEncode(testing::OpensslHmac(EVP_sha256(), key, data));
}

config::EndpointConfig ZoomLike(std::vector<std::string> secrets) {
  config::EndpointConfig e;
  e.handshake = "zoom";
  e.signature.header = "x-zm-signature";
  e.signature.format = "v0={signature}";
  e.signature.signed_payload = "v0:{timestamp}:{body}";
  e.signature.timestamp_header = "x-zm-request-timestamp";
  for (auto& s : secrets) e.secrets.emplace_back(s);
  return e;
}

struct Signed {
  MapHeaders headers;
  std::string body;
  DeliveryView View() const { return {"POST", "/hooks/zoom", headers, body}; }
};

Signed ZoomDelivery(const std::string& secret, const std::string& body) {
  Signed d;
  d.body = body;
  const std::string ts = std::to_string(kNowS);
  d.headers.Set("Content-Type", "application/json");
  d.headers.Set("x-zm-request-timestamp", ts);
  d.headers.Set("x-zm-signature", "v0=" + HmacHex(secret, "v0:" + ts + ":" + body));
  return d;
}

Signed Json(const std::string& body) {
  Signed d;
  d.body = body;
  d.headers.Set("Content-Type", "application/json");
  return d;
}

config::EndpointConfig WithHandshake(const std::string& kind) {
  config::EndpointConfig e;
  e.handshake = kind;
  return e;
}

}  // namespace

TEST_CASE("handshake: Slack url_verification is answered with its challenge as text", "[verify][handshake]") {
  auto e = WithHandshake("slack");
  auto d = Json(R"({"token":"x","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"})");
  auto a = AnswerSignedHandshake(e, {}, d.View(), kNowS * 1000);
  REQUIRE(a.has_value());
  CHECK(a->http_status == 200);
  CHECK(a->content_type == "text/plain");
  CHECK(a->body == "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");

  CHECK_FALSE(AnswerSignedHandshake(e, {}, Json(R"({"type":"event_callback","event_id":"Ev1"})").View(), 0));
  CHECK_FALSE(AnswerSignedHandshake(WithHandshake(""), {}, d.View(), 0));  // a generic endpoint answers none
  auto bad = AnswerSignedHandshake(e, {}, Json(R"({"type":"url_verification","challenge":"a\nb"})").View(), 0);
  REQUIRE(bad.has_value());
  CHECK(bad->http_status == 400);
}

TEST_CASE("handshake: Zoom url_validation answers encryptedToken = HMAC(secret, plainToken)", "[verify][handshake]") {
  const std::string body = R"({"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"})";
  auto e = ZoomLike({"new-secret", "old-secret"});
  SECTION("signed with the new secret") {
    auto d = ZoomDelivery("new-secret", body);
    auto a = AnswerSignedHandshake(e, e.secrets, d.View(), kNowS * 1000);
    REQUIRE(a.has_value());
    CHECK(a->http_status == 200);
    CHECK(a->body == R"({"encryptedToken":")" + HmacHex("new-secret", "qgg8vlvZRS6UYooatFL8Aw") +
                         R"(","plainToken":"qgg8vlvZRS6UYooatFL8Aw"})");
  }
  SECTION("during a rotation, the answer uses the secret Zoom signed with") {
    auto d = ZoomDelivery("old-secret", body);
    auto a = AnswerSignedHandshake(e, e.secrets, d.View(), kNowS * 1000);
    REQUIRE(a.has_value());
    CHECK(a->body.find(HmacHex("old-secret", "qgg8vlvZRS6UYooatFL8Aw")) != std::string::npos);
  }
  SECTION("no configured secret signed it: refused") {
    auto d = ZoomDelivery("someone-else", body);
    auto a = AnswerSignedHandshake(e, e.secrets, d.View(), kNowS * 1000);
    REQUIRE(a.has_value());
    CHECK(a->http_status == 401);
  }
  SECTION("an ordinary Zoom event is not a handshake") {
    auto d = ZoomDelivery("new-secret", R"({"event":"meeting.started","event_ts":1,"payload":{}})");
    CHECK_FALSE(AnswerSignedHandshake(e, e.secrets, d.View(), kNowS * 1000));
  }
  SECTION("a validation without plainToken is refused") {
    auto d = ZoomDelivery("new-secret", R"({"event":"endpoint.url_validation","payload":{}})");
    auto a = AnswerSignedHandshake(e, e.secrets, d.View(), kNowS * 1000);
    REQUIRE(a.has_value());
    CHECK(a->http_status == 400);
  }
}

TEST_CASE("handshake: Discord PING (type 0) gets 204, an interactions PING {\"type\":1}", "[verify][handshake]") {
  auto e = WithHandshake("discord");
  auto ping = AnswerSignedHandshake(e, {}, Json(R"({"version":1,"application_id":"1","type":0})").View(), 0);
  REQUIRE(ping.has_value());
  CHECK(ping->http_status == 204);
  CHECK(ping->body.empty());
  auto iping = AnswerSignedHandshake(e, {}, Json(R"({"id":"1","application_id":"1","type":1})").View(), 0);
  REQUIRE(iping.has_value());
  CHECK(iping->body == R"({"type":1})");
  // A webhook event (type 1 with an event) is a delivery, not a handshake.
  CHECK_FALSE(AnswerSignedHandshake(e, {}, Json(R"({"type":1,"event":{"type":"APPLICATION_AUTHORIZED"}})").View(), 0));
  // Other interactions need a synchronous answer: refused, clearly.
  auto command = AnswerSignedHandshake(e, {}, Json(R"({"id":"2","type":2,"data":{}})").View(), 0);
  REQUIRE(command.has_value());
  CHECK(command->http_status == 400);
  CHECK(command->body.find("interactions") != std::string::npos);
}

TEST_CASE("handshake: WooCommerce's unsigned creation ping is answered 200", "[verify][handshake]") {
  auto e = WithHandshake("woocommerce");
  e.signature.header = "X-WC-Webhook-Signature";
  Signed d;
  d.body = "webhook_id=42";
  d.headers.Set("Content-Type", "application/x-www-form-urlencoded");
  auto a = AnswerUnsignedHandshake(e, d.View());
  REQUIRE(a.has_value());
  CHECK(a->http_status == 200);

  Signed signed_form = d;
  signed_form.headers.Set("X-WC-Webhook-Signature", "abc=");
  CHECK_FALSE(AnswerUnsignedHandshake(e, signed_form.View()));  // signed: verified as a delivery
  Signed extra = d;
  extra.body = "webhook_id=42&x=1";
  CHECK_FALSE(AnswerUnsignedHandshake(e, extra.View()));
  Signed letters = d;
  letters.body = "webhook_id=4a";
  CHECK_FALSE(AnswerUnsignedHandshake(e, letters.View()));
  Signed json = Json(R"({"webhook_id":42})");
  CHECK_FALSE(AnswerUnsignedHandshake(e, json.View()));
  CHECK_FALSE(AnswerUnsignedHandshake(WithHandshake(""), d.View()));
}

TEST_CASE("handshake: Meta's GET echoes hub.challenge only for the right verify token", "[verify][handshake]") {
  auto e = WithHandshake("meta");
  e.verify_token = Secret("meta-verify-1");
  auto ok = AnswerGetHandshake(e, "hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meta-verify-1");
  REQUIRE(ok.has_value());
  CHECK(ok->http_status == 200);
  CHECK(ok->body == "1158201444");

  auto wrong = AnswerGetHandshake(e, "hub.mode=subscribe&hub.challenge=1&hub.verify_token=guess");
  REQUIRE(wrong.has_value());
  CHECK(wrong->http_status == 403);
  CHECK(wrong->body.find("guess") == std::string::npos);  // a refusal echoes nothing it was sent
  CHECK(AnswerGetHandshake(e, "hub.mode=subscribe&hub.challenge=1")->http_status == 403);
  CHECK(AnswerGetHandshake(e, "hub.mode=unsubscribe&hub.challenge=1&hub.verify_token=meta-verify-1")->http_status == 400);
  CHECK(AnswerGetHandshake(e, "hub.mode=subscribe&hub.verify_token=meta-verify-1")->http_status == 400);
  CHECK(AnswerGetHandshake(e, "hub.mode=subscribe&hub.challenge=%3Cscript%3E&hub.verify_token=meta-verify-1")
            ->http_status == 400);
  CHECK(AnswerGetHandshake(e, "hub.mode=subscribe&hub.challenge=a%0d%0aSet-Cookie:x&hub.verify_token=meta-verify-1")
            ->http_status == 400);
  CHECK(AnswerGetHandshake(e, "hub.mode=subscribe&hub.challenge=1&hub.verify_token=bad%zz")->http_status == 400);
  // The query is decoded: a token with reserved characters matches in its encoded form.
  auto spaced = WithHandshake("meta");
  spaced.verify_token = Secret("my token&more");
  CHECK(AnswerGetHandshake(spaced, "hub.mode=subscribe&hub.challenge=42&hub.verify_token=my+token%26more")->body ==
        "42");

  auto unset = WithHandshake("meta");  // no verify token configured: nobody passes
  CHECK(AnswerGetHandshake(unset, "hub.mode=subscribe&hub.challenge=1&hub.verify_token=")->http_status == 403);
  CHECK_FALSE(AnswerGetHandshake(WithHandshake("slack"), "hub.mode=subscribe"));
}
