#include "common/headers.h"

#include <cctype>

namespace hookinbox {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

void MapHeaders::Set(std::string name, std::string value) {
  for (auto& [n, v] : items_) {
    if (EqualsIgnoreCase(n, name)) {
      v = std::move(value);
      return;
    }
  }
  items_.emplace_back(std::move(name), std::move(value));
}

std::optional<std::string_view> MapHeaders::Get(std::string_view name) const {
  for (const auto& [n, v] : items_) {
    if (EqualsIgnoreCase(n, name)) return std::string_view(v);
  }
  return std::nullopt;
}

}  // namespace hookinbox
