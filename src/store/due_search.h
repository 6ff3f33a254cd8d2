// store/due_search.h — where a claim looks for the next due event (internal
// to the SQL store), and why its cost does not depend on what other endpoints
// hold.
//
// The partial index webhook_inbox_due_by_endpoint (endpoint, next_attempt_at,
// id) holds the three claimable states. A claim seeks it once per endpoint
// it may take — the oldest due row of that endpoint — and takes the oldest of
// those. Endpoints no worker may take now (no action, at their concurrency,
// paused, behind an open breaker) are never entered, so the rows
// they hold are never visited, however many there are. Rows inside a
// searched endpoint's range that are not due yet (waiting for a retry or a
// lease) lie past `now` in the index and are not visited either.
//
// tests/unit/store/due_search_test.cpp checks the plans (EXPLAIN QUERY PLAN,
// and EXPLAIN on PostgreSQL) and counts the rows a claim visits.
#pragma once

#include "store/sql/sql.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/claim_gate.h"
#include "store/event_status.h"

namespace hookinbox::store {

// The statements, exposed for the plan tests. ?1 is the endpoint, ?2 now (ms).
// Their status IN-lists are webhook_inbox_due_by_endpoint's predicate,
// spelled as literals so the planner can match the partial index.
namespace due_sql {
// The oldest due event of one endpoint; `running` ids (?3…) are left out.
std::string OldestDue(size_t running);
// The earliest next_attempt_at of one endpoint's claimable rows (due or not).
inline const std::string kEarliest =
    "SELECT next_attempt_at FROM webhook_inbox WHERE endpoint = ?1"
    " AND status IN " + SqlList(kLeasableStatuses) + " AND next_attempt_at IS NOT NULL"
    " ORDER BY next_attempt_at LIMIT 1";
// The next endpoint after ?1 that holds a claimable row: a loose index scan,
// one seek per endpoint.
inline const std::string kNextPendingEndpoint =
    "SELECT endpoint FROM webhook_inbox WHERE status IN " + SqlList(kLeasableStatuses) +
    " AND endpoint > ?1 ORDER BY endpoint LIMIT 1";
// The endpoints paused now (store/endpoint_states.h), by name.
inline const std::string kPaused =
    "SELECT endpoint FROM endpoint_states WHERE paused_at IS NOT NULL ORDER BY endpoint";
}  // namespace due_sql

// The oldest event of `endpoint` due at `now_ms` and not in `running`.
std::optional<DueEvent> OldestDue(sql::Connection& db, const std::string& endpoint, int64_t now_ms,
                                  const std::vector<int64_t>& running);

// When `endpoint`'s earliest claimable row is (or became) due; nullopt when it has none.
std::optional<int64_t> EarliestDue(sql::Connection& db, const std::string& endpoint);

// The earliest of EarliestDue over `endpoints`.
std::optional<int64_t> EarliestDue(sql::Connection& db, const std::vector<std::string>& endpoints);

// Every endpoint holding a claimable row, by name.
std::vector<std::string> PendingEndpoints(sql::Connection& db);

// Every endpoint paused now, by name (a primary-key table of a few rows).
std::vector<std::string> PausedEndpointNames(sql::Connection& db);

// The endpoints a claim searches: `only` when given, else every pending
// endpoint; `excluded` and the paused endpoints taken out of either.
std::vector<std::string> SearchedEndpoints(sql::Connection& db, const std::optional<std::vector<std::string>>& only,
                                           const std::vector<std::string>& excluded);

}  // namespace hookinbox::store
