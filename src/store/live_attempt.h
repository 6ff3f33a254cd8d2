// store/live_attempt.h — whether a handler's grant still stands for a running
// attempt (internal to SqlStore): the one test behind every handler-API
// write and read (sql_ledger.cpp) and an async attempt's renewal and end
// (sql_handler_attempt.cpp), so a token never works for one route after it
// stopped working for another.
//
// Live means: the event is grant's (id), still holds grant's token
// (token_hash), is 'processing', is at grant's attempt (attempt_count) and
// its lease runs past now. The attempt is checked although a new claim also
// replaces the token: the token is what proves who calls, the attempt is
// what the ledger records (effects.attempt, step_results.attempt) and what
// an end closes, so the strictest test names both — a path that ever moved
// the attempt without a fresh token (a replay of a running event, a hand
// edit) then refuses the old grant instead of writing under the wrong attempt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/ledger.h"
#include "store/sql/sql.h"

namespace hookinbox::store {

// The condition on webhook_inbox, for a statement's WHERE: parameters
// ?first .. ?first+3, bound by BindLiveAttempt.
std::string LiveAttemptWhere(int first);
void BindLiveAttempt(sql::Statement& st, int first, const HandlerGrant& g, int64_t now_ms);

// The lease owner of grant's attempt when it is live at now_ms, else nullopt.
std::optional<std::string> LiveAttemptOwner(sql::Connection& db, const HandlerGrant& g, int64_t now_ms);

// True while grant's attempt is live at now_ms.
inline bool AttemptLive(sql::Connection& db, const HandlerGrant& g, int64_t now_ms) {
  return LiveAttemptOwner(db, g, now_ms).has_value();
}

}  // namespace hookinbox::store
