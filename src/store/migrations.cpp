#include "store/migrations.h"

#include <algorithm>
#include <string>

#include "store/database.h"

extern const char kHookinboxSchemaSql[];          // generated from schema.sql
extern const char kHookinboxSchemaPostgresSql[];  // generated from schema_postgres.sql

namespace hookinbox::store {
namespace {

constexpr std::string_view kMarker = "-- migration: ";

// PostgreSQL has no user_version: the applied version is this table's one row.
// Every replica may start at once; an advisory lock held to the end of the
// migrating transaction lets one migrate while the others wait, then find it done.
constexpr const char* kPgVersionTable = "hookinbox_schema_version";
constexpr int64_t kPgMigrationLock = 0x686f6f6b;  // "hook"

int SchemaVersion(sql::Connection& db) {
  if (db.backend() == sql::Backend::kSqlite) return static_cast<int>(sql::QueryInt64(db, "PRAGMA user_version"));
  if (sql::QueryInt64(db, std::string("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
                                      " AND tablename = '") + kPgVersionTable + "'") == 0) {
    return 0;
  }
  return static_cast<int>(sql::QueryInt64(db, std::string("SELECT coalesce(max(version), 0) FROM ") + kPgVersionTable));
}

void SetSchemaVersion(sql::Connection& db, int version) {
  if (db.backend() == sql::Backend::kSqlite) {
    db.Exec("PRAGMA user_version = " + std::to_string(version));
    return;
  }
  db.Exec(std::string("CREATE TABLE IF NOT EXISTS ") + kPgVersionTable + " (version BIGINT NOT NULL)");
  db.Exec(std::string("DELETE FROM ") + kPgVersionTable);
  db.Exec(std::string("INSERT INTO ") + kPgVersionTable + " (version) VALUES (" + std::to_string(version) + ")");
}

Status CheckNotNewer(int current, const std::vector<Migration>& migrations) {
  int latest = migrations.empty() ? 0 : migrations.back().version;
  if (current <= latest) return Status::Ok();
  return InvalidArgument("database schema version " + std::to_string(current) +
                         " is newer than this binary understands (" + std::to_string(latest) + "); upgrade hookinbox");
}

}  // namespace

std::string_view EmbeddedSchema(sql::Backend backend) {
  return backend == sql::Backend::kPostgres ? kHookinboxSchemaPostgresSql : kHookinboxSchemaSql;
}

Result<std::vector<Migration>> ParseMigrations(std::string_view text) {
  std::vector<Migration> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (line.substr(0, kMarker.size()) == kMarker) {
      int version = std::atoi(std::string(line.substr(kMarker.size())).c_str());
      // The first block may start later than 1 (schema_postgres.sql starts
      // at the version SQLite had when PostgreSQL arrived); then one by one.
      const int expected = out.empty() ? std::max(version, 1) : out.back().version + 1;
      if (version != expected) {
        return InvalidArgument("schema: migration " + std::string(line.substr(kMarker.size())) +
                               " out of order; expected " + std::to_string(expected));
      }
      out.push_back({version, ""});
    } else if (!out.empty()) {
      out.back().sql.append(line);
      out.back().sql.push_back('\n');
    }
    pos = eol + 1;
  }
  if (out.empty()) return InvalidArgument("schema: no \"-- migration: N\" block");
  return out;
}

Status RefuseNewer(sql::Connection& db, const std::vector<Migration>& migrations) {
  try {
    return CheckNotNewer(SchemaVersion(db), migrations);
  } catch (const sql::Error& e) {
    return Unavailable(std::string("migrate: ") + e.what());
  }
}

Status Migrate(sql::Connection& db, const std::vector<Migration>& migrations) {
  try {
    if (Status st = CheckNotNewer(SchemaVersion(db), migrations); !st.ok()) return st;
    if (SchemaVersion(db) == migrations.back().version) return Status::Ok();  // the usual start
    const bool pg = db.backend() == sql::Backend::kPostgres;
    for (const auto& m : migrations) {
      sql::Transaction txn(db, sql::TxnMode::kWrite);
      if (pg) db.Exec("SELECT pg_advisory_xact_lock(" + std::to_string(kPgMigrationLock) + ")");
      const int current = SchemaVersion(db);
      if (Status st = CheckNotNewer(current, migrations); !st.ok()) return st;
      if (m.version <= current) continue;
      db.Exec(m.sql);
      SetSchemaVersion(db, m.version);
      txn.commit();
    }
    return Status::Ok();
  } catch (const sql::Error& e) {
    return Unavailable(std::string("migrate: ") + e.what());
  }
}

}  // namespace hookinbox::store
