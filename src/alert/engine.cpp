// alert/engine.cpp — one check: read, judge (alert/conditions.h), record;
// and the thread that runs a check every alert.check_every.
#include "alert/engine.h"

#include <unistd.h>

#include <algorithm>

#include "common/log.h"

namespace hookinbox::alert {
namespace {

store::PlannedMessages Plan(const config::AlertConfig& alert, const Finding& f) {
  store::PlannedMessages m;
  m.channels = ChannelNames(alert);
  m.start_message = NotificationToJson(f.start);
  m.reminder_message = NotificationToJson(f.reminder);
  m.resolved_message = NotificationToJson(f.resolved);
  m.remind_every_ms = alert.remind_every_ms;
  return m;
}

// Whether an installation-wide condition is off in the config.
bool SwitchedOff(const config::AlertConfig& a, const std::string& condition) {
  if (condition == "certificate_days") return !a.certificate_days;
  if (condition == "disk_free") return !a.disk_free_bytes;
  if (condition == "database_size") return !a.database_size_bytes;
  if (condition == "storage_failures") return !a.storage_failures;
  return true;  // a condition this version does not know
}

std::string Key(const std::string& condition, const std::string& endpoint) { return condition + "\n" + endpoint; }

// Like the worker's lease owners: unique per process across the replicas.
std::string DefaultLeadOwner() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host[0] ? host : "host") + ":" + std::to_string(::getpid());
}

constexpr int64_t kMinLeadLeaseMs = 60 * 1000;

// A failed write that ends the check: Unavailable (database locked, full or
// closed) — the next write would wait busy_timeout_ms for the same answer,
// and Stop waits for the check in progress. (A Stop asked ends it too.)
bool EndsCheck(const Status& st) { return st.code() == Code::kUnavailable; }

// The open breaker_open incident of `endpoint`, if any.
const store::Incident* OpenBreakerIncident(const std::vector<store::Incident>& open, const std::string& endpoint) {
  for (const store::Incident& i : open) {
    if (i.condition == "breaker_open" && i.endpoint == endpoint) return &i;
  }
  return nullptr;
}

std::optional<int64_t> BreakerThreshold(const config::Config& config, const std::string& endpoint) {
  for (const config::EndpointConfig& e : config.endpoints) {
    if (e.name == endpoint) return e.alert.breaker_open_ms;
  }
  return std::nullopt;
}

}  // namespace

int64_t LeadLeaseMs(const config::AlertConfig& alert) {
  return std::max<int64_t>(3 * alert.check_every_ms, kMinLeadLeaseMs);
}

bool Engine::OpenIncidents::Has(const std::string& condition, const std::string& endpoint) const {
  if (!complete) return true;  // cannot tell: let the store decide
  for (const store::Incident& i : list) {
    if (i.condition == condition && i.endpoint == endpoint) return true;
  }
  return false;
}

std::vector<std::string> ChannelNames(const config::AlertConfig& alert) {
  std::vector<std::string> names;
  for (const auto& c : alert.channels) names.push_back(c.name);
  return names;
}

int64_t StorageFailuresTotal(const metrics::Registry& registry, const config::Config& config) {
  int64_t total = 0;
  for (const config::EndpointConfig& e : config.endpoints) {
    total += static_cast<int64_t>(registry.CounterValue(metrics::kRejectedTotal, {e.name, e.provider, "unavailable"}));
  }
  return total;
}

Engine::Engine(EngineSources sources, config::Config config)
    : sources_(std::move(sources)),
      lead_owner_(sources_.lead_owner.empty() ? DefaultLeadOwner() : sources_.lead_owner),
      config_(std::move(config)) {}

// Stopped for good: the lead is given up, so another replica (or this one,
// restarted) checks at once instead of after the lease. Not in Stop, which a
// check in progress may ask for itself.
Engine::~Engine() {
  Stop();
  std::lock_guard<std::mutex> check(check_mu_);
  if (!leading_) return;
  if (Status st = sources_.incidents->ReleaseAlertLead(lead_owner_); !st.ok()) {
    log::Warn("alert_lead_release_failed", {{"owner", lead_owner_}, {"error", st.message()}});
  }
}

config::Config Engine::ConfigCopy() {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

bool Engine::StopRequested() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

// Takes or renews the lead. Not leading, this process forgets the figures
// only it knows: when it leads again, they start afresh (as at its start).
Result<bool> Engine::HoldLead(const config::Config& config, int64_t now_ms) {
  const int64_t lease_ms = LeadLeaseMs(config.alert);
  auto held = sources_.incidents->HoldAlertLead(lead_owner_, now_ms, lease_ms);
  if (!held.ok()) return held;  // unknown: keep what we knew, skip this check
  if (*held && !leading_) log::Info("alert_lead_taken", {{"owner", lead_owner_}, {"lease_ms", lease_ms}});
  if (!*held && leading_) log::Info("alert_lead_lost", {{"owner", lead_owner_}});
  if (!*held) ForgetOwnFigures();
  leading_ = *held;
  return held;
}

void Engine::ForgetOwnFigures() {
  storage_samples_.clear();
  breaker_seen_since_.clear();
}

void Engine::SetConfig(config::Config config) {
  std::lock_guard<std::mutex> lock(mu_);
  config_ = std::move(config);
  cv_.notify_all();
}

// 503s in the last kStorageWindowMs, from this process's running total: a
// window (not "since the last check") so a storm that comes and goes within
// minutes is one incident, not one per check. Until this process has counted
// for a whole window (it just started, or just took the lead), a figure
// under the threshold is not judged: "none in the last 5 minutes" is not
// known yet, and the incident another process opened stays open.
std::optional<int64_t> Engine::StorageFailuresInWindow(const config::AlertConfig& alert, int64_t now_ms) {
  if (!sources_.storage_failures_total) return std::nullopt;
  const int64_t total = sources_.storage_failures_total();
  storage_samples_.emplace_back(now_ms, total);
  // The baseline is the last sample taken at or before the window's start
  // (or the oldest one, early on): older ones are no longer needed.
  while (storage_samples_.size() > 1 && storage_samples_[1].first <= now_ms - kStorageWindowMs) {
    storage_samples_.pop_front();
  }
  const int64_t n = total - storage_samples_.front().second;
  const bool whole_window = storage_samples_.front().first <= now_ms - kStorageWindowMs;
  if (!whole_window && (!alert.storage_failures || n < *alert.storage_failures)) return std::nullopt;
  return n;
}

// A half-open trial (and its failure) rewrites breaker_changed_at; the
// engine remembers when it first saw the breaker not closed, so "open for
// longer than breaker_open" counts from the first opening. A leader that has
// not seen it open (it just started or took over) learns it from the open
// incident: that opened once the breaker had been open breaker_open, so the
// breaker has been open since at least that long before. Counting from the
// incident's opening alone would judge it "not open long enough" and resolve
// what is still true.
void Engine::TrackBreakers(const config::Config& config, const OpenIncidents& open, CheckInput* in) {
  for (const auto& s : in->endpoints) {
    if (!s.breaker_open_since_ms) {
      breaker_seen_since_.erase(s.endpoint);
      continue;
    }
    int64_t since = *s.breaker_open_since_ms;
    if (auto it = breaker_seen_since_.find(s.endpoint); it != breaker_seen_since_.end()) {
      since = std::min(since, it->second);
    }
    if (const store::Incident* i = OpenBreakerIncident(open.list, s.endpoint)) {
      since = std::min(since, i->opened_at_ms - BreakerThreshold(config, s.endpoint).value_or(0));
    }
    breaker_seen_since_[s.endpoint] = since;
    in->breaker_open_since_ms[s.endpoint] = since;
  }
}

CheckInput Engine::ReadInput(const config::Config& config, int64_t now_ms, OpenIncidents* open, Status* error) {
  CheckInput in;
  in.now_ms = now_ms;
  auto endpoints = sources_.signals->ReadEndpointSignals(MakeSignalQuery(config, now_ms));
  if (!endpoints.ok()) {
    *error = endpoints.status();
    return in;
  }
  store::IncidentQuery q;
  q.limit = 1000;  // the store's most; more open incidents than that: "complete" says so
  auto listed = sources_.incidents->ListIncidents(q);
  if (!listed.ok()) {
    *error = listed.status();
    return in;
  }
  open->complete = static_cast<int>(listed->size()) < q.limit;
  open->list = std::move(*listed);
  in.endpoints = std::move(*endpoints);
  TrackBreakers(config, *open, &in);
  auto installation = sources_.signals->ReadInstallationSignals();
  if (installation.ok()) {
    in.installation = *installation;
  } else {
    log::Warn("alert_check_partial", {{"error", installation.status().message()}});
  }
  in.storage_failures = StorageFailuresInWindow(config.alert, now_ms);
  if (sources_.certificate_not_after_ms) in.certificate_not_after_ms = sources_.certificate_not_after_ms();
  return in;
}

Status Engine::Apply(const config::Config& config, const std::vector<Finding>& findings, const OpenIncidents& open,
                     int64_t now_ms, CheckReport* r) {
  for (const Finding& f : findings) {
    if (StopRequested()) {
      r->stopped = true;
      return Status::Ok();
    }
    if (!f.holds && !open.Has(f.condition, f.endpoint)) continue;  // nothing to resolve: no write
    const store::PlannedMessages m = Plan(config.alert, f);
    if (f.holds) {
      ++r->holding;
      auto res = sources_.incidents->ObserveCondition({f.condition, f.endpoint, f.summary, f.count}, m, now_ms);
      if (!res.ok()) {
        log::Error("alert_record_failed", {{"condition", f.condition}, {"endpoint", f.endpoint},
                                           {"error", res.status().message()}});
        if (EndsCheck(res.status())) return res.status();
        continue;
      }
      if (res->change == store::IncidentChange::kOpened) {
        ++r->opened;
        // The log tells of incidents even with no channel (names and counts only).
        log::Warn("alert_opened", {{"condition", f.condition}, {"endpoint", f.endpoint},
                                   {"incident", res->incident.id}, {"count", f.count}});
      }
      if (res->change == store::IncidentChange::kReminded) ++r->reminded;
      continue;
    }
    auto res = sources_.incidents->ResolveCondition(f.condition, f.endpoint, m, now_ms);
    if (!res.ok()) {
      log::Error("alert_record_failed", {{"condition", f.condition}, {"endpoint", f.endpoint},
                                         {"error", res.status().message()}});
      if (EndsCheck(res.status())) return res.status();
    } else if (res->has_value()) {
      ++r->resolved;
      log::Info("alert_resolved", {{"condition", f.condition}, {"endpoint", f.endpoint}, {"incident", (*res)->id}});
    }
  }
  return Status::Ok();
}

// An open incident no finding speaks for: its condition was switched off or
// its endpoint left the config. Nothing will ever find it resolved, so it is
// resolved now (with a resolved message built from what it last said).
Status Engine::ResolveOrphans(const config::Config& config, const std::vector<Finding>& findings,
                              const OpenIncidents& open, int64_t now_ms, CheckReport* r) {
  std::set<std::string> judged;
  for (const Finding& f : findings) judged.insert(Key(f.condition, f.endpoint));
  for (const store::Incident& i : open.list) {
    if (judged.count(Key(i.condition, i.endpoint)) > 0) continue;
    // An installation-wide figure not read this time is not a reason to resolve.
    if (i.endpoint.empty() && !SwitchedOff(config.alert, i.condition)) continue;
    if (StopRequested()) {
      r->stopped = true;
      return Status::Ok();
    }
    Finding f;
    f.resolved.kind = NotificationKind::kResolved;
    f.resolved.title = "No longer watched: " + i.summary;
    f.resolved.text = "This condition is no longer checked (it was switched off, or the endpoint was removed "
                      "from the configuration), so the incident is closed.";
    f.resolved.condition = i.condition;
    f.resolved.endpoint = i.endpoint;
    f.resolved.link = config.alert.ui_url;
    f.resolved.at_ms = now_ms;
    auto res = sources_.incidents->ResolveCondition(i.condition, i.endpoint, Plan(config.alert, f), now_ms);
    if (!res.ok() && EndsCheck(res.status())) return res.status();
    if (res.ok() && res->has_value()) {
      ++r->resolved;
      log::Info("alert_resolved", {{"condition", i.condition}, {"endpoint", i.endpoint}, {"incident", i.id},
                                   {"detail", "no longer watched"}});
    }
  }
  return Status::Ok();
}

// The digest of the day before, once the local time has reached
// alert.digest_at. A failure is logged and tried again at the next check.
bool Engine::QueueDigestIfDue(const config::Config& config, int64_t now_ms) {
  if (config.alert.channels.empty()) return false;  // nowhere to send it
  const auto day = digest_.Due(config.alert.digest_at, now_ms);
  if (!day) return false;
  auto figures = sources_.signals->ReadDayFigures(day->from_ms, day->to_ms);
  auto open = sources_.incidents->ListIncidents({});
  store::IncidentQuery recent;
  recent.open_only = false;
  recent.resolved_since_ms = day->from_ms;
  auto of_day = sources_.incidents->ListIncidents(recent);
  if (!figures.ok() || !open.ok() || !of_day.ok()) {
    const Status& st = !figures.ok() ? figures.status() : !open.ok() ? open.status() : of_day.status();
    log::Warn("alert_digest_failed", {{"day", day->day}, {"error", st.message()}});
    return false;
  }
  DigestInput in{*day, *figures, *open, {}, config.alert.ui_url, now_ms};
  for (const store::Incident& i : *of_day) {
    if (i.opened_at_ms >= day->from_ms && i.opened_at_ms < day->to_ms) in.of_the_day.push_back(i);
  }
  std::vector<std::string> channels = ChannelNames(config.alert);
  if (!config.alert.digest_channel.empty()) channels = {config.alert.digest_channel};
  auto queued = sources_.incidents->QueueDigest(day->day, channels, NotificationToJson(ComposeDigest(in)), now_ms);
  if (!queued.ok()) {
    log::Warn("alert_digest_failed", {{"day", day->day}, {"error", queued.status().message()}});
    return false;
  }
  digest_.Done(day->day);  // queued now, or already by another replica
  return *queued;
}

Result<CheckReport> Engine::CheckOnce() {
  std::lock_guard<std::mutex> check(check_mu_);
  const config::Config config = ConfigCopy();
  const int64_t now_ms = sources_.clock->NowMs();
  CheckReport r;
  auto lead = HoldLead(config, now_ms);
  if (!lead.ok()) {
    log::Warn("alert_check_skipped", {{"error", lead.status().message()}});
    return lead.status();
  }
  if (!*lead) return r;  // another replica checks (nothing logged: this is every check)
  r.leading = true;
  Status error = Status::Ok();
  OpenIncidents open;
  const CheckInput in = ReadInput(config, now_ms, &open, &error);
  if (!error.ok()) {
    log::Warn("alert_check_skipped", {{"error", error.message()}});
    return error;
  }
  const std::vector<Finding> findings = Evaluate(config, in);
  r.findings = static_cast<int>(findings.size());
  Status ended = Apply(config, findings, open, now_ms, &r);
  if (ended.ok() && !r.stopped) ended = ResolveOrphans(config, findings, open, now_ms, &r);
  if (ended.ok() && !r.stopped && !StopRequested()) r.digest_queued = QueueDigestIfDue(config, now_ms);
  if ((r.opened + r.reminded + r.resolved > 0 || r.digest_queued) && sources_.on_queued) sources_.on_queued();
  if (!ended.ok()) return ended;
  return r;
}

void Engine::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
  }
  thread_ = std::thread([this] { Run(); });
}

void Engine::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Engine::Run() {
  for (;;) {
    CheckOnce();  // failures are logged by the check; the next one tries again
    std::unique_lock<std::mutex> lock(mu_);
    const auto every = std::chrono::milliseconds(std::max<int64_t>(config_.alert.check_every_ms, 100));
    cv_.wait_for(lock, every, [this] { return stop_; });
    if (stop_) return;
  }
}

}  // namespace hookinbox::alert
