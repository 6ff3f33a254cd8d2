// store/alert_signals: the figures the alert conditions and the digest read,
// from crafted rows, and the plans that keep each query inside an index.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/alert_signals.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;
constexpr int64_t kMin = 60 * 1000;

void Event(const StoreFixture& f, const std::string& endpoint, const std::string& id, const std::string& status,
           int64_t received_at) {
  f.Exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, status, received_at,"
         " next_attempt_at) VALUES ('stripe', '" + endpoint + "', 'default', '" + id + "', 'h', '" + status + "', " +
         std::to_string(received_at) + ", " + std::to_string(received_at) + ")");
}

void Delivery(const StoreFixture& f, const std::string& endpoint, const std::string& outcome, int64_t received_at,
              const std::string& reason = "", int requests = 1) {
  f.Exec("INSERT INTO webhook_deliveries (received_at, endpoint, provider, outcome, http_status, reason,"
         " request_count) VALUES (" + std::to_string(received_at) + ", '" + endpoint + "', 'stripe', '" + outcome +
         "', 200, " + (reason.empty() ? "NULL" : "'" + reason + "'") + ", " + std::to_string(requests) + ")");
}

const store::EndpointSignals& Of(const std::vector<store::EndpointSignals>& all, const std::string& endpoint) {
  for (const auto& s : all) {
    if (s.endpoint == endpoint) return s;
  }
  FAIL("no signals for " << endpoint);
  return all.front();
}

std::string Plan(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "EXPLAIN QUERY PLAN " + sql);
  std::string out;
  while (q.executeStep()) out += q.getColumn(3).getString() + "\n";
  return out;
}

}  // namespace

TEST_CASE("alert signals: per-endpoint figures from the inbox, the deliveries and the breaker", "[store][alert]") {
  StoreFixture f;
  Event(f, "payments", "a", "dead_lettered", kT0 - 90 * kMin);
  Event(f, "payments", "b", "dead_lettered", kT0 - 80 * kMin);
  Event(f, "payments", "c", "unknown", kT0 - 70 * kMin);
  Event(f, "payments", "d", "retryable_failed", kT0 - 40 * kMin);  // the oldest due
  Event(f, "payments", "e", "received", kT0 - 2 * kMin);
  Delivery(f, "payments", "accepted", kT0 - 2 * kMin);  // the last accepted
  Delivery(f, "payments", "duplicate", kT0 - kMin);     // not an accepted delivery
  Event(f, "payments", "f", "completed", kT0 - 100 * kMin);
  Event(f, "shop", "g", "completed", kT0 - 30 * 60 * kMin);
  Delivery(f, "shop", "accepted", kT0 - 30 * 60 * kMin);  // silent for 30 hours
  Delivery(f, "payments", "conflict", kT0 - 60 * kMin);
  Delivery(f, "payments", "conflict", kT0 - 25 * 60 * kMin);  // before the window
  Delivery(f, "payments", "rejected", kT0 - kMin, "unauthenticated: signature mismatch", 3);
  Delivery(f, "payments", "rejected", kT0 - 2 * kMin, "unauthenticated: signature mismatch");
  Delivery(f, "payments", "rejected", kT0 - 10 * kMin, "unauthenticated: signature mismatch");  // too old
  Delivery(f, "payments", "rejected", kT0 - kMin, "too_large: body over the limit");           // not a signature
  f.Exec("INSERT INTO endpoint_states (endpoint, breaker, breaker_changed_at, updated_at) VALUES ('shop', 'open', " +
         std::to_string(kT0 - 15 * kMin) + ", 0)");

  store::SignalQuery q;
  q.endpoints = {"payments", "shop", "new"};
  q.with_action = {"payments", "shop"};
  q.conflicts_since_ms = kT0 - 24 * 60 * kMin;
  q.signatures_since_ms = kT0 - 5 * kMin;
  q.accepted_since_ms = kT0 - 24 * 60 * kMin;
  auto all = f.store->ReadEndpointSignals(q);
  REQUIRE(all.ok());
  REQUIRE(all->size() == 3);

  const auto& p = Of(*all, "payments");
  CHECK(p.dead_lettered == 2);
  CHECK(p.unknown == 1);
  CHECK(p.conflicts == 1);
  CHECK(p.signature_failures == 4);
  CHECK(p.last_accepted_at_ms == kT0 - 2 * kMin);
  CHECK(p.oldest_due_received_at_ms == kT0 - 40 * kMin);
  CHECK_FALSE(p.breaker_open_since_ms.has_value());

  const auto& s = Of(*all, "shop");
  CHECK_FALSE(s.last_accepted_at_ms.has_value());  // nothing within the window
  CHECK_FALSE(s.oldest_due_received_at_ms.has_value());
  CHECK(s.breaker_open_since_ms == kT0 - 15 * kMin);

  const auto& n = Of(*all, "new");
  CHECK(n.dead_lettered == 0);
  CHECK(n.conflicts == 0);
}

TEST_CASE("alert signals: one day's figures count that day's deliveries and events only", "[store][alert]") {
  StoreFixture f;
  const int64_t day = kT0;
  const int64_t next = kT0 + 24 * 60 * kMin;
  Event(f, "payments", "a", "completed", day);
  Event(f, "payments", "b", "completed", day + 60 * kMin);
  Event(f, "payments", "c", "dead_lettered", day + 120 * kMin);
  Event(f, "payments", "d", "retryable_failed", next - 1);
  Event(f, "payments", "e", "completed", next);  // the next day
  Event(f, "payments", "f", "completed", day - 1);  // the day before
  Delivery(f, "payments", "accepted", day);
  Delivery(f, "payments", "accepted", day + kMin);
  Delivery(f, "payments", "duplicate", day + 2 * kMin);
  Delivery(f, "payments", "conflict", day + 3 * kMin);
  Delivery(f, "payments", "rejected", day + 4 * kMin, "flood", 40);
  Delivery(f, "payments", "accepted", next);

  auto d = f.store->ReadDayFigures(day, next);
  REQUIRE(d.ok());
  CHECK(d->received == 4);
  CHECK(d->duplicates == 1);
  CHECK(d->rejected == 40);
  CHECK(d->events == 4);
  CHECK(d->completed == 2);
  CHECK(d->failed == 1);
  CHECK(d->waiting == 1);

  auto bad = f.store->ReadDayFigures(next, day);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == Code::kInvalidArgument);
}

TEST_CASE("alert signals: the database's size, and free disk on SQLite only", "[store][alert]") {
  StoreFixture f;
  auto s = f.store->ReadInstallationSignals();
  REQUIRE(s.ok());
  CHECK(s->database_bytes > 0);
  CHECK(s->disk_free_bytes.has_value() == !f.postgres());
  if (s->disk_free_bytes) CHECK(*s->disk_free_bytes > 0);
}

TEST_CASE("alert signals: every query searches an index, none scans a table", "[store][alert][sqlite]") {
  StoreFixture f;
  using namespace store::alert_sql;
  for (const char* sql : {kAttention, kOldestDue, kConflicts, kSignatureFailures, kLastAccepted, kDayDeliveries,
                          kDayEvents}) {
    const std::string plan = Plan(f.path, sql);
    CAPTURE(sql, plan);
    CHECK_THAT(plan, Catch::Contains("USING") && !Catch::Contains("SCAN webhook_inbox\n") &&
                         !Catch::Contains("SCAN webhook_deliveries\n"));
  }
  CHECK_THAT(Plan(f.path, kAttention), Catch::Contains("webhook_inbox_attention"));
  CHECK_THAT(Plan(f.path, kOldestDue), Catch::Contains("webhook_inbox_due_by_endpoint"));
  CHECK_THAT(Plan(f.path, kConflicts), Catch::Contains("webhook_deliveries_conflicts"));
  CHECK_THAT(Plan(f.path, kSignatureFailures), Catch::Contains("webhook_deliveries_received_at"));
  CHECK_THAT(Plan(f.path, kLastAccepted), Catch::Contains("webhook_deliveries_accepted"));
  CHECK_THAT(Plan(f.path, kDayEvents), Catch::Contains("webhook_inbox_received_at"));
  CHECK_THAT(Plan(f.path, kDayDeliveries), Catch::Contains("webhook_deliveries_received_at"));
}
