// store/activity.h — per-endpoint counts over time for the dashboard's
// charts (GET /admin/api/activity): deliveries by outcome (when they were
// received) and the action's attempts by outcome (when they ended), in
// equal time buckets.
//
// Cost: both reads are bounded by the window, never by the table: deliveries
// by webhook_deliveries_received_at, attempts by webhook_attempts_finished_at
// (migration 9), each attempt joined to its event by primary key for the
// endpoint. tests/unit/store/activity_test.cpp checks the plans.
// Read-only; knows nothing of HTTP.
#pragma once

#include "store/sql/sql.h"

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::store {

struct ActivityOptions {
  int64_t start_ms = 0;   // the first bucket's start (inclusive)
  int64_t bucket_ms = 0;  // each bucket's length, > 0
  int buckets = 0;        // how many; the window ends at start_ms + buckets * bucket_ms (exclusive)
  // The endpoints to report, in this order, each with every bucket (zeros
  // included: a quiet endpoint is what a chart must show). Deliveries to no
  // endpoint listed here (unknown paths) are left out.
  std::vector<std::string> endpoints;
};

struct ActivityBucket {
  int64_t start_ms = 0;
  // Delivery requests received in the bucket; a folded flood of rejections
  // counts its request_count.
  int64_t accepted = 0, duplicate = 0, conflict = 0, rejected = 0;
  // Action attempts (not reconciliation probes) that ended in the bucket:
  // completed, or failed = retryable_failed, dead_lettered or unknown.
  int64_t completed = 0, failed = 0;
};

struct EndpointActivity {
  std::string endpoint;
  std::vector<ActivityBucket> buckets;
};

// The queries, exposed so the unit test can check their plans. ?1 = start,
// ?2 = bucket length, ?3 = end; rows are (endpoint, bucket index, outcome, count).
namespace activity_sql {
inline constexpr const char* kDeliveries =
    "SELECT coalesce(endpoint, ''), (received_at - ?1) / ?2, outcome, sum(request_count)"
    " FROM webhook_deliveries WHERE received_at >= ?1 AND received_at < ?3 GROUP BY 1, 2, 3";
inline constexpr const char* kAttempts =
    "SELECT i.endpoint, (a.finished_at - ?1) / ?2, a.outcome, count(*)"
    " FROM webhook_attempts a JOIN webhook_inbox i ON i.id = a.inbox_id"
    " WHERE a.finished_at >= ?1 AND a.finished_at < ?3 AND a.kind = 'action'"
    " AND a.outcome IN ('completed', 'retryable_failed', 'dead_lettered', 'unknown') GROUP BY 1, 2, 3";
}  // namespace activity_sql

// Reads both counts in one read transaction on `db`. SQL errors propagate
// as exceptions (SqlStore::ReadActivity turns them into a Status).
std::vector<EndpointActivity> ReadActivity(sql::Connection& db, const ActivityOptions& options);

}  // namespace hookinbox::store
