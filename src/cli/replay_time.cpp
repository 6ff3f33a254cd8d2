#include "cli/replay_time.h"

#include <charconv>
#include <optional>

#include "admin/query.h"

namespace hookinbox::cli {
namespace {

// "2h" → 7 200 000 (how long ago, or from now); nullopt when `text` is not a whole number and one unit.
std::optional<int64_t> SpanMs(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  int64_t unit_ms = 0;
  switch (text.back()) {
    case 's': unit_ms = 1000; break;
    case 'm': unit_ms = 60 * 1000; break;
    case 'h': unit_ms = 3600 * 1000; break;
    case 'd': unit_ms = 24 * 3600 * 1000; break;
    default: return std::nullopt;
  }
  std::string_view digits = text.substr(0, text.size() - 1);
  int64_t n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  // At most 100 years back: anything larger is a typo, and n * unit must not overflow.
  constexpr int64_t kMaxAgoMs = int64_t{36500} * 24 * 3600 * 1000;
  if (ec != std::errc() || end != digits.data() + digits.size() || n < 0 || n > kMaxAgoMs / unit_ms) {
    return std::nullopt;
  }
  return n * unit_ms;
}

}  // namespace

Result<int64_t> ParseReplayTime(std::string_view text, int64_t now_ms) {
  if (auto ago = SpanMs(text)) {
    if (*ago >= now_ms) return InvalidArgument("'" + std::string(text) + "' ago is before 1970");
    return now_ms - *ago;
  }
  auto t = admin::ParseTime(text);
  if (!t.ok() || *t <= 0) {
    return InvalidArgument("not a time: '" + std::string(text) +
                           "'; write RFC 3339 (2026-12-01T10:00:00Z), ms since the epoch, or how long ago "
                           "(90s, 30m, 2h, 3d)");
  }
  return *t;
}

Result<int64_t> ParseFutureTime(std::string_view text, int64_t now_ms) {
  if (auto ahead = SpanMs(text)) return now_ms + *ahead;
  auto t = admin::ParseTime(text);
  if (!t.ok() || *t <= 0) {
    return InvalidArgument("not a time: '" + std::string(text) +
                           "'; write RFC 3339 (2026-12-10T00:00:00Z), a date (2026-12-10), or how long from now "
                           "(90s, 30m, 48h, 7d)");
  }
  return *t;
}

}  // namespace hookinbox::cli
