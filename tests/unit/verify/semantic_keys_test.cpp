// Business keys and the ordering guard's object/version, as Identify() derives
// them (verify/semantic_keys.h).
#include <catch2/catch.hpp>
#include <cstdint>

#include "verify/semantic_keys.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::verify;

namespace {

config::EndpointConfig Endpoint() {
  config::EndpointConfig e;
  e.name = "payments";
  e.key.id_pointer = "/id";
  e.key.event_type_pointer = "/type";
  e.business_key.fields = {"/data/invoice"};
  e.business_key.operations = {{"invoice.paid", "mark_paid"}, {"payment.succeeded", "mark_paid"}};
  e.ordering.object = "/data/invoice";
  e.ordering.version = "/data/version";
  return e;
}

std::string Body(const std::string& id, const std::string& type, const std::string& invoice,
                 const std::string& version = "1") {
  return R"({"id":")" + id + R"(","type":")" + type + R"(","data":{"invoice":)" + invoice + R"(,"version":)" +
         version + "}}";
}

EventIdentity Ok(const config::EndpointConfig& e, const std::string& body) {
  Result<EventIdentity> r = Identify(e, MapHeaders{}, body, true);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("semantic keys: two event ids and types mapped to one operation share a business key", "[verify][semantic]") {
  const auto e = Endpoint();
  const EventIdentity a = Ok(e, Body("evt_1", "invoice.paid", R"("in_42")"));
  const EventIdentity b = Ok(e, Body("evt_2", "payment.succeeded", R"("in_42")"));
  CHECK(a.event_id != b.event_id);
  CHECK(a.business_key.size() == 64);
  CHECK(a.business_key == b.business_key);
  // Another invoice, or the number 42 instead of the string, is another key.
  CHECK(Ok(e, Body("evt_3", "invoice.paid", R"("in_43")")).business_key != a.business_key);
  CHECK(Ok(e, Body("evt_4", "invoice.paid", "42")).business_key != Ok(e, Body("evt_5", "invoice.paid", R"("42")")).business_key);
  // The hint names the operation and the pointer, never the value.
  CHECK(a.business_key_hint.rfind("mark_paid(/data/invoice) #", 0) == 0);
  CHECK(a.business_key_hint.find("in_42") == std::string::npos);
}

TEST_CASE("semantic keys: an unmapped type has no business key; a constant operation covers every type",
          "[verify][semantic]") {
  auto e = Endpoint();
  CHECK(Ok(e, Body("evt_1", "customer.updated", R"("in_42")")).business_key.empty());
  e.business_key.operation = "sync";
  const EventIdentity any = Ok(e, Body("evt_1", "customer.updated", R"("in_42")"));
  CHECK_FALSE(any.business_key.empty());
  CHECK(any.business_key != Ok(e, Body("evt_2", "invoice.paid", R"("in_42")")).business_key);  // another operation
}

TEST_CASE("semantic keys: a missing business field is refused", "[verify][semantic]") {
  const auto e = Endpoint();
  for (const std::string invoice : {"null", R"("")"}) {
    Result<EventIdentity> r = Identify(e, MapHeaders{}, Body("evt_1", "invoice.paid", invoice), true);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("business key field /data/invoice missing") != std::string::npos);
  }
}

TEST_CASE("semantic keys: versions are integers, digit strings, Unix times or RFC 3339 times", "[verify][semantic]") {
  using nlohmann::json;
  CHECK(ComparableVersion(json(7)) == std::optional<int64_t>(7));
  CHECK(ComparableVersion(json("12")) == std::optional<int64_t>(12));
  CHECK(ComparableVersion(json(1764511200)) == std::optional<int64_t>(1764511200));
  CHECK(ComparableVersion(json("2025-11-30T14:00:00.250Z")) == std::optional<int64_t>(1764511200250));
  CHECK(ComparableVersion(json("2025-11-30T15:00:00+01:00")) == std::optional<int64_t>(1764511200000));
  CHECK_FALSE(ComparableVersion(json(1.5)));
  CHECK_FALSE(ComparableVersion(json("yesterday")));
  CHECK_FALSE(ComparableVersion(json(true)));
  CHECK_FALSE(ComparableVersion(json::object()));

  const auto e = Endpoint();
  const EventIdentity older = Ok(e, Body("evt_1", "invoice.paid", R"("in_42")", R"("2025-11-30T14:00:00Z")"));
  const EventIdentity newer = Ok(e, Body("evt_2", "invoice.paid", R"("in_42")", R"("2025-11-30T14:00:01Z")"));
  CHECK(older.object_key == newer.object_key);
  CHECK(older.object_key.size() == 64);
  CHECK(older.object_version < newer.object_version);
}

TEST_CASE("semantic keys: no object id means no ordering; an object without a readable version is refused",
          "[verify][semantic]") {
  auto e = Endpoint();
  e.business_key = {};
  CHECK(Ok(e, R"({"id":"evt_1","type":"ping"})").object_key.empty());
  for (const std::string version : {R"("soon")", "1.5"}) {
    Result<EventIdentity> r = Identify(e, MapHeaders{}, Body("evt_1", "invoice.paid", R"("in_42")", version), true);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("ordering version /data/version") != std::string::npos);
  }
  Result<EventIdentity> missing = Identify(e, MapHeaders{}, R"({"id":"evt_1","data":{"invoice":"in_42"}})", true);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("missing") != std::string::npos);
}

TEST_CASE("semantic keys: the body must be JSON", "[verify][semantic]") {
  auto e = Endpoint();
  e.key = {};
  e.key.id_header = "X-Id";
  Result<EventIdentity> r = Identify(e, MapHeaders{{"X-Id", "evt_1"}}, "not json", false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("needs JSON") != std::string::npos);
}

// nlohmann's is_number_integer() is also true for unsigned values, so 2^64-1
// read as an int64 comes back as -1 and sorts before every real version.
TEST_CASE("semantic keys: a version above INT64_MAX is refused like its digit string, never wrapped",
          "[verify][semantic]") {
  using nlohmann::json;
  for (const std::string text : {"18446744073709551615", "9223372036854775808"}) {
    INFO(text);
    CHECK_FALSE(ComparableVersion(json::parse(text)));  // parsed: stored unsigned
    CHECK_FALSE(ComparableVersion(json(text)));         // the digit string: out of range
  }
  CHECK_FALSE(ComparableVersion(json(UINT64_MAX)));
  CHECK(ComparableVersion(json::parse("9223372036854775807")) == std::optional<int64_t>(INT64_MAX));
  CHECK(ComparableVersion(json(uint64_t{7})) == std::optional<int64_t>(7));
  // Negative integers fit and are kept, as number and as string alike.
  CHECK(ComparableVersion(json::parse("-5")) == std::optional<int64_t>(-5));
  CHECK(ComparableVersion(json("-5")) == std::optional<int64_t>(-5));
  CHECK(ComparableVersion(json::parse("-9223372036854775808")) == std::optional<int64_t>(INT64_MIN));

  auto e = Endpoint();
  e.business_key = {};
  for (const std::string version : {"18446744073709551615", R"("18446744073709551615")"}) {
    INFO(version);
    Result<EventIdentity> r = Identify(e, MapHeaders{}, Body("evt_1", "invoice.paid", R"("in_42")", version), true);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK(r.status().message().find("ordering version /data/version is not an integer in the signed 64-bit range") !=
          std::string::npos);
  }
  const EventIdentity top = Ok(e, Body("evt_2", "invoice.paid", R"("in_42")", "9223372036854775807"));
  CHECK(top.object_version == INT64_MAX);
  CHECK(Ok(e, Body("evt_3", "invoice.paid", R"("in_42")", "5")).object_version < top.object_version);
}
