#include "cli/app.h"

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>

#include "alert/channel.h"
#include "cli/key_guard.h"
#include "cli/open_store.h"
#include "common/log.h"
#include "common/metrics.h"
#include "http/certificate.h"

namespace hookinbox::cli {
namespace {

// Reloads one listener's pair (PublicServer or AdminServer) and says what
// happened. The fields are public facts about the certificate (fingerprint,
// end date), never key material.
template <typename Listener>
void ReloadPair(const char* name, Listener& listener) {
  if (Status st = listener.ReloadCertificate(); !st.ok()) {
    log::Error("tls_reload_refused",
               {{"listener", name}, {"detail", st.message() + "; still serving the previous certificate"}});
    return;
  }
  auto pair = listener.Certificate();
  if (!pair) return;
  log::Info("tls_reloaded", {{"listener", name}, {"sha256", pair->sha256}, {"not_after", pair->not_after}});
  for (const auto& w : pair->warnings) log::Warn("tls_warning", {{"listener", name}, {"detail", w}});
}

}  // namespace

App::~App() { Close(); }

Status App::Start() {
  auto store = OpenConfiguredStore(config_->storage);
  if (!store.ok()) return store.status();
  store_ = std::move(store).value();
  if (store_->backend() == store::sql::Backend::kPostgres) {
    // Replicas compare each other's leases and due times: one clock, the server's.
    store::SqlStore* db = store_.get();
    database_clock_ = std::make_unique<store::DatabaseClock>(
        [db] {
          auto now = db->ServerNowMs();
          if (!now.ok()) throw std::runtime_error(now.status().message());
          return *now;
        },
        system_clock_);
    clock_ = database_clock_.get();
  }
  // Before anything serves: a changed key would turn redeliveries into new events.
  if (Status st = GuardKeySpecs(*store_, *config_, accept_key_change_, "serve", clock_->NowMs()); !st.ok()) {
    return st;
  }
  auto admin = admin::AdminServer::Create(live_, *store_, *clock_);
  if (!admin.ok()) return admin.status();
  admin_ = std::move(admin).value();
  if (Status st = admin_->Bind(); !st.ok()) return st;
  worker::WorkerOptions worker_options;
  worker_options.endpoint_states = store_.get();  // pauses are read and breaker changes recorded here
  worker_ = std::make_unique<worker::WorkerLoop>(config_, *store_, *clock_, worker::BuildActions(*config_, *clock_),
                                                 std::move(worker_options), admin_->HandlerApiBase());
  worker::WorkerLoop* worker = worker_.get();
  http::ServerHooks hooks{[worker](const std::string& endpoint) { worker->Notify(endpoint); },
                          [worker] { return worker->running(); }};
  auto server = http::PublicServer::Create(live_, *store_, *clock_, std::move(hooks));
  if (!server.ok()) return server.status();
  server_ = std::move(server).value();
  if (Status st = server_->Bind(); !st.ok()) return st;
  // Only a process that got both ports serves and runs actions (a second
  // instance on a taken port must not start working the queue before it fails).
  admin_->SetReloadHook([this](const config::ReloadAsk& ask) { return Reload(ask); });
  admin_->Start();
  worker_->Start();
  StartPurge(config_);
  StartAlerts(config_);
  return Status::Ok();
}

void App::StartPurge(std::shared_ptr<const config::Config> config) {
  purge_.reset();  // joins: a batch in progress finishes first
  purge_config_ = std::move(config);
  if (!HasRetention(*purge_config_)) return;
  purge_ = std::make_unique<PurgeLoop>(*store_, *purge_config_, *clock_);  // hourly, store/purge.h
  purge_->Start();
}

namespace {

bool AnyOn(const config::AlertThresholds& t) {
  return t.dead_letters || t.unknown || t.conflicts || t.backlog_age_ms || t.signature_failures || t.silence_ms ||
         t.breaker_open_ms;
}

// Whether the engine has anything to do: a condition on (for some endpoint,
// or for the installation), or a digest to send.
bool WatchesAnything(const config::Config& c) {
  const config::AlertConfig& a = c.alert;
  if (a.certificate_days || a.disk_free_bytes || a.database_size_bytes || a.storage_failures) return true;
  if (!a.digest_at.empty() && !a.channels.empty()) return true;
  for (const config::EndpointConfig& e : c.endpoints) {
    if (AnyOn(e.alert)) return true;
  }
  return false;
}

}  // namespace

// The engine's thread runs whenever a condition is on, with or without a
// channel: the incidents it keeps are what the Attention view lists. With
// every condition off, one check runs here, before serving, to close the
// incidents left open from before, and no thread runs. The sender runs only
// when there is somewhere to send; the engine queues no message without a
// channel. Neither touches ingest or the worker: the engine reads on the
// store's reader connections and the sender waits for channels on its own thread.
// Every replica runs both; only the one holding the alert lead checks (its
// owner is "<hostname>:<pid>", the worker's lease owner prefix), every one sends.
void App::StartAlerts(std::shared_ptr<const config::Config> config) {
  if (!config->alert.channels.empty()) {
    alert_sender_ = std::make_unique<alert::Dispatcher>(*store_, alert::MakeChannels(config->alert), *clock_);
  }
  alert::EngineSources sources;
  sources.signals = store_.get();
  sources.incidents = store_.get();
  sources.clock = clock_;
  sources.storage_failures_total = [config] {
    return alert::StorageFailuresTotal(metrics::Registry::Default(), *config);
  };
  http::PublicServer* server = server_.get();
  // The certificate served now, so a renewal loaded with SIGHUP resolves the incident.
  sources.certificate_not_after_ms = [server]() -> std::optional<int64_t> {
    auto pair = server->Certificate();
    if (!pair) return std::nullopt;  // plain HTTP behind a proxy: not ours to watch
    return pair->not_after_ms;
  };
  alert::Dispatcher* sender = alert_sender_.get();
  sources.on_queued = [sender] {
    if (sender != nullptr) sender->Wake();
  };
  alert_engine_ = std::make_unique<alert::Engine>(std::move(sources), *config);
  if (alert_sender_) alert_sender_->Start();
  if (!WatchesAnything(*config)) {
    alert_engine_->CheckOnce();  // failures are logged; the next start tries again
    log::Info("alerts_off", {{"detail", "every alert condition is switched off: no checks run"}});
    return;
  }
  alert_engine_->Start();
  std::string channels;
  for (const std::string& name : alert::ChannelNames(config->alert)) channels += (channels.empty() ? "" : ",") + name;
  log::Info("alerts_started", {{"channels", channels}, {"check_every_ms", config->alert.check_every_ms}});
}

// The engine first (it wakes the sender), then the sender: a send in
// progress finishes within its channel's timeout, and rows it leased but did
// not reach are left to the next sender once their lease lapses.
void App::StopAlerts() {
  if (alert_engine_) alert_engine_->Stop();
  if (alert_sender_) alert_sender_->Stop();
  alert_engine_.reset();
  alert_sender_.reset();
}

Status App::Run() { return server_->Run(); }

bool App::Stop() { return server_ != nullptr && server_->Stop(); }

void App::Close() {
  {
    std::lock_guard<std::mutex> lock(reload_mu_);  // a reload in progress ends first; none starts after
    closing_ = true;
  }
  purge_.reset();  // joins: a batch in progress finishes before the store closes
  StopAlerts();
  if (worker_) worker_->Stop(std::chrono::seconds(live_.Current()->worker.shutdown_grace_seconds));
  if (admin_) admin_->Stop();
  server_.reset();
  worker_.reset();
  admin_.reset();
  if (store_) store_->Close();
}

void App::ReloadCertificates() {
  if (!server_ || !admin_) return;
  bool any = false;
  if (!config_->server.plain_http) {
    ReloadPair("public", *server_);
    any = true;
  }
  if (!config_->admin.tls_cert.empty()) {
    ReloadPair("admin", *admin_);
    any = true;
  }
  if (!any) log::Info("tls_reload_skipped", {{"detail", "SIGHUP: no listener serves TLS, nothing to reload"}});
}

namespace {

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : "; ") + line;
  return out;
}

// A refusal of the key guard (or the database behind it) as problems: one
// per line of its message, which explains one endpoint each.
std::vector<config::Problem> ProblemsOf(const Status& st) {
  std::vector<config::Problem> out;
  std::string_view text = st.message();
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty()) out.push_back({"", 0, std::string(line)});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  if (out.empty()) out.push_back({"", 0, "the key settings could not be checked"});
  return out;
}

// A refused reload keeps the old certificate too: say so as SIGHUP always
// has (tls_reload_refused), for whoever watches for that line.
void LogRefusedCertificates(const std::vector<config::Problem>& errors, const std::string& path) {
  for (const char* listener : {"server", "admin"}) {
    for (const config::Problem& p : errors) {
      if (p.key.rfind(std::string(listener) + ".tls_", 0) != 0) continue;
      log::Error("tls_reload_refused", {{"listener", std::string(listener) == "server" ? "public" : "admin"},
                                        {"detail", config::Describe(p, path) + "; still serving the previous certificate"}});
      break;
    }
  }
}

// Whether the alert engine and sender must start again on `next`: they copy
// the config they start with (the endpoints' thresholds, the channels).
bool AlertsChanged(const config::Config& current, const config::Config& next) {
  if (!(current.alert == next.alert)) return true;
  if (current.endpoints.size() != next.endpoints.size()) return true;
  for (size_t i = 0; i < current.endpoints.size(); ++i) {
    if (current.endpoints[i].name != next.endpoints[i].name ||
        !(current.endpoints[i].alert == next.endpoints[i].alert)) {
      return true;
    }
  }
  return false;
}

bool RetentionChanged(const config::Config& current, const config::Config& next) {
  if (current.endpoints.size() != next.endpoints.size()) return true;
  for (size_t i = 0; i < current.endpoints.size(); ++i) {
    if (current.endpoints[i].name != next.endpoints[i].name ||
        !(current.endpoints[i].retention == next.endpoints[i].retention)) {
      return true;
    }
  }
  return false;
}

}  // namespace

config::ReloadAnswer App::Refuse(const config::ReloadAsk& ask, std::vector<config::Problem> errors,
                                 config::ReloadAnswer answer) const {
  answer.applied = false;
  answer.errors = std::move(errors);
  answer.generation = live_.generation();
  log::Error("config_reload_refused",
             {{"actor", ask.actor}, {"problems", std::to_string(answer.errors.size())},
              {"detail", config::Describe(answer.errors.front(), config_path_) + "; still serving the previous config"}});
  LogRefusedCertificates(answer.errors, config_path_);
  return answer;
}

config::ReloadAnswer App::Reload(const config::ReloadAsk& ask) {
  std::lock_guard<std::mutex> lock(reload_mu_);
  config::ReloadAnswer answer;
  answer.config_path = config_path_;
  // Exactly check-config's checks, TLS pairs included; *_env keys from the
  // environment as it was at start (the start scrubbed it).
  CheckedConfig checked = LoadAndCheck(config_path_, /*tls_pairs=*/true, &env_);
  answer.warnings = checked.loaded.warnings;
  if (!worker_ || closing_) checked.errors.push_back({"", 0, "the server is starting or stopping"});
  if (!checked.errors.empty()) return Refuse(ask, std::move(checked.errors), std::move(answer));
  auto next = std::make_shared<const config::Config>(std::move(checked.loaded.config));
  // Records the new key settings (and audits a change) only when it will be applied.
  if (Status st = GuardKeySpecs(*store_, *next, ask.accept_key_change, "reload:" + ask.actor, clock_->NowMs());
      !st.ok()) {
    return Refuse(ask, ProblemsOf(st), std::move(answer));
  }
  // What changed since the config in force; what waits for a restart since
  // the one loaded at start (a listen address changed by an earlier reload is
  // still not the one bound).
  config::ConfigChanges changes = config::CompareForReload(*live_.Current(), *next);
  changes.needs_restart = config::CompareForReload(*config_, *next).needs_restart;
  Apply(next, changes);
  answer.applied = true;
  answer.changed = changes.changed;
  answer.needs_restart = changes.needs_restart;
  answer.generation = live_.generation();
  log::Info("config_reloaded", {{"actor", ask.actor},
                                {"generation", std::to_string(answer.generation)},
                                {"changed", Joined(changes.changed)},
                                {"needs_restart", Joined(changes.needs_restart)}});
  for (const config::Problem& w : answer.warnings) {
    log::Warn("config_warning", {{"detail", config::Describe(w, config_path_)}});
  }
  return answer;
}

// Requests take the new config from their next snapshot; the worker swaps it
// between attempts; the alerts and the purge, which copy what they run on,
// start again on it when their part changed. Certificates are read again
// whatever changed, as SIGHUP always did.
void App::Apply(std::shared_ptr<const config::Config> next, const config::ConfigChanges& changes) {
  std::shared_ptr<const config::Config> before = live_.Current();
  live_.Replace(next);
  worker_->Reconfigure(next, worker::BuildActions(*next, *clock_));
  if (AlertsChanged(*before, *next)) {
    StopAlerts();
    StartAlerts(next);
  }
  if (RetentionChanged(*before, *next)) StartPurge(next);
  for (const config::EndpointConfig& e : next->endpoints) {
    if (e.insecure) log::Warn("insecure_endpoint", {{"endpoint", e.name}, {"detail", "deliveries are not authenticated"}});
  }
  (void)changes;
  ReloadCertificates();
}

void App::LogCertificates() const {
  if (auto pair = server_ ? server_->Certificate() : nullptr) {
    log::Info("tls_loaded", {{"listener", "public"}, {"sha256", pair->sha256}, {"not_after", pair->not_after}});
  }
  if (auto pair = admin_ ? admin_->Certificate() : nullptr) {
    log::Info("tls_loaded", {{"listener", "admin"}, {"sha256", pair->sha256}, {"not_after", pair->not_after}});
  }
}

}  // namespace hookinbox::cli
