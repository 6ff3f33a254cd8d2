// The event routes of the admin API: list (with the dead-letter and unknown
// queues as fixed-status lists), detail with the payload on request, replay
// and resolve. See admin_api.h.
#include <nlohmann/json.hpp>

#include "admin/admin_api.h"
#include "admin/api_json.h"
#include "admin/query.h"
#include "admin/redact.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;

constexpr size_t kMaxNoteBytes = 1024;

// The parameters a fixed-status queue takes: the events list's, without status.
const std::vector<std::string_view>& QueueParams() {
  static const std::vector<std::string_view> kParams = [] {
    std::vector<std::string_view> p;
    for (std::string_view name : EventQueryParams()) {
      if (name != "status") p.push_back(name);
    }
    return p;
  }();
  return kParams;
}

int64_t EventIdOf(const AdminRoute& route) { return std::stoll(route.param); }  // digits only (routes.cpp)

// ?payload=1 (or absent / 0); anything else is refused rather than guessed.
Result<bool> WantsPayload(const httplib::Request& req) {
  for (const auto& [name, value] : req.params) {
    if (name != "payload") return InvalidArgument("unknown parameter " + name);
  }
  if (req.get_param_value_count("payload") > 1) return InvalidArgument("parameter payload: given more than once");
  std::string v = req.get_param_value("payload");
  if (v.empty() || v == "0") return false;
  if (v == "1") return true;
  return InvalidArgument("parameter payload: must be 1 or 0");
}

// The payload as the endpoint allows it to be shown (admin/redact.h).
json PayloadJson(const config::Config& config, const store::EventDetail& d) {
  if (!d.has_payload) return {{"content_type", nullptr}, {"body", nullptr}, {"withheld", "no payload is stored (purged)"}};
  const config::EndpointConfig* endpoint = config.FindEndpoint(d.event.endpoint);
  // An endpoint no longer configured has no redaction list we can trust.
  if (endpoint == nullptr) {
    return {{"content_type", d.content_type}, {"body", nullptr},
            {"withheld", "the endpoint is no longer configured, so its redactions are unknown"}};
  }
  ShownPayload shown = ShowPayload(d.payload, endpoint->redact);
  json out = {{"content_type", d.content_type.empty() ? json(nullptr) : json(d.content_type)},
              {"redacted", shown.redacted}};
  out["body"] = shown.shown ? json(shown.body) : json(nullptr);
  if (!shown.shown) out["withheld"] = shown.why;
  return out;
}

Status CheckNote(const std::string& note) {
  if (note.size() > kMaxNoteBytes) return InvalidArgument("note is longer than " + std::to_string(kMaxNoteBytes) + " bytes");
  return Status::Ok();
}

}  // namespace

std::string AdminActor(const httplib::Request& req) { return "admin:" + req.remote_addr; }

void AdminApi::ListEvents(const httplib::Request& req, httplib::Response& res,
                          std::optional<store::EventStatus> fixed_status) const {
  auto filter = ParseEventQuery(req.params, fixed_status ? QueueParams() : EventQueryParams());
  if (!filter.ok()) return http::ReplyError(res, filter.status());
  if (fixed_status) filter->status = store::ToSql(*fixed_status);
  auto page = store_.ListEvents(*filter);
  if (!page.ok()) return http::ReplyError(res, page.status());
  json events = json::array();
  for (const auto& e : page->events) events.push_back(EventJson(e));
  json next = page->next_before_id ? json(EncodeEventCursor(page->next_before_id)) : json(nullptr);
  http::ReplyJson(res, 200, Dump({{"events", std::move(events)}, {"next_cursor", std::move(next)}}));
}

void AdminApi::ShowEvent(const config::Config& config, const AdminRoute& route, const httplib::Request& req,
                         httplib::Response& res) const {
  auto with_payload = WantsPayload(req);
  if (!with_payload.ok()) return http::ReplyError(res, with_payload.status());
  auto detail = store_.GetEvent(EventIdOf(route), *with_payload);
  if (!detail.ok()) return http::ReplyError(res, detail.status());
  json out = EventDetailJson(*detail);
  if (*with_payload) out["payload"] = PayloadJson(config, *detail);
  http::ReplyJson(res, 200, Dump(out));
}

void AdminApi::ReplayEvent(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const {
  auto body = ParseJsonObject(req.body, true);
  if (!body.ok()) return http::ReplyError(res, body.status());
  auto note = StringMember(*body, "note", false);
  if (!note.ok()) return http::ReplyError(res, note.status());
  if (Status st = CheckNote(*note); !st.ok()) return http::ReplyError(res, st);
  const int64_t id = EventIdOf(route);
  if (Status st = store_.Replay(id, AdminActor(req), *note, clock_.NowMs()); !st.ok()) return http::ReplyError(res, st);
  http::ReplyJson(res, 200, json{{"id", id}, {"status", std::string(store::ToSql(store::EventStatus::kReceived))}}.dump());
}

void AdminApi::ResolveEvent(const AdminRoute& route, const httplib::Request& req, httplib::Response& res) const {
  auto body = ParseJsonObject(req.body, false);
  if (!body.ok()) return http::ReplyError(res, body.status());
  auto as = StringMember(*body, "as", true);
  if (!as.ok()) return http::ReplyError(res, as.status());
  const std::optional<store::EventStatus> to = store::EventStatusFromSql(*as);
  if (to != store::EventStatus::kCompleted && to != store::EventStatus::kDeadLettered) {
    return http::ReplyError(res, InvalidArgument("as must be \"completed\" or \"dead_lettered\""));
  }
  auto result_ref = StringMember(*body, "result_ref", false);
  if (!result_ref.ok()) return http::ReplyError(res, result_ref.status());
  auto note = StringMember(*body, "note", false);
  if (!note.ok()) return http::ReplyError(res, note.status());
  if (Status st = CheckNote(*note); !st.ok()) return http::ReplyError(res, st);
  if (result_ref->size() > kMaxNoteBytes) return http::ReplyError(res, InvalidArgument("result_ref is too long"));
  const int64_t id = EventIdOf(route);
  Status st = store_.Resolve(id, *as, *result_ref, *note, AdminActor(req), clock_.NowMs());
  if (!st.ok()) return http::ReplyError(res, st);
  http::ReplyJson(res, 200, json{{"id", id}, {"status", *as}}.dump());
}

}  // namespace hookinbox::admin
