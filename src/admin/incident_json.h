// admin/incident_json.h — the admin API's shapes for incidents
// (store/incidents.h) and the body of POST /admin/api/incidents/{id}/mute.
//
// Times are ISO-8601 UTC strings like the rest of the API, null when unset;
// an incident of the whole installation has "endpoint": null. A notification
// is described (channel, kind, status, attempts, times, the channel's last
// error), never its message. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>

#include "common/status.h"
#include "store/incidents.h"

namespace hookinbox::admin {

// How far back GET /admin/api/incidents?all=1 reaches for resolved incidents.
inline constexpr int64_t kResolvedShownMs = int64_t{7} * 24 * 3600 * 1000;
// The longest mute given in minutes (a year): longer is surely a typo.
inline constexpr int64_t kMaxMuteMinutes = 366 * 24 * 60;

nlohmann::ordered_json IncidentJson(const store::Incident& i);
nlohmann::ordered_json NotificationJson(const store::NotificationRecord& n);

// The time a mute body asks for, in ms since the epoch; 0 = unmute.
// {"until": "2026-12-02T18:00:00Z"} (a time after now_ms), {"minutes": N}
// (0 unmutes), {"until": null}, {} or no body (unmute). Anything else —
// both members, an unknown one, a time that has passed, minutes that are not
// a whole number from 0 to kMaxMuteMinutes — is InvalidArgument saying why.
Result<int64_t> ParseMuteBody(const std::string& body, int64_t now_ms);

}  // namespace hookinbox::admin
