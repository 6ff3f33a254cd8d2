// store/alert_signals.h — the figures the alert engine (alert/engine.h)
// judges its conditions by, read from the database at check time, so they are
// right after a restart and the same on every replica.
//
// Cost: every query is bounded by an index (tests/unit/store/
// alert_signals_test.cpp checks the plans):
//   dead_lettered / unknown   webhook_inbox_attention (the queues' size, not the inbox's)
//   oldest due                webhook_inbox_due_by_endpoint (that endpoint's backlog)
//   conflicts                 webhook_deliveries_conflicts (conflicts are rare)
//   signature failures        webhook_deliveries_received_at (the last few minutes only)
//   last accepted             webhook_deliveries_accepted when present (one seek),
//                             else webhook_deliveries_received_at over the silence window
//   breaker                   endpoint_states (one row per endpoint)
//   day figures (digest)      the received_at indexes of both tables, over one day
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::store {

struct SignalQuery {
  std::vector<std::string> endpoints;    // the configured endpoints, each gets one EndpointSignals
  std::vector<std::string> with_action;  // those an action processes (only they have a backlog)
  int64_t conflicts_since_ms = 0;        // conflicting deliveries received at or after this
  int64_t signatures_since_ms = 0;       // signature refusals received at or after this
  int64_t accepted_since_ms = 0;         // look for the last accepted event no further back than this
};

struct EndpointSignals {
  std::string endpoint;
  int64_t dead_lettered = 0;       // events in 'dead_lettered' now
  int64_t unknown = 0;             // events in 'unknown' now
  int64_t conflicts = 0;           // conflicting deliveries since conflicts_since_ms
  int64_t signature_failures = 0;  // deliveries refused as unauthenticated since signatures_since_ms
  // The newest accepted delivery at or after accepted_since_ms (a batch is one
  // delivery; duplicates and refusals do not count); none = silent since then.
  std::optional<int64_t> last_accepted_at_ms;
  // received_at of the oldest event waiting for its action (received, retryable_failed, processing).
  std::optional<int64_t> oldest_due_received_at_ms;
  std::optional<int64_t> breaker_open_since_ms;  // the breaker is open (or half open) since
};

struct InstallationSignals {
  int64_t database_bytes = 0;
  // Free space where the database file lives; none on PostgreSQL (the
  // database server's disk is not ours to see).
  std::optional<int64_t> disk_free_bytes;
};

// One day's figures for the digest, over [from_ms, to_ms).
struct DayFigures {
  // Delivery requests (webhook_deliveries received that day).
  int64_t received = 0;    // accepted + duplicate + conflict
  int64_t duplicates = 0;  // duplicates absorbed
  int64_t rejected = 0;    // refused requests (folded floods counted by request_count)
  // The events that arrived that day, by their state now.
  int64_t events = 0;
  int64_t completed = 0;
  int64_t failed = 0;   // dead_lettered or unknown
  int64_t waiting = 0;  // received, retryable_failed or processing
};

class AlertSignals {
 public:
  virtual ~AlertSignals() = default;
  virtual Result<std::vector<EndpointSignals>> ReadEndpointSignals(const SignalQuery& q) = 0;
  virtual Result<InstallationSignals> ReadInstallationSignals() = 0;
  virtual Result<DayFigures> ReadDayFigures(int64_t from_ms, int64_t to_ms) = 0;
};

// The queries, exposed so the store tests can check their plans.
namespace alert_sql {
inline constexpr const char* kAttention =
    "SELECT status, count(*) FROM webhook_inbox WHERE endpoint = ?1"
    " AND status IN ('dead_lettered', 'unknown') GROUP BY status";
inline constexpr const char* kOldestDue =
    "SELECT min(received_at) FROM webhook_inbox WHERE endpoint = ?1"
    " AND status IN ('received', 'retryable_failed', 'processing')";
// "+received_at": the time is a filter, not an index range (unary plus on
// both backends), so the search stays in the small conflicts index instead
// of walking a day of every delivery.
inline constexpr const char* kConflicts =
    "SELECT coalesce(endpoint, ''), count(*) FROM webhook_deliveries WHERE outcome = 'conflict'"
    " AND +received_at >= ?1 GROUP BY 1";
inline constexpr const char* kSignatureFailures =
    "SELECT coalesce(endpoint, ''), sum(request_count) FROM webhook_deliveries WHERE received_at >= ?1"
    " AND outcome = 'rejected' AND reason LIKE 'unauthenticated:%' GROUP BY 1";
inline constexpr const char* kLastAccepted =
    "SELECT max(received_at) FROM webhook_deliveries WHERE outcome = 'accepted' AND endpoint = ?1"
    " AND received_at >= ?2";
inline constexpr const char* kBreakers =
    "SELECT endpoint, breaker_changed_at FROM endpoint_states WHERE breaker <> 'closed'";
inline constexpr const char* kDayDeliveries =
    "SELECT outcome, sum(request_count) FROM webhook_deliveries WHERE received_at >= ?1 AND received_at < ?2"
    " GROUP BY outcome";
inline constexpr const char* kDayEvents =
    "SELECT status, count(*) FROM webhook_inbox WHERE received_at >= ?1 AND received_at < ?2 GROUP BY status";
}  // namespace alert_sql

}  // namespace hookinbox::store
