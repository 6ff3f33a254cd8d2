#include "admin/ui_assets.h"

#include <array>

// Generated at build time from src/admin/ui/ by embed_file() (src/admin/CMakeLists.txt):
// each is the file's bytes, NUL-terminated. The files are text, so the NUL marks the end.
extern const char kHookinboxUiIndexHtml[];
extern const char kHookinboxUiAppJs[];
extern const char kHookinboxUiAppCss[];

namespace hookinbox::admin {
namespace {

struct Entry {
  std::string_view name;  // the path below /admin/
  UiAsset asset;
};

// The whole UI. Lookup is by exact name, so "../", "%2e%2e", absolute paths
// and anything else not listed here find nothing: there is no filesystem behind it.
const std::array<Entry, 3>& Table() {
  static const std::array<Entry, 3> table = {{
      {"index.html", {"text/html; charset=utf-8", kHookinboxUiIndexHtml}},
      {"app.js", {"text/javascript; charset=utf-8", kHookinboxUiAppJs}},
      {"app.css", {"text/css; charset=utf-8", kHookinboxUiAppCss}},
  }};
  return table;
}

}  // namespace

const UiAsset* FindUiAsset(std::string_view path) {
  if (path.empty()) path = "index.html";
  for (const Entry& e : Table()) {
    if (e.name == path) return &e.asset;
  }
  return nullptr;
}

}  // namespace hookinbox::admin
