// admin/metrics: the /metrics text and /admin/api/stats JSON over a real
// database file, and who may read /metrics.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <nlohmann/json.hpp>
#include <map>
#include <sstream>

#include "admin/metrics.h"
#include "store/sql_store.h"
#include "common/metrics.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

struct Db {
  testing::TempDir dir;
  std::string path = dir.File("data/hookinbox.db");
  std::unique_ptr<store::SqlStore> store;
  Db() {
    auto opened = store::SqlStore::Open({path, 2000, 64});
    REQUIRE(opened.ok());
    store = std::move(opened).value();
  }
  int64_t Claim(const std::string& endpoint, const std::string& id, const std::string& status, int64_t at_ms) {
    store::NewEvent e;
    e.provider = "stripe";
    e.endpoint = endpoint;
    e.tenant_id = "default";
    e.event_id = id;
    e.payload_hash = "h";
    e.body = "{}";
    e.received_at_ms = at_ms;
    store::DeliveryRecord d;
    d.received_at_ms = at_ms;
    d.endpoint = endpoint;
    d.provider = "stripe";
    auto claim = store->RecordEvent(e, d);
    REQUIRE(claim.ok());
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("UPDATE webhook_inbox SET status = '" + status + "' WHERE id = " + std::to_string(claim->inbox_id));
    return claim->inbox_id;
  }
};

// Sample lines "name{labels} value" → value, for names starting with `prefix`.
std::map<std::string, std::string> Samples(const std::string& text, const std::string& prefix) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    size_t sp = line.rfind(' ');
    out[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return out;
}

}  // namespace

TEST_CASE("admin metrics: state gauges come from the database, typed and labelled", "[admin][metrics]") {
  Db db;
  db.Claim("pay", "a", "received", 10'000);
  db.Claim("pay", "b", "retryable_failed", 4'000);
  db.Claim("pay", "c", "dead_lettered", 1'000);
  db.Claim("pay", "d", "unknown", 1'000);
  db.Claim("pay", "e", "unknown", 1'000);
  auto text = admin::RenderMetricsText(*db.store, *db.store, 20'500, {"pay"});
  REQUIRE(text.ok());
  INFO(*text);
  auto s = Samples(*text, "webhook_");
  CHECK(s["webhook_backlog{endpoint=\"pay\",provider=\"stripe\"}"] == "2");
  CHECK(s["webhook_oldest_pending_age_seconds{endpoint=\"pay\",provider=\"stripe\"}"] == "16.5");
  CHECK(s["webhook_dead_lettered{endpoint=\"pay\",provider=\"stripe\"}"] == "1");
  CHECK(s["webhook_unknown{endpoint=\"pay\",provider=\"stripe\"}"] == "2");
  for (const char* gauge : {"webhook_backlog", "webhook_dead_lettered", "webhook_oldest_pending_age_seconds",
                            "webhook_unknown"}) {
    CHECK_THAT(*text, Catch::Contains(std::string("# TYPE ") + gauge + " gauge\n"));
  }
  // The process counters are in the same answer.
  CHECK_THAT(*text, Catch::Contains("# TYPE webhook_received_total counter\n"));
  CHECK_THAT(*text, Catch::Contains("# TYPE webhook_processing_seconds histogram\n"));
}

TEST_CASE("admin metrics: the oldest dead letter's age counts from its last attempt", "[admin][metrics]") {
  Db db;
  const int64_t old = db.Claim("pay", "a", "dead_lettered", 1'000);
  db.Claim("pay", "b", "dead_lettered", 2'000);  // no attempt: counts from its arrival
  db.Claim("crm", "c", "completed", 1'000);
  {
    SQLite::Database sql(db.path, SQLite::OPEN_READWRITE);
    sql.exec("INSERT INTO webhook_attempts (inbox_id, attempt, worker, started_at, finished_at, outcome) VALUES (" +
             std::to_string(old) + ", 1, 'w', 1000, 1500, 'retryable_failed'), (" + std::to_string(old) +
             ", 2, 'w', 2500, 3000, 'dead_lettered')");
  }
  auto text = admin::RenderMetricsText(*db.store, *db.store, 12'000, {"pay", "crm"});
  REQUIRE(text.ok());
  INFO(*text);
  auto s = Samples(*text, "webhook_dead_letter");
  // b has waited since 2 000 (arrival), a since 3 000 (its last attempt's end).
  CHECK(s["webhook_dead_letter_oldest_age_seconds{endpoint=\"pay\",provider=\"stripe\"}"] == "10");
  CHECK(s["webhook_dead_letter_oldest_age_seconds{endpoint=\"crm\",provider=\"stripe\"}"] == "0");
  CHECK_THAT(*text, Catch::Contains("# TYPE webhook_dead_letter_oldest_age_seconds gauge\n"));
}

TEST_CASE("admin metrics: database size, and free disk beside a SQLite file", "[admin][metrics]") {
  Db db;
  std::string out;
  admin::AppendStorageGauges(out, *db.store, db.path);
  auto s = Samples(out, "webhook_");
  REQUIRE(s.count("webhook_database_bytes") == 1);
  CHECK(std::stod(s["webhook_database_bytes"]) > 0);
  REQUIRE(s.count("webhook_disk_free_bytes") == 1);
  CHECK(std::stod(s["webhook_disk_free_bytes"]) > 0);
  CHECK_THAT(out, Catch::Contains("# TYPE webhook_disk_free_bytes gauge\n"));
  // Without a SQLite file (PostgreSQL) there is no disk to measure here.
  std::string pg;
  admin::AppendStorageGauges(pg, *db.store, "");
  CHECK_THAT(pg, !Catch::Contains("webhook_disk_free_bytes"));
}

TEST_CASE("admin metrics: paused and breaker gauges for every endpoint with an action, from the database",
          "[admin][metrics]") {
  Db db;
  REQUIRE(*db.store->SetPaused("pay", true, "cli:alice", "maintenance", 1'000));
  store::BreakerRecord half_open;
  half_open.endpoint = "crm";
  half_open.state = store::BreakerState::kHalfOpen;
  half_open.at_ms = 1'000;
  REQUIRE(db.store->RecordBreaker(half_open).ok());
  REQUIRE(*db.store->SetPaused("gone", true, "cli:alice", "", 1'000));  // a row of an endpoint no longer configured
  auto text = admin::RenderMetricsText(*db.store, *db.store, 2'000, {"crm", "pay", "quiet"});
  REQUIRE(text.ok());
  INFO(*text);
  auto s = Samples(*text, "webhook_");
  CHECK(s["webhook_endpoint_paused{endpoint=\"pay\"}"] == "1");
  CHECK(s["webhook_endpoint_paused{endpoint=\"crm\"}"] == "0");
  CHECK(s["webhook_endpoint_paused{endpoint=\"quiet\"}"] == "0");  // no row: running
  CHECK(s["webhook_breaker_open{endpoint=\"crm\"}"] == "1");       // half_open counts as open
  CHECK(s["webhook_breaker_open{endpoint=\"pay\"}"] == "0");
  CHECK(s["webhook_breaker_open{endpoint=\"quiet\"}"] == "0");
  CHECK(s.count("webhook_endpoint_paused{endpoint=\"gone\"}") == 0);
  CHECK_THAT(*text, Catch::Contains("# TYPE webhook_endpoint_paused gauge\n"));
  CHECK_THAT(*text, Catch::Contains("# TYPE webhook_breaker_open gauge\n"));

  half_open.state = store::BreakerState::kClosed;
  REQUIRE(db.store->RecordBreaker(half_open).ok());
  REQUIRE(*db.store->SetPaused("pay", false, "cli:alice", "", 3'000));
  s = Samples(*admin::RenderMetricsText(*db.store, *db.store, 4'000, {"crm", "pay"}), "webhook_");
  CHECK(s["webhook_endpoint_paused{endpoint=\"pay\"}"] == "0");
  CHECK(s["webhook_breaker_open{endpoint=\"crm\"}"] == "0");
}

TEST_CASE("admin metrics: the stats JSON has every dashboard figure per endpoint", "[admin][metrics]") {
  Db db;
  db.Claim("pay", "a", "received", 1'000);
  db.Claim("pay", "b", "completed", 1'000);
  auto body = admin::RenderStatsJson(*db.store, 3'000, {"pay"}, {"pay"});
  REQUIRE(body.ok());
  auto j = nlohmann::json::parse(*body);
  REQUIRE(j["endpoints"].size() == 1);
  auto e = j["endpoints"][0];
  CHECK(e["endpoint"] == "pay");
  CHECK(e["provider"] == "stripe");
  CHECK(e["received"] == 2);
  CHECK(e["duplicates"] == 0);
  CHECK(e["conflicts"] == 0);
  CHECK(e["rejected"] == 0);
  CHECK(e["configured"] == true);
  CHECK(e["has_action"] == true);
  CHECK(e["backlog"] == 1);
  CHECK(e["oldest_pending_age_seconds"] == 2.0);
  CHECK(e["dead_lettered"] == 0);
  CHECK(e["unknown"] == 0);
  CHECK(e["completed"] == 1);
}

TEST_CASE("admin metrics: a closed store is an error, not an empty page", "[admin][metrics]") {
  Db db;
  db.store->Close();
  CHECK_FALSE(admin::RenderMetricsText(*db.store, *db.store, 0, {}).ok());
  CHECK_FALSE(admin::RenderStatsJson(*db.store, 0, {}, {}).ok());
}

TEST_CASE("admin metrics: events of an endpoint without an action are not backlog", "[admin][metrics]") {
  Db db;
  db.Claim("pay", "a", "received", 9'000);
  db.Claim("keep", "k1", "received", 1'000);  // kept for the audit: nothing will process it
  db.Claim("keep", "k2", "received", 2'000);
  db.Claim("keep", "k3", "dead_lettered", 2'000);
  auto text = admin::RenderMetricsText(*db.store, *db.store, 11'000, {"pay"});
  REQUIRE(text.ok());
  auto s = Samples(*text, "webhook_");
  CHECK(s["webhook_backlog{endpoint=\"pay\",provider=\"stripe\"}"] == "1");
  CHECK(s["webhook_oldest_pending_age_seconds{endpoint=\"pay\",provider=\"stripe\"}"] == "2");
  CHECK(s["webhook_backlog{endpoint=\"keep\",provider=\"stripe\"}"] == "0");
  CHECK(s["webhook_oldest_pending_age_seconds{endpoint=\"keep\",provider=\"stripe\"}"] == "0");
  CHECK(s["webhook_dead_lettered{endpoint=\"keep\",provider=\"stripe\"}"] == "1");  // still counted
  auto body = admin::RenderStatsJson(*db.store, 11'000, {"pay"}, {"pay", "keep"});
  REQUIRE(body.ok());
  auto j = nlohmann::json::parse(*body);
  REQUIRE(j["endpoints"].size() == 2);
  auto keep = j["endpoints"][0];
  REQUIRE(keep["endpoint"] == "keep");
  CHECK(keep["has_action"] == false);
  CHECK(keep["backlog"] == 0);
  CHECK(keep["oldest_pending_age_seconds"] == 0.0);
  CHECK(keep["received"] == 3);
  CHECK(j["endpoints"][1]["backlog"] == 1);
}

TEST_CASE("admin metrics: the stats JSON marks an endpoint no longer in the config", "[admin][metrics]") {
  Db db;
  db.Claim("pay", "a", "received", 1'000);
  db.Claim("gone", "g1", "completed", 1'000);  // stored before "gone" was removed from the config
  auto body = admin::RenderStatsJson(*db.store, 3'000, {"pay"}, {"pay"});
  REQUIRE(body.ok());
  auto j = nlohmann::json::parse(*body);
  REQUIRE(j["endpoints"].size() == 2);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& e : j["endpoints"]) rows[e["endpoint"].get<std::string>()] = e;
  CHECK(rows["pay"]["configured"] == true);
  CHECK(rows["gone"]["configured"] == false);
  CHECK(rows["gone"]["has_action"] == false);
  CHECK(rows["gone"]["completed"] == 1);  // its history still counts
}
