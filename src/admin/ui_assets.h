// admin/ui_assets.h: the admin web UI's files (index.html, app.js, app.css), embedded into
// the binary at build time from src/admin/ui/ (see src/admin/CMakeLists.txt), so the page
// works offline, with no CDN and no build step that needs the internet.
// Knows nothing of HTTP: the admin routes map GET /admin/<path> to FindUiAsset(path).
#ifndef HOOKINBOX_ADMIN_UI_ASSETS_H_
#define HOOKINBOX_ADMIN_UI_ASSETS_H_

#include <string_view>

namespace hookinbox::admin {

struct UiAsset { std::string_view content_type; std::string_view body; };

// The embedded asset for a path below /admin/ ("" and "index.html" → the page); nullptr when none.
const UiAsset* FindUiAsset(std::string_view path);

}  // namespace hookinbox::admin

#endif  // HOOKINBOX_ADMIN_UI_ASSETS_H_
