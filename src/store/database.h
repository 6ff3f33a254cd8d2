// store/database.h — opening the SQLite file the way durability needs it.
//
// Owns: file creation with mode 0600 (the WAL and shm files inherit it), the
// pragmas (WAL, synchronous=FULL, foreign_keys, busy_timeout) and running the
// migrations. Every connection to the inbox file is opened here.
#pragma once

#include <SQLiteCpp/Database.h>

#include <memory>
#include <string>

#include "common/status.h"

namespace hookinbox::store {

struct OpenOptions {
  int busy_timeout_ms = 5000;  // how long a statement waits for another process's lock
  bool migrate = true;         // apply pending migrations (the writer connection does)
};

// Opens (creating when absent, with its directory) the database at `path`.
// Errors: Unavailable with the path and SQLite's reason.
Result<std::unique_ptr<SQLite::Database>> OpenDatabase(const std::string& path, const OpenOptions& options);

// Maps a SQLite error code to our Status: busy/locked/full/I/O/read-only are
// Unavailable (retry later), anything else Internal. `what` gives context.
Status FromSqlite(int sqlite_code, const std::string& what);

}  // namespace hookinbox::store
