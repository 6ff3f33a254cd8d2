// runner/worker_loop.cpp — see worker_loop.h.
#include "runner/worker_loop.h"

#include <unistd.h>

#include <algorithm>
#include <random>

#include "common/log.h"
#include "common/metrics.h"
#include "worker/backoff.h"

namespace hookinbox::runner {
namespace {

double Uniform01() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

std::string DefaultOwnerPrefix() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host[0] ? host : "host") + ":" + std::to_string(::getpid());
}

worker::ActionInput InputOf(const store::ClaimedEvent& e, const std::string& api_base) {
  worker::ActionInput in;
  in.event_id = e.event_id;
  in.event_type = e.event_type;
  in.idempotency_key = worker::IdempotencyKey(e.provider, e.endpoint, e.tenant_id, e.event_id);
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

// Counts a recorded attempt: by outcome, and a retry by its cause.
void CountAttempt(const store::ClaimedEvent& event, const worker::Outcome& outcome,
                  const std::optional<worker::ProbeResult>& probe, const store::AttemptResult& result) {
  auto& registry = metrics::Registry::Default();
  registry.Add(metrics::kAttemptsTotal, {event.endpoint, event.provider, store::AttemptOutcomeName(result.outcome)});
  if (result.outcome != store::AttemptOutcome::kRetryableFailed) return;
  const bool probe_not_found = probe && probe->verdict == worker::ProbeVerdict::kNotFound;
  registry.Add(metrics::kRetriesTotal, {event.endpoint, event.provider, RetryReason(outcome, probe_not_found)});
}

// How soon a failed lease renewal is tried again.
constexpr std::chrono::milliseconds kRenewRetry{100};

// Logs a streak of failed renewals without flooding the log while a lock is
// held: the first failure, then at most one line per renewal period, and a
// line when a renewal succeeds again.
class RenewFailureLog {
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

}  // namespace

ActionMap BuildActions(const config::Config& config, const Clock& clock) {
  ActionMap out;
  for (const auto& e : config.endpoints) {
    if (e.action.type.empty()) continue;
    std::unique_ptr<worker::Action> action = worker::MakeAction(e.action, clock);
    if (action) out[e.name] = std::move(action);
  }
  return out;
}

store::AttemptResult MapOutcome(const config::WorkerConfig& worker, const store::ClaimedEvent& event,
                                const std::string& owner, const worker::Outcome& outcome, int64_t now_ms,
                                double uniform01) {
  store::AttemptResult r;
  r.id = event.id;
  r.owner = owner;
  r.attempt = event.attempt;
  r.finished_at_ms = now_ms;
  r.error = outcome.error.substr(0, store::kMaxErrorBytes);
  if (outcome.http_status > 0) r.http_status = outcome.http_status;
  r.exit_code = outcome.exit_code;
  switch (outcome.verdict) {
    case worker::Verdict::kSuccess:
      r.outcome = store::AttemptOutcome::kCompleted;
      r.result_ref = outcome.result_ref;
      break;
    case worker::Verdict::kTransient:
      if (event.attempt >= worker.max_attempts) {
        r.outcome = store::AttemptOutcome::kDeadLettered;
        r.error = ("attempts exhausted: " + outcome.error).substr(0, store::kMaxErrorBytes);
      } else {
        r.outcome = store::AttemptOutcome::kRetryableFailed;
        r.next_attempt_at_ms = worker::NextAttemptAt(now_ms, event.attempt, outcome.retry_after_ms,
                                                     worker.backoff_initial_ms, worker.backoff_max_ms, uniform01);
      }
      break;
    case worker::Verdict::kPermanent:
      r.outcome = store::AttemptOutcome::kDeadLettered;
      break;
    case worker::Verdict::kUnknown:
      r.outcome = store::AttemptOutcome::kUnknown;
      break;
  }
  return r;
}

const char* RetryReason(const worker::Outcome& outcome, bool probe_not_found) {
  if (probe_not_found) return "probe_not_found";
  const int status = outcome.http_status;
  if (status == 429) return "status_429";
  if (status >= 500) return "status_5xx";
  if (status >= 400) return "status_4xx";
  if (outcome.exit_code && *outcome.exit_code == 75) return "exit_75";
  const std::string& e = outcome.error;
  if (e.find("timed out") != std::string::npos || e.find("Timeout") != std::string::npos) return "timeout";
  if (e.rfind("not sent", 0) == 0 || e.rfind("cannot ", 0) == 0) return "connect";
  if (e.rfind("no answer", 0) == 0) return "no_answer";
  return "other";
}

void ApplyProbe(const config::WorkerConfig& worker, const store::ClaimedEvent& event, const worker::ProbeResult& probe,
                int64_t probe_started_ms, double uniform01, store::AttemptResult* r) {
  r->probe = store::AttemptResult::Probe{probe_started_ms, std::nullopt, probe.error};
  if (probe.http_status > 0) r->probe->http_status = probe.http_status;
  r->error = (r->error + "; " + probe.error).substr(0, store::kMaxErrorBytes);
  switch (probe.verdict) {
    case worker::ProbeVerdict::kFound:
      r->outcome = store::AttemptOutcome::kCompleted;
      r->result_ref = probe.result_ref;
      break;
    case worker::ProbeVerdict::kNotFound:
      if (event.attempt >= worker.max_attempts) {
        r->outcome = store::AttemptOutcome::kDeadLettered;
        r->error = ("attempts exhausted: " + r->error).substr(0, store::kMaxErrorBytes);
      } else {
        r->outcome = store::AttemptOutcome::kRetryableFailed;
        r->next_attempt_at_ms = worker::NextAttemptAt(r->finished_at_ms, event.attempt, std::nullopt,
                                                      worker.backoff_initial_ms, worker.backoff_max_ms, uniform01);
      }
      break;
    case worker::ProbeVerdict::kUnclear:
      break;  // stays unknown, for a person
  }
}

WorkerLoop::WorkerLoop(const config::Config& config, store::WorkQueue& queue, const Clock& clock, ActionMap actions,
                       WorkerOptions options, std::string handler_api_base)
    : config_(config), queue_(queue), clock_(clock), actions_(std::move(actions)), options_(std::move(options)),
      owner_prefix_(options_.owner_prefix.empty() ? DefaultOwnerPrefix() : options_.owner_prefix),
      handler_api_base_(std::move(handler_api_base)) {}

WorkerLoop::~WorkerLoop() {
  if (!threads_.empty()) Stop(std::chrono::milliseconds(0));
}

void WorkerLoop::Start() {
  {
    std::lock_guard<std::shared_mutex> finish_lock(finish_mu_);
    released_ = false;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = true;
    stopping_ = false;
  }
  int n = std::max(1, config_.worker.threads);
  for (int i = 0; i < n; ++i) threads_.emplace_back([this, i] { ThreadMain(i); });
  log::Info("worker_started", {{"threads", std::to_string(n)}, {"actions", std::to_string(actions_.size())}});
}

void WorkerLoop::Notify() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++notifications_;
  }
  wake_.notify_all();
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
    auto r = queue_.ReleaseLeases(owner_prefix_ + ":" + std::to_string(i), clock_.NowMs());
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
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
  }
  log::Info("worker_stopped", {{"released", std::to_string(released)}});
  return released;
}

std::vector<std::string> WorkerLoop::ExcludedLocked() const {
  std::vector<std::string> out;
  for (const auto& e : config_.endpoints) {
    if (actions_.find(e.name) == actions_.end()) {
      out.push_back(e.name);
      continue;
    }
    auto it = in_flight_by_endpoint_.find(e.name);
    if (it != in_flight_by_endpoint_.end() && it->second >= config_.ActionConcurrency(e)) out.push_back(e.name);
  }
  return out;
}

std::chrono::milliseconds WorkerLoop::SleepFor() {
  auto due = queue_.NextDueAt();
  if (!due.ok() || !due->has_value()) return options_.poll;
  int64_t wait = **due - clock_.NowMs();
  // Due already but not claimed: its endpoint is excluded (busy or no
  // action); a finishing action or a new event wakes us.
  if (wait <= 0) return options_.poll;
  return std::min(options_.poll, std::chrono::milliseconds(wait));
}

void WorkerLoop::ThreadMain(int index) {
  const std::string owner = owner_prefix_ + ":" + std::to_string(index);
  while (true) {
    uint64_t seen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      seen = notifications_;
    }
    if (RunOne(owner)) continue;
    auto sleep = SleepFor();
    std::unique_lock<std::mutex> lock(mu_);
    wake_.wait_for(lock, sleep, [&] { return stopping_ || notifications_ != seen; });
  }
}

bool WorkerLoop::RunOne(const std::string& owner) {
  std::optional<store::ClaimedEvent> event;
  {
    // Claims are serialized within the process so the concurrency count
    // seen when choosing exclusions is the count when the claim lands.
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return false;
    std::vector<std::string> excluded = ExcludedLocked();
    if (excluded.size() == config_.endpoints.size() && !config_.endpoints.empty()) return false;
    auto claimed = queue_.ClaimDue(owner, clock_.NowMs(), int64_t{config_.worker.lease_seconds} * 1000, excluded,
                                   running_ids_);
    if (!claimed.ok()) {
      log::Error("worker_claim_failed", {{"error", claimed.status().message()}});
      return false;
    }
    if (!claimed->has_value()) return false;
    event = std::move(*claimed);
    ++in_flight_by_endpoint_[event->endpoint];
    ++in_flight_;
    running_ids_.push_back(event->id);
  }

  std::shared_ptr<worker::Action> action;
  if (auto it = actions_.find(event->endpoint); it != actions_.end()) action = it->second;

  std::mutex renew_mu;
  std::condition_variable renew_cv;
  bool done = false;
  bool lost = false;
  std::thread renewer([&] {
    Renew(*event, owner, renew_mu, renew_cv, done);
    std::lock_guard<std::mutex> lock(renew_mu);
    lost = !done;
  });

  worker::Outcome outcome;
  std::optional<worker::ProbeResult> probe;
  int64_t probe_started_ms = 0;
  const auto attempt_started = std::chrono::steady_clock::now();
  if (action) {
    const worker::ActionInput input = InputOf(*event, handler_api_base_);
    outcome = action->Run(input);
    // Reconcile before anyone retries: still under the lease, so no other
    // worker runs the event while the probe is out.
    const config::EndpointConfig* endpoint = config_.FindEndpoint(event->endpoint);
    if (outcome.verdict == worker::Verdict::kUnknown && endpoint != nullptr && !endpoint->action.probe_url.empty()) {
      probe_started_ms = clock_.NowMs();
      probe = worker::Probe(endpoint->action, input);
    }
  } else {  // the config changed under a claimed event: nothing to run it with
    outcome.verdict = worker::Verdict::kPermanent;
    outcome.error = "endpoint has no action";
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - attempt_started).count();
  if (action) metrics::Registry::Default().Observe(metrics::kProcessingSeconds, {event->endpoint, event->provider}, seconds);
  {
    std::lock_guard<std::mutex> lock(renew_mu);
    done = true;
  }
  renew_cv.notify_all();
  renewer.join();

  std::shared_lock<std::shared_mutex> finish_lock(finish_mu_);
  if (released_) {
    log::Info("worker_attempt_released", {{"endpoint", event->endpoint}, {"id", std::to_string(event->id)}});
  } else if (lost) {
    log::Info("worker_lease_lost", {{"endpoint", event->endpoint}, {"id", std::to_string(event->id)}});
  } else {
    store::AttemptResult result =
        MapOutcome(config_.worker, *event, owner, outcome, clock_.NowMs(), Uniform01());
    if (probe && result.outcome == store::AttemptOutcome::kUnknown) {
      ApplyProbe(config_.worker, *event, *probe, probe_started_ms, Uniform01(), &result);
    }
    Status st = queue_.Finish(result);
    if (st.code() == Code::kConflict) {
      log::Info("worker_lease_lost", {{"endpoint", event->endpoint}, {"id", std::to_string(event->id)}});
    } else if (!st.ok()) {
      log::Error("worker_finish_failed", {{"endpoint", event->endpoint}, {"id", std::to_string(event->id)},
                                          {"error", st.message()}});
    } else {
      CountAttempt(*event, outcome, probe, result);
      log::Info("attempt", {{"endpoint", event->endpoint},
                            {"provider", event->provider},
                            {"id", event->id},
                            {"event_id", event->event_id},
                            {"attempt", event->attempt},
                            {"outcome", store::AttemptOutcomeName(result.outcome)},
                            {"status", outcome.http_status},
                            {"duration_ms", seconds * 1000.0},
                            {"error", result.error}});
    }
  }
  finish_lock.unlock();
  {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_by_endpoint_[event->endpoint];
    --in_flight_;
    // Recorded (or given up): from now on a claim may take it, when due.
    running_ids_.erase(std::find(running_ids_.begin(), running_ids_.end(), event->id));
    ++notifications_;  // a slot freed: a waiting thread may claim for this endpoint
  }
  wake_.notify_all();
  idle_.notify_all();
  return true;
}

// Runs beside the action: renews every lease/3 until `done`; returns early
// (leaving `done` false) when the lease was lost. A failed renewal (most
// often a write lock held past busy_timeout_ms by another process) is tried
// again after kRenewRetry, so the lease is restored as soon as the lock
// clears; until then no claim of this process takes the event (running_ids_),
// and its Finish works on the lapsed lease unless another process took it.
void WorkerLoop::Renew(const store::ClaimedEvent& event, const std::string& owner, std::mutex& mu,
                       std::condition_variable& cv, const bool& done) {
  const int64_t lease_ms = int64_t{config_.worker.lease_seconds} * 1000;
  const auto every = std::chrono::milliseconds(std::max<int64_t>(lease_ms / 3, 1));
  const auto retry = std::min(every, kRenewRetry);
  RenewFailureLog failures(event.id, every);
  auto wait = every;
  std::unique_lock<std::mutex> lock(mu);
  while (!cv.wait_for(lock, wait, [&] { return done; })) {
    lock.unlock();
    Status st = queue_.RenewLease(event.id, owner, event.attempt, clock_.NowMs() + lease_ms);
    lock.lock();
    if (st.code() == Code::kConflict) return;
    failures.Note(st);
    wait = st.ok() ? every : retry;
  }
}

}  // namespace hookinbox::runner
