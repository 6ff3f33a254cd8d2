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
