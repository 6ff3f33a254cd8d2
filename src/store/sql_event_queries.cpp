// The WorkQueue's reads on SQLite: NextDueAt for the worker's bounded wait,
// GetEvent and ListEvents for the CLI (and later the admin API). They use the
// store's read-only connection, so they never wait for the writer's queue and
// see only committed rows (WAL snapshot per statement).
#include <SQLiteCpp/SQLiteCpp.h>

#include <mutex>

#include "store/database.h"
#include "store/due_search.h"
#include "store/sql_bind.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

int64_t Time(const sql::Column& c) { return c.isNull() ? 0 : c.getInt64(); }
std::optional<int> OptInt(const sql::Column& c) {
  return c.isNull() ? std::nullopt : std::optional<int>(c.getInt());
}

constexpr const char* kEventColumns =
    "id, provider, endpoint, tenant_id, event_id, event_type, payload_hash, status, attempt_count, lease_owner,"
    " lease_until, next_attempt_at, received_at, completed_at, result_ref, last_error, skip_reason, skipped_for,"
    " waiting_for, business_key_hint";

EventRow ReadEventRow(sql::Statement& st) {
  EventRow e;
  e.id = st.getColumn(0).getInt64();
  e.provider = Text(st.getColumn(1));
  e.endpoint = Text(st.getColumn(2));
  e.tenant_id = Text(st.getColumn(3));
  e.event_id = Text(st.getColumn(4));
  e.event_type = Text(st.getColumn(5));
  e.payload_hash = Text(st.getColumn(6));
  e.status = Text(st.getColumn(7));
  e.attempt_count = st.getColumn(8).getInt();
  e.lease_owner = Text(st.getColumn(9));
  e.lease_until_ms = Time(st.getColumn(10));
  e.next_attempt_at_ms = Time(st.getColumn(11));
  e.received_at_ms = Time(st.getColumn(12));
  e.completed_at_ms = Time(st.getColumn(13));
  e.result_ref = Text(st.getColumn(14));
  e.last_error = Text(st.getColumn(15));
  e.skip_reason = Text(st.getColumn(16));
  e.skipped_for = st.getColumn(17).isNull() ? 0 : st.getColumn(17).getInt64();
  e.waiting_for = st.getColumn(18).isNull() ? 0 : st.getColumn(18).getInt64();
  e.business_key_hint = Text(st.getColumn(19));
  return e;
}

std::vector<DeliveryRow> ReadDeliveries(sql::Connection& db, int64_t id) {
  // A batch delivery's row has no inbox_id; its events are listed in webhook_delivery_events.
  Prepared st(db,
                       "SELECT id, received_at, remote_addr, outcome, reason, content_type, user_agent, http_status,"
                       " body_bytes FROM webhook_deliveries WHERE inbox_id = ?1"
                       " OR id IN (SELECT delivery_id FROM webhook_delivery_events WHERE inbox_id = ?1) ORDER BY id");
  st->bind(1, static_cast<int64_t>(id));
  std::vector<DeliveryRow> out;
  while (st->executeStep()) {
    DeliveryRow d;
    d.id = st->getColumn(0).getInt64();
    d.received_at_ms = Time(st->getColumn(1));
    d.remote_addr = Text(st->getColumn(2));
    d.outcome = Text(st->getColumn(3));
    d.reason = Text(st->getColumn(4));
    d.content_type = Text(st->getColumn(5));
    d.user_agent = Text(st->getColumn(6));
    d.http_status = st->getColumn(7).getInt();
    d.body_bytes = Time(st->getColumn(8));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<AttemptRow> ReadAttempts(sql::Connection& db, int64_t id) {
  Prepared st(db,
                       "SELECT id, attempt, worker, started_at, finished_at, outcome, http_status, exit_code, error"
                       " FROM webhook_attempts WHERE inbox_id = ? ORDER BY id");
  st->bind(1, static_cast<int64_t>(id));
  std::vector<AttemptRow> out;
  while (st->executeStep()) {
    AttemptRow a;
    a.id = st->getColumn(0).getInt64();
    a.attempt = st->getColumn(1).getInt();
    a.worker = Text(st->getColumn(2));
    a.started_at_ms = Time(st->getColumn(3));
    a.finished_at_ms = Time(st->getColumn(4));
    a.outcome = Text(st->getColumn(5));
    a.http_status = OptInt(st->getColumn(6));
    a.exit_code = OptInt(st->getColumn(7));
    a.error = Text(st->getColumn(8));
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<ActionRow> ReadActions(sql::Connection& db, int64_t id) {
  Prepared st(db,
                       "SELECT id, at, actor, action, from_status, to_status, result_ref, note"
                       " FROM webhook_event_actions WHERE inbox_id = ? ORDER BY id");
  st->bind(1, static_cast<int64_t>(id));
  std::vector<ActionRow> out;
  while (st->executeStep()) {
    out.push_back({st->getColumn(0).getInt64(), Time(st->getColumn(1)), Text(st->getColumn(2)), Text(st->getColumn(3)),
                   Text(st->getColumn(4)), Text(st->getColumn(5)), Text(st->getColumn(6)), Text(st->getColumn(7))});
  }
  return out;
}

std::vector<EffectEntry> ReadEffects(sql::Connection& db, int64_t id) {
  Prepared st(db,
                       "SELECT effect_key, status, external_ref, error, attempt, claimed_at, updated_at"
                       " FROM effects WHERE inbox_id = ? ORDER BY effect_key");
  st->bind(1, static_cast<int64_t>(id));
  std::vector<EffectEntry> out;
  while (st->executeStep()) {
    out.push_back({Text(st->getColumn(0)), Text(st->getColumn(1)), Text(st->getColumn(2)), Text(st->getColumn(3)),
                   st->getColumn(4).getInt(), Time(st->getColumn(5)), Time(st->getColumn(6))});
  }
  return out;
}

// Names, sizes and times only: a step body may be large or personal.
std::vector<StepRow> ReadSteps(sql::Connection& db, int64_t id) {
  Prepared st(db,
                       "SELECT name, content_type, length(body), attempt, stored_at FROM step_results"
                       " WHERE inbox_id = ? ORDER BY name");
  st->bind(1, static_cast<int64_t>(id));
  std::vector<StepRow> out;
  while (st->executeStep()) {
    out.push_back({Text(st->getColumn(0)), Text(st->getColumn(1)), Time(st->getColumn(2)), st->getColumn(3).getInt(),
                   Time(st->getColumn(4))});
  }
  return out;
}

void ReadPayload(sql::Connection& db, EventDetail& d) {
  Prepared st(db, "SELECT content_type, body FROM webhook_payloads WHERE inbox_id = ? AND kind = 'original'");
  st->bind(1, static_cast<int64_t>(d.event.id));
  if (!st->executeStep()) return;
  d.has_payload = true;
  d.content_type = Text(st->getColumn(0));
  const auto body = st->getColumn(1);
  d.payload = body.getString();
}

bool KnownStatus(const std::string& s) { return EventStatusFromSql(s).has_value(); }

}  // namespace

Result<std::optional<int64_t>> SqlStore::NextDueAt(const std::vector<std::string>& endpoints) {
  return WithReader<std::optional<int64_t>>(*readers_, "next due", [&](sql::Connection& db) {
    return Result<std::optional<int64_t>>(EarliestDue(db, endpoints));
  });
}

Result<std::optional<int64_t>> SqlStore::NextDueAt() {
  return WithReader<std::optional<int64_t>>(*readers_, "next due", [](sql::Connection& db) {
    return Result<std::optional<int64_t>>(EarliestDue(db, PendingEndpoints(db)));
  });
}

Result<EventDetail> SqlStore::GetEvent(int64_t id, bool with_payload) {
  return WithReader<EventDetail>(*readers_, "event " + std::to_string(id),
                                [&](sql::Connection& db) -> Result<EventDetail> {
    Prepared st(db, std::string("SELECT ") + kEventColumns + " FROM webhook_inbox WHERE id = ?");
    st->bind(1, static_cast<int64_t>(id));
    if (!st->executeStep()) return NotFound("event " + std::to_string(id) + ": no such event");
    EventDetail d;
    d.event = ReadEventRow(*st);
    d.deliveries = ReadDeliveries(db, id);
    d.attempts = ReadAttempts(db, id);
    d.actions = ReadActions(db, id);
    d.effects = ReadEffects(db, id);
    d.steps = ReadSteps(db, id);
    if (with_payload) ReadPayload(db, d);
    return d;
  });
}

Result<EventPage> SqlStore::ListEvents(const EventFilter& f) {
  if (f.limit < 1 || f.limit > 1000) return InvalidArgument("list events: limit must be 1..1000");
  if (!f.status.empty() && !KnownStatus(f.status)) {
    return InvalidArgument("list events: unknown status '" + f.status + "'");
  }
  return WithReader<EventPage>(*readers_, "list events", [&](sql::Connection& db) -> Result<EventPage> {
    // Newest first by id, which grows with received_at; an absent condition
    // is bound as NULL / 0 and drops out (each parameter's first use is the
    // comparison, from which PostgreSQL learns its type). instr() (strpos()
    // on PostgreSQL) rather than LIKE: the substring is taken literally, '%'
    // and '_' included.
    const char* contains = db.backend() == sql::Backend::kPostgres ? "strpos" : "instr";
    Prepared st(db, std::string("SELECT ") + kEventColumns +
                                 " FROM webhook_inbox WHERE (status = ?1 OR ?1 IS NULL) AND (endpoint = ?2 OR ?2 IS NULL)"
                                 " AND (tenant_id = ?3 OR ?3 IS NULL) AND (event_type = ?4 OR ?4 IS NULL)"
                                 " AND (" + contains + "(event_id, ?5) > 0 OR ?5 IS NULL)"
                                 " AND (?6 = 0 OR received_at >= ?6) AND (?7 = 0 OR received_at < ?7)"
                                 " AND (?8 = 0 OR id < ?8) ORDER BY id DESC LIMIT ?9");
    BindText(*st, 1, f.status);
    BindText(*st, 2, f.endpoint);
    BindText(*st, 3, f.tenant);
    BindText(*st, 4, f.event_type);
    BindText(*st, 5, f.id_contains);
    st->bind(6, static_cast<int64_t>(f.since_ms));
    st->bind(7, static_cast<int64_t>(f.until_ms));
    st->bind(8, static_cast<int64_t>(f.before_id));
    st->bind(9, f.limit + 1);  // one more tells whether another page exists
    EventPage page;
    while (st->executeStep()) page.events.push_back(ReadEventRow(*st));
    if (static_cast<int>(page.events.size()) > f.limit) {
      page.events.pop_back();
      page.next_before_id = page.events.back().id;
    }
    return page;
  });
}

Result<ConflictPage> SqlStore::ListConflicts(const ConflictFilter& f) {
  if (f.limit < 1 || f.limit > 1000) return InvalidArgument("list conflicts: limit must be 1..1000");
  return WithReader<ConflictPage>(*readers_, "list conflicts", [&](sql::Connection& db) -> Result<ConflictPage> {
    // A single delivery's row names its event; a batch delivery lists each
    // event's outcome in webhook_delivery_events (its own row says only
    // 'accepted' when anything in it was new).
    Prepared st(db,
                         "WITH c AS ("
                         " SELECT d.id AS delivery_id, 0 AS position, d.inbox_id AS inbox_id FROM webhook_deliveries d"
                         "  WHERE d.outcome = 'conflict' AND d.inbox_id IS NOT NULL"
                         " UNION ALL SELECT delivery_id, position, inbox_id FROM webhook_delivery_events"
                         "  WHERE outcome = 'conflict')"
                         " SELECT c.delivery_id, c.position, c.inbox_id, i.endpoint, i.tenant_id, i.event_id, i.event_type,"
                         "  d.remote_addr, d.received_at, i.payload_hash,"
                         "  (SELECT id FROM webhook_payloads WHERE inbox_id = c.inbox_id AND kind = 'original'),"
                         "  p.payload_hash, p.id"
                         " FROM c JOIN webhook_inbox i ON i.id = c.inbox_id JOIN webhook_deliveries d ON d.id = c.delivery_id"
                         " LEFT JOIN webhook_payloads p ON p.id = (SELECT min(id) FROM webhook_payloads"
                         "  WHERE delivery_id = c.delivery_id AND inbox_id = c.inbox_id AND kind = 'conflict')"
                         " WHERE (?1 = 0 OR c.delivery_id < ?1 OR (c.delivery_id = ?1 AND c.position < ?2))"
                         "  AND (i.endpoint = ?3 OR ?3 IS NULL)"
                         " ORDER BY c.delivery_id DESC, c.position DESC LIMIT ?4");
    st->bind(1, static_cast<int64_t>(f.before_delivery_id));
    st->bind(2, f.before_position);
    BindText(*st, 3, f.endpoint);
    st->bind(4, f.limit + 1);
    ConflictPage page;
    while (st->executeStep()) {
      ConflictRow r;
      r.delivery_id = st->getColumn(0).getInt64();
      r.position = st->getColumn(1).getInt();
      r.inbox_id = st->getColumn(2).getInt64();
      r.endpoint = Text(st->getColumn(3));
      r.tenant_id = Text(st->getColumn(4));
      r.event_id = Text(st->getColumn(5));
      r.event_type = Text(st->getColumn(6));
      r.remote_addr = Text(st->getColumn(7));
      r.received_at_ms = Time(st->getColumn(8));
      r.original_hash = Text(st->getColumn(9));
      r.original_payload_id = Time(st->getColumn(10));
      r.conflict_hash = Text(st->getColumn(11));
      r.conflict_payload_id = Time(st->getColumn(12));
      page.conflicts.push_back(std::move(r));
    }
    if (static_cast<int>(page.conflicts.size()) > f.limit) {
      page.conflicts.pop_back();
      page.more = true;
    }
    return page;
  });
}

}  // namespace hookinbox::store
