// store/stats: per-endpoint figures read back from crafted rows, and the
// query plans that keep them cheap.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/stats.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

// Claims `event_id` on `endpoint` through the store (the real write path),
// then forces its state with SQL, as the worker would have left it.
int64_t Event(StoreFixture& f, const std::string& endpoint, const std::string& provider, const std::string& event_id,
              const std::string& status, int64_t received_at_ms) {
  store::NewEvent e = SampleEvent(event_id);
  e.endpoint = endpoint;
  e.provider = provider;
  e.received_at_ms = received_at_ms;
  store::DeliveryRecord d = SampleDelivery();
  d.endpoint = endpoint;
  d.provider = provider;
  auto claim = f.store->RecordEvent(e, d);
  REQUIRE(claim.ok());
  f.Exec("UPDATE webhook_inbox SET status = '" + status + "' WHERE id = " + std::to_string(claim->inbox_id));
  return claim->inbox_id;
}

const store::EndpointStats* Find(const store::Stats& s, const std::string& endpoint) {
  for (const auto& e : s.endpoints) {
    if (e.endpoint == endpoint) return &e;
  }
  return nullptr;
}

// SQLite's plan for `sql` (EXPLAIN QUERY PLAN is SQLite's own).
std::string Plan(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "EXPLAIN QUERY PLAN " + sql);
  std::string out;
  while (q.executeStep()) out += q.getColumn(3).getString() + "\n";
  return out;
}

}  // namespace

TEST_CASE("stats: state per endpoint and provider, from the database", "[store][stats]") {
  StoreFixture f;
  Event(f, "payments", "stripe", "a", "received", 5000);
  Event(f, "payments", "stripe", "b", "retryable_failed", 3000);
  Event(f, "payments", "stripe", "c", "processing", 4000);
  Event(f, "payments", "stripe", "d", "dead_lettered", 1000);
  Event(f, "payments", "stripe", "e", "completed", 1000);
  Event(f, "shop", "shopify", "f", "unknown", 1000);
  Event(f, "shop", "shopify", "g", "unknown", 1000);
  Event(f, "drained", "github", "h", "completed", 1000);
  Event(f, "kept", "generic", "k", "received", 500);  // no action: its events wait for nothing

  store::StatsOptions options;
  options.with_action = {"payments", "shop", "drained"};
  auto stats = f.store->ReadStats(options);
  REQUIRE(stats.ok());
  REQUIRE(stats->endpoints.size() == 4);
  const auto* p = Find(*stats, "payments");
  REQUIRE(p != nullptr);
  CHECK(p->provider == "stripe");
  CHECK(p->has_action);
  CHECK(p->backlog == 3);
  CHECK(p->oldest_pending_received_at_ms == 3000);
  CHECK(p->dead_lettered == 1);
  CHECK(p->unknown == 0);
  CHECK(p->completed == 0);  // totals not asked for
  const auto* s = Find(*stats, "shop");
  REQUIRE(s != nullptr);
  CHECK(s->unknown == 2);
  CHECK(s->backlog == 0);
  const auto* d = Find(*stats, "drained");  // nothing pending: present with zeros, not missing
  REQUIRE(d != nullptr);
  CHECK(d->backlog == 0);
  CHECK(d->oldest_pending_received_at_ms == 0);
  const auto* k = Find(*stats, "kept");  // listed, but nothing of it is backlog
  REQUIRE(k != nullptr);
  CHECK_FALSE(k->has_action);
  CHECK(k->backlog == 0);
  CHECK(k->oldest_pending_received_at_ms == 0);
}

TEST_CASE("stats: totals count delivery requests by outcome, folded rejections by their count", "[store][stats]") {
  StoreFixture f;
  store::NewEvent e = SampleEvent("evt_1", "h1");
  REQUIRE(f.store->RecordEvent(e, SampleDelivery()).ok());                           // accepted
  REQUIRE(f.store->RecordEvent(e, SampleDelivery()).ok());                           // duplicate
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_1", "h2"), SampleDelivery()).ok());  // conflict
  store::DeliveryRecord rejected = SampleDelivery();
  rejected.reason = "unauthenticated: bad signature";
  REQUIRE(f.store->RecordRejected(rejected).ok());
  store::DeliveryRecord unknown = SampleDelivery();
  unknown.endpoint = "";
  unknown.provider = "";
  unknown.reason = "not_found: unknown endpoint";
  REQUIRE(f.store->RecordRejected(unknown).ok());
  f.Exec("UPDATE webhook_deliveries SET request_count = 5 WHERE coalesce(endpoint, '') = ''");  // a folded flood
  f.Exec("UPDATE webhook_inbox SET status = 'completed'");

  store::StatsOptions options;
  options.with_totals = true;
  auto stats = f.store->ReadStats(options);
  REQUIRE(stats.ok());
  CHECK(stats->with_totals);
  const auto* p = Find(*stats, "payments");
  REQUIRE(p != nullptr);
  CHECK(p->received == 3);
  CHECK(p->duplicates == 1);
  CHECK(p->conflicts == 1);
  CHECK(p->rejected == 1);
  CHECK(p->completed == 1);
  const auto* none = Find(*stats, "");
  REQUIRE(none != nullptr);
  CHECK(none->rejected == 5);
  CHECK(none->received == 0);
}

TEST_CASE("stats: the scrape queries use indexes, not a scan of the whole inbox", "[store][stats][sqlite]") {
  StoreFixture f;
  CHECK_THAT(Plan(f.path, store::stats_sql::kFirstEndpoint), Catch::Contains("COVERING INDEX"));
  CHECK_THAT(Plan(f.path, store::stats_sql::kNextEndpoint), Catch::Contains("SEARCH webhook_inbox USING COVERING INDEX"));
  std::string backlog = Plan(f.path, store::stats_sql::kBacklog);
  INFO(backlog);
  CHECK_THAT(backlog, Catch::Contains("SEARCH webhook_inbox USING INDEX webhook_inbox_due_by_endpoint (endpoint=?)"));
  std::string attention = Plan(f.path, store::stats_sql::kAttention);
  INFO(attention);
  CHECK_THAT(attention, Catch::Contains("webhook_inbox_attention"));
  std::string dead = Plan(f.path, store::stats_sql::kOldestDeadLetter);
  INFO(dead);
  CHECK_THAT(dead, Catch::Contains("SCAN i USING INDEX webhook_inbox_attention"));
  CHECK_THAT(dead, Catch::Contains("SEARCH a USING INDEX webhook_attempts_inbox (inbox_id=?)"));
}

TEST_CASE("stats: a closed store answers Unavailable", "[store][stats]") {
  StoreFixture f;
  f.store->Close();
  auto stats = f.store->ReadStats({});
  REQUIRE_FALSE(stats.ok());
  CHECK(stats.status().code() == Code::kUnavailable);
}
