// What the admin listener serves besides JSON operations: the stats and
// activity counts the dashboard reads, the Prometheus text, and the UI's embedded files. See
// admin_api.h.
#include "admin/activity.h"
#include "admin/admin_api.h"
#include "admin/browser_guard.h"
#include "admin/metrics.h"
#include "admin/ui_assets.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

void NoStore(httplib::Response& res) { res.set_header("Cache-Control", "no-store"); }

}  // namespace

void AdminApi::Stats(const config::Config& config, httplib::Response& res) const {
  std::vector<std::string> configured;
  for (const auto& e : config.endpoints) configured.push_back(e.name);
  auto body = RenderStatsJson(store_, clock_.NowMs(), config.EndpointsWithAction(), configured);
  if (!body.ok()) return http::ReplyError(res, body.status());
  NoStore(res);
  http::ReplyJson(res, 200, *body);
}

// One endpoint (?endpoint=, 404 when the config has none of that name) or
// every configured endpoint, in config order.
void AdminApi::Activity(const config::Config& config, const httplib::Request& req, httplib::Response& res) const {
  auto range = ParseActivityRange(req.get_param_value("range"));
  if (!range.ok()) return http::ReplyError(res, range.status());
  std::vector<std::string> endpoints;
  if (req.has_param("endpoint")) {
    const std::string name = req.get_param_value("endpoint");
    if (config.FindEndpoint(name) == nullptr) {
      return http::ReplyError(res, NotFound("no endpoint named " + name + " in the config"));
    }
    endpoints.push_back(name);
  } else {
    for (const auto& e : config.endpoints) endpoints.push_back(e.name);
  }
  auto activity = store_.ReadActivity(ActivityWindow(*range, clock_.NowMs(), std::move(endpoints)));
  if (!activity.ok()) return http::ReplyError(res, activity.status());
  NoStore(res);
  http::ReplyJson(res, 200, RenderActivityJson(*range, *activity));
}

void AdminApi::Metrics(const config::Config& config, httplib::Response& res) const {
  auto body = RenderMetricsText(store_, store_, clock_.NowMs(), config.EndpointsWithAction());
  if (!body.ok()) return http::ReplyError(res, body.status());
  // The database this process has open: the start config's, whatever a reload says.
  const config::StorageConfig& storage = start_->storage;
  AppendStorageGauges(*body, store_, storage.backend == "sqlite" ? storage.path : "");
  NoStore(res);
  res.status = 200;
  res.set_content(*body, "text/plain; version=0.0.4; charset=utf-8");
}

void AdminApi::Ui(const AdminRoute& route, httplib::Response& res) const {
  // "/admin" has no trailing slash: relative asset links would resolve
  // against "/", so send the browser to "/admin/".
  if (route.action == "redirect") {
    res.status = 308;
    res.set_header("Location", "/admin/");
    return;
  }
  const UiAsset* asset = FindUiAsset(route.param);
  if (asset == nullptr) return http::ReplyError(res, NotFound("no such file"));
  NoStore(res);
  // nosniff, DENY and no-referrer come with every answer (browser_guard.h).
  UsePagePolicy(res);
  res.status = 200;
  res.set_content(asset->body.data(), asset->body.size(), std::string(asset->content_type).c_str());
}

}  // namespace hookinbox::admin
