#include "config/duration.h"

#include <array>
#include <utility>

namespace hookinbox::config {
namespace {

struct Unit {
  std::string_view name;
  int64_t ms;
};

// Largest first: FormatDurationMs picks the first that divides exactly.
constexpr std::array<Unit, 5> kUnits = {{{"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1}}};

const Unit* FindUnit(std::string_view name) {
  for (const Unit& u : kUnits) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

}  // namespace

std::optional<int64_t> ParseDurationMs(std::string_view text, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<int64_t> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  if (text.empty()) return fail("is empty");
  if (text.front() == '-') return fail("must be positive");
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return fail("must start with a whole number");
  const std::string_view unit_name = text.substr(digits);
  if (unit_name.empty()) return fail("has no unit (ms, s, m, h or d)");
  const Unit* unit = FindUnit(unit_name);
  if (unit == nullptr) return fail("has an unknown unit \"" + std::string(unit_name) + "\" (ms, s, m, h or d)");
  // Accumulate while checking against the ceiling, so no step can overflow.
  const int64_t max_count = kMaxDurationMs / unit->ms;
  int64_t count = 0;
  for (size_t i = 0; i < digits; ++i) {
    count = count * 10 + (text[i] - '0');
    if (count > max_count) return fail("is too long (at most " + FormatDurationMs(kMaxDurationMs) + ")");
  }
  if (count == 0) return fail("must be positive");
  return count * unit->ms;
}

std::string FormatDurationMs(int64_t ms) {
  for (const Unit& u : kUnits) {
    if (ms != 0 && ms % u.ms == 0) return std::to_string(ms / u.ms) + std::string(u.name);
  }
  return std::to_string(ms) + "ms";
}

}  // namespace hookinbox::config
