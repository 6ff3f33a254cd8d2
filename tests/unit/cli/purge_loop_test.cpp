// The purge thread `serve` runs (cli/purge.h), driven with a short interval:
// it applies [endpoint.retention] on its own and stops promptly.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <chrono>
#include <thread>

#include "cli/purge.h"
#include "store/sql_store.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

constexpr int64_t kT0 = 1764511200000;
constexpr int64_t kDay = 86400000;

int64_t Count(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  return db.execAndGet(sql).getInt64();
}

}  // namespace

TEST_CASE("purge loop: purges expired terminal events by itself and stops when asked", "[cli][purge]") {
  testing::TempDir dir;
  const std::string path = dir.File("data/hookinbox.db");
  auto opened = store::SqlStore::Open({path, 2000, 64});
  REQUIRE(opened.ok());
  auto& store = **opened;
  for (const char* id : {"evt_old", "evt_waiting"}) {
    store::NewEvent e;
    e.provider = "generic";
    e.endpoint = "demo";
    e.tenant_id = "default";
    e.event_id = id;
    e.payload_hash = id;
    e.body = "{}";
    e.received_at_ms = kT0;
    store::DeliveryRecord d;
    d.received_at_ms = kT0;
    d.endpoint = "demo";
    REQUIRE(store.RecordEvent(e, d).ok());
  }
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.setBusyTimeout(2000);
    db.exec("UPDATE webhook_inbox SET status = 'completed', next_attempt_at = NULL WHERE event_id = 'evt_old'");
  }
  config::Config config;
  config::EndpointConfig demo;
  demo.name = "demo";
  demo.retention.key_days = 7;
  config.endpoints.push_back(demo);
  REQUIRE(cli::HasRetention(config));
  FakeClock clock(kT0 + 30 * kDay);
  cli::PurgeLoop loop(store, config, clock, std::chrono::milliseconds(0), std::chrono::milliseconds(20));
  loop.Start();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Count(path, "SELECT count(*) FROM webhook_inbox") != 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  CHECK(Count(path, "SELECT count(*) FROM webhook_inbox WHERE event_id = 'evt_waiting'") == 1);  // received: kept
  CHECK(Count(path, "SELECT count(*) FROM webhook_inbox WHERE event_id = 'evt_old'") == 0);
  auto stop_started = std::chrono::steady_clock::now();
  loop.Stop();
  CHECK(std::chrono::steady_clock::now() - stop_started < std::chrono::seconds(2));
  config::Config none;
  none.endpoints.push_back(config::EndpointConfig{});
  CHECK_FALSE(cli::HasRetention(none));
}
