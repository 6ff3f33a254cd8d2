// store/stats.h — per-endpoint figures read from the database: what
// /metrics's state gauges, /admin/api/stats (the dashboard) and
// `hookinbox stats` show. Read at call time, so they are right after a
// restart and agree with what sqlite3 reads from the file.
//
// Backlog and oldest pending count only the events some action will process:
// those of the endpoints named in StatsOptions::with_action. A receive-only
// endpoint keeps its events 'received' forever; they are not waiting for
// anything, and counting them would make an alert on the backlog never clear.
//
// Cost (EXPLAIN QUERY PLAN, see stats.cpp): the endpoint list is a loose
// index scan of the inbox's unique key (one seek per endpoint); backlog and
// oldest pending search the partial index webhook_inbox_due_by_endpoint once
// per endpoint with an action (cost grows with that endpoint's backlog, not
// the table, and receive-only endpoints cost nothing). dead_lettered/unknown (and the oldest dead letter)
// read the partial index webhook_inbox_attention; the totals (with_totals) scan webhook_deliveries and the inbox,
// which is why /metrics does not ask for them.
#pragma once

#include "store/sql/sql.h"

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/event_status.h"

namespace hookinbox::store {

struct EndpointStats {
  std::string endpoint;  // "" for deliveries to no known endpoint (rejected 404s)
  std::string provider;
  // State now.
  bool has_action = false;                    // named in StatsOptions::with_action
  int64_t backlog = 0;                        // received + retryable_failed + processing; 0 without an action
  int64_t oldest_pending_received_at_ms = 0;  // received_at of the oldest backlog event; 0 when none
  int64_t dead_lettered = 0;
  // When the longest-waiting dead letter got there (its last attempt's end;
  // its arrival if it has none); 0 when none.
  int64_t oldest_dead_letter_at_ms = 0;
  int64_t unknown = 0;
  // Totals since the database was created (or last purged); only with_totals.
  int64_t received = 0;    // delivery requests accepted + duplicate + conflict (SPEC §9)
  int64_t duplicates = 0;
  int64_t conflicts = 0;
  int64_t rejected = 0;    // rejected requests, folded rows counted by request_count
  int64_t completed = 0;   // events in state completed
};

struct Stats {
  std::vector<EndpointStats> endpoints;  // sorted by endpoint, then provider
  bool with_totals = false;
};

struct StatsOptions {
  bool with_totals = false;  // also the delivery and completed totals (scans; not for every scrape)
  // The endpoints an action processes (config::Config::EndpointsWithAction);
  // only their events count as backlog.
  std::vector<std::string> with_action;
};

// The queries, exposed so tests/unit/store/stats_test.cpp can check their
// plans with EXPLAIN QUERY PLAN.
namespace stats_sql {
inline constexpr const char* kFirstEndpoint =
    "SELECT provider, endpoint FROM webhook_inbox ORDER BY provider, endpoint LIMIT 1";
inline constexpr const char* kNextEndpoint =
    "SELECT provider, endpoint FROM webhook_inbox WHERE (provider, endpoint) > (?, ?)"
    " ORDER BY provider, endpoint LIMIT 1";
// One endpoint's backlog (?1), per provider.
// The status IN-lists are the partial indexes' predicates, as literals.
inline const std::string kBacklog =
    "SELECT provider, count(*), min(received_at) FROM webhook_inbox"
    " WHERE endpoint = ?1 AND status IN " + SqlList(kLeasableStatuses) + " GROUP BY provider";
inline const std::string kAttention =
    "SELECT endpoint, provider, status, count(*) FROM webhook_inbox"
    " WHERE status IN " + SqlList(kAttentionStatuses) + " GROUP BY endpoint, provider, status";
// Per endpoint, when its longest-waiting dead letter ended its last attempt:
// the attention index, then each dead letter's attempts by inbox_id. The
// IN-list repeats the partial index's predicate, without which SQLite
// would not use it (and would scan the inbox).
inline const std::string kOldestDeadLetter =
    "SELECT i.endpoint, i.provider, min(coalesce((SELECT max(a.finished_at) FROM webhook_attempts a"
    " WHERE a.inbox_id = i.id), i.received_at)) FROM webhook_inbox i WHERE i.status IN " +
    SqlList(kAttentionStatuses) + " AND i.status = " + SqlLiteral(EventStatus::kDeadLettered) +
    " GROUP BY i.endpoint, i.provider";
inline constexpr const char* kDeliveryTotals =
    "SELECT coalesce(endpoint, ''), coalesce(provider, ''), outcome, sum(request_count)"
    " FROM webhook_deliveries GROUP BY 1, 2, 3";
inline const std::string kCompleted = "SELECT endpoint, provider, count(*) FROM webhook_inbox WHERE status = " +
                                      SqlLiteral(EventStatus::kCompleted) + " GROUP BY endpoint, provider";
}  // namespace stats_sql

// Reads the figures in one read transaction on `db`. SQLite errors propagate
// as exceptions (SqlStore::ReadStats turns them into a Status).
Stats ReadStats(sql::Connection& db, const StatsOptions& options);

}  // namespace hookinbox::store
