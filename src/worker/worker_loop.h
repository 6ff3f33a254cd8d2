// worker/worker_loop.h — the in-process worker: leases due events from the
// WorkQueue, runs each endpoint's action and records what worker/policy.h
// makes of the outcome (SPEC §4).
//
// Owns: worker.threads threads, each with its own lease owner
// ("<host>:<pid>:<n>"); the per-endpoint concurrency limit (a lease request
// names only the endpoints with an action and a free slot, so the events of
// the others wait — and endpoints no longer in the config keep theirs as
// they are) and the dispatch gate (worker/dispatch_gate.h: pause, circuit
// breaker, rate limit), which leaves endpoints out the same way; an async
// action's 202 (action.async), after which the event is its handler's:
// leased to it, renewed and ended by it through the handler API, while the
// slot runs other events; lease renewal while an action runs (one thread renews every
// running lease each lease/3, and soon again after a failed renewal; a lost
// lease abandons the attempt quietly); the events it is running, which its
// own requests never take back even when their lease lapsed; and shutdown
// (stop leasing, wait up to a grace period, release the leases still held).
// A reload hands it the new config and actions (Reconfigure): claims, leases
// ahead and the gate follow them at once; an attempt that started finishes
// on the action object and the config it started with; worker.threads keeps
// the count it started with.
// Thread-safety: Start/Stop from one thread; Notify, Reconfigure and
// running() from any.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "action/action.h"
#include "action/probe.h"
#include "common/clock.h"
#include "config/config.h"
#include "store/endpoint_states.h"
#include "store/work_queue.h"
#include "worker/attempt_end.h"
#include "worker/dispatch_gate.h"

namespace hookinbox::worker {

// endpoint name → its action; endpoints absent here have none.
using ActionMap = std::map<std::string, std::shared_ptr<action::Action>>;

// The actions `config` describes (action::MakeAction for every endpoint with one).
ActionMap BuildActions(const config::Config& config, const Clock& clock);

struct WorkerOptions {
  // Longest sleep when nothing wakes the loop; a due retry is found at least this soon.
  std::chrono::milliseconds poll{1000};
  // Prefix of lease owners; "" = "<hostname>:<pid>".
  std::string owner_prefix;
  // Where the paused endpoints are read (once per poll) and the circuit
  // breakers' changes recorded; null = neither (the store's leases still
  // leave paused endpoints out).
  store::EndpointStates* endpoint_states = nullptr;
};

class WorkerLoop {
 public:
  // `handler_api_base`: the handler API's base URL ("http://127.0.0.1:8081/v1"),
  // handed to every action with its event's token; "" = none (actions get neither).
  WorkerLoop(std::shared_ptr<const config::Config> config, store::WorkQueue& queue, const Clock& clock,
             ActionMap actions, WorkerOptions options = {}, std::string handler_api_base = "");
  ~WorkerLoop();  // Stop(0) when still running

  // Starts worker.threads threads.
  void Start();
  // A new event was accepted: wakes one thread to claim it, unless
  // `endpoint` (when given) has no action here — nothing would claim it.
  void Notify(std::string_view endpoint = {});
  // Stops claiming, waits up to `grace` for running actions, then releases
  // every lease this process still holds. Returns how many were released.
  // Threads whose action outlived the grace period are joined when the action
  // returns (its own timeout bounds that); they record nothing more. No-op
  // when not started.
  int Stop(std::chrono::milliseconds grace);
  // True between Start and Stop.
  bool running() const;
  // Puts `next` and its actions (BuildActions(*next, clock)) in force, while
  // running or not. Every later claim, lease ahead and gate decision uses
  // them; a removed endpoint (or one without an action now) gets no new
  // claims and its stored events stay as they are; events leased ahead for
  // it go back unrun. The dispatch gate keeps the state of unchanged
  // settings (DispatchGate::Reconfigure). worker.threads is not changed.
  void Reconfigure(std::shared_ptr<const config::Config> next, ActionMap actions);

 private:
  // A breaker's change of state, numbered under mu_ in the order the gate
  // made them: records are written outside mu_, and an older one that
  // arrives after a newer one is not written over it.
  struct BreakerReport {
    std::string endpoint;
    BreakerChange change;
    uint64_t seq = 0;
  };
  // An attempt whose action ended, kept until its record commits: what its
  // log line and metrics need.
  struct Attempted {
    store::LeasedEvent event;  // without its body
    // The config the attempt started on: its endpoint settings and retry
    // schedule decide the record, whatever a reload put in force since.
    std::shared_ptr<const config::Config> config;
    action::Outcome outcome;
    std::optional<ProbeAnswer> probe;
    store::AttemptResult result;
    double seconds = 0;
    bool counts_against_breaker = false;  // CountsAgainstBreaker, for an attempt that had an action
  };
  // A thread's work ahead of its current action (a lease ahead): the events
  // of its endpoint it leased to run next in the same slot, and one write in
  // the writer's queue at a time that records the attempts it ended and
  // leases more — so a commit overlaps actions instead of separating two.
  // Empty whenever RunOne returns nothing.
  struct Ahead {
    struct Write {
      std::unique_ptr<store::WorkQueue::PendingRecord> pending;
      std::string endpoint;           // its leases' endpoint; "" = finishes alone
      int leases = 0;                 // how many it may take (counted in ahead_claiming_)
      std::vector<Attempted> riders;  // the finishes in it
    };
    std::deque<Write> writes;               // in the writer's queue, oldest first; one at most leases
    std::deque<store::LeasedEvent> queued;  // leased ahead, to run in this thread's slot
    std::vector<Attempted> finished;        // the attempt just ended, until Continue writes it
    bool leasing() const {
      for (const Write& w : writes) {
        if (!w.endpoint.empty()) return true;
      }
      return false;
    }
  };
  // Events a thread leases ahead at most: each write leases up to this many
  // less those still queued, so a thread runs several per commit.
  static constexpr int kLeaseAhead = 4;
  void ThreadMain(int index);
  // Runs `event`'s action and records it (now, or with the thread's next
  // write); returns the event to run next in its slot: one leased ahead, or
  // one the record claimed.
  std::optional<store::LeasedEvent> RunOne(const std::string& owner, store::LeasedEvent event, Ahead* ahead);
  // Runs `action` on `event` (and its probe) under `config`, the snapshot
  // taken when it started: the attempt, not yet recorded.
  Attempted RunAction(const store::LeasedEvent& event, const std::shared_ptr<action::Action>& action,
                      std::shared_ptr<const config::Config> config);
  // A claimed event whose endpoint lost its action (a reload) before it
  // started: sent back unrun, with the events leased ahead; frees its slot.
  void SendBack(const std::string& owner, store::LeasedEvent event, const std::string& reason, Ahead* ahead);
  // Under mu_: why `endpoint`'s event may not start on the config in force
  // (removed, or without an action now), or nullptr.
  const char* GoneLocked(const std::string& endpoint) const;
  // Under mu_: how many of `endpoint`'s next events (at most `most`) a thread
  // running one of them may lease now, to run in the same slot after it.
  int LeaseAheadRoomLocked(const std::string& endpoint, int most) const;
  // Puts the finished attempt, and leases ahead on `endpoint` when allowed
  // and no write leases already, in one write; writes nothing when there is
  // neither. A finish is written at once, so it precedes any later release.
  void StartAhead(const std::string& owner, const std::string& endpoint, Ahead* ahead);
  // Lands the writes that committed (`all`: waits for every one): logs their
  // finishes, queues what they leased.
  void CollectAhead(const std::string& owner, Ahead* ahead, bool all);
  // After `ended` (of `endpoint`, which holds a slot): the event that takes
  // its slot, or nothing (the slot is freed). Under the shared finish lock.
  std::optional<store::LeasedEvent> Continue(const std::string& owner, const std::string& endpoint, Ahead* ahead);
  // The first queued event still ours to run (its lease not lost), or nothing.
  std::optional<store::LeasedEvent> PopQueued(Ahead* ahead);
  // Records the finished attempts at once and sends the queued events back
  // unrun (`reason` in their attempt rows).
  void ReleaseQueued(const std::string& owner, const std::string& endpoint, const std::string& reason, Ahead* ahead);
  // Records the finished attempts at once, claiming the next event with them
  // (FinishAndLease); that event takes `endpoint`'s slot.
  std::optional<store::LeasedEvent> RecordAndClaim(const std::string& owner, const std::string& endpoint, Ahead* ahead);
  // The attempt's action answered 202 "started" (action.async): its lease
  // passes to the handler (WorkQueue::HandOver) and nothing of it is
  // recorded here; its slot and running-set entry are freed. Not under mu_;
  // returns the breaker's change.
  std::optional<BreakerReport> HandOver(const Attempted& a);
  // Under mu_: a recorded (or given up) attempt no longer counts in flight.
  void RecordedLocked(const Attempted& a);
  // Logs and counts a recorded attempt, as `st` says the record went.
  static void LogRecorded(const Attempted& a, const Status& st);
  // Under mu_: a claim request and its slot on every endpoint it searches (claiming_),
  // or nullopt when stopping or every endpoint is at its concurrency.
  // `freeing_endpoint`: the endpoint of an event whose finish comes first.
  std::optional<store::WorkQueue::LeaseRequest> ReserveClaimLocked(const std::string& owner,
                                                                   const std::string* freeing_endpoint);
  // Claims one due event for `owner`, or nothing; counts it in flight.
  // *at_capacity: nothing was tried, every endpoint is at its concurrency.
  // *searched: the endpoints the claim looked at.
  std::optional<store::LeasedEvent> LeaseNext(const std::string& owner, bool* at_capacity,
                                              std::vector<std::string>* searched);
  // Under mu_: the claim that searched `endpoints` landed (claiming_).
  void ClaimLandedLocked(const std::vector<std::string>& endpoints);
  // Under mu_: an endpoint outside `searched` may be claimed now.
  bool NewlyClaimableLocked(const std::vector<std::string>& searched) const;
  // Under mu_: the endpoints a claim may take now — those with an action
  // here, a free slot, and the dispatch gate open. Claims search only these
  // (store/due_search.h), so the events of receive-only, full, paused or
  // held endpoints cost them nothing.
  std::vector<std::string> ClaimableLocked() const;
  // Re-reads the paused endpoints when the last read is a poll old (one
  // thread at a time; not under mu_).
  void RefreshPaused();
  std::optional<BreakerReport> NumberLocked(const std::string& endpoint, std::optional<BreakerChange> change);
  // Logs and records a breaker's change of state (not under mu_).
  void ReportBreaker(const std::optional<BreakerReport>& report);
  // At start every breaker is closed: rows a previous run left open say so.
  void RecordBreakersClosed();
  // How long an idle thread sleeps: until the next due event, at most a
  // poll; nullopt when something is due already.
  std::optional<std::chrono::milliseconds> SleepFor();
  // `sleep`, shortened to when the dispatch gate lets a held endpoint go
  // again (a breaker's trial, a rate limit's next token).
  std::chrono::milliseconds UntilGateChanges(std::chrono::milliseconds sleep) const;

  // Lease renewal: one thread for all running events (a thread per event
  // cost a thread start and two context switches per event).
  class RenewFailureLog;
  struct Lease {
    std::string owner;
    int attempt = 0;
    int64_t lease_ms = 0;  // worker.lease_seconds when it was held: renewals keep to it
    std::chrono::steady_clock::time_point next_renewal;
    bool lost = false;  // another owner took the event: its attempt records nothing
    std::shared_ptr<RenewFailureLog> failures;
  };
  void HoldLease(const store::LeasedEvent& event, const std::string& owner, int64_t lease_ms);
  bool DropLease(int64_t id);  // true when the lease was lost meanwhile
  bool DropLeaseIfLost(int64_t id);  // drops it only when lost; whether it was
  void RenewMain();
  // Renews the leases whose time has come; returns when the next one is due.
  std::chrono::steady_clock::time_point RenewDue();

  store::WorkQueue& queue_;
  const Clock& clock_;
  WorkerOptions options_;
  // worker.threads of the config given at construction: a reload does not
  // change how many threads run (it needs a restart).
  const int thread_count_;
  std::string owner_prefix_;
  const std::string handler_api_base_;
  std::vector<std::thread> threads_;
  std::thread renewer_;

  mutable std::mutex mu_;
  // The config in force and its actions, swapped together by Reconfigure.
  // Attempts copy what they need under mu_ when they start.
  std::shared_ptr<const config::Config> config_;  // guarded by mu_
  ActionMap actions_;                             // guarded by mu_
  std::condition_variable wake_;      // claimers wait here: a new event, a freed slot, Stop
  std::condition_variable idle_;      // Stop waits here for in_flight_ == 0
  bool running_ = false;
  bool stopping_ = false;
  uint64_t notifications_ = 0;        // bumped by Notify: a new event
  std::map<std::string, int> in_flight_by_endpoint_;
  int in_flight_ = 0;
  // Claims on their way to the store, by the endpoints each may take. Claims
  // run concurrently, so the writer commits them together; each one counts
  // against the concurrency (and the dispatch gate) of every endpoint it
  // searches until it lands, so a limit is never overshot — and a claim that
  // could not take an endpoint's events holds nothing of it (an open
  // breaker's one trial is not starved by other endpoints' claims).
  std::map<std::string, int> claiming_;
  // Leases ahead on their way, by endpoint. Not counted against the
  // concurrency (the event it takes runs in the slot of the one before it),
  // only in what the dispatch gate sees.
  std::map<std::string, int> ahead_claiming_;
  // The events this process's threads are running (claimed, not yet
  // recorded): every claim reads it when it runs in the store and adds what
  // it took, so none is claimed twice at once (store::RunningSet).
  store::RunningSet running_events_;
  DispatchGate gate_;  // guarded by mu_
  uint64_t breaker_seq_ = 0;  // guarded by mu_
  std::mutex report_mu_;      // orders ReportBreaker's writes; taken without mu_
  std::map<std::string, uint64_t> reported_seq_;  // guarded by report_mu_
  std::chrono::steady_clock::time_point paused_read_at_{};  // guarded by mu_
  bool reading_paused_ = false;                              // guarded by mu_

  // Finish (shared) vs. Stop's release (exclusive): once the leases are
  // released, an attempt still running records nothing more — its row
  // already says 'released'.
  std::shared_mutex finish_mu_;
  bool released_ = false;  // guarded by finish_mu_

  std::mutex leases_mu_;
  std::condition_variable leases_cv_;   // the renewer waits here
  std::map<int64_t, Lease> leases_;     // running event id → its lease; guarded by leases_mu_
  bool renewer_stopping_ = false;       // guarded by leases_mu_
  // When the renewer wakes next; HoldLease brings it forward for a lease due
  // sooner (a reload shortened worker.lease_seconds). Guarded by leases_mu_.
  std::chrono::steady_clock::time_point renew_wake_at_{};
};

}  // namespace hookinbox::worker
