// The token, basic and none schemes, and scheme dispatch.
#include <catch2/catch.hpp>

#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

config::EndpointConfig Endpoint(std::string scheme) {
  config::EndpointConfig e;
  e.name = "forms";
  e.signature.scheme = std::move(scheme);
  return e;
}

std::vector<Secret> Secrets(std::initializer_list<const char*> s) {
  std::vector<Secret> out;
  for (const char* v : s) out.emplace_back(v);
  return out;
}

Status Run(const config::EndpointConfig& e, const std::vector<Secret>& secrets, const MapHeaders& h) {
  return Verify(e, secrets, DeliveryView{"POST", "/hooks/forms", h, "{}"}, 0);
}

void CheckUnauthenticated(const Status& s, const std::string& message) {
  INFO(s.ToString());
  CHECK(s.code() == Code::kUnauthenticated);
  CHECK(s.message() == message);
}

}  // namespace

TEST_CASE("token: the header must equal one of the secrets", "[verify]") {
  auto e = Endpoint("token");
  e.signature.header = "X-Token";
  auto secrets = Secrets({"tok-new", "tok-old"});
  CHECK(Run(e, secrets, {{"X-Token", "tok-new"}}).ok());
  CHECK(Run(e, secrets, {{"x-token", "tok-old"}}).ok());
  CheckUnauthenticated(Run(e, secrets, {{"X-Token", "tok-ne"}}), "token mismatch");
  CheckUnauthenticated(Run(e, secrets, {{"X-Token", "tok-new2"}}), "token mismatch");
  CheckUnauthenticated(Run(e, secrets, {{"X-Token", "TOK-NEW"}}), "token mismatch");
  CheckUnauthenticated(Run(e, secrets, {}), "missing token");
  CheckUnauthenticated(Run(e, secrets, {{"X-Token", ""}}), "missing token");
}

TEST_CASE("token: a prefix format such as \"Bearer {signature}\"", "[verify]") {
  auto e = Endpoint("token");
  e.signature.header = "Authorization";
  e.signature.format = "Bearer {signature}";
  auto secrets = Secrets({"s3cret"});
  CHECK(Run(e, secrets, {{"Authorization", "Bearer s3cret"}}).ok());
  CHECK(Run(e, secrets, {{"Authorization", "bearer s3cret"}}).ok());
  CheckUnauthenticated(Run(e, secrets, {{"Authorization", "s3cret"}}), "malformed token");
  CheckUnauthenticated(Run(e, secrets, {{"Authorization", "Basic s3cret"}}), "malformed token");
  CheckUnauthenticated(Run(e, secrets, {{"Authorization", "Bearer "}}), "malformed token");
  CheckUnauthenticated(Run(e, secrets, {{"Authorization", "Bearer nope"}}), "token mismatch");
}

TEST_CASE("token: an empty secret never matches an empty token", "[verify]") {
  auto e = Endpoint("token");
  e.signature.header = "Authorization";
  e.signature.format = "Bearer {signature}";
  CHECK(Run(e, Secrets({""}), {{"Authorization", "Bearer "}}).code() == Code::kInternal);
  CheckUnauthenticated(Run(e, Secrets({"", "x"}), {{"Authorization", "Bearer "}}), "malformed token");
}

TEST_CASE("basic: Authorization Basic base64(user:pass) against user:pass secrets", "[verify]") {
  auto e = Endpoint("basic");
  auto secrets = Secrets({"user:pass", "user:old"});
  CHECK(Run(e, secrets, {{"Authorization", "Basic dXNlcjpwYXNz"}}).ok());               // base64("user:pass")
  CHECK(Run(e, secrets, {{"authorization", "basic dXNlcjpvbGQ="}}).ok());               // base64("user:old")
  CheckUnauthenticated(Run(e, secrets, {{"Authorization", "Basic dXNlcjp3cm9uZw=="}}),  // user:wrong
                       "credentials mismatch");
  CheckUnauthenticated(Run(e, secrets, {}), "missing credentials");
  CheckUnauthenticated(Run(e, secrets, {{"Authorization", "Bearer dXNlcjpwYXNz"}}), "malformed credentials");
  CheckUnauthenticated(Run(e, secrets, {{"Authorization", "Basic !!!"}}), "malformed credentials");
  CheckUnauthenticated(Run(e, secrets, {{"Authorization", "Basic dXNlcnBhc3M="}}),  // "userpass", no colon
                       "malformed credentials");
}

TEST_CASE("none: passes only on an endpoint marked insecure", "[verify]") {
  auto e = Endpoint("none");
  CHECK(Run(e, {}, {}).code() == Code::kUnauthenticated);
  e.insecure = true;
  CHECK(Run(e, {}, {}).ok());
}

TEST_CASE("verify: an unknown scheme is Internal", "[verify]") {
  CHECK(Run(Endpoint("rot13"), Secrets({"x"}), {{"X-Signature", "x"}}).code() == Code::kInternal);
}
