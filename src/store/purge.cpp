// Retention (store/purge.h): the SQL of what goes, and the batch loop that
// runs it through the single writer.
#include "store/purge.h"



#include "store/audit_chain.h"
#include "store/event_status.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

constexpr int64_t kDayMs = 86400000;

// A terminal event of endpoint ?1 with no activity since ?2. Its deliveries,
// batch deliveries, attempts and actions all count as activity: a provider
// still retrying an event keeps its key alive.
const std::string kExpiredEvent =
    " FROM webhook_inbox i WHERE i.endpoint = ?1 AND i.status IN " + SqlList(kFinishedStatuses) +
    " AND i.received_at < ?2 AND coalesce(i.completed_at, 0) < ?2"
    " AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.inbox_id = i.id AND d.received_at >= ?2)"
    " AND NOT EXISTS (SELECT 1 FROM webhook_delivery_events de JOIN webhook_deliveries d ON d.id = de.delivery_id"
    "  WHERE de.inbox_id = i.id AND d.received_at >= ?2)"
    " AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.inbox_id = i.id"
    "  AND (a.started_at >= ?2 OR coalesce(a.finished_at, 0) >= ?2))"
    " AND NOT EXISTS (SELECT 1 FROM webhook_event_actions x WHERE x.inbox_id = i.id AND x.at >= ?2)";

// Events that other rows rely on to stop a second action (purge.h "Kept on purpose").
constexpr const char* kGuarded =
    "(EXISTS (SELECT 1 FROM business_keys b WHERE b.inbox_id = i.id)"
    " OR EXISTS (SELECT 1 FROM object_versions o WHERE o.inbox_id = i.id)"
    " OR EXISTS (SELECT 1 FROM effects e WHERE e.inbox_id = i.id AND e.status <> 'failed'))";

// Bodies of terminal events of endpoint ?1 older than ?2.
const std::string kOldPayloads =
    " FROM webhook_payloads p JOIN webhook_inbox i ON i.id = p.inbox_id WHERE i.endpoint = ?1"
    " AND i.status IN " + SqlList(kFinishedStatuses) + " AND p.created_at < ?2";
const std::string kOldSteps =
    " FROM step_results s JOIN webhook_inbox i ON i.id = s.inbox_id WHERE i.endpoint = ?1"
    " AND i.status IN " + SqlList(kFinishedStatuses) + " AND s.stored_at < ?2";

int64_t Cutoff(int64_t now_ms, int days) { return now_ms - static_cast<int64_t>(days) * kDayMs; }

// Delivery rows without an event, older than ?2, that nothing references:
// those of endpoint ?1, or (orphans) of no configured endpoint.
std::string LooseDeliveries(const PurgeStep& step) {
  std::string sql =
      " FROM webhook_deliveries d WHERE d.inbox_id IS NULL AND d.received_at < ?2"
      " AND NOT EXISTS (SELECT 1 FROM webhook_delivery_events de WHERE de.delivery_id = d.id)"
      " AND NOT EXISTS (SELECT 1 FROM webhook_payloads p WHERE p.delivery_id = d.id)";
  if (!step.orphans) return sql + " AND d.endpoint = ?1";
  sql += " AND (d.endpoint IS NULL OR d.endpoint NOT IN (''";
  for (size_t i = 0; i < step.configured.size(); ++i) sql += ",?" + std::to_string(3 + i);
  return sql + "))";
}

void BindStep(sql::Statement& st, const PurgeStep& step, int64_t cutoff) {
  st.bind(1, step.policy.endpoint);
  st.bind(2, static_cast<int64_t>(cutoff));
  if (!step.orphans) return;
  for (size_t i = 0; i < step.configured.size(); ++i) st.bind(static_cast<int>(3 + i), step.configured[i]);
}

// count(*) of `sql` with ?1 = endpoint, ?2 = cutoff and, when `third` > 0, ?3 = third.
int64_t CountOf(sql::Connection& db, const std::string& sql, const std::string& endpoint, int64_t cutoff,
                int64_t third = 0) {
  Prepared st(db, sql);
  st->bind(1, endpoint);
  st->bind(2, static_cast<int64_t>(cutoff));
  if (third > 0) st->bind(3, static_cast<int64_t>(third));
  st->executeStep();
  return st->getColumn(0).getInt64();
}

std::string IdList(const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

// The sealed rows of `table` matching `where`, in chain order, for checkpoints.
std::vector<SealedRow> SealedRows(sql::Connection& db, const std::string& table, const std::string& where) {
  Prepared st(db, "SELECT chain_seq, row_hash FROM " + table + " WHERE (" + where +
                               ") AND chain_seq IS NOT NULL ORDER BY chain_seq");
  std::vector<SealedRow> out;
  while (st->executeStep()) out.push_back({st->getColumn(0).getInt64(), st->getColumn(1).getString()});
  return out;
}

int64_t Exec(sql::Connection& db, const std::string& sql) { return db.Exec(sql); }

// Removes the events `ids` and everything of theirs, checkpointing their audit rows.
void RemoveEvents(sql::Connection& db, const std::vector<int64_t>& ids, const PurgeOptions& options, int64_t cutoff,
                  PurgeCounts& counts, int64_t& checkpoints) {
  const std::string in = "inbox_id IN (" + IdList(ids) + ")";
  checkpoints += CheckpointRemoved(db, kDeliveriesTable, SealedRows(db, kDeliveriesTable, in), options.now_ms, cutoff);
  checkpoints += CheckpointRemoved(db, kAttemptsTable, SealedRows(db, kAttemptsTable, in), options.now_ms, cutoff);
  counts.payloads += Exec(db, "DELETE FROM webhook_payloads WHERE " + in);
  counts.steps += Exec(db, "DELETE FROM step_results WHERE " + in);
  Exec(db, "DELETE FROM webhook_delivery_events WHERE " + in);
  counts.deliveries += Exec(db, "DELETE FROM webhook_deliveries WHERE " + in);
  counts.attempts += Exec(db, "DELETE FROM webhook_attempts WHERE " + in);
  // The rest (actions, failed effects) goes by ON DELETE CASCADE.
  counts.events += Exec(db, "DELETE FROM webhook_inbox WHERE id IN (" + IdList(ids) + ")");
}

bool PurgeEvents(sql::Connection& db, const PurgeStep& step, const PurgeOptions& options, PurgeCounts& counts,
                 int64_t& checkpoints) {
  if (step.orphans || step.policy.key_days <= 0) return false;
  const int64_t cutoff = Cutoff(options.now_ms, step.policy.key_days);
  Prepared st(db, std::string("SELECT i.id") + kExpiredEvent + " AND NOT " + kGuarded + " ORDER BY i.id LIMIT ?3");
  BindStep(*st, step, cutoff);
  st->bind(3, options.batch);
  std::vector<int64_t> ids;
  while (st->executeStep()) ids.push_back(st->getColumn(0).getInt64());
  st->reset();
  if (ids.empty()) return false;
  RemoveEvents(db, ids, options, cutoff, counts, checkpoints);
  return true;
}

bool PurgeBodies(sql::Connection& db, const PurgeStep& step, const PurgeOptions& options, PurgeCounts& counts) {
  if (step.orphans || step.policy.payload_days <= 0) return false;
  const int64_t cutoff = Cutoff(options.now_ms, step.policy.payload_days);
  auto run = [&](const std::string& sql) {
    Prepared st(db, sql);
    BindStep(*st, step, cutoff);
    st->bind(3, options.batch);
    return static_cast<int64_t>(st->exec());
  };
  const int64_t payloads = run(std::string("DELETE FROM webhook_payloads WHERE id IN (SELECT p.id") + kOldPayloads +
                               " LIMIT ?3)");
  const int64_t steps = run(std::string("DELETE FROM step_results WHERE (inbox_id, name) IN (SELECT s.inbox_id, s.name") + kOldSteps +
                            " LIMIT ?3)");
  counts.payloads += payloads;
  counts.steps += steps;
  return payloads + steps > 0;
}

int KeyDays(const PurgeStep& step, const PurgeOptions& options) {
  return step.orphans ? options.orphan_key_days : step.policy.key_days;
}

bool PurgeLooseDeliveries(sql::Connection& db, const PurgeStep& step, const PurgeOptions& options,
                          PurgeCounts& counts, int64_t& checkpoints) {
  if (KeyDays(step, options) <= 0) return false;
  const int64_t cutoff = Cutoff(options.now_ms, KeyDays(step, options));
  const int limit_at = static_cast<int>(3 + (step.orphans ? step.configured.size() : 0));
  Prepared st(db, "SELECT d.id" + LooseDeliveries(step) + " ORDER BY d.id LIMIT ?" + std::to_string(limit_at));
  BindStep(*st, step, cutoff);
  st->bind(limit_at, options.batch);
  std::vector<int64_t> ids;
  while (st->executeStep()) ids.push_back(st->getColumn(0).getInt64());
  st->reset();
  if (ids.empty()) return false;
  const std::string in = "id IN (" + IdList(ids) + ")";
  checkpoints += CheckpointRemoved(db, kDeliveriesTable, SealedRows(db, kDeliveriesTable, in), options.now_ms, cutoff);
  counts.deliveries += Exec(db, "DELETE FROM webhook_deliveries WHERE " + in);
  return true;
}

// Dry run: everything one pass would remove, counted, nothing changed.
void CountAll(sql::Connection& db, const PurgeStep& step, const PurgeOptions& options, PurgeCounts& counts) {
  const std::string& endpoint = step.policy.endpoint;
  if (!step.orphans && step.policy.key_days > 0) {
    const int64_t cutoff = Cutoff(options.now_ms, step.policy.key_days);
    const std::string expired = std::string("SELECT i.id") + kExpiredEvent + " AND NOT " + kGuarded;
    counts.events += CountOf(db, "SELECT count(*) FROM (" + expired + ") AS expired", endpoint, cutoff);
    counts.kept += CountOf(db, std::string("SELECT count(*)") + kExpiredEvent + " AND " + kGuarded, endpoint, cutoff);
    for (auto [table, field] : {std::pair{"webhook_deliveries", &counts.deliveries},
                                std::pair{"webhook_attempts", &counts.attempts},
                                std::pair{"webhook_payloads", &counts.payloads}, std::pair{"step_results", &counts.steps}}) {
      *field += CountOf(db, std::string("SELECT count(*) FROM ") + table + " WHERE inbox_id IN (" + expired + ")",
                        endpoint, cutoff);
    }
    if (step.policy.payload_days > 0) {
      // Bodies of the events that stay, past payload_days: all old bodies
      // minus the old ones of expired events (counted above already).
      const int64_t body_cutoff = Cutoff(options.now_ms, step.policy.payload_days);
      counts.payloads += CountOf(db, std::string("SELECT count(*)") + kOldPayloads, endpoint, body_cutoff) -
                         CountOf(db, "SELECT count(*) FROM webhook_payloads WHERE inbox_id IN (" + expired +
                                         ") AND created_at < ?3", endpoint, cutoff, body_cutoff);
      counts.steps += CountOf(db, std::string("SELECT count(*)") + kOldSteps, endpoint, body_cutoff) -
                      CountOf(db, "SELECT count(*) FROM step_results WHERE inbox_id IN (" + expired +
                                      ") AND stored_at < ?3", endpoint, cutoff, body_cutoff);
    }
  } else if (!step.orphans && step.policy.payload_days > 0) {
    const int64_t cutoff = Cutoff(options.now_ms, step.policy.payload_days);
    counts.payloads += CountOf(db, std::string("SELECT count(*)") + kOldPayloads, endpoint, cutoff);
    counts.steps += CountOf(db, std::string("SELECT count(*)") + kOldSteps, endpoint, cutoff);
  }
  if (KeyDays(step, options) > 0) {
    Prepared st(db, "SELECT count(*)" + LooseDeliveries(step));
    BindStep(*st, step, Cutoff(options.now_ms, KeyDays(step, options)));
    st->executeStep();
    counts.deliveries += st->getColumn(0).getInt64();
  }
}

}  // namespace

bool PurgeBatch(sql::Connection& db, const PurgeStep& step, const PurgeOptions& options, PurgeCounts& counts,
                int64_t& checkpoints) {
  if (options.dry_run) {
    CountAll(db, step, options, counts);
    return false;
  }
  // Old folding rows become final by the clock, not only by newer traffic.
  SealAuditRows(db, options.now_ms);
  return PurgeEvents(db, step, options, counts, checkpoints) || PurgeBodies(db, step, options, counts) ||
         PurgeLooseDeliveries(db, step, options, counts, checkpoints);
}

}  // namespace hookinbox::store

namespace hookinbox::store {

Result<PurgeReport> SqlStore::Purge(const PurgeOptions& options) {
  std::vector<PurgeStep> steps;
  std::vector<std::string> names;
  for (const RetentionPolicy& p : options.endpoints) {
    steps.push_back({p, false, {}});
    names.push_back(p.endpoint);
  }
  if (options.orphan_key_days > 0) steps.push_back({RetentionPolicy{}, true, names});
  PurgeReport report;
  for (const PurgeStep& step : steps) {
    PurgeCounts& counts = report.endpoints[step.orphans ? "" : step.policy.endpoint];
    if (options.dry_run) {
      auto counted = WithReader<bool>(*readers_, "purge", [&](sql::Connection& db) {
        int64_t none = 0;
        PurgeBatch(db, step, options, counts, none);
        return true;
      });
      if (!counted.ok()) return counted.status();
      continue;
    }
    // One bounded transaction per batch, so receiving waits at most one batch.
    for (bool more = true; more && !(options.stop && options.stop());) {
      PurgeCounts batch;
      int64_t checkpoints = 0;
      Status st = writer_->Submit([&](sql::Connection& db) {
        batch = {};  // an operation may run twice (writer.h)
        checkpoints = 0;
        more = PurgeBatch(db, step, options, batch, checkpoints);
      });
      if (!st.ok()) return Status(st.code(), "purge: " + st.message());
      counts.payloads += batch.payloads;
      counts.steps += batch.steps;
      counts.events += batch.events;
      counts.deliveries += batch.deliveries;
      counts.attempts += batch.attempts;
      report.checkpoints += checkpoints;
    }
    if (step.policy.key_days > 0 && !step.orphans) {
      // What stays although expired, for the report.
      PurgeOptions dry = options;
      dry.dry_run = true;
      PurgeCounts left;
      auto counted = WithReader<bool>(*readers_, "purge", [&](sql::Connection& db) {
        int64_t none = 0;
        PurgeBatch(db, step, dry, left, none);
        return true;
      });
      if (counted.ok()) counts.kept = left.kept;
    }
  }
  return report;
}

}  // namespace hookinbox::store
