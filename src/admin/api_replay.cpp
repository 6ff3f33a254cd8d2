// POST /admin/api/events/replay: replays every event a filter matches
// (store::AdminQueries::ReplayMatching), or with "dry_run": true only counts
// them — the UI shows that count and asks before it replays. See admin_api.h.
#include <nlohmann/json.hpp>

#include "admin/admin_api.h"
#include "admin/api_json.h"
#include "admin/replay_request.h"
#include "common/log.h"
#include "http/respond.h"

namespace hookinbox::admin {

void AdminApi::ReplayMatching(const config::Config& config, const httplib::Request& req,
                              httplib::Response& res) const {
  auto body = ParseJsonObject(req.body, false);
  if (!body.ok()) return http::ReplyError(res, body.status());
  auto request = ParseReplayRequest(*body);
  if (!request.ok()) return http::ReplyError(res, request.status());
  const store::ReplayFilter& f = request->filter;
  // A mistyped endpoint would match nothing and look like "all clear".
  if (config.FindEndpoint(f.endpoint) == nullptr) {
    return http::ReplyError(res, NotFound("no endpoint named " + f.endpoint + " in the config"));
  }
  auto report = store_.ReplayMatching(f, AdminActor(req), request->note, clock_.NowMs(), request->dry_run);
  if (!report.ok()) return http::ReplyError(res, report.status());
  // Each event has its own audit row; the log says once that a bulk replay ran.
  if (!request->dry_run) {
    log::Info("bulk_replay", {{"endpoint", f.endpoint}, {"status", f.status}, {"replayed", report->replayed},
                              {"actor", AdminActor(req)}});
  }
  nlohmann::json out = {{"matched", report->matched},
                        {"replayed", report->replayed},
                        {"skipped", report->skipped_payload_purged + report->skipped_changed},
                        {"skipped_payload_purged", report->skipped_payload_purged},
                        {"skipped_changed", report->skipped_changed},
                        {"dry_run", request->dry_run}};
  http::ReplyJson(res, 200, Dump(out));
}

}  // namespace hookinbox::admin
