// App::Reload (cli/app.h): SIGHUP, POST /admin/api/reload and so `hookinbox
// reload` end here — load and check the file as check-config does, guard
// the endpoints' key settings, then put the new config in force.
#include <map>

#include "cli/app.h"
#include "cli/key_guard.h"
#include "cli/secret_rotation.h"
#include "common/log.h"

namespace hookinbox::cli {

namespace {

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : "; ") + line;
  return out;
}

// A refused reload keeps the old certificate too: say so as SIGHUP always
// has (tls_reload_refused), for whoever watches for that line, in its words
// ("server.tls_key /k.pem does not match …": the key, then the message the
// pair check gave), not config_reload_refused's FILE:LINE: KEY: form.
// True when it logged any.
bool LogRefusedCertificates(const std::vector<config::Problem>& errors) {
  bool any = false;
  for (const char* listener : {"server", "admin"}) {
    for (const config::Problem& p : errors) {
      if (p.key.rfind(std::string(listener) + ".tls_", 0) != 0) continue;
      log::Error("tls_reload_refused", {{"listener", std::string(listener) == "server" ? "public" : "admin"},
                                        {"detail", p.key + " " + p.message + "; still serving the previous certificate"}});
      any = true;
      break;
    }
  }
  return any;
}

// Whether the alert engine and sender must start again on `next`: they copy
// the config they start with — the thresholds and channels, and per endpoint
// its provider (metric labels) and whether an action processes its events
// (backlog and dead letters are watched only there).
bool AlertsChanged(const config::Config& current, const config::Config& next) {
  if (!(current.alert == next.alert)) return true;
  if (current.endpoints.size() != next.endpoints.size()) return true;
  for (size_t i = 0; i < current.endpoints.size(); ++i) {
    const config::EndpointConfig& a = current.endpoints[i];
    const config::EndpointConfig& b = next.endpoints[i];
    if (a.name != b.name || a.provider != b.provider || a.HasAction() != b.HasAction() || !(a.alert == b.alert)) {
      return true;
    }
  }
  return false;
}

// The endpoints that set a retention, by name: adding or removing one
// without it leaves the purge running (a restarted purge waits its first delay).
std::map<std::string, config::RetentionConfig> Retentions(const config::Config& c) {
  std::map<std::string, config::RetentionConfig> out;
  for (const config::EndpointConfig& e : c.endpoints) {
    if (!(e.retention == config::RetentionConfig{})) out[e.name] = e.retention;
  }
  return out;
}

// What changed since the config in force; what waits for a restart since the
// one loaded at start (a listen address changed by an earlier reload is still
// not the one bound — and keeps its value from the start); names of the kinds
// `redacted` lists written as "[redacted]".
config::ConfigChanges ChangesOf(const config::Config& in_force, const config::Config& at_start,
                                const config::Config& next, const std::vector<std::string>& redacted) {
  config::ConfigChanges out = config::CompareForReload(in_force, next, redacted);
  out.needs_restart = config::CompareForReload(at_start, next, redacted).needs_restart;
  return out;
}

}  // namespace

config::ReloadAnswer App::Refuse(const config::ReloadAsk& ask, std::vector<config::Problem> errors,
                                 config::ReloadAnswer answer) {
  answer.applied = false;
  answer.errors = std::move(errors);
  answer.generation = live_.generation();
  log::Error("config_reload_refused",
             {{"actor", ask.actor}, {"problems", std::to_string(answer.errors.size())},
              {"detail", config::Describe(answer.errors.front(), config_path_) + "; still serving the previous config"}});
  // The certificate files are not the config: a renewal (certbot's deploy
  // hook runs `systemctl reload`) still takes effect when only the config is
  // wrong, as it did before SIGHUP reloaded the config.
  if (!LogRefusedCertificates(answer.errors) && worker_ && !closing_) ReloadCertificates();
  return answer;
}

config::ReloadAnswer App::Reload(const config::ReloadAsk& ask) {
  std::lock_guard<std::mutex> lock(reload_mu_);
  return ReloadLocked(ask);
}

config::ReloadAnswer App::ReloadLocked(const config::ReloadAsk& ask) {
  config::ReloadAnswer answer;
  answer.config_path = config_path_;
  // Exactly check-config's checks, TLS pairs included; *_env keys from the
  // environment as it was at start (the start scrubbed it).
  CheckedConfig checked = LoadAndCheck(config_path_, /*tls_pairs=*/true, &env_);
  answer.warnings = checked.loaded.warnings;
  if (!worker_ || closing_) checked.errors.push_back({"", 0, "the server is starting or stopping"});
  if (!checked.errors.empty()) return Refuse(ask, std::move(checked.errors), std::move(answer));
  config::Config next = std::move(checked.loaded.config);
  // Records the new key settings (and audits a change) only when it will be applied.
  if (KeyGuardOutcome guard =
          GuardKeySpecs(*store_, next, ask.accept_key_change, "reload:" + ask.actor, clock_->NowMs());
      !guard.ok()) {
    return Refuse(ask, std::move(guard.problems), std::move(answer));
  }
  // The answer names everything; the log line hides the names log.redact
  // hides in every other line (the sink's list is the start config's).
  const config::ConfigChanges changes = ChangesOf(*live_.Current(), *config_, next, {});
  const config::ConfigChanges logged = ChangesOf(*live_.Current(), *config_, next, config_->log.redact);
  config::KeepRestartOnly(next, *config_);
  Apply(std::make_shared<const config::Config>(std::move(next)));
  answer.applied = true;
  answer.changed = changes.changed;
  answer.needs_restart = changes.needs_restart;
  answer.generation = live_.generation();
  log::Info("config_reloaded", {{"actor", ask.actor},
                                {"generation", std::to_string(answer.generation)},
                                {"changed", Joined(logged.changed)},
                                {"needs_restart", Joined(logged.needs_restart)}});
  for (const config::Problem& w : answer.warnings) {
    log::Warn("config_warning", {{"detail", config::Describe(w, config_path_)}});
  }
  return answer;
}

// Requests take the new config from their next snapshot; the worker swaps it
// between attempts; the alerts and the purge, which copy what they run on,
// start again on it when their part changed. Certificates are read again
// whatever changed, as SIGHUP always did.
void App::Apply(std::shared_ptr<const config::Config> next) {
  std::shared_ptr<const config::Config> before = live_.Current();
  live_.Replace(next);
  worker_->Reconfigure(next, worker::BuildActions(*next, *clock_));
  if (AlertsChanged(*before, *next)) {
    StopAlerts();
    StartAlerts(next);
  }
  if (Retentions(*before) != Retentions(*next)) StartPurge(next);
  if (rotation_watch_) rotation_watch_->Watch(*next);
  for (const config::EndpointConfig& e : next->endpoints) {
    if (e.insecure) log::Warn("insecure_endpoint", {{"endpoint", e.name}, {"detail", "deliveries are not authenticated"}});
  }
  ReloadCertificates();
}

// The step and its reload under one hold of reload_mu_: no SIGHUP or API
// reload can put the files in force halfway, and the step is checked with
// exactly the reload's checks (TLS pairs; the key guard runs in the reload,
// whose refusal undoes the step).
config::SecretRotateAnswer App::SecretStep(const config::SecretRotateAsk& ask) {
  std::lock_guard<std::mutex> lock(reload_mu_);
  config::ReloadAnswer reload;
  bool reloaded = false;
  auto put_in_force = [&]() -> InForce {
    reload = ReloadLocked(config::ReloadAsk{ask.actor, {}});
    reloaded = true;
    if (reload.applied) return {};
    std::string why = "the reload was refused, so nothing changed:";
    for (const config::Problem& p : reload.errors) why += "\n" + config::Describe(p, config_path_);
    return {false, Status(Code::kConflict, why)};
  };
  config::SecretRotateAnswer answer = ApplySecretStep(
      *live_.Current(), ask, [this] { return LoadAndCheck(config_path_, /*tls_pairs=*/true, &env_); }, put_in_force,
      *store_, clock_->NowMs(), /*wait_for_lock=*/false);
  answer.reload = std::move(reload);
  answer.reloaded = reloaded;
  return answer;
}

}  // namespace hookinbox::cli
