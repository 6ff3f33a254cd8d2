#include "store/claim_gate.h"

#include <algorithm>

#include "store/sql_bind.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

std::string Event(int64_t id) { return "event " + std::to_string(id); }

GateDecision Skip(const char* reason, int64_t by, std::string error) {
  return {GateVerdict::kSkip, reason, by, 0, std::move(error)};
}

GateDecision Wait(int64_t holder, int64_t until_ms, std::string error) {
  return {GateVerdict::kWait, "", holder, until_ms, std::move(error)};
}

// Another event of the same object that is running under a valid lease.
std::optional<GateDecision> ObjectBusy(sql::Connection& db, const DueEvent& e, int64_t now_ms) {
  static const std::string kSql =
      "SELECT id, lease_until FROM webhook_inbox WHERE endpoint = ? AND tenant_id = ?"
      " AND object_key = ? AND status = " + SqlLiteral(EventStatus::kProcessing) +
      " AND lease_until >= ? AND id <> ? LIMIT 1";
  Prepared st(db, kSql);
  st->bind(1, e.endpoint);
  st->bind(2, e.tenant_id);
  st->bind(3, e.object_key);
  st->bind(4, static_cast<int64_t>(now_ms));
  st->bind(5, static_cast<int64_t>(e.id));
  if (!st->executeStep()) return std::nullopt;
  const int64_t holder = st->getColumn(0).getInt64();
  return Wait(holder, st->getColumn(1).getInt64() + 1, "waiting for " + Event(holder) + " (same object)");
}

// The object's applied version against this event's.
std::optional<GateDecision> ObjectVersion(sql::Connection& db, const DueEvent& e) {
  Prepared st(db,
              "SELECT version, payload_hash, inbox_id FROM object_versions"
              " WHERE endpoint = ? AND tenant_id = ? AND object_key = ?");
  st->bind(1, e.endpoint);
  st->bind(2, e.tenant_id);
  st->bind(3, e.object_key);
  if (!st->executeStep()) return std::nullopt;
  const int64_t applied = st->getColumn(0).getInt64();
  const int64_t by = st->getColumn(2).getInt64();
  if (by == e.id || e.object_version > applied) return std::nullopt;
  const std::string versions =
      "version " + std::to_string(e.object_version) + " vs " + std::to_string(applied) + " applied by " + Event(by);
  if (e.object_version < applied || st->getColumn(1).getString() == e.payload_hash) {
    return Skip("stale_version", by, "stale_version: " + versions);
  }
  return GateDecision{GateVerdict::kConflict, "", by, 0,
                      "version conflict: " + versions + " with another payload; a person decides"};
}

// Who holds or applied the business key.
std::optional<GateDecision> BusinessKeyHeld(sql::Connection& db, const DueEvent& e, int64_t now_ms,
                                            int64_t lease_ms) {
  Prepared st(db,
              "SELECT b.inbox_id, b.status, i.status, coalesce(i.lease_until, 0),"
              " coalesce(i.next_attempt_at, 0) FROM business_keys b JOIN webhook_inbox i ON i.id = b.inbox_id"
              " WHERE b.tenant_id = ? AND b.key_hash = ?");
  st->bind(1, e.tenant_id);
  st->bind(2, e.business_key);
  if (!st->executeStep()) return std::nullopt;
  const int64_t holder = st->getColumn(0).getInt64();
  const std::string key_status = st->getColumn(1).getString();
  const std::optional<EventStatus> holder_status = EventStatusFromSql(st->getColumn(2).getString());
  if (holder == e.id || holder_status == EventStatus::kDeadLettered || holder_status == EventStatus::kSkipped) {
    return std::nullopt;
  }
  if (key_status == "applied" || holder_status == EventStatus::kCompleted) {
    return Skip("duplicate_business_key", holder,
                "duplicate_business_key: " + e.business_key_hint + " already applied by " + Event(holder));
  }
  // Still in flight: look again when its lease ends or its retry is due (its
  // finish wakes us sooner); an unknown holder waits for a person.
  int64_t until = holder_status == EventStatus::kProcessing ? st->getColumn(3).getInt64() + 1
                                                           : st->getColumn(4).getInt64() + 1;
  if (holder_status == EventStatus::kUnknown) until = now_ms + lease_ms;
  return Wait(holder, std::max(until, now_ms + 1),
              "waiting for " + Event(holder) + " (same business key " + e.business_key_hint + ")");
}

// Closes an attempt row that began and ended now, for a skip or a conflict.
void RecordDecision(sql::Connection& db, int64_t id, const std::string& owner, int64_t now_ms, EventStatus outcome,
                    const std::string& error) {
  Prepared st(db,
              "INSERT INTO webhook_attempts (inbox_id, attempt, worker, started_at, finished_at, outcome,"
              " error) SELECT id, attempt_count, ?, ?, ?, ?, ? FROM webhook_inbox WHERE id = ?");
  st->bind(1, owner);
  st->bind(2, static_cast<int64_t>(now_ms));
  st->bind(3, static_cast<int64_t>(now_ms));
  st->bind(4, std::string(ToSql(outcome)));
  st->bind(5, error);
  st->bind(6, static_cast<int64_t>(id));
  st->exec();
}

}  // namespace

GateDecision Gate(sql::Connection& db, const DueEvent& e, int64_t now_ms, int64_t lease_ms) {
  if (!e.object_key.empty()) {
    if (auto busy = ObjectBusy(db, e, now_ms)) return *busy;
    if (auto stale = ObjectVersion(db, e)) return *stale;
  }
  if (!e.business_key.empty()) {
    if (auto held = BusinessKeyHeld(db, e, now_ms, lease_ms)) return *held;
  }
  return {};
}

void ApplyGate(sql::Connection& db, const DueEvent& e, const GateDecision& d, const std::string& owner,
               int64_t now_ms) {
  if (d.verdict == GateVerdict::kWait) {
    Prepared st(db,
                "UPDATE webhook_inbox SET next_attempt_at = ?, waiting_for = ?, last_error = ?,"
                " status = CASE WHEN status = " + SqlLiteral(EventStatus::kProcessing) + " THEN " +
                    SqlLiteral(EventStatus::kRetryableFailed) + " ELSE status END,"
                " lease_owner = NULL, lease_until = NULL WHERE id = ?");
    st->bind(1, static_cast<int64_t>(d.until_ms));
    st->bind(2, static_cast<int64_t>(d.other_id));
    st->bind(3, d.error);
    st->bind(4, static_cast<int64_t>(e.id));
    st->exec();
    return;
  }
  const bool skip = d.verdict == GateVerdict::kSkip;
  const EventStatus ended = skip ? EventStatus::kSkipped : EventStatus::kDeadLettered;
  Prepared st(db,
              "UPDATE webhook_inbox SET status = ?, skip_reason = ?, skipped_for = ?, last_error = ?,"
              " attempt_count = attempt_count + 1, lease_owner = NULL, lease_until = NULL,"
              " next_attempt_at = NULL, waiting_for = NULL, token_hash = NULL WHERE id = ?");
  st->bind(1, std::string(ToSql(ended)));
  BindText(*st, 2, skip ? d.reason : std::string());
  st->bind(3, static_cast<int64_t>(d.other_id));
  st->bind(4, d.error);
  st->bind(5, static_cast<int64_t>(e.id));
  st->exec();
  RecordDecision(db, e.id, owner, now_ms, ended, d.error);
  // Whoever waited for this event looks again now.
  AfterFinish(db, e.id, ended, now_ms);
}

void HoldBusinessKey(sql::Connection& db, const DueEvent& e, int64_t now_ms) {
  if (e.business_key.empty()) return;
  // A new key, or one freed by a dead-lettered or skipped holder; an event
  // that holds (or, replayed, already applied) its key keeps it as it is.
  Prepared st(db,
              "INSERT INTO business_keys (tenant_id, key_hash, hint, inbox_id, status, claimed_at)"
              " VALUES (?, ?, ?, ?, 'claimed', ?) ON CONFLICT (tenant_id, key_hash) DO UPDATE SET"
              " inbox_id = excluded.inbox_id, status = 'claimed', claimed_at = excluded.claimed_at,"
              " applied_at = NULL WHERE business_keys.inbox_id <> excluded.inbox_id");
  st->bind(1, e.tenant_id);
  st->bind(2, e.business_key);
  st->bind(3, e.business_key_hint);
  st->bind(4, static_cast<int64_t>(e.id));
  st->bind(5, static_cast<int64_t>(now_ms));
  st->exec();
}

void AfterFinish(sql::Connection& db, int64_t id, EventStatus status, int64_t now_ms) {
  if (status == EventStatus::kCompleted) {
    Prepared key(db,
                 "UPDATE business_keys SET status = 'applied', applied_at = ? WHERE inbox_id = ?"
                 " AND status = 'claimed'");
    key->bind(1, static_cast<int64_t>(now_ms));
    key->bind(2, static_cast<int64_t>(id));
    key->exec();
    Prepared version(db,
                     "INSERT INTO object_versions (endpoint, tenant_id, object_key, version, payload_hash,"
                     " inbox_id, applied_at) SELECT endpoint, tenant_id, object_key, object_version,"
                     " payload_hash, id, ? FROM webhook_inbox WHERE id = ? AND object_key IS NOT NULL"
                     " ON CONFLICT (endpoint, tenant_id, object_key) DO UPDATE SET version = excluded.version,"
                     " payload_hash = excluded.payload_hash, inbox_id = excluded.inbox_id,"
                     " applied_at = excluded.applied_at WHERE excluded.version > object_versions.version");
    version->bind(1, static_cast<int64_t>(now_ms));
    version->bind(2, static_cast<int64_t>(id));
    version->exec();
  } else if (status == EventStatus::kDeadLettered) {
    Prepared key(db, "DELETE FROM business_keys WHERE inbox_id = ? AND status = 'claimed'");
    key->bind(1, static_cast<int64_t>(id));
    key->exec();
  }
  static const std::string kWakeSql =
      "UPDATE webhook_inbox SET next_attempt_at = ?, waiting_for = NULL WHERE waiting_for = ? AND status IN " +
      SqlList(std::array{EventStatus::kReceived, EventStatus::kRetryableFailed});
  Prepared wake(db, kWakeSql);
  wake->bind(1, static_cast<int64_t>(now_ms));
  wake->bind(2, static_cast<int64_t>(id));
  wake->exec();
}

}  // namespace hookinbox::store
