// GET /admin/api/activity's pure parts (admin/activity.h): the two ranges,
// the window ending with the bucket that holds now, and the JSON shape.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "admin/activity.h"

using namespace hookinbox;

TEST_CASE("activity: 24h is 24 hourly buckets, 7d is 28 six-hour buckets", "[admin][activity]") {
  auto day = admin::ParseActivityRange("24h");
  REQUIRE(day.ok());
  CHECK(day->bucket_ms == 3'600'000);
  CHECK(day->buckets == 24);
  auto absent = admin::ParseActivityRange("");
  REQUIRE(absent.ok());
  CHECK(absent->name == "24h");
  auto week = admin::ParseActivityRange("7d");
  REQUIRE(week.ok());
  CHECK(week->bucket_ms == 6 * 3'600'000);
  CHECK(week->buckets == 28);
}

TEST_CASE("activity: another range is refused, naming the accepted ones", "[admin][activity]") {
  for (const char* bad : {"1h", "24H", "7d ", "30d", "-1"}) {
    auto r = admin::ParseActivityRange(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK(r.status().message() == "range: must be 24h or 7d");
  }
}

TEST_CASE("activity: the window ends with the bucket holding now", "[admin][activity]") {
  constexpr int64_t kHour = 3'600'000;
  const int64_t hour = 1764511200000;  // 2025-11-30T14:00Z
  auto day = *admin::ParseActivityRange("24h");
  auto o = admin::ActivityWindow(day, hour + 1234, {"a"});
  CHECK(o.start_ms == hour - 23 * kHour);
  CHECK(o.start_ms + o.buckets * o.bucket_ms == hour + kHour);
  CHECK(o.endpoints == std::vector<std::string>{"a"});
  // On a boundary, now opens the last bucket.
  CHECK(admin::ActivityWindow(day, hour, {}).start_ms == hour - 23 * kHour);
  // Six-hour buckets start at 00, 06, 12 and 18 UTC.
  const int64_t noon = hour - 2 * kHour;  // 2025-11-30T12:00Z
  auto week = *admin::ParseActivityRange("7d");
  auto w = admin::ActivityWindow(week, noon + 5 * kHour, {});
  CHECK(w.start_ms == noon + 6 * kHour - 28 * 6 * kHour);
  CHECK(admin::ActivityWindow(week, hour, {}).start_ms == w.start_ms);
}

TEST_CASE("activity: the JSON lists each endpoint's buckets with their start and counts", "[admin][activity]") {
  store::EndpointActivity e;
  e.endpoint = "orders";
  store::ActivityBucket b;
  b.start_ms = 1764511200000;
  b.accepted = 3;
  b.duplicate = 2;
  b.rejected = 1;
  b.completed = 4;
  b.failed = 5;
  e.buckets.push_back(b);
  auto j = nlohmann::json::parse(admin::RenderActivityJson(*admin::ParseActivityRange("24h"), {e}));
  CHECK(j["range"] == "24h");
  CHECK(j["bucket_seconds"] == 3600);
  REQUIRE(j["endpoints"].size() == 1);
  CHECK(j["endpoints"][0]["endpoint"] == "orders");
  const auto& bucket = j["endpoints"][0]["buckets"][0];
  CHECK(bucket["start"] == "2025-11-30T14:00:00.000Z");
  CHECK(bucket["accepted"] == 3);
  CHECK(bucket["duplicate"] == 2);
  CHECK(bucket["conflict"] == 0);
  CHECK(bucket["rejected"] == 1);
  CHECK(bucket["completed"] == 4);
  CHECK(bucket["failed"] == 5);
}
