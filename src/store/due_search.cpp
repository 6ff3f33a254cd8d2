// store/due_search.cpp — see due_search.h.
#include "store/due_search.h"

#include <algorithm>

#include "store/sql_bind.h"
#include "store/statement_cache.h"

namespace hookinbox::store {

std::string due_sql::OldestDue(size_t running) {
  // For 'processing' rows next_attempt_at = lease_until (schema.sql
  // migration 3), so a lease still held lies past ?2 and an expired one
  // comes out of the same range.
  std::string sql =
      "SELECT id, status, endpoint, tenant_id, payload_hash, coalesce(business_key, ''),"
      " coalesce(business_key_hint, ''), coalesce(object_key, ''), coalesce(object_version, 0), next_attempt_at"
      " FROM webhook_inbox WHERE endpoint = ?1 AND status IN " + SqlList(kLeasableStatuses) +
      " AND next_attempt_at <= ?2 AND (status <> " + SqlLiteral(EventStatus::kProcessing) + " OR lease_until < ?2)";
  if (running > 0) sql += " AND id NOT IN (" + Placeholders(3, running) + ")";
  return sql + " ORDER BY next_attempt_at, id LIMIT 1";
}

std::optional<DueEvent> OldestDue(sql::Connection& db, const std::string& endpoint, int64_t now_ms,
                                  const std::vector<int64_t>& running) {
  Prepared st(db, due_sql::OldestDue(running.size()));
  st->bind(1, endpoint);
  st->bind(2, static_cast<int64_t>(now_ms));
  BindIds(*st, 3, running);
  if (!st->executeStep()) return std::nullopt;
  DueEvent e;
  e.id = st->getColumn(0).getInt64();
  e.status = EventStatusFromSql(st->getColumn(1).getString()).value_or(EventStatus::kUnknown);
  e.endpoint = st->getColumn(2).getString();
  e.tenant_id = st->getColumn(3).getString();
  e.payload_hash = st->getColumn(4).getString();
  e.business_key = st->getColumn(5).getString();
  e.business_key_hint = st->getColumn(6).getString();
  e.object_key = st->getColumn(7).getString();
  e.object_version = st->getColumn(8).getInt64();
  e.next_attempt_at_ms = st->getColumn(9).getInt64();
  return e;
}

std::optional<int64_t> EarliestDue(sql::Connection& db, const std::string& endpoint) {
  Prepared st(db, due_sql::kEarliest);
  st->bind(1, endpoint);
  if (!st->executeStep()) return std::nullopt;
  return st->getColumn(0).getInt64();
}

std::optional<int64_t> EarliestDue(sql::Connection& db, const std::vector<std::string>& endpoints) {
  std::optional<int64_t> earliest;
  for (const std::string& endpoint : endpoints) {
    std::optional<int64_t> at = EarliestDue(db, endpoint);
    if (at && (!earliest || *at < *earliest)) earliest = at;
  }
  return earliest;
}

std::vector<std::string> PendingEndpoints(sql::Connection& db) {
  std::vector<std::string> out;
  Prepared st(db, due_sql::kNextPendingEndpoint);
  std::string after;  // "" sorts before every endpoint name (names are never empty)
  while (true) {
    st->reset();
    st->bind(1, after);
    if (!st->executeStep()) return out;
    after = st->getColumn(0).getString();
    out.push_back(after);
  }
}

std::vector<std::string> PausedEndpointNames(sql::Connection& db) {
  Prepared st(db, due_sql::kPaused);
  std::vector<std::string> out;
  while (st->executeStep()) out.push_back(st->getColumn(0).getString());
  return out;
}

std::vector<std::string> SearchedEndpoints(sql::Connection& db, const std::optional<std::vector<std::string>>& only,
                                           const std::vector<std::string>& excluded) {
  std::vector<std::string> out = only ? *only : PendingEndpoints(db);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  // Read in the claim's own transaction: a pause committed before it holds,
  // whichever process or replica wrote it.
  const std::vector<std::string> paused = PausedEndpointNames(db);
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const std::string& e) {
                             return std::find(excluded.begin(), excluded.end(), e) != excluded.end() ||
                                    std::find(paused.begin(), paused.end(), e) != paused.end();
                           }),
            out.end());
  return out;
}

}  // namespace hookinbox::store
