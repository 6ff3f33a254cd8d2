// The Ledger on SQLite (see ledger.h). Writes are operations of the single
// Writer, so each decides under the database's write lock: two claims of one
// key, from any number of threads, run one after the other and exactly one
// wins. Each write first re-checks its token in the same transaction.
//
// Operations may be run twice (the Writer reruns a batch one by one when a
// neighbour throws), so each resets its outputs before deciding, and
// refusals are reported through outputs, never by throwing.
#include <SQLiteCpp/SQLiteCpp.h>

#include <mutex>

#include "common/digest.h"
#include "store/database.h"
#include "store/live_attempt.h"
#include "store/sql_bind.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

constexpr std::string_view kTokenPrefix = "hkt_";
constexpr size_t kTokenHexDigits = 64;

// The shape NewHandlerToken makes; anything else is refused without a lookup.
bool WellFormedToken(std::string_view token) {
  if (token.size() != kTokenPrefix.size() + kTokenHexDigits || token.substr(0, kTokenPrefix.size()) != kTokenPrefix) {
    return false;
  }
  for (char c : token.substr(kTokenPrefix.size())) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The claim: insert, or take the row over when it is ours, failed, or held
// by an attempt that is no longer live. RETURNING yields a row exactly when
// this event now holds the key.
bool TakeEffect(sql::Connection& db, const HandlerGrant& g, const std::string& key, int64_t now_ms) {
  Prepared st(db,
              "INSERT INTO effects (tenant_id, effect_key, status, inbox_id, attempt, claimed_at, updated_at)"
              " VALUES (?1, ?2, 'claimed', ?3, ?4, ?5, ?5)"
              " ON CONFLICT (tenant_id, effect_key) DO UPDATE SET status = 'claimed',"
              "  inbox_id = excluded.inbox_id, attempt = excluded.attempt, external_ref = NULL, error = NULL,"
              "  claimed_at = CASE WHEN effects.inbox_id = excluded.inbox_id AND effects.status = 'claimed'"
              "   THEN effects.claimed_at ELSE excluded.claimed_at END,"
              "  updated_at = excluded.updated_at"
              " WHERE effects.status = 'failed'"
              "  OR (effects.status = 'claimed' AND (effects.inbox_id = excluded.inbox_id"
              "   OR NOT EXISTS (SELECT 1 FROM webhook_inbox h WHERE h.id = effects.inbox_id"
              "    AND h.status = " + SqlLiteral(EventStatus::kProcessing) + " AND h.lease_until > ?5)))"
              " RETURNING status");
  st->bind(1, g.tenant_id);
  st->bind(2, key);
  st->bind(3, static_cast<int64_t>(g.inbox_id));
  st->bind(4, g.attempt);
  st->bind(5, static_cast<int64_t>(now_ms));
  return st->executeStep();
}

struct EffectRow {
  bool found = false;
  std::string status, external_ref;
  int64_t inbox_id = 0;
};

EffectRow ReadEffect(sql::Connection& db, const std::string& tenant, const std::string& key) {
  Prepared st(db, "SELECT status, external_ref, inbox_id FROM effects WHERE tenant_id = ? AND effect_key = ?");
  st->bind(1, tenant);
  st->bind(2, key);
  EffectRow r;
  if (!st->executeStep()) return r;
  r.found = true;
  r.status = st->getColumn(0).getString();
  r.external_ref = st->getColumn(1).isNull() ? "" : st->getColumn(1).getString();
  r.inbox_id = st->getColumn(2).getInt64();
  return r;
}

// Why the holder may not end `row` as `end` with `detail`; ok when it may
// (`*write` says whether anything is left to write: false for a repeat).
Status MayEnd(const EffectRow& row, const HandlerGrant& g, EffectEnd end, const std::string& detail, bool* write) {
  *write = false;
  if (!row.found) return NotFound("effect not claimed");
  if (row.inbox_id != g.inbox_id) return Status(Code::kConflict, "effect is held by another event");
  if (row.status == "claimed") {
    *write = true;
    return Status::Ok();
  }
  if (row.status != EffectEndName(end)) return Status(Code::kConflict, "effect is already " + row.status);
  if (end == EffectEnd::kDone && row.external_ref != detail) {
    return Status(Code::kConflict, "effect is already done with another external_ref");
  }
  return Status::Ok();  // the same end again: a handler's retried request
}

void WriteEnd(sql::Connection& db, const HandlerGrant& g, const std::string& key, EffectEnd end,
              const std::string& detail, int64_t now_ms) {
  Prepared st(db,
              "UPDATE effects SET status = ?1, external_ref = CASE WHEN ?1 = 'done' THEN ?2 END,"
              " error = CASE WHEN ?1 = 'done' THEN NULL ELSE ?2 END, attempt = ?3, updated_at = ?4"
              " WHERE tenant_id = ?5 AND effect_key = ?6 AND inbox_id = ?7 AND status = 'claimed'");
  st->bind(1, EffectEndName(end));
  BindText(*st, 2, detail);
  st->bind(3, g.attempt);
  st->bind(4, static_cast<int64_t>(now_ms));
  st->bind(5, g.tenant_id);
  st->bind(6, key);
  st->bind(7, static_cast<int64_t>(g.inbox_id));
  st->exec();
}

void WriteStep(sql::Connection& db, const HandlerGrant& g, const std::string& name, const std::string& content_type,
               const std::string& body, int64_t now_ms) {
  Prepared st(db,
              "INSERT INTO step_results (inbox_id, name, content_type, body, attempt, stored_at)"
              " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (inbox_id, name) DO UPDATE SET"
              " content_type = excluded.content_type, body = excluded.body, attempt = excluded.attempt,"
              " stored_at = excluded.stored_at");
  st->bind(1, static_cast<int64_t>(g.inbox_id));
  st->bind(2, name);
  st->bind(3, content_type);
  st->bind(4, body.data(), static_cast<int>(body.size()));
  st->bind(5, g.attempt);
  st->bind(6, static_cast<int64_t>(now_ms));
  st->exec();
}

std::optional<StepResult> ReadStep(sql::Connection& db, int64_t inbox_id, const std::string& name) {
  Prepared st(db,
              "SELECT content_type, body, attempt, stored_at FROM step_results WHERE inbox_id = ? AND name = ?");
  st->bind(1, static_cast<int64_t>(inbox_id));
  st->bind(2, name);
  if (!st->executeStep()) return std::nullopt;
  StepResult r;
  r.content_type = st->getColumn(0).getString();
  const auto body = st->getColumn(1);
  r.body = body.getString();
  r.attempt = st->getColumn(2).getInt();
  r.stored_at_ms = st->getColumn(3).getInt64();
  return r;
}

// What an operator's resolve of an effect found; the write happens only for kResolved.
enum class EffectResolveVerdict { kResolved, kMissing, kNotUnknown };

// Closes the effect when it is 'unknown' and writes the audit row on its
// event, in the writer's transaction.
EffectResolveVerdict WriteEffectResolve(sql::Connection& db, const std::string& tenant, const std::string& key,
                                        const std::string& as, const std::string& external_ref,
                                        const std::string& note, const std::string& actor, int64_t now_ms) {
  Prepared up(db,
              "UPDATE effects SET status = ?1, external_ref = CASE WHEN ?1 = 'done' THEN ?2 END,"
              " error = CASE WHEN ?1 = 'failed' THEN ?3 END, updated_at = ?4"
              " WHERE tenant_id = ?5 AND effect_key = ?6 AND status = 'unknown' RETURNING inbox_id");
  up->bind(1, as);
  BindText(*up, 2, external_ref);
  up->bind(3, "resolved as failed by " + actor);
  up->bind(4, static_cast<int64_t>(now_ms));
  up->bind(5, tenant);
  up->bind(6, key);
  if (!up->executeStep()) {
    return ReadEffect(db, tenant, key).found ? EffectResolveVerdict::kNotUnknown : EffectResolveVerdict::kMissing;
  }
  const int64_t inbox_id = up->getColumn(0).getInt64();
  up->reset();
  // webhook_event_actions is the operators' audit trail; the event itself
  // does not change state, so from and to are its current status.
  Prepared audit(db,
                 "INSERT INTO webhook_event_actions (inbox_id, at, actor, action, from_status, to_status,"
                 " result_ref, note) SELECT id, ?2, ?3, 'resolve', status, status, ?4, ?5"
                 " FROM webhook_inbox WHERE id = ?1");
  audit->bind(1, static_cast<int64_t>(inbox_id));
  audit->bind(2, static_cast<int64_t>(now_ms));
  audit->bind(3, actor);
  BindText(*audit, 4, external_ref);
  audit->bind(5, "effect " + key + ": unknown -> " + as + (note.empty() ? "" : "; " + note));
  audit->exec();
  return EffectResolveVerdict::kResolved;
}

constexpr const char* kExpiredMessage = "token expired: its attempt ended or was replaced";

Status Expired() { return Unauthenticated(kExpiredMessage); }

// True when `token_hash` was issued for one of the stored attempts: a token
// the event no longer holds (a later claim or a replay replaced it) is then
// a late handler's, not a guess.
bool IssuedBefore(sql::Connection& db, const std::string& token_hash) {
  Prepared st(db, "SELECT 1 FROM webhook_attempts WHERE token_hash = ? LIMIT 1");
  st->bind(1, token_hash);
  return st->executeStep();
}

}  // namespace

bool IsExpiredToken(const Status& status) {
  return status.code() == Code::kUnauthenticated && status.message() == kExpiredMessage;
}

Status CheckLedgerName(std::string_view what, std::string_view value) {
  if (value.empty()) return InvalidArgument(std::string(what) + " is missing or empty");
  if (value.size() > kMaxLedgerNameBytes) {
    return InvalidArgument(std::string(what) + " is longer than " + std::to_string(kMaxLedgerNameBytes) + " bytes");
  }
  for (unsigned char c : value) {
    if (c < 0x20 || c == 0x7f) return InvalidArgument(std::string(what) + " contains a control character");
  }
  return Status::Ok();
}

const char* EffectClaimStateName(EffectClaimState s) {
  switch (s) {
    case EffectClaimState::kClaimed: return "claimed";
    case EffectClaimState::kDone: return "done";
    case EffectClaimState::kInProgress: return "in_progress";
    case EffectClaimState::kUnknown: return "unknown";
  }
  return "unknown";
}

const char* EffectEndName(EffectEnd e) {
  switch (e) {
    case EffectEnd::kDone: return "done";
    case EffectEnd::kFailed: return "failed";
    case EffectEnd::kUnknown: return "unknown";
  }
  return "unknown";
}

Result<HandlerGrant> SqlStore::Authenticate(std::string_view token, int64_t now_ms) {
  if (!WellFormedToken(token)) return Unauthenticated("malformed token");
  return WithReader<HandlerGrant>(*readers_, "authenticate", [&](sql::Connection& db) -> Result<HandlerGrant> {
    Prepared st(db,
                "SELECT id, tenant_id, attempt_count, status, lease_until, provider, endpoint, event_id,"
                " COALESCE(retry_window_start, received_at), lease_owner FROM webhook_inbox WHERE token_hash = ?");
    HandlerGrant g;
    g.token_hash = Sha256Hex(token);
    st->bind(1, g.token_hash);
    if (!st->executeStep()) return IssuedBefore(db, g.token_hash) ? Expired() : Unauthenticated("unknown token");
    g.inbox_id = st->getColumn(0).getInt64();
    g.tenant_id = st->getColumn(1).getString();
    g.attempt = st->getColumn(2).getInt();
    g.lease_until_ms = st->getColumn(4).isNull() ? 0 : st->getColumn(4).getInt64();
    g.provider = st->getColumn(5).getString();
    g.endpoint = st->getColumn(6).getString();
    g.event_id = st->getColumn(7).getString();
    g.retry_window_start_ms = st->getColumn(8).getInt64();
    g.handed_over = !st->getColumn(9).isNull() && IsHandlerLeaseOwner(st->getColumn(9).getString());
    const bool processing = EventStatusFromSql(st->getColumn(3).getString()) == EventStatus::kProcessing;
    if (!processing || g.lease_until_ms <= now_ms) return Expired();
    return g;
  });
}

Result<EffectClaim> SqlStore::ClaimEffect(const HandlerGrant& grant, const std::string& key, int64_t now_ms) {
  if (Status st = CheckLedgerName("key", key); !st.ok()) return st;
  bool live = false;
  EffectClaim claim;
  Status st = writer_->Submit([&](sql::Connection& db) {
    claim = EffectClaim{};
    live = AttemptLive(db, grant, now_ms);
    if (!live || TakeEffect(db, grant, key, now_ms)) return;
    EffectRow row = ReadEffect(db, grant.tenant_id, key);
    if (row.status == "done") {
      claim.state = EffectClaimState::kDone;
      claim.external_ref = row.external_ref;
    } else if (row.status == "unknown") {
      claim.state = EffectClaimState::kUnknown;
    } else {
      claim.state = EffectClaimState::kInProgress;
    }
  });
  if (!st.ok()) return Prefixed("claim effect", st);
  if (!live) return Expired();
  return claim;
}

Status SqlStore::EndEffect(const HandlerGrant& grant, const std::string& key, EffectEnd end,
                              const std::string& detail, int64_t now_ms) {
  if (Status st = CheckLedgerName("key", key); !st.ok()) return st;
  if (detail.size() > kMaxLedgerTextBytes) {
    return InvalidArgument(std::string(end == EffectEnd::kDone ? "external_ref" : "error") + " is longer than " +
                           std::to_string(kMaxLedgerTextBytes) + " bytes");
  }
  bool live = false;
  Status verdict;
  Status st = writer_->Submit([&](sql::Connection& db) {
    verdict = Status::Ok();
    live = AttemptLive(db, grant, now_ms);
    if (!live) return;
    bool write = false;
    verdict = MayEnd(ReadEffect(db, grant.tenant_id, key), grant, end, detail, &write);
    if (verdict.ok() && write) WriteEnd(db, grant, key, end, detail, now_ms);
  });
  if (!st.ok()) return Prefixed(std::string("effect ") + EffectEndName(end), st);
  if (!live) return Expired();
  return verdict;
}

Status SqlStore::PutStep(const HandlerGrant& grant, const std::string& name, const std::string& content_type,
                            const std::string& body, int64_t now_ms) {
  if (Status st = CheckLedgerName("step name", name); !st.ok()) return st;
  if (body.size() > kMaxStepBytes) return TooLarge("step body is over " + std::to_string(kMaxStepBytes) + " bytes");
  bool live = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    live = AttemptLive(db, grant, now_ms);
    if (live) WriteStep(db, grant, name, content_type, body, now_ms);
  });
  if (!st.ok()) return Prefixed("put step", st);
  if (!live) return Expired();
  return Status::Ok();
}

Status SqlStore::ResolveEffect(const std::string& tenant, const std::string& key, const std::string& as,
                                  const std::string& external_ref, const std::string& note, const std::string& actor,
                                  int64_t now_ms) {
  if (Status st = CheckLedgerName("tenant", tenant); !st.ok()) return st;
  if (Status st = CheckLedgerName("key", key); !st.ok()) return st;
  if (as != "done" && as != "failed") return InvalidArgument("as must be \"done\" or \"failed\"");
  if (as == "failed" && !external_ref.empty()) return InvalidArgument("external_ref is only for as = \"done\"");
  if (external_ref.size() > kMaxLedgerTextBytes || note.size() > kMaxLedgerTextBytes) {
    return InvalidArgument("external_ref and note are at most " + std::to_string(kMaxLedgerTextBytes) + " bytes");
  }
  EffectResolveVerdict verdict = EffectResolveVerdict::kMissing;
  Status st = writer_->Submit([&](sql::Connection& db) {
    verdict = WriteEffectResolve(db, tenant, key, as, external_ref, note, actor, now_ms);
  });
  if (!st.ok()) return Prefixed("resolve effect", st);
  switch (verdict) {
    case EffectResolveVerdict::kResolved: return Status::Ok();
    case EffectResolveVerdict::kMissing: return NotFound("no such effect");
    case EffectResolveVerdict::kNotUnknown: return Status(Code::kConflict, "effect is not unknown");
  }
  return Status::Ok();
}

Result<std::optional<StepResult>> SqlStore::GetStep(const HandlerGrant& grant, const std::string& name,
                                                       int64_t now_ms) {
  if (Status st = CheckLedgerName("step name", name); !st.ok()) return st;
  // One snapshot: the token check and the read see the same database.
  return WithReader<std::optional<StepResult>>(*readers_, "get step",
                                               [&](sql::Connection& db) -> Result<std::optional<StepResult>> {
                                                 if (!AttemptLive(db, grant, now_ms)) return Expired();
                                                 return ReadStep(db, grant.inbox_id, name);
                                               });
}

}  // namespace hookinbox::store
