// LoadOptions::read_secrets = false (for `init -c`): secrets are
// checked as written but never read, and LoadResult::secret_files lists the
// files init may create, resolved against the config's directory.
#include <catch2/catch.hpp>

#include "config/load.h"
#include "config_test_util.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::config::test::Find;

namespace {

const std::string kKey = "[endpoint.key]\nid_header = \"X-Event-Id\"\n";

LoadResult LoadWithout(const std::string& toml) {
  return LoadString(toml, "test.toml", "/etc/hookinbox", nullptr, {.read_secrets = false, .env = nullptr});
}

}  // namespace

TEST_CASE("load options: without reading secrets, missing secret files and unset variables are no error",
          "[config][init]") {
  const std::string toml =
      "[admin]\ntoken_file = \"/nonexistent/hookinbox/admin.token\"\n"
      "[[endpoint]]\nname = \"a\"\nsecret_file = \"secrets/a.secret\"\n" + kKey +
      "[[endpoint]]\nname = \"b\"\nsecret_env = \"HOOKINBOX_CT_SURELY_UNSET\"\n" + kKey +
      "[[endpoint]]\nname = \"c\"\n"
      "[[endpoint.tenants]]\nid = \"acme\"\nsecret_file = \"/nonexistent/hookinbox/acme.secret\"\n" + kKey +
      "[[endpoint]]\nname = \"d\"\npublic_key_file = \"/nonexistent/hookinbox/d.pub\"\n"
      "[endpoint.signature]\nscheme = \"ed25519\"\n" + kKey;
  LoadResult r = LoadWithout(toml);
  INFO(Dump(r.errors));
  CHECK(r.ok());
  CHECK(r.config.admin.token.empty());  // nothing was read
  CHECK(r.config.endpoints.at(0).secrets.empty());
  CHECK(r.config.endpoints.at(3).public_keys.empty());

  REQUIRE(r.secret_files.size() == 3);
  CHECK(r.secret_files[0].key == "admin.token_file");
  CHECK(r.secret_files[0].path == "/nonexistent/hookinbox/admin.token");
  CHECK(r.secret_files[1].key == "endpoint[0].secret_file");
  CHECK(r.secret_files[1].path == "/etc/hookinbox/secrets/a.secret");  // relative to the config's directory
  CHECK(r.secret_files[1].provider == "generic");
  CHECK(r.secret_files[2].key == "endpoint[2].tenants[0].secret_file");

  // The same text, read as serve reads it: every missing source is an error.
  LoadResult read = LoadString(toml, "test.toml", "/etc/hookinbox");
  CHECK(Find(read.errors, "admin.token_file") != nullptr);
  CHECK(Find(read.errors, "endpoint[0].secret_file") != nullptr);
  CHECK(Find(read.errors, "endpoint[1].secret_env") != nullptr);
  CHECK(Find(read.errors, "endpoint[2].tenants[0].secret_file") != nullptr);
  CHECK(read.secret_files.size() == 3);
}

TEST_CASE("load options: without reading secrets, how they are written is still checked", "[config][init]") {
  SECTION("an endpoint with no secret source") {
    LoadResult r = LoadWithout("[[endpoint]]\nname = \"a\"\n" + kKey);
    INFO(Dump(r.errors));
    CHECK(Find(r.errors, "endpoint[0]") != nullptr);
  }
  SECTION("a tenant with no secret source") {
    LoadResult r = LoadWithout("[[endpoint]]\nname = \"a\"\n[[endpoint.tenants]]\nid = \"acme\"\n" + kKey);
    INFO(Dump(r.errors));
    CHECK(Find(r.errors, "endpoint[0].tenants[0]") != nullptr);
  }
  SECTION("a variable name that is not one") {
    LoadResult r = LoadWithout("[[endpoint]]\nname = \"a\"\nsecret_env = \"not-a-name\"\n" + kKey);
    INFO(Dump(r.errors));
    CHECK(Find(r.errors, "endpoint[0].secret_env") != nullptr);
  }
  SECTION("both token_env and token_file") {
    LoadResult r = LoadWithout("[admin]\ntoken_env = \"T\"\ntoken_file = \"t\"\n[[endpoint]]\nname = \"a\"\n"
                               "secret_file = \"a\"\n" + kKey);
    INFO(Dump(r.errors));
    CHECK(Find(r.errors, "admin.token_file") != nullptr);
  }
  SECTION("an asymmetric scheme with no public key source") {
    LoadResult r = LoadWithout("[[endpoint]]\nname = \"a\"\n[endpoint.signature]\nscheme = \"ed25519\"\n" + kKey);
    INFO(Dump(r.errors));
    CHECK(Find(r.errors, "endpoint[0]") != nullptr);
  }
}
