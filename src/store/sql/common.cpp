#include "store/sql/sql.h"

namespace hookinbox::store::sql {
namespace {

template <typename T, typename Read>
T QueryOne(Connection& connection, const std::string& sql, Read read) {
  auto st = connection.Prepare(sql);
  if (!st->executeStep()) throw Error(Failure::kOther, 0, "no row: " + sql);
  return read(st->getColumn(0));
}

}  // namespace

const char* BackendName(Backend b) { return b == Backend::kPostgres ? "postgres" : "sqlite"; }

int64_t QueryInt64(Connection& connection, const std::string& sql) {
  return QueryOne<int64_t>(connection, sql, [](Column c) { return c.getInt64(); });
}

std::string QueryText(Connection& connection, const std::string& sql) {
  return QueryOne<std::string>(connection, sql, [](Column c) { return c.getString(); });
}

bool TableExists(Connection& connection, const std::string& name) {
  auto st = connection.Prepare(connection.backend() == Backend::kSqlite
                                   ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
                                   : "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?");
  st->bind(1, name);
  return st->executeStep() && st->getColumn(0).getInt64() > 0;
}

}  // namespace hookinbox::store::sql
