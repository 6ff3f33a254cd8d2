// store/purge.h — retention: what `[endpoint.retention]` removes, in bounded batches.
//
// Owns: the rules below, as SQL over one transaction per batch (run on the
// store's single writer, so receiving waits at most one batch). Must not
// know: config (the caller passes plain policies), HTTP.
//
// payload_days: the bodies of events past it — webhook_payloads rows
//   (original and conflict bodies, by created_at) and step_results rows (by
//   stored_at) — of terminal events only (completed, dead_lettered, skipped).
//   A received, processing, retryable_failed or unknown event keeps its body:
//   the worker or a person still needs it.
// key_days: terminal events whose last activity (received, completed, any
//   delivery, attempt or action of theirs) is older than it are removed with
//   their payloads, delivery rows, batch links, attempts, actions, effects and
//   step results. Their audit rows leave a purge checkpoint per run of the
//   chain they came from (store/audit_chain.h), so the chain still verifies.
//   Delivery rows without an event (rejected, ignored, a batch whose events
//   are all gone) past key_days go the same way; those of no configured
//   endpoint use the longest key_days configured (orphan_key_days).
// Kept on purpose: an event that a business_keys or object_versions row
//   names, or that holds an effect (status other than failed), keeps its
//   inbox row and audit rows (only its bodies go): those rows are what stops
//   a later, different event from acting twice, they reference the event
//   (ON DELETE CASCADE would remove them with it), and the gate reads the
//   holder's status through it. They are counted as `kept`.
#pragma once

#include "store/sql/sql.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace hookinbox::store {

struct RetentionPolicy {
  std::string endpoint;
  int payload_days = 0;  // 0 = keep bodies
  int key_days = 0;      // 0 = keep events
};

struct PurgeOptions {
  std::vector<RetentionPolicy> endpoints;  // every configured endpoint, with or without retention
  int orphan_key_days = 0;                 // rows of no configured endpoint; 0 = keep
  int64_t now_ms = 0;
  bool dry_run = false;  // count only
  int batch = 200;       // most events (or bodies) per transaction
  // Checked between batches: when it returns true the purge stops early (shutdown).
  std::function<bool()> stop;
};

struct PurgeCounts {
  int64_t payloads = 0;    // webhook_payloads rows
  int64_t steps = 0;       // step_results rows
  int64_t events = 0;      // webhook_inbox rows
  int64_t deliveries = 0;  // webhook_deliveries rows (with or without an event)
  int64_t attempts = 0;    // webhook_attempts rows
  int64_t kept = 0;        // terminal, past key_days, but kept (guards a business key, version or effect)
  bool any() const { return payloads + steps + events + deliveries + attempts > 0; }
};

struct PurgeReport {
  std::map<std::string, PurgeCounts> endpoints;  // "" = rows of no configured endpoint
  int64_t checkpoints = 0;                       // purge checkpoints written
};

// One batch of work for `policy` (or, with `orphans`, for rows of no
// configured endpoint), inside the caller's write transaction; adds what it
// removed (or, dry, would remove — then nothing changes and one call counts
// everything) to `counts`. Returns true when it removed something (call
// again). Throws sql::Error.
struct PurgeStep {
  RetentionPolicy policy;
  bool orphans = false;
  std::vector<std::string> configured;  // every configured endpoint name (for orphans)
};
bool PurgeBatch(sql::Connection& db, const PurgeStep& step, const PurgeOptions& options, PurgeCounts& counts,
                int64_t& checkpoints);

}  // namespace hookinbox::store
