// The README's configuration reference must name every key the loader knows,
// so the documentation cannot silently fall behind the key table.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "config/keys.h"
#include "config/load.h"
#include "support/temp_dir.h"

using namespace hookinbox::config;

TEST_CASE("docs: the README's configuration reference lists every known key", "[config]") {
  std::ifstream in(std::string(HOOKINBOX_SOURCE_DIR) + "/README.md");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  for (const auto& key : KnownKeys()) {
    INFO(key.path);
    CHECK(readme.find("| `" + key.path + "` |") != std::string::npos);
  }
}

TEST_CASE("docs: the embedded default config loads without errors or warnings", "[config]") {
  std::ifstream in(std::string(HOOKINBOX_SOURCE_DIR) + "/packaging/hookinbox.default.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  hookinbox::testing::TempDir dir;
  std::string secret = dir.Write("secrets/demo.secret", "0123456789abcdef\n");
  ::chmod(secret.c_str(), 0600);
  LoadResult r = LoadString(ss.str(), "hookinbox.default.toml", dir.path());
  for (const auto& p : r.errors) FAIL_CHECK(Describe(p, "default"));
  for (const auto& p : r.warnings) FAIL_CHECK(Describe(p, "default"));
  REQUIRE(r.ok());
  CHECK(r.config.endpoints.size() == 1);
  CHECK(r.config.endpoints[0].secrets.size() == 1);
}
