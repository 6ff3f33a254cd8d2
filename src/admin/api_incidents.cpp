// The incident routes of the admin API: the open incidents (and with ?all=1
// those resolved in the last 7 days), one incident with every notification
// about it, acknowledge and mute (store/incidents.h). See admin_api.h.
//
// Acknowledging an acknowledged incident is not an error: 200 with
// "changed": false, writing nothing, so a second click finds what it asked
// for. Acknowledged and muted incidents get no reminders; muted ones no
// resolved message either (recorded as 'suppressed'). The actor is
// AdminActor, as for pause and replay.
#include <nlohmann/json.hpp>

#include "admin/admin_api.h"
#include "admin/api_json.h"
#include "admin/incident_json.h"
#include "common/log.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

using nlohmann::ordered_json;

std::string DumpOrdered(const ordered_json& j) {
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

// ?all=0|1, nothing else: a typo must not silently change the list.
Result<bool> ParseAll(const httplib::Params& params) {
  bool all = false;
  for (const auto& [name, value] : params) {
    if (name != "all") return InvalidArgument("unknown parameter " + name.substr(0, 64) + "; this route takes all=1");
    if (value != "0" && value != "1") return InvalidArgument("all must be 0 or 1");
    all = value == "1";
  }
  return all;
}

void ReplyIncident(httplib::Response& res, const store::Incident& i, std::optional<bool> changed) {
  ordered_json out = {{"incident", IncidentJson(i)}};
  if (changed) out["changed"] = *changed;
  res.set_header("Cache-Control", "no-store");
  http::ReplyJson(res, 200, DumpOrdered(out));
}

}  // namespace

void AdminApi::ListIncidents(const httplib::Request& req, httplib::Response& res) const {
  auto all = ParseAll(req.params);
  if (!all.ok()) return http::ReplyError(res, all.status());
  store::IncidentQuery q;
  q.open_only = !*all;
  q.resolved_since_ms = clock_.NowMs() - kResolvedShownMs;
  auto incidents = store_.ListIncidents(q);
  if (!incidents.ok()) return http::ReplyError(res, incidents.status());
  ordered_json list = ordered_json::array();
  for (const auto& i : *incidents) list.push_back(IncidentJson(i));
  res.set_header("Cache-Control", "no-store");
  http::ReplyJson(res, 200, DumpOrdered({{"incidents", list}}));
}

void AdminApi::ShowIncident(const AdminRoute& route, httplib::Response& res) const {
  const int64_t id = std::stoll(route.param);  // digits only (routes.cpp)
  auto incident = store_.GetIncident(id);
  if (!incident.ok()) return http::ReplyError(res, incident.status());
  if (!incident->has_value()) return http::ReplyError(res, NotFound("no incident " + route.param));
  auto notifications = store_.NotificationsOf(id);
  if (!notifications.ok()) return http::ReplyError(res, notifications.status());
  ordered_json out = IncidentJson(**incident);
  out["notifications"] = ordered_json::array();
  for (const auto& n : *notifications) out["notifications"].push_back(NotificationJson(n));
  res.set_header("Cache-Control", "no-store");
  http::ReplyJson(res, 200, DumpOrdered(out));
}

void AdminApi::AckIncident(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const {
  auto body = ParseJsonObject(req.body, true);
  if (!body.ok()) return http::ReplyError(res, body.status());
  if (!body->empty()) return http::ReplyError(res, InvalidArgument("acknowledge takes no members; send {}"));
  const int64_t id = std::stoll(route.param);
  const std::string actor = AdminActor(req);
  auto changed = store_.AcknowledgeIncident(id, actor, clock_.NowMs());
  if (!changed.ok()) return http::ReplyError(res, changed.status());
  if (*changed) log::Info("incident_acknowledged", {{"incident", route.param}, {"actor", actor}});
  auto incident = store_.GetIncident(id);
  if (!incident.ok()) return http::ReplyError(res, incident.status());
  if (!incident->has_value()) return http::ReplyError(res, NotFound("no incident " + route.param));
  ReplyIncident(res, **incident, *changed);
}

void AdminApi::MuteIncident(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const {
  const int64_t now_ms = clock_.NowMs();
  auto until = ParseMuteBody(req.body, now_ms);
  if (!until.ok()) return http::ReplyError(res, until.status());
  const int64_t id = std::stoll(route.param);
  const std::string actor = AdminActor(req);
  Status st = store_.MuteIncident(id, *until, actor, now_ms);
  if (!st.ok()) return http::ReplyError(res, st);
  log::Info(*until ? "incident_muted" : "incident_unmuted", {{"incident", route.param}, {"actor", actor}});
  auto incident = store_.GetIncident(id);
  if (!incident.ok()) return http::ReplyError(res, incident.status());
  if (!incident->has_value()) return http::ReplyError(res, NotFound("no incident " + route.param));
  ReplyIncident(res, **incident, std::nullopt);
}

}  // namespace hookinbox::admin
