// The generic HMAC verifier through Verify(). Expected signatures were
// computed offline with `openssl dgst -<alg> -hmac <key>` and pasted here, so
// these tests do not trust our own Hmac().
#include <catch2/catch.hpp>

#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

const std::string kBody = R"({"id":"evt_1","type":"invoice.paid"})";
// HMAC-SHA256(kBody) under "secret-new" / "secret-old", hex.
const std::string kSigNew = "3a7cd1b7493e6c42f5e393b076b89cfb08e4b115225517ad95d00a62a4b8f22f";
const std::string kSigOld = "4bbd174370863a6e533a6f8d8ff706379968d4fe22cd89247f1232662c86fa2c";
// HMAC-SHA256("1700000000." + kBody) under "whsec_test", hex.
const std::string kSigTs = "4aa90aa69730f112c87accbf54203d1076675eae3b18a5cb82b5ab9e7f5cd5bc";
// HMAC-SHA1(kBody) under "secret-new", hex.
const std::string kSigSha1 = "434b5f80a3f5d460d1a52f3f631b8486c16ad936";
// HMAC-SHA512(kBody) under "secret-new", base64.
const std::string kSigSha512B64 =
    "TofzrmdWqXHAp1WBu1OF0+JVu4aj+1eHAIXREvAgduT+NXS9nAaj11akzWhThl0uMJ+xFojAv353deDm/9W5gg==";
// HMAC-SHA256("msg_1.1700000000." + kBody) under "whsec_raw", base64.
const std::string kSigIdTs = "/qb/eswVI852Q73AGwi7Ug7+pWVz18zZpzTZH05geYQ=";

constexpr int64_t kTs = 1700000000;
constexpr int64_t kNowMs = kTs * 1000;

config::EndpointConfig Endpoint(std::string format = "sha256={signature}") {
  config::EndpointConfig e;
  e.name = "payments";
  e.signature.scheme = "hmac";
  e.signature.header = "X-Signature";
  e.signature.format = std::move(format);
  return e;
}

std::vector<Secret> Secrets(std::initializer_list<const char*> s) {
  std::vector<Secret> out;
  for (const char* v : s) out.emplace_back(v);
  return out;
}

Status Run(const config::EndpointConfig& e, const std::vector<Secret>& secrets, const MapHeaders& h,
           std::string_view body = kBody, int64_t now_ms = kNowMs) {
  return Verify(e, secrets, DeliveryView{"POST", "/hooks/payments", h, body}, now_ms);
}

// Stripe-style: "t=<ts>,v1=<sig>" over "{timestamp}.{body}".
config::EndpointConfig StripeLike() {
  config::EndpointConfig e = Endpoint("t={timestamp},v1={signature}");
  e.signature.header = "Stripe-Signature";
  e.signature.signed_payload = "{timestamp}.{body}";
  return e;
}

void CheckUnauthenticated(const Status& s, const std::string& message) {
  INFO(s.ToString());
  CHECK(s.code() == Code::kUnauthenticated);
  CHECK(s.message() == message);
}

}  // namespace

TEST_CASE("hmac: a correct signature verifies, a wrong one does not", "[verify]") {
  auto e = Endpoint();
  auto secrets = Secrets({"secret-new"});
  CHECK(Run(e, secrets, {{"X-Signature", "sha256=" + kSigNew}}).ok());
  SECTION("the header name is case-insensitive and hex may be upper case") {
    std::string upper = kSigNew;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK(Run(e, secrets, {{"x-signature", "sha256=" + upper}}).ok());
  }
  SECTION("one flipped hex digit is a mismatch") {
    std::string bad = kSigNew;
    bad[10] = bad[10] == '0' ? '1' : '0';
    CheckUnauthenticated(Run(e, secrets, {{"X-Signature", "sha256=" + bad}}), "signature mismatch");
  }
  SECTION("a truncated signature is a mismatch") {
    CheckUnauthenticated(Run(e, secrets, {{"X-Signature", "sha256=" + kSigNew.substr(0, 40)}}), "signature mismatch");
  }
}

TEST_CASE("hmac: the body is verified byte-exact", "[verify]") {
  auto e = Endpoint();
  auto secrets = Secrets({"secret-new"});
  MapHeaders h{{"X-Signature", "sha256=" + kSigNew}};
  CheckUnauthenticated(Run(e, secrets, h, R"({"id": "evt_1", "type": "invoice.paid"})"), "signature mismatch");
  CheckUnauthenticated(Run(e, secrets, h, kBody + "\n"), "signature mismatch");
  CheckUnauthenticated(Run(e, secrets, h, ""), "signature mismatch");
}

TEST_CASE("hmac: any of two active secrets verifies (rotation)", "[verify]") {
  auto e = Endpoint();
  auto secrets = Secrets({"secret-new", "secret-old"});
  CHECK(Run(e, secrets, {{"X-Signature", "sha256=" + kSigNew}}).ok());
  CHECK(Run(e, secrets, {{"X-Signature", "sha256=" + kSigOld}}).ok());
  CheckUnauthenticated(Run(e, Secrets({"secret-newer", "secret-new-2"}), {{"X-Signature", "sha256=" + kSigNew}}),
                       "signature mismatch");
  SECTION("a signature under a third, retired secret fails") {
    CheckUnauthenticated(Run(e, Secrets({"secret-new"}), {{"X-Signature", "sha256=" + kSigOld}}), "signature mismatch");
  }
  SECTION("an empty secret in the list matches nothing") {
    CheckUnauthenticated(Run(e, Secrets({"", "secret-old"}), {{"X-Signature", "sha256=" + kSigNew}}),
                         "signature mismatch");
  }
}

TEST_CASE("hmac: malformed or missing headers are refused with a reason", "[verify]") {
  auto e = Endpoint();
  auto secrets = Secrets({"secret-new"});
  const std::pair<const char*, std::string> cases[] = {
      {"missing signature", ""},                                 // header present but empty
      {"malformed signature", "sha1=" + kSigNew},                // wrong prefix
      {"malformed signature", kSigNew},                          // no prefix
      {"malformed signature", "sha256="},                        // nothing after the prefix
      {"malformed signature", "sha256=" + kSigNew.substr(1)},    // odd length
      {"malformed signature", "sha256=zz" + kSigNew.substr(2)},  // non-hex
  };
  for (const auto& [message, value] : cases) {
    INFO(value);
    CheckUnauthenticated(Run(e, secrets, {{"X-Signature", value}}), message);
  }
  CheckUnauthenticated(Run(e, secrets, {}), "missing signature");
  CheckUnauthenticated(Run(e, secrets, {{"X-Other", "sha256=" + kSigNew}}), "missing signature");
}

TEST_CASE("hmac: reasons never contain the secret or either signature", "[verify]") {
  auto e = Endpoint();
  auto secrets = Secrets({"secret-new"});
  for (std::string value : {"sha256=" + kSigOld, "sha256=" + kSigNew + "x", std::string("sha256=")}) {
    Status s = Run(e, secrets, {{"X-Signature", value}});
    REQUIRE_FALSE(s.ok());
    CHECK(s.message().find("secret-new") == std::string::npos);
    CHECK(s.message().find(kSigNew.substr(0, 8)) == std::string::npos);
    CHECK(s.message().find(kSigOld.substr(0, 8)) == std::string::npos);
  }
}

TEST_CASE("hmac: sha1 with hex and sha512 with base64", "[verify]") {
  auto secrets = Secrets({"secret-new"});
  auto sha1 = Endpoint("sha1={signature}");
  sha1.signature.algorithm = "sha1";
  CHECK(Run(sha1, secrets, {{"X-Signature", "sha1=" + kSigSha1}}).ok());
  CheckUnauthenticated(Run(sha1, secrets, {{"X-Signature", "sha1=" + kSigNew}}), "signature mismatch");

  auto sha512 = Endpoint("{signature}");
  sha512.signature.algorithm = "sha512";
  sha512.signature.encoding = "base64";
  CHECK(Run(sha512, secrets, {{"X-Signature", kSigSha512B64}}).ok());
  SECTION("base64 without padding and in the URL-safe alphabet is the same signature") {
    std::string url = kSigSha512B64.substr(0, kSigSha512B64.size() - 2);
    for (char& c : url) c = c == '+' ? '-' : c == '/' ? '_' : c;
    CHECK(Run(sha512, secrets, {{"X-Signature", url}}).ok());
  }
  CheckUnauthenticated(Run(sha512, secrets, {{"X-Signature", "not base64!"}}), "malformed signature");
  CheckUnauthenticated(Run(sha512, secrets, {{"X-Signature", kSigNew}}), "signature mismatch");
}

TEST_CASE("hmac: key-value format with two v1 parts where only the second matches", "[verify]") {
  auto e = StripeLike();
  auto secrets = Secrets({"whsec_test"});
  const std::string wrong = kSigNew;
  CHECK(Run(e, secrets, {{"Stripe-Signature", "t=1700000000,v1=" + wrong + ",v1=" + kSigTs}}).ok());
  SECTION("parts in any order, unknown parts ignored") {
    CHECK(Run(e, secrets, {{"Stripe-Signature", "v0=abc,v1=" + kSigTs + ", t=1700000000,foo"}}).ok());
  }
  SECTION("no v1 part matching is a mismatch") {
    CheckUnauthenticated(Run(e, secrets, {{"Stripe-Signature", "t=1700000000,v1=" + wrong + ",v0=" + kSigTs}}),
                         "signature mismatch");
  }
  SECTION("the timestamp signed is the text received; a different one fails") {
    CheckUnauthenticated(Run(e, secrets, {{"Stripe-Signature", "t=1700000001,v1=" + kSigTs}}), "signature mismatch");
    CheckUnauthenticated(Run(e, secrets, {{"Stripe-Signature", "t=01700000000,v1=" + kSigTs}}), "signature mismatch");
  }
  SECTION("undecodable v1 parts are skipped, not fatal") {
    CHECK(Run(e, secrets, {{"Stripe-Signature", "t=1700000000,v1=xyz,v1=" + kSigTs}}).ok());
    CheckUnauthenticated(Run(e, secrets, {{"Stripe-Signature", "t=1700000000,v1=xyz"}}), "malformed signature");
  }
}

TEST_CASE("hmac: missing or malformed timestamps are refused", "[verify]") {
  auto e = StripeLike();
  auto secrets = Secrets({"whsec_test"});
  for (std::string value :
       {"v1=" + kSigTs, "t=,v1=" + kSigTs, "t=abc,v1=" + kSigTs, "t=-1700000000,v1=" + kSigTs,
        "t=1700000000.5,v1=" + kSigTs, "t=+1700000000,v1=" + kSigTs, "t=99999999999999999999,v1=" + kSigTs}) {
    INFO(value);
    CheckUnauthenticated(Run(e, secrets, {{"Stripe-Signature", value}}), "missing or malformed timestamp");
  }
}

TEST_CASE("hmac: timestamp tolerance edges", "[verify]") {
  auto e = StripeLike();
  e.signature.tolerance_seconds = 300;
  auto secrets = Secrets({"whsec_test"});
  MapHeaders h{{"Stripe-Signature", "t=1700000000,v1=" + kSigTs}};
  CHECK(Run(e, secrets, h, kBody, kNowMs).ok());
  CHECK(Run(e, secrets, h, kBody, kNowMs + 300'000).ok());  // exactly at tolerance, past
  CHECK(Run(e, secrets, h, kBody, kNowMs + 300'999).ok());  // same whole second
  CHECK(Run(e, secrets, h, kBody, kNowMs - 300'000).ok());  // exactly at tolerance, future
  CheckUnauthenticated(Run(e, secrets, h, kBody, kNowMs + 301'000), "timestamp outside tolerance");
  CheckUnauthenticated(Run(e, secrets, h, kBody, kNowMs - 301'000), "timestamp outside tolerance");
  CheckUnauthenticated(Run(e, secrets, h, kBody, kNowMs + 86'400'000), "timestamp outside tolerance");
  SECTION("a bad signature is reported as a mismatch even when the timestamp is stale") {
    CheckUnauthenticated(
        Run(e, secrets, {{"Stripe-Signature", "t=1700000000,v1=" + kSigNew}}, kBody, kNowMs + 86'400'000),
        "signature mismatch");
  }
  SECTION("tolerance 0 disables the window") {
    e.signature.tolerance_seconds = 0;
    CHECK(Run(e, secrets, h, kBody, kNowMs + 86'400'000).ok());
  }
}

TEST_CASE("hmac: timestamp from timestamp_header", "[verify]") {
  auto e = Endpoint("{signature}");
  e.signature.signed_payload = "{timestamp}.{body}";
  e.signature.timestamp_header = "X-Timestamp";
  auto secrets = Secrets({"whsec_test"});
  CHECK(Run(e, secrets, {{"X-Signature", kSigTs}, {"x-timestamp", "1700000000"}}).ok());
  CheckUnauthenticated(Run(e, secrets, {{"X-Signature", kSigTs}}), "missing or malformed timestamp");
  CheckUnauthenticated(Run(e, secrets, {{"X-Signature", kSigTs}, {"X-Timestamp", "soon"}}),
                       "missing or malformed timestamp");
  CheckUnauthenticated(
      Run(e, secrets, {{"X-Signature", kSigTs}, {"X-Timestamp", "1700000000"}}, kBody, kNowMs + 400'000),
      "timestamp outside tolerance");
  SECTION("a configured timestamp header is required even when the payload does not sign it") {
    auto unsigned_ts = Endpoint();
    unsigned_ts.signature.timestamp_header = "X-Timestamp";
    CheckUnauthenticated(Run(unsigned_ts, Secrets({"secret-new"}), {{"X-Signature", "sha256=" + kSigNew}}),
                         "missing or malformed timestamp");
  }
}

TEST_CASE("hmac: {id}.{timestamp}.{body} with a versioned signature list (Standard Webhooks shape)", "[verify]") {
  auto e = Endpoint("v1,{signature}");
  e.signature.header = "webhook-signature";
  e.signature.encoding = "base64";
  e.signature.signed_payload = "{id}.{timestamp}.{body}";
  e.signature.timestamp_header = "webhook-timestamp";
  e.key.id_header = "webhook-id";
  auto secrets = Secrets({"whsec_raw"});
  MapHeaders h{{"webhook-id", "msg_1"},
               {"webhook-timestamp", "1700000000"},
               {"webhook-signature", "v1,Zm9v v2,bar v1," + kSigIdTs}};
  CHECK(Run(e, secrets, h).ok());
  SECTION("another id is a mismatch") {
    h.Set("webhook-id", "msg_2");
    CheckUnauthenticated(Run(e, secrets, h), "signature mismatch");
  }
  SECTION("a missing id is refused") {
    MapHeaders no_id{{"webhook-timestamp", "1700000000"}, {"webhook-signature", "v1," + kSigIdTs}};
    CheckUnauthenticated(Run(e, secrets, no_id), "missing signed id");
  }
}

TEST_CASE("hmac: configuration errors are Internal, never a pass", "[verify]") {
  MapHeaders h{{"X-Signature", "sha256=" + kSigNew}};
  auto secrets = Secrets({"secret-new"});
  auto bad_alg = Endpoint();
  bad_alg.signature.algorithm = "sha384";
  CHECK(Run(bad_alg, secrets, h).code() == Code::kInternal);
  auto bad_enc = Endpoint();
  bad_enc.signature.encoding = "base32";
  CHECK(Run(bad_enc, secrets, h).code() == Code::kInternal);
  auto bad_format = Endpoint("sha256=");
  CHECK(Run(bad_format, secrets, h).code() == Code::kInternal);
  auto bad_payload = Endpoint();
  bad_payload.signature.signed_payload = "{nonce}.{body}";
  CHECK(Run(bad_payload, secrets, h).code() == Code::kInternal);
  CHECK(Run(Endpoint(), {}, h).code() == Code::kInternal);
  CHECK(Run(Endpoint(), Secrets({""}), h).code() == Code::kInternal);
}
