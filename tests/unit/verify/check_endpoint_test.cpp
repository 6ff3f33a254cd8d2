// CheckEndpoint: the start-up check of signature and key settings.
#include <catch2/catch.hpp>
#include <functional>

#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

config::EndpointConfig Valid() {
  config::EndpointConfig e;
  e.name = "payments";
  e.key.id_pointer = "/id";
  return e;
}

}  // namespace

TEST_CASE("check endpoint: the defaults with an id source are valid", "[verify]") {
  CHECK(CheckEndpoint(Valid()).ok());
  auto stripe = Valid();
  stripe.signature.format = "t={timestamp},v1={signature}";
  stripe.signature.signed_payload = "{timestamp}.{body}";
  CHECK(CheckEndpoint(stripe).ok());
  auto basic = Valid();
  basic.signature.scheme = "basic";
  CHECK(CheckEndpoint(basic).ok());
}

TEST_CASE("check endpoint: a format or signed payload the verifier cannot parse is named", "[verify]") {
  const std::pair<const char*, std::function<void(config::EndpointConfig&)>> cases[] = {
      {"signature.format", [](auto& e) { e.signature.format = "sha256="; }},
      {"signature.format",
       [](auto& e) {
         e.signature.scheme = "token";
         e.signature.format = "t={timestamp},v1={signature}";
       }},
      {"signed_payload", [](auto& e) { e.signature.signed_payload = "{body"; }},
  };
  for (const auto& [needle, mutate] : cases) {
    auto e = Valid();
    mutate(e);
    Status s = CheckEndpoint(e);
    INFO(needle << " -> " << s.ToString());
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains(needle));
  }
  auto insecure_none = Valid();
  insecure_none.signature.scheme = "none";
  insecure_none.insecure = true;
  CHECK(CheckEndpoint(insecure_none).ok());
}
