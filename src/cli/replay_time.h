// cli/replay_time.h — the times `events replay --since/--until` (and
// `secrets rotate --keep-old-until`) accept.
//
// An absolute time as the admin API takes it (admin::ParseTime): RFC 3339 /
// ISO-8601 ("2026-12-01T10:00:00Z", "2026-12-01T11:00:00+01:00", a date
// "2026-12-01" = its midnight UTC) or ms since the epoch; or a time relative
// to now, "how long ago": a whole number with one unit, s, m, h or d ("90s",
// "30m", "2h", "3d"), the units of config durations. Pure: no I/O.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace hookinbox::cli {

// Ms since the epoch; InvalidArgument (a usage error) naming what is accepted.
Result<int64_t> ParseReplayTime(std::string_view text, int64_t now_ms);

// The same absolute forms, or a time ahead of now: "48h" = now + 48 hours
// (`secrets rotate --keep-old-until`).
Result<int64_t> ParseFutureTime(std::string_view text, int64_t now_ms);

}  // namespace hookinbox::cli
