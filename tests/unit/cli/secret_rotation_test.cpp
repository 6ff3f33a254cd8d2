// cli/secret_rotation: one step of a secret rotation (ApplySecretStep) on a
// config file written here and a real store (either backend): the files
// beside the secret_file, the audit row, every refusal changing nothing, and
// the files put back exactly when the new config does not load or the audit
// row cannot be written.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "cli/secret_rotation.h"
#include "common/clock.h"
#include "store/sql/sql.h"
#include "support/backend.h"
#include "support/temp_dir.h"

using namespace hookinbox;
using hookinbox::testing::TempDir;
using hookinbox::testing::TestDatabase;

namespace {

constexpr int64_t kDay = 86400000;

constexpr auto Read = &hookinbox::testing::ReadWholeFile;
constexpr auto Exists = &hookinbox::testing::PathExists;
constexpr auto ModeOf = &hookinbox::testing::FileMode;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string WriteSecret(const TempDir& dir, const std::string& name, const std::string& bytes, mode_t mode = 0600) {
  std::string path = dir.Write(name, bytes);
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  return path;
}

// A config with endpoints that can and cannot be rotated through secret_file.
struct Rig {
  TempDir dir;
  TestDatabase database{dir.File("hookinbox.db")};
  std::unique_ptr<store::SqlStore> store = database.OpenStore(2000, 64);
  std::string path;
  cli::CheckedConfig in_force;
  int64_t now = SystemClock().NowMs();
  cli::InForce next_put;  // what putting the change in force answers
  int puts = 0;           // how often it was asked

  cli::InForce Put() {
    ++puts;
    return next_put;
  }

  Rig() {
    WriteSecret(dir, "demo.secret", "old-secret\n", 0640);
    WriteSecret(dir, "b64.secret", "b2xkLWtleQ==\n");  // "old-key"
    WriteSecret(dir, "list.secret", "listed-secret\n");
    WriteSecret(dir, "tenant.secret", "tenant-secret\n");
    ::setenv("HOOKINBOX_UT_ROTATION_ENV", "env-secret", 1);
    path = dir.Write(
        "hookinbox.toml",
        "[server]\nlisten = \"127.0.0.1:8443\"\nplain_http = true\n"
        "[storage]\npath = \"hookinbox.db\"\n" +
            Endpoint("demo", "secret_file = \"demo.secret\"\n") +
            Endpoint("b64", "secret_file = \"b64.secret\"\n", "secret_encoding = \"base64\"\n") +
            Endpoint("envy", "secret_env = \"HOOKINBOX_UT_ROTATION_ENV\"\n") +
            Endpoint("both", "secret_file = \"demo.secret\"\nsecrets_env = [\"HOOKINBOX_UT_ROTATION_ENV\"]\n") +
            Endpoint("listed", "secrets_file = [\"list.secret\"]\n") +
            "[[endpoint]]\nname = \"shops\"\n[endpoint.key]\nid_header = \"X-Event-Id\"\n"
            "[[endpoint.tenants]]\nid = \"a\"\nsecret_file = \"tenant.secret\"\n");
    in_force = LoadNow();
    INFO(Problems(in_force));
    REQUIRE(in_force.ok());
  }

  static std::string Endpoint(const std::string& name, const std::string& keys, const std::string& signature = "") {
    return "[[endpoint]]\nname = \"" + name + "\"\n" + keys + "[endpoint.key]\nid_header = \"X-Event-Id\"\n" +
           (signature.empty() ? "" : "[endpoint.signature]\n" + signature);
  }

  static std::string Problems(const cli::CheckedConfig& c) {
    std::string out;
    for (const auto& p : c.errors) out += config::Describe(p, "hookinbox.toml") + "\n";
    return out;
  }

  cli::CheckedConfig LoadNow() const {
    // The environment as serve keeps it: LoadAndCheck without one would scrub the variables it reads.
    static const cli::StartEnvironment env{{{"HOOKINBOX_UT_ROTATION_ENV", "env-secret"}}};
    return cli::LoadAndCheck(path, false, &env);
  }

  config::SecretRotateAnswer Rotate(const std::string& endpoint, const std::string& next, int64_t until,
                                    const config::Config* config = nullptr) {
    config::SecretRotateAsk ask;
    ask.endpoint = endpoint;
    ask.next = Secret(next);
    ask.keep_old_until_ms = until;
    ask.actor = "cli:alice";
    return cli::ApplySecretStep(
        config ? *config : in_force.loaded.config, ask, [this] { return LoadNow(); }, [this] { return Put(); }, *store,
        now, /*wait_for_lock=*/true);
  }

  config::SecretRotateAnswer Retire(const std::string& endpoint) {
    config::SecretRotateAsk ask;
    ask.endpoint = endpoint;
    ask.retire = true;
    ask.actor = "cli:bob";
    return cli::ApplySecretStep(
        in_force.loaded.config, ask, [this] { return LoadNow(); }, [this] { return Put(); }, *store, now,
        /*wait_for_lock=*/true);
  }

  // The audit rows, oldest first, as "endpoint|actor|action|reason".
  std::string Actions() const {
    auto db = database.Connect();
    auto rows = db->Prepare("SELECT endpoint, actor, action, coalesce(reason, '') FROM endpoint_actions ORDER BY id");
    std::string out;
    while (rows->executeStep()) {
      out += rows->getColumn(0).getString() + "|" + rows->getColumn(1).getString() + "|" +
             rows->getColumn(2).getString() + "|" + rows->getColumn(3).getString() + ";";
    }
    return out;
  }

  // Every file in the directory but the database, with its bytes and mode, to compare before and after.
  std::string Files(std::initializer_list<const char*> names) const {
    std::string out;
    for (const char* n : names) {
      const std::string p = dir.File(n);
      out += std::string(n) + (Exists(p) ? "=" + Read(p) + "@" + std::to_string(ModeOf(p)) : " absent") + "\n";
    }
    return out;
  }
  std::string DemoFiles() const {
    return Files({"demo.secret", "demo.secret.previous", "demo.secret.rotation", "demo.secret.tmp"});
  }
};

}  // namespace

TEST_CASE("secret step: rotate writes the files, records the step and answers where and until when",
          "[cli][rotation]") {
  Rig rig;
  const int64_t until = rig.now + kDay + 123;  // the state keeps whole seconds
  const int64_t kept = until / 1000 * 1000;
  config::SecretRotateAnswer a = rig.Rotate("demo", "new-secret\n", until);
  INFO(a.status.ToString());
  REQUIRE(a.status.ok());
  CHECK(a.changed);
  CHECK(a.previous_until_ms == kept);
  CHECK(a.secret_file == rig.dir.File("demo.secret"));
  CHECK_FALSE(a.reloaded);
  CHECK(Read(rig.dir.File("demo.secret")) == "new-secret\n");
  CHECK(ModeOf(rig.dir.File("demo.secret")) == 0640);
  CHECK(Read(rig.dir.File("demo.secret.previous")) == "old-secret\n");
  CHECK_THAT(Read(rig.dir.File("demo.secret.rotation")),
             Catch::Contains("previous_until = \"" + FormatUtc(kept) + "\""));
  CHECK(rig.Actions() == "demo|cli:alice|secret_rotated|new secret in " + rig.dir.File("demo.secret") +
                             "; the previous one accepted until " + FormatUtc(kept) + ";");
  // What the reload will load: both secrets, the previous one with its end.
  cli::CheckedConfig after = rig.LoadNow();
  REQUIRE(after.ok());
  const auto& secrets = after.loaded.config.FindEndpoint("demo")->secrets;
  REQUIRE(secrets.size() == 2);
  CHECK(secrets[0].bytes() == "new-secret");
  CHECK(secrets[1].bytes() == "old-secret");
  CHECK(secrets[1].valid_until_ms() == kept);
}

TEST_CASE("secret step: an unknown endpoint is NotFound naming the configured ones", "[cli][rotation]") {
  Rig rig;
  config::SecretRotateAnswer a = rig.Rotate("nope", "new-secret", rig.now + kDay);
  CHECK(a.status.code() == Code::kNotFound);
  CHECK_THAT(a.status.message(), Catch::Contains("no endpoint named \"nope\""));
  CHECK_THAT(a.status.message(), Catch::Contains("demo, b64, envy, both, listed, shops"));
  CHECK(rig.Actions().empty());
}

TEST_CASE("secret step: endpoints not rotated through one secret_file are a Conflict saying what to do",
          "[cli][rotation]") {
  Rig rig;
  const std::string before = rig.DemoFiles() + rig.Files({"list.secret", "tenant.secret"});
  struct Case {
    const char* endpoint;
    const char* says;
  };
  for (const Case& c : {Case{"envy", "reads its secret from the environment (secret_env)"},
                        Case{"both", "reads its secret from the environment (secrets_env)"},
                        Case{"listed", "lists its secrets in secrets_file: put the new file first"},
                        Case{"shops", "has a secret per tenant"}}) {
    INFO(c.endpoint);
    config::SecretRotateAnswer a = rig.Rotate(c.endpoint, "new-secret", rig.now + kDay);
    CHECK(a.status.code() == Code::kConflict);
    CHECK_THAT(a.status.message(), Catch::Contains(c.says));
    CHECK(a.status.message().find("env-secret") == std::string::npos);
    CHECK(rig.Retire(c.endpoint).status.code() == Code::kConflict);
  }
  SECTION("a public-key scheme") {
    config::Config config = rig.in_force.loaded.config;
    config.endpoints[0].signature.scheme = "ed25519";
    config::SecretRotateAnswer a = rig.Rotate("demo", "new-secret", rig.now + kDay, &config);
    CHECK(a.status.code() == Code::kConflict);
    CHECK_THAT(a.status.message(), Catch::Contains("signature.scheme = \"ed25519\", not with a secret"));
  }
  CHECK(rig.DemoFiles() + rig.Files({"list.secret", "tenant.secret"}) == before);
  CHECK(rig.Actions().empty());
}

TEST_CASE("secret step: a bad secret or time is InvalidArgument and changes nothing", "[cli][rotation]") {
  Rig rig;
  rig.now = rig.now / 1000 * 1000 + 500;
  const std::string before = rig.DemoFiles();
  struct Case {
    const char* what;
    std::string next;
    int64_t until;
    const char* says;
  };
  for (const Case& c : {Case{"empty", "", rig.now + kDay, "the new secret is empty"},
                        Case{"too long", std::string(64 * 1024 + 1, 'k'), rig.now + kDay, "longer than 64 KiB"},
                        Case{"now", "new-secret", rig.now, "is not in the future"},
                        // Later in this second, but the state keeps whole seconds: rounded down, it is past.
                        Case{"within this second", "new-secret", rig.now + 499, "is not in the future"},
                        Case{"past", "new-secret", rig.now - kDay, "is not in the future"},
                        Case{"the same secret", "old-secret", rig.now + kDay, "already holds"}}) {
    INFO(c.what);
    config::SecretRotateAnswer a = rig.Rotate("demo", c.next, c.until);
    CHECK(a.status.code() == Code::kInvalidArgument);
    CHECK_THAT(a.status.message(), Catch::Contains(c.says));
    CHECK(rig.DemoFiles() == before);
  }
  CHECK(rig.Actions().empty());
}

TEST_CASE("secret step: a rotation still in its window is a Conflict; once it ended, rotating again works",
          "[cli][rotation]") {
  Rig rig;
  REQUIRE(rig.Rotate("demo", "second-secret\n", rig.now + kDay).status.ok());
  const std::string rotated = rig.DemoFiles();
  config::SecretRotateAnswer a = rig.Rotate("demo", "third-secret\n", rig.now + 2 * kDay);
  CHECK(a.status.code() == Code::kConflict);
  CHECK_THAT(a.status.message(), Catch::Contains("still in its window"));
  CHECK_THAT(a.status.message(), Catch::Contains("hookinbox secrets retire demo"));
  CHECK(rig.DemoFiles() == rotated);
  // A day and a bit later the window has ended: the next rotation replaces it.
  rig.now += kDay + 1000;
  config::SecretRotateAnswer again = rig.Rotate("demo", "third-secret\n", rig.now + kDay);
  INFO(again.status.ToString());
  REQUIRE(again.status.ok());
  CHECK(Read(rig.dir.File("demo.secret")) == "third-secret\n");
  CHECK(Read(rig.dir.File("demo.secret.previous")) == "second-secret\n");
  CHECK(rig.Actions().find("secret_rotated") != rig.Actions().rfind("secret_rotated"));  // two rows
}

TEST_CASE("secret step: a new secret the endpoint cannot decode puts the files back exactly", "[cli][rotation]") {
  Rig rig;
  const std::string before = rig.Files({"b64.secret", "b64.secret.previous", "b64.secret.rotation", "b64.secret.tmp"});
  config::SecretRotateAnswer a = rig.Rotate("b64", "not base64!!\n", rig.now + kDay);
  CHECK(a.status.code() == Code::kInvalidArgument);
  CHECK_THAT(a.status.message(), Catch::Contains("the config file does not load with this change, so nothing changed"));
  CHECK_THAT(a.status.message(), Catch::Contains("endpoint[1].secret_file"));
  CHECK(a.status.message().find("not base64!!") == std::string::npos);
  CHECK(rig.Files({"b64.secret", "b64.secret.previous", "b64.secret.rotation", "b64.secret.tmp"}) == before);
  CHECK(rig.Actions().empty());
  // A secret it can decode goes through.
  REQUIRE(rig.Rotate("b64", "bmV3LWtleQ==\n", rig.now + kDay).status.ok());
}

TEST_CASE("secret step: an audit row that cannot be written after the change is in force says so", "[cli][rotation]") {
  Rig rig;
  rig.store->Close();
  config::SecretRotateAnswer a = rig.Rotate("demo", "new-secret\n", rig.now + kDay);
  CHECK(a.status.code() == Code::kUnavailable);
  CHECK_THAT(a.status.message(), Catch::Contains("the change is made, but its audit row could not be written"));
  CHECK(rig.puts == 1);
  CHECK(Read(rig.dir.File("demo.secret")) == "new-secret\n");  // in force: kept as it is served
}

TEST_CASE("secret step: a change that cannot be put in force is undone and not recorded", "[cli][rotation]") {
  Rig rig;
  rig.next_put = {false, Status(Code::kConflict, "the reload was refused, so nothing changed: x")};
  const std::string before = rig.DemoFiles();
  config::SecretRotateAnswer a = rig.Rotate("demo", "new-secret\n", rig.now + kDay);
  CHECK(a.status.code() == Code::kConflict);
  CHECK(a.status.message() == "the reload was refused, so nothing changed: x");
  CHECK(rig.DemoFiles() == before);
  CHECK(rig.Actions().empty());

  rig.next_put = {};
  REQUIRE(rig.Rotate("demo", "new-secret\n", rig.now + kDay).status.ok());
  const std::string rotated = rig.DemoFiles();
  rig.next_put = {false, Status(Code::kConflict, "refused")};
  a = rig.Retire("demo");
  CHECK(a.status.code() == Code::kConflict);
  CHECK(rig.DemoFiles() == rotated);  // the previous secret and its end put back
  CHECK(Lines(rig.Actions()).size() == 1);
}

TEST_CASE("secret step: kept but not yet in force (no service answered) is done, with the reason", "[cli][rotation]") {
  Rig rig;
  rig.next_put = {true, Status(Code::kUnavailable, "connection refused")};
  config::SecretRotateAnswer a = rig.Rotate("demo", "new-secret\n", rig.now + kDay);
  REQUIRE(a.status.ok());
  CHECK(a.in_force.code() == Code::kUnavailable);
  CHECK(Read(rig.dir.File("demo.secret")) == "new-secret\n");
  CHECK(Lines(rig.Actions()).size() == 1);
}

TEST_CASE("secret step: retire removes the previous secret and records it; with none, nothing changes",
          "[cli][rotation]") {
  Rig rig;
  SECTION("no rotation: changed false, nothing written") {
    const std::string before = rig.DemoFiles();
    config::SecretRotateAnswer a = rig.Retire("demo");
    REQUIRE(a.status.ok());
    CHECK_FALSE(a.changed);
    CHECK(a.secret_file == rig.dir.File("demo.secret"));
    CHECK(rig.DemoFiles() == before);
    CHECK(rig.Actions().empty());
  }
  SECTION("within the window: the files beside F go, F stays") {
    REQUIRE(rig.Rotate("demo", "new-secret\n", rig.now + kDay).status.ok());
    config::SecretRotateAnswer a = rig.Retire("demo");
    REQUIRE(a.status.ok());
    CHECK(a.changed);
    CHECK(a.previous_until_ms == 0);
    CHECK(Read(rig.dir.File("demo.secret")) == "new-secret\n");
    CHECK_FALSE(Exists(rig.dir.File("demo.secret.previous")));
    CHECK_FALSE(Exists(rig.dir.File("demo.secret.rotation")));
    CHECK_THAT(rig.Actions(), Catch::EndsWith("demo|cli:bob|secret_retired|previous secret of " +
                                              rig.dir.File("demo.secret") + " retired;"));
    // And a rotation can start at once.
    CHECK(rig.Rotate("demo", "newer-secret\n", rig.now + kDay).status.ok());
  }
  SECTION("a malformed state is retired too") {
    rig.dir.Write("demo.secret.rotation", "garbage\n");
    config::SecretRotateAnswer a = rig.Retire("demo");
    REQUIRE(a.status.ok());
    CHECK(a.changed);
    CHECK_FALSE(Exists(rig.dir.File("demo.secret.rotation")));
  }
}
