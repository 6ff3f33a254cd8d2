#include "admin/redact.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace hookinbox::admin;
using nlohmann::json;

TEST_CASE("redact: no pointers shows the body byte for byte", "[admin][redact]") {
  ShownPayload p = ShowPayload("{ \"a\" : 1 }", {});
  CHECK(p.shown);
  CHECK_FALSE(p.redacted);
  CHECK(p.body == "{ \"a\" : 1 }");
  CHECK(ShowPayload("not json", {}).body == "not json");
}

TEST_CASE("redact: pointers, escapes, array indexes and '*' replace values with [redacted]", "[admin][redact]") {
  const std::string body = R"({"customer":{"email":"a@b.c","name":"A"},"a/b":{"m~n":1},)"
                           R"("items":[{"card":"4242","sku":"X"},{"card":"5555"}],"list":["p","q"]})";
  ShownPayload p = ShowPayload(body, {"/customer/email", "/a~1b/m~0n", "/items/*/card", "/list/1", "/missing/x",
                                      "/items/9/card"});
  REQUIRE(p.shown);
  CHECK(p.redacted);
  json j = json::parse(p.body);
  CHECK(j["customer"]["email"] == kRedactedValue);
  CHECK(j["customer"]["name"] == "A");
  CHECK(j["a/b"]["m~n"] == kRedactedValue);
  CHECK(j["items"][0]["card"] == kRedactedValue);
  CHECK(j["items"][1]["card"] == kRedactedValue);
  CHECK(j["items"][0]["sku"] == "X");
  CHECK(j["list"] == json::array({"p", kRedactedValue}));
  CHECK_FALSE(j.contains("missing"));
  CHECK(p.body.find("4242") == std::string::npos);
  // A whole subtree goes at once.
  CHECK(json::parse(ShowPayload(body, {"/customer"}).body)["customer"] == kRedactedValue);
}

TEST_CASE("redact: a payload that is not JSON is withheld when anything must be redacted", "[admin][redact]") {
  ShownPayload p = ShowPayload("email=a%40b.c&name=A", {"/email"});
  CHECK_FALSE(p.shown);
  CHECK(p.body.empty());
  CHECK(p.why.find("not JSON") != std::string::npos);
}

TEST_CASE("redact: a payload nested deeper than 64 levels is withheld, never parsed (issue 8, D3)",
          "[admin][redact]") {
  auto nested = [](int depth, const std::string& inner) {
    std::string s;
    for (int i = 0; i < depth; ++i) s += "{\"k\":";
    s += inner;
    return s + std::string(depth, '}');
  };
  // 64 levels: still parsed and redacted.
  std::string pointer;
  for (int i = 0; i < 63; ++i) pointer += "/k";
  ShownPayload ok = ShowPayload(nested(63, R"({"secret":"x"})"), {pointer + "/secret"});
  REQUIRE(ok.shown);
  CHECK(ok.redacted);
  CHECK(ok.body.find("\"x\"") == std::string::npos);
  CHECK(ok.body.find(kRedactedValue) != std::string::npos);
  // 65 levels: withheld with the reason.
  ShownPayload deep = ShowPayload(nested(64, R"({"secret":"x"})"), {"/secret"});
  CHECK_FALSE(deep.shown);
  CHECK(deep.body.empty());
  CHECK(deep.why.find("deeper than 64 levels") != std::string::npos);
  // The size that overflowed the stack in dump(): answered at once, withheld.
  const int kHostile = 300000;
  ShownPayload hostile = ShowPayload(std::string(kHostile, '[') + std::string(kHostile, ']'), {"/0"});
  CHECK_FALSE(hostile.shown);
  CHECK(hostile.why.find("deeper than 64 levels") != std::string::npos);
  // No redaction configured: the body is shown as stored, whatever its depth (it is never parsed).
  CHECK(ShowPayload(std::string(1000, '['), {}).shown);
}
