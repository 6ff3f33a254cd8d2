// store/database.h — opening the database the way durability needs it.
//
// Owns, for SQLite: file creation with mode 0600 (the WAL and shm files
// inherit it), the pragmas (WAL, synchronous=FULL, foreign_keys,
// busy_timeout); for PostgreSQL: the session settings (synchronous_commit
// on). For both: running the migrations. Every connection to the inbox is
// opened here.
#pragma once

#include <SQLiteCpp/Database.h>

#include <memory>
#include <string>

#include "common/status.h"
#include "store/sql/sql.h"

namespace hookinbox::store {

struct OpenOptions {
  int busy_timeout_ms = 5000;  // how long a statement waits for another process's lock
  bool migrate = true;         // apply pending migrations (the writer connection does)
};

// Opens (creating when absent, with its directory) the database at `path`.
// Errors: Unavailable with the path and SQLite's reason.
Result<std::unique_ptr<sql::Connection>> OpenDatabase(const std::string& path, const OpenOptions& options);

// A connection to PostgreSQL (a libpq URL or keyword string); `migrate`
// applies schema_postgres.sql's pending migrations (one replica at a time).
// Errors: Unavailable when the server cannot be reached (the message names
// it without the password).
Result<std::unique_ptr<sql::Connection>> OpenPostgres(const std::string& conninfo, bool migrate);

// Maps a SQLite error code to our Status: busy/locked/full/I/O/read-only are
// Unavailable (retry later), anything else Internal. `what` gives context.
Status FromSqlite(int sqlite_code, const std::string& what);

// The Status for a failed SQL call on either backend: Unavailable when the
// database is busy, full or unreachable (the caller may retry later), else
// Internal. `what` names the operation.
Status FromSql(const sql::Error& e, const std::string& what);

}  // namespace hookinbox::store
