// Shared helpers for store tests: a fresh database file and a read connection.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <chrono>
#include <memory>
#include <thread>
#include <string>

#include "store/sqlite_store.h"
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
  std::string path = dir.File("data/hookinbox.db");
  std::unique_ptr<store::SqliteStore> store;

  StoreFixture() {
    auto opened = store::SqliteStore::Open({path, 2000, 64});
    REQUIRE(opened.ok());
    store = std::move(opened).value();
  }

  int64_t Count(const std::string& sql) const {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    return db.execAndGet(sql).getInt64();
  }
  std::string Text(const std::string& sql) const {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    return db.execAndGet(sql).getString();
  }
  // Writes over a second connection, behind the store's back (as a hand edit would).
  void Exec(const std::string& sql) const {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.setBusyTimeout(2000);
    db.exec(sql);
  }
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

inline int64_t StoreFixture::ClaimAt(store::NewEvent e, int64_t at) {
  e.received_at_ms = at;
  auto d = SampleDelivery();
  d.received_at_ms = at;
  auto r = store->Claim(e, d);
  REQUIRE(r.ok());
  return r->inbox_id;
}

}  // namespace hookinbox::testing
