// Loading an endpoint whose secret_file F was rotated (config/rotation.h):
// F's secret without an end, F.previous's with the end F.rotation names;
// errors name the files and never hold a secret.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "config/load.h"
#include "config/rotation.h"
#include "config_test_util.h"
#include "support/temp_dir.h"

using namespace hookinbox;
using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::testing::TempDir;

namespace {

constexpr int64_t kUntil = 1796860800000;  // 2026-12-10T00:00:00Z
const std::string kState = "previous_until = \"2026-12-10T00:00:00Z\"\n";
const std::string kKey = "[endpoint.key]\nid_header = \"X-Event-Id\"\n";

std::string Write(const TempDir& dir, const std::string& name, const std::string& content, mode_t mode = 0600) {
  std::string path = dir.Write(name, content);
  ::chmod(path.c_str(), mode);
  return path;
}

// F = demo.secret ("new-secret"), rotated from "old-secret" until kUntil.
void Rotated(const TempDir& dir, const std::string& name = "demo.secret", const std::string& next = "new-secret\n",
             const std::string& previous = "old-secret\n") {
  Write(dir, name, next);
  Write(dir, name + ".previous", previous);
  Write(dir, name + ".rotation", kState, 0644);
}

LoadResult LoadIn(const TempDir& dir, const std::string& toml, int64_t now_ms = 0) {
  LoadOptions options;
  options.now_ms = now_ms;
  return LoadString(toml, "test.toml", dir.path(), nullptr, options);
}

std::string Endpoint(const std::string& keys) { return "[[endpoint]]\nname = \"demo\"\n" + keys + kKey; }

// True when no error or warning, as check-config prints it, contains `value`.
bool NothingMentions(const LoadResult& r, const std::string& value) {
  for (const auto* list : {&r.errors, &r.warnings}) {
    for (const auto& p : *list) {
      if (Describe(p, "test.toml").find(value) != std::string::npos) return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("secrets rotation: F holds the secret in force, F.previous the one accepted until the state's time",
          "[config][rotation]") {
  TempDir dir;
  Rotated(dir);
  LoadResult r = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n"));
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const EndpointConfig& e = r.config.endpoints[0];
  REQUIRE(e.secrets.size() == 2);
  CHECK(e.secrets[0].bytes() == "new-secret");
  CHECK(e.secrets[0].valid_until_ms() == 0);
  CHECK(e.secrets[1].bytes() == "old-secret");
  CHECK(e.secrets[1].valid_until_ms() == kUntil);
  CHECK(e.secret_file == dir.File("demo.secret"));
  CHECK(e.other_secret_keys.empty());
  CHECK(r.warnings.empty());
}

TEST_CASE("secrets rotation: without a state file F.previous is not read", "[config][rotation]") {
  TempDir dir;
  Write(dir, "demo.secret", "new-secret\n");
  Write(dir, "demo.secret.previous", "old-secret\n");
  LoadResult r = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n"));
  REQUIRE(r.ok());
  REQUIRE(r.config.endpoints[0].secrets.size() == 1);
  CHECK(r.config.endpoints[0].secrets[0].bytes() == "new-secret");
}

TEST_CASE("secrets rotation: the HMAC secret_encoding applies to the previous secret too", "[config][rotation]") {
  TempDir dir;
  Rotated(dir, "demo.secret", "bmV3LWtleQ==\n", "b2xkLWtleQ==\n");  // "new-key", "old-key"
  LoadResult r = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n[endpoint.signature]\nsecret_encoding = "
                                      "\"base64\"\n"));
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const auto& s = r.config.endpoints[0].secrets;
  REQUIRE(s.size() == 2);
  CHECK(s[0].bytes() == "new-key");
  CHECK(s[1].bytes() == "old-key");
  CHECK(s[1].valid_until_ms() == kUntil);

  SECTION("a previous secret that does not decode is an error naming its file, not its bytes") {
    Write(dir, "demo.secret.previous", "n0t*base64!old\n");
    LoadResult bad = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n[endpoint.signature]\nsecret_encoding = "
                                          "\"base64\"\n"));
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0].key == "endpoint[0].secret_file");
    CHECK_THAT(bad.errors[0].message, Catch::Contains("previous secret file " + dir.File("demo.secret.previous")));
    CHECK(NothingMentions(bad, "n0t*base64!old"));
  }
}

TEST_CASE(
    "secrets rotation: a malformed state or a missing previous file is a warning naming the files; the "
    "previous secret is not accepted, the config still loads",
    "[config][rotation]") {
  TempDir dir;
  Rotated(dir);
  auto check_warned = [&](const LoadResult& r, const std::string& names) {
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].key == "endpoint[0].secret_file");
    CHECK(r.warnings[0].line == 3);
    CHECK_THAT(r.warnings[0].message, Catch::Contains(names));
    CHECK_THAT(r.warnings[0].message,
               Catch::Contains("`hookinbox secrets retire demo` removes " + dir.File("demo.secret.rotation")));
    REQUIRE(r.config.endpoints[0].secrets.size() == 1);  // the new one only
    CHECK(r.config.endpoints[0].secrets[0].valid_until_ms() == 0);
  };
  SECTION("a malformed state") {
    Write(dir, "demo.secret.rotation", "previous_until = \"2026-02-31T00:00:00Z\"\n", 0644);
    check_warned(LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n")), dir.File("demo.secret.rotation"));
  }
  SECTION("a missing previous file") {
    REQUIRE(::unlink(dir.File("demo.secret.previous").c_str()) == 0);
    check_warned(LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n")),
                 "cannot read the previous secret file " + dir.File("demo.secret.previous"));
  }
  SECTION("an empty previous file") {
    Write(dir, "demo.secret.previous", "\n");
    check_warned(LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n")),
                 dir.File("demo.secret.previous") + ": it is empty");
  }
  LoadResult r = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n"));
  CHECK(NothingMentions(r, "new-secret"));
  CHECK(NothingMentions(r, "old-secret"));
}

TEST_CASE("secrets rotation: a previous file others can read draws the chmod warning", "[config][rotation]") {
  TempDir dir;
  Rotated(dir);
  ::chmod(dir.File("demo.secret.previous").c_str(), 0644);
  LoadResult r = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n"));
  REQUIRE(r.ok());
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0].message, Catch::Contains(dir.File("demo.secret.previous") + " is readable by group"));
}

TEST_CASE("secrets rotation: a window already ended is a warning, and the secret still loads with its end",
          "[config][rotation]") {
  TempDir dir;
  Rotated(dir);
  SECTION("now past the end") {
    LoadResult r = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n"), kUntil + 1);
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].key == "endpoint[0].secret_file");
    CHECK_THAT(r.warnings[0].message, Catch::Contains("no longer accepted since 2026-12-10T00:00:00Z"));
    CHECK_THAT(r.warnings[0].message, Catch::Contains("hookinbox secrets retire"));
    REQUIRE(r.config.endpoints[0].secrets.size() == 2);
    CHECK(r.config.endpoints[0].secrets[1].valid_until_ms() == kUntil);
  }
  SECTION("now at the end: ended too") {
    LoadResult r = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n"), kUntil);
    REQUIRE(r.warnings.size() == 1);
  }
  SECTION("now before the end, or not given: no warning") {
    CHECK(LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n"), kUntil - 1).warnings.empty());
    CHECK(LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n"), 0).warnings.empty());
  }
}

TEST_CASE("secrets rotation: a tenant's secret_file is not rotated (no previous read)", "[config][rotation]") {
  TempDir dir;
  Rotated(dir, "a.secret");
  LoadResult r = LoadIn(dir, "[[endpoint]]\nname = \"shops\"\n" + kKey +
                                 "[[endpoint.tenants]]\nid = \"a\"\nsecret_file = \"a.secret\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const auto& s = r.config.endpoints[0].tenants[0].secrets;
  REQUIRE(s.size() == 1);
  CHECK(s[0].bytes() == "new-secret");
  CHECK(r.config.endpoints[0].secret_file.empty());
}

TEST_CASE("secrets rotation: secrets_file entries are never rotated (no previous read)", "[config][rotation]") {
  TempDir dir;
  Write(dir, "list.secret", "listed-secret\n");
  Write(dir, "list.secret.previous", "old-secret\n");
  Write(dir, "list.secret.rotation", "not a state at all\n", 0644);  // would be an error if read
  LoadResult r = LoadIn(dir, Endpoint("secrets_file = [\"list.secret\"]\n"));
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  REQUIRE(r.config.endpoints[0].secrets.size() == 1);
  CHECK(r.config.endpoints[0].secrets[0].bytes() == "listed-secret");
  CHECK(r.config.endpoints[0].secret_file.empty());
  CHECK(r.config.endpoints[0].other_secret_keys == std::vector<std::string>{"secrets_file"});
}

TEST_CASE("secrets rotation: an alert channel's secret_file is never rotated", "[config][rotation]") {
  TempDir dir;
  Write(dir, "demo.secret", "new-secret\n");
  Write(dir, "alert.secret", "whsec_Zm9yd2FyZC1zZWNyZXQtZm9yLXRlc3Rz\n");
  Write(dir, "alert.secret.previous", "whsec_b2xk\n");
  Write(dir, "alert.secret.rotation", "not a state at all\n", 0644);  // would be an error if read
  LoadResult r = LoadIn(dir, Endpoint("secret_file = \"demo.secret\"\n") +
                                 "\n[[alert.channel]]\nname = \"hook\"\ntype = \"webhook\"\n"
                                 "url = \"http://127.0.0.1:9000/alerts\"\nsecret_file = \"alert.secret\"\n");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.config.alert.channels[0].secret.bytes() == "forward-secret-for-tests");
}

TEST_CASE("secrets rotation: EndpointConfig names how its secrets were configured", "[config][rotation]") {
  TempDir dir;
  Write(dir, "demo.secret", "file-secret\n");
  Write(dir, "list.secret", "listed-secret\n");
  ::setenv("HOOKINBOX_CT_ROT_ENV", "env-secret", 1);
  LoadResult r = LoadIn(dir, Endpoint("secret_env = \"HOOKINBOX_CT_ROT_ENV\"\nsecret_file = \"demo.secret\"\n"
                                      "secrets_env = [\"HOOKINBOX_CT_ROT_ENV\"]\nsecrets_file = [\"list.secret\"]\n"));
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const EndpointConfig& e = r.config.endpoints[0];
  CHECK(e.secret_file == dir.File("demo.secret"));
  CHECK(e.other_secret_keys == std::vector<std::string>{"secret_env", "secrets_env", "secrets_file"});
}
