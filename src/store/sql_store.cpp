#include "store/sql_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "store/audit_chain.h"
#include "store/database.h"
#include "store/fold_group.h"
#include "store/sql_bind.h"
#include "store/sql_reader.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

int64_t InsertDelivery(sql::Connection& db, const DeliveryRecord& d, int64_t inbox_id) {
  Prepared st(db,
              "INSERT INTO webhook_deliveries (received_at, remote_addr, method, path, provider, endpoint,"
              " tenant_id, event_id, event_type, inbox_id, outcome, http_status, reason, payload_hash,"
              " body_bytes, content_type, user_agent)"
              " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
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
  st->bind(11, std::string(ToSql(d.outcome)));
  st->bind(12, d.http_status);
  BindText(*st, 13, d.reason);
  BindText(*st, 14, d.payload_hash);
  st->bind(15, static_cast<int64_t>(d.body_bytes));
  BindText(*st, 16, d.content_type);
  BindText(*st, 17, d.user_agent);
  st->executeStep();
  return st->getColumn(0).getInt64();
}

void InsertPayload(sql::Connection& db, const NewEvent& e, int64_t inbox_id, int64_t delivery_id,
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
void BindKey(sql::Statement& st, const NewEvent& e) {
  st.bind(1, e.provider);
  st.bind(2, e.endpoint);
  st.bind(3, e.tenant_id);
  st.bind(4, e.event_id);
}

// The claim itself: one statement decides, under the UNIQUE index, whether
// this delivery owns the key. Returns the new row id, or 0 when the key exists.
int64_t InsertIfAbsent(sql::Connection& db, const NewEvent& e) {
  Prepared st(db,
              "INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, event_type,"
              " payload_hash, received_at, next_attempt_at, business_key, business_key_hint, object_key,"
              " object_version, key_spec) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
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
  BindText(*st, 13, e.key_spec);
  int64_t id = st->executeStep() ? st->getColumn(0).getInt64() : 0;
  st->reset();
  return id;
}

struct Existing {
  int64_t id = 0;
  EventStatus status = EventStatus::kReceived;
  std::string payload_hash, result_ref;
};

Existing ReadExisting(sql::Connection& db, const NewEvent& e) {
  Prepared st(db,
              "SELECT id, status, payload_hash, result_ref FROM webhook_inbox"
              " WHERE provider = ? AND endpoint = ? AND tenant_id = ? AND event_id = ?");
  BindKey(*st, e);
  Existing out;
  if (st->executeStep()) {
    out.id = st->getColumn(0).getInt64();
    out.status = EventStatusFromSql(st->getColumn(1).getString()).value_or(EventStatus::kUnknown);
    out.payload_hash = st->getColumn(2).getString();
    out.result_ref = st->getColumn(3).getString();
  }
  return out;
}

// Decides what becomes of one key; writes the inbox row when the key is new, nothing else.
RecordedEvent DecideKey(sql::Connection& db, const NewEvent& e) {
  if (int64_t id = InsertIfAbsent(db, e); id > 0) return {DeliveryOutcome::kAccepted, id, EventStatus::kReceived, "", 0};
  Existing old = ReadExisting(db, e);
  if (old.id == 0) throw sql::Error(sql::Failure::kOther, 0, "claim: key vanished between insert and read");
  bool same = old.payload_hash == e.payload_hash;
  return {same ? DeliveryOutcome::kDuplicate : DeliveryOutcome::kConflict, old.id, old.status, old.result_ref, 0};
}

// Keeps the body a recorded event needs: a new event's original, and a conflict's body
// whole for investigation; a duplicate's body is the original's.
void KeepPayload(sql::Connection& db, const NewEvent& e, const RecordedEvent& r, int64_t delivery_id) {
  if (r.outcome == DeliveryOutcome::kDuplicate) return;
  InsertPayload(db, e, r.inbox_id, delivery_id, r.outcome == DeliveryOutcome::kAccepted ? "original" : "conflict");
}

// One delivery of one event: its key decided, its delivery row and its body.
RecordedEvent RecordEventInTransaction(sql::Connection& db, const NewEvent& e, DeliveryRecord d) {
  RecordedEvent r = DecideKey(db, e);
  // 200, or the status a provider's own answer uses for both outcomes, set
  // by the receive path (MoMo's 204; SPEC §10).
  if (d.http_status == 0) d.http_status = 200;
  d.outcome = r.outcome;
  r.delivery_id = InsertDelivery(db, d, r.inbox_id);
  KeepPayload(db, e, r, r.delivery_id);
  return r;
}

void InsertDeliveryEvent(sql::Connection& db, int64_t delivery_id, size_t position, const NewEvent& e,
                         const RecordedEvent& r) {
  Prepared st(db,
              "INSERT INTO webhook_delivery_events (delivery_id, position, inbox_id, event_id, outcome)"
              " VALUES (?,?,?,?,?)");
  st->bind(1, static_cast<int64_t>(delivery_id));
  st->bind(2, static_cast<int64_t>(position));
  st->bind(3, static_cast<int64_t>(r.inbox_id));
  st->bind(4, e.event_id);
  st->bind(5, std::string(ToSql(r.outcome)));
  st->exec();
}

std::vector<RecordedEvent> RecordBatchInTransaction(sql::Connection& db, const std::vector<NewEvent>& events,
                                                    DeliveryRecord d) {
  std::vector<RecordedEvent> results;
  results.reserve(events.size());
  for (const NewEvent& e : events) results.push_back(DecideKey(db, e));
  d.http_status = 200;
  d.outcome = BatchOutcome(results);
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

// Rows of one outcome from the /64 of d's IPv6 address in d's minute (store/fold_group.h).
// The rows whose text may belong to the /64 are read and each is checked.
// On SQLite each text prefix is a range of the (remote_addr, received_at)
// index; PostgreSQL compares text by the database's collation, in which a
// range is not a prefix, so there it is LIKE.
MinuteRows CountMinuteOfSlash64(sql::Connection& db, DeliveryOutcome outcome, const DeliveryRecord& d,
                                const Slash64& net) {
  const int64_t minute_start = d.received_at_ms - d.received_at_ms % 60000;
  const std::vector<std::string> prefixes = Slash64Prefixes(net);
  const bool postgres = db.backend() == sql::Backend::kPostgres;
  // Parameters ?3 on, one per prefix on PostgreSQL, two (its range) on SQLite.
  std::vector<std::string> values;
  std::string sql = std::string("SELECT remote_addr, id, reason FROM webhook_deliveries WHERE outcome = '") + std::string(ToSql(outcome)) +
                    "' AND received_at >= ?1 AND received_at < ?2 AND (";
  for (size_t i = 0; i < prefixes.size(); ++i) {
    if (i > 0) sql += " OR ";
    if (postgres) {
      values.push_back(prefixes[i] + "%");
      sql += "remote_addr LIKE ?" + std::to_string(2 + values.size());
      continue;
    }
    std::string upper = prefixes[i];
    upper.back() = static_cast<char>(upper.back() + 1);  // ':' → ';': just past every text with this prefix
    values.push_back(prefixes[i]);
    sql += "(remote_addr >= ?" + std::to_string(2 + values.size());
    values.push_back(upper);
    sql += " AND remote_addr < ?" + std::to_string(2 + values.size()) + ")";
  }
  Prepared rows(db, sql + ")");
  rows->bind(1, static_cast<int64_t>(minute_start));
  rows->bind(2, static_cast<int64_t>(minute_start + 60000));
  for (size_t i = 0; i < values.size(); ++i) rows->bind(static_cast<int>(3 + i), values[i]);
  MinuteRows out;
  while (rows->executeStep()) {
    if (Slash64Of(rows->getColumn(0).getString()) != net) continue;
    ++out.count;
    if (!rows->getColumn(2).isNull() && rows->getColumn(2).getString() == kFloodReason) {
      out.fold_id = std::max(out.fold_id, rows->getColumn(1).getInt64());
    }
  }
  return out;
}

// Rows of one outcome from d's address (IPv6: its /64) in d's minute. The
// outcome is a literal so SQLite can use that outcome's partial index; the
// address is compared with = (or IS NULL when there is none) so both
// databases use the (remote_addr, received_at) index — PostgreSQL has no `IS ?`.
MinuteRows CountMinute(sql::Connection& db, DeliveryOutcome outcome, const DeliveryRecord& d) {
  if (auto net = Slash64Of(d.remote_addr)) return CountMinuteOfSlash64(db, outcome, d, *net);
  const int64_t minute_start = d.received_at_ms - d.received_at_ms % 60000;
  const bool has_addr = !d.remote_addr.empty();
  Prepared rows(db, std::string("SELECT count(*), max(CASE WHEN reason = ?1 THEN id END) FROM webhook_deliveries"
                                " WHERE outcome = '") +
                        std::string(ToSql(outcome)) + "' AND received_at >= ?2 AND received_at < ?3 AND remote_addr " +
                        (has_addr ? "= ?4" : "IS NULL"));
  rows->bind(1, kFloodReason);
  rows->bind(2, static_cast<int64_t>(minute_start));
  rows->bind(3, static_cast<int64_t>(minute_start + 60000));
  if (has_addr) rows->bind(4, d.remote_addr);
  rows->executeStep();
  return {rows->getColumn(0).getInt64(), rows->getColumn(1).isNull() ? 0 : rows->getColumn(1).getInt64()};
}

// Counts one more rejection on the folding row, unless the row is already
// sealed into the audit chain (its minute looked over): a sealed row never
// changes, so the caller starts a new folding row instead.
bool BumpFold(sql::Connection& db, int64_t fold_id) {
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
void RecordOrFold(sql::Connection& db, DeliveryRecord d) {
  MinuteRows rows = CountMinute(db, DeliveryOutcome::kRejected, d);
  if (d.outcome == DeliveryOutcome::kIgnored) {
    MinuteRows ignored = CountMinute(db, DeliveryOutcome::kIgnored, d);
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

// The writer and the store around it, once both connections are open.
Result<std::unique_ptr<Writer>> StartWriter(std::unique_ptr<sql::Connection> db, int max_batch, int busy_timeout_ms,
                                            Writer::Reconnect reconnect) {
  // Every commit seals the audit rows it finalised (store/audit_chain.h).
  auto writer = std::make_unique<Writer>(std::move(db), max_batch,
                                         [](sql::Connection& db) { SealAuditRows(db, 0); }, busy_timeout_ms,
                                         std::move(reconnect));
  // An empty write seals what an older version (or a fold minute that ended
  // while nothing was written) left unsealed.
  if (Status st = writer->Submit([](sql::Connection&) {}); !st.ok()) return st;
  return writer;
}

}  // namespace

Result<std::unique_ptr<SqlStore>> SqlStore::Open(const SqliteOptions& options) {
  auto db = OpenDatabase(options.path, OpenOptions{options.busy_timeout_ms, true});
  if (!db.ok()) return db.status();
  // The reader opens after the writer's connection has migrated the schema.
  auto reader = OpenDatabase(options.path, OpenOptions{options.busy_timeout_ms, false});
  if (!reader.ok()) return reader.status();
  auto writer = StartWriter(std::move(db).value(), options.max_batch, options.busy_timeout_ms, nullptr);
  if (!writer.ok()) return writer.status();
  // One reader: SQLite reads do not wait for the writer (WAL), and one
  // connection keeps the file's lock story simple (database.cpp).
  auto readers = std::make_unique<sql::ConnectionPool>(nullptr, 1, std::move(reader).value());
  return std::unique_ptr<SqlStore>(new SqlStore(std::move(writer).value(), std::move(readers), options.path));
}

Result<std::unique_ptr<SqlStore>> SqlStore::OpenPostgres(const PostgresOptions& options) {
  auto db = store::OpenPostgres(options.url, true);
  if (!db.ok()) return db.status();
  // A connection lost to a server restart is replaced on next use, the
  // writer's as the readers'.
  const std::string url = options.url;
  sql::ConnectionPool::Factory connect = [url]() -> std::unique_ptr<sql::Connection> {
    auto c = store::OpenPostgres(url, false);
    if (!c.ok()) throw sql::Error(sql::Failure::kUnavailable, 0, c.status().message());
    return std::move(c).value();
  };
  auto writer = StartWriter(std::move(db).value(), options.max_batch, options.busy_timeout_ms, connect);
  if (!writer.ok()) return writer.status();
  const size_t readers = static_cast<size_t>(std::max(options.pool_size - 1, 1));
  return std::unique_ptr<SqlStore>(
      new SqlStore(std::move(writer).value(), std::make_unique<sql::ConnectionPool>(connect, readers, nullptr), ""));
}

SqlStore::~SqlStore() { Close(); }

void SqlStore::Close() {
  readers_->Close();
  writer_->Stop();
}

Result<int64_t> SqlStore::ServerNowMs() {
  // Never waits for a reader: the clock asks from request and worker
  // threads, and keeps its last reading when every connection is busy.
  try {
    auto connection = readers_->TryAcquire();
    if (!connection) return Unavailable("server clock: every reader is busy");
    return sql::QueryInt64(**connection, (*connection)->backend() == sql::Backend::kPostgres
                                             ? "SELECT CAST(floor(extract(epoch FROM clock_timestamp()) * 1000) AS BIGINT)"
                                             : "SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)");
  } catch (const sql::Error& e) {
    return FromSql(e, "server clock");
  }
}

Status SqlStore::Snapshot(const std::string& out_path, const SnapshotOptions& options) {
  if (backend() == sql::Backend::kSqlite) return WriteSnapshot(sqlite_path_, out_path, options);
  try {
    auto connection = readers_->Acquire();
    return WriteSnapshotFrom(*connection, out_path, options);
  } catch (const sql::Error& e) {
    return FromSql(e, "snapshot");
  }
}

Result<int64_t> SqlStore::DatabaseBytes() {
  if (backend() == sql::Backend::kSqlite) {
    struct stat db {};
    if (::stat(sqlite_path_.c_str(), &db) != 0) {
      return Unavailable("cannot stat " + sqlite_path_ + ": " + std::strerror(errno));
    }
    struct stat wal {};
    const int64_t wal_bytes = ::stat((sqlite_path_ + "-wal").c_str(), &wal) == 0 ? wal.st_size : 0;
    return static_cast<int64_t>(db.st_size) + wal_bytes;
  }
  try {
    auto connection = readers_->Acquire();
    return sql::QueryInt64(*connection, "SELECT pg_database_size(current_database())");
  } catch (const sql::Error& e) {
    return FromSql(e, "database size");
  }
}

Result<RecordedEvent> SqlStore::RecordEvent(const NewEvent& event, DeliveryRecord delivery) {
  RecordedEvent result;
  Status st = writer_->Submit(
      [&](sql::Connection& db) { result = RecordEventInTransaction(db, event, delivery); });
  if (!st.ok()) return Status(st.code(), "claim: " + st.message());
  return result;
}

Result<std::vector<RecordedEvent>> SqlStore::RecordBatch(const std::vector<NewEvent>& events,
                                                         DeliveryRecord delivery) {
  if (events.empty()) return InvalidArgument("claim: a batch needs at least one event");
  std::vector<RecordedEvent> results;
  Status st = writer_->Submit(
      [&](sql::Connection& db) { results = RecordBatchInTransaction(db, events, delivery); });
  if (!st.ok()) return Status(st.code(), "claim: " + st.message());
  return results;
}

Status SqlStore::RecordRejected(DeliveryRecord d) {
  d.outcome = DeliveryOutcome::kRejected;
  return writer_->Submit([&d](sql::Connection& db) { RecordOrFold(db, d); });
}

Status SqlStore::RecordUnverifiedAnswer(DeliveryRecord d) {
  d.outcome = DeliveryOutcome::kIgnored;
  return writer_->Submit([&d](sql::Connection& db) { RecordOrFold(db, d); });
}

Status SqlStore::RecordIgnored(DeliveryRecord d) {
  d.outcome = DeliveryOutcome::kIgnored;
  return writer_->Submit([&d](sql::Connection& db) { InsertDelivery(db, d, 0); });
}

Status SqlStore::CheckWritable() {
  // What the writer saw of its own commits: no probe is queued behind real
  // work, nor waits out a held lock (store/writer.h).
  return writer_->Health();
}

}  // namespace hookinbox::store
