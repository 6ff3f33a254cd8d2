// cli/open_store.h: the configured store is opened by backend, and where it
// lives is shown without a password.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/open_store.h"
#include "support/backend.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

constexpr const char* kPassword = "pw-Never-Shown-3";

config::StorageConfig Postgres(const std::string& url) {
  config::StorageConfig s;
  s.backend = "postgres";
  s.url = url;
  s.pool_size = 2;
  return s;
}

}  // namespace

TEST_CASE("open store: sqlite creates and opens the file at storage.path", "[cli]") {
  testing::TempDir dir;
  config::StorageConfig s;
  s.path = dir.File("data/hookinbox.db");
  auto opened = cli::OpenConfiguredStore(s);
  INFO(opened.status().message());
  REQUIRE(opened.ok());
  CHECK((*opened)->CheckWritable().ok());
  CHECK(std::filesystem::exists(s.path));
  CHECK(cli::StorageLocation(s) == s.path);
}

TEST_CASE("open store: postgres connects to storage.url (HOOKINBOX_TEST_PG_URL)", "[cli]") {
  testing::TempDir dir;
  testing::TestDatabase db(dir.File("unused.db"));
  if (!db.postgres()) {
    WARN("HOOKINBOX_TEST_PG_URL is not set: PostgreSQL not tried");
    return;
  }
  config::StorageConfig s = Postgres(db.url());
  s.path = dir.File("data/hookinbox.db");
  auto opened = cli::OpenConfiguredStore(s);
  INFO(opened.status().message());
  REQUIRE(opened.ok());
  CHECK((*opened)->CheckWritable().ok());
  CHECK_FALSE(std::filesystem::exists(s.path));  // postgres ignores path
}

TEST_CASE("open store: a postgres failure and the location never show the password", "[cli]") {
  // Port 1 on loopback: nothing listens, the connection is refused at once.
  config::StorageConfig s = Postgres(std::string("postgresql://hook:") + kPassword + "@127.0.0.1:1/hookinbox");
  s.busy_timeout_ms = 100;
  auto opened = cli::OpenConfiguredStore(s);
  REQUIRE_FALSE(opened.ok());
  INFO(opened.status().message());
  CHECK(opened.status().message().find(kPassword) == std::string::npos);

  const std::string location = cli::StorageLocation(s);
  CHECK(location.find(kPassword) == std::string::npos);
  CHECK_THAT(location, Catch::Contains("127.0.0.1:1/hookinbox"));
  const std::string keywords = cli::StorageLocation(Postgres(std::string("host=db password=") + kPassword));
  CHECK(keywords.find(kPassword) == std::string::npos);
  CHECK_THAT(keywords, Catch::Contains("host=db"));
}

