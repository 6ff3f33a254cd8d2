#include "admin/query.h"

#include <catch2/catch.hpp>

using namespace hookinbox::admin;

namespace {
QueryParams P(std::initializer_list<std::pair<const std::string, std::string>> kv) { return QueryParams(kv); }
}  // namespace

TEST_CASE("query: times as milliseconds or ISO-8601", "[admin][query]") {
  CHECK(*ParseTime("1700000000000") == 1700000000000);
  CHECK(*ParseTime("2023-11-14T22:13:20Z") == 1700000000000);
  CHECK(*ParseTime("2023-11-14T22:13:20.5Z") == 1700000000500);
  CHECK(*ParseTime("2023-11-14T22:13:20.123456Z") == 1700000000123);
  CHECK(*ParseTime("2023-11-14T23:13:20+01:00") == 1700000000000);
  CHECK(*ParseTime("2023-11-14T20:13:20-02:00") == 1700000000000);
  CHECK(*ParseTime("2023-11-14") == 1699920000000);
  for (const char* bad : {"", "yesterday", "2023-13-01", "2023-02-30", "2023-11-14T25:00:00Z", "2023-11-14T22:13:20",
                          "2023-11-14T22:13Z", "2023-11-14T22:13:20+1", "-5", "1e9", "2023-11-14T22:13:20.Z"}) {
    INFO(bad);
    CHECK_FALSE(ParseTime(bad).ok());
  }
}

TEST_CASE("query: cursors round-trip and refuse anything else", "[admin][query]") {
  CHECK(EncodeEventCursor(0).empty());
  CHECK(*DecodeEventCursor(EncodeEventCursor(12345)) == 12345);
  auto c = DecodeConflictCursor(EncodeConflictCursor(77, 3));
  REQUIRE(c.ok());
  CHECK(c->first == 77);
  CHECK(c->second == 3);
  CHECK_FALSE(DecodeEventCursor("zz").ok());
  CHECK_FALSE(DecodeEventCursor("12345").ok());
  CHECK_FALSE(DecodeEventCursor(EncodeConflictCursor(1, 0)).ok());  // another list's cursor
  CHECK_FALSE(DecodeConflictCursor(EncodeEventCursor(5)).ok());
  // URL-safe: no character a query string would need escaped.
  CHECK(EncodeEventCursor(9007199254740991).find_first_not_of("0123456789abcdef") == std::string::npos);
}

TEST_CASE("query: the event filter from parameters, and a 400 naming any bad one", "[admin][query]") {
  auto f = ParseEventQuery(P({{"status", "dead_lettered"}, {"endpoint", "shop"}, {"tenant", "acme"},
                              {"type", "order.paid"}, {"q", "evt_1"}, {"since", "1000"},
                              {"until", "2023-11-14T22:13:20Z"}, {"limit", "7"},
                              {"cursor", EncodeEventCursor(99)}}),
                           EventQueryParams());
  REQUIRE(f.ok());
  CHECK(f->status == "dead_lettered");
  CHECK(f->endpoint == "shop");
  CHECK(f->tenant == "acme");
  CHECK(f->event_type == "order.paid");
  CHECK(f->id_contains == "evt_1");
  CHECK(f->since_ms == 1000);
  CHECK(f->until_ms == 1700000000000);
  CHECK(f->limit == 7);
  CHECK(f->before_id == 99);
  auto empty = ParseEventQuery({}, EventQueryParams());
  REQUIRE(empty.ok());
  CHECK(empty->limit == kDefaultPageSize);
  CHECK(empty->before_id == 0);

  const std::pair<QueryParams, const char*> bad[] = {
      {P({{"limit", "0"}}), "limit"},          {P({{"limit", "1001"}}), "limit"},
      {P({{"limit", "x"}}), "limit"},          {P({{"status", "nope"}}), "status"},
      {P({{"since", "soon"}}), "since"},       {P({{"since", "5"}, {"until", "5"}}), "until"},
      {P({{"cursor", "abc"}}), "cursor"},      {P({{"colour", "red"}}), "colour"},
      {P({{"q", "a"}, {"q", "b"}}), "q"},      {P({{"since", "0"}}), "since"},
  };
  for (const auto& [params, name] : bad) {
    auto r = ParseEventQuery(params, EventQueryParams());
    INFO(name);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == hookinbox::Code::kInvalidArgument);
    CHECK(r.status().message().find(name) != std::string::npos);
  }
  CHECK_FALSE(ParseEventQuery(P({{"status", "received"}}), {"limit"}).ok());  // a queue route fixes status
}

TEST_CASE("query: the conflict filter", "[admin][query]") {
  auto f = ParseConflictQuery(P({{"endpoint", "demo"}, {"limit", "2"}, {"cursor", EncodeConflictCursor(10, 1)}}));
  REQUIRE(f.ok());
  CHECK(f->endpoint == "demo");
  CHECK(f->limit == 2);
  CHECK(f->before_delivery_id == 10);
  CHECK(f->before_position == 1);
  CHECK_FALSE(ParseConflictQuery(P({{"status", "x"}})).ok());
}
