// tests/support/backend.h — the database a test runs on: SQLite or PostgreSQL.
//
// HOOKINBOX_TEST_PG_URL (a libpq URL) selects PostgreSQL: each TestDatabase
// is then a schema of its own in that database, dropped at the end, so tests
// may run in parallel against one server. Unset, it is the SQLite file given.
#pragma once

#include <memory>
#include <string>

#include "store/sql/sql.h"
#include "store/sql_store.h"

namespace hookinbox::testing {

// The PostgreSQL URL of this test run, or "" for SQLite.
std::string TestPostgresUrl();

class TestDatabase {
 public:
  explicit TestDatabase(std::string sqlite_path);
  ~TestDatabase();  // drops the PostgreSQL schema
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  bool postgres() const { return !url_.empty(); }
  // What `storage` in a config names: the SQLite path, or the URL with this schema.
  const std::string& sqlite_path() const { return sqlite_path_; }
  const std::string& url() const { return url_; }

  // A store on this database (REQUIREs that it opens).
  std::unique_ptr<store::SqlStore> OpenStore(int busy_timeout_ms, int max_batch) const;
  // A new connection to it.
  std::unique_ptr<store::sql::Connection> Connect() const;
  // PostgreSQL: ends every session of this database's schema, as a server
  // restart would; the number ended. 0 on SQLite.
  int CutPostgresSessions() const;

 private:
  std::string sqlite_path_;
  std::string schema_;  // PostgreSQL only
  std::string url_;     // PostgreSQL only: the run's URL with search_path = schema_
};

}  // namespace hookinbox::testing
