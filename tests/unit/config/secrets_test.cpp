#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>

#include "config/load.h"
#include "config_test_util.h"
#include "support/temp_dir.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::config::test::Find;
using hookinbox::config::test::MarkedLine;
using hookinbox::testing::TempDir;

namespace {

const std::string kKey = "[endpoint.key]\nid_header = \"X-Event-Id\"\n";

// An endpoint named "demo" whose top-level keys are `keys`.
std::string Endpoint(const std::string& keys) { return "[[endpoint]]\nname = \"demo\"\n" + keys + kKey; }

std::vector<std::string> Bytes(const std::vector<hookinbox::Secret>& secrets) {
  std::vector<std::string> out;
  for (const auto& s : secrets) out.emplace_back(s.bytes());
  return out;
}

// True when no error or warning, as check-config would print it, contains `value`.
bool NothingMentions(const LoadResult& r, const std::string& value) {
  for (const auto* list : {&r.errors, &r.warnings}) {
    for (const auto& p : *list) {
      if (Describe(p, "test.toml").find(value) != std::string::npos) return false;
    }
  }
  return true;
}

std::string WriteSecret(const TempDir& dir, const std::string& name, const std::string& content, mode_t mode = 0600) {
  std::string path = dir.Write(name, content);
  ::chmod(path.c_str(), mode);
  return path;
}

}  // namespace

TEST_CASE("secrets: secret_env reads the variable", "[config]") {
  ::setenv("HOOKINBOX_CT_ENV_OK", "s3cret-env", 1);
  LoadResult r = LoadString(Endpoint("secret_env = \"HOOKINBOX_CT_ENV_OK\"\n"), "test.toml", "/tmp");
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(Bytes(r.config.endpoints[0].secrets) == std::vector<std::string>{"s3cret-env"});
}

TEST_CASE("secrets: a missing variable is named, and no secret value appears", "[config]") {
  ::unsetenv("HOOKINBOX_CT_MISSING_NEW");
  ::setenv("HOOKINBOX_CT_MISSING_OLD", "old-s3cret-value", 1);
  const std::string toml = Endpoint("secrets_env = [\"HOOKINBOX_CT_MISSING_NEW\", #<\n"
                                    "               \"HOOKINBOX_CT_MISSING_OLD\"]\n");
  LoadResult r = LoadString(toml, "test.toml", "/tmp");
  INFO(Dump(r.errors));
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "endpoint[0].secrets_env[0]");
  CHECK(r.errors[0].line == MarkedLine(toml));
  CHECK(r.errors[0].message == "environment variable HOOKINBOX_CT_MISSING_NEW is not set");
  CHECK(NothingMentions(r, "old-s3cret-value"));
}

TEST_CASE("secrets: an empty variable is an error", "[config]") {
  ::setenv("HOOKINBOX_CT_EMPTY_VAR", "", 1);
  LoadResult r = LoadString(Endpoint("secret_env = \"HOOKINBOX_CT_EMPTY_VAR\"\n"), "test.toml", "/tmp");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "endpoint[0].secret_env");
  CHECK(r.errors[0].line == 3);
  CHECK(r.errors[0].message == "environment variable HOOKINBOX_CT_EMPTY_VAR is empty");
}

TEST_CASE("secrets: a secret pasted in place of a variable name is not echoed", "[config]") {
  const std::string pasted = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/+x=";
  LoadResult r = LoadString(Endpoint("secret_env = \"" + pasted + "\"\n"), "test.toml", "/tmp");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key == "endpoint[0].secret_env");
  CHECK_THAT(r.errors[0].message, Catch::Contains("not an environment variable name"));
  CHECK(NothingMentions(r, pasted));
}

TEST_CASE("secrets: secret_file reads the file relative to the config, minus one trailing newline", "[config]") {
  TempDir dir;
  struct Case {
    const char* content;
    const char* secret;
  };
  for (const auto& c : std::vector<Case>{{"abc", "abc"},
                                         {"abc\n", "abc"},
                                         {"abc\r\n", "abc"},
                                         {"abc\n\n", "abc\n"},
                                         {" spaced key ", " spaced key "}}) {
    INFO(c.content);
    WriteSecret(dir, "keys/demo.key", c.content);
    LoadResult r = LoadString(Endpoint("secret_file = \"keys/demo.key\"\n"), "test.toml", dir.path());
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(r.warnings.empty());
    CHECK(Bytes(r.config.endpoints[0].secrets) == std::vector<std::string>{c.secret});
  }
}

TEST_CASE("secrets: an unreadable or empty secret file names its path", "[config]") {
  TempDir dir;
  SECTION("missing") {
    LoadResult r = LoadString(Endpoint("secret_file = \"nope.key\"\n"), "test.toml", dir.path());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == "endpoint[0].secret_file");
    CHECK(r.errors[0].line == 3);
    CHECK(r.errors[0].message == "cannot read secret file " + dir.File("nope.key") + ": No such file or directory");
  }
  SECTION("only a newline") {
    WriteSecret(dir, "empty.key", "\n");
    LoadResult r = LoadString(Endpoint("secret_file = \"empty.key\"\n"), "test.toml", dir.path());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].message == "secret file " + dir.File("empty.key") + " is empty");
  }
  SECTION("absolute path") {
    const std::string path = WriteSecret(dir, "abs.key", "k");
    LoadResult r = LoadString(Endpoint("secret_file = \"" + path + "\"\n"), "test.toml", "/nonexistent");
    REQUIRE(r.ok());
    CHECK(Bytes(r.config.endpoints[0].secrets) == std::vector<std::string>{"k"});
  }
}

TEST_CASE("secrets: a secret file readable by others is a warning", "[config]") {
  TempDir dir;
  WriteSecret(dir, "loose.key", "k\n", 0644);
  const std::string toml = Endpoint("secret_file = \"loose.key\" #<\n");
  LoadResult r = LoadString(toml, "test.toml", dir.path());
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].key == "endpoint[0].secret_file");
  CHECK(r.warnings[0].line == MarkedLine(toml));
  CHECK_THAT(r.warnings[0].message, Catch::Contains(dir.File("loose.key")) && Catch::Contains("0644") &&
                                        Catch::Contains("chmod 600"));
  CHECK(NothingMentions(r, "k\n"));
  CHECK(Bytes(r.config.endpoints[0].secrets) == std::vector<std::string>{"k"});
}

TEST_CASE("secrets: rotation keeps every source, in the documented order", "[config]") {
  TempDir dir;
  ::setenv("HOOKINBOX_CT_ROT_NEW", "new", 1);
  ::setenv("HOOKINBOX_CT_ROT_OLD", "old", 1);
  SECTION("secrets_env = [NEW, OLD] gives two secrets, newest first") {
    LoadResult r = LoadString(Endpoint("secrets_env = [\"HOOKINBOX_CT_ROT_NEW\", \"HOOKINBOX_CT_ROT_OLD\"]\n"),
                              "test.toml", dir.path());
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(Bytes(r.config.endpoints[0].secrets) == std::vector<std::string>{"new", "old"});
  }
  SECTION("secret_env, secret_file, secrets_env, secrets_file") {
    ::setenv("HOOKINBOX_CT_ROT_ONE", "env-one", 1);
    WriteSecret(dir, "one.key", "file-one\n");
    WriteSecret(dir, "a.key", "file-a");
    WriteSecret(dir, "b.key", "file-b");
    LoadResult r = LoadString(Endpoint("secrets_file = [\"a.key\", \"b.key\"]\n"
                                       "secrets_env = [\"HOOKINBOX_CT_ROT_NEW\", \"HOOKINBOX_CT_ROT_OLD\"]\n"
                                       "secret_file = \"one.key\"\n"
                                       "secret_env = \"HOOKINBOX_CT_ROT_ONE\"\n"),
                              "test.toml", dir.path());
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(Bytes(r.config.endpoints[0].secrets) ==
          std::vector<std::string>{"env-one", "file-one", "new", "old", "file-a", "file-b"});
  }
}

TEST_CASE("secrets: schemes that authenticate need at least one secret", "[config]") {
  SECTION("hmac without any source") {
    const std::string toml = "[[endpoint]] #<\nname = \"demo\"\n" + kKey;
    LoadResult r = LoadString(toml, "test.toml", "/tmp");
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == "endpoint[0]");
    CHECK(r.errors[0].line == 1);
    CHECK(r.errors[0].message == "no secret: set secret_env, secret_file, secrets_env or secrets_file");
  }
  SECTION("token and basic too; an empty list is no secret") {
    for (const char* scheme : {"token", "basic"}) {
      LoadResult r = LoadString("[[endpoint]]\nname = \"demo\"\nsecrets_env = []\n[endpoint.signature]\nscheme = \"" +
                                    std::string(scheme) + "\"\n" + kKey,
                                "test.toml", "/tmp");
      INFO(scheme << "\n" << Dump(r.errors));
      REQUIRE(r.errors.size() == 1);
      CHECK(r.errors[0].key == "endpoint[0]");
      CHECK_THAT(r.errors[0].message, Catch::StartsWith("no secret"));
    }
  }
  SECTION("a failing source is reported once, not also as 'no secret'") {
    ::unsetenv("HOOKINBOX_CT_NOSECRET_MISSING");
    LoadResult r = LoadString(Endpoint("secret_env = \"HOOKINBOX_CT_NOSECRET_MISSING\"\n"), "test.toml", "/tmp");
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == "endpoint[0].secret_env");
  }
  SECTION("scheme none needs none") {
    LoadResult r = LoadString("[[endpoint]]\nname = \"open\"\ninsecure = true\n[endpoint.signature]\n"
                              "scheme = \"none\"\n" + kKey,
                              "test.toml", "/tmp");
    INFO(Dump(r.errors));
    CHECK(r.ok());
  }
}

TEST_CASE("secrets: tenants carry their own secrets", "[config]") {
  TempDir dir;
  ::setenv("HOOKINBOX_CT_TENANT_A", "secret-a", 1);
  ::setenv("HOOKINBOX_CT_TENANT_B_NEW", "secret-b-new", 1);
  WriteSecret(dir, "b-old.key", "secret-b-old\n");
  const std::string tenants = "[[endpoint.tenants]]\nid = \"a\"\nsecret_env = \"HOOKINBOX_CT_TENANT_A\"\n"
                              "[[endpoint.tenants]]\nid = \"b\"\nsecrets_env = [\"HOOKINBOX_CT_TENANT_B_NEW\"]\n"
                              "secrets_file = [\"b-old.key\"]\n";
  SECTION("each tenant resolves its sources; the endpoint has none") {
    LoadResult r = LoadString("[[endpoint]]\nname = \"shops\"\n" + kKey + tenants, "test.toml", dir.path());
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    const EndpointConfig& e = r.config.endpoints[0];
    CHECK(e.secrets.empty());
    REQUIRE(e.tenants.size() == 2);
    CHECK(Bytes(e.tenants[0].secrets) == std::vector<std::string>{"secret-a"});
    CHECK(Bytes(e.tenants[1].secrets) == std::vector<std::string>{"secret-b-new", "secret-b-old"});
  }
  SECTION("an endpoint-level secret next to tenants is an error") {
    const std::string toml = "[[endpoint]]\nname = \"shops\"\nsecret_env = \"HOOKINBOX_CT_TENANT_A\" #<\n" + kKey +
                             tenants;
    LoadResult r = LoadString(toml, "test.toml", dir.path());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == "endpoint[0].secret_env");
    CHECK(r.errors[0].line == MarkedLine(toml));
    CHECK_THAT(r.errors[0].message, Catch::Contains("give each tenant its own secret"));
  }
  SECTION("a tenant without a secret is an error naming the tenant") {
    const std::string toml = "[[endpoint]]\nname = \"shops\"\n" + kKey + tenants + "[[endpoint.tenants]] #<\nid = \"c\"\n";
    LoadResult r = LoadString(toml, "test.toml", dir.path());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == "endpoint[0].tenants[2]");
    CHECK(r.errors[0].line == MarkedLine(toml));
    CHECK_THAT(r.errors[0].message, Catch::StartsWith("no secret"));
  }
  SECTION("a tenant's missing variable names the tenant's key") {
    ::unsetenv("HOOKINBOX_CT_TENANT_GONE");
    const std::string toml = "[[endpoint]]\nname = \"shops\"\n" + kKey +
                             "[[endpoint.tenants]]\nid = \"a\"\nsecret_env = \"HOOKINBOX_CT_TENANT_GONE\" #<\n";
    LoadResult r = LoadString(toml, "test.toml", dir.path());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == "endpoint[0].tenants[0].secret_env");
    CHECK(r.errors[0].line == MarkedLine(toml));
    CHECK(r.errors[0].message == "environment variable HOOKINBOX_CT_TENANT_GONE is not set");
  }
}

TEST_CASE("secrets: the admin token must resolve when configured", "[config]") {
  TempDir dir;
  const std::string endpoint = "[[endpoint]]\nname = \"open\"\ninsecure = true\n[endpoint.signature]\n"
                               "scheme = \"none\"\n" + kKey;
  SECTION("token_env set") {
    ::setenv("HOOKINBOX_CT_ADMIN_OK", "admin-s3cret-0123456789abcdef012345", 1);
    LoadResult r = LoadString("[admin]\ntoken_env = \"HOOKINBOX_CT_ADMIN_OK\"\n" + endpoint, "test.toml", dir.path());
    CHECK(r.ok());
    CHECK(r.config.admin.token_env == "HOOKINBOX_CT_ADMIN_OK");
  }
  SECTION("token_env missing") {
    ::unsetenv("HOOKINBOX_CT_ADMIN_MISSING");
    LoadResult r = LoadString("[admin]\ntoken_env = \"HOOKINBOX_CT_ADMIN_MISSING\"\n" + endpoint, "test.toml",
                              dir.path());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == "admin.token_env");
    CHECK(r.errors[0].line == 2);
    CHECK(r.errors[0].message == "environment variable HOOKINBOX_CT_ADMIN_MISSING is not set");
  }
  SECTION("token_file relative to the config, with the mode warning") {
    WriteSecret(dir, "admin.token", "tok-0123456789abcdef0123456789abcdef\n", 0640);
    LoadResult r = LoadString("[admin]\ntoken_file = \"admin.token\"\n" + endpoint, "test.toml", dir.path());
    INFO(Dump(r.errors));
    CHECK(r.ok());
    CHECK(r.config.admin.token_file == dir.File("admin.token"));
    CHECK(Find(r.warnings, "admin.token_file") != nullptr);
  }
  SECTION("both is ambiguous") {
    ::setenv("HOOKINBOX_CT_ADMIN_BOTH", "x-0123456789abcdef0123456789abcdef", 1);
    WriteSecret(dir, "admin.token", "tok-0123456789abcdef0123456789abcdef\n");
    LoadResult r = LoadString("[admin]\ntoken_env = \"HOOKINBOX_CT_ADMIN_BOTH\"\ntoken_file = \"admin.token\"\n" +
                                  endpoint,
                              "test.toml", dir.path());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == "admin.token_file");
    CHECK(r.errors[0].line == 3);
  }
}

TEST_CASE("secrets: secret_prefix and secret_encoding turn an HMAC secret into key bytes", "[config]") {
  const struct {
    const char* what;
    const char* value;
    std::string signature;  // lines of [endpoint.signature]
    std::string key_bytes;
  } cases[] = {
      {"utf8 by default keeps a whsec_ prefix (Stripe)", "whsec_abc", "", "whsec_abc"},
      {"utf8 with a prefix strips it", "whsec_abc", "secret_prefix = \"whsec_\"\n", "abc"},
      {"base64 after whsec_ (Standard Webhooks)", "whsec_aGVsbG8=",
       "secret_prefix = \"whsec_\"\nsecret_encoding = \"base64\"\n", "hello"},
      {"base64 without the prefix present", "aGVsbG8", "secret_prefix = \"whsec_\"\nsecret_encoding = \"base64\"\n",
       "hello"},
      {"URL-safe base64", "-_8", "secret_encoding = \"base64\"\n", "\xfb\xff"},
      {"hex, either case", "00ff7A", "secret_encoding = \"hex\"\n", std::string("\x00\xff\x7a", 3)},
      {"a token secret is never decoded", "aGVsbG8=",
       "scheme = \"token\"\nsecret_encoding = \"base64\"\n", "aGVsbG8="},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    ::setenv("HOOKINBOX_CT_KEY_BYTES", c.value, 1);
    LoadResult r = LoadString(Endpoint("secret_env = \"HOOKINBOX_CT_KEY_BYTES\"\n[endpoint.signature]\n" + c.signature),
                              "test.toml", "/tmp");
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(Bytes(r.config.endpoints[0].secrets) == std::vector<std::string>{c.key_bytes});
  }
}

TEST_CASE("secrets: a secret that does not decode is an error on its source, without the secret", "[config]") {
  TempDir dir;
  const std::string file = WriteSecret(dir, "hex.secret", "whsec_zz-n0t-h3x-s3cret\n");
  ::setenv("HOOKINBOX_CT_BAD_B64", "whsec_n0t*base64!s3cret", 1);
  ::setenv("HOOKINBOX_CT_PREFIX_ONLY", "whsec_", 1);
  const struct {
    const char* what;
    std::string toml;
    std::string key;
    std::string message;
    std::string secret;
  } cases[] = {
      {"bad base64 in a variable",
       Endpoint("secret_env = \"HOOKINBOX_CT_BAD_B64\" #<\n[endpoint.signature]\nsecret_prefix = \"whsec_\"\n"
                "secret_encoding = \"base64\"\n"),
       "endpoint[0].secret_env", "environment variable HOOKINBOX_CT_BAD_B64 does not hold valid base64",
       "n0t*base64!s3cret"},
      {"bad hex in a file",
       Endpoint("secrets_file = [\"" + file + "\"] #<\n[endpoint.signature]\nsecret_prefix = \"whsec_\"\n"
                "secret_encoding = \"hex\"\n"),
       "endpoint[0].secrets_file[0]", "does not hold valid hex", "zz-n0t-h3x-s3cret"},
      {"nothing left after the prefix",
       Endpoint("secret_env = \"HOOKINBOX_CT_PREFIX_ONLY\" #<\n[endpoint.signature]\nsecret_prefix = \"whsec_\"\n"),
       "endpoint[0].secret_env", "holds no key bytes", "whsec_\""},
      {"a tenant's secret",
       "[[endpoint]]\nname = \"demo\"\n[endpoint.signature]\nsecret_encoding = \"base64\"\n" + kKey +
           "[[endpoint.tenants]]\nid = \"a\"\nsecret_env = \"HOOKINBOX_CT_BAD_B64\" #<\n",
       "endpoint[0].tenants[0].secret_env", "does not hold valid base64", "n0t*base64!s3cret"},
  };
  for (const auto& c : cases) {
    INFO(c.what << "\n" << c.toml);
    LoadResult r = LoadString(c.toml, "test.toml", "/tmp");
    INFO(Dump(r.errors));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == c.key);
    CHECK(r.errors[0].line == MarkedLine(c.toml));
    CHECK_THAT(r.errors[0].message, Catch::Contains(c.message));
    CHECK(NothingMentions(r, c.secret));
  }
}

TEST_CASE("secrets: secret_origins lists every *_env variable and every secret or key file, resolved",
          "[config]") {
  for (const char* name : {"HOOKINBOX_CT_ADMIN", "HOOKINBOX_CT_NEW", "HOOKINBOX_CT_OLD", "HOOKINBOX_CT_TENANT"}) {
    ::setenv(name, "some-value-long-enough-for-an-admin-token", 1);  // 32 bytes at least
  }
  TempDir dir;
  for (const char* file : {"admin.token", "demo.secret", "old.secret", "tenant.secret"}) WriteSecret(dir, file, "v");
  LoadResult r = LoadString(R"([server]
tls_key = "tls/key.pem"
[admin]
token_env = "HOOKINBOX_CT_ADMIN"
tls_cert = "tls/admin.pem"
tls_key = "tls/admin.key"
[[endpoint]]
name = "demo"
secrets_env = ["HOOKINBOX_CT_NEW", "HOOKINBOX_CT_OLD"]
secrets_file = ["demo.secret", "old.secret"]
[endpoint.key]
id_header = "X-Event-Id"
[[endpoint]]
name = "tenanted"
[endpoint.key]
id_header = "X-Event-Id"
[[endpoint.tenants]]
id = "acme"
secret_file = "tenant.secret"
[[endpoint.tenants]]
id = "globex"
secret_env = "HOOKINBOX_CT_TENANT"
)",
                            "test.toml", dir.path());
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const SecretOrigins& o = r.config.secret_origins;
  CHECK(o.env_names ==
        std::vector<std::string>{"HOOKINBOX_CT_ADMIN", "HOOKINBOX_CT_NEW", "HOOKINBOX_CT_OLD", "HOOKINBOX_CT_TENANT"});
  // A secret_file's previous secret (config/rotation.h) is listed too, existing or not.
  CHECK(o.files == std::vector<std::string>{dir.File("tls/key.pem"), dir.File("tls/admin.key"), dir.File("demo.secret"),
                                            dir.File("old.secret"), dir.File("tenant.secret"),
                                            dir.File("tenant.secret.previous")});
}
