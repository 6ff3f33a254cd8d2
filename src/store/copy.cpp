#include "store/copy.h"

#include <string_view>

#include "store/database.h"

namespace hookinbox::store {
namespace {

struct TableSpec {
  const char* name;
  const char* key;    // the upsert's conflict target
  bool identity_id;   // its id comes from a sequence the target must move past the copied ids
};

// Parents before children (foreign keys are checked per statement).
constexpr TableSpec kTables[] = {
    {"webhook_inbox", "id", true},
    {"webhook_deliveries", "id", true},
    {"webhook_payloads", "id", true},
    {"webhook_delivery_events", "delivery_id, position", false},
    {"webhook_attempts", "id", true},
    {"webhook_event_actions", "id", true},
    {"business_keys", "tenant_id, key_hash", false},
    {"object_versions", "endpoint, tenant_id, object_key", false},
    {"effects", "tenant_id, effect_key", false},
    {"step_results", "inbox_id, name", false},
    {"endpoint_states", "endpoint", false},
    {"endpoint_actions", "id", true},
    {"endpoint_key_specs", "id", true},
    {"alerts", "id", true},
    {"alert_notifications", "id", true},
    {"audit_chain_heads", "table_name", false},
    {"audit_checkpoints", "id", true},
};

std::vector<std::string> SourceColumns(sql::Connection& from, const std::string& table) {
  auto st = from.Prepare(from.backend() == sql::Backend::kSqlite
                             ? "SELECT name FROM pragma_table_info(?) ORDER BY cid"
                             : "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                               " AND table_name = ? ORDER BY ordinal_position");
  st->bind(1, table);
  std::vector<std::string> out;
  while (st->executeStep()) out.push_back(st->getColumn(0).getString());
  return out;
}

std::string UpsertSql(const TableSpec& t, const std::vector<std::string>& columns) {
  std::string names, values, updates;
  for (size_t i = 0; i < columns.size(); ++i) {
    names += (i ? ", " : "") + columns[i];
    values += i ? ", ?" : "?";
    updates += (i ? ", " : "") + columns[i] + " = excluded." + columns[i];
  }
  return std::string("INSERT INTO ") + t.name + " (" + names + ") VALUES (" + values + ") ON CONFLICT (" + t.key +
         ") DO UPDATE SET " + updates;
}

// Binds the value of `from`'s column `i` as parameter i + 1 of `to`, with its own type.
void CopyValue(sql::Statement& from, int i, sql::Statement& to) {
  sql::Column c = from.getColumn(i);
  switch (c.getType()) {
    case sql::Type::kNull: to.bind(i + 1); break;
    case sql::Type::kInteger: to.bind(i + 1, c.getInt64()); break;
    case sql::Type::kReal: to.bind(i + 1, c.getDouble()); break;
    case sql::Type::kText: to.bind(i + 1, c.getString()); break;
    case sql::Type::kBlob: to.bindBlob(i + 1, c.getString()); break;
  }
}

int64_t CopyTable(sql::Connection& from, sql::Connection& to, const TableSpec& t) {
  const auto columns = SourceColumns(from, t.name);
  if (columns.empty()) throw sql::Error(sql::Failure::kOther, 0, std::string("source has no table ") + t.name);
  std::string select = "SELECT ";
  for (size_t i = 0; i < columns.size(); ++i) select += (i ? ", " : "") + columns[i];
  auto rows = from.Prepare(select + " FROM " + t.name + " ORDER BY " + t.key);
  auto upsert = to.Prepare(UpsertSql(t, columns));
  int64_t n = 0;
  try {
    while (rows->executeStep()) {
      upsert->reset();
      for (int i = 0; i < static_cast<int>(columns.size()); ++i) CopyValue(*rows, i, *upsert);
      upsert->exec();
      ++n;
    }
  } catch (const sql::Error& e) {
    // Name the row: a value the source's typeless column let in may not fit PostgreSQL's.
    throw sql::Error(e.failure(), e.native_code(),
                     std::string(t.name) + " row " + std::to_string(n + 1) + " (by " + t.key + "): " + e.what());
  }
  if (t.identity_id && to.backend() == sql::Backend::kPostgres) {
    to.Exec(std::string("SELECT setval(pg_get_serial_sequence('") + t.name + "', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM " +
            t.name + "), false)");
  }
  return n;
}

// What makes a row the same row in both databases, beyond its id.
struct Identity {
  const char* table;
  const char* columns;
};
constexpr Identity kIdentities[] = {
    {"webhook_inbox", "provider, endpoint, tenant_id, event_id"},
    {"webhook_deliveries", "received_at, outcome, coalesce(payload_hash, '')"},
    {"webhook_attempts", "inbox_id, attempt, started_at"},
    {"endpoint_actions", "endpoint, at, actor, action"},
};

// A target holding any row the source does not have under the same id is in
// use (replicas wrote to it): refuse rather than overwrite its history. Rows
// of an earlier copy are the source's and pass. (The fresh target's own
// genesis checkpoints are replaced by the source's: CopyDatabase.)
Status CheckTarget(sql::Connection& from, sql::Connection& to) {
  for (const Identity& t : kIdentities) {
    auto theirs = to.Prepare(std::string("SELECT id, ") + t.columns + " FROM " + t.table + " ORDER BY id");
    auto ours = from.Prepare(std::string("SELECT ") + t.columns + " FROM " + t.table + " WHERE id = ?");
    while (theirs->executeStep()) {
      const int64_t id = theirs->getColumn(0).getInt64();
      ours->reset();
      ours->bind(1, id);
      bool same = ours->executeStep();
      for (int i = 0; same && i < theirs->getColumnCount() - 1; ++i) {
        same = ours->getColumn(i).getString() == theirs->getColumn(i + 1).getString();
      }
      if (!same) {
        return InvalidArgument(std::string("the target is in use: its ") + t.table + " row " + std::to_string(id) +
                               " is not the source's; refusing to overwrite it");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<CopyReport> CopyDatabase(sql::Connection& from, sql::Connection& to, const CopyProgress& progress) {
  if (from.backend() == to.backend()) return InvalidArgument("copy: between SQLite and PostgreSQL only");
  try {
    sql::Transaction read(from, sql::TxnMode::kRead);
    sql::Transaction write(to, sql::TxnMode::kWrite);
    if (Status st = CheckTarget(from, to); !st.ok()) return st;
    if (sql::QueryInt64(to, "SELECT count(*) FROM webhook_deliveries") == 0) {
      to.Exec("DELETE FROM audit_chain_heads; DELETE FROM audit_checkpoints");
    }
    CopyReport report;
    for (const TableSpec& t : kTables) {
      report.tables.push_back({t.name, CopyTable(from, to, t)});
      if (progress) progress(report.tables.back());
    }
    write.commit();
    return report;
  } catch (const sql::Error& e) {
    // A constraint or a type the target refused is the data's fault, not a bug.
    if (e.failure() == sql::Failure::kConstraint || e.failure() == sql::Failure::kOther) {
      return InvalidArgument(std::string("copy: ") + e.what());
    }
    return FromSql(e, "copy");
  }
}

}  // namespace hookinbox::store
