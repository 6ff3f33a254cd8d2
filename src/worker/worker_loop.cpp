// worker/worker_loop.cpp — see worker_loop.h.
#include "worker/worker_loop.h"

#include <unistd.h>

#include <algorithm>

#include "action/probe.h"
#include "common/log.h"
#include "common/metrics.h"

namespace hookinbox::worker {
namespace {

// An attempt cut by a crash is a lost answer too: with a probe_url, the
// probe in RunAction decides before anything is sent again (found →
// completed, not found → retried, cannot tell → unknown). A target that
// deduplicates by the key (idempotent_target) is simply sent the event again.
bool ReconcileFirst(const store::LeasedEvent& event, const config::EndpointConfig* endpoint) {
  return event.reclaimed && endpoint != nullptr && !endpoint->action.probe_url.empty() &&
         !endpoint->action.idempotent_target;
}

// Nothing is sent in such an attempt: not the downstream's failure, so it
// never counts against the circuit breaker (CountsAgainstBreaker).
action::Outcome CutAttemptOutcome() {
  action::Outcome o;
  o.verdict = action::Verdict::kUnknown;
  o.error = "the previous attempt was cut (its lease lapsed) and may have reached the downstream: "
            "the probe decides before anything is sent again";
  return o;
}

std::string DefaultOwnerPrefix() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host[0] ? host : "host") + ":" + std::to_string(::getpid());
}

action::ActionInput InputOf(const store::LeasedEvent& e, const std::string& api_base) {
  action::ActionInput in;
  in.event_id = e.event_id;
  in.event_type = e.event_type;
  in.idempotency_key = action::IdempotencyKey(e.provider, e.endpoint, e.tenant_id, e.event_id);
  in.attempt = e.attempt;
  in.content_type = e.content_type;
  in.body = e.body;
  in.provider = e.provider;
  in.endpoint = e.endpoint;
  in.tenant = e.tenant_id;
  // The token is only useful with somewhere to present it.
  if (!api_base.empty()) {
    in.token = e.token;
    in.api_base = api_base;
  }
  return in;
}

// How soon a failed lease renewal is tried again.
constexpr std::chrono::milliseconds kRenewRetry{100};
// How long the renewer sleeps with no lease due sooner; a lease held meanwhile
// wakes it when its renewal comes first (HoldLease).
constexpr std::chrono::milliseconds kRenewIdle{60000};

}  // namespace

// Logs a streak of failed renewals without flooding the log while a lock is
// held: the first failure, then at most one line per renewal period, and a
// line when a renewal succeeds again.
class WorkerLoop::RenewFailureLog {
 public:
  RenewFailureLog(int64_t id, std::chrono::milliseconds every) : id_(std::to_string(id)), every_(every) {}
  void Note(const Status& st) {
    const auto now = std::chrono::steady_clock::now();
    if (st.ok()) {
      if (streak_ > 0) log::Info("worker_renew_recovered", {{"id", id_}, {"failures", std::to_string(streak_)}});
      streak_ = 0;
      return;
    }
    if (streak_++ == 0 || now - last_logged_ >= every_) {
      log::Warn("worker_renew_failed", {{"id", id_}, {"error", st.message()}});
      last_logged_ = now;
    }
  }

 private:
  const std::string id_;
  const std::chrono::milliseconds every_;
  int streak_ = 0;
  std::chrono::steady_clock::time_point last_logged_;
};

ActionMap BuildActions(const config::Config& config, const Clock& clock) {
  ActionMap out;
  for (const auto& e : config.endpoints) {
    if (!e.HasAction()) continue;
    std::unique_ptr<action::Action> action = action::MakeAction(e.action, clock, config.secret_origins.files);
    if (action) out[e.name] = std::move(action);
  }
  return out;
}

WorkerLoop::WorkerLoop(std::shared_ptr<const config::Config> config, store::WorkQueue& queue, const Clock& clock,
                       ActionMap actions, WorkerOptions options, std::string handler_api_base)
    : queue_(queue), clock_(clock), options_(std::move(options)), thread_count_(std::max(1, config->worker.threads)),
      owner_prefix_(options_.owner_prefix.empty() ? DefaultOwnerPrefix() : options_.owner_prefix),
      handler_api_base_(std::move(handler_api_base)), config_(config), actions_(std::move(actions)),
      gate_(*config, clock.NowMs()) {}

WorkerLoop::~WorkerLoop() {
  if (!threads_.empty()) Stop(std::chrono::milliseconds(0));
}

void WorkerLoop::Start() {
  {
    std::lock_guard<std::shared_mutex> finish_lock(finish_mu_);
    released_ = false;
  }
  size_t actions = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = true;
    stopping_ = false;
    actions = actions_.size();
  }
  const int n = thread_count_;
  {
    std::lock_guard<std::mutex> lock(leases_mu_);
    renewer_stopping_ = false;
  }
  RecordBreakersClosed();
  renewer_ = std::thread([this] { RenewMain(); });
  for (int i = 0; i < n; ++i) threads_.emplace_back([this, i] { ThreadMain(i); });
  log::Info("worker_started", {{"threads", std::to_string(n)}, {"actions", std::to_string(actions)}});
}

void WorkerLoop::Reconfigure(std::shared_ptr<const config::Config> next, ActionMap actions) {
  int added = 0, removed = 0;
  size_t count = 0;
  std::vector<std::optional<BreakerReport>> changes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [endpoint, action] : actions) added += actions_.count(endpoint) == 0 ? 1 : 0;
    for (const auto& [endpoint, action] : actions_) removed += actions.count(endpoint) == 0 ? 1 : 0;
    config_ = std::move(next);
    actions_ = std::move(actions);
    count = actions_.size();
    for (auto& [endpoint, change] : gate_.Reconfigure(*config_, clock_.NowMs())) {
      changes.push_back(NumberLocked(endpoint, std::move(change)));
    }
  }
  for (const auto& c : changes) ReportBreaker(c);
  log::Info("worker_reconfigured", {{"actions", std::to_string(count)},
                                    {"added", std::to_string(added)},
                                    {"removed", std::to_string(removed)}});
  // A new endpoint's events, or room a changed concurrency or gate gave, may
  // be claimed now.
  wake_.notify_all();
}

void WorkerLoop::Notify(std::string_view endpoint) {
  // Under a burst this runs once per accepted delivery: waking every thread
  // for each made each of them query the queue (a fifth of the server's CPU
  // in a profile of a receive-only endpoint under load).
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!endpoint.empty() && actions_.find(std::string(endpoint)) == actions_.end()) return;
    ++notifications_;
  }
  wake_.notify_one();  // one new event: one claim; a busy thread claims again when it finishes
}

bool WorkerLoop::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_ && !stopping_;
}

int WorkerLoop::Stop(std::chrono::milliseconds grace) {
  if (threads_.empty()) return 0;  // never started, or stopped already
  {
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
    wake_.notify_all();
    idle_.wait_for(lock, grace, [this] { return in_flight_ == 0; });
  }
  // Actions still running after the grace period lose their leases now; their
  // threads finish when the action returns (its own timeout bounds that) and
  // their Finish is refused as a lost lease.
  int released = 0;
  std::unique_lock<std::shared_mutex> finish_lock(finish_mu_);
  released_ = true;
  for (size_t i = 0; i < threads_.size(); ++i) {
    auto r = queue_.ReleaseLeases(owner_prefix_ + ":" + std::to_string(i), clock_.NowMs(), "shutdown");
    if (r.ok()) {
      released += *r;
    } else {
      log::Error("worker_release_failed", {{"error", r.status().message()}});
    }
  }
  finish_lock.unlock();
  for (auto& t : threads_) t.join();
  threads_.clear();
  {
    std::lock_guard<std::mutex> lock(leases_mu_);
    renewer_stopping_ = true;
  }
  leases_cv_.notify_all();
  renewer_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
  }
  log::Info("worker_stopped", {{"released", std::to_string(released)}});
  return released;
}

std::vector<std::string> WorkerLoop::ClaimableLocked() const {
  std::vector<std::string> out;
  const int64_t now_ms = clock_.NowMs();
  for (const auto& e : config_->endpoints) {
    if (actions_.find(e.name) == actions_.end()) continue;
    auto it = in_flight_by_endpoint_.find(e.name);
    const int in_flight = it != in_flight_by_endpoint_.end() ? it->second : 0;
    auto c = claiming_.find(e.name);
    const int claiming = c != claiming_.end() ? c->second : 0;
    if (in_flight + claiming >= config_->ActionConcurrency(e)) continue;
    // Leases ahead do not count against the concurrency (theirs run in a
    // running event's slot), but the gate's tokens and trials see them.
    auto a = ahead_claiming_.find(e.name);
    const int ahead = a != ahead_claiming_.end() ? a->second : 0;
    if (gate_.MayLease(e.name, in_flight, claiming + ahead, now_ms)) out.push_back(e.name);
  }
  return out;
}

void WorkerLoop::RefreshPaused() {
  if (options_.endpoint_states == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (reading_paused_ || std::chrono::steady_clock::now() - paused_read_at_ < options_.poll) return;
    reading_paused_ = true;
  }
  auto paused = options_.endpoint_states->PausedEndpoints();
  // A busy reader: the last list holds until the next poll asks again.
  if (!paused.ok() && paused.status().code() != Code::kUnavailable) {
    log::Error("worker_read_paused_failed", {{"error", paused.status().message()}});
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    reading_paused_ = false;
    paused_read_at_ = std::chrono::steady_clock::now();
    if (paused.ok()) gate_.SetPaused(*paused);
  }
  wake_.notify_all();  // a resumed endpoint may be claimed now
}

std::optional<WorkerLoop::BreakerReport> WorkerLoop::NumberLocked(const std::string& endpoint,
                                                                  std::optional<BreakerChange> change) {
  if (!change) return std::nullopt;
  return BreakerReport{endpoint, std::move(*change), ++breaker_seq_};
}

void WorkerLoop::ReportBreaker(const std::optional<BreakerReport>& report) {
  if (!report) return;
  const std::string& endpoint = report->endpoint;
  const BreakerChange& change = report->change;
  const int64_t now_ms = clock_.NowMs();
  const bool opened = change.to == store::BreakerState::kOpen;
  if (opened && change.from == store::BreakerState::kClosed) {
    log::Warn("breaker_opened", {{"endpoint", endpoint},
                                 {"failures", change.failures},
                                 {"next_trial_in_ms", *change.next_probe_at_ms - now_ms},
                                 {"error", change.last_error}});
  } else if (opened && change.last_error.empty()) {
    log::Info("breaker_trial_abandoned", {{"endpoint", endpoint}});  // its lease was lost or released
  } else if (opened) {
    log::Info("breaker_trial_failed", {{"endpoint", endpoint},
                                       {"next_trial_in_ms", *change.next_probe_at_ms - now_ms},
                                       {"error", change.last_error}});
  } else if (change.to == store::BreakerState::kClosed) {
    log::Info("breaker_closed", {{"endpoint", endpoint}});
  }
  if (options_.endpoint_states == nullptr) return;
  std::lock_guard<std::mutex> lock(report_mu_);
  uint64_t& last = reported_seq_[endpoint];
  if (report->seq < last) return;  // a newer change is recorded already
  last = report->seq;
  Status st = options_.endpoint_states->RecordBreaker(
      {endpoint, change.to, change.failures, change.next_probe_at_ms, change.last_error, now_ms});
  if (!st.ok()) log::Error("breaker_record_failed", {{"endpoint", endpoint}, {"error", st.message()}});
}

void WorkerLoop::RecordBreakersClosed() {
  if (options_.endpoint_states == nullptr) return;
  auto states = options_.endpoint_states->ListEndpointStates();
  if (!states.ok()) {
    log::Error("breaker_record_failed", {{"error", states.status().message()}});
    return;
  }
  ActionMap actions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    actions = actions_;
  }
  for (const store::EndpointState& s : *states) {
    if (s.breaker == store::BreakerState::kClosed || actions.find(s.endpoint) == actions.end()) continue;
    Status st = options_.endpoint_states->RecordBreaker(
        {s.endpoint, store::BreakerState::kClosed, 0, std::nullopt, "", clock_.NowMs()});
    if (!st.ok()) log::Error("breaker_record_failed", {{"endpoint", s.endpoint}, {"error", st.message()}});
  }
}

std::chrono::milliseconds WorkerLoop::UntilGateChanges(std::chrono::milliseconds sleep) const {
  std::optional<int64_t> at;
  const int64_t now_ms = clock_.NowMs();
  {
    std::lock_guard<std::mutex> lock(mu_);
    at = gate_.NextChangeAt(now_ms);
  }
  if (!at) return sleep;
  return std::min(sleep, std::chrono::milliseconds(std::max<int64_t>(1, *at - now_ms)));
}

std::optional<std::chrono::milliseconds> WorkerLoop::SleepFor() {
  std::vector<std::string> claimable;
  {
    std::lock_guard<std::mutex> lock(mu_);
    claimable = ClaimableLocked();
  }
  auto due = queue_.NextDueAt(claimable);
  if (!due.ok() || !due->has_value()) return options_.poll;
  const int64_t wait = **due - clock_.NowMs();
  if (wait <= 0) return std::nullopt;
  return std::min(options_.poll, std::chrono::milliseconds(wait));
}

void WorkerLoop::ThreadMain(int index) {
  const std::string owner = owner_prefix_ + ":" + std::to_string(index);
  std::optional<store::LeasedEvent> next;  // leased ahead, or claimed with the last finish
  Ahead ahead;
  bool looked_again = false;  // the last look found nothing though something was due
  while (true) {
    uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // A claimed event is run even when stopping: it counts in flight, and
      // Stop's grace period is for exactly such attempts.
      if (stopping_ && !next) return;
      seen = notifications_;
    }
    RefreshPaused();
    bool at_capacity = false;
    std::vector<std::string> searched;
    if (!next) next = LeaseNext(owner, &at_capacity, &searched);
    if (next) {
      looked_again = false;
      next = RunOne(owner, std::move(*next), &ahead);
      continue;
    }
    // Nothing due where it looked. A new event wakes it, and so does an
    // endpoint it could not search (full, or held by a concurrent claim)
    // getting a free slot; otherwise it sleeps until the next event is due.
    // Nothing else: a thread woken by claims that found nothing would claim
    // nothing again, and wake the next one — idle threads kept each other
    // busy at a core and a half.
    std::optional<std::chrono::milliseconds> sleep = options_.poll;
    if (!at_capacity) sleep = SleepFor();
    if (!sleep) {
      // Due already. Once, that is an event that became due after the lease
      // looked (a retry whose backoff just ended): look again at once rather
      // than a poll later. Twice, it is due but not ours to take (its
      // endpoint filled up meanwhile, or this process still runs it): a
      // finishing action or a new event wakes us, else the poll.
      if (!looked_again) {
        looked_again = true;
        continue;
      }
      sleep = options_.poll;
    }
    looked_again = false;
    sleep = UntilGateChanges(*sleep);
    std::unique_lock<std::mutex> lock(mu_);
    wake_.wait_for(lock, *sleep,
                   [&] { return stopping_ || notifications_ != seen || NewlyClaimableLocked(searched); });
  }
}

std::optional<store::WorkQueue::LeaseRequest> WorkerLoop::ReserveClaimLocked(const std::string& owner,
                                                                             const std::string* freeing_endpoint) {
  if (stopping_) return std::nullopt;
  // A finish ahead of the claim (FinishAndLease) frees its event's slot.
  if (freeing_endpoint != nullptr) --in_flight_by_endpoint_[*freeing_endpoint];
  std::vector<std::string> claimable = ClaimableLocked();
  if (freeing_endpoint != nullptr) ++in_flight_by_endpoint_[*freeing_endpoint];
  if (claimable.empty()) return std::nullopt;
  for (const std::string& endpoint : claimable) ++claiming_[endpoint];
  return store::WorkQueue::LeaseRequest{owner, clock_.NowMs(), int64_t{config_->worker.lease_seconds} * 1000,
                                        {}, {}, &running_events_, std::move(claimable)};
}

void WorkerLoop::ClaimLandedLocked(const std::vector<std::string>& endpoints) {
  for (const std::string& endpoint : endpoints) {
    auto it = claiming_.find(endpoint);
    if (it != claiming_.end() && --it->second == 0) claiming_.erase(it);
  }
}

bool WorkerLoop::NewlyClaimableLocked(const std::vector<std::string>& searched) const {
  for (const std::string& endpoint : ClaimableLocked()) {
    if (std::find(searched.begin(), searched.end(), endpoint) == searched.end()) return true;
  }
  return false;
}

std::optional<store::LeasedEvent> WorkerLoop::LeaseNext(const std::string& owner, bool* at_capacity,
                                                        std::vector<std::string>* searched) {
  std::optional<store::WorkQueue::LeaseRequest> reserved;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reserved = ReserveClaimLocked(owner, nullptr);
    *at_capacity = !reserved && !stopping_;
  }
  if (!reserved) return std::nullopt;
  const store::WorkQueue::LeaseRequest& request = *reserved;
  *searched = *request.endpoints;
  // Not under mu_: concurrent claims share the writer's commit (group commit).
  auto claimed = queue_.LeaseDue(request);
  std::optional<BreakerReport> change;
  {
    // The claim's hold on every endpoint ends and the event it took (if any)
    // counts in flight in the same step: between the two, another thread
    // would see the endpoint with neither and overshoot its concurrency.
    std::lock_guard<std::mutex> lock(mu_);
    ClaimLandedLocked(*request.endpoints);
    if (claimed.ok() && claimed->has_value()) {
      ++in_flight_by_endpoint_[(*claimed)->endpoint];
      ++in_flight_;
      change = NumberLocked((*claimed)->endpoint, gate_.Leased((*claimed)->endpoint, (*claimed)->id, clock_.NowMs()));
    }
  }
  ReportBreaker(change);
  // The other endpoints are free of this claim's hold: threads that could not
  // search one may now.
  wake_.notify_all();
  if (!claimed.ok()) {
    log::Error("worker_claim_failed", {{"error", claimed.status().message()}});
    return std::nullopt;
  }
  if (!claimed->has_value()) return std::nullopt;
  return std::move(*claimed);
}

WorkerLoop::Attempted WorkerLoop::RunAction(const store::LeasedEvent& event,
                                            const std::shared_ptr<action::Action>& action,
                                            std::shared_ptr<const config::Config> config) {
  Attempted a;
  a.event = event;
  a.event.body.clear();  // kept for the log line, which never has it
  a.config = std::move(config);
  const auto attempt_started = std::chrono::steady_clock::now();
  bool released;
  {
    std::shared_lock<std::shared_mutex> finish_lock(finish_mu_);
    released = released_;  // Stop released the leases before this event started: leave it to the next run
  }
  // Its endpoint had an action when it started (RunOne); a reload since
  // changes nothing here: the same config and action object to the end.
  const config::EndpointConfig* endpoint = a.config->FindEndpoint(event.endpoint);
  if (!released) {
    const action::ActionInput input = InputOf(event, handler_api_base_);
    a.outcome = ReconcileFirst(event, endpoint) ? CutAttemptOutcome() : action->Run(input);
    // Reconcile before anyone retries: still under the lease, so no other
    // worker runs the event while the probe is out.
    if (a.outcome.verdict == action::Verdict::kUnknown && endpoint != nullptr && !endpoint->action.probe_url.empty()) {
      const int64_t probe_started_ms = clock_.NowMs();
      a.probe = ProbeAnswer{action::Probe(endpoint->action, input), probe_started_ms};
    }
  }
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - attempt_started).count();
  metrics::Registry::Default().Observe(metrics::kProcessingSeconds, {event.endpoint, event.provider}, a.seconds);
  a.result = MapAttemptEnd(*a.config, event, a.outcome, a.probe, clock_.NowMs());
  a.counts_against_breaker = !released && CountsAgainstBreaker(a.outcome);
  return a;
}

void WorkerLoop::LogRecorded(const Attempted& a, const Status& st) {
  const store::LeasedEvent& event = a.event;
  if (st.code() == Code::kConflict) {
    log::Info("worker_lease_lost", {{"endpoint", event.endpoint}, {"id", std::to_string(event.id)}});
  } else if (!st.ok()) {
    log::Error("worker_finish_failed",
               {{"endpoint", event.endpoint}, {"id", std::to_string(event.id)}, {"error", st.message()}});
  } else {
    ReportAttemptEnd(EndedBy::kWorker, event, a.outcome, a.probe, a.result, a.seconds);
  }
}

int WorkerLoop::LeaseAheadRoomLocked(const std::string& endpoint, int most) const {
  if (most <= 0 || stopping_ || actions_.find(endpoint) == actions_.end()) return 0;
  const config::EndpointConfig* e = config_->FindEndpoint(endpoint);
  if (e == nullptr) return 0;
  // A thread stays free for the other endpoints: a lease ahead keeps a thread
  // on its endpoint, which with concurrency = threads could hold them all.
  if (config_->ActionConcurrency(*e) >= thread_count_) return 0;
  // The event leased ahead waits for this action (and its probe): that must
  // end well within its lease, before a renewal would be due.
  const int64_t lease_ms = int64_t{config_->worker.lease_seconds} * 1000;
  const int64_t longest = e->action.timeout_ms * (e->action.probe_url.empty() ? 1 : 2);
  if (longest > lease_ms / 3) return 0;
  auto count = [](const std::map<std::string, int>& m, const std::string& k) {
    auto it = m.find(k);
    return it != m.end() ? it->second : 0;
  };
  // The gate sees them as more claims: a half-open breaker's trial has no
  // second event queued behind it, a rate limit's tokens bound them.
  return gate_.Room(endpoint, count(in_flight_by_endpoint_, endpoint),
                    count(claiming_, endpoint) + count(ahead_claiming_, endpoint), clock_.NowMs(), most);
}

void WorkerLoop::StartAhead(const std::string& owner, const std::string& endpoint, Ahead* ahead) {
  std::optional<store::WorkQueue::LeaseRequest> request;
  int count = 0;
  if (!ahead->leasing()) {
    std::lock_guard<std::mutex> lock(mu_);
    count = LeaseAheadRoomLocked(endpoint, kLeaseAhead - static_cast<int>(ahead->queued.size()));
    if (count > 0) {
      ahead_claiming_[endpoint] += count;  // each may take one of its events
      request = store::WorkQueue::LeaseRequest{owner, clock_.NowMs(), int64_t{config_->worker.lease_seconds} * 1000,
                                               {}, {}, &running_events_, std::vector<std::string>{endpoint}};
    }
  }
  if (!request && ahead->finished.empty()) return;
  Ahead::Write w;
  w.endpoint = request ? endpoint : std::string();
  w.leases = request ? count : 0;
  w.riders = std::move(ahead->finished);
  ahead->finished.clear();
  std::vector<store::AttemptResult> results;
  for (const Attempted& a : w.riders) results.push_back(a.result);
  w.pending = queue_.StartFinishAndLease(std::move(results), std::move(request), w.leases);
  ahead->writes.push_back(std::move(w));
}

void WorkerLoop::RecordedLocked(const Attempted& a) {
  --in_flight_;
  running_events_.Remove(a.event.id);  // from now on a claim may take it, when due
}

void WorkerLoop::CollectAhead(const std::string& owner, Ahead* ahead, bool all) {
  while (!ahead->writes.empty() && (all || ahead->writes.front().pending->Ready())) {
    Ahead::Write w = std::move(ahead->writes.front());
    ahead->writes.pop_front();
    std::vector<Status> finished;
    std::vector<store::LeasedEvent> leased;
    const Status st = w.pending->Wait(&finished, &leased);
    for (size_t i = 0; i < w.riders.size(); ++i) LogRecorded(w.riders[i], i < finished.size() ? finished[i] : st);
    if (w.riders.empty() && !st.ok()) log::Error("worker_claim_failed", {{"error", st.message()}});
    std::vector<std::optional<BreakerReport>> changes;
    int64_t lease_ms = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      lease_ms = int64_t{config_->worker.lease_seconds} * 1000;
      if (!w.endpoint.empty()) {
        auto it = ahead_claiming_.find(w.endpoint);
        if (it != ahead_claiming_.end() && (it->second -= w.leases) <= 0) ahead_claiming_.erase(it);
      }
      for (const Attempted& a : w.riders) RecordedLocked(a);
      for (const store::LeasedEvent& e : leased) {
        ++in_flight_;
        changes.push_back(NumberLocked(e.endpoint, gate_.Leased(e.endpoint, e.id, clock_.NowMs())));
      }
    }
    for (store::LeasedEvent& e : leased) {
      HoldLease(e, owner, lease_ms);  // renewed while it waits, as while it runs
      ahead->queued.push_back(std::move(e));
    }
    for (const auto& c : changes) ReportBreaker(c);
    idle_.notify_all();
  }
}

std::optional<store::LeasedEvent> WorkerLoop::PopQueued(Ahead* ahead) {
  while (!ahead->queued.empty()) {
    store::LeasedEvent e = std::move(ahead->queued.front());
    ahead->queued.pop_front();
    // Its lease was renewed while it waited; lost meanwhile, another process
    // has it: not ours to run.
    if (!DropLeaseIfLost(e.id)) return e;
    log::Info("worker_lease_lost", {{"endpoint", e.endpoint}, {"id", std::to_string(e.id)}});
    std::optional<BreakerReport> change;
    {
      std::lock_guard<std::mutex> lock(mu_);
      --in_flight_;
      running_events_.Remove(e.id);
      change = NumberLocked(e.endpoint, gate_.Abandoned(e.endpoint, e.id, clock_.NowMs()));
    }
    ReportBreaker(change);
  }
  return std::nullopt;
}

void WorkerLoop::ReleaseQueued(const std::string& owner, const std::string& endpoint, const std::string& reason,
                               Ahead* ahead) {
  StartAhead(owner, std::string(), ahead);  // no endpoint: the finished attempt alone
  CollectAhead(owner, ahead, /*all=*/true);
  // Even after Stop's grace ran out and released this owner's leases: a
  // lease ahead that landed after that release is released only here.
  if (!ahead->queued.empty()) {
    auto r = queue_.ReleaseLeases(owner, clock_.NowMs(), reason);
    if (!r.ok()) log::Error("worker_release_failed", {{"error", r.status().message()}});
  }
  for (const store::LeasedEvent& e : ahead->queued) DropLease(e.id);
  std::vector<std::optional<BreakerReport>> changes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_by_endpoint_[endpoint];
    for (const store::LeasedEvent& e : ahead->queued) {
      --in_flight_;
      running_events_.Remove(e.id);
      changes.push_back(NumberLocked(e.endpoint, gate_.Abandoned(e.endpoint, e.id, clock_.NowMs())));
    }
  }
  ahead->queued.clear();
  for (const auto& c : changes) ReportBreaker(c);
}

std::optional<store::LeasedEvent> WorkerLoop::RecordAndClaim(const std::string& owner, const std::string& endpoint,
                                                             Ahead* ahead) {
  std::optional<store::WorkQueue::LeaseRequest> request;
  {
    std::lock_guard<std::mutex> lock(mu_);
    request = ReserveClaimLocked(owner, &endpoint);
  }
  std::vector<Attempted> riders = std::move(ahead->finished);
  ahead->finished.clear();
  std::vector<store::AttemptResult> results;
  for (const Attempted& a : riders) results.push_back(a.result);
  std::vector<Status> finished;
  std::vector<store::LeasedEvent> leased;
  // Finishing and taking the next event share one commit; with neither, no
  // transaction at all (it would still wait for the write lock).
  Status st;
  if (!results.empty() || request) {
    st = queue_.StartFinishAndLease(std::move(results), request, request ? 1 : 0)->Wait(&finished, &leased);
  }
  for (size_t i = 0; i < riders.size(); ++i) LogRecorded(riders[i], i < finished.size() ? finished[i] : st);
  if (riders.empty() && !st.ok()) log::Error("worker_claim_failed", {{"error", st.message()}});
  std::optional<store::LeasedEvent> next;
  if (!leased.empty()) next = std::move(leased.front());
  std::optional<BreakerReport> change;
  {
    // The slot passes, the claim's hold ends and the event it took counts in
    // flight in one step: between them another thread would see the endpoint
    // with neither and overshoot its concurrency.
    std::lock_guard<std::mutex> lock(mu_);
    for (const Attempted& a : riders) RecordedLocked(a);
    --in_flight_by_endpoint_[endpoint];
    if (request) ClaimLandedLocked(*request->endpoints);
    if (next) {
      ++in_flight_by_endpoint_[next->endpoint];
      ++in_flight_;
      change = NumberLocked(next->endpoint, gate_.Leased(next->endpoint, next->id, clock_.NowMs()));
    }
  }
  ReportBreaker(change);
  return next;
}

std::optional<store::LeasedEvent> WorkerLoop::Continue(const std::string& owner, const std::string& endpoint,
                                                       Ahead* ahead) {
  CollectAhead(owner, ahead, /*all=*/ahead->queued.empty());
  if (ahead->queued.empty()) return RecordAndClaim(owner, endpoint, ahead);
  const char* stop_reason = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string& next = ahead->queued.front().endpoint;
    // Events leased ahead run only while nothing holds their endpoint back:
    // after an attempt that opened the breaker (or while its one trial is
    // out) or a pause, none of them starts.
    // A reload that removed the endpoint, or its action, leaves nothing to
    // run them with. One that changed the action lets them run on the new
    // one: they have not started, and the config in force says how events
    // of that endpoint are sent now (sending them back would only cost a
    // release and a claim, and a "released" attempt row, for the same result).
    if (stopping_) {
      stop_reason = "shutdown";
    } else if (const char* gone = GoneLocked(next)) {
      stop_reason = gone;
    } else if (gate_.Paused(next)) {
      stop_reason = "endpoint paused before it ran";
    } else if (!gate_.BreakerClosed(next, clock_.NowMs())) {
      stop_reason = "circuit breaker opened before it ran";
    }
  }
  if (stop_reason != nullptr) {
    ReleaseQueued(owner, endpoint, stop_reason, ahead);
    return std::nullopt;
  }
  std::optional<store::LeasedEvent> successor = PopQueued(ahead);
  if (!successor) return Continue(owner, endpoint, ahead);  // all lost: record and claim as usual
  {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_by_endpoint_[endpoint];
    ++in_flight_by_endpoint_[successor->endpoint];  // it runs in this event's slot
  }
  StartAhead(owner, successor->endpoint, ahead);  // the finish now, and more leases unless a write has them
  return successor;
}

const char* WorkerLoop::GoneLocked(const std::string& endpoint) const {
  if (actions_.find(endpoint) != actions_.end()) return nullptr;
  return config_->FindEndpoint(endpoint) == nullptr ? "endpoint removed from the config before it ran"
                                                    : "endpoint action removed from the config before it ran";
}

void WorkerLoop::SendBack(const std::string& owner, store::LeasedEvent event, const std::string& reason,
                          Ahead* ahead) {
  const std::string endpoint = event.endpoint;
  {
    std::shared_lock<std::shared_mutex> finish_lock(finish_mu_);
    // First in line among its endpoint's events leased ahead: released with
    // them, and its slot freed.
    ahead->queued.push_front(std::move(event));
    ReleaseQueued(owner, endpoint, reason, ahead);
  }
  wake_.notify_all();
  idle_.notify_all();
}

std::optional<store::LeasedEvent> WorkerLoop::RunOne(const std::string& owner, store::LeasedEvent event, Ahead* ahead) {
  // The attempt starts here: the action object and the config in force now
  // are the ones it runs and is recorded with, whatever a reload does meanwhile.
  std::shared_ptr<action::Action> action;
  std::shared_ptr<const config::Config> config;
  const char* gone = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    config = config_;
    gone = GoneLocked(event.endpoint);
    if (!gone) action = actions_.at(event.endpoint);
  }
  if (gone) {  // claimed on the config before a reload removed it
    SendBack(owner, std::move(event), gone, ahead);
    return std::nullopt;
  }
  HoldLease(event, owner, int64_t{config->worker.lease_seconds} * 1000);
  StartAhead(owner, event.endpoint, ahead);  // leases its successors while it runs, unless a write does
  Attempted attempt = RunAction(event, action, std::move(config));
  attempt.result.owner = owner;
  const bool lost = DropLease(event.id);
  const std::string endpoint = event.endpoint;

  std::shared_lock<std::shared_mutex> finish_lock(finish_mu_);
  std::optional<BreakerReport> finished_change;
  if (released_ || lost) {
    log::Info(released_ ? "worker_attempt_released" : "worker_lease_lost",
              {{"endpoint", event.endpoint}, {"id", std::to_string(event.id)}});
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_;
    finished_change = NumberLocked(event.endpoint, gate_.Abandoned(event.endpoint, event.id, clock_.NowMs()));
    running_events_.Remove(event.id);
  } else if (attempt.outcome.started) {
    finished_change = HandOver(attempt);
  } else {
    {
      // The breaker learns the outcome before anything else of its endpoint runs.
      std::lock_guard<std::mutex> lock(mu_);
      finished_change = NumberLocked(event.endpoint, gate_.Finished(event.endpoint, event.id,
                                                                    attempt.counts_against_breaker,
                                                                    attempt.outcome.error, clock_.NowMs()));
    }
    ahead->finished.push_back(std::move(attempt));  // recorded with this thread's next write
  }
  ReportBreaker(finished_change);
  std::optional<store::LeasedEvent> next = Continue(owner, endpoint, ahead);
  finish_lock.unlock();
  // A slot freed, or a claim's hold on the other endpoints ended: a thread
  // that could not search an endpoint may now.
  wake_.notify_all();
  idle_.notify_all();
  return next;
}

std::optional<WorkerLoop::BreakerReport> WorkerLoop::HandOver(const Attempted& a) {
  const store::LeasedEvent& event = a.event;
  // A fresh lease from now: the handler's time to renew or end it starts
  // when it said "started". Its renewal is the handler's from here on
  // (RunOne dropped ours), and Stop's release leaves the event alone.
  const int64_t lease_ms = int64_t{a.config->worker.lease_seconds} * 1000;
  Status st = queue_.HandOver(event.id, a.result.owner, event.attempt, clock_.NowMs() + lease_ms);
  // A busy database is not the end of it: left leased to us, unrenewed, the
  // handler's event would lapse (and run again) although it is running.
  for (int retry = 1; retry <= 3 && !st.ok() && st.code() != Code::kConflict; ++retry) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 << retry));
    st = queue_.HandOver(event.id, a.result.owner, event.attempt, clock_.NowMs() + lease_ms);
  }
  if (st.ok()) {
    metrics::Registry::Default().Add(metrics::kAttemptsStartedTotal, {event.endpoint, event.provider});
    log::Info("attempt_started", {{"endpoint", event.endpoint},
                                  {"provider", event.provider},
                                  {"id", event.id},
                                  {"event_id", event.event_id},
                                  {"attempt", event.attempt},
                                  {"duration_ms", a.seconds * 1000.0}});
  } else if (st.code() == Code::kConflict) {
    // The handler ended the attempt before its 202 reached us, or the lease was lost.
    log::Info("worker_handover_skipped", {{"endpoint", event.endpoint}, {"id", std::to_string(event.id)}});
  } else {
    // The event stays leased to this worker, unrenewed: when the lease
    // lapses it is claimed again (another attempt), as after a crash.
    log::Error("worker_handover_failed",
               {{"endpoint", event.endpoint}, {"id", std::to_string(event.id)}, {"error", st.message()}});
  }
  // Either way the slot is free: the worker's part of the attempt is over.
  // The downstream took the event, so the breaker counts a success.
  std::lock_guard<std::mutex> lock(mu_);
  RecordedLocked(a);
  return NumberLocked(event.endpoint, gate_.Finished(event.endpoint, event.id, false, "", clock_.NowMs()));
}

void WorkerLoop::HoldLease(const store::LeasedEvent& event, const std::string& owner, int64_t lease_ms) {
  const auto every = std::chrono::milliseconds(std::max<int64_t>(lease_ms / 3, 1));
  Lease lease{owner, event.attempt, lease_ms, std::chrono::steady_clock::now() + every, false,
              std::make_shared<RenewFailureLog>(event.id, every)};
  {
    std::lock_guard<std::mutex> lock(leases_mu_);
    auto it = leases_.find(event.id);
    // Leased ahead, it has been held (and renewed) since it landed: kept.
    if (it != leases_.end() && it->second.attempt == event.attempt && it->second.owner == owner) return;
    // Usually no wake-up for the renewer: it sleeps until its next renewal at
    // most, and this one is due a whole period from now. Only a shorter
    // lease than the others (a reload shortened it) needs it sooner.
    const bool sooner = lease.next_renewal < renew_wake_at_;
    if (sooner) renew_wake_at_ = lease.next_renewal;
    leases_[event.id] = std::move(lease);
    if (!sooner) return;
  }
  leases_cv_.notify_all();
}

bool WorkerLoop::DropLeaseIfLost(int64_t id) {
  std::lock_guard<std::mutex> lock(leases_mu_);
  auto it = leases_.find(id);
  if (it == leases_.end() || !it->second.lost) return false;
  leases_.erase(it);
  return true;
}

bool WorkerLoop::DropLease(int64_t id) {
  std::lock_guard<std::mutex> lock(leases_mu_);
  auto it = leases_.find(id);
  const bool lost = it != leases_.end() && it->second.lost;
  if (it != leases_.end()) leases_.erase(it);
  return lost;
}

// Renews each running event's lease every lease/3 until its attempt ends.
// A failed renewal (most often a write lock held past busy_timeout_ms by
// another process) is tried again after kRenewRetry, so the lease is
// restored as soon as the lock clears; until then no claim of this process
// takes the event (running_events_), and its Finish works on the lapsed lease
// unless another process took it. A lost lease (Conflict) marks the attempt
// lost: it records nothing more.
void WorkerLoop::RenewMain() {
  std::unique_lock<std::mutex> lock(leases_mu_);
  while (!renewer_stopping_) {
    lock.unlock();
    const auto next = RenewDue();  // sets renew_wake_at_ to `next`
    lock.lock();
    leases_cv_.wait_until(lock, next, [&] { return renewer_stopping_ || renew_wake_at_ < next; });
  }
}

std::chrono::steady_clock::time_point WorkerLoop::RenewDue() {
  struct Due {
    int64_t id;
    std::string owner;
    int attempt;
    int64_t lease_ms;
    std::shared_ptr<RenewFailureLog> failures;
  };
  std::vector<Due> due;
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(leases_mu_);
    for (const auto& [id, lease] : leases_) {
      if (!lease.lost && lease.next_renewal <= now) {
        due.push_back({id, lease.owner, lease.attempt, lease.lease_ms, lease.failures});
      }
    }
  }
  for (const Due& d : due) {
    // Not under leases_mu_: a renewal is a write that may wait for a lock.
    // Each lease keeps the length it was taken with (a reload changes only
    // the leases taken after it).
    Status st = queue_.RenewLease(d.id, d.owner, d.attempt, clock_.NowMs() + d.lease_ms);
    if (st.code() != Code::kConflict) d.failures->Note(st);
    const auto every = std::chrono::milliseconds(std::max<int64_t>(d.lease_ms / 3, 1));
    std::lock_guard<std::mutex> lock(leases_mu_);
    auto it = leases_.find(d.id);
    if (it == leases_.end()) continue;  // its attempt ended meanwhile
    if (st.code() == Code::kConflict) {
      it->second.lost = true;
    } else {
      it->second.next_renewal = std::chrono::steady_clock::now() + (st.ok() ? every : std::min(every, kRenewRetry));
    }
  }
  // With no lease held, the renewer sleeps until HoldLease wakes it.
  now = std::chrono::steady_clock::now();
  auto next = now + kRenewIdle;
  std::lock_guard<std::mutex> lock(leases_mu_);
  for (const auto& [id, lease] : leases_) {
    if (!lease.lost) next = std::min(next, lease.next_renewal);
  }
  renew_wake_at_ = next;
  return next;
}

}  // namespace hookinbox::worker
