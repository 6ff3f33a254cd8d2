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
  // Before anything serves (a changed key would turn redeliveries into new
  // events), and only once both ports are ours: a start that fails later
  // must not have recorded key settings nothing served with.
  if (KeyGuardOutcome guard = GuardKeySpecs(*store_, *config_, AcceptedAtStart(), "serve", clock_->NowMs());
      !guard.ok()) {
    return guard.status();
  }
  // Only a process that got both ports serves and runs actions (a second
  // instance on a taken port must not start working the queue before it fails).
  // A reload asked as soon as the admin port answers waits until the start is
  // done: it would start and stop the same alerts and purge.
  std::lock_guard<std::mutex> lock(reload_mu_);
  admin_->SetReloadHook([this](const config::ReloadAsk& ask) { return Reload(ask); });
  admin_->SetSecretHook([this](const config::SecretRotateAsk& ask) { return SecretStep(ask); });
  admin_->Start();
  worker_->Start();
  StartPurge(config_);
  StartAlerts(config_);
  rotation_watch_ = std::make_unique<RotationWatch>(*store_, *clock_);
  rotation_watch_->Watch(*config_);
  return Status::Ok();
}

// serve --accept-key-change names only endpoints of the config: one left in a
// unit file after its endpoint was removed must not keep the service down.
std::vector<std::string> App::AcceptedAtStart() const {
  std::vector<std::string> out;
  for (const std::string& name : accept_key_change_) {
    if (config_->FindEndpoint(name) != nullptr) {
      out.push_back(name);
    } else {
      log::Warn("accept_key_change_ignored", {{"endpoint", name}, {"detail", "no endpoint of that name in the config"}});
    }
  }
  return out;
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
  rotation_watch_.reset();
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
  if (!any) log::Info("tls_reload_skipped", {{"detail", "no listener serves TLS, no certificate to reload"}});
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
