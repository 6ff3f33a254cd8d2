#include "store/sqlite_store.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <sqlite3.h>

#include <algorithm>

#include "store/audit_chain.h"
#include "store/database.h"
#include "store/sqlite_bind.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

int64_t InsertDelivery(SQLite::Database& db, const DeliveryRecord& d, int64_t inbox_id) {
  Prepared st(db,
              "INSERT INTO webhook_deliveries (received_at, remote_addr, method, path, provider, endpoint,"
              " tenant_id, event_id, event_type, inbox_id, outcome, http_status, reason, payload_hash,"
              " body_bytes, content_type, user_agent)"
              " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  st->bind(1, static_cast<int64_t>(d.received_at_ms));
  BindText(*st, 2, d.remote_addr);
  BindText(*st, 3, d.method);
  BindText(*st, 4, d.path);
  BindText(*st, 5, d.provider);
  BindText(*st, 6, d.endpoint);
  BindText(*st, 7, d.tenant_id);
  BindText(*st, 8, d.event_id);
  BindText(*st, 9, d.event_type);
  if (inbox_id > 0) {
    st->bind(10, static_cast<int64_t>(inbox_id));
  } else {
    st->bind(10);
  }
  st->bind(11, d.outcome);
  st->bind(12, d.http_status);
  BindText(*st, 13, d.reason);
  BindText(*st, 14, d.payload_hash);
  st->bind(15, static_cast<int64_t>(d.body_bytes));
  BindText(*st, 16, d.content_type);
  BindText(*st, 17, d.user_agent);
  st->exec();
  return db.getLastInsertRowid();
}

void InsertPayload(SQLite::Database& db, const NewEvent& e, int64_t inbox_id, int64_t delivery_id,
                   const char* kind) {
  Prepared st(db,
              "INSERT INTO webhook_payloads (inbox_id, delivery_id, kind, payload_hash, content_type,"
              " body, created_at) VALUES (?,?,?,?,?,?,?)");
  st->bind(1, static_cast<int64_t>(inbox_id));
  st->bind(2, static_cast<int64_t>(delivery_id));
  st->bind(3, kind);
  st->bind(4, e.payload_hash);
  BindText(*st, 5, e.content_type);
  st->bind(6, e.body.data(), static_cast<int>(e.body.size()));
  st->bind(7, static_cast<int64_t>(e.received_at_ms));
  st->exec();
}

// Binds the idempotency key (provider, endpoint, tenant_id, event_id) to parameters 1–4.
void BindKey(SQLite::Statement& st, const NewEvent& e) {
  st.bind(1, e.provider);
  st.bind(2, e.endpoint);
  st.bind(3, e.tenant_id);
  st.bind(4, e.event_id);
}

// The claim itself: one statement decides, under the UNIQUE index, whether
// this delivery owns the key. Returns the new row id, or 0 when the key exists.
int64_t InsertIfAbsent(SQLite::Database& db, const NewEvent& e) {
  Prepared st(db,
              "INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, event_type,"
              " payload_hash, received_at, next_attempt_at, business_key, business_key_hint, object_key,"
              " object_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
              " ON CONFLICT (provider, endpoint, tenant_id, event_id) DO NOTHING RETURNING id");
  BindKey(*st, e);
  BindText(*st, 5, e.event_type);
  st->bind(6, e.payload_hash);
  st->bind(7, static_cast<int64_t>(e.received_at_ms));
  st->bind(8, static_cast<int64_t>(e.received_at_ms));
  BindText(*st, 9, e.business_key);
  BindText(*st, 10, e.business_key_hint);
  BindText(*st, 11, e.object_key);
  if (e.object_key.empty()) {
    st->bind(12);
  } else {
    st->bind(12, static_cast<int64_t>(e.object_version));
  }
  int64_t id = st->executeStep() ? st->getColumn(0).getInt64() : 0;
  st->reset();
  return id;
}

struct Existing {
  int64_t id = 0;
  std::string status, payload_hash, result_ref;
};

Existing ReadExisting(SQLite::Database& db, const NewEvent& e) {
  Prepared st(db,
              "SELECT id, status, payload_hash, result_ref FROM webhook_inbox"
              " WHERE provider = ? AND endpoint = ? AND tenant_id = ? AND event_id = ?");
  BindKey(*st, e);
  Existing out;
  if (st->executeStep()) {
    out.id = st->getColumn(0).getInt64();
    out.status = st->getColumn(1).getString();
    out.payload_hash = st->getColumn(2).getString();
    out.result_ref = st->getColumn(3).getString();
  }
  return out;
}

// Decides the claim of one key; writes the inbox row when the key is new, nothing else.
ClaimResult ClaimKey(SQLite::Database& db, const NewEvent& e) {
  if (int64_t id = InsertIfAbsent(db, e); id > 0) return {ClaimOutcome::kAccepted, id, "received", "", 0};
  Existing old = ReadExisting(db, e);
  if (old.id == 0) throw SQLite::Exception("claim: key vanished between insert and read", SQLITE_INTERNAL);
  bool same = old.payload_hash == e.payload_hash;
  return {same ? ClaimOutcome::kDuplicate : ClaimOutcome::kConflict, old.id, old.status, old.result_ref, 0};
}

// Keeps the body a claim needs: a new event's original, and a conflict's body
// whole for investigation; a duplicate's body is the original's.
void KeepPayload(SQLite::Database& db, const NewEvent& e, const ClaimResult& r, int64_t delivery_id) {
  if (r.outcome == ClaimOutcome::kDuplicate) return;
  InsertPayload(db, e, r.inbox_id, delivery_id, r.outcome == ClaimOutcome::kAccepted ? "original" : "conflict");
}

ClaimResult ClaimInTransaction(SQLite::Database& db, const NewEvent& e, DeliveryRecord d) {
  ClaimResult r = ClaimKey(db, e);
  d.http_status = 200;
  d.outcome = ClaimOutcomeName(r.outcome);
  r.delivery_id = InsertDelivery(db, d, r.inbox_id);
  KeepPayload(db, e, r, r.delivery_id);
  return r;
}

// The delivery's outcome summarises its events: anything new makes it
// accepted; otherwise a conflict is what an auditor must see first.
ClaimOutcome BatchOutcome(const std::vector<ClaimResult>& results) {
  auto any = [&](ClaimOutcome o) {
    return std::any_of(results.begin(), results.end(), [o](const ClaimResult& r) { return r.outcome == o; });
  };
  if (any(ClaimOutcome::kAccepted)) return ClaimOutcome::kAccepted;
  return any(ClaimOutcome::kConflict) ? ClaimOutcome::kConflict : ClaimOutcome::kDuplicate;
}

void InsertDeliveryEvent(SQLite::Database& db, int64_t delivery_id, size_t position, const NewEvent& e,
                         const ClaimResult& r) {
  Prepared st(db,
              "INSERT INTO webhook_delivery_events (delivery_id, position, inbox_id, event_id, outcome)"
              " VALUES (?,?,?,?,?)");
  st->bind(1, static_cast<int64_t>(delivery_id));
  st->bind(2, static_cast<int64_t>(position));
  st->bind(3, static_cast<int64_t>(r.inbox_id));
  st->bind(4, e.event_id);
  st->bind(5, ClaimOutcomeName(r.outcome));
  st->exec();
}

std::vector<ClaimResult> ClaimBatchInTransaction(SQLite::Database& db, const std::vector<NewEvent>& events,
                                                 DeliveryRecord d) {
  std::vector<ClaimResult> results;
  results.reserve(events.size());
  for (const NewEvent& e : events) results.push_back(ClaimKey(db, e));
  d.http_status = 200;
  d.outcome = ClaimOutcomeName(BatchOutcome(results));
  int64_t delivery_id = InsertDelivery(db, d, 0);  // one row for the request; its events are listed apart
  for (size_t i = 0; i < events.size(); ++i) {
    results[i].delivery_id = delivery_id;
    KeepPayload(db, events[i], results[i], delivery_id);
    InsertDeliveryEvent(db, delivery_id, i, events[i], results[i]);
  }
  return results;
}


struct MinuteRows {
  int64_t count = 0;
  int64_t fold_id = 0;  // the row folding the rest of the minute, 0 when none yet
};

// Rows of one outcome from d's address in d's minute. `sql` names the outcome
// as a literal so SQLite can use that outcome's partial index.
MinuteRows CountMinute(SQLite::Database& db, const char* sql, const DeliveryRecord& d) {
  int64_t minute_start = d.received_at_ms - d.received_at_ms % 60000;
  Prepared rows(db, sql);
  rows->bind(1, kFloodReason);
  BindText(*rows, 2, d.remote_addr);
  rows->bind(3, static_cast<int64_t>(minute_start));
  rows->bind(4, static_cast<int64_t>(minute_start + 60000));
  rows->executeStep();
  return {rows->getColumn(0).getInt64(), rows->getColumn(1).isNull() ? 0 : rows->getColumn(1).getInt64()};
}

// Counts one more rejection on the folding row, unless the row is already
// sealed into the audit chain (its minute looked over): a sealed row never
// changes, so the caller starts a new folding row instead.
bool BumpFold(SQLite::Database& db, int64_t fold_id) {
  Prepared bump(db,
                "UPDATE webhook_deliveries SET request_count = request_count + 1 WHERE id = ?"
                " AND chain_seq IS NULL");
  bump->bind(1, static_cast<int64_t>(fold_id));
  return bump->exec() == 1;
}

// Rejections (and unauthenticated answers, outcome 'ignored') are counted
// from the table itself, inside the same transaction, so a rolled-back batch
// cannot leave a count or a folding row behind. An unsigned ping counts the
// address's rejections and pings of the minute (it is as cheap to send as
// junk); a rejection counts rejections only, so pings never hide one.
void RecordOrFold(SQLite::Database& db, DeliveryRecord d) {
  MinuteRows rows = CountMinute(db,
                                "SELECT count(*), max(CASE WHEN reason = ? THEN id END) FROM webhook_deliveries"
                                " WHERE outcome = 'rejected' AND remote_addr IS ? AND received_at >= ? AND received_at < ?",
                                d);
  if (d.outcome == "ignored") {
    MinuteRows ignored = CountMinute(db,
                                     "SELECT count(*), max(CASE WHEN reason = ? THEN id END) FROM webhook_deliveries"
                                     " WHERE outcome = 'ignored' AND remote_addr IS ? AND received_at >= ?"
                                     " AND received_at < ?",
                                     d);
    rows.count += ignored.count;
    if (rows.fold_id == 0) rows.fold_id = ignored.fold_id;
  }
  const int64_t count = rows.count;
  const int64_t fold_id = rows.fold_id;
  if (count < kRejectedRowsPerMinute) {
    InsertDelivery(db, d, 0);
  } else if (fold_id > 0 && BumpFold(db, fold_id)) {
    // counted on the folding row
  } else {
    // The first rejection over the limit: this row stands for the rest of the minute.
    d.reason = kFloodReason;
    d.event_id.clear();
    d.event_type.clear();
    InsertDelivery(db, d, 0);
  }
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const SqliteOptions& options) {
  auto db = OpenDatabase(options.path, OpenOptions{options.busy_timeout_ms, true});
  if (!db.ok()) return db.status();
  // The reader opens after the writer's connection has migrated the schema.
  auto reader = OpenDatabase(options.path, OpenOptions{options.busy_timeout_ms, false});
  if (!reader.ok()) return reader.status();
  // Every commit seals the audit rows it finalised (store/audit_chain.h).
  auto writer = std::make_unique<Writer>(
      std::move(db).value(), options.max_batch, [](SQLite::Database& db) { SealAuditRows(db, 0); },
      options.busy_timeout_ms);
  // An empty write seals what an older version (or a fold minute that ended
  // while nothing was written) left unsealed.
  if (Status st = writer->Submit([](SQLite::Database&) {}); !st.ok()) return st;
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(writer), std::move(reader).value()));
}

SqliteStore::~SqliteStore() { Close(); }

void SqliteStore::Close() {
  {
    std::lock_guard<std::mutex> lock(reader_mu_);
    reader_.reset();
  }
  writer_->Stop();
}

Result<ClaimResult> SqliteStore::Claim(const NewEvent& event, DeliveryRecord delivery) {
  ClaimResult result;
  Status st = writer_->Submit(
      [&](SQLite::Database& db) { result = ClaimInTransaction(db, event, delivery); });
  if (!st.ok()) return Status(st.code(), "claim: " + st.message());
  return result;
}

Result<std::vector<ClaimResult>> SqliteStore::ClaimBatch(const std::vector<NewEvent>& events,
                                                         DeliveryRecord delivery) {
  if (events.empty()) return InvalidArgument("claim: a batch needs at least one event");
  std::vector<ClaimResult> results;
  Status st = writer_->Submit(
      [&](SQLite::Database& db) { results = ClaimBatchInTransaction(db, events, delivery); });
  if (!st.ok()) return Status(st.code(), "claim: " + st.message());
  return results;
}

Status SqliteStore::RecordRejected(DeliveryRecord d) {
  d.outcome = "rejected";
  return writer_->Submit([&d](SQLite::Database& db) { RecordOrFold(db, d); });
}

Status SqliteStore::RecordUnverifiedAnswer(DeliveryRecord d) {
  d.outcome = "ignored";
  return writer_->Submit([&d](SQLite::Database& db) { RecordOrFold(db, d); });
}

Status SqliteStore::RecordIgnored(DeliveryRecord d) {
  d.outcome = "ignored";
  return writer_->Submit([&d](SQLite::Database& db) { InsertDelivery(db, d, 0); });
}

Status SqliteStore::CheckWritable() {
  // The probe below writes nothing, so it cannot see a full disk: the last
  // real write's fate says whether writes are failing (D9 of issue 8).
  if (auto failure = writer_->RecentStorageFailure()) {
    return Unavailable("storage: the last write failed: " + *failure);
  }
  return writer_->Submit([](SQLite::Database& db) {
    // Touches the schema so a broken or read-only file shows up, writes nothing.
    db.execAndGet("SELECT count(*) FROM sqlite_master");
  });
}

}  // namespace hookinbox::store
