#include "config/size.h"

#include <array>
#include <utility>

namespace hookinbox::config {
namespace {

struct Unit {
  std::string_view name;
  int64_t bytes;
};

// Largest first: FormatSizeBytes picks the first that divides exactly.
constexpr std::array<Unit, 5> kUnits = {
    {{"TB", int64_t{1} << 40}, {"GB", int64_t{1} << 30}, {"MB", int64_t{1} << 20}, {"KB", 1024}, {"B", 1}}};

const Unit* FindUnit(std::string_view name) {
  for (const Unit& u : kUnits) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

}  // namespace

std::optional<int64_t> ParseSizeBytes(std::string_view text, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<int64_t> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  if (text.empty()) return fail("is empty");
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return fail("must start with a whole number");
  const std::string_view unit_name = text.substr(digits);
  if (unit_name.empty()) return fail("has no unit (B, KB, MB, GB or TB)");
  const Unit* unit = FindUnit(unit_name);
  if (unit == nullptr) return fail("has an unknown unit \"" + std::string(unit_name) + "\" (B, KB, MB, GB or TB)");
  const int64_t max_count = kMaxSizeBytes / unit->bytes;
  int64_t count = 0;
  for (size_t i = 0; i < digits; ++i) {
    count = count * 10 + (text[i] - '0');
    if (count > max_count) return fail("is too large (at most " + FormatSizeBytes(kMaxSizeBytes) + ")");
  }
  if (count == 0) return fail("must be positive");
  return count * unit->bytes;
}

std::string FormatSizeBytes(int64_t bytes) {
  for (const Unit& u : kUnits) {
    if (bytes != 0 && bytes % u.bytes == 0) return std::to_string(bytes / u.bytes) + std::string(u.name);
  }
  return std::to_string(bytes) + "B";
}

}  // namespace hookinbox::config
