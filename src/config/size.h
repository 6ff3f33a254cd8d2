// config/size.h — sizes as the config file writes them: "500MB", "1GB",
// "10GB" (alert.disk_free, alert.database_size).
//
// One whole number and one unit (B, KB, MB, GB or TB, upper case), nothing
// else. Units are binary, as df -h and the admin UI count: 1KB = 1024 bytes,
// 1GB = 1024³ bytes. A size must be positive and at most kMaxSizeBytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hookinbox::config {

// 1024 TB: beyond any disk, far below int64 overflow.
inline constexpr int64_t kMaxSizeBytes = int64_t{1} << 50;

// `text` in bytes, or nullopt with `*why` saying what is wrong.
std::optional<int64_t> ParseSizeBytes(std::string_view text, std::string* why);

// `bytes` in the largest unit that divides it exactly ("1GB", "1536MB"):
// ParseSizeBytes(FormatSizeBytes(x)) == x for every valid x.
std::string FormatSizeBytes(int64_t bytes);

}  // namespace hookinbox::config
