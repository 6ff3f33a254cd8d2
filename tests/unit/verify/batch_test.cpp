// The batch split: RawArrayElements finds each element's exact bytes, and
// IdentifyBatch gives each element the identity Identify would give it alone.
#include <catch2/catch.hpp>

#include <string>

#include "common/headers.h"
#include "verify/json.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

std::vector<std::string> Raw(std::string_view text, std::string_view pointer) {
  auto elements = RawArrayElements(text, pointer);
  REQUIRE(elements.has_value());
  return {elements->begin(), elements->end()};
}

// A HubSpot-shaped endpoint: a root array, composite key, a retry counter.
config::EndpointConfig HubSpotLike() {
  config::EndpointConfig e;
  e.name = "crm";
  e.key.batch = true;
  e.key.fields = {"/subscriptionId", "/eventId"};
  e.key.event_type_pointer = "/subscriptionType";
  e.volatile_fields = {"/attemptNumber"};
  return e;
}

}  // namespace

TEST_CASE("raw array: elements keep their exact bytes, spacing and escapes", "[verify][batch]") {
  CHECK(Raw(R"([1, "a,]\"b" ,{"x":[1,{"y":"}"}]}, null,-2.50e1])", "") ==
        std::vector<std::string>{"1", R"("a,]\"b")", R"({"x":[1,{"y":"}"}]})", "null", "-2.50e1"});
  CHECK(Raw(" \n[ ]\n", "").empty());
  CHECK(Raw(R"({"object":"page","entry":[{"id":"1"},{"id":"2"}]})", "/entry") ==
        std::vector<std::string>{R"({"id":"1"})", R"({"id":"2"})"});
  CHECK(Raw(R"({"a":{"b":[[1],[2,3]]}})", "/a/b/1") == std::vector<std::string>{"2", "3"});
  CHECK(Raw(R"({"a/b":{"c~d":[true]},"x\u0041":[9]})", "/a~1b/c~0d") == std::vector<std::string>{"true"});
  CHECK(Raw(R"({"xA":[1],"x\u0041":[9]})", "/xA") == std::vector<std::string>{"1"});
}

TEST_CASE("raw array: a pointer to a missing member or a non-array is nullopt", "[verify][batch]") {
  CHECK_FALSE(RawArrayElements(R"({"entry":{}})", "/entry").has_value());
  CHECK_FALSE(RawArrayElements(R"({"entry":[1]})", "/other").has_value());
  CHECK_FALSE(RawArrayElements(R"([[1],[2]])", "/5").has_value());
  CHECK_FALSE(RawArrayElements(R"({"a":1})", "").has_value());
  CHECK_FALSE(RawArrayElements(R"([1,2)", "").has_value());
  CHECK_FALSE(RawArrayElements(R"(["unterminated)", "").has_value());
  CHECK_FALSE(RawArrayElements("[1]", "no-slash").has_value());
}

TEST_CASE("batch: each element is identified on its own, with its own bytes", "[verify][batch]") {
  const std::string body =
      R"([{"eventId":1,"subscriptionId":7,"subscriptionType":"contact.creation","attemptNumber":0},)"
      R"( {"eventId":2,"subscriptionId":7,"subscriptionType":"contact.deletion","attemptNumber":0}])";
  MapHeaders h;
  auto batch = IdentifyBatch(HubSpotLike(), h, body);
  REQUIRE(batch.ok());
  REQUIRE(batch->size() == 2);
  CHECK((*batch)[0].identity.event_id == "7:1");
  CHECK((*batch)[1].identity.event_id == "7:2");
  CHECK((*batch)[0].identity.event_type == "contact.creation");
  CHECK((*batch)[1].body == R"({"eventId":2,"subscriptionId":7,"subscriptionType":"contact.deletion","attemptNumber":0})");

  // The same event alone, as a single delivery, gets the same identity.
  config::EndpointConfig single = HubSpotLike();
  single.key.batch = false;
  auto alone = Identify(single, h, (*batch)[1].body, true);
  REQUIRE(alone.ok());
  CHECK(alone->event_id == (*batch)[1].identity.event_id);
  CHECK(alone->payload_hash == (*batch)[1].identity.payload_hash);
}

TEST_CASE("batch: a provider retry that bumps attemptNumber keeps every payload hash", "[verify][batch]") {
  MapHeaders h;
  auto first = IdentifyBatch(HubSpotLike(), h, R"([{"eventId":1,"subscriptionId":7,"attemptNumber":0}])");
  auto retry = IdentifyBatch(HubSpotLike(), h, R"([{"eventId":1,"subscriptionId":7,"attemptNumber":3}])");
  auto changed = IdentifyBatch(HubSpotLike(), h, R"([{"eventId":1,"subscriptionId":7,"attemptNumber":3,"x":1}])");
  REQUIRE(first.ok());
  REQUIRE(retry.ok());
  REQUIRE(changed.ok());
  CHECK((*first)[0].identity.payload_hash == (*retry)[0].identity.payload_hash);
  CHECK((*first)[0].identity.payload_hash != (*changed)[0].identity.payload_hash);
}

TEST_CASE("batch: Meta-shaped entries keyed by their canonical hash", "[verify][batch]") {
  config::EndpointConfig e;
  e.key.batch = true;
  e.key.batch_pointer = "/entry";
  e.key.canonical_hash = true;
  e.key.event_type_pointer = "/changes/0/field";
  MapHeaders h;
  auto batch = IdentifyBatch(
      e, h, R"({"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages"}]},)"
            R"({"changes":[{"field":"messages"}],"id":"2"}]})");
  REQUIRE(batch.ok());
  REQUIRE(batch->size() == 2);
  CHECK((*batch)[0].identity.event_type == "messages");
  CHECK((*batch)[0].identity.event_id.rfind("sha256:", 0) == 0);
  CHECK((*batch)[0].identity.event_id != (*batch)[1].identity.event_id);
  // Key order inside an entry does not change its key.
  auto reordered = IdentifyBatch(e, h, R"({"entry":[{"changes":[{"field":"messages"}],"id":"1"}]})");
  REQUIRE(reordered.ok());
  CHECK((*reordered)[0].identity.event_id == (*batch)[0].identity.event_id);
}

TEST_CASE("batch: refused whole when it is empty, not an array, or any element lacks its id", "[verify][batch]") {
  MapHeaders h;
  auto empty = IdentifyBatch(HubSpotLike(), h, "[]");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().message().find("no events") != std::string::npos);
  auto object = IdentifyBatch(HubSpotLike(), h, R"({"eventId":1})");
  REQUIRE_FALSE(object.ok());
  CHECK(object.status().message().find("not an array") != std::string::npos);
  auto missing = IdentifyBatch(HubSpotLike(), h, R"([{"eventId":1,"subscriptionId":7},{"subscriptionId":7}])");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == Code::kInvalidArgument);
  CHECK(missing.status().message().find("batch event 1") != std::string::npos);
  CHECK_FALSE(IdentifyBatch(HubSpotLike(), h, "[{").ok());
}

TEST_CASE("batch: more than 1000 events is refused", "[verify][batch]") {
  std::string body = "[";
  for (int i = 0; i < 1001; ++i) body += (i ? "," : "") + std::string(R"({"eventId":)") + std::to_string(i) + R"(,"subscriptionId":1})";
  body += "]";
  MapHeaders h;
  auto r = IdentifyBatch(HubSpotLike(), h, body);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("more than 1000") != std::string::npos);
}
