// The operator routes beyond single events: the conflicts queue, closing an
// effect marked unknown, and reconciliation against a provider's ids. See
// admin_api.h.
#include <nlohmann/json.hpp>

#include "admin/admin_api.h"
#include "admin/api_json.h"
#include "admin/query.h"
#include "common/metrics.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;

// Far above a provider's export for one reconciliation; bounds the work of one request.
constexpr size_t kMaxReconcileIds = 100000;

json EntriesJson(const std::vector<store::ReconcileEntry>& entries) {
  json out = json::array();
  for (const auto& e : entries) {
    out.push_back({{"event_id", e.event_id}, {"id", e.id ? json(e.id) : json(nullptr)},
                   {"status", e.status.empty() ? json(nullptr) : json(e.status)}});
  }
  return out;
}

// webhook_reconcile_gaps: what the endpoint's last reconciliation found,
// until the next one (a scheduled job posting the provider's export keeps
// it fresh; an alert on it fires while a gap stays).
void RecordGaps(const std::string& endpoint, const store::ReconcileReport& report) {
  auto& registry = metrics::Registry::Default();
  registry.Set(metrics::kReconcileGaps, {endpoint, "never_received"}, static_cast<double>(report.never_received.size()));
  registry.Set(metrics::kReconcileGaps, {endpoint, "not_completed"}, static_cast<double>(report.not_completed.size()));
  registry.Set(metrics::kReconcileGaps, {endpoint, "unknown"}, static_cast<double>(report.unknown.size()));
}

struct ReconcileRequest {
  std::string endpoint, tenant;
  std::vector<std::string> ids;
};

// GET: ?endpoint=&tenant=&ids=a,b,c — for a handful of ids typed by hand.
Result<ReconcileRequest> FromQuery(const httplib::Request& req) {
  for (const auto& [name, value] : req.params) {
    if (name != "endpoint" && name != "tenant" && name != "ids") return InvalidArgument("unknown parameter " + name);
  }
  ReconcileRequest r{req.get_param_value("endpoint"), req.get_param_value("tenant"), {}};
  std::string ids = req.get_param_value("ids");
  for (size_t pos = 0; pos <= ids.size() && !ids.empty();) {
    size_t comma = ids.find(',', pos);
    std::string id = ids.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!id.empty()) r.ids.push_back(std::move(id));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return r;
}

// POST: {"endpoint": "…", "tenant": "…", "ids": ["…", …]}.
Result<ReconcileRequest> FromBody(const std::string& body) {
  auto j = ParseJsonObject(body, false);
  if (!j.ok()) return j.status();
  ReconcileRequest r;
  auto endpoint = StringMember(*j, "endpoint", true);
  if (!endpoint.ok()) return endpoint.status();
  auto tenant = StringMember(*j, "tenant", false);
  if (!tenant.ok()) return tenant.status();
  r.endpoint = *endpoint;
  r.tenant = *tenant;
  auto ids = j->find("ids");
  if (ids == j->end() || !ids->is_array()) return InvalidArgument("ids must be an array of event ids");
  for (const auto& id : *ids) {
    if (!id.is_string() || id.get_ref<const std::string&>().empty()) {
      return InvalidArgument("ids must hold non-empty strings");
    }
    r.ids.push_back(id.get<std::string>());
  }
  return r;
}

// The endpoint must be configured; its tenant defaults to the endpoint's own.
Status CheckReconcile(const config::Config& config, ReconcileRequest& r) {
  if (r.endpoint.empty()) return InvalidArgument("endpoint is missing");
  const config::EndpointConfig* e = config.FindEndpoint(r.endpoint);
  if (e == nullptr) return InvalidArgument("endpoint: no endpoint named '" + r.endpoint + "' is configured");
  if (r.tenant.empty()) {
    if (!e->tenants.empty()) return InvalidArgument("tenant is missing: this endpoint has per-tenant secrets");
    r.tenant = e->tenant;
  }
  if (r.ids.empty()) return InvalidArgument("ids is empty: give the event ids the provider sent");
  if (r.ids.size() > kMaxReconcileIds) return InvalidArgument("ids: at most " + std::to_string(kMaxReconcileIds));
  return Status::Ok();
}

}  // namespace

void AdminApi::ListConflicts(const httplib::Request& req, httplib::Response& res) const {
  auto filter = ParseConflictQuery(req.params);
  if (!filter.ok()) return http::ReplyError(res, filter.status());
  auto page = store_.ListConflicts(*filter);
  if (!page.ok()) return http::ReplyError(res, page.status());
  json rows = json::array();
  for (const auto& c : page->conflicts) rows.push_back(ConflictJson(c));
  json next = nullptr;
  if (page->more) next = EncodeConflictCursor(page->conflicts.back().delivery_id, page->conflicts.back().position);
  http::ReplyJson(res, 200, Dump({{"conflicts", std::move(rows)}, {"next_cursor", std::move(next)}}));
}

void AdminApi::ResolveEffect(const httplib::Request& req, httplib::Response& res) const {
  auto body = ParseJsonObject(req.body, false);
  if (!body.ok()) return http::ReplyError(res, body.status());
  auto tenant = StringMember(*body, "tenant", true);
  auto key = StringMember(*body, "key", true);
  auto as = StringMember(*body, "as", true);
  auto ref = StringMember(*body, "external_ref", false);
  auto note = StringMember(*body, "note", false);
  for (const Status* st : {&tenant.status(), &key.status(), &as.status(), &ref.status(), &note.status()}) {
    if (!st->ok()) return http::ReplyError(res, *st);
  }
  Status st = store_.ResolveEffect(*tenant, *key, *as, *ref, *note, AdminActor(req), clock_.NowMs());
  if (!st.ok()) return http::ReplyError(res, st);
  json answer = {{"tenant", *tenant}, {"key", *key}, {"status", *as}};
  if (!ref->empty()) answer["external_ref"] = *ref;
  http::ReplyJson(res, 200, Dump(answer));
}

void AdminApi::Reconcile(const config::Config& config, const httplib::Request& req, httplib::Response& res) const {
  auto request = req.method == "POST" ? FromBody(req.body) : FromQuery(req);
  if (!request.ok()) return http::ReplyError(res, request.status());
  if (Status st = CheckReconcile(config, *request); !st.ok()) return http::ReplyError(res, st);
  auto report = store_.Reconcile(request->endpoint, request->tenant, request->ids);
  if (!report.ok()) return http::ReplyError(res, report.status());
  RecordGaps(request->endpoint, *report);
  json out = {{"endpoint", request->endpoint},
              {"tenant", request->tenant},
              {"checked", request->ids.size()},
              {"completed", report->completed},
              {"never_received", EntriesJson(report->never_received)},
              {"not_completed", EntriesJson(report->not_completed)},
              {"unknown", EntriesJson(report->unknown)}};
  http::ReplyJson(res, 200, Dump(out));
}

}  // namespace hookinbox::admin
