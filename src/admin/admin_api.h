// admin/admin_api.h — the admin API (/admin/api, SPEC §9 "Admin API"), the
// UI's files (/admin/) and /metrics, behind the admin listener's
// authentication (admin/auth.h; AdminServer checks it before a body is read).
//
// Owns: reading each request's parameters and body, calling the store, and
// the answers. Refusals are 4xx {"error": …} before anything is changed.
// Operator actions are audited with actor "admin:<remote address>". Never
// logs tokens or payloads. Files by concern: api_events.cpp (list, detail,
// replay, resolve, queues), api_replay.cpp (bulk replay), api_ops.cpp
// (conflicts, effect resolve, reconcile), api_pages.cpp (stats, metrics, UI),
// api_export.cpp (export.db), api_endpoints.cpp (endpoints: list, pause, resume),
// api_incidents.cpp (incidents: list, detail, acknowledge, mute),
// api_reload.cpp (reload), api_secret.cpp (an endpoint's secret: rotate, retire).
// Config: each request reads one snapshot of the config in force
// (config::LiveConfig), taken when its handler starts, so a reload never
// changes the endpoints a request is halfway through; what a running
// process cannot change (storage) is read from the config loaded at start.
// Thread-safety: handlers run on the listener's pool; the store is
// thread-safe; SetReloadHook and SetSecretHook only before the listener starts.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "admin/routes.h"
#include "common/clock.h"
#include "config/config.h"
#include "config/live.h"
#include "config/reload.h"
#include "config/rotation.h"
#include "store/admin_store.h"

namespace hookinbox::admin {

class AdminApi {
 public:
  // What POST /admin/api/reload calls (cli::App's reload).
  using ReloadHook = std::function<config::ReloadAnswer(const config::ReloadAsk&)>;

  // `live` must outlive the AdminApi; the config in force now is kept as the start config.
  AdminApi(const config::LiveConfig& live, store::AdminStore& store, const Clock& clock)
      : live_(live), start_(live.Current()), store_(store), clock_(clock) {}

  // What POST /admin/api/endpoints/{name}/secret/rotate and …/retire call
  // (cli::App's rotation: check, write the files, audit, reload).
  using SecretHook = std::function<config::SecretRotateAnswer(const config::SecretRotateAsk&)>;

  // Unset (the default): POST /admin/api/reload answers 503.
  void SetReloadHook(ReloadHook hook) { reload_hook_ = std::move(hook); }
  // Unset (the default): the secret routes answer 503.
  void SetSecretHook(SecretHook hook) { secret_hook_ = std::move(hook); }

  // export.db: how long one export may take, writing and download together;
  // past it the copy stops or the download is cut (api_export.cpp).
  static constexpr int64_t kExportDeadlineMs = 30 * 60 * 1000;
  // export.db: free space left for the live database while an export's copy
  // sits beside it; an export that would leave less is refused with 507.
  static constexpr int64_t kExportSpareBytes = int64_t{64} * 1024 * 1024;

  // Answers an authenticated request for `route` (not a /v1 route).
  void Handle(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;

 private:
  // api_events.cpp
  void ListEvents(const httplib::Request& req, httplib::Response& res,
                  std::optional<store::EventStatus> fixed_status) const;
  void ShowEvent(const config::Config& config, const AdminRoute& route, const httplib::Request& req,
                 httplib::Response& res) const;
  void ReplayEvent(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  void ResolveEvent(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  // api_replay.cpp
  void ReplayMatching(const config::Config& config, const httplib::Request& req, httplib::Response& res) const;
  // api_ops.cpp
  void ListConflicts(const httplib::Request& req, httplib::Response& res) const;
  void ResolveEffect(const httplib::Request& req, httplib::Response& res) const;
  void Reconcile(const config::Config& config, const httplib::Request& req, httplib::Response& res) const;
  // api_pages.cpp
  void Stats(const config::Config& config, httplib::Response& res) const;
  void Activity(const config::Config& config, const httplib::Request& req, httplib::Response& res) const;
  void Metrics(const config::Config& config, httplib::Response& res) const;
  void Ui(const AdminRoute& route, httplib::Response& res) const;
  // api_endpoints.cpp
  void ListEndpoints(const config::Config& config, httplib::Response& res) const;
  void PauseEndpoint(const config::Config& config, const AdminRoute& route, const httplib::Request& req,
                     httplib::Response& res) const;  // and resume
  // api_incidents.cpp
  void ListIncidents(const httplib::Request& req, httplib::Response& res) const;
  void ShowIncident(const AdminRoute& route, httplib::Response& res) const;
  void AckIncident(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  void MuteIncident(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  // api_export.cpp
  void Export(const httplib::Request& req, httplib::Response& res) const;
  // api_reload.cpp
  void Reload(const httplib::Request& req, httplib::Response& res) const;
  // api_secret.cpp
  void RotateSecret(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;

  const config::LiveConfig& live_;
  // The config loaded at start: what a running process keeps until a
  // restart (storage.*), whatever a reload put in force.
  const std::shared_ptr<const config::Config> start_;
  store::AdminStore& store_;
  const Clock& clock_;
  // An export is being written or downloaded (api_export.cpp): one at a time.
  mutable std::atomic<bool> exporting_{false};
  ReloadHook reload_hook_;  // set before the listener starts; empty = no reload
  SecretHook secret_hook_;  // set before the listener starts; empty = no rotation
};

// "admin:<remote address>": who did it, in audit rows.
std::string AdminActor(const httplib::Request& req);

}  // namespace hookinbox::admin
