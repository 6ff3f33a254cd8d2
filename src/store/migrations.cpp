#include "store/migrations.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

extern const char kHookinboxSchemaSql[];  // generated from schema.sql

namespace hookinbox::store {
namespace {

constexpr std::string_view kMarker = "-- migration: ";

}  // namespace

std::string_view EmbeddedSchema() { return kHookinboxSchemaSql; }

Result<std::vector<Migration>> ParseMigrations(std::string_view text) {
  std::vector<Migration> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (line.substr(0, kMarker.size()) == kMarker) {
      int version = std::atoi(std::string(line.substr(kMarker.size())).c_str());
      if (version != static_cast<int>(out.size()) + 1) {
        return InvalidArgument("schema: migration " + std::string(line.substr(kMarker.size())) +
                               " out of order; expected " + std::to_string(out.size() + 1));
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

Status RefuseNewer(SQLite::Database& db, const std::vector<Migration>& migrations) {
  try {
    int current = db.execAndGet("PRAGMA user_version").getInt();
    int latest = migrations.empty() ? 0 : migrations.back().version;
    if (current <= latest) return Status::Ok();
    return InvalidArgument("database schema version " + std::to_string(current) +
                           " is newer than this binary understands (" + std::to_string(latest) + "); upgrade hookinbox");
  } catch (const SQLite::Exception& e) {
    return Unavailable(std::string("migrate: ") + e.what());
  }
}

Status Migrate(SQLite::Database& db, const std::vector<Migration>& migrations) {
  if (Status st = RefuseNewer(db, migrations); !st.ok()) return st;
  try {
    int current = db.execAndGet("PRAGMA user_version").getInt();
    for (const auto& m : migrations) {
      if (m.version <= current) continue;
      SQLite::Transaction txn(db, SQLite::TransactionBehavior::IMMEDIATE);
      db.exec(m.sql);
      db.exec("PRAGMA user_version = " + std::to_string(m.version));
      txn.commit();
    }
    return Status::Ok();
  } catch (const SQLite::Exception& e) {
    return Unavailable(std::string("migrate: ") + e.what());
  }
}

}  // namespace hookinbox::store
