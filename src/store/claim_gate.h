// store/claim_gate.h — what decides, inside the claim's transaction, whether a
// due event may run now (internal to the SQLite store).
//
// Owns the business-key and ordering rules of SPEC §4/§6 ("Beyond the
// inbox"): an event whose business key another event already applied is
// skipped (duplicate_business_key); one whose object already has a newer
// version applied is skipped (stale_version); an equal version with another
// payload is a conflict for a person (dead_lettered); one whose key or object
// is held by an event still in flight waits for it (no attempt is spent).
// Everything runs on the caller's connection inside the Writer's
// transaction, so the check and the claim are decided under one write lock.
#pragma once

#include "store/sql/sql.h"

#include <cstdint>
#include <string>

#include "store/event_status.h"
#include "store/work_queue.h"

namespace hookinbox::store {

// The fields of a due event the gate reads.
struct DueEvent {
  int64_t id = 0;
  EventStatus status = EventStatus::kReceived;
  std::string endpoint, tenant_id, payload_hash;
  std::string business_key, business_key_hint, object_key;  // "" = none
  int64_t object_version = 0;
  int64_t next_attempt_at_ms = 0;  // where it sits in the due order (with id)
};

enum class GateVerdict { kProceed, kSkip, kWait, kConflict };

struct GateDecision {
  GateVerdict verdict = GateVerdict::kProceed;
  std::string reason;      // kSkip: "duplicate_business_key" | "stale_version"
  int64_t other_id = 0;    // the event that applied (kSkip, kConflict) or holds (kWait)
  int64_t until_ms = 0;    // kWait: when to look again at the latest (a finish wakes it sooner)
  std::string error;       // for last_error and the attempt row
};

// The decision for `e` at `now_ms`. Reads only.
GateDecision Gate(sql::Connection& db, const DueEvent& e, int64_t now_ms, int64_t lease_ms);

// Applies a kSkip, kWait or kConflict decision to `e` (not yet claimed):
// skipped and conflicting events end with an attempt row saying why;
// waiting ones keep their state and attempt count and become due at until_ms.
// The caller has closed the open attempt of a 'processing' `e` (lease expired) first.
void ApplyGate(sql::Connection& db, const DueEvent& e, const GateDecision& d, const std::string& owner,
               int64_t now_ms);

// `e` proceeds: it holds its business key from now on (until it completes:
// applied; or dead-letters: free again).
void HoldBusinessKey(sql::Connection& db, const DueEvent& e, int64_t now_ms);

// After event `id` moved to `status` (completed, retryable_failed,
// dead_lettered, unknown): its business key becomes applied or free, a
// completed object version is recorded, and events waiting for it are due now.
void AfterFinish(sql::Connection& db, int64_t id, EventStatus status, int64_t now_ms);

}  // namespace hookinbox::store
