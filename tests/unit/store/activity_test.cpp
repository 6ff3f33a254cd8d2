// The dashboard's activity counts (store/activity.h): deliveries by the
// bucket they were received in, action attempts by the bucket they ended
// in, every listed endpoint with every bucket, and reads bounded by the
// window's indexes.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

#include "store/activity.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kHour = 3'600'000;
constexpr int64_t kStart = 1764511200000;  // a whole hour

void Delivery(const StoreFixture& f, const std::string& endpoint, const std::string& outcome, int64_t at,
              int count = 1) {
  f.Exec("INSERT INTO webhook_deliveries (received_at, endpoint, provider, outcome, http_status, request_count)"
         " VALUES (" + std::to_string(at) + ", '" + endpoint + "', 'generic', '" + outcome + "', 200, " +
         std::to_string(count) + ")");
}

void Attempt(const StoreFixture& f, int64_t inbox_id, const std::string& outcome, int64_t finished_at,
             const std::string& kind = "action") {
  f.Exec("INSERT INTO webhook_attempts (inbox_id, attempt, worker, started_at, finished_at, outcome, kind) VALUES (" +
         std::to_string(inbox_id) + ", 1, 'w', " + std::to_string(finished_at - 10) + ", " +
         std::to_string(finished_at) + ", '" + outcome + "', '" + kind + "')");
}

store::ActivityOptions ThreeHours(std::vector<std::string> endpoints) {
  store::ActivityOptions o;
  o.start_ms = kStart;
  o.bucket_ms = kHour;
  o.buckets = 3;
  o.endpoints = std::move(endpoints);
  return o;
}

std::string Plan(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "EXPLAIN QUERY PLAN " + sql);
  std::string out;
  while (q.executeStep()) out += q.getColumn(3).getString() + "\n";
  return out;
}

}  // namespace

TEST_CASE("activity: deliveries and attempts land in the bucket of their time", "[store][activity]") {
  StoreFixture f;
  Delivery(f, "payments", "accepted", kStart);                // first ms of bucket 0
  Delivery(f, "payments", "accepted", kStart + kHour - 1);    // last ms of bucket 0
  Delivery(f, "payments", "duplicate", kStart + kHour);       // bucket 1
  Delivery(f, "payments", "rejected", kStart + 2 * kHour, 7); // a folded flood counts its requests
  Delivery(f, "payments", "conflict", kStart + 2 * kHour);
  Delivery(f, "payments", "ignored", kStart + 2 * kHour);     // neither received nor refused: not charted
  Delivery(f, "payments", "accepted", kStart - 1);            // before the window
  Delivery(f, "payments", "accepted", kStart + 3 * kHour);    // after it
  Delivery(f, "elsewhere", "rejected", kStart);                // not a listed endpoint
  const int64_t id = f.ClaimAt(SampleEvent("evt_1"), kStart);
  Attempt(f, id, "completed", kStart + 10);
  Attempt(f, id, "retryable_failed", kStart + kHour + 5);
  Attempt(f, id, "dead_lettered", kStart + kHour + 6);
  Attempt(f, id, "unknown", kStart + 2 * kHour);
  Attempt(f, id, "released", kStart + 2 * kHour);          // a shutdown, not an outcome
  Attempt(f, id, "completed", kStart + 2 * kHour, "probe");  // reconciliation, not the action

  auto activity = f.store->ReadActivity(ThreeHours({"payments", "quiet"}));
  REQUIRE(activity.ok());
  REQUIRE(activity->size() == 2);
  const auto& p = (*activity)[0];
  CHECK(p.endpoint == "payments");
  REQUIRE(p.buckets.size() == 3);
  CHECK(p.buckets[0].start_ms == kStart);
  CHECK(p.buckets[2].start_ms == kStart + 2 * kHour);
  // +1 accepted in bucket 0: ClaimAt's own delivery row.
  CHECK(p.buckets[0].accepted == 3);
  CHECK(p.buckets[0].completed == 1);
  CHECK(p.buckets[1].duplicate == 1);
  CHECK(p.buckets[1].failed == 2);
  CHECK(p.buckets[2].rejected == 7);
  CHECK(p.buckets[2].conflict == 1);
  CHECK(p.buckets[2].failed == 1);
  CHECK(p.buckets[2].completed == 0);
  CHECK(p.buckets[2].accepted == 0);
  const auto& quiet = (*activity)[1];
  CHECK(quiet.endpoint == "quiet");
  REQUIRE(quiet.buckets.size() == 3);
  for (const auto& b : quiet.buckets) CHECK(b.accepted + b.rejected + b.completed + b.failed == 0);
}

TEST_CASE("activity: no endpoints or no buckets read nothing", "[store][activity]") {
  StoreFixture f;
  auto none = f.store->ReadActivity(ThreeHours({}));
  REQUIRE(none.ok());
  CHECK(none->empty());
  auto o = ThreeHours({"payments"});
  o.buckets = 0;
  auto empty = f.store->ReadActivity(o);
  REQUIRE(empty.ok());
  REQUIRE(empty->size() == 1);
  CHECK((*empty)[0].buckets.empty());
}

TEST_CASE("activity: both reads are bounded by the window's time index", "[store][activity][sqlite]") {
  StoreFixture f;
  std::string deliveries = Plan(f.path, store::activity_sql::kDeliveries);
  INFO(deliveries);
  CHECK_THAT(deliveries, Catch::Contains("SEARCH webhook_deliveries USING INDEX webhook_deliveries_received_at"));
  std::string attempts = Plan(f.path, store::activity_sql::kAttempts);
  INFO(attempts);
  CHECK_THAT(attempts, Catch::Contains("SEARCH a USING INDEX webhook_attempts_finished_at"));
  CHECK_THAT(attempts, Catch::Contains("SEARCH i USING INTEGER PRIMARY KEY"));
}

TEST_CASE("activity: a closed store answers Unavailable", "[store][activity]") {
  StoreFixture f;
  f.store->Close();
  auto activity = f.store->ReadActivity(ThreeHours({"payments"}));
  REQUIRE_FALSE(activity.ok());
  CHECK(activity.status().code() == Code::kUnavailable);
}
