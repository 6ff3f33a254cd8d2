// http/routes.h — every route pattern of the public listener, in one place.
//
// cpp-httplib 0.11.4 routes by std::regex (no ":param" paths). Path segments
// are parsed by ParseHookPath, not by the regex, so a malformed path still
// reaches the receive handler and gets its audit row.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hookinbox::http {

// [\s\S] rather than "." so a path with an encoded CR or LF still matches.
inline constexpr const char* kHooksPattern = R"(/hooks(/[\s\S]*)?)";
inline constexpr const char* kHealthzPath = "/healthz";
inline constexpr const char* kReadyzPath = "/readyz";
inline constexpr std::string_view kHooksPrefix = "/hooks";

struct HookPath {
  std::string endpoint;
  std::string tenant;  // empty for /hooks/{endpoint}
};

// "/hooks/{endpoint}" or "/hooks/{endpoint}/{tenant}", each segment matching
// [A-Za-z0-9][A-Za-z0-9._-]{0,63}; anything else (empty segments, "..",
// trailing slash, more segments) is nullopt.
std::optional<HookPath> ParseHookPath(std::string_view path);

bool IsHooksPath(std::string_view path);

}  // namespace hookinbox::http
