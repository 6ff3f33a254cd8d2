#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/database.h"
#include "store/migrations.h"
#include "store_fixture.h"
#include "support/temp_dir.h"

using namespace hookinbox;
using namespace hookinbox::store;

namespace {

// The schema version the store recorded: SQLite keeps it in the file's
// header (user_version), PostgreSQL, which has none, in a table of its own.
int64_t RecordedVersion(const testing::StoreFixture& f) {
  return f.postgres() ? f.Count("SELECT max(version) FROM hookinbox_schema_version") : f.Count("PRAGMA user_version");
}

int LatestVersion(const testing::StoreFixture& f) {
  auto m = ParseMigrations(EmbeddedSchema(f.postgres() ? sql::Backend::kPostgres : sql::Backend::kSqlite));
  REQUIRE(m.ok());
  return m->back().version;
}

}  // namespace

TEST_CASE("migrations: schema.sql parses into consecutive numbered blocks", "[store]") {
  auto m = ParseMigrations(EmbeddedSchema());
  REQUIRE(m.ok());
  REQUIRE(!m->empty());
  for (size_t i = 0; i < m->size(); ++i) CHECK((*m)[i].version == static_cast<int>(i) + 1);
  CHECK((*m)[0].sql.find("CREATE TABLE webhook_inbox") != std::string::npos);
}

TEST_CASE("migrations: schema_postgres.sql starts at the version SQLite had when it arrived, then follows it",
          "[store]") {
  // Both files gain each later migration under the same number.
  auto sqlite = ParseMigrations(EmbeddedSchema(sql::Backend::kSqlite));
  auto pg = ParseMigrations(EmbeddedSchema(sql::Backend::kPostgres));
  REQUIRE(sqlite.ok());
  REQUIRE(pg.ok());
  CHECK(pg->front().version == 6);
  CHECK(pg->back().version == sqlite->back().version);
  auto later_start = ParseMigrations("-- migration: 6\nA;\n-- migration: 7\nB;\n");
  REQUIRE(later_start.ok());
  CHECK(later_start->back().version == 7);
}

TEST_CASE("migrations: out-of-order or missing markers are refused", "[store]") {
  CHECK_FALSE(ParseMigrations("-- migration: 0\nCREATE TABLE t(x);\n").ok());
  CHECK_FALSE(ParseMigrations("-- migration: 2\nA;\n-- migration: 4\nB;\n").ok());
  CHECK_FALSE(ParseMigrations("CREATE TABLE t(x);\n").ok());
  CHECK_FALSE(ParseMigrations("-- migration: 1\nA;\n-- migration: 3\nB;\n").ok());
}

TEST_CASE("migrations: applied once; reopening changes nothing; the SPEC tables exist", "[store][sqlite]") {
  testing::TempDir dir;
  std::string path = dir.File("h.db");
  auto migrations = ParseMigrations(EmbeddedSchema());
  REQUIRE(migrations.ok());
  {
    auto db = OpenDatabase(path, {});
    REQUIRE(db.ok());
    CHECK(sql::QueryInt64(**db, "PRAGMA user_version") == migrations->back().version);
  }
  auto again = OpenDatabase(path, {});
  REQUIRE(again.ok());
  auto& db = **again;
  CHECK(sql::QueryInt64(db, "PRAGMA user_version") == migrations->back().version);
  for (const char* table : {"webhook_inbox", "webhook_payloads", "webhook_deliveries"}) {
    CHECK(sql::TableExists(db, table));
  }
  for (const char* view : {"webhook_inbox_iso", "webhook_deliveries_iso", "webhook_payloads_iso"}) {
    CHECK(sql::QueryInt64(db, std::string("SELECT count(*) FROM sqlite_master WHERE type='view' AND name='") + view +
                                  "'") == 1);
  }
  CHECK(sql::QueryInt64(db, "PRAGMA foreign_keys") == 1);
}

TEST_CASE("migrations: the store migrates its database once; reopening keeps version and rows; the SPEC tables exist",
          "[store]") {
  testing::StoreFixture f;
  const int latest = LatestVersion(f);
  CHECK(RecordedVersion(f) == latest);
  REQUIRE(f.store->RecordEvent(testing::SampleEvent("evt_1"), testing::SampleDelivery()).ok());
  f.store->Close();
  auto reopened = f.database.OpenStore(2000, 64);
  CHECK(RecordedVersion(f) == latest);
  if (f.postgres()) CHECK(f.Count("SELECT count(*) FROM hookinbox_schema_version") == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 1);
  auto db = f.Connect();
  for (const char* table : {"webhook_inbox", "webhook_payloads", "webhook_deliveries"}) {
    CHECK(sql::TableExists(*db, table));
  }
  for (const char* view : {"webhook_inbox_iso", "webhook_deliveries_iso", "webhook_payloads_iso"}) {
    INFO(view);
    CHECK(sql::QueryInt64(*db, std::string("SELECT count(*) FROM ") + view) == 1);
  }
}

TEST_CASE("migrations: the store refuses a database a newer binary migrated, and leaves it alone", "[store]") {
  testing::StoreFixture f;
  f.store->Close();
  f.Exec(f.postgres() ? "UPDATE hookinbox_schema_version SET version = 999" : "PRAGMA user_version = 999");
  auto opened = f.postgres() ? SqlStore::OpenPostgres({f.database.url(), 2000, 64})
                             : SqlStore::Open({f.path, 2000, 64});
  REQUIRE_FALSE(opened.ok());
  CHECK(opened.status().message().find("newer") != std::string::npos);
  CHECK(RecordedVersion(f) == 999);
}

TEST_CASE("database: the connection is WAL, synchronous=FULL, foreign keys on, with the busy timeout", "[store][sqlite]") {
  testing::TempDir dir;
  auto db = OpenDatabase(dir.File("h.db"), {1234, true});
  REQUIRE(db.ok());
  CHECK(sql::QueryText(**db, "PRAGMA journal_mode") == "wal");
  CHECK(sql::QueryInt64(**db, "PRAGMA synchronous") == 2);  // FULL
  CHECK(sql::QueryInt64(**db, "PRAGMA foreign_keys") == 1);
  CHECK(sql::QueryInt64(**db, "PRAGMA busy_timeout") == 1234);
}

TEST_CASE("migrations: a database from a newer binary is refused, not touched", "[store][sqlite]") {
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
  testing::StoreFixture f;
  f.Exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, received_at)"
         " VALUES ('generic','e','default','x','h',1764511200123)");
  CHECK(f.Text("SELECT received_at FROM webhook_inbox_iso") == "2025-11-30T14:00:00.123Z");
}
