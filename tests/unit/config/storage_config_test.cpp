// [storage] backend = "postgres" with url / url_env / pool_size:
// every accept and refuse path, and that no message repeats a connection
// string (it may carry a password).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "config_test_util.h"
#include "support/temp_dir.h"

using namespace hookinbox::config;
using namespace hookinbox::config::test;

namespace {

constexpr const char* kPassword = "pw-Do-Not-Print-7";
const std::string kUrl = std::string("postgresql://hook:") + kPassword + "@db.internal:5432/hookinbox";

LoadResult LoadStorage(const std::string& storage, const LoadOptions& options = {}) {
  ::setenv(kBaseSecretVar, "base-secret-value", 1);
  return LoadString("[storage]\n" + storage + kEndpoint, "test.toml", "/etc/hookinbox", nullptr, options);
}

// No error or warning may quote the password of any URL the test used.
void CheckNoPassword(const LoadResult& r) {
  for (const auto* list : {&r.errors, &r.warnings}) {
    for (const auto& p : *list) {
      INFO(Describe(p, "test.toml"));
      CHECK(p.message.find(kPassword) == std::string::npos);
    }
  }
}

const Problem* RequireError(const LoadResult& r, const std::string& key) {
  INFO(Dump(r.errors));
  const Problem* p = Find(r.errors, key);
  REQUIRE(p != nullptr);
  CheckNoPassword(r);
  return p;
}

}  // namespace

TEST_CASE("storage: the default is sqlite at data/hookinbox.db with a pool of 4", "[config]") {
  auto r = Load(kEndpoint);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.storage.backend == "sqlite");
  CHECK(r.config.storage.path == "/etc/hookinbox/data/hookinbox.db");
  CHECK(r.config.storage.url.empty());
  CHECK(r.config.storage.pool_size == 4);
  CHECK(r.warnings.empty());
}

TEST_CASE("storage: postgres takes url, inline, as a URL or keyword string", "[config]") {
  for (const std::string& url : {kUrl, std::string("postgres://localhost/hookinbox"),
                                 std::string("host=/tmp port=5433 dbname=hookinbox user=hook"),
                                 std::string(" dbname = hookinbox")}) {
    INFO(url);
    auto r = LoadStorage("backend = \"postgres\"\nurl = \"" + url + "\"\npool_size = 8\n");
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(r.config.storage.backend == "postgres");
    CHECK(r.config.storage.url == url);
    CHECK(r.config.storage.pool_size == 8);
    CHECK(r.warnings.empty());
  }
}

TEST_CASE("storage: postgres takes url_env, read into storage.url at load", "[config]") {
  ::setenv("HOOKINBOX_CT_PG_URL", kUrl.c_str(), 1);
  auto r = LoadStorage("backend = \"postgres\"\nurl_env = \"HOOKINBOX_CT_PG_URL\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.storage.url == kUrl);
  CHECK(r.config.storage.url_env == "HOOKINBOX_CT_PG_URL");
  CHECK(r.config.storage.pool_size == 4);
}

TEST_CASE("storage: postgres takes url_file, read like a secret file; one source only", "[config]") {
  hookinbox::testing::TempDir dir;
  std::string file = dir.Write("secrets/pg.url", kUrl + "\n");
  ::chmod(file.c_str(), 0600);
  auto load = [&](const std::string& storage) {
    ::setenv(kBaseSecretVar, "base-secret-value", 1);
    return LoadString("[storage]\n" + storage + kEndpoint, "test.toml", dir.path());
  };
  auto r = load("backend = \"postgres\"\nurl_file = \"secrets/pg.url\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.storage.url == kUrl);
  CHECK(std::find(r.config.secret_origins.files.begin(), r.config.secret_origins.files.end(), file) !=
        r.config.secret_origins.files.end());  // hidden from exec commands like every secret file

  auto both = load("backend = \"postgres\"\nurl_file = \"secrets/pg.url\"\nurl = \"" + kUrl + "\"\n");
  CHECK_FALSE(both.ok());
  auto missing = load("backend = \"postgres\"\nurl_file = \"secrets/none\"\n");
  REQUIRE_FALSE(missing.ok());
  CHECK(Dump(missing.errors).find("storage.url_file") != std::string::npos);
  dir.Write("secrets/bad.url", "not a connection string at all\n");
  ::chmod(dir.File("secrets/bad.url").c_str(), 0600);
  auto bad = load("backend = \"postgres\"\nurl_file = \"secrets/bad.url\"\n");
  CHECK_FALSE(bad.ok());
  CHECK(Dump(bad.errors).find("not a connection string") == std::string::npos);  // never quoted back
}

TEST_CASE("storage: url_env must name a set, non-empty variable holding a connection string", "[config]") {
  ::unsetenv("HOOKINBOX_CT_PG_UNSET");
  auto unset = LoadStorage("backend = \"postgres\"\nurl_env = \"HOOKINBOX_CT_PG_UNSET\"\n");
  CHECK_THAT(RequireError(unset, "storage.url_env")->message, Catch::Contains("HOOKINBOX_CT_PG_UNSET is not set"));

  ::setenv("HOOKINBOX_CT_PG_EMPTY", "", 1);
  auto empty = LoadStorage("backend = \"postgres\"\nurl_env = \"HOOKINBOX_CT_PG_EMPTY\"\n");
  CHECK_THAT(RequireError(empty, "storage.url_env")->message, Catch::Contains("is empty"));

  // The URL pasted where the variable's name belongs: refused without echoing it.
  auto pasted = LoadStorage("backend = \"postgres\"\nurl_env = \"" + kUrl + "\"\n");
  CHECK_THAT(RequireError(pasted, "storage.url_env")->message,
             Catch::Contains("not an environment variable name"));

  ::setenv("HOOKINBOX_CT_PG_JUNK", kPassword, 1);
  auto junk = LoadStorage("backend = \"postgres\"\nurl_env = \"HOOKINBOX_CT_PG_JUNK\"\n");
  CHECK_THAT(RequireError(junk, "storage.url_env")->message,
             Catch::Contains("HOOKINBOX_CT_PG_JUNK is not a PostgreSQL connection string"));
}

TEST_CASE("storage: postgres needs exactly one of url, url_env and url_file", "[config]") {
  const std::string none = "[storage] #<\nbackend = \"postgres\"\n";
  auto r = Load(none + kEndpoint);
  const Problem* p = RequireError(r, "storage");
  CHECK_THAT(p->message, Catch::Contains("needs url") && Catch::Contains("url_env"));
  CHECK(p->line == MarkedLine(none));

  ::setenv("HOOKINBOX_CT_PG_URL", kUrl.c_str(), 1);
  auto both = LoadStorage("backend = \"postgres\"\nurl = \"" + kUrl + "\"\nurl_env = \"HOOKINBOX_CT_PG_URL\"\n");
  CHECK_THAT(RequireError(both, "storage.url_env")->message, Catch::Contains("only one of url, url_env and url_file"));
  CHECK(both.errors.size() == 1);
}

TEST_CASE("storage: a url that is no connection string is refused without quoting it", "[config]") {
  auto bare = LoadStorage("backend = \"postgres\"\nurl = \"" + std::string(kPassword) + "\"\n");
  const Problem* p = RequireError(bare, "storage.url");
  CHECK_THAT(p->message, Catch::Contains("not a PostgreSQL connection string") && Catch::Contains("url_env"));

  // The scheme left out: '=' in its query does not make it the keyword form.
  auto no_scheme = LoadStorage("backend = \"postgres\"\nurl = \"hook:" + std::string(kPassword) +
                               "@db/hookinbox?sslmode=require\"\n");
  CHECK_THAT(RequireError(no_scheme, "storage.url")->message, Catch::Contains("not a PostgreSQL connection string"));

  auto empty = LoadStorage("backend = \"postgres\"\nurl = \"\"\n");
  CHECK_THAT(RequireError(empty, "storage.url")->message, Catch::Contains("must not be empty"));
}

TEST_CASE("storage: postgres ignores path, with a warning when it is written", "[config]") {
  auto r = LoadStorage("backend = \"postgres\"\nurl = \"" + kUrl + "\"\npath = \"x.db\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const Problem* w = Find(r.warnings, "storage.path");
  REQUIRE(w != nullptr);
  CHECK_THAT(w->message, Catch::Contains("unused with backend = \"postgres\""));
  CheckNoPassword(r);
}

TEST_CASE("storage: sqlite refuses url and url_env (backend = \"postgres\" forgotten)", "[config]") {
  auto url = LoadStorage("url = \"" + kUrl + "\"\n");
  CHECK_THAT(RequireError(url, "storage.url")->message, Catch::Contains("only used with backend = \"postgres\""));

  // The variable is not read for sqlite: the only error is the misplaced key.
  ::unsetenv("HOOKINBOX_CT_PG_UNSET");
  auto env = LoadStorage("backend = \"sqlite\"\nurl_env = \"HOOKINBOX_CT_PG_UNSET\"\n");
  CHECK_THAT(RequireError(env, "storage.url_env")->message, Catch::Contains("only used with backend = \"postgres\""));
  CHECK(env.errors.size() == 1);

  auto no_path = LoadStorage("path = \"\"\n");
  CHECK_THAT(RequireError(no_path, "storage.path")->message, Catch::Contains("required"));
}

TEST_CASE("storage: pool_size is 2..64 and only warned about with sqlite", "[config]") {
  for (int ok : {2, 64}) {
    auto r = LoadStorage("backend = \"postgres\"\nurl = \"" + kUrl + "\"\npool_size = " + std::to_string(ok) + "\n");
    INFO(Dump(r.errors));
    CHECK(r.ok());
    CHECK(r.config.storage.pool_size == ok);
  }
  for (int bad : {1, 65}) {
    auto r = LoadStorage("backend = \"postgres\"\nurl = \"" + kUrl + "\"\npool_size = " + std::to_string(bad) + "\n");
    CHECK_THAT(RequireError(r, "storage.pool_size")->message, Catch::Contains("between 2 and 64"));
  }
  auto sqlite = LoadStorage("pool_size = 8\n");
  INFO(Dump(sqlite.errors));
  REQUIRE(sqlite.ok());
  REQUIRE(Find(sqlite.warnings, "storage.pool_size") != nullptr);
  CHECK_THAT(Find(sqlite.warnings, "storage.pool_size")->message, Catch::Contains("unused with backend = \"sqlite\""));
}

TEST_CASE("storage: an unknown backend or key is an error naming it", "[config]") {
  auto backend = LoadStorage("backend = \"mysql\"\n");
  CHECK_THAT(RequireError(backend, "storage.backend")->message,
             Catch::Contains("sqlite, postgres") && Catch::Contains("\"mysql\""));
  auto key = LoadStorage("backend = \"postgres\"\nurl = \"" + kUrl + "\"\npassword = \"x\"\n");
  RequireError(key, "storage.password");
}

TEST_CASE("storage: without reading secrets (init -c) url_env is checked, not read", "[config]") {
  ::unsetenv("HOOKINBOX_CT_PG_UNSET");
  LoadOptions no_read;
  no_read.read_secrets = false;
  auto r = LoadStorage("backend = \"postgres\"\nurl_env = \"HOOKINBOX_CT_PG_UNSET\"\n", no_read);
  INFO(Dump(r.errors));
  CHECK(r.ok());
  CHECK(r.config.storage.url.empty());
  auto bad = LoadStorage("backend = \"postgres\"\nurl_env = \"not a name\"\n", no_read);
  RequireError(bad, "storage.url_env");
}
