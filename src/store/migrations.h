// store/migrations.h — applying schema.sql with PRAGMA user_version.
//
// schema.sql (repo root) is embedded at build time; it is split into numbered
// blocks ("-- migration: N"). Opening a database applies every block newer
// than its user_version, each in its own transaction, so an upgrade never
// leaves a half-migrated file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

#include "store/sql/sql.h"

namespace hookinbox::store {

struct Migration {
  int version = 0;
  std::string sql;
};

// Splits schema text into migrations, in file order. InvalidArgument when the
// numbers do not run 1, 2, 3… (a broken edit of schema.sql).
Result<std::vector<Migration>> ParseMigrations(std::string_view schema_text);

// The embedded schema.sql.
std::string_view EmbeddedSchema(sql::Backend backend = sql::Backend::kSqlite);

// InvalidArgument when `db` was written by a newer binary (user_version above
// the last migration). Only reads the header, so a refused file is unchanged.
Status RefuseNewer(sql::Connection& db, const std::vector<Migration>& migrations);

// Applies the pending migrations of `migrations` to `db`. A database newer
// than the binary (user_version above the last migration) is refused.
Status Migrate(sql::Connection& db, const std::vector<Migration>& migrations);

}  // namespace hookinbox::store
