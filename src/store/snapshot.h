// store/snapshot.h — a consistent, self-contained copy of the live database
// for an auditor (`hookinbox backup`, the admin API's export.db).
//
// Owns: taking the copy while the server keeps writing (SQLite online backup
// from one read transaction on a fresh connection; from PostgreSQL, a copy
// of every row in one snapshot), leaving out payload bodies
// on request, and the `README` table inside the copy that explains each table
// and view. Knows nothing of HTTP or the CLI.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"
#include "store/sql/sql.h"

namespace hookinbox::store {

struct SnapshotOptions {
  bool with_payloads = true;  // false: webhook_payloads and step_results bodies are removed and the copy vacuumed
  // Asked between copy steps and once more before the copy is published;
  // true stops the snapshot with Unavailable ("snapshot: deadline passed"),
  // leaving nothing behind. Null: no deadline. (On PostgreSQL the row copy
  // itself runs to its end; the copy is then dropped.)
  std::function<bool()> past_deadline;
};

// The most a snapshot of a database of `db_bytes` may hold on disk at once
// beside its output: the copy; without payloads also the rollback journal
// of removing the bodies and the vacuumed rewrite (up to three copies).
int64_t SnapshotPeakBytes(int64_t db_bytes, const SnapshotOptions& options);

// Bytes an unprivileged process may still write in the file system holding
// `dir` (statvfs f_bavail). Unavailable naming `dir` when it cannot be asked.
Result<int64_t> FreeBytes(const std::string& dir);

// Consistent copy of the live database at db_path into out_path (created 0600; must not exist) while the server keeps writing.
// Errors: kConflict when out_path exists (it is left untouched); kUnavailable or kInternal when the database
// cannot be read or the copy cannot be written (no partial file is left behind). Safe to call from the server
// process: it opens its own read-only connection. Blocks for as long as the copy takes.
Status WriteSnapshot(const std::string& db_path, const std::string& out_path, const SnapshotOptions& options);

// The same self-contained SQLite file, made from a PostgreSQL store: the
// schema.sql tables filled row by row with their ids (store/copy.h) inside one
// REPEATABLE READ transaction on `postgres`, so the audit chains verify on it
// as on the database. Errors as for WriteSnapshot.
Status WriteSnapshotFrom(sql::Connection& postgres, const std::string& out_path, const SnapshotOptions& options);

}  // namespace hookinbox::store
