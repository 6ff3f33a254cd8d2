// The embedded web UI: what GET /admin/<path> can find (admin/ui_assets.h).
#include "admin/ui_assets.h"

#include <catch2/catch.hpp>

#include <string>

namespace hookinbox::admin {
namespace {

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

TEST_CASE("ui assets: the page is served for /admin/ and /admin/index.html", "[admin][ui]") {
  const UiAsset* root = FindUiAsset("");
  const UiAsset* index = FindUiAsset("index.html");
  REQUIRE(root != nullptr);
  REQUIRE(index == root);
  CHECK(root->content_type == "text/html; charset=utf-8");
  CHECK(Contains(root->body, "<!doctype html>"));
  CHECK(Contains(root->body, "name=\"viewport\""));
  // The page must work under `Content-Security-Policy: default-src 'self'`:
  // its script and style come from the embedded files, nothing inline, no CDN.
  CHECK(Contains(root->body, "<script src=\"app.js\""));
  CHECK(Contains(root->body, "href=\"app.css\""));
  CHECK_FALSE(Contains(root->body, "<script>"));
  CHECK_FALSE(Contains(root->body, "style=\""));
  CHECK_FALSE(Contains(root->body, "http://"));
  CHECK_FALSE(Contains(root->body, "https://"));
}

TEST_CASE("ui assets: script and style carry their content types and whole bodies", "[admin][ui]") {
  const UiAsset* js = FindUiAsset("app.js");
  const UiAsset* css = FindUiAsset("app.css");
  REQUIRE(js != nullptr);
  REQUIRE(css != nullptr);
  CHECK(js->content_type == "text/javascript; charset=utf-8");
  CHECK(css->content_type == "text/css; charset=utf-8");
  // The last line of each file is there: nothing was cut off when embedding.
  CHECK(Contains(js->body, "// end of app.js"));
  CHECK(Contains(css->body, "/* end of app.css */"));
  // Data is rendered as text, never parsed as HTML.
  CHECK_FALSE(Contains(js->body, "innerHTML"));
  CHECK_FALSE(Contains(js->body, "eval("));
}

TEST_CASE("ui assets: unknown names and path tricks find nothing", "[admin][ui]") {
  for (std::string_view path : {"missing.js", "/index.html", "./index.html", "../index.html", "ui/index.html",
                                "index.html/", "INDEX.HTML", "app.js?x=1", "..%2fapp.js", "../../schema.sql",
                                "/etc/passwd", "api/stats"}) {
    INFO(std::string(path));
    CHECK(FindUiAsset(path) == nullptr);
  }
  CHECK(FindUiAsset(std::string_view("app.js\0", 7)) == nullptr);
}

}  // namespace
}  // namespace hookinbox::admin
