// config/duration.h — durations as the config file writes them: "90s",
// "30m", "6h", "3d" (and "500ms", for tests that scale time down).
//
// One whole number and one unit, nothing else: no sign, no fraction, no
// spaces, no "1h30m". A value must be positive and at most kMaxDurationMs,
// so adding it to a time in ms can never overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hookinbox::config {

// Ten years: far beyond any retry horizon, far below int64 overflow.
inline constexpr int64_t kMaxDurationMs = int64_t{3650} * 24 * 3600 * 1000;

// `text` in ms, or nullopt with `*why` saying what is wrong (for a config
// error: "must be a duration such as \"3d\": …").
std::optional<int64_t> ParseDurationMs(std::string_view text, std::string* why);

// `ms` in the largest unit that divides it exactly ("3d", "90s", "1500ms"):
// ParseDurationMs(FormatDurationMs(x)) == x for every valid x.
std::string FormatDurationMs(int64_t ms);

}  // namespace hookinbox::config
