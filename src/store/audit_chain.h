// store/audit_chain.h — the hash chains over the audit tables (schema.sql migration 6).
//
// Owns: the one definition of what a sealed audit row covers and how it is
// encoded, used by the writer (Seal, before every commit) and by the
// verifier (Verify, `hookinbox verify-audit`). Must not know: HTTP, config.
//
// What is covered. Two chains, one per table:
//   webhook_deliveries: id, received_at, remote_addr, method, path, provider,
//     endpoint, tenant_id, event_id, event_type, inbox_id, outcome,
//     http_status, reason, payload_hash, body_bytes, content_type, user_agent,
//     request_count — every column but chain_seq/row_hash themselves.
//   webhook_attempts: id, inbox_id, attempt, worker, started_at, finished_at,
//     outcome, http_status, exit_code, error, kind — likewise.
// Not covered: rows not yet sealed (an attempt still in flight, outcome NULL;
// a row folding this minute's flood of rejections, whose request_count still
// grows), other tables (inbox, payloads, effects, …: state, not audit), and
// columns a later migration adds unless kFormat is bumped with them.
//
// Encoding (kFormat "hookinbox-audit-v1"). Every field is length-prefixed, so
// no byte can move from one field to the next:
//   text(s)  = u64be(len(s)) ‖ s
//   value(v) = 'N'                         for NULL
//            | 'I' ‖ i64be(v)              for INTEGER
//            | 'R' ‖ text(%.17g of v)      for REAL (never written by hookinbox)
//            | 'T' ‖ text(v)               for TEXT
//            | 'B' ‖ text(v)               for BLOB
//   row      = text(kFormat) ‖ text(table) ‖ value(chain_seq) ‖ text(prev_hash)
//              ‖ for each covered column in the order above: text(name) ‖ value
//   row_hash = lowercase hex SHA-256(row)
// prev_hash is the previous sealed row's row_hash (64 '0' for chain_seq 1,
// or the last_hash of a purge checkpoint that covers the rows before).
//
// What it proves, and what not: an UPDATE or DELETE of a sealed row (with
// the sqlite3 CLI, say) breaks the chain at that row or the next one. The
// hashes are not keyed: someone who can write the file and rerun this code
// can rebuild every hash. Keep the head hash verify-audit prints (or a copy
// of the file) elsewhere to anchor it.
#pragma once


#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/sql/sql.h"

namespace hookinbox::store {

inline constexpr const char* kAuditFormat = "hookinbox-audit-v1";
inline constexpr const char* kDeliveriesTable = "webhook_deliveries";
inline constexpr const char* kAttemptsTable = "webhook_attempts";
// The reason of a webhook_deliveries row folding a minute's further rejections
// from one address (its request_count grows until the minute is over).
inline constexpr const char* kFloodReason = "flood: further rejections from this address this minute";
// The prev_hash of chain_seq 1.
inline const std::string kGenesisHash(64, '0');

// One column value as SQLite stored it.
struct AuditValue {
  enum class Type { kNull, kInteger, kReal, kText, kBlob };
  Type type = Type::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string bytes;  // kText, kBlob
};

// The covered columns of `table`, in encoding order; empty for another table.
const std::vector<std::string>& AuditColumns(const std::string& table);

// The canonical bytes of one row (layout above); `values` parallel to AuditColumns(table).
std::string EncodeAuditRow(const std::string& table, int64_t chain_seq, const std::string& prev_hash,
                           const std::vector<AuditValue>& values);

// Lowercase hex SHA-256 of EncodeAuditRow(...).
std::string AuditRowHash(const std::string& table, int64_t chain_seq, const std::string& prev_hash,
                         const std::vector<AuditValue>& values);

// Seals, in id order, up to `limit` final unsealed rows of each table, inside
// the caller's write transaction (the writer calls it before every COMMIT).
// `now_ms` (0 = only the table's newest received_at) decides when a folding
// row's minute is over. Throws sql::Error. Returns the rows sealed.
int64_t SealAuditRows(sql::Connection& db, int64_t now_ms, int limit = 5000);

// Records that `table`'s sealed rows with these chain_seqs are being removed
// by retention (call before deleting them, in the same transaction): one
// purge checkpoint per run of consecutive seqs, merged with adjacent ones.
// `seqs` sorted ascending, with their row_hash. Returns checkpoints written.
struct SealedRow {
  int64_t seq = 0;
  std::string hash;
};
int64_t CheckpointRemoved(sql::Connection& db, const std::string& table, const std::vector<SealedRow>& rows,
                          int64_t at_ms, int64_t purged_before_ms);

struct ChainReport {
  std::string table;
  int64_t sealed = 0;       // rows checked
  int64_t unsealed = 0;     // rows not yet sealed (in flight, current fold, or awaiting seal)
  int64_t purged = 0;       // rows removed by retention, per the checkpoints
  int64_t checkpoints = 0;  // purge checkpoints crossed
  int64_t head_seq = 0;
  std::string head_hash;    // the chain's last hash: note it to anchor this state
};

struct AuditReport {
  bool ok = false;
  std::string integrity;  // PRAGMA integrity_check's answer ("ok" when sound)
  std::string broken;     // "<table> rowid <n>" of the first broken row, "" when none
  std::string detail;     // why it is broken
  std::vector<ChainReport> chains;
};

// Runs PRAGMA integrity_check and walks both chains. Read-only. A Status
// error only when the file is not a hookinbox database with audit chains.
Result<AuditReport> VerifyAudit(sql::Connection& db);

}  // namespace hookinbox::store
