// AdminApi's dispatch by route (routes.cpp decides the route, AdminServer
// the authentication); the handlers live in api_*.cpp.
#include "admin/admin_api.h"

#include "http/respond.h"

namespace hookinbox::admin {

void AdminApi::Handle(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const {
  // One snapshot for the whole request: a reload meanwhile changes nothing it reads.
  const std::shared_ptr<const config::Config> snapshot = live_.Current();
  const config::Config& config = *snapshot;
  switch (route.id) {
    case RouteId::kEvents: return ListEvents(req, res, std::nullopt);
    case RouteId::kDeadLetters: return ListEvents(req, res, store::EventStatus::kDeadLettered);
    case RouteId::kUnknownQueue: return ListEvents(req, res, store::EventStatus::kUnknown);
    case RouteId::kEvent: return ShowEvent(config, route, req, res);
    case RouteId::kEventReplay: return ReplayEvent(route, req, res);
    case RouteId::kEventResolve: return ResolveEvent(route, req, res);
    case RouteId::kEventsReplay: return ReplayMatching(config, req, res);
    case RouteId::kConflicts: return ListConflicts(req, res);
    case RouteId::kEffectResolve: return ResolveEffect(req, res);
    case RouteId::kReconcile: return Reconcile(config, req, res);
    case RouteId::kEndpoints: return ListEndpoints(config, res);
    case RouteId::kEndpointPause: return PauseEndpoint(config, route, req, res);
    case RouteId::kIncidents: return ListIncidents(req, res);
    case RouteId::kIncident: return ShowIncident(route, res);
    case RouteId::kIncidentAck: return AckIncident(route, req, res);
    case RouteId::kIncidentMute: return MuteIncident(route, req, res);
    case RouteId::kStats: return Stats(config, res);
    case RouteId::kActivity: return Activity(config, req, res);
    case RouteId::kMetrics: return Metrics(config, res);
    case RouteId::kExport: return Export(req, res);
    case RouteId::kUi: return Ui(route, res);
    case RouteId::kReload: return Reload(req, res);
    case RouteId::kEndpointSecret: return RotateSecret(route, req, res);
    default: return http::ReplyError(res, NotFound("no such route"));
  }
}

}  // namespace hookinbox::admin
