// store/work_queue.h — the worker's side of the inbox: leases, and state
// transitions with their attempt-audit rows. The operator's verbs (replay,
// resolve, list, show) are store/admin_queries.h.
//
// States and transitions are SPEC §4. LeaseDue takes the oldest due event and
// leases it to one owner; every later write of that attempt is conditional on
// (id, lease_owner, status = 'processing', attempt_count), so a worker whose
// lease expired and whose event was re-claimed can never overwrite the new
// owner's work. SqlStore implements it on SQLite and on PostgreSQL. Knows
// nothing of HTTP or of actions.
//
// Durability contract: when a write call returns ok, its transaction is
// committed (synchronous=FULL). On any error nothing was changed, except
// where a method says otherwise (a lost lease records a 'lost' attempt).
// Thread-safety: all methods may be called from any thread concurrently.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/event_status.h"

namespace hookinbox::store {

// An event leased to a worker, with what its action needs.
struct LeasedEvent {
  int64_t id = 0;
  std::string provider, endpoint, tenant_id, event_id, event_type, payload_hash;
  int attempt = 0;            // attempt_count after this claim: 1 for the first
  int64_t received_at_ms = 0;
  // Start of the retry window: when the event was received, or last
  // replayed (COALESCE(retry_window_start, received_at)). The retry horizon
  // (worker.retry_for) counts from here.
  int64_t retry_window_start_ms = 0;
  int64_t lease_until_ms = 0;
  // The previous attempt was cut: the event was still processing under a
  // lease that lapsed (its process died mid-attempt), so that attempt may
  // have reached the downstream. Its row says `lost`. (An attempt a SIGTERM
  // released past the grace period says `released` and does not count here.)
  bool reclaimed = false;
  std::string content_type;   // of the original delivery; may be empty
  std::string body;           // the original payload, byte for byte
  // The handler-API token of this attempt (NewHandlerToken); only its
  // Sha256Hex is stored (webhook_inbox.token_hash). Never logged.
  std::string token;
};

// "hkt_" + 64 hex characters of fresh randomness: a bearer token for the
// handler API, scoped to one event's current attempt.
std::string NewHandlerToken();

// The lease owner of an event whose attempt `worker_owner` handed to its
// handler (WorkQueue::HandOver): "handler:" + worker_owner. What the admin
// UI shows as the event's lease owner while the handler has it.
std::string HandlerLeaseOwner(const std::string& worker_owner);
// True for a lease owner HandlerLeaseOwner made.
bool IsHandlerLeaseOwner(const std::string& lease_owner);

// How an attempt ended; each names the state the event moves to.
enum class AttemptOutcome { kCompleted, kRetryableFailed, kDeadLettered, kUnknown };
EventStatus StatusAfter(AttemptOutcome o);
const char* AttemptOutcomeName(AttemptOutcome o);  // ToSql(StatusAfter(o)): "completed", "retryable_failed", …

struct AttemptResult {
  int64_t id = 0;                 // the event
  std::string owner;              // the lease owner that claimed it
  int attempt = 0;                // LeasedEvent::attempt
  AttemptOutcome outcome = AttemptOutcome::kCompleted;
  int64_t finished_at_ms = 0;
  int64_t next_attempt_at_ms = 0;  // kRetryableFailed: when it becomes due again
  std::string result_ref;          // kCompleted: the downstream's reference, may be empty
  std::string error;               // short reason (truncated to kMaxErrorBytes); never payload or secrets
  std::optional<int> http_status;  // http actions: the downstream's status, when an answer came
  std::optional<int> exit_code;    // exec actions: the exit code, when the process exited
  // Set when the action's answer was lost and action.probe_url decided
  // `outcome` (reconcile before retry): the action's own row is closed as
  // 'unknown' and the probe gets a row of its own (kind 'probe').
  struct Probe {
    int64_t started_at_ms = 0;
    std::optional<int> http_status;
    std::string error;  // "probe: found", "probe: not found", …
  };
  std::optional<Probe> probe;
};

inline constexpr size_t kMaxErrorBytes = 500;

// The events one process is running, shared by all its claims. A claim
// reads it inside its own transaction and adds the event it took there, so
// claims of one process that run concurrently (and commit together) never
// take an event another of them took or still runs — even when its lease
// lapsed. Thread-safe; its lock is a leaf.
class RunningSet {
 public:
  std::vector<int64_t> Snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return ids_;
  }
  void Add(int64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    ids_.push_back(id);
  }
  void Remove(int64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find(ids_.begin(), ids_.end(), id);
    if (it != ids_.end()) ids_.erase(it);
  }

 private:
  mutable std::mutex mu_;
  std::vector<int64_t> ids_;
};

class WorkQueue {
 public:
  virtual ~WorkQueue() = default;

  // Leases the oldest due event to `owner` until now + lease_ms, in one
  // conditional UPDATE, and opens its attempt row. Due: 'received' or
  // 'retryable_failed' whose next_attempt_at <= now, or 'processing' whose
  // lease expired (its open attempt row is closed as 'lost'). Events of
  // `excluded_endpoints` are skipped. Returns nullopt when nothing is due.
  //
  // `running_ids`: the events the caller's process is still running. They
  // are never claimed, even when their lease expired: a lease lapses while
  // its holder is alive when renewals fail (a write lock held longer than
  // the lease) or the wall clock jumps forward, and reclaiming then would
  // run the action twice at once. Nor does an event of the same object as a
  // running one proceed (it waits for it, as for a valid lease). A dead
  // process's leases are still reclaimed: its successor runs none of them.
  virtual Result<std::optional<LeasedEvent>> LeaseDue(const std::string& owner, int64_t now_ms, int64_t lease_ms,
                                                      const std::vector<std::string>& excluded_endpoints,
                                                       const std::vector<int64_t>& running_ids) = 0;
  // The same for a caller that runs nothing itself (tools, tests).
  Result<std::optional<LeasedEvent>> LeaseDue(const std::string& owner, int64_t now_ms, int64_t lease_ms,
                                              const std::vector<std::string>& excluded_endpoints) {
    return LeaseDue(owner, now_ms, lease_ms, excluded_endpoints, {});
  }

  // Extends the lease; like Finish, it works on a lapsed lease nobody
  // reclaimed. Errors: Conflict when the lease was lost (expired and
  // re-claimed, released, or finished) — the caller must abandon the attempt.
  virtual Status RenewLease(int64_t id, const std::string& owner, int attempt, int64_t until_ms) = 0;

  // The attempt's action answered "started" (action.async): the lease passes
  // to its handler. The event stays 'processing' and its attempt row open;
  // lease_owner becomes HandlerLeaseOwner(owner) and lease_until `until_ms`,
  // fenced like RenewLease, so the worker's renewals and its shutdown
  // release (ReleaseLeases(owner)) no longer touch it. From then on only the
  // handler renews or ends it (Ledger::RenewAttempt, EndAttempt); a lease it
  // lets lapse is reclaimed like any other (the attempt row closed 'lost').
  // Errors: Conflict when the lease was lost or the attempt already ended
  // (a handler that ended it before the worker read its 202); nothing changed.
  virtual Status HandOver(int64_t id, const std::string& owner, int attempt, int64_t until_ms) = 0;

  // Records the attempt and moves the event out of 'processing', clearing the
  // lease. Fenced by (owner, attempt), not by the lease's expiry: an attempt
  // whose lease lapsed but that nobody reclaimed finishes normally.
  // Errors: Conflict when the lease was lost — the event is untouched
  // and the attempt row is closed as 'lost' (that much is written); other
  // errors change nothing (InvalidArgument: no owner, or retryable_failed
  // without next_attempt_at_ms).
  virtual Status Finish(const AttemptResult& result) = 0;

  // What LeaseDue takes. With `running`, its ids replace running_ids, read
  // when the claim runs, and the claimed event is added to it then (on
  // success; a claim that fails to commit leaves it as it was).
  // `endpoints`: when set, only these endpoints' events are looked at (a
  // worker names the endpoints it may take now); otherwise every endpoint
  // holding due events. Either way `excluded_endpoints` are left out, and
  // each endpoint searched costs one index seek (store/due_search.h).
  struct LeaseRequest {
    std::string owner;
    int64_t now_ms = 0, lease_ms = 0;
    std::vector<std::string> excluded_endpoints;
    std::vector<int64_t> running_ids;
    RunningSet* running = nullptr;
    std::optional<std::vector<std::string>> endpoints = std::nullopt;
  };
  // LeaseDue for a request. The default is not atomic with other claims of
  // the process (it reads `running` before the claim): a store whose claims
  // may run concurrently overrides it.
  virtual Result<std::optional<LeasedEvent>> LeaseDue(const LeaseRequest& r) {
    auto c = LeaseDue(r.owner, r.now_ms, r.lease_ms, r.excluded_endpoints,
                      r.running != nullptr ? r.running->Snapshot() : r.running_ids);
    if (c.ok() && c->has_value() && r.running != nullptr) r.running->Add((*c)->id);
    return c;
  }
  // Finish(result), then LeaseDue(next) — in one transaction where the store
  // can, so a worker that finished one event and takes the next waits for
  // one commit instead of two. The finish is durable before the claimed
  // event's action starts, as with the two calls. Returns Finish's status
  // (a Conflict still claims); *claimed is set only when the transaction
  // committed. This default makes the two calls.
  virtual Status FinishAndLease(const AttemptResult& result, const LeaseRequest& next,
                                std::optional<LeasedEvent>* claimed) {
    claimed->reset();
    Status st = Finish(result);
    if (!st.ok() && st.code() != Code::kConflict) return st;
    auto c = LeaseDue(next);
    if (c.ok()) *claimed = std::move(*c);
    return st;
  }

  // Finishes and leases started now and awaited later: a worker records the
  // attempts its thread ended and leases that thread's next events while it
  // runs the ones it holds, so the commit overlaps actions instead of
  // separating two. In one transaction: every finish of `finishes`, then up
  // to `count` leases of `next` (each as LeaseDue(next), the running set
  // growing with each). Wait() gives each finish's status (as Finish's) and
  // the leased events, set only when the transaction committed; until it
  // returns, what `next` names (its RunningSet) must live. The default does
  // the work at once, synchronously, call by call.
  class PendingRecord {
   public:
    virtual ~PendingRecord() = default;
    // Whether Wait() would return at once.
    virtual bool Ready() = 0;
    // The transaction's status; `finished` parallel to the finishes (a
    // Conflict: that lease was lost), `leased` in lease order.
    virtual Status Wait(std::vector<Status>* finished, std::vector<LeasedEvent>* leased) = 0;
  };
  virtual std::unique_ptr<PendingRecord> StartFinishAndLease(std::vector<AttemptResult> finishes,
                                                             std::optional<LeaseRequest> next, int count);

  // Shutdown (or a lease ahead its breaker stopped): `owner`'s processing
  // events become claimable at once (a claim at now_ms takes them) and their
  // attempt rows are closed as 'released' with `reason` as the error.
  // Returns how many events were released.
  virtual Result<int> ReleaseLeases(const std::string& owner, int64_t now_ms, const std::string& reason) = 0;

  // The earliest time anything of `endpoints` becomes due (a waiting row's
  // next_attempt_at or a processing row's lease expiry); nullopt when
  // nothing of theirs is pending. One index seek per endpoint.
  virtual Result<std::optional<int64_t>> NextDueAt(const std::vector<std::string>& endpoints) = 0;
  // The same over every endpoint holding pending events.
  virtual Result<std::optional<int64_t>> NextDueAt() = 0;
};

}  // namespace hookinbox::store
