// store/ledger.h — the side-effect ledger and step results behind the
// handler API (SPEC §9 "Handler API"; tables `effects`, `step_results`).
//
// A handler proves which event it works for with the token of that event's
// current attempt (LeasedEvent::token). Only the token's SHA-256 is stored
// (webhook_inbox.token_hash), so the token is looked up by its digest and
// the lookup leaks nothing usable about it. A token is valid exactly while
// its attempt runs: the event is 'processing', its lease has not expired and
// no later claim replaced the token. SPEC only requires it to stop at a
// terminal state; we stop it at the end of the attempt (a retry gets a new
// token), which also covers terminal states.
//
// Effects are keyed by (tenant, key): two events of one tenant claiming the
// same key share one row, and exactly one holds it at a time. Steps are
// keyed by (event, name): one event never sees another's steps.
//
// Every write re-checks the token inside its own transaction, so an attempt
// that ends between Authenticate and the write can no longer change anything.
// Durability: a write that returns ok is committed (synchronous=FULL); a
// refused or failed write changed nothing.
// Thread-safety: all methods may be called from any thread concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "store/work_queue.h"

namespace hookinbox::store {

// Limits of the handler API's values (bytes).
inline constexpr size_t kMaxLedgerNameBytes = 200;     // an effect key or a step name
inline constexpr size_t kMaxLedgerTextBytes = 1024;    // an external_ref or an error
inline constexpr size_t kMaxStepBytes = 1024 * 1024;   // a step's stored body

// Ok when `value` is 1..kMaxLedgerNameBytes bytes without control characters
// (bytes below 0x20 and 0x7f); else InvalidArgument naming `what`.
Status CheckLedgerName(std::string_view what, std::string_view value);

// What a valid token stands for.
struct HandlerGrant {
  int64_t inbox_id = 0;
  std::string tenant_id;
  std::string provider, endpoint, event_id;  // the event's, for the handler API's record, log and metrics
  int64_t retry_window_start_ms = 0;         // as LeasedEvent's: the retry horizon counts from here
  bool handed_over = false;  // the worker handed the attempt to its handler (WorkQueue::HandOver, a 202 on async)
  int attempt = 0;             // the event's attempt_count: the attempt the token was issued for
  int64_t lease_until_ms = 0;  // the token stops working at this time unless the lease is renewed
  std::string token_hash;      // Sha256Hex(token), re-checked by every write
};

enum class EffectClaimState {
  kClaimed,     // do the effect now (new, already ours, or taken over from a dead holder or a failure)
  kDone,        // done before: do not repeat; external_ref says what it was
  kInProgress,  // another event's live attempt holds it
  kUnknown,     // its outcome is unknown: blocked until a person reconciles it
};
const char* EffectClaimStateName(EffectClaimState s);  // "claimed" | "done" | "in_progress" | "unknown"

struct EffectClaim {
  EffectClaimState state = EffectClaimState::kClaimed;
  std::string external_ref;  // kDone: as completed ("" when none was given)
};

// How the holder ends an effect: 'done' (with external_ref), 'failed' (the
// effect did not happen; anyone may claim it again, with error) or 'unknown'
// (it may have happened; nobody may claim it until reconciled).
enum class EffectEnd { kDone, kFailed, kUnknown };
const char* EffectEndName(EffectEnd e);  // "done" | "failed" | "unknown"

struct StepResult {
  std::string content_type;
  std::string body;
  int attempt = 0;  // the attempt that stored it
  int64_t stored_at_ms = 0;
};

// True for a refusal of a token that was real but no longer works (its
// attempt ended, its lease expired, a later claim or a replay replaced it),
// as opposed to one that is malformed or was never issued: a late handler,
// not a guess. Each attempt row keeps its token's hash, so a replaced token
// is still recognised while its event's attempt rows are kept (until purge).
bool IsExpiredToken(const Status& status);

class Ledger {
 public:
  virtual ~Ledger() = default;

  // The grant of `token` at `now_ms`. Errors: Unauthenticated for a token
  // that is malformed or unknown, and the same code with IsExpiredToken for
  // one whose attempt ended, lease expired, or that a later claim or a
  // replay replaced; Unavailable when the database is.
  virtual Result<HandlerGrant> Authenticate(std::string_view token, int64_t now_ms) = 0;

  // Ends grant's attempt as the worker's Finish would, with the same writes
  // (store/attempt_record.h): the event's state, its attempt row, the audit
  // chain, what waits on it. `result` says how (outcome, finished_at,
  // next_attempt_at, result_ref, error); its id, attempt and owner are set
  // here from the grant and the event's lease. Decided in one transaction
  // with the token re-checked. Errors: Conflict when the event is no longer
  // 'processing' under grant's attempt with a lease running past
  // result.finished_at_ms (ended — by this handler before —, replayed,
  // reclaimed, or its lease lapsed); InvalidArgument as Finish. Nothing
  // changed on error.
  virtual Status EndAttempt(const HandlerGrant& grant, AttemptResult result) = 0;

  // Extends grant's lease (and so its token's life) to `until_ms`, decided
  // like EndAttempt at `now_ms`; the lease's owner does not change. Errors:
  // Conflict as EndAttempt; InvalidArgument when until_ms <= now_ms.
  virtual Status RenewAttempt(const HandlerGrant& grant, int64_t until_ms, int64_t now_ms) = 0;

  // Claims (grant.tenant_id, key) for grant's event, deciding in one
  // transaction. Claimed when the key is new, already held by this event
  // (any attempt), 'failed', or held by an event whose attempt is no longer
  // live (not processing, or its lease expired). Errors: Unauthenticated
  // (token no longer valid), InvalidArgument (bad key); nothing changed.
  virtual Result<EffectClaim> ClaimEffect(const HandlerGrant& grant, const std::string& key, int64_t now_ms) = 0;

  // The holder ends its claim. `detail` is the external_ref (kDone) or the
  // error (kFailed, kUnknown; may be empty). Repeating the same end is ok (a
  // handler's retried request). Errors: Unauthenticated; NotFound when the
  // key was never claimed; Conflict when another event holds it, or it
  // already ended otherwise (another external_ref, another state);
  // InvalidArgument for a bad key or an oversized detail. Nothing changed on error.
  virtual Status EndEffect(const HandlerGrant& grant, const std::string& key, EffectEnd end,
                           const std::string& detail, int64_t now_ms) = 0;

  // Stores (or replaces) step `name` of grant's event: body as-is, with its
  // content type. Errors: Unauthenticated, InvalidArgument (bad name),
  // TooLarge (body over kMaxStepBytes); nothing changed.
  virtual Status PutStep(const HandlerGrant& grant, const std::string& name, const std::string& content_type,
                         const std::string& body, int64_t now_ms) = 0;

  // Step `name` of grant's event; nullopt when it was never stored.
  // Errors: Unauthenticated, InvalidArgument (bad name).
  virtual Result<std::optional<StepResult>> GetStep(const HandlerGrant& grant, const std::string& name,
                                                    int64_t now_ms) = 0;
};

}  // namespace hookinbox::store
