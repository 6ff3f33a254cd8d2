#include "admin/api_json.h"

#include <cstdio>
#include <ctime>

#include "common/json_depth.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;

json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json OrNull(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }
json IdOrNull(int64_t id) { return id != 0 ? json(id) : json(nullptr); }

}  // namespace

json DeliveryJson(const store::DeliveryRow& x) {
  return {{"id", x.id},           {"received_at", IsoTime(x.received_at_ms)}, {"remote_addr", OrNull(x.remote_addr)},
          {"outcome", x.outcome}, {"http_status", x.http_status},              {"reason", OrNull(x.reason)},
          {"content_type", OrNull(x.content_type)}, {"body_bytes", x.body_bytes},
          {"user_agent", OrNull(x.user_agent)}};
}

json AttemptJson(const store::AttemptRow& a) {
  return {{"id", a.id},
          {"attempt", a.attempt},
          {"worker", a.worker},
          {"started_at", IsoTime(a.started_at_ms)},
          {"finished_at", IsoTime(a.finished_at_ms)},
          {"outcome", OrNull(a.outcome)},
          {"http_status", OrNull(a.http_status)},
          {"exit_code", OrNull(a.exit_code)},
          {"error", OrNull(a.error)}};
}

json ActionJson(const store::ActionRow& a) {
  return {{"id", a.id},           {"at", IsoTime(a.at_ms)},        {"actor", a.actor},
          {"action", a.action},   {"from_status", a.from_status},  {"to_status", a.to_status},
          {"result_ref", OrNull(a.result_ref)}, {"note", OrNull(a.note)}};
}

namespace {

json EffectJson(const store::EffectEntry& f) {
  return {{"effect_key", f.effect_key},         {"status", f.status},
          {"external_ref", OrNull(f.external_ref)}, {"error", OrNull(f.error)},
          {"attempt", f.attempt},               {"claimed_at", IsoTime(f.claimed_at_ms)},
          {"updated_at", IsoTime(f.updated_at_ms)}};
}

json StepJson(const store::StepRow& s) {
  return {{"name", s.name}, {"content_type", s.content_type}, {"bytes", s.bytes}, {"attempt", s.attempt},
          {"stored_at", IsoTime(s.stored_at_ms)}};
}

template <typename Row, typename F>
json Array(const std::vector<Row>& rows, F to_json) {
  json out = json::array();
  for (const Row& r : rows) out.push_back(to_json(r));
  return out;
}

}  // namespace

json IsoTime(int64_t ms) {
  if (ms == 0) return nullptr;
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

json EventJson(const store::EventRow& e) {
  return {{"id", e.id},
          {"provider", e.provider},
          {"endpoint", e.endpoint},
          {"tenant_id", e.tenant_id},
          {"event_id", e.event_id},
          {"event_type", OrNull(e.event_type)},
          {"payload_hash", e.payload_hash},
          {"status", e.status},
          {"attempt_count", e.attempt_count},
          {"lease_owner", OrNull(e.lease_owner)},
          {"lease_until", IsoTime(e.lease_until_ms)},
          {"next_attempt_at", IsoTime(e.next_attempt_at_ms)},
          {"received_at", IsoTime(e.received_at_ms)},
          {"completed_at", IsoTime(e.completed_at_ms)},
          {"result_ref", OrNull(e.result_ref)},
          {"last_error", OrNull(e.last_error)},
          {"skip_reason", OrNull(e.skip_reason)},
          {"skipped_for", IdOrNull(e.skipped_for)},
          {"waiting_for", IdOrNull(e.waiting_for)},
          {"business_key_hint", OrNull(e.business_key_hint)}};
}

json EventDetailJson(const store::EventDetail& d) {
  return {{"event", EventJson(d.event)},
          {"deliveries", Array(d.deliveries, DeliveryJson)},
          {"attempts", Array(d.attempts, AttemptJson)},
          {"actions", Array(d.actions, ActionJson)},
          {"effects", Array(d.effects, EffectJson)},
          {"steps", Array(d.steps, StepJson)}};
}

json ConflictJson(const store::ConflictRow& c) {
  return {{"delivery_id", c.delivery_id},
          {"position", c.position},
          {"event", c.inbox_id},
          {"endpoint", c.endpoint},
          {"tenant_id", c.tenant_id},
          {"event_id", c.event_id},
          {"event_type", OrNull(c.event_type)},
          {"remote_addr", OrNull(c.remote_addr)},
          {"received_at", IsoTime(c.received_at_ms)},
          {"original_payload_hash", c.original_hash},
          {"original_payload_id", IdOrNull(c.original_payload_id)},
          {"conflict_payload_hash", OrNull(c.conflict_hash)},
          {"conflict_payload_id", IdOrNull(c.conflict_payload_id)}};
}

Result<json> ParseJsonObject(const std::string& body, bool empty_ok) {
  if (body.empty() && empty_ok) return json::object();
  // Refused before parsing: a value nested deeper would overflow the stack of
  // the first copy, dump() or recursive walk of it.
  if (JsonNestsDeeperThan(body)) return InvalidArgument("body is nested deeper than " + std::to_string(kMaxJsonDepth));
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument("body must be a JSON object");
  return j;
}

Result<std::string> StringMember(const json& j, const char* name, bool required) {
  auto it = j.find(name);
  if (it == j.end()) {
    if (required) return InvalidArgument(std::string(name) + " is missing");
    return std::string();
  }
  if (!it->is_string()) return InvalidArgument(std::string(name) + " must be a string");
  return it->get<std::string>();
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace hookinbox::admin
