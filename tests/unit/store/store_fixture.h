// Shared helpers for store tests: a fresh database and a side connection to it.
//
// The same tests run against both backends: with HOOKINBOX_TEST_PG_URL set (a
// libpq URL, as tests/support/pg_cluster.sh prints), each fixture gets a
// schema of its own in that PostgreSQL database; else a fresh SQLite file.
// Tests of what only SQLite has (its file, pragmas, the writer's lock waits)
// are tagged [sqlite], and the PostgreSQL run leaves them out.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "store/sql/sql.h"
#include "store/sql_store.h"
#include "support/backend.h"
#include "support/temp_dir.h"

namespace hookinbox::testing {

// Polls `condition` for up to 10 s; true when it held.
template <typename F>
bool PollUntilTrue(F condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

struct StoreFixture {
  TempDir dir;
  std::string path = dir.File("data/hookinbox.db");  // the SQLite file (unused on PostgreSQL)
  TestDatabase database{path};                         // where the store lives, on either backend
  std::unique_ptr<store::SqlStore> store;

  StoreFixture() { store = database.OpenStore(2000, 64); }

  bool postgres() const { return database.postgres(); }
  // A new connection to the store's database (read-write; the caller's own).
  std::unique_ptr<store::sql::Connection> Connect() const { return database.Connect(); }

  int64_t Count(const std::string& sql) const { return store::sql::QueryInt64(*Connect(), sql); }
  std::string Text(const std::string& sql) const { return store::sql::QueryText(*Connect(), sql); }
  // Writes over a second connection, behind the store's back (as a hand edit would).
  void Exec(const std::string& sql) const { Connect()->Exec(sql); }
  // The first column of every row of `select_one_column`, in the order the
  // query gives them (say ORDER BY), joined with `separator`; "" for no rows.
  // A NULL joins as "" (group_concat would leave it out: say what you mean).
  // Joined here, not in SQL: SQLite's group_concat and PostgreSQL's
  // string_agg differ, and neither promises an order without ORDER BY.
  std::string Joined(const std::string& select_one_column, const std::string& separator = ",") const;
  // Claims `e` with SampleDelivery(), both received at `at`; returns the inbox id.
  int64_t ClaimAt(store::NewEvent e, int64_t at);
};

inline store::NewEvent SampleEvent(const std::string& event_id, const std::string& hash = "h1",
                                   const std::string& body = R"({"id":"evt_1"})") {
  store::NewEvent e;
  e.provider = "generic";
  e.endpoint = "payments";
  e.tenant_id = "default";
  e.event_id = event_id;
  e.event_type = "invoice.paid";
  e.payload_hash = hash;
  e.content_type = "application/json";
  e.body = body;
  e.received_at_ms = 1764511200000;
  return e;
}

inline store::DeliveryRecord SampleDelivery() {
  store::DeliveryRecord d;
  d.received_at_ms = 1764511200000;
  d.remote_addr = "127.0.0.1";
  d.method = "POST";
  d.path = "/hooks/payments";
  d.endpoint = "payments";
  d.provider = "generic";
  d.tenant_id = "default";
  d.body_bytes = 14;
  return d;
}

inline std::string StoreFixture::Joined(const std::string& select_one_column, const std::string& separator) const {
  auto db = Connect();
  auto rows = db->Prepare(select_one_column);  // declared after db: destroyed before it
  std::string out;
  for (bool first = true; rows->executeStep(); first = false) {
    if (!first) out += separator;
    out += rows->getColumn(0).getString();
  }
  return out;
}

inline int64_t StoreFixture::ClaimAt(store::NewEvent e, int64_t at) {
  e.received_at_ms = at;
  auto d = SampleDelivery();
  d.received_at_ms = at;
  auto r = store->RecordEvent(e, d);
  REQUIRE(r.ok());
  return r->inbox_id;
}

}  // namespace hookinbox::testing
