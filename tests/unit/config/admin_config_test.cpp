// [admin] token, tls_cert / tls_key and [[endpoint]] redact (the admin API).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "config_test_util.h"
#include "support/temp_dir.h"

using namespace hookinbox::config;
using namespace hookinbox::config::test;

TEST_CASE("admin config: the token is kept in the Config, from the environment or a file", "[config][admin]") {
  ::setenv("HOOKINBOX_CT_ADMIN_TOKEN", "tok-env-0123456789abcdef0123456789ab", 1);
  LoadResult env = Load("[admin]\ntoken_env = \"HOOKINBOX_CT_ADMIN_TOKEN\"\n" + kEndpoint);
  INFO(Dump(env.errors));
  REQUIRE(env.ok());
  CHECK(env.config.admin.token.bytes() == "tok-env-0123456789abcdef0123456789ab");

  hookinbox::testing::TempDir dir;
  std::string file = dir.Write("secrets/admin.token", "tok-file-0123456789abcdef0123456789a\n");
  ::chmod(file.c_str(), 0600);
  LoadResult from_file = Load("[admin]\ntoken_file = \"secrets/admin.token\"\n" + kEndpoint, dir.path());
  INFO(Dump(from_file.errors));
  REQUIRE(from_file.ok());
  // The newline an editor adds is not part of it.
  CHECK(from_file.config.admin.token.bytes() == "tok-file-0123456789abcdef0123456789a");

  LoadResult none = Load(kEndpoint);
  REQUIRE(none.ok());
  CHECK(none.config.admin.token.empty());
}

TEST_CASE("admin config: tls_cert and tls_key are both or neither, relative to the config file", "[config][admin]") {
  LoadResult both = Load("[admin]\ntls_cert = \"tls/a.pem\"\ntls_key = \"tls/a.key\"\n" + kEndpoint);
  INFO(Dump(both.errors));
  REQUIRE(both.ok());
  CHECK(both.config.admin.tls_cert == "/etc/hookinbox/tls/a.pem");
  CHECK(both.config.admin.tls_key == "/etc/hookinbox/tls/a.key");
  LoadResult half = Load("[admin]\ntls_cert = \"tls/a.pem\"\n" + kEndpoint);
  CHECK_FALSE(half.ok());
  CHECK(Find(half.errors, "admin.tls_key") != nullptr);
  LoadResult neither = Load(kEndpoint);
  REQUIRE(neither.ok());
  CHECK(neither.config.admin.tls_cert.empty());
}

TEST_CASE("admin config: redact takes JSON Pointers (with '*'), and refuses anything else", "[config][admin]") {
  LoadResult ok = Load(kEndpoint.substr(0, kEndpoint.find("[endpoint.key]")) +
                       "redact = [\"/customer/email\", \"/items/*/card\"]\n[endpoint.key]\nid_header = \"X-Event-Id\"\n");
  INFO(Dump(ok.errors));
  REQUIRE(ok.ok());
  CHECK(ok.config.endpoints[0].redact == std::vector<std::string>{"/customer/email", "/items/*/card"});
  for (const char* bad : {"\"customer.email\"", "\"\"", "\"/a/~2\""}) {
    LoadResult r = Load(kEndpoint.substr(0, kEndpoint.find("[endpoint.key]")) + "redact = [" + bad +
                        "]\n[endpoint.key]\nid_header = \"X-Event-Id\"\n");
    INFO(bad << "\n" << Dump(r.errors));
    CHECK_FALSE(r.ok());
    CHECK(Find(r.errors, "endpoint[0].redact[0]") != nullptr);
  }
}

TEST_CASE("admin config: admin and metrics tokens under 32 bytes are refused, naming the key but never the token",
          "[config][admin]") {
  ::setenv("HOOKINBOX_CT_SHORT_ADMIN", "short-admin-token-31-bytes-long", 1);  // 31 bytes
  LoadResult env = Load("[admin]\ntoken_env = \"HOOKINBOX_CT_SHORT_ADMIN\"\n" + kEndpoint);
  REQUIRE(Find(env.errors, "admin.token_env") != nullptr);
  CHECK_THAT(Find(env.errors, "admin.token_env")->message, Catch::Contains("31 bytes; use at least 32"));
  CHECK(Dump(env.errors).find("short-admin-token") == std::string::npos);
  CHECK(env.config.admin.token.empty());

  hookinbox::testing::TempDir dir;
  std::string file = dir.Write("secrets/admin.token", "0123456789\n");
  ::chmod(file.c_str(), 0600);
  LoadResult from_file = Load("[admin]\ntoken_file = \"secrets/admin.token\"\n" + kEndpoint, dir.path());
  REQUIRE(Find(from_file.errors, "admin.token_file") != nullptr);
  CHECK_THAT(Find(from_file.errors, "admin.token_file")->message, Catch::Contains("10 bytes"));

  ::setenv("HOOKINBOX_CT_SHORT_METRICS", "prom", 1);
  LoadResult metrics = Load("[admin]\nmetrics_token_env = \"HOOKINBOX_CT_SHORT_METRICS\"\n" + kEndpoint);
  REQUIRE(Find(metrics.errors, "admin.metrics_token_env") != nullptr);
  CHECK_THAT(Find(metrics.errors, "admin.metrics_token_env")->message, Catch::Contains("4 bytes"));

  ::setenv("HOOKINBOX_CT_EXACT_ADMIN", std::string(32, 'k').c_str(), 1);
  CHECK(Load("[admin]\ntoken_env = \"HOOKINBOX_CT_EXACT_ADMIN\"\n" + kEndpoint).ok());
}

TEST_CASE("admin config: plain HTTP on a non-loopback admin.listen needs TLS or admin.allow_plain_http",
          "[config][admin]") {
  for (const char* listen : {"0.0.0.0:8081", "[::]:8081", "192.0.2.10:8081", "admin.example.com:8081"}) {
    INFO(listen);
    LoadResult r = Load("[admin]\nlisten = \"" + std::string(listen) + "\"\n" + kEndpoint);
    REQUIRE(Find(r.errors, "admin.listen") != nullptr);
    CHECK_THAT(Find(r.errors, "admin.listen")->message, Catch::Contains("admin.allow_plain_http = true"));
    CHECK(r.errors.size() == 1);
    LoadResult opted = Load("[admin]\nlisten = \"" + std::string(listen) + "\"\nallow_plain_http = true\n" + kEndpoint);
    INFO(Dump(opted.errors));
    CHECK(opted.ok());
    CHECK(opted.config.admin.allow_plain_http);
    LoadResult tls = Load("[admin]\nlisten = \"" + std::string(listen) +
                          "\"\ntls_cert = \"tls/a.pem\"\ntls_key = \"tls/a.key\"\n" + kEndpoint);
    INFO(Dump(tls.errors));
    CHECK(tls.ok());
  }
  for (const char* listen : {"127.0.0.1:8081", "127.10.0.1:0", "[::1]:8081", "localhost:8081", "LOCALHOST:8081"}) {
    INFO(listen);
    LoadResult r = Load("[admin]\nlisten = \"" + std::string(listen) + "\"\n" + kEndpoint);
    INFO(Dump(r.errors));
    CHECK(r.ok());
  }
}

TEST_CASE("admin config: allowed_hosts takes host names, and refuses URLs and ports", "[config][admin]") {
  LoadResult ok = Load("[admin]\nallowed_hosts = [\"admin.example.com\", \"hookinbox\", \"192.0.2.1\"]\n" + kEndpoint);
  INFO(Dump(ok.errors));
  REQUIRE(ok.ok());
  CHECK(ok.config.admin.allowed_hosts.size() == 3);
  for (const char* bad : {"https://admin.example.com", "admin.example.com:8081", "", "exa mple.com"}) {
    INFO(bad);
    LoadResult r = Load("[admin]\nallowed_hosts = [\"admin.example.com\", \"" + std::string(bad) + "\"]\n" + kEndpoint);
    REQUIRE(Find(r.errors, "admin.allowed_hosts[1]") != nullptr);
    CHECK_THAT(Find(r.errors, "admin.allowed_hosts[1]")->message, Catch::Contains("no scheme, no port"));
  }
}
