// Identify(): event id sources in SPEC §2 order, id validation, event type and payload hash.
#include <catch2/catch.hpp>

#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

const std::string kBody = R"({"id":"evt_1","type":"invoice.paid","n":42,"data":{"id":7,"v":1.5,"ok":true}})";

config::EndpointConfig Endpoint() {
  config::EndpointConfig e;
  e.name = "payments";
  return e;
}

Result<EventIdentity> Run(const config::EndpointConfig& e, std::string_view body = kBody, const MapHeaders& h = {},
                          bool is_json = true) {
  return Identify(e, h, body, is_json);
}

std::string IdOf(const config::EndpointConfig& e, std::string_view body = kBody, const MapHeaders& h = {}) {
  Result<EventIdentity> r = Run(e, body, h);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return r->event_id;
}

std::string HashOf(const config::EndpointConfig& e, std::string_view body) {
  Result<EventIdentity> r = Run(e, body);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return r->payload_hash;
}

void CheckInvalid(const Result<EventIdentity>& r, const std::string& message_start) {
  INFO(r.status().ToString());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Catch::StartsWith(message_start));
}

config::EndpointConfig ByPointer(std::string pointer) {
  auto e = Endpoint();
  e.key.id_pointer = std::move(pointer);
  return e;
}

}  // namespace

TEST_CASE("identify: id from a header", "[verify]") {
  auto e = Endpoint();
  e.key.id_header = "X-Event-Id";
  CHECK(IdOf(e, kBody, {{"x-event-id", "delivery-9"}}) == "delivery-9");
  CheckInvalid(Run(e, kBody, {}), "event id missing");
  CheckInvalid(Run(e, kBody, {{"X-Event-Id", ""}}), "event id missing");
  SECTION("a header id works for a non-JSON body too") {
    Result<EventIdentity> r = Run(e, "a=1&b=2", {{"X-Event-Id", "f-1"}}, /*is_json=*/false);
    REQUIRE(r.ok());
    CHECK(r->event_id == "f-1");
  }
  SECTION("the header wins over a pointer that is also configured") {
    e.key.id_pointer = "/id";
    CHECK(IdOf(e, kBody, {{"X-Event-Id", "delivery-9"}}) == "delivery-9");
    CheckInvalid(Run(e, kBody, {}), "event id missing");  // never falls back to /id
  }
}

TEST_CASE("identify: id from a JSON pointer, string or integer", "[verify]") {
  CHECK(IdOf(ByPointer("/id")) == "evt_1");
  CHECK(IdOf(ByPointer("/n")) == "42");
  CHECK(IdOf(ByPointer("/data/id")) == "7");
  CHECK(IdOf(ByPointer("/id"), R"({"id":-12})") == "-12");
  CheckInvalid(Run(ByPointer("/missing")), "event id missing");
  CheckInvalid(Run(ByPointer("/id"), R"({"id":""})"), "event id missing");
  CheckInvalid(Run(ByPointer("/id"), R"({"id":null})"), "event id at /id is not a string or an integer");
  CheckInvalid(Run(ByPointer("/data/v")), "event id at /data/v is not");
  CheckInvalid(Run(ByPointer("/data")), "event id at /data is not");
}

TEST_CASE("identify: id length and content limits", "[verify]") {
  auto e = ByPointer("/id");
  const auto body = [](const std::string& id) { return R"({"id":")" + id + R"("})"; };
  CHECK(IdOf(e, body(std::string(200, 'a'))).size() == 200);
  CheckInvalid(Run(e, body(std::string(201, 'a'))), "event id longer than 200 bytes");
  // 100 two-byte characters are 200 bytes: the limit is bytes, not characters.
  std::string two_byte;
  for (int i = 0; i < 100; ++i) two_byte += "\xc3\xa9";
  CHECK(IdOf(e, body(two_byte)) == two_byte);
  CheckInvalid(Run(e, body(two_byte + "a")), "event id longer than 200 bytes");
  for (const char* ctl : {"a\\nb", "a\\u0000b", "a\\tb", "a\\u007fb", "\\r"}) {
    INFO(ctl);
    CheckInvalid(Run(e, body(ctl)), "event id contains control characters");
  }
  SECTION("header ids get the same checks") {
    auto h = Endpoint();
    h.key.id_header = "X-Id";
    CheckInvalid(Run(h, kBody, {{"X-Id", std::string(201, 'x')}}), "event id longer than 200 bytes");
    CheckInvalid(Run(h, kBody, {{"X-Id", "a\x01"}}), "event id contains control characters");
    CheckInvalid(Run(h, kBody, {{"X-Id", "a\xff"}}), "event id is not valid UTF-8");
  }
}

TEST_CASE("identify: composite id from fields joined with ':'", "[verify]") {
  auto e = Endpoint();
  e.key.fields = {"/type", "/data/id", "/data/v", "/data/ok"};
  CHECK(IdOf(e) == "invoice.paid:7:1.5:true");
  SECTION("an integral float is rendered canonically") {
    e.key.fields = {"/type", "/data/id"};
    CHECK(IdOf(e, R"({"type":"t","data":{"id":7.0}})") == "t:7");
  }
  SECTION("a missing, null, structured or empty field names the pointer") {
    e.key.fields = {"/type", "/data/missing"};
    CheckInvalid(Run(e), "event id missing (no value at key field /data/missing)");
    e.key.fields = {"/data"};
    CheckInvalid(Run(e), "key field /data is not");
    e.key.fields = {"/x"};
    CheckInvalid(Run(e, R"({"x":null})"), "key field /x is not");
    CheckInvalid(Run(e, R"({"x":""})"), "key field /x is empty");
  }
}

TEST_CASE("identify: composite id mixing header:<Name> parts and JSON Pointers", "[verify]") {
  auto e = Endpoint();
  e.key.fields = {"header:X-Hook", "/data/id", "header:x-delivery"};
  const MapHeaders h{{"x-hook", " 12 "}, {"X-Delivery", "d-9"}};
  CHECK(IdOf(e, kBody, h) == "12:7:d-9");  // names case-insensitive, values trimmed, listed order
  SECTION("header-only parts need no JSON body") {
    e.key.fields = {"header:X-Hook", "header:X-Delivery"};
    Result<EventIdentity> r = Run(e, "a=1", h, /*is_json=*/false);
    REQUIRE(r.ok());
    CHECK(r->event_id == "12:d-9");
  }
  SECTION("a missing or empty header part is refused, never skipped") {
    CheckInvalid(Run(e, kBody, {{"X-Hook", "12"}}), "event id missing (no x-delivery header)");
    CheckInvalid(Run(e, kBody, {{"X-Hook", "  "}, {"X-Delivery", "d"}}), "key field header X-Hook is empty");
  }
  SECTION("a pointer part still needs JSON") {
    CheckInvalid(Run(e, "a=1", h, false), "body is not JSON");
  }
}

TEST_CASE("identify: canonical hash id ignores key order and whitespace", "[verify]") {
  auto e = Endpoint();
  e.key.canonical_hash = true;
  std::string id = IdOf(e, R"({"a":1,"b":[1,2]})");
  CHECK_THAT(id, Catch::StartsWith("sha256:"));
  CHECK(id.size() == 7 + 64);
  // sha256 of the canonical text, computed offline with `openssl dgst -sha256`.
  CHECK(IdOf(e, R"({"a":1,"b":[true,null,"x"]})") ==
        "sha256:eca8cfb31ab74533e1eb2f4c74d2d55dfe3c79ac704787e54be8647ea7777eb1");
  CHECK(IdOf(e, " {\n \"b\" : [ 1, 2 ], \"a\" : 1.0 } ") == id);
  CHECK(IdOf(e, R"({"a":2,"b":[1,2]})") != id);
  CHECK(IdOf(e, R"({"a":1,"b":[2,1]})") != id);
  SECTION("volatile fields are left out of the hash id") {
    e.volatile_fields = {"/attempt"};
    CHECK(IdOf(e, R"({"a":1,"b":[1,2],"attempt":3})") == id);
  }
}

TEST_CASE("identify: a key that needs JSON refuses a non-JSON body", "[verify]") {
  auto hashed = Endpoint();
  hashed.key.canonical_hash = true;
  for (const auto& e : {ByPointer("/id"), hashed}) {
    CheckInvalid(Run(e, "a=1", {}, /*is_json=*/false), "body is not JSON; the endpoint's key needs JSON");
  }
  auto fields = Endpoint();
  fields.key.fields = {"/a"};
  CheckInvalid(Run(fields, "a=1", {}, false), "body is not JSON");
  auto type_pointer = Endpoint();
  type_pointer.key.id_header = "X-Id";
  type_pointer.key.event_type_pointer = "/type";
  CheckInvalid(Run(type_pointer, "a=1", {{"X-Id", "1"}}, false), "body is not JSON");
}

TEST_CASE("identify: an endpoint without a key source is refused", "[verify]") {
  CheckInvalid(Run(Endpoint()), "endpoint has no key source");
}

TEST_CASE("identify: a JSON body that does not parse is InvalidArgument", "[verify]") {
  auto e = Endpoint();
  e.key.id_header = "X-Id";
  CheckInvalid(Run(e, "{not json", {{"X-Id", "1"}}), "body is not valid JSON");
  CheckInvalid(Run(e, std::string(65, '[') + std::string(65, ']'), {{"X-Id", "1"}}),
               "JSON nested deeper than 64 levels");
}

TEST_CASE("identify: event type from a pointer or a header, empty when absent", "[verify]") {
  auto e = ByPointer("/id");
  CHECK(Run(e)->event_type.empty());
  e.key.event_type_pointer = "/type";
  CHECK(Run(e)->event_type == "invoice.paid");
  CHECK(Run(e, R"({"id":"x"})")->event_type.empty());
  CHECK(Run(e, R"({"id":"x","type":5})")->event_type == "5");  // MoMo resultCode, ZaloPay type
  CheckInvalid(Run(e, R"({"id":"x","type":5.5})"), "event type at /type is not a string or an integer");
  CheckInvalid(Run(e, R"({"id":"x","type":true})"), "event type at /type is not a string or an integer");
  CheckInvalid(Run(e, R"({"id":"x","type":")" + std::string(201, 't') + R"("})"), "event type longer than 200 bytes");
  auto h = ByPointer("/id");
  h.key.event_type_header = "X-Event-Type";
  CHECK(Run(h, kBody, {{"x-event-type", "push"}})->event_type == "push");
  CHECK(Run(h, kBody, {})->event_type.empty());
  CheckInvalid(Run(h, kBody, {{"X-Event-Type", "a\nb"}}), "event type contains control characters");
}

TEST_CASE("identify: payload hash of JSON survives re-serialisation, not a changed value", "[verify]") {
  auto e = ByPointer("/id");
  const std::string base = HashOf(e, R"({"id":"e1","amount":100,"meta":{"x":1,"y":[1,2]}})");
  CHECK(base.size() == 64);
  CHECK(base.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(HashOf(e, "{ \"meta\": {\"y\": [1, 2], \"x\": 1.0},\n  \"amount\": 1e2, \"id\": \"e1\" }") == base);
  CHECK(HashOf(e, R"({"id":"e1","amount":101,"meta":{"x":1,"y":[1,2]}})") != base);
  CHECK(HashOf(e, R"({"id":"e1","amount":"100","meta":{"x":1,"y":[1,2]}})") != base);
  CHECK(HashOf(e, R"({"id":"e1","amount":100,"meta":{"x":1,"y":[2,1]}})") != base);
  SECTION("volatile fields, top-level and nested, do not change the hash") {
    e.volatile_fields = {"/attempt", "/meta/delivery/try"};
    const std::string clean = HashOf(e, R"({"id":"e1","amount":100,"meta":{"x":1,"y":[1,2]}})");
    CHECK(clean == base);
    CHECK(HashOf(e, R"({"id":"e1","amount":100,"attempt":2,"meta":{"x":1,"y":[1,2]}})") == base);
    CHECK(HashOf(e, R"({"id":"e1","amount":100,"attempt":3,"meta":{"x":1,"y":[1,2],"delivery":{"try":4}}})") !=
          base);  // the emptied "delivery" object itself remains
    CHECK(HashOf(e, R"({"id":"e1","amount":100,"attempt":3,"meta":{"x":1,"y":[1,2],"delivery":{"try":4}}})") ==
          HashOf(e, R"({"id":"e1","amount":100,"meta":{"x":1,"y":[1,2],"delivery":{"try":9}}})"));
  }
  SECTION("a volatile field can also be the id source: the id is read first") {
    e.volatile_fields = {"/id"};
    Result<EventIdentity> r = Run(e, R"({"id":"e1","amount":100})");
    REQUIRE(r.ok());
    CHECK(r->event_id == "e1");
  }
}

TEST_CASE("identify: payload hash of a non-JSON body is over the raw bytes", "[verify]") {
  auto e = Endpoint();
  e.key.id_header = "X-Id";
  Result<EventIdentity> r = Run(e, "abc", {{"X-Id", "1"}}, /*is_json=*/false);
  REQUIRE(r.ok());
  CHECK(r->payload_hash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");  // SHA-256("abc")
  Result<EventIdentity> spaced = Run(e, "abc ", {{"X-Id", "1"}}, false);
  REQUIRE(spaced.ok());
  CHECK(spaced->payload_hash != r->payload_hash);
}

TEST_CASE("identify: a HubSpot batch retried with new attemptNumbers hashes the same under /*/attemptNumber",
          "[verify]") {
  auto e = Endpoint();
  e.key.canonical_hash = true;
  e.volatile_fields = {"/*/attemptNumber"};
  const std::string first =
      R"([{"eventId":1,"subscriptionId":7,"attemptNumber":0},{"eventId":2,"subscriptionId":7,"attemptNumber":0}])";
  const std::string retries[] = {
      R"([{"eventId":1,"subscriptionId":7,"attemptNumber":1},{"eventId":2,"subscriptionId":7,"attemptNumber":1}])",
      R"([{"attemptNumber":4,"subscriptionId":7,"eventId":1},{"subscriptionId":7,"eventId":2,"attemptNumber":9}])",
      R"([{"eventId":1,"subscriptionId":7},{"eventId":2,"subscriptionId":7,"attemptNumber":2}])",
  };
  const std::string base = HashOf(e, first);
  for (const std::string& retry : retries) {
    INFO(retry);
    CHECK(HashOf(e, retry) == base);
    CHECK(IdOf(e, retry) == "sha256:" + base);
  }
  SECTION("a changed event is still a different payload") {
    const std::string changed = R"([{"eventId":1,"subscriptionId":8,"attemptNumber":1},{"eventId":2,"subscriptionId":7}])";
    CHECK(HashOf(e, changed) != base);
  }
  SECTION("without the wildcard the attempt counter changes the hash") {
    e.volatile_fields = {"/0/attemptNumber"};
    CHECK(HashOf(e, retries[0]) != HashOf(e, first));
  }
}

TEST_CASE("identify: a key part inside a JSON string (\"/data#/app_trans_id\", ZaloPay)", "[verify]") {
  auto e = ByPointer("/id");
  e.key.id_pointer.clear();
  e.key.fields = {"/data#/app_id", "/data#/app_trans_id"};
  const std::string body = R"({"data":"{\"app_id\":2553,\"app_trans_id\":\"200904_2553_1\"}","type":1})";
  CHECK(Run(e, body)->event_id == "2553:200904_2553_1");
  CheckInvalid(Run(e, R"({"data":"{\"app_id\":2553}"})"), "event id missing (no value at key field /data#/app_trans_id)");
  CheckInvalid(Run(e, R"({"data":"not json"})"), "event id missing (no value at key field /data#/app_id)");
  CheckInvalid(Run(e, R"({"data":{"app_id":1}})"), "event id missing (no value at key field /data#/app_id)");
}
