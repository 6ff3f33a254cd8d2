// store/sql/sqlite_connection.h — sql::Connection over one SQLite connection (SQLiteCpp).
//
// Owns: the SQLite::Database, and the mapping of SQLite's result codes to
// sql::Failure. Opening, pragmas and migrations stay in store/database.cpp.
#pragma once

#include <SQLiteCpp/Database.h>

#include <memory>

#include "store/sql/sql.h"

namespace hookinbox::store::sql {

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(std::unique_ptr<SQLite::Database> db) : db_(std::move(db)) {}

  Backend backend() const override { return Backend::kSqlite; }
  std::unique_ptr<Statement> Prepare(const std::string& sql) override;
  int Exec(const std::string& sql) override;
  void Begin(TxnMode mode) override;
  void Commit() override;
  void Rollback() noexcept override;
  bool InTransaction() override;
  int64_t TotalChanges() override;

  // For what only SQLite has: busy timeouts, checkpoints, the backup API.
  SQLite::Database& database() { return *db_; }

 private:
  std::unique_ptr<SQLite::Database> db_;
};

// The sql::Error for an SQLite result code (extended codes welcome).
Error SqliteError(int code, const std::string& message);

// `connection`'s SQLite handle; throws Error (kOther) on another backend.
SQLite::Database& SqliteDatabase(Connection& connection);

}  // namespace hookinbox::store::sql
