#include "support/backend.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <catch2/catch.hpp>

#include <cstdlib>

#include "store/database.h"
#include "store/sql/pg_connection.h"
#include "store/sql/sqlite_connection.h"
#include "support/pg_schema.h"

namespace hookinbox::testing {
std::string TestPostgresUrl() {
  const char* url = std::getenv("HOOKINBOX_TEST_PG_URL");
  return url != nullptr ? url : "";
}

TestDatabase::TestDatabase(std::string sqlite_path) : sqlite_path_(std::move(sqlite_path)) {
  const std::string base = TestPostgresUrl();
  if (base.empty()) return;
  schema_ = UniqueSchemaName("t_");
  store::sql::PgConnection admin(base);
  admin.Exec("CREATE SCHEMA " + schema_);
  url_ = WithSearchPath(base, schema_);
}

TestDatabase::~TestDatabase() {
  if (schema_.empty()) return;
  try {
    store::sql::PgConnection admin(TestPostgresUrl());
    admin.Exec("DROP SCHEMA " + schema_ + " CASCADE");
  } catch (const std::exception&) {
    // A server gone at the end of a test leaves a schema behind, nothing worse.
  }
}

std::unique_ptr<store::SqlStore> TestDatabase::OpenStore(int busy_timeout_ms, int max_batch) const {
  auto opened = postgres() ? store::SqlStore::OpenPostgres({url_, busy_timeout_ms, max_batch})
                           : store::SqlStore::Open({sqlite_path_, busy_timeout_ms, max_batch});
  INFO(opened.status().message());
  REQUIRE(opened.ok());
  return std::move(opened).value();
}

int TestDatabase::CutPostgresSessions() const {
  if (!postgres()) return 0;
  store::sql::PgConnection admin(TestPostgresUrl());
  return static_cast<int>(store::sql::QueryInt64(
      admin, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '" + schema_ + "'"));
}

std::unique_ptr<store::sql::Connection> TestDatabase::Connect() const {
  if (postgres()) return std::make_unique<store::sql::PgConnection>(url_);
  auto db = std::make_unique<SQLite::Database>(sqlite_path_, SQLite::OPEN_READWRITE);
  db->setBusyTimeout(2000);
  return std::make_unique<store::sql::SqliteConnection>(std::move(db));
}

}  // namespace hookinbox::testing
