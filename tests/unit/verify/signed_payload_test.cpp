// ExpandSignedPayload: placeholders, including {method} and {url}.
#include <catch2/catch.hpp>

#include "verify/signed_payload.h"

using namespace hookinbox;
using namespace hookinbox::verify;

TEST_CASE("signed payload: every placeholder expands to its value", "[verify]") {
  const SignedParts parts{"{\"a\":1}", "1700000000", "msg_1", "POST", "https://h.example.com/hooks/x?a=1"};
  const struct {
    const char* tmpl;
    const char* expected;
  } cases[] = {
      {"{body}", "{\"a\":1}"},
      {"{timestamp}.{body}", "1700000000.{\"a\":1}"},
      {"{id}.{timestamp}.{body}", "msg_1.1700000000.{\"a\":1}"},
      {"{method}{url}{body}{timestamp}", "POSThttps://h.example.com/hooks/x?a=1{\"a\":1}1700000000"},
      {"{url}{body}", "https://h.example.com/hooks/x?a=1{\"a\":1}"},
  };
  for (const auto& c : cases) {
    INFO(c.tmpl);
    Result<std::string> out = ExpandSignedPayload(c.tmpl, parts);
    REQUIRE(out.ok());
    CHECK(*out == c.expected);
  }
}

TEST_CASE("signed payload: a placeholder without a value or an unknown one is refused", "[verify]") {
  const SignedParts none{"body", std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  for (const char* tmpl : {"{method}{body}", "{url}{body}", "{timestamp}{body}", "{form_sorted_kv}{body}", "{body"}) {
    INFO(tmpl);
    Result<std::string> out = ExpandSignedPayload(tmpl, none);
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == Code::kInvalidArgument);
  }
}
