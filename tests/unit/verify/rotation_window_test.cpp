// verify::Verify with a rotated-out secret (Secret with an end,
// config/rotation.h): it verifies before its end and not at or after it; the
// secret in force is unaffected. Signatures are the offline ones of
// hmac_scheme_test.cpp.
#include <catch2/catch.hpp>

#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

const std::string kBody = R"({"id":"evt_1","type":"invoice.paid"})";
// HMAC-SHA256(kBody) under "secret-new" / "secret-old", hex (openssl dgst -sha256 -hmac).
const std::string kSigNew = "3a7cd1b7493e6c42f5e393b076b89cfb08e4b115225517ad95d00a62a4b8f22f";
const std::string kSigOld = "4bbd174370863a6e533a6f8d8ff706379968d4fe22cd89247f1232662c86fa2c";

constexpr int64_t kEnd = 1796860800000;

config::EndpointConfig Endpoint(const std::string& scheme) {
  config::EndpointConfig e;
  e.name = "payments";
  e.signature.scheme = scheme;
  e.signature.header = scheme == "hmac" ? "X-Signature" : "X-Token";
  if (scheme == "hmac") e.signature.format = "sha256={signature}";
  return e;
}

// The new secret (no end) and the previous one, accepted until kEnd.
std::vector<Secret> Rotated(const std::string& next, const std::string& previous) {
  std::vector<Secret> out;
  out.emplace_back(next);
  out.emplace_back(previous, kEnd);
  return out;
}

Status Run(const config::EndpointConfig& e, const std::vector<Secret>& secrets, const MapHeaders& h, int64_t now_ms) {
  return Verify(e, secrets, DeliveryView{"POST", "/hooks/payments", h, kBody}, now_ms);
}

}  // namespace

TEST_CASE("rotation window: hmac — the previous secret verifies before its end, not at or after it",
          "[verify][rotation]") {
  const auto e = Endpoint("hmac");
  const auto secrets = Rotated("secret-new", "secret-old");
  const MapHeaders old_signed{{"X-Signature", "sha256=" + kSigOld}};
  const MapHeaders new_signed{{"X-Signature", "sha256=" + kSigNew}};
  CHECK(Run(e, secrets, old_signed, kEnd - 1).ok());
  for (int64_t now : {kEnd, kEnd + 1, kEnd + 86400000}) {
    INFO(now);
    Status st = Run(e, secrets, old_signed, now);
    CHECK(st.code() == Code::kUnauthenticated);
    CHECK(st.message() == "signature mismatch");
    CHECK(Run(e, secrets, new_signed, now).ok());  // the secret in force has no end
  }
  CHECK(Run(e, secrets, new_signed, kEnd - 1).ok());
}

TEST_CASE("rotation window: the end applies to the secret that has it, whatever its place", "[verify][rotation]") {
  const auto e = Endpoint("hmac");
  std::vector<Secret> secrets;
  secrets.emplace_back("secret-new", kEnd);  // an end on the first one
  secrets.emplace_back("secret-old");
  CHECK(Run(e, secrets, {{"X-Signature", "sha256=" + kSigNew}}, kEnd - 1).ok());
  CHECK(Run(e, secrets, {{"X-Signature", "sha256=" + kSigNew}}, kEnd).code() == Code::kUnauthenticated);
  CHECK(Run(e, secrets, {{"X-Signature", "sha256=" + kSigOld}}, kEnd).ok());
}

TEST_CASE("rotation window: token — the previous token until its end", "[verify][rotation]") {
  const auto e = Endpoint("token");
  const auto secrets = Rotated("tok-new", "tok-old");
  CHECK(Run(e, secrets, {{"X-Token", "tok-old"}}, kEnd - 1).ok());
  Status st = Run(e, secrets, {{"X-Token", "tok-old"}}, kEnd);
  CHECK(st.code() == Code::kUnauthenticated);
  CHECK(st.message() == "token mismatch");
  CHECK(Run(e, secrets, {{"X-Token", "tok-new"}}, kEnd).ok());
}

TEST_CASE("rotation window: basic — the previous credentials until their end", "[verify][rotation]") {
  const auto e = Endpoint("basic");
  const auto secrets = Rotated("user:pass", "user:old");
  const MapHeaders old_creds{{"Authorization", "Basic dXNlcjpvbGQ="}};  // base64("user:old")
  CHECK(Run(e, secrets, old_creds, kEnd - 1).ok());
  Status st = Run(e, secrets, old_creds, kEnd);
  CHECK(st.code() == Code::kUnauthenticated);
  CHECK(st.message() == "credentials mismatch");
  CHECK(Run(e, secrets, {{"Authorization", "Basic dXNlcjpwYXNz"}}, kEnd).ok());  // base64("user:pass")
}
