// The asynchronous attempt (action.async): the worker hands the event's
// lease to its handler on a 202 (HandOver), and the handler renews it or
// ends the attempt through the handler API (RenewAttempt, EndAttempt).
//
// The end goes through FinishInTransaction, the worker's own record, so an
// attempt a handler ends leaves exactly what one the worker ends leaves.
// Every write is fenced by the token's attempt being live (live_attempt.h:
// id, token_hash, status, attempt_count, lease running), decided under the
// write lock: a handler whose lease lapsed and was reclaimed, or that
// already ended the attempt, changes nothing.
#include <string>
#include <string_view>

#include "store/attempt_record.h"
#include "store/live_attempt.h"
#include "store/sql_bind.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

constexpr std::string_view kHandlerOwnerPrefix = "handler:";

// The worker whose attempt row it is: the lease owner, or the one that handed it over.
std::string WorkerOf(const std::string& lease_owner) {
  return IsHandlerLeaseOwner(lease_owner) ? lease_owner.substr(kHandlerOwnerPrefix.size()) : lease_owner;
}

Status NotLive(const HandlerGrant& g) {
  // The same "attempt ended:" opening as a late token's refusal (admin/handler_api.cpp):
  // the attempt can end between the token check and this write.
  return Status(Code::kConflict, "attempt ended: event " + std::to_string(g.inbox_id) +
                                     " is no longer processing under this attempt: it already ended, was replayed "
                                     "or reclaimed, or its lease lapsed");
}

}  // namespace

std::string HandlerLeaseOwner(const std::string& worker_owner) {
  return std::string(kHandlerOwnerPrefix) + worker_owner;
}

bool IsHandlerLeaseOwner(const std::string& lease_owner) {
  return lease_owner.compare(0, kHandlerOwnerPrefix.size(), kHandlerOwnerPrefix) == 0;
}

Status SqlStore::HandOver(int64_t id, const std::string& owner, int attempt, int64_t until_ms) {
  bool moved = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    static const std::string kSql =
        // Never shortens the lease: the handler may have renewed it (for
        // longer) between its 202 and this write.
        "UPDATE webhook_inbox SET lease_owner = ?1,"
        " lease_until = CASE WHEN lease_until > ?2 THEN lease_until ELSE ?2 END,"
        " next_attempt_at = CASE WHEN lease_until > ?2 THEN lease_until ELSE ?2 END"
        " WHERE id = ?3 AND lease_owner = ?4 AND status = " +
        SqlLiteral(EventStatus::kProcessing) + " AND attempt_count = ?5";
    Prepared up(db, kSql);
    up->bind(1, HandlerLeaseOwner(owner));
    up->bind(2, static_cast<int64_t>(until_ms));
    up->bind(3, static_cast<int64_t>(id));
    up->bind(4, owner);
    up->bind(5, attempt);
    moved = up->exec() == 1;
  });
  if (!st.ok()) return Prefixed("hand over", st);
  if (!moved) return Status(Code::kConflict, "hand over: event " + std::to_string(id) + " is no longer ours");
  return Status::Ok();
}

Status SqlStore::EndAttempt(const HandlerGrant& grant, AttemptResult result) {
  result.id = grant.inbox_id;
  result.attempt = grant.attempt;
  bool live = false;
  bool moved = false;
  Status invalid;
  Status st = writer_->Submit([&](sql::Connection& db) {
    live = moved = false;  // a rerun starts over
    invalid = Status::Ok();
    std::optional<std::string> lease_owner = LiveAttemptOwner(db, grant, result.finished_at_ms);
    if (!lease_owner) return;
    live = true;
    AttemptResult r = result;
    // Checked as the worker's Finish checks, here where the owner is known:
    // the worker whose attempt row it is comes from the lease.
    r.owner = WorkerOf(*lease_owner);
    invalid = CheckResult(r);
    if (invalid.ok()) moved = FinishInTransaction(db, r, &*lease_owner);
  });
  if (!st.ok()) return Prefixed("end attempt", st);
  if (!invalid.ok()) return invalid;
  // Checked live in the same transaction, the fence cannot fail; if it did,
  // the attempt row says 'lost' and the handler hears the same as a late one.
  if (!live || !moved) return NotLive(grant);
  return Status::Ok();
}

Status SqlStore::RenewAttempt(const HandlerGrant& grant, int64_t until_ms, int64_t now_ms) {
  if (until_ms <= now_ms) return InvalidArgument("renew: the new lease end must be in the future");
  bool renewed = false;
  Status st = writer_->Submit([&](sql::Connection& db) {
    static const std::string kSql =
        "UPDATE webhook_inbox SET lease_until = ?1, next_attempt_at = ?1 WHERE " + LiveAttemptWhere(2);
    Prepared up(db, kSql);
    up->bind(1, static_cast<int64_t>(until_ms));
    BindLiveAttempt(*up, 2, grant, now_ms);
    renewed = up->exec() == 1;
  });
  if (!st.ok()) return Prefixed("renew", st);
  if (!renewed) return NotLive(grant);
  return Status::Ok();
}

}  // namespace hookinbox::store
