// EndpointStates on either backend (see endpoint_states.h). Pause, resume
// and the breaker's record are operations of the single Writer; each
// decides inside its transaction, so two operators pausing one endpoint at
// once (two CLIs, two replicas) end with one pause and one audit row.
//
// Upserts use INSERT … ON CONFLICT (endpoint) DO UPDATE, which SQLite and
// PostgreSQL read alike. Operations may run twice (the Writer reruns a batch
// one by one when a neighbour throws), so each resets its outputs first.
#include <string_view>

#include "common/encoding.h"
#include "store/due_search.h"
#include "store/endpoint_states.h"
#include "store/sql_bind.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

// An operator's reason is free text kept in two tables; bound it like a note.
constexpr size_t kMaxReasonBytes = 1024;
constexpr size_t kMaxNameBytes = 200;

Status CheckPauseArguments(const std::string& endpoint, const std::string& actor, const std::string& reason) {
  if (endpoint.empty() || endpoint.size() > kMaxNameBytes) return InvalidArgument("endpoint name is empty or too long");
  if (actor.empty()) return InvalidArgument("actor is missing");
  if (reason.size() > kMaxReasonBytes) {
    return InvalidArgument("reason is longer than " + std::to_string(kMaxReasonBytes) + " bytes");
  }
  // PostgreSQL refuses such text; refusing here says why instead of failing the write.
  if (ToValidUtf8(reason) != reason) return InvalidArgument("reason is not valid UTF-8 text");
  return Status::Ok();
}

// Sets the pause unless one is in place; true when it did.
bool WritePause(sql::Connection& db, const std::string& endpoint, const std::string& actor, const std::string& reason,
                int64_t now_ms) {
  Prepared st(db,
              "INSERT INTO endpoint_states (endpoint, paused_at, paused_by, paused_reason, updated_at)"
              " VALUES (?1, ?2, ?3, ?4, ?2) ON CONFLICT (endpoint) DO UPDATE SET paused_at = excluded.paused_at,"
              " paused_by = excluded.paused_by, paused_reason = excluded.paused_reason,"
              " updated_at = excluded.updated_at WHERE endpoint_states.paused_at IS NULL RETURNING endpoint");
  st->bind(1, endpoint);
  st->bind(2, now_ms);
  st->bind(3, actor);
  BindText(*st, 4, reason);
  return st->executeStep();
}

// Clears the pause when one is in place; true when it did. Who paused and
// why go with it: endpoint_actions keeps the history.
bool WriteResume(sql::Connection& db, const std::string& endpoint, int64_t now_ms) {
  Prepared st(db,
              "UPDATE endpoint_states SET paused_at = NULL, paused_by = NULL, paused_reason = NULL, updated_at = ?1"
              " WHERE endpoint = ?2 AND paused_at IS NOT NULL");
  st->bind(1, now_ms);
  st->bind(2, endpoint);
  return st->exec() > 0;
}

void WriteAction(sql::Connection& db, const std::string& endpoint, const char* action, const std::string& actor,
                 const std::string& reason, int64_t now_ms) {
  Prepared st(db, "INSERT INTO endpoint_actions (endpoint, at, actor, action, reason) VALUES (?, ?, ?, ?, ?)");
  st->bind(1, endpoint);
  st->bind(2, now_ms);
  st->bind(3, actor);
  st->bind(4, action);
  BindText(*st, 5, reason);
  st->exec();
}

// Whether the endpoint's latest rotation step is 'secret_rotated' (a window
// not yet recorded as ended). endpoint_actions_endpoint (endpoint, id) serves it.
bool RotationOpen(sql::Connection& db, const std::string& endpoint) {
  Prepared st(db,
              "SELECT action FROM endpoint_actions WHERE endpoint = ?1"
              " AND action IN ('secret_rotated', 'secret_retired') ORDER BY id DESC LIMIT 1");
  st->bind(1, endpoint);
  return st->executeStep() && st->getColumn(0).getString() == "secret_rotated";
}

std::optional<int64_t> OptTime(const sql::Column& c) {
  return c.isNull() ? std::nullopt : std::optional<int64_t>(c.getInt64());
}

EndpointState ReadState(sql::Statement& st) {
  EndpointState s;
  s.endpoint = st.getColumn(0).getString();
  s.paused_at_ms = OptTime(st.getColumn(1));
  s.paused_by = Text(st.getColumn(2));
  s.paused_reason = Text(st.getColumn(3));
  // The CHECK constraint admits only the three names; closed is the safe reading otherwise.
  s.breaker = BreakerStateFromName(st.getColumn(4).getString()).value_or(BreakerState::kClosed);
  s.breaker_changed_at_ms = OptTime(st.getColumn(5));
  s.breaker_failures = st.getColumn(6).getInt();
  s.breaker_next_probe_at_ms = OptTime(st.getColumn(7));
  s.breaker_last_error = Text(st.getColumn(8));
  return s;
}


}  // namespace

const char* BreakerStateName(BreakerState s) {
  switch (s) {
    case BreakerState::kClosed: return "closed";
    case BreakerState::kOpen: return "open";
    case BreakerState::kHalfOpen: return "half_open";
  }
  return "closed";
}

std::optional<BreakerState> BreakerStateFromName(const std::string& name) {
  for (BreakerState s : {BreakerState::kClosed, BreakerState::kOpen, BreakerState::kHalfOpen}) {
    if (name == BreakerStateName(s)) return s;
  }
  return std::nullopt;
}

Result<std::vector<EndpointState>> SqlStore::ListEndpointStates() {
  return WithReader<std::vector<EndpointState>>(
      *readers_, "list endpoint states", [](sql::Connection& db) -> Result<std::vector<EndpointState>> {
        Prepared st(db,
                    "SELECT endpoint, paused_at, paused_by, paused_reason, breaker, breaker_changed_at,"
                    " breaker_failures, breaker_next_probe_at, breaker_last_error FROM endpoint_states"
                    " ORDER BY endpoint");
        std::vector<EndpointState> out;
        while (st->executeStep()) out.push_back(ReadState(*st));
        return out;
      });
}

Result<std::vector<std::string>> SqlStore::PausedEndpoints() {
  // Never waits for a reader: a worker thread asks at every poll, and a long
  // read (the admin's activity charts, an alert check, the digest) must not
  // hold it; it keeps the last answer and asks again at its next poll.
  try {
    auto connection = readers_->TryAcquire();
    if (!connection) return Unavailable("paused endpoints: every reader is busy");
    return PausedEndpointNames(**connection);
  } catch (const sql::Error& e) {
    return FromSql(e, "paused endpoints");
  }
}

Result<bool> SqlStore::SetPaused(const std::string& endpoint, bool paused, const std::string& actor,
                                 const std::string& reason, int64_t now_ms) {
  if (Status st = CheckPauseArguments(endpoint, actor, reason); !st.ok()) return st;
  bool changed = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    changed = paused ? WritePause(db, endpoint, actor, reason, now_ms) : WriteResume(db, endpoint, now_ms);
    if (changed) WriteAction(db, endpoint, paused ? "pause" : "resume", actor, reason, now_ms);
  });
  if (!st.ok()) return Prefixed(paused ? "pause endpoint" : "resume endpoint", st);
  return changed;
}

Status SqlStore::RecordSecretRotated(const std::string& endpoint, const std::string& actor, const std::string& reason,
                                     int64_t now_ms) {
  if (Status st = CheckPauseArguments(endpoint, actor, reason); !st.ok()) return st;
  Status st = writer_->Submit([&](sql::Connection& db) { WriteAction(db, endpoint, "secret_rotated", actor, reason, now_ms); });
  return st.ok() ? st : Prefixed("record secret rotation", st);
}

Result<bool> SqlStore::RecordSecretRetired(const std::string& endpoint, const std::string& actor,
                                           const std::string& reason, int64_t now_ms, bool only_after_rotation) {
  if (Status st = CheckPauseArguments(endpoint, actor, reason); !st.ok()) return st;
  bool wrote = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    wrote = !only_after_rotation || RotationOpen(db, endpoint);
    if (wrote) WriteAction(db, endpoint, "secret_retired", actor, reason, now_ms);
  });
  if (!st.ok()) return Prefixed("record secret retirement", st);
  return wrote;
}

Status SqlStore::RecordBreaker(const BreakerRecord& r) {
  if (r.endpoint.empty()) return InvalidArgument("record breaker: endpoint name is empty");
  Status st = writer_->Submit([&](sql::Connection& db) {
    Prepared up(db,
                "INSERT INTO endpoint_states (endpoint, breaker, breaker_changed_at, breaker_failures,"
                " breaker_next_probe_at, breaker_last_error, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?3)"
                " ON CONFLICT (endpoint) DO UPDATE SET breaker = excluded.breaker,"
                " breaker_changed_at = excluded.breaker_changed_at, breaker_failures = excluded.breaker_failures,"
                " breaker_next_probe_at = excluded.breaker_next_probe_at,"
                " breaker_last_error = excluded.breaker_last_error, updated_at = excluded.updated_at");
    up->bind(1, r.endpoint);
    up->bind(2, BreakerStateName(r.state));
    up->bind(3, r.at_ms);
    up->bind(4, r.failures);
    BindOptional(*up, 5, r.next_probe_at_ms);
    // Bounded (a downstream's error text can be long; the row is for people
    // to read) and valid UTF-8 even where the cut splits a character.
    BindText(*up, 6, ToValidUtf8(std::string_view(r.last_error).substr(0, kMaxReasonBytes)));
    up->exec();
  });
  return st.ok() ? st : Prefixed("record breaker", st);
}

}  // namespace hookinbox::store
