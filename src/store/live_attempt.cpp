#include "store/live_attempt.h"

#include "store/event_status.h"
#include "store/statement_cache.h"

namespace hookinbox::store {

std::string LiveAttemptWhere(int first) {
  auto p = [first](int i) { return "?" + std::to_string(first + i); };
  return "id = " + p(0) + " AND token_hash = " + p(1) + " AND status = " + SqlLiteral(EventStatus::kProcessing) +
         " AND attempt_count = " + p(2) + " AND lease_until > " + p(3);
}

void BindLiveAttempt(sql::Statement& st, int first, const HandlerGrant& g, int64_t now_ms) {
  st.bind(first, static_cast<int64_t>(g.inbox_id));
  st.bind(first + 1, g.token_hash);
  st.bind(first + 2, g.attempt);
  st.bind(first + 3, static_cast<int64_t>(now_ms));
}

std::optional<std::string> LiveAttemptOwner(sql::Connection& db, const HandlerGrant& g, int64_t now_ms) {
  static const std::string kSql = "SELECT lease_owner FROM webhook_inbox WHERE " + LiveAttemptWhere(1);
  Prepared st(db, kSql);
  BindLiveAttempt(*st, 1, g, now_ms);
  if (!st->executeStep() || st->getColumn(0).isNull()) return std::nullopt;
  return st->getColumn(0).getString();
}

}  // namespace hookinbox::store
