// The audit chains: sealing (writer side) and walking (verifier side) share
// the column lists and the encoding below, so they cannot disagree.
#include "store/audit_chain.h"
#include "store/statement_cache.h"

#include <SQLiteCpp/SQLiteCpp.h>



#include <algorithm>
#include <cstdio>

#include "common/digest.h"

namespace hookinbox::store {
namespace {

void PutU64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

void PutText(std::string& out, const std::string& s) {
  PutU64(out, s.size());
  out += s;
}

void PutValue(std::string& out, const AuditValue& v) {
  switch (v.type) {
    case AuditValue::Type::kNull: out.push_back('N'); return;
    case AuditValue::Type::kInteger:
      out.push_back('I');
      PutU64(out, static_cast<uint64_t>(v.integer));
      return;
    case AuditValue::Type::kReal: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", v.real);
      out.push_back('R');
      PutText(out, buf);
      return;
    }
    case AuditValue::Type::kText: out.push_back('T'); PutText(out, v.bytes); return;
    case AuditValue::Type::kBlob: out.push_back('B'); PutText(out, v.bytes); return;
  }
}

AuditValue ReadValue(const sql::Column& c) {
  AuditValue v;
  switch (c.getType()) {
    case sql::Type::kInteger: v.type = AuditValue::Type::kInteger; v.integer = c.getInt64(); break;
    case sql::Type::kReal: v.type = AuditValue::Type::kReal; v.real = c.getDouble(); break;
    case sql::Type::kText: v.type = AuditValue::Type::kText; v.bytes = c.getString(); break;
    case sql::Type::kBlob: v.type = AuditValue::Type::kBlob; v.bytes = c.getString(); break;
    case sql::Type::kNull: break;
  }
  return v;
}

std::string ColumnList(const std::string& table) {
  std::string out;
  for (const auto& c : AuditColumns(table)) out += (out.empty() ? "" : ", ") + c;
  return out;
}

// The covered values of the current row of `st`, starting at column `first`.
std::vector<AuditValue> ReadValues(sql::Statement& st, const std::string& table, int first) {
  std::vector<AuditValue> values;
  const int n = static_cast<int>(AuditColumns(table).size());
  values.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) values.push_back(ReadValue(st.getColumn(first + i)));
  return values;
}

struct Head {
  int64_t seq = 0, row_id = 0;
  std::string hash = kGenesisHash;
  bool present = false;
};

Head ReadHead(sql::Connection& db, const std::string& table) {
  Prepared st(db, "SELECT seq, row_id, row_hash FROM audit_chain_heads WHERE table_name = ?");
  st->bind(1, table);
  Head h;
  if (st->executeStep()) {
    h = {st->getColumn(0).getInt64(), st->getColumn(1).getInt64(), st->getColumn(2).getString(), true};
  }
  return h;
}

// Which unsealed rows are final. A folding row is final once its minute (plus
// a few seconds for requests still being written) lies before `latest`;
// RecordOrFold never bumps a sealed row, so an early seal is safe anyway.
std::string FinalCondition(const std::string& table) {
  if (table == kAttemptsTable) return "outcome IS NOT NULL";
  return "(reason IS NULL OR reason <> ?2 OR received_at - received_at % 60000 + 65000 <= ?3)";
}

int64_t SealTable(sql::Connection& db, const std::string& table, int64_t now_ms, int limit) {
  Prepared rows(db, "SELECT id, " + ColumnList(table) + " FROM " + table +
                        " WHERE chain_seq IS NULL AND " + FinalCondition(table) + " ORDER BY id LIMIT ?1");
  rows->bind(1, limit);
  if (table == kDeliveriesTable) {
    Prepared max_received(db, "SELECT coalesce(max(received_at), 0) FROM webhook_deliveries");
    max_received->executeStep();
    const int64_t latest = max_received->getColumn(0).getInt64();
    rows->bind(2, kFloodReason);
    rows->bind(3, static_cast<int64_t>(std::max(latest, now_ms)));
  }
  Head head = ReadHead(db, table);
  Prepared seal(db, "UPDATE " + table + " SET chain_seq = ?, row_hash = ? WHERE id = ?");
  int64_t sealed = 0;
  while (rows->executeStep()) {
    const int64_t id = rows->getColumn(0).getInt64();
    const int64_t seq = head.seq + 1;
    std::string hash = AuditRowHash(table, seq, head.hash, ReadValues(*rows, table, 1));
    seal->bind(1, static_cast<int64_t>(seq));
    seal->bind(2, hash);
    seal->bind(3, static_cast<int64_t>(id));
    seal->exec();
    seal->reset();
    head = {seq, id, std::move(hash), true};
    ++sealed;
  }
  if (sealed > 0) {
    Prepared up(db,
                "INSERT INTO audit_chain_heads (table_name, seq, row_id, row_hash) VALUES (?,?,?,?)"
                " ON CONFLICT (table_name) DO UPDATE SET seq = excluded.seq, row_id = excluded.row_id,"
                " row_hash = excluded.row_hash");
    up->bind(1, table);
    up->bind(2, static_cast<int64_t>(head.seq));
    up->bind(3, static_cast<int64_t>(head.row_id));
    up->bind(4, head.hash);
    up->exec();
  }
  return sealed;
}

std::string Hash(sql::Connection& db, const std::string& table, int64_t seq) {
  Prepared st(db, "SELECT row_hash FROM " + table + " WHERE chain_seq = ?");
  st->bind(1, static_cast<int64_t>(seq));
  return st->executeStep() ? st->getColumn(0).getString() : std::string();
}

struct Range {
  int64_t id = 0, first = 0, last = 0, rows = 0, purged_before = 0;
  std::string prev, end;
};

// The purge checkpoint of `table` whose `column` (first_seq or last_seq) is `seq`; id 0 when none.
Range FindRange(sql::Connection& db, const std::string& table, const char* column, int64_t seq) {
  Prepared st(db, std::string("SELECT id, first_seq, last_seq, rows, coalesce(purged_before, 0),"
                              " coalesce(prev_hash, ''), coalesce(last_hash, '') FROM audit_checkpoints"
                              " WHERE kind = 'purge' AND table_name = ? AND ") +
                               column + " = ?");
  st->bind(1, table);
  st->bind(2, static_cast<int64_t>(seq));
  if (!st->executeStep()) return {};
  return {st->getColumn(0).getInt64(), st->getColumn(1).getInt64(), st->getColumn(2).getInt64(),
          st->getColumn(3).getInt64(), st->getColumn(4).getInt64(), st->getColumn(5).getString(),
          st->getColumn(6).getString()};
}

// One run [first, last] of removed seqs becomes one checkpoint, joined with
// the checkpoints that end just before it or start just after it, so a chain
// has one checkpoint per hole however many purges made it.
void CheckpointRun(sql::Connection& db, const std::string& table, Range run, int64_t at_ms) {
  run.prev = run.first == 1 ? kGenesisHash : Hash(db, table, run.first - 1);
  const Range before = FindRange(db, table, "last_seq", run.first - 1);
  const Range after = FindRange(db, table, "first_seq", run.last + 1);
  for (const Range* r : {&before, &after}) {
    if (r->id == 0) continue;
    run.rows += r->rows;
    run.purged_before = std::max(run.purged_before, r->purged_before);
    Prepared del(db, "DELETE FROM audit_checkpoints WHERE id = ?");
    del->bind(1, static_cast<int64_t>(r->id));
    del->exec();
  }
  if (before.id != 0) {
    run.first = before.first;
    run.prev = before.prev;
  }
  if (after.id != 0) {
    run.last = after.last;
    run.end = after.end;
  }
  Prepared ins(db,
               "INSERT INTO audit_checkpoints (table_name, kind, at, first_seq, last_seq, rows, prev_hash,"
               " last_hash, purged_before, note) VALUES (?, 'purge', ?, ?, ?, ?, ?, ?, ?,"
               " 'removed by retention (key_days)')");
  ins->bind(1, table);
  ins->bind(2, static_cast<int64_t>(at_ms));
  ins->bind(3, static_cast<int64_t>(run.first));
  ins->bind(4, static_cast<int64_t>(run.last));
  ins->bind(5, static_cast<int64_t>(run.rows));
  ins->bind(6, run.prev);
  ins->bind(7, run.end);
  ins->bind(8, static_cast<int64_t>(run.purged_before));
  ins->exec();
}

std::string Where(const std::string& table, int64_t id) { return table + " rowid " + std::to_string(id); }

struct Checkpoint {
  int64_t id = 0, first = 0, last = 0, rows = 0;
  std::string prev, end;
};

std::vector<Checkpoint> ReadCheckpoints(sql::Connection& db, const std::string& table) {
  Prepared st(db,
              "SELECT id, first_seq, last_seq, rows, coalesce(prev_hash, ''), coalesce(last_hash, '')"
              " FROM audit_checkpoints WHERE kind = 'purge' AND table_name = ? ORDER BY first_seq, id");
  st->bind(1, table);
  std::vector<Checkpoint> out;
  while (st->executeStep()) {
    out.push_back({st->getColumn(0).getInt64(), st->getColumn(1).getInt64(), st->getColumn(2).getInt64(),
                   st->getColumn(3).getInt64(), st->getColumn(4).getString(), st->getColumn(5).getString()});
  }
  return out;
}

// Walks one chain; fills `chain` and, at the first broken row, report.broken/detail.
class ChainWalk {
 public:
  ChainWalk(sql::Connection& db, const std::string& table, AuditReport& report, ChainReport& chain)
      : db_(db), table_(table), report_(report), chain_(chain), checkpoints_(ReadCheckpoints(db, table)) {}

  void Run() {
    Prepared rows(db_, "SELECT id, chain_seq, coalesce(row_hash, ''), " + ColumnList(table_) + " FROM " +
                                    table_ + " WHERE chain_seq IS NOT NULL ORDER BY chain_seq");
    while (rows->executeStep()) {
      const int64_t id = rows->getColumn(0).getInt64();
      const int64_t seq = rows->getColumn(1).getInt64();
      if (!CrossCheckpoints() || !Step(id, seq, rows->getColumn(2).getString(), ReadValues(*rows, table_, 3))) return;
    }
    if (!CrossCheckpoints()) return;
    CheckHead();
    if (report_.broken.empty() && next_cp_ < checkpoints_.size()) {
      Break("audit_checkpoints rowid " + std::to_string(checkpoints_[next_cp_].id),
            "purge checkpoint for " + table_ + " chain_seq " + std::to_string(checkpoints_[next_cp_].first) +
                " does not follow the chain (which ends at " + std::to_string(expected_ - 1) + ")");
    }
    chain_.unsealed = sql::QueryInt64(db_, "SELECT count(*) FROM " + table_ + " WHERE chain_seq IS NULL");
  }

 private:
  bool Break(std::string where, std::string why) {
    report_.broken = std::move(where);
    report_.detail = std::move(why);
    return false;
  }

  // Hops over the purge checkpoints that start where the chain stands.
  bool CrossCheckpoints() {
    while (next_cp_ < checkpoints_.size() && checkpoints_[next_cp_].first == expected_) {
      const Checkpoint& cp = checkpoints_[next_cp_++];
      if (cp.prev != running_ || cp.last < cp.first) {
        return Break("audit_checkpoints rowid " + std::to_string(cp.id),
                     "purge checkpoint does not continue the " + table_ + " chain at chain_seq " +
                         std::to_string(cp.first));
      }
      running_ = cp.end;
      expected_ = cp.last + 1;
      chain_.purged += cp.rows;
      ++chain_.checkpoints;
    }
    return true;
  }

  bool Step(int64_t id, int64_t seq, const std::string& stored, const std::vector<AuditValue>& values) {
    if (seq != expected_) {
      std::string why = seq > expected_ ? "chain_seq " + std::to_string(expected_) +
                                              (seq - 1 > expected_ ? "-" + std::to_string(seq - 1) : std::string()) +
                                              " before it is missing (row removed, no purge checkpoint)"
                                        : "chain_seq " + std::to_string(seq) + " appears twice";
      return Break(Where(table_, id), why);
    }
    std::string computed = AuditRowHash(table_, seq, running_, values);
    if (computed != stored) {
      return Break(Where(table_, id), "content does not match its row_hash (row edited, or the row before it in the "
                                      "chain was)");
    }
    running_ = std::move(computed);
    ++expected_;
    ++chain_.sealed;
    return true;
  }

  void CheckHead() {
    if (!report_.broken.empty()) return;
    Head head = ReadHead(db_, table_);
    chain_.head_seq = expected_ - 1;
    chain_.head_hash = running_;
    if (!head.present) {
      if (expected_ > 1) Break("audit_chain_heads", table_ + " has sealed rows but no chain head");
      return;
    }
    if (head.seq != expected_ - 1 || head.hash != running_) {
      Break(Where(table_, head.row_id), head.seq > expected_ - 1
                                            ? "missing: the chain head records it as the last sealed row (chain_seq " +
                                                  std::to_string(head.seq) + ")"
                                            : "the chain head does not match the chain's last row");
    }
  }

  sql::Connection& db_;
  const std::string table_;
  AuditReport& report_;
  ChainReport& chain_;
  std::vector<Checkpoint> checkpoints_;
  size_t next_cp_ = 0;
  int64_t expected_ = 1;
  std::string running_ = kGenesisHash;
};

}  // namespace

const std::vector<std::string>& AuditColumns(const std::string& table) {
  static const std::vector<std::string> deliveries = {
      "id",       "received_at", "remote_addr", "method",       "path",        "provider",   "endpoint",
      "tenant_id", "event_id",   "event_type",  "inbox_id",     "outcome",     "http_status", "reason",
      "payload_hash", "body_bytes", "content_type", "user_agent", "request_count"};
  static const std::vector<std::string> attempts = {"id",          "inbox_id", "attempt",     "worker",
                                                    "started_at",  "finished_at", "outcome", "http_status",
                                                    "exit_code",   "error",    "kind"};
  static const std::vector<std::string> none;
  if (table == kDeliveriesTable) return deliveries;
  if (table == kAttemptsTable) return attempts;
  return none;
}

std::string EncodeAuditRow(const std::string& table, int64_t chain_seq, const std::string& prev_hash,
                           const std::vector<AuditValue>& values) {
  const auto& columns = AuditColumns(table);
  std::string out;
  PutText(out, kAuditFormat);
  PutText(out, table);
  AuditValue seq;
  seq.type = AuditValue::Type::kInteger;
  seq.integer = chain_seq;
  PutValue(out, seq);
  PutText(out, prev_hash);
  for (size_t i = 0; i < columns.size(); ++i) {
    PutText(out, columns[i]);
    PutValue(out, i < values.size() ? values[i] : AuditValue{});
  }
  return out;
}

std::string AuditRowHash(const std::string& table, int64_t chain_seq, const std::string& prev_hash,
                         const std::vector<AuditValue>& values) {
  return Sha256Hex(EncodeAuditRow(table, chain_seq, prev_hash, values));
}

int64_t SealAuditRows(sql::Connection& db, int64_t now_ms, int limit) {
  return SealTable(db, kDeliveriesTable, now_ms, limit) + SealTable(db, kAttemptsTable, now_ms, limit);
}

int64_t CheckpointRemoved(sql::Connection& db, const std::string& table, const std::vector<SealedRow>& rows,
                          int64_t at_ms, int64_t purged_before_ms) {
  int64_t runs = 0;
  size_t i = 0;
  while (i < rows.size()) {
    size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1].seq == rows[j].seq + 1) ++j;
    Range run;
    run.first = rows[i].seq;
    run.last = rows[j].seq;
    run.rows = static_cast<int64_t>(j - i + 1);
    run.end = rows[j].hash;
    run.purged_before = purged_before_ms;
    CheckpointRun(db, table, std::move(run), at_ms);
    ++runs;
    i = j + 1;
  }
  return runs;
}

Result<AuditReport> VerifyAudit(sql::Connection& db) {
  try {
    if (!sql::TableExists(db, "audit_chain_heads")) {
      return InvalidArgument("no audit chain in this file (not a hookinbox database, or one older than schema 6)");
    }
    AuditReport report;
    // PostgreSQL checks its pages itself (checksums, WAL); SQLite's file is checked here.
    report.integrity = db.backend() == sql::Backend::kSqlite ? sql::QueryText(db, "PRAGMA integrity_check") : "ok";
    if (report.integrity != "ok") {
      report.broken = "database";
      report.detail = "PRAGMA integrity_check: " + report.integrity;
      return report;
    }
    for (const char* table : {kDeliveriesTable, kAttemptsTable}) {
      ChainReport chain;
      chain.table = table;
      report.chains.push_back(std::move(chain));
      ChainWalk(db, table, report, report.chains.back()).Run();
      if (!report.broken.empty()) return report;
    }
    report.ok = true;
    return report;
  } catch (const sql::Error& e) {
    return Internal(std::string("verify audit: ") + e.what());
  }
}

}  // namespace hookinbox::store
