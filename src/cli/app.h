// cli/app.h — the long-lived objects of `serve`, in construction order.
//
// The only place that sees every module: it opens the store, binds the
// admin listener (the handler API, whose address every action receives),
// starts the worker loop on the store, builds the public server (which wakes
// the worker after each accepted event and reports it in /readyz), starts
// the alert engine (whenever a condition is on, with or without a channel:
// it keeps the incidents the Attention view shows) and, when
// [[alert.channel]] lists any, the alert sender; and tears them
// down in reverse (stop accepting, let in-flight requests finish, stop the
// alert threads — a send in progress ends within its channel's timeout —,
// stop the worker within worker.shutdown_grace_seconds, stop the admin
// listener — running actions call it until the worker stopped — then close
// the database).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "admin/admin_server.h"
#include "alert/dispatcher.h"
#include "alert/engine.h"
#include "cli/load_config.h"
#include "cli/purge.h"
#include "cli/rotation_watch.h"
#include "common/clock.h"
#include "store/database_clock.h"
#include "config/config.h"
#include "config/live.h"
#include "config/reload.h"
#include "config/rotation.h"
#include "http/server.h"
#include "worker/worker_loop.h"
#include "store/sql_store.h"

namespace hookinbox::cli {

class App {
 public:
  // `config_path`: the file a reload reads again; `env`: the environment as
  // it was at start (cli/load_config.h StartEnvironment); `accept_key_change`:
  // serve --accept-key-change, the endpoints whose key settings may change at
  // this start although they hold stored events (cli/key_guard.h).
  App(config::Config config, std::string config_path, StartEnvironment env,
      std::vector<std::string> accept_key_change = {})
      : live_(std::move(config)), config_(live_.Current()), config_path_(std::move(config_path)),
        env_(std::move(env)), accept_key_change_(std::move(accept_key_change)) {}
  ~App();

  // Opens the database, checks the endpoints' key settings against those
  // their stored events were keyed by (refused with Conflict, explained, when
  // one changed unconfirmed) and binds the listeners. Errors name what failed.
  Status Start();
  // Serves until Stop() is called from another thread.
  Status Run();
  // Stops accepting; Run() returns once in-flight requests are answered.
  // False when the listener was not running yet (call again).
  bool Stop();
  // Stops the worker (grace period, then its leases are released) and
  // closes the database, after Run() returned.
  void Close();
  // SIGHUP: reads each TLS listener's certificate and key again (the paths
  // loaded at start) and logs tls_reloaded, or tls_reload_refused (error)
  // when the new files fail validation and the old pair stays. Never stops
  // the process. Call between Start() and Close(), from one thread.
  void ReloadCertificates();
  // SIGHUP, POST /admin/api/reload (and so `hookinbox reload`): reads the
  // config file and every secret it names again and checks them as
  // check-config does (TLS pairs included). Anything wrong: nothing changes,
  // the answer and the log (config_reload_refused) name each problem. Else
  // the new config is put in force at once — requests and attempts in
  // progress finish on the old one — the worker, the alerts and the purge
  // take it up, the certificates are read again, and the answer lists what
  // changed and which keys wait for a restart (config/reload.h). One reload
  // at a time; any thread, between Start() and Close().
  config::ReloadAnswer Reload(const config::ReloadAsk& ask);
  // POST /admin/api/endpoints/{name}/secret/rotate|retire: one step of a
  // secret rotation (cli/secret_rotation.h) on the config in force — the
  // files changed and checked, put in force by a reload naming ask.actor
  // (undone when it is refused), then audited. Any thread, between Start()
  // and Close(); steps and reloads take turns.
  config::SecretRotateAnswer SecretStep(const config::SecretRotateAsk& ask);
  // Logs the served certificate of each TLS listener (tls_loaded); after Start().
  void LogCertificates() const;

  // The config loaded at start (listen addresses, storage: what a reload leaves).
  const config::Config& config() const { return *config_; }
  std::string BaseUrl() const { return server_ ? server_->BaseUrl() : ""; }
  std::string AdminUrl() const { return admin_ ? admin_->BaseUrl() : ""; }

 private:
  config::LiveConfig live_;  // the config in force; a reload replaces it
  const std::shared_ptr<const config::Config> config_;  // the config loaded at start
  const std::string config_path_;
  const StartEnvironment env_;
  const std::vector<std::string> accept_key_change_;  // at start only
  std::mutex reload_mu_;  // one reload at a time; held while the components take the new config
  bool closing_ = false;  // guarded by reload_mu_: Close() began, reloads are refused
  SystemClock system_clock_;
  // On PostgreSQL the replicas' common clock (store/database_clock.h), else null.
  std::unique_ptr<store::DatabaseClock> database_clock_;
  const Clock* clock_ = &system_clock_;  // what every component stamps and compares times with
  std::unique_ptr<store::SqlStore> store_;
  std::unique_ptr<admin::AdminServer> admin_;
  std::unique_ptr<worker::WorkerLoop> worker_;
  std::unique_ptr<http::PublicServer> server_;
  std::unique_ptr<PurgeLoop> purge_;  // only when an endpoint sets [endpoint.retention]
  std::shared_ptr<const config::Config> purge_config_;  // what purge_ runs on (it holds a reference)
  std::unique_ptr<alert::Dispatcher> alert_sender_;  // only when [[alert.channel]] lists any
  std::unique_ptr<alert::Engine> alert_engine_;
  std::unique_ptr<RotationWatch> rotation_watch_;  // audits the end of each rotation's window

  // The alert engine and sender on `config` (the one in force).
  void StartAlerts(std::shared_ptr<const config::Config> config);
  void StopAlerts();
  // The purge loop, when `config` has any retention; replaces a running one.
  void StartPurge(std::shared_ptr<const config::Config> config);
  // accept_key_change_ less the names of no configured endpoint (each logged).
  std::vector<std::string> AcceptedAtStart() const;
  // A refused reload: logs config_reload_refused and answers `errors`.
  // The certificates are read again unless a pair is what was wrong.
  config::ReloadAnswer Refuse(const config::ReloadAsk& ask, std::vector<config::Problem> errors,
                              config::ReloadAnswer answer);
  // Reload with reload_mu_ held by the caller (Reload, SecretStep).
  config::ReloadAnswer ReloadLocked(const config::ReloadAsk& ask);
  // Puts `next` in force (Reload, after every check passed; app_reload.cpp).
  void Apply(std::shared_ptr<const config::Config> next);
};

}  // namespace hookinbox::cli
