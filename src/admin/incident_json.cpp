#include "admin/incident_json.h"

#include "admin/api_json.h"
#include "admin/query.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json Time(int64_t ms) {
  json iso = IsoTime(ms);
  return iso.is_string() ? ordered_json(iso.get<std::string>()) : ordered_json(nullptr);
}
ordered_json Time(const std::optional<int64_t>& ms) { return ms ? Time(*ms) : ordered_json(nullptr); }
ordered_json OrNull(const std::string& s) { return s.empty() ? ordered_json(nullptr) : ordered_json(s); }

Result<int64_t> MuteMinutes(const json& minutes, int64_t now_ms) {
  if (!minutes.is_number_integer() || minutes.get<int64_t>() < 0 || minutes.get<int64_t>() > kMaxMuteMinutes) {
    return InvalidArgument("minutes must be a whole number from 0 to " + std::to_string(kMaxMuteMinutes));
  }
  const int64_t n = minutes.get<int64_t>();
  return n == 0 ? 0 : now_ms + n * 60000;
}

Result<int64_t> MuteUntil(const json& until, int64_t now_ms) {
  if (until.is_null()) return 0;
  if (!until.is_string()) return InvalidArgument("until must be a time such as \"2026-12-02T18:00:00Z\"");
  auto at = ParseTime(until.get<std::string>());
  if (!at.ok()) return InvalidArgument("until: " + at.status().message());
  if (*at <= now_ms) return InvalidArgument("until is not in the future");
  return *at;
}

}  // namespace

ordered_json IncidentJson(const store::Incident& i) {
  return {{"id", i.id},
          {"condition", i.condition},
          {"endpoint", OrNull(i.endpoint)},
          {"summary", i.summary},
          {"opened_at", Time(i.opened_at_ms)},
          {"last_seen_at", Time(i.last_seen_at_ms)},
          {"resolved_at", Time(i.resolved_at_ms)},
          {"observations", i.observations},
          {"count", i.count},
          {"acked_at", Time(i.acked_at_ms)},
          {"acked_by", OrNull(i.acked_by)},
          {"muted_until", Time(i.muted_until_ms)},
          {"last_notified_at", Time(i.last_notified_at_ms)}};
}

ordered_json NotificationJson(const store::NotificationRecord& n) {
  return {{"id", n.id},
          {"channel", n.channel},
          {"kind", n.kind},
          {"status", n.status},
          {"attempts", n.attempts},
          {"created_at", Time(n.created_at_ms)},
          {"sent_at", Time(n.sent_at_ms)},
          {"last_error", OrNull(n.last_error)}};
}

Result<int64_t> ParseMuteBody(const std::string& body, int64_t now_ms) {
  auto j = ParseJsonObject(body, true);
  if (!j.ok()) return j.status();
  for (const auto& [key, value] : j->items()) {
    if (key != "until" && key != "minutes")
      return InvalidArgument("unknown member \"" + key.substr(0, 64) + "\"; give until or minutes");
  }
  const bool until = j->contains("until"), minutes = j->contains("minutes");
  if (until && minutes) return InvalidArgument("give until or minutes, not both");
  if (minutes) return MuteMinutes((*j)["minutes"], now_ms);
  if (until) return MuteUntil((*j)["until"], now_ms);
  return 0;
}

}  // namespace hookinbox::admin
