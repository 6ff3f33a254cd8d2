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
// api_incidents.cpp (incidents: list, detail, acknowledge, mute).
// Thread-safety: handlers run on the listener's pool; the store is thread-safe.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "admin/routes.h"
#include "common/clock.h"
#include "config/config.h"
#include "store/admin_store.h"

namespace hookinbox::admin {

class AdminApi {
 public:
  AdminApi(const config::Config& config, store::AdminStore& store, const Clock& clock)
      : config_(config), store_(store), clock_(clock) {}

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
  void ShowEvent(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  void ReplayEvent(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  void ResolveEvent(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  // api_replay.cpp
  void ReplayMatching(const httplib::Request& req, httplib::Response& res) const;
  // api_ops.cpp
  void ListConflicts(const httplib::Request& req, httplib::Response& res) const;
  void ResolveEffect(const httplib::Request& req, httplib::Response& res) const;
  void Reconcile(const httplib::Request& req, httplib::Response& res) const;
  // api_pages.cpp
  void Stats(httplib::Response& res) const;
  void Activity(const httplib::Request& req, httplib::Response& res) const;
  void Metrics(httplib::Response& res) const;
  void Ui(const AdminRoute& route, httplib::Response& res) const;
  // api_endpoints.cpp
  void ListEndpoints(httplib::Response& res) const;
  void PauseEndpoint(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;  // and resume
  // api_incidents.cpp
  void ListIncidents(const httplib::Request& req, httplib::Response& res) const;
  void ShowIncident(const AdminRoute& route, httplib::Response& res) const;
  void AckIncident(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  void MuteIncident(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const;
  // api_export.cpp
  void Export(const httplib::Request& req, httplib::Response& res) const;

  const config::Config& config_;
  store::AdminStore& store_;
  const Clock& clock_;
  // An export is being written or downloaded (api_export.cpp): one at a time.
  mutable std::atomic<bool> exporting_{false};
};

// "admin:<remote address>": who did it, in audit rows.
std::string AdminActor(const httplib::Request& req);

}  // namespace hookinbox::admin
