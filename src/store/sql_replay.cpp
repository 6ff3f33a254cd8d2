// Replay: an operator puts finished events back to 'received', one by id
// (Replay) or every event a filter matches (ReplayMatching). Both go through
// ReplayEventInTransaction, so a bulk-replayed event is exactly what a
// single replay leaves, audit row included.
//
// The bulk replay reads the matching ids on a reader connection (no write
// lock), then replays them a batch (kReplayBatchSqlite/Postgres) at a time, each batch one writer
// operation: between two batches the writer commits whatever deliveries
// queued meanwhile, so 100 000 replays never hold ingest up for longer than
// one batch. Each event is replayed only if it is still in the filtered
// state when its batch runs (someone may have replayed or resolved it since).
#include <algorithm>

#include "store/event_actions.h"
#include "store/sql_bind.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {


// The event's state, its result_ref and whether its body is still stored,
// in one statement (a bulk replay runs this once per event, a batch per
// transaction; on PostgreSQL each statement is a round trip under the write lock).
struct Replayable {
  std::optional<EventStatus> status;
  std::string result_ref;
  bool has_payload = false;
};

Replayable ReadReplayable(sql::Connection& db, int64_t id) {
  Prepared st(db,
              "SELECT status, result_ref, CASE WHEN EXISTS (SELECT 1 FROM webhook_payloads WHERE inbox_id = ?1"
              " AND kind = 'original') THEN 1 ELSE 0 END FROM webhook_inbox WHERE id = ?1");
  st->bind(1, static_cast<int64_t>(id));
  Replayable r;
  if (!st->executeStep()) return r;
  r.status = EventStatusFromSql(st->getColumn(0).getString()).value_or(EventStatus::kUnknown);
  r.result_ref = st->getColumn(1).isNull() ? "" : st->getColumn(1).getString();
  r.has_payload = st->getColumn(2).getInt() != 0;
  return r;
}

void PutBackToReceived(sql::Connection& db, int64_t id, int64_t now_ms) {
  // attempt_count restarts at 0 and retry_window_start at now: a replay is a
  // person's decision to try again, so max_attempts and retry_for apply
  // afresh instead of dead-lettering at once. result_ref and completed_at are
  // cleared (the event is no longer completed); the replaced reference is
  // kept in the audit row.
  Prepared up(db,
              "UPDATE webhook_inbox SET status = " + SqlLiteral(EventStatus::kReceived) +
                  ", next_attempt_at = ?1, retry_window_start = ?1, attempt_count = 0,"
                  " lease_owner = NULL, lease_until = NULL, completed_at = NULL, result_ref = NULL"
                  " WHERE id = ?2");
  up->bind(1, static_cast<int64_t>(now_ms));
  up->bind(2, static_cast<int64_t>(id));
  up->exec();
}

}  // namespace

std::optional<EventStatus> StatusOf(sql::Connection& db, int64_t id, std::string* result_ref) {
  Prepared st(db, "SELECT status, result_ref FROM webhook_inbox WHERE id = ?");
  st->bind(1, static_cast<int64_t>(id));
  if (!st->executeStep()) return std::nullopt;
  if (result_ref) *result_ref = st->getColumn(1).isNull() ? "" : st->getColumn(1).getString();
  return EventStatusFromSql(st->getColumn(0).getString()).value_or(EventStatus::kUnknown);
}

void InsertEventAction(sql::Connection& db, const EventAction& a) {
  Prepared st(db,
              "INSERT INTO webhook_event_actions (inbox_id, at, actor, action, from_status, to_status,"
              " result_ref, note) VALUES (?,?,?,?,?,?,?,?)");
  st->bind(1, static_cast<int64_t>(a.id));
  st->bind(2, static_cast<int64_t>(a.at_ms));
  st->bind(3, a.actor);
  st->bind(4, a.action);
  st->bind(5, a.from_status);
  st->bind(6, a.to_status);
  BindText(*st, 7, a.result_ref);
  BindText(*st, 8, a.note);
  st->exec();
}

ReplayOne ReplayEventInTransaction(sql::Connection& db, int64_t id, std::optional<EventStatus> only_from,
                                   const std::string& actor, const std::string& note, int64_t now_ms) {
  ReplayOne r;
  const Replayable e = ReadReplayable(db, id);
  r.from = e.status;
  if (!r.from) return r;
  if (!IsOneOf(*r.from, kReplayableStatuses) || (only_from && *only_from != *r.from)) {
    r.verdict = ReplayVerdict::kNotReplayable;
    return r;
  }
  // Retention (payload_days) may have removed the body: the action would
  // get an empty one, so such an event cannot be processed again.
  if (!e.has_payload) {
    r.verdict = ReplayVerdict::kPayloadPurged;
    return r;
  }
  PutBackToReceived(db, id, now_ms);
  InsertEventAction(db, {id, now_ms, actor, "replay", std::string(ToSql(*r.from)),
                         std::string(ToSql(EventStatus::kReceived)), e.result_ref, note});
  r.verdict = ReplayVerdict::kReplayed;
  return r;
}

Status SqlStore::Replay(int64_t id, const std::string& actor, const std::string& note, int64_t now_ms) {
  ReplayOne r;
  Status st = writer_->Submit(
      [&](sql::Connection& db) { r = ReplayEventInTransaction(db, id, std::nullopt, actor, note, now_ms); });
  std::string what = "replay " + std::to_string(id);
  if (!st.ok()) return Prefixed(what, st);
  switch (r.verdict) {
    case ReplayVerdict::kReplayed: return Status::Ok();
    case ReplayVerdict::kNoSuchEvent: return NotFound(what + ": no such event");
    case ReplayVerdict::kNotReplayable:
      return Status(Code::kConflict, what + ": event is " + std::string(ToSql(*r.from)) +
                                         "; only dead_lettered, unknown or completed events can be replayed");
    case ReplayVerdict::kPayloadPurged:
      return Status(Code::kConflict, what + ": its payload was removed by retention (payload_days); it cannot be "
                                            "processed again");
  }
  return Status::Ok();
}

namespace {

Status CheckReplayFilter(const ReplayFilter& f) {
  const std::optional<EventStatus> status = EventStatusFromSql(f.status);
  if (!status || !IsOneOf(*status, kReplayableStatuses)) {
    return InvalidArgument("replay: status must be dead_lettered, unknown or completed, not '" + f.status + "'");
  }
  if (f.endpoint.empty()) return InvalidArgument("replay: an endpoint is required");
  if (f.since_ms < 0 || f.until_ms < 0) return InvalidArgument("replay: times must be after 1970-01-01");
  if (f.since_ms != 0 && f.until_ms != 0 && f.until_ms <= f.since_ms) {
    return InvalidArgument("replay: until must be after since");
  }
  return Status::Ok();
}

// The state as a literal in the SQL, not a parameter: only then can SQLite
// and PostgreSQL prove the partial index webhook_inbox_attention applies
// (SQLite needs its predicate, the IN list, word for word). The state is one
// of kReplayableStatuses, checked before, so nothing typed reaches the SQL.
std::string StatusCondition(EventStatus s) {
  std::string cond = "status = " + SqlLiteral(s);
  if (IsOneOf(s, kAttentionStatuses)) cond = "status IN " + SqlList(kAttentionStatuses) + " AND " + cond;
  return cond;
}

struct Match {
  int64_t id = 0;
  bool has_payload = false;
};

// Every matching event, oldest first, with whether its body is still stored.
std::vector<Match> ReadMatches(sql::Connection& db, const ReplayFilter& f, EventStatus status) {
  // instr() (strpos() on PostgreSQL) rather than LIKE: the text is taken
  // literally, '%' and '_' included. An absent condition is bound as NULL / 0.
  const char* contains = db.backend() == sql::Backend::kPostgres ? "strpos" : "instr";
  Prepared st(db, "SELECT i.id, CASE WHEN EXISTS (SELECT 1 FROM webhook_payloads p WHERE p.inbox_id = i.id"
                  " AND p.kind = 'original') THEN 1 ELSE 0 END FROM webhook_inbox i WHERE i.endpoint = ?1 AND i." +
                      StatusCondition(status) +
                      " AND (?2 = 0 OR i.received_at >= ?2) AND (?3 = 0 OR i.received_at < ?3)"
                      " AND (" + contains + "(i.last_error, ?4) > 0 OR ?4 IS NULL) ORDER BY i.id");
  st->bind(1, f.endpoint);
  st->bind(2, static_cast<int64_t>(f.since_ms));
  st->bind(3, static_cast<int64_t>(f.until_ms));
  BindText(*st, 4, f.error_contains);
  std::vector<Match> out;
  while (st->executeStep()) out.push_back({st->getColumn(0).getInt64(), st->getColumn(1).getInt() != 0});
  return out;
}

}  // namespace

Result<ReplayReport> SqlStore::ReplayMatching(const ReplayFilter& filter, const std::string& actor,
                                              const std::string& note, int64_t now_ms, bool dry_run) {
  if (Status ok = CheckReplayFilter(filter); !ok.ok()) return ok;
  const EventStatus status = *EventStatusFromSql(filter.status);
  auto matches = WithReader<std::vector<Match>>(*readers_, "replay: find events", [&](sql::Connection& db) {
    return Result<std::vector<Match>>(ReadMatches(db, filter, status));
  });
  if (!matches.ok()) return matches.status();
  ReplayReport report;
  report.matched = static_cast<int64_t>(matches->size());
  if (dry_run) {
    report.skipped_payload_purged =
        std::count_if(matches->begin(), matches->end(), [](const Match& m) { return !m.has_payload; });
    return report;
  }
  const size_t batch_size =
      static_cast<size_t>(backend() == sql::Backend::kPostgres ? kReplayBatchPostgres : kReplayBatchSqlite);
  for (size_t start = 0; start < matches->size(); start += batch_size) {
    const size_t end = std::min(matches->size(), start + batch_size);
    ReplayReport batch;
    Status st = writer_->Submit([&](sql::Connection& db) {
      batch = {};  // the writer may run an operation twice
      for (size_t i = start; i < end; ++i) {
        switch (ReplayEventInTransaction(db, (*matches)[i].id, status, actor, note, now_ms).verdict) {
          case ReplayVerdict::kReplayed: ++batch.replayed; break;
          case ReplayVerdict::kPayloadPurged: ++batch.skipped_payload_purged; break;
          case ReplayVerdict::kNoSuchEvent:  // purged by retention since it was read
          case ReplayVerdict::kNotReplayable: ++batch.skipped_changed; break;
        }
      }
    });
    if (!st.ok()) {
      return Prefixed("replay: after " + std::to_string(report.replayed) + " of " + std::to_string(report.matched) +
                          " replayed",
                      st);
    }
    report.replayed += batch.replayed;
    report.skipped_payload_purged += batch.skipped_payload_purged;
    report.skipped_changed += batch.skipped_changed;
  }
  return report;
}

}  // namespace hookinbox::store
