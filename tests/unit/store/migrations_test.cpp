#include <catch2/catch.hpp>

#include "store/database.h"
#include "store/migrations.h"
#include "support/temp_dir.h"

using namespace hookinbox;
using namespace hookinbox::store;

TEST_CASE("migrations: schema.sql parses into consecutive numbered blocks", "[store]") {
  auto m = ParseMigrations(EmbeddedSchema());
  REQUIRE(m.ok());
  REQUIRE(!m->empty());
  for (size_t i = 0; i < m->size(); ++i) CHECK((*m)[i].version == static_cast<int>(i) + 1);
  CHECK((*m)[0].sql.find("CREATE TABLE webhook_inbox") != std::string::npos);
}

TEST_CASE("migrations: out-of-order or missing markers are refused", "[store]") {
  CHECK_FALSE(ParseMigrations("-- migration: 2\nCREATE TABLE t(x);\n").ok());
  CHECK_FALSE(ParseMigrations("CREATE TABLE t(x);\n").ok());
  CHECK_FALSE(ParseMigrations("-- migration: 1\nA;\n-- migration: 3\nB;\n").ok());
}

TEST_CASE("migrations: applied once; reopening changes nothing; the SPEC tables exist", "[store]") {
  testing::TempDir dir;
  std::string path = dir.File("h.db");
  auto migrations = ParseMigrations(EmbeddedSchema());
  REQUIRE(migrations.ok());
  {
    auto db = OpenDatabase(path, {});
    REQUIRE(db.ok());
    CHECK((*db)->execAndGet("PRAGMA user_version").getInt() == migrations->back().version);
  }
  auto again = OpenDatabase(path, {});
  REQUIRE(again.ok());
  auto& db = **again;
  CHECK(db.execAndGet("PRAGMA user_version").getInt() == migrations->back().version);
  for (const char* table : {"webhook_inbox", "webhook_payloads", "webhook_deliveries"}) {
    CHECK(db.tableExists(table));
  }
  for (const char* view : {"webhook_inbox_iso", "webhook_deliveries_iso", "webhook_payloads_iso"}) {
    CHECK(db.execAndGet(std::string("SELECT count(*) FROM sqlite_master WHERE type='view' AND name='") + view +
                        "'").getInt() == 1);
  }
  CHECK(db.execAndGet("PRAGMA foreign_keys").getInt() == 1);
}

TEST_CASE("database: the connection is WAL, synchronous=FULL, foreign keys on, with the busy timeout", "[store]") {
  testing::TempDir dir;
  auto db = OpenDatabase(dir.File("h.db"), {1234, true});
  REQUIRE(db.ok());
  CHECK((*db)->execAndGet("PRAGMA journal_mode").getString() == "wal");
  CHECK((*db)->execAndGet("PRAGMA synchronous").getInt() == 2);  // FULL
  CHECK((*db)->execAndGet("PRAGMA foreign_keys").getInt() == 1);
  CHECK((*db)->execAndGet("PRAGMA busy_timeout").getInt() == 1234);
}

TEST_CASE("migrations: a database from a newer binary is refused, not touched", "[store]") {
  testing::TempDir dir;
  std::string path = dir.File("h.db");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA user_version = 999");
  }
  auto db = OpenDatabase(path, {});
  REQUIRE_FALSE(db.ok());
  CHECK(db.status().message().find("newer") != std::string::npos);
}

TEST_CASE("migrations: the ISO views show times as ISO-8601 UTC", "[store]") {
  testing::TempDir dir;
  auto db = OpenDatabase(dir.File("h.db"), {});
  REQUIRE(db.ok());
  (*db)->exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, received_at)"
              " VALUES ('generic','e','default','x','h',1764511200123)");
  CHECK((*db)->execAndGet("SELECT received_at FROM webhook_inbox_iso").getString() == "2025-11-30T14:00:00.123Z");
}
