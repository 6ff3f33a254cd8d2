// store/sql_store.h — the store on SQLite (one file, the embedded default)
// or PostgreSQL (shared by replicas), behind every store interface: the door
// (ingest.h), the work queue (work_queue.h), and what the admin listener uses
// (admin_store.h: the ledger, the operator's queries, maintenance, endpoint states, incidents),
// and the key-derivation guard (key_specs.h).
//
// Owns: the single Writer (group commit) every write goes through — the
// door's one INSERT … ON CONFLICT DO NOTHING RETURNING (never
// SELECT-then-INSERT), payload and delivery-audit rows, leases and
// transitions, the ledger's writes, purge batches — and a pool of read-only
// connections for the reads. Each section below names the files its
// methods live in.
// Knows nothing of HTTP.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "store/admin_store.h"
#include "store/alert_signals.h"
#include "store/sql/pool.h"
#include "store/ingest.h"
#include "store/key_specs.h"
#include "store/work_queue.h"
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

class SqlStore final : public Ingest, public WorkQueue, public AdminStore, public AlertSignals, public KeySpecs {
 public:
  // Opens the file, applies migrations and starts the writer thread.
  static Result<std::unique_ptr<SqlStore>> Open(const SqliteOptions& options);
  // Connects to PostgreSQL, migrates its schema (one replica at a time) and
  // starts the writer thread. Several processes may open the same database.
  static Result<std::unique_ptr<SqlStore>> OpenPostgres(const PostgresOptions& options);
  ~SqlStore() override;

  // Ingest, the door (sql_store.cpp).
  Result<RecordedEvent> RecordEvent(const NewEvent& event, DeliveryRecord delivery) override;
  Result<std::vector<RecordedEvent>> RecordBatch(const std::vector<NewEvent>& events,
                                                 DeliveryRecord delivery) override;
  Status RecordRejected(DeliveryRecord delivery) override;
  Status RecordIgnored(DeliveryRecord delivery) override;
  Status RecordUnverifiedAnswer(DeliveryRecord delivery) override;
  Status CheckWritable() override;
  void Close() override;

  // WorkQueue (sql_work_queue.cpp with due_search.cpp; NextDueAt in sql_event_queries.cpp).
  using WorkQueue::LeaseDue;  // the overload without running ids
  Result<std::optional<LeasedEvent>> LeaseDue(const std::string& owner, int64_t now_ms, int64_t lease_ms,
                                              const std::vector<std::string>& excluded_endpoints,
                                               const std::vector<int64_t>& running_ids) override;
  Result<std::optional<LeasedEvent>> LeaseDue(const LeaseRequest& request) override;
  Status RenewLease(int64_t id, const std::string& owner, int attempt, int64_t until_ms) override;
  Status HandOver(int64_t id, const std::string& owner, int attempt, int64_t until_ms) override;  // sql_handler_attempt.cpp
  Status Finish(const AttemptResult& result) override;
  Status FinishAndLease(const AttemptResult& result, const LeaseRequest& next,
                        std::optional<LeasedEvent>* claimed) override;
  std::unique_ptr<PendingRecord> StartFinishAndLease(std::vector<AttemptResult> finishes,
                                                     std::optional<LeaseRequest> next, int count) override;
  Result<int> ReleaseLeases(const std::string& owner, int64_t now_ms, const std::string& reason) override;
  Result<std::optional<int64_t>> NextDueAt(const std::vector<std::string>& endpoints) override;
  Result<std::optional<int64_t>> NextDueAt() override;

  // Ledger (sql_ledger.cpp): writes through the Writer, reads on the reader.
  Result<HandlerGrant> Authenticate(std::string_view token, int64_t now_ms) override;
  Result<EffectClaim> ClaimEffect(const HandlerGrant& grant, const std::string& key, int64_t now_ms) override;
  Status EndEffect(const HandlerGrant& grant, const std::string& key, EffectEnd end, const std::string& detail,
                   int64_t now_ms) override;
  Status PutStep(const HandlerGrant& grant, const std::string& name, const std::string& content_type,
                 const std::string& body, int64_t now_ms) override;
  Result<std::optional<StepResult>> GetStep(const HandlerGrant& grant, const std::string& name,
                                            int64_t now_ms) override;
  // The handler's end of an asynchronous attempt (sql_handler_attempt.cpp, beside HandOver).
  Status EndAttempt(const HandlerGrant& grant, AttemptResult result) override;
  Status RenewAttempt(const HandlerGrant& grant, int64_t until_ms, int64_t now_ms) override;

  // AdminQueries (sql_event_queries.cpp; Replay and ReplayMatching in sql_replay.cpp; Resolve in
  // sql_work_queue.cpp beside the other transitions; ResolveEffect in sql_ledger.cpp beside the other
  // effect writes).
  Status Replay(int64_t id, const std::string& actor, const std::string& note, int64_t now_ms) override;
  Result<ReplayReport> ReplayMatching(const ReplayFilter& filter, const std::string& actor, const std::string& note,
                                      int64_t now_ms, bool dry_run) override;
  Status Resolve(int64_t id, const std::string& as, const std::string& result_ref, const std::string& note,
                 const std::string& actor, int64_t now_ms) override;
  Result<EventDetail> GetEvent(int64_t id, bool with_payload) override;
  Result<EventPage> ListEvents(const EventFilter& filter) override;
  Result<ConflictPage> ListConflicts(const ConflictFilter& filter) override;
  Status ResolveEffect(const std::string& tenant, const std::string& key, const std::string& as,
                       const std::string& external_ref, const std::string& note, const std::string& actor,
                       int64_t now_ms) override;

  // Maintenance (stats.cpp, purge.cpp, reconcile.cpp; Snapshot, DatabaseBytes and ServerNowMs in sql_store.cpp).
  Result<Stats> ReadStats(const StatsOptions& options) override;
  Result<std::vector<EndpointActivity>> ReadActivity(const ActivityOptions& options) override;  // activity.cpp
  Result<PurgeReport> Purge(const PurgeOptions& options) override;
  Result<ReconcileReport> Reconcile(const std::string& endpoint, const std::string& tenant,
                                    const std::vector<std::string>& ids) override;
  Status Snapshot(const std::string& out_path, const SnapshotOptions& options) override;
  Result<int64_t> DatabaseBytes() override;
  Result<int64_t> ServerNowMs() override;

  // EndpointStates (sql_endpoint_states.cpp): pause, resume and the breaker's record through the Writer.
  Result<std::vector<EndpointState>> ListEndpointStates() override;
  Result<std::vector<std::string>> PausedEndpoints() override;
  Result<bool> SetPaused(const std::string& endpoint, bool paused, const std::string& actor,
                         const std::string& reason, int64_t now_ms) override;
  Status RecordBreaker(const BreakerRecord& record) override;
  Status RecordSecretRotated(const std::string& endpoint, const std::string& actor, const std::string& reason,
                             int64_t now_ms) override;
  Result<bool> RecordSecretRetired(const std::string& endpoint, const std::string& actor, const std::string& reason,
                                   int64_t now_ms, bool only_after_rotation) override;

  // Incidents (sql_incidents.cpp): incidents and their notification outbox, writes through the Writer.
  Result<ObserveResult> ObserveCondition(const Observation& o, const PlannedMessages& m, int64_t now_ms) override;
  Result<std::optional<Incident>> ResolveCondition(const std::string& condition, const std::string& endpoint,
                                                   const PlannedMessages& m, int64_t now_ms) override;
  Result<std::vector<Incident>> ListIncidents(const IncidentQuery& q) override;
  Result<std::optional<Incident>> GetIncident(int64_t id) override;
  Result<std::vector<NotificationRecord>> NotificationsOf(int64_t alert_id) override;
  Result<bool> AcknowledgeIncident(int64_t id, const std::string& actor, int64_t now_ms) override;
  Status MuteIncident(int64_t id, int64_t until_ms, const std::string& actor, int64_t now_ms) override;
  Result<bool> QueueDigest(const std::string& day, const std::vector<std::string>& channels,
                           const std::string& message, int64_t now_ms) override;
  Result<bool> HoldAlertLead(const std::string& owner, int64_t now_ms, int64_t lease_ms) override;
  Status ReleaseAlertLead(const std::string& owner) override;
  Result<std::vector<PendingNotification>> LeaseNotifications(
      int limit, int64_t lease_ms, int64_t now_ms, const std::vector<std::string>& excluded_channels) override;
  Status FinishNotification(const PendingNotification& leased, bool sent, const std::string& error,
                            std::optional<int64_t> retry_at_ms, int64_t now_ms) override;
  // AlertSignals (sql_alert_signals.cpp): what the alert engine's conditions read.
  Result<std::vector<EndpointSignals>> ReadEndpointSignals(const SignalQuery& q) override;
  Result<InstallationSignals> ReadInstallationSignals() override;
  Result<DayFigures> ReadDayFigures(int64_t from_ms, int64_t to_ms) override;

  // KeySpecs (sql_key_specs.cpp): the key-derivation guard; the record goes through the Writer.
  Result<std::vector<KeySpecChange>> CheckKeySpecs(const std::vector<KeySpecNow>& specs) override;
  Status RecordKeySpecs(const std::vector<KeySpecNow>& specs, const std::vector<std::string>& accepted,
                        const std::string& actor, int64_t now_ms) override;

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
