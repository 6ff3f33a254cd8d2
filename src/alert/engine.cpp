// alert/engine.cpp — one check: read, judge (alert/conditions.h), record;
// and the thread that runs a check every alert.check_every.
#include "alert/engine.h"

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

}  // namespace

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
    : sources_(std::move(sources)), config_(std::move(config)) {}

Engine::~Engine() { Stop(); }

config::Config Engine::ConfigCopy() {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

void Engine::SetConfig(config::Config config) {
  std::lock_guard<std::mutex> lock(mu_);
  config_ = std::move(config);
  cv_.notify_all();
}

// 503s in the last kStorageWindowMs, from this process's running total: a
// window (not "since the last check") so a storm that comes and goes within
// minutes is one incident, not one per check.
std::optional<int64_t> Engine::StorageFailuresInWindow(int64_t now_ms) {
  if (!sources_.storage_failures_total) return std::nullopt;
  const int64_t total = sources_.storage_failures_total();
  storage_samples_.emplace_back(now_ms, total);
  // The baseline is the last sample taken at or before the window's start
  // (or the oldest one, early on): older ones are no longer needed.
  while (storage_samples_.size() > 1 && storage_samples_[1].first <= now_ms - kStorageWindowMs) {
    storage_samples_.pop_front();
  }
  return total - storage_samples_.front().second;
}

// A half-open trial (and its failure) rewrites breaker_changed_at; the
// engine remembers when it first saw the breaker not closed, so "open for
// longer than breaker_open" counts from the first opening.
void Engine::TrackBreakers(const std::vector<store::EndpointSignals>& signals, CheckInput* in) {
  for (const auto& s : signals) {
    if (!s.breaker_open_since_ms) {
      breaker_seen_since_.erase(s.endpoint);
      continue;
    }
    auto [it, inserted] = breaker_seen_since_.emplace(s.endpoint, *s.breaker_open_since_ms);
    in->breaker_open_since_ms[s.endpoint] = it->second;
  }
}

CheckInput Engine::ReadInput(const config::Config& config, int64_t now_ms, Status* error) {
  CheckInput in;
  in.now_ms = now_ms;
  auto endpoints = sources_.signals->ReadEndpointSignals(MakeSignalQuery(config, now_ms));
  if (!endpoints.ok()) {
    *error = endpoints.status();
    return in;
  }
  in.endpoints = std::move(*endpoints);
  TrackBreakers(in.endpoints, &in);
  auto installation = sources_.signals->ReadInstallationSignals();
  if (installation.ok()) {
    in.installation = *installation;
  } else {
    log::Warn("alert_check_partial", {{"error", installation.status().message()}});
  }
  in.storage_failures = StorageFailuresInWindow(now_ms);
  if (sources_.certificate_not_after_ms) in.certificate_not_after_ms = sources_.certificate_not_after_ms();
  return in;
}

void Engine::Apply(const config::Config& config, const std::vector<Finding>& findings, int64_t now_ms,
                   CheckReport* r) {
  for (const Finding& f : findings) {
    const store::PlannedMessages m = Plan(config.alert, f);
    if (f.holds) {
      ++r->holding;
      auto res = sources_.incidents->ObserveCondition({f.condition, f.endpoint, f.summary, f.count}, m, now_ms);
      if (!res.ok()) {
        log::Error("alert_record_failed", {{"condition", f.condition}, {"endpoint", f.endpoint},
                                           {"error", res.status().message()}});
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
    } else if (res->has_value()) {
      ++r->resolved;
      log::Info("alert_resolved", {{"condition", f.condition}, {"endpoint", f.endpoint}, {"incident", (*res)->id}});
    }
  }
}

// An open incident no finding speaks for: its condition was switched off or
// its endpoint left the config. Nothing will ever find it resolved, so it is
// resolved now (with a resolved message built from what it last said).
void Engine::ResolveOrphans(const config::Config& config, const std::vector<Finding>& findings, int64_t now_ms,
                            CheckReport* r) {
  auto open = sources_.incidents->ListIncidents({});
  if (!open.ok()) return;
  std::set<std::string> judged;
  for (const Finding& f : findings) judged.insert(Key(f.condition, f.endpoint));
  for (const store::Incident& i : *open) {
    if (judged.count(Key(i.condition, i.endpoint)) > 0) continue;
    // An installation-wide figure not read this time is not a reason to resolve.
    if (i.endpoint.empty() && !SwitchedOff(config.alert, i.condition)) continue;
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
    if (res.ok() && res->has_value()) {
      ++r->resolved;
      log::Info("alert_resolved", {{"condition", i.condition}, {"endpoint", i.endpoint}, {"incident", i.id},
                                   {"detail", "no longer watched"}});
    }
  }
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
  Status error = Status::Ok();
  const CheckInput in = ReadInput(config, now_ms, &error);
  if (!error.ok()) {
    log::Warn("alert_check_skipped", {{"error", error.message()}});
    return error;
  }
  const std::vector<Finding> findings = Evaluate(config, in);
  CheckReport r;
  r.findings = static_cast<int>(findings.size());
  Apply(config, findings, now_ms, &r);
  ResolveOrphans(config, findings, now_ms, &r);
  r.digest_queued = QueueDigestIfDue(config, now_ms);
  if ((r.opened + r.reminded + r.resolved > 0 || r.digest_queued) && sources_.on_queued) sources_.on_queued();
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
