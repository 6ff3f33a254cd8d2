// The generic HMAC verifier's provider knobs, each in the shape of the provider
// that needs it: secret_prefix/secret_encoding (Standard Webhooks), ';' lists
// (Paddle), {method}{url} with ms timestamps (HubSpot v3), timestamp_pointer
// (Linear). Expected signatures are either published vectors, constants
// computed offline with `openssl dgst -sha256 -hmac <key>`, or computed here
// with OpenSSL's HMAC() directly, so none of them trusts our own Hmac().
#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include <cstdlib>

#include "config/load.h"
#include "verify/crypto.h"
#include "verify/verify.h"
#include "support/openssl_hmac.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

std::string OpensslHmacSha256(std::string_view key, std::string_view data) {
  return testing::OpensslHmac(EVP_sha256(), key, data);
}

std::vector<Secret> Secrets(std::initializer_list<const char*> s) {
  std::vector<Secret> out;
  for (const char* v : s) out.emplace_back(v);
  return out;
}

void CheckUnauthenticated(const Status& s, const std::string& message) {
  INFO(s.ToString());
  CHECK(s.code() == Code::kUnauthenticated);
  CHECK(s.message() == message);
}

config::EndpointConfig Hmac(std::string header, std::string format) {
  config::EndpointConfig e;
  e.name = "hooks";
  e.signature.scheme = "hmac";
  e.signature.header = std::move(header);
  e.signature.format = std::move(format);
  return e;
}

// --- Standard Webhooks: the published example of the Svix / Standard Webhooks docs and libraries.
constexpr const char* kSwSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr const char* kSwId = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr const char* kSwTimestamp = "1614265330";
constexpr const char* kSwBody = R"({"test": 2432232314})";
constexpr const char* kSwSignature = "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
constexpr const char* kSwSecretVar = "HOOKINBOX_VT_SW_SECRET";

// A Standard Webhooks endpoint loaded from TOML, so the secret goes through
// config/'s prefix stripping and decoding exactly as in production.
config::LoadResult LoadStandardWebhooks(const std::string& secret) {
  ::setenv(kSwSecretVar, secret.c_str(), 1);
  const std::string toml =
      "[[endpoint]]\n"
      "name = \"sw\"\n"
      "secret_env = \"HOOKINBOX_VT_SW_SECRET\"\n"
      "[endpoint.signature]\n"
      "header = \"webhook-signature\"\n"
      "format = \"v1,{signature}\"\n"
      "encoding = \"base64\"\n"
      "secret_prefix = \"whsec_\"\n"
      "secret_encoding = \"base64\"\n"
      "signed_payload = \"{id}.{timestamp}.{body}\"\n"
      "timestamp_header = \"webhook-timestamp\"\n"
      "[endpoint.key]\n"
      "id_header = \"webhook-id\"\n";
  return config::LoadString(toml, "test.toml", "/tmp");
}

// --- Paddle: "ts=..;h1=.." over "{timestamp}:{body}", hex.
const std::string kPaddleBody = R"({"event_id":"evt_01","event_type":"transaction.paid"})";
// HMAC-SHA256("1671552777:" + kPaddleBody) under "pdl_ntfset_01_test", hex.
const std::string kPaddleSig = "c2e43c15abd66cfd3e395630f90e4eaf96c1bd38f6827bac7375c48b13eab5df";

// --- HubSpot v3: "{method}{url}{body}{timestamp}", ms timestamps, base64.
const std::string kHubSpotBody = R"([{"eventId":1,"subscriptionType":"contact.creation","attemptNumber":0}])";
constexpr int64_t kHubSpotTsMs = 1700000000123;
// HMAC-SHA256("POST" + url + kHubSpotBody + "1700000000123") under "hubspot-client-secret", base64,
// with url = "https://hooks.example.com/hooks/hubspot" and the same with "?portal=62515".
const std::string kHubSpotSig = "xxHFgLDWc9KDmob7vEeA5pHhBJfbPyNKyIzF4VjflxI=";
const std::string kHubSpotSigQuery = "v9TqTrAq9rMHqmIKVl2b9HgIieO5iYKgmDUFwtR8wxA=";

config::EndpointConfig HubSpotLike() {
  auto e = Hmac("X-HubSpot-Signature-v3", "{signature}");
  e.public_url = "https://hooks.example.com/hooks/hubspot";
  e.signature.encoding = "base64";
  e.signature.signed_payload = "{method}{url}{body}{timestamp}";
  e.signature.timestamp_header = "X-HubSpot-Request-Timestamp";
  e.signature.timestamp_unit = "ms";
  e.signature.tolerance_seconds = 300;
  return e;
}

Status RunHubSpot(const config::EndpointConfig& e, const std::string& sig, std::string_view query, int64_t now_ms,
                  std::string_view method = "POST") {
  MapHeaders h{{"X-HubSpot-Signature-v3", sig}, {"X-HubSpot-Request-Timestamp", std::to_string(kHubSpotTsMs)}};
  return Verify(e, Secrets({"hubspot-client-secret"}), DeliveryView{method, "/hooks/hubspot", h, kHubSpotBody, query},
                now_ms);
}

// --- Linear: "{body}" signed, timestamp inside it at /webhookTimestamp (ms), hex.
const std::string kLinearBody =
    R"({"action":"create","type":"Issue","webhookTimestamp":1700000000123,"webhookId":"w1"})";
// HMAC-SHA256(kLinearBody) under "lin_wh_test", hex.
const std::string kLinearSig = "17893f9040ef38e937f8661ed97889e93e9560601032fce029f2b990a8f1a90f";
constexpr int64_t kLinearTsMs = 1700000000123;

config::EndpointConfig LinearLike() {
  auto e = Hmac("Linear-Signature", "{signature}");
  e.signature.timestamp_pointer = "/webhookTimestamp";
  e.signature.timestamp_unit = "ms";
  e.signature.tolerance_seconds = 60;
  return e;
}

Status RunLinear(const config::EndpointConfig& e, const std::string& sig, std::string_view body, int64_t now_ms) {
  MapHeaders h{{"Linear-Signature", sig}};
  return Verify(e, Secrets({"lin_wh_test"}), DeliveryView{"POST", "/hooks/linear", h, body}, now_ms);
}

}  // namespace

TEST_CASE("hmac knobs: a Standard Webhooks delivery verifies with a whsec_ base64 secret", "[verify]") {
  config::LoadResult loaded = LoadStandardWebhooks(kSwSecret);
  REQUIRE(loaded.ok());
  const config::EndpointConfig& e = loaded.config.endpoints.at(0);
  REQUIRE(e.secrets.size() == 1);

  // The key is the base64 decoding of what follows "whsec_"; sign with it independently.
  std::optional<std::string> key = Base64Decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  REQUIRE(key);
  CHECK(e.secrets[0].bytes() == *key);
  const std::string signed_bytes = std::string(kSwId) + "." + kSwTimestamp + "." + kSwBody;
  const std::string independent = Base64Encode(OpensslHmacSha256(*key, signed_bytes));
  CHECK(independent == kSwSignature);  // the published vector

  MapHeaders h{{"webhook-id", kSwId},
               {"webhook-timestamp", kSwTimestamp},
               {"webhook-signature", std::string("v1,bm90LWl0 v1,") + kSwSignature}};
  const int64_t now_ms = int64_t{1614265330} * 1000 + 5000;
  CHECK(Verify(e, e.secrets, DeliveryView{"POST", "/hooks/sw", h, kSwBody}, now_ms).ok());

  SECTION("the same secret used as UTF-8 text (Stripe's way) does not verify") {
    CheckUnauthenticated(Verify(e, Secrets({kSwSecret}), DeliveryView{"POST", "/hooks/sw", h, kSwBody}, now_ms),
                         "signature mismatch");
  }
  SECTION("a secret without the prefix decodes the same") {
    config::LoadResult bare = LoadStandardWebhooks("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    REQUIRE(bare.ok());
    CHECK(bare.config.endpoints.at(0).secrets.at(0).bytes() == *key);
  }
}

TEST_CASE("hmac knobs: a Paddle ts=..;h1=.. header with two h1 parts verifies on the matching one", "[verify]") {
  auto e = Hmac("Paddle-Signature", "ts={timestamp};h1={signature}");
  e.signature.signed_payload = "{timestamp}:{body}";
  e.signature.tolerance_seconds = 5;
  const auto secrets = Secrets({"pdl_ntfset_01_test"});
  CHECK(HexEncode(OpensslHmacSha256("pdl_ntfset_01_test", "1671552777:" + kPaddleBody)) == kPaddleSig);
  const int64_t now_ms = int64_t{1671552777} * 1000;
  const std::string other = std::string(64, 'a');
  struct Case {
    const char* what;
    std::string header;
    const char* outcome;  // "" = verifies
  };
  const Case cases[] = {
      {"the second h1 matches", "ts=1671552777;h1=" + other + ";h1=" + kPaddleSig, ""},
      {"the first h1 matches", "ts=1671552777;h1=" + kPaddleSig + ";h1=" + other, ""},
      {"parts in another order, with spaces", "h1=" + kPaddleSig + "; ts=1671552777", ""},
      {"no h1 matches", "ts=1671552777;h1=" + other + ";h1=" + other, "signature mismatch"},
      {"another timestamp was not signed", "ts=1671552778;h1=" + kPaddleSig, "signature mismatch"},
      {"',' is not this format's separator", "ts=1671552777,h1=" + kPaddleSig, "malformed signature"},
      {"no timestamp part", "h1=" + kPaddleSig, "missing or malformed timestamp"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    MapHeaders h{{"Paddle-Signature", c.header}};
    Status s = Verify(e, secrets, DeliveryView{"POST", "/hooks/paddle", h, kPaddleBody}, now_ms);
    if (*c.outcome == '\0') {
      CHECK(s.ok());
    } else {
      CheckUnauthenticated(s, c.outcome);
    }
  }
  SECTION("outside Paddle's 5 s tolerance") {
    MapHeaders h{{"Paddle-Signature", "ts=1671552777;h1=" + kPaddleSig}};
    CheckUnauthenticated(Verify(e, secrets, DeliveryView{"POST", "/hooks/paddle", h, kPaddleBody}, now_ms + 6000),
                         "timestamp outside tolerance");
  }
}

TEST_CASE("hmac knobs: HubSpot v3 signs method, public URL, body and a millisecond timestamp", "[verify]") {
  auto e = HubSpotLike();
  const std::string url = "https://hooks.example.com/hooks/hubspot";
  const std::string body_ts = kHubSpotBody + std::to_string(kHubSpotTsMs);
  CHECK(Base64Encode(OpensslHmacSha256("hubspot-client-secret", "POST" + url + body_ts)) == kHubSpotSig);
  CHECK(Base64Encode(OpensslHmacSha256("hubspot-client-secret", "POST" + url + "?portal=62515" + body_ts)) ==
        kHubSpotSigQuery);

  CHECK(RunHubSpot(e, kHubSpotSig, "", kHubSpotTsMs).ok());
  SECTION("{url} carries the received query string when there is one") {
    CHECK(RunHubSpot(e, kHubSpotSigQuery, "portal=62515", kHubSpotTsMs).ok());
    CheckUnauthenticated(RunHubSpot(e, kHubSpotSig, "portal=62515", kHubSpotTsMs), "signature mismatch");
    CheckUnauthenticated(RunHubSpot(e, kHubSpotSigQuery, "", kHubSpotTsMs), "signature mismatch");
    CheckUnauthenticated(RunHubSpot(e, kHubSpotSigQuery, "portal=62516", kHubSpotTsMs), "signature mismatch");
  }
  SECTION("another method or public URL is a mismatch") {
    CheckUnauthenticated(RunHubSpot(e, kHubSpotSig, "", kHubSpotTsMs, "PUT"), "signature mismatch");
    auto moved = e;
    moved.public_url = "https://other.example.com/hooks/hubspot";
    CheckUnauthenticated(RunHubSpot(moved, kHubSpotSig, "", kHubSpotTsMs), "signature mismatch");
  }
  SECTION("the tolerance is applied to milliseconds, in milliseconds") {
    const int64_t window = 300'000;
    const struct {
      int64_t now_ms;
      bool ok;
    } cases[] = {
        {kHubSpotTsMs + window, true},      {kHubSpotTsMs - window, true},
        {kHubSpotTsMs + window + 1, false}, {kHubSpotTsMs - window - 1, false},
    };
    for (const auto& c : cases) {
      INFO("now_ms = " << c.now_ms);
      Status s = RunHubSpot(e, kHubSpotSig, "", c.now_ms);
      if (c.ok) {
        CHECK(s.ok());
      } else {
        CheckUnauthenticated(s, "timestamp outside tolerance");
      }
    }
  }
  SECTION("the same millisecond timestamp read as seconds is far outside the window") {
    e.signature.timestamp_unit = "s";
    CheckUnauthenticated(RunHubSpot(e, kHubSpotSig, "", kHubSpotTsMs), "timestamp outside tolerance");
  }
  SECTION("{url} without public_url fails closed") {
    e.public_url.clear();
    CHECK(RunHubSpot(e, kHubSpotSig, "", kHubSpotTsMs).code() == Code::kInternal);
  }
}

TEST_CASE("hmac knobs: a Linear-like timestamp is read from the body at a JSON pointer", "[verify]") {
  auto e = LinearLike();
  CHECK(HexEncode(OpensslHmacSha256("lin_wh_test", kLinearBody)) == kLinearSig);
  CHECK(RunLinear(e, kLinearSig, kLinearBody, kLinearTsMs + 30'000).ok());
  CheckUnauthenticated(RunLinear(e, kLinearSig, kLinearBody, kLinearTsMs + 61'000), "timestamp outside tolerance");
  CheckUnauthenticated(RunLinear(e, kLinearSig, kLinearBody, kLinearTsMs - 61'000), "timestamp outside tolerance");

  SECTION("a numeric string works like a number") {
    const std::string body = R"({"action":"create","webhookTimestamp":"1700000000123"})";
    const std::string sig = HexEncode(OpensslHmacSha256("lin_wh_test", body));
    CHECK(RunLinear(e, sig, body, kLinearTsMs).ok());
    CheckUnauthenticated(RunLinear(e, sig, body, kLinearTsMs + 61'000), "timestamp outside tolerance");
  }
  SECTION("a missing, negative, fractional or non-numeric timestamp is refused, even when signed") {
    for (std::string body :
         {R"({"action":"create"})", R"({"webhookTimestamp":-1700000000123})", R"({"webhookTimestamp":1.7e12})",
          R"({"webhookTimestamp":"soon"})", R"({"webhookTimestamp":null})", R"({"webhookTimestamp":[1]})",
          "not json"}) {
      INFO(body);
      CheckUnauthenticated(RunLinear(e, HexEncode(OpensslHmacSha256("lin_wh_test", body)), body, kLinearTsMs),
                           "missing or malformed timestamp");
    }
  }
  SECTION("the timestamp can also be signed through {timestamp}, as the text found in the body") {
    e.signature.signed_payload = "{timestamp}.{body}";
    const std::string sig = HexEncode(OpensslHmacSha256("lin_wh_test", "1700000000123." + kLinearBody));
    CHECK(RunLinear(e, sig, kLinearBody, kLinearTsMs).ok());
  }
}
