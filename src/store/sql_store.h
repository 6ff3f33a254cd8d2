// store/sql_store.h — the Store on one SQLite file (the embedded default).
//
// Owns: the claim statement (one INSERT … ON CONFLICT DO NOTHING RETURNING —
// never SELECT-then-INSERT), payload rows and delivery-audit rows, all written
// through the single Writer (group commit). Also the WorkQueue: leases and
// transitions go through the same Writer; reads (NextDueAt, GetEvent,
// ListEvents) use a second, read-only connection. And the Ledger (effects and
// step results of the handler API), on the same Writer and reader. Knows
// nothing of HTTP.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "store/ledger.h"
#include "store/purge.h"
#include "store/reconcile.h"
#include "store/snapshot.h"
#include "store/stats.h"
#include "store/store.h"
#include "store/work_queue.h"
#include "store/sql/pool.h"
#include "store/writer.h"

namespace hookinbox::store {

struct SqliteOptions {
  std::string path;            // database file; created with its directory when absent
  int busy_timeout_ms = 5000;  // wait for another process's lock, then Unavailable
  int max_batch = 256;         // most operations in one commit
};

struct PostgresOptions {
  std::string url;             // libpq URL or keyword string (may hold a password: never logged)
  int busy_timeout_ms = 5000;  // how long a write waits for another replica's write lock, then Unavailable
  int max_batch = 256;         // most operations in one commit
  int pool_size = 4;           // connections: one for the writer, the rest for reads (at least one)
};

class SqlStore final : public Store, public WorkQueue, public Ledger {
 public:
  // Opens the file, applies migrations and starts the writer thread.
  static Result<std::unique_ptr<SqlStore>> Open(const SqliteOptions& options);
  // Connects to PostgreSQL, migrates its schema (one replica at a time) and
  // starts the writer thread. Several processes may open the same database.
  static Result<std::unique_ptr<SqlStore>> OpenPostgres(const PostgresOptions& options);
  ~SqlStore() override;

  Result<RecordedEvent> RecordEvent(const NewEvent& event, DeliveryRecord delivery) override;
  Result<std::vector<RecordedEvent>> RecordBatch(const std::vector<NewEvent>& events,
                                                 DeliveryRecord delivery) override;
  Status RecordRejected(DeliveryRecord delivery) override;
  Status RecordIgnored(DeliveryRecord delivery) override;
  Status RecordUnverifiedAnswer(DeliveryRecord delivery) override;
  Status CheckWritable() override;
  void Close() override;

  // WorkQueue (sql_work_queue.cpp, sql_event_queries.cpp).
  using WorkQueue::LeaseDue;  // the overload without running ids
  Result<std::optional<LeasedEvent>> LeaseDue(const std::string& owner, int64_t now_ms, int64_t lease_ms,
                                              const std::vector<std::string>& excluded_endpoints,
                                               const std::vector<int64_t>& running_ids) override;
  Result<std::optional<LeasedEvent>> LeaseDue(const LeaseRequest& request) override;
  Status RenewLease(int64_t id, const std::string& owner, int attempt, int64_t until_ms) override;
  Status Finish(const AttemptResult& result) override;
  Status FinishAndLease(const AttemptResult& result, const LeaseRequest& next,
                        std::optional<LeasedEvent>* claimed) override;
  Result<int> ReleaseLeases(const std::string& owner, int64_t now_ms) override;
  Result<std::optional<int64_t>> NextDueAt(const std::vector<std::string>& endpoints) override;
  Result<std::optional<int64_t>> NextDueAt() override;
  Status Replay(int64_t id, const std::string& actor, const std::string& note, int64_t now_ms) override;
  Status Resolve(int64_t id, const std::string& as, const std::string& result_ref, const std::string& note,
                 const std::string& actor, int64_t now_ms) override;
  Result<EventDetail> GetEvent(int64_t id, bool with_payload) override;
  Result<EventPage> ListEvents(const EventFilter& filter) override;
  // Conflicting deliveries, newest first (the admin API's queue).
  // Errors: InvalidArgument for a limit out of range.
  Result<ConflictPage> ListConflicts(const ConflictFilter& filter);

  // Ledger (sql_ledger.cpp): writes through the Writer, reads on the reader.
  Result<HandlerGrant> Authenticate(std::string_view token, int64_t now_ms) override;
  Result<EffectClaim> ClaimEffect(const HandlerGrant& grant, const std::string& key, int64_t now_ms) override;
  Status EndEffect(const HandlerGrant& grant, const std::string& key, EffectEnd end, const std::string& detail,
                   int64_t now_ms) override;
  Status PutStep(const HandlerGrant& grant, const std::string& name, const std::string& content_type,
                 const std::string& body, int64_t now_ms) override;
  Result<std::optional<StepResult>> GetStep(const HandlerGrant& grant, const std::string& name,
                                            int64_t now_ms) override;
  // An operator closes an effect marked 'unknown' (nobody may claim it until
  // then) as "done" (with external_ref) or "failed" (free to claim again),
  // with an audit row on its event (webhook_event_actions, action 'resolve',
  // the event's status unchanged, the note naming the effect). Errors:
  // InvalidArgument (bad tenant, key, `as` or sizes), NotFound (no such
  // effect), Conflict (it is not 'unknown'); nothing changed.
  Status ResolveEffect(const std::string& tenant, const std::string& key, const std::string& as,
                       const std::string& external_ref, const std::string& note, const std::string& actor,
                       int64_t now_ms);

  // Sorts provider-exported event ids of one endpoint and tenant (reconcile.h), on the reader.
  Result<ReconcileReport> Reconcile(const std::string& endpoint, const std::string& tenant,
                                    const std::vector<std::string>& ids);

  // Per-endpoint figures (stats.h) on the reader, one consistent snapshot (stats.cpp).
  Result<Stats> ReadStats(const StatsOptions& options);

  // Retention (purge.h): removes what `options` says has expired, one
  // bounded batch per writer transaction; a dry run only counts, on the reader.
  Result<PurgeReport> Purge(const PurgeOptions& options);

  // The database's wall clock in ms since the epoch (store/database_clock.h):
  // PostgreSQL's clock_timestamp(); SQLite's is this host's. Never waits for
  // a free reader: Unavailable while all are busy.
  Result<int64_t> ServerNowMs();

  // A self-contained SQLite copy of the whole store for an auditor
  // (store/snapshot.h): the file's online backup on SQLite, a row copy from
  // one snapshot on PostgreSQL. Errors as for WriteSnapshot.
  Status Snapshot(const std::string& out_path, const SnapshotOptions& options);
  // The database's size in bytes: on SQLite its file and WAL, on PostgreSQL
  // pg_database_size. Errors: Unavailable when it cannot be read.
  Result<int64_t> DatabaseBytes();

  sql::Backend backend() const { return sqlite_path_.empty() ? sql::Backend::kPostgres : sql::Backend::kSqlite; }

  Writer& writer() { return *writer_; }  // for fault-injection tests

 private:
  SqlStore(std::unique_ptr<Writer> writer, std::unique_ptr<sql::ConnectionPool> readers, std::string sqlite_path)
      : writer_(std::move(writer)), readers_(std::move(readers)), sqlite_path_(std::move(sqlite_path)) {}

  std::unique_ptr<Writer> writer_;
  std::unique_ptr<sql::ConnectionPool> readers_;  // closed by Close()
  const std::string sqlite_path_;                 // empty on PostgreSQL
};

}  // namespace hookinbox::store
