// store/copy.h — copy an SQLite installation into PostgreSQL, keeping ids
// and the audit history (`hookinbox migrate-to-postgres`); and a PostgreSQL
// store into a fresh SQLite file (the audit snapshot, store/snapshot.h).
//
// Every table of the schema is copied row by row with the same ids, chain
// sequence numbers and row hashes, so the audit chain verifies on the copy
// exactly as on the file, and ids in logs, exports and downstream
// references still name the same events. A row already in the target is
// overwritten by the source's (an upsert on its key), so running the copy
// again — after a failure, or to catch up with rows written since — ends
// with the same database. One transaction on the target: a failed copy
// leaves it as it was.
//
// The target must be migrated (SqlStore::OpenPostgres, or OpenPostgres
// with migrate) and must not be in use already: a target holding ids the
// source does not have is refused, since overwriting would lose its rows.
// Run it with every server stopped.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/sql/sql.h"

namespace hookinbox::store {

struct CopiedTable {
  std::string table;
  int64_t rows = 0;  // source rows copied (inserted or overwritten)
};

struct CopyReport {
  std::vector<CopiedTable> tables;  // in copy order
};

// Called after each table, for progress lines.
using CopyProgress = std::function<void(const CopiedTable&)>;

// Copies `from` into `to`, one SQLite and the other PostgreSQL, both migrated.
// Errors: InvalidArgument when `to` already holds other rows (named) or a
// value does not fit its column; Unavailable when either database is; the
// target is unchanged on error.
Result<CopyReport> CopyDatabase(sql::Connection& from, sql::Connection& to, const CopyProgress& progress);

}  // namespace hookinbox::store
