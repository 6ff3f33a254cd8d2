#include "http/routes.h"

#include <cctype>

namespace hookinbox::http {
namespace {

bool ValidSegment(std::string_view s) {
  if (s.empty() || s.size() > 64 || !std::isalnum(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

bool IsHooksPath(std::string_view path) {
  return path.substr(0, kHooksPrefix.size()) == kHooksPrefix &&
         (path.size() == kHooksPrefix.size() || path[kHooksPrefix.size()] == '/');
}

std::optional<HookPath> ParseHookPath(std::string_view path) {
  if (!IsHooksPath(path) || path.size() <= kHooksPrefix.size() + 1) return std::nullopt;
  std::string_view rest = path.substr(kHooksPrefix.size() + 1);
  size_t slash = rest.find('/');
  HookPath out;
  out.endpoint = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) out.tenant = std::string(rest.substr(slash + 1));
  if (!ValidSegment(out.endpoint)) return std::nullopt;
  if (slash != std::string_view::npos && !ValidSegment(out.tenant)) return std::nullopt;
  return out;
}

}  // namespace hookinbox::http
