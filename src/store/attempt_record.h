// store/attempt_record.h — the end of an attempt, written inside the
// writer's transaction (internal to SqlStore): the one path by which the
// worker's Finish (sql_work_queue.cpp) and a handler's end through the
// handler API (sql_handler_attempt.cpp) record an attempt, so both leave
// the event, its attempt row, the audit chain and what waits on it alike.
#pragma once

#include <string>

#include "common/status.h"
#include "store/sql/sql.h"
#include "store/work_queue.h"

namespace hookinbox::store {

// InvalidArgument unless `r` names an owner, and a next attempt time when
// it is retryable_failed.
Status CheckResult(const AttemptResult& r);

// Moves the event out of 'processing' and closes r.owner's attempt row with
// r's outcome, fenced by (id, lease owner, attempt): the lease owner is
// `*lease_owner` when given (a handler's, HandlerLeaseOwner(r.owner)), else
// r.owner. Returns false when the fence failed: the attempt row is then
// closed as 'lost' and the event is untouched.
bool FinishInTransaction(sql::Connection& db, const AttemptResult& r, const std::string* lease_owner = nullptr);

}  // namespace hookinbox::store
