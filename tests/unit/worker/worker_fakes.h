// tests/unit/worker/worker_fakes.h — what the worker loop's tests drive it
// with: a WorkQueue in memory, actions that block or fail on demand, and a
// two-endpoint config. No database, no network.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "worker/worker_loop.h"

namespace hookinbox::worker::fakes {

using namespace std::chrono_literals;

// Polls until `cond` or the deadline; never a fixed sleep.
inline bool Eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout = 5000ms) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (cond()) return true;
    std::this_thread::sleep_for(2ms);  // a poll step, not a wait for an outcome
  }
  return cond();
}

class FakeQueue final : public store::WorkQueue {
 public:
  void Add(int64_t id, const std::string& endpoint) {
    std::lock_guard<std::mutex> lock(mu);
    store::LeasedEvent e;
    e.id = id;
    e.provider = "generic";
    e.endpoint = endpoint;
    e.event_id = "evt_" + std::to_string(id);
    e.body = "{}";
    pending.push_back(e);
  }
  Result<std::optional<store::LeasedEvent>> LeaseDue(const std::string& owner, int64_t, int64_t,
                                                     const std::vector<std::string>& excluded,
                                                      const std::vector<int64_t>& running) override {
    std::lock_guard<std::mutex> lock(mu);
    owners.insert(owner);
    last_excluded = excluded;
    last_running = running;
    ++claims;
    auto excluded_endpoint = [&](const store::LeasedEvent& e) {
      return std::find(excluded.begin(), excluded.end(), e.endpoint) != excluded.end();
    };
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      if (excluded_endpoint(*it)) continue;
      store::LeasedEvent e = *it;
      pending.erase(it);
      e.attempt = ++attempts[e.id];
      if (leases_lapse) unfinished[e.id] = e;
      if (releases_return) held[e.id] = {owner, e};
      return std::optional<store::LeasedEvent>(e);
    }
    // A lapsed lease is due again, as in the store, unless the caller runs it.
    for (auto& [id, e] : unfinished) {
      if (excluded_endpoint(e) || std::find(running.begin(), running.end(), id) != running.end()) continue;
      e.attempt = ++attempts[id];
      return std::optional<store::LeasedEvent>(e);
    }
    return std::optional<store::LeasedEvent>();
  }
  Status RenewLease(int64_t id, const std::string&, int, int64_t) override {
    {
      std::lock_guard<std::mutex> lock(mu);
      renewed_at.push_back(std::chrono::steady_clock::now());
      renewed_ids.push_back(id);
    }
    ++renewals;
    if (renew_failures.load() > 0) {
      --renew_failures;
      return Status{Code::kUnavailable, "database is locked"};
    }
    return lose_lease.load() ? Status{Code::kConflict, "lease lost"} : Status::Ok();
  }
  Status HandOver(int64_t id, const std::string& owner, int attempt, int64_t until_ms) override {
    std::lock_guard<std::mutex> lock(mu);
    handed_over.push_back({id, owner, attempt, until_ms});
    held.erase(id);  // the store's release leaves a handed-over event alone
    return handover_conflict ? Status{Code::kConflict, "ended already"} : Status::Ok();
  }
  Status Finish(const store::AttemptResult& r) override {
    std::lock_guard<std::mutex> lock(mu);
    finished.push_back(r);
    unfinished.erase(r.id);
    held.erase(r.id);
    return Status::Ok();
  }
  using store::WorkQueue::LeaseDue;
  // As the store's writer does: the running set is read and extended in the
  // same step as the claim, so concurrent claims never take one event twice.
  Result<std::optional<store::LeasedEvent>> LeaseDue(const LeaseRequest& r) override {
    std::lock_guard<std::mutex> lock(claim_mu);
    if (claim_delay.count() > 0) std::this_thread::sleep_for(claim_delay);  // a commit's time, not a wait for an outcome
    std::vector<std::string> excluded = r.excluded_endpoints;
    if (r.endpoints) {  // as the store: only the named endpoints are searched
      std::lock_guard<std::mutex> state(mu);
      last_searched = *r.endpoints;
      for (const auto& e : pending) {
        if (std::find(r.endpoints->begin(), r.endpoints->end(), e.endpoint) == r.endpoints->end()) {
          excluded.push_back(e.endpoint);
        }
      }
      for (const auto& [id, e] : unfinished) {
        if (std::find(r.endpoints->begin(), r.endpoints->end(), e.endpoint) == r.endpoints->end()) {
          excluded.push_back(e.endpoint);
        }
      }
    }
    auto c = LeaseDue(r.owner, r.now_ms, r.lease_ms, excluded,
                      r.running != nullptr ? r.running->Snapshot() : r.running_ids);
    if (c.ok() && c->has_value() && r.running != nullptr) r.running->Add((*c)->id);
    return c;
  }
  // The store's default: Finish, then LeaseDue; counted.
  Status FinishAndLease(const store::AttemptResult& r, const LeaseRequest& next,
                        std::optional<store::LeasedEvent>* claimed) override {
    ++finish_and_claims;
    return store::WorkQueue::FinishAndLease(r, next, claimed);
  }
  Result<int> ReleaseLeases(const std::string& owner, int64_t, const std::string& reason) override {
    int released = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      release_reasons.push_back(reason);
      for (auto it = held.begin(); it != held.end();) {
        if (it->second.first != owner) {
          ++it;
          continue;
        }
        pending.push_front(it->second.second);  // due again, as the store's release leaves it
        ++released;
        it = held.erase(it);
      }
    }
    ++release_calls;
    return released;
  }
  Result<std::optional<int64_t>> NextDueAt(const std::vector<std::string>&) override {
    return std::optional<int64_t>();
  }
  Result<std::optional<int64_t>> NextDueAt() override { return std::optional<int64_t>(); }

  size_t FinishedCount() {
    std::lock_guard<std::mutex> lock(mu);
    return finished.size();
  }

  std::mutex mu;
  std::mutex claim_mu;  // LeaseDue(LeaseRequest): one claim at a time, like the writer
  std::deque<store::LeasedEvent> pending;
  std::map<int64_t, int> attempts;
  std::vector<store::AttemptResult> finished;
  std::vector<std::string> last_excluded;
  std::vector<std::string> release_reasons;  // ReleaseLeases' reasons, in order
  std::vector<std::string> last_searched;  // the endpoints the last claim named
  std::chrono::microseconds claim_delay{0};  // how long each LeaseDue(LeaseRequest) takes
  std::set<std::string> owners;
  std::atomic<int> renewals{0}, release_calls{0}, finish_and_claims{0};
  std::atomic<bool> lose_lease{false};
  // With leases_lapse, every claimed event stays due until it is
  // finished (its lease lapsed at once, as under a write lock held longer
  // than the lease), unless a claim names it as running.
  bool leases_lapse = false;  // set before Start
  // With releases_return, ReleaseLeases puts the owner's leased, unfinished
  // events back as due (otherwise they are simply gone).
  bool releases_return = false;  // set before Start
  std::map<int64_t, std::pair<std::string, store::LeasedEvent>> held;  // id → owner, event
  std::map<int64_t, store::LeasedEvent> unfinished;
  std::vector<int64_t> last_running;
  int claims = 0;
  std::atomic<int> renew_failures{0};  // the next renewals that fail with Unavailable
  std::vector<std::chrono::steady_clock::time_point> renewed_at;
  std::vector<int64_t> renewed_ids;  // RenewLease's ids, in order
  struct HandedOver {
    int64_t id;
    std::string owner;
    int attempt;
    int64_t until_ms;
  };
  std::vector<HandedOver> handed_over;  // HandOver's calls
  bool handover_conflict = false;       // HandOver answers Conflict (the handler ended it first)
};

// An action that blocks until released, counting how many run at once.
class GateAction final : public action::Action {
 public:
  action::Outcome Run(const action::ActionInput& in) override {
    std::unique_lock<std::mutex> lock(mu);
    keys.push_back(in.idempotency_key);
    ++running;
    max_running = std::max(max_running, running);
    cv.wait(lock, [&] { return open; });
    --running;
    action::Outcome o;
    o.verdict = verdict;
    if (verdict == action::Verdict::kSuccess) o.result_ref = "ref";
    return o;
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu);
      open = true;
    }
    cv.notify_all();
  }
  int Running() {
    std::lock_guard<std::mutex> lock(mu);
    return running;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  action::Verdict verdict = action::Verdict::kSuccess;  // what every run returns
  int running = 0, max_running = 0;
  std::vector<std::string> keys;
};

inline config::Config TwoEndpoints(int threads) {
  config::Config c;
  c.worker.threads = threads;
  c.worker.lease_seconds = 60;
  c.endpoints.resize(2);
  c.endpoints[0].name = "a";
  c.endpoints[0].action.type = "exec";
  c.endpoints[0].action.concurrency = 2;
  c.endpoints[1].name = "none";  // no action
  return c;
}

// An action that fails as an outage does (counts against the breaker).
class FailingAction final : public action::Action {
 public:
  action::Outcome Run(const action::ActionInput&) override {
    ++calls;
    action::Outcome o;
    o.verdict = action::Verdict::kTransient;
    o.sent = true;
    o.http_status = 503;
    o.error = "HTTP 503";
    return o;
  }
  std::atomic<int> calls{0};
};

// A config as the loop takes it: a snapshot no one changes.
inline std::shared_ptr<const config::Config> Snapshot(config::Config c) {
  return std::make_shared<const config::Config>(std::move(c));
}

// A loop on the heap, as the tests' queue is: TSan forgets the mutexes of
// freed memory, but not those of a stack frame the next test case reuses
// (std::mutex is never destroyed), and would pair the lock order of one
// test's mutexes with another's at the same address.
inline std::unique_ptr<WorkerLoop> NewLoop(std::shared_ptr<const config::Config> config, store::WorkQueue& queue,
                                           const Clock& clock, ActionMap actions, WorkerOptions options) {
  return std::make_unique<WorkerLoop>(std::move(config), queue, clock, std::move(actions), std::move(options));
}

}  // namespace hookinbox::worker::fakes
