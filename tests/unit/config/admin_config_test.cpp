// [admin] token, tls_cert / tls_key and [[endpoint]] redact (the admin API).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "config_test_util.h"
#include "support/temp_dir.h"

using namespace hookinbox::config;
using namespace hookinbox::config::test;

TEST_CASE("admin config: the token is kept in the Config, from the environment or a file", "[config][admin]") {
  ::setenv("HOOKINBOX_CT_ADMIN_TOKEN", "tok-env", 1);
  LoadResult env = Load("[admin]\ntoken_env = \"HOOKINBOX_CT_ADMIN_TOKEN\"\n" + kEndpoint);
  INFO(Dump(env.errors));
  REQUIRE(env.ok());
  CHECK(env.config.admin.token.bytes() == "tok-env");

  hookinbox::testing::TempDir dir;
  std::string file = dir.Write("secrets/admin.token", "tok-file\n");
  ::chmod(file.c_str(), 0600);
  LoadResult from_file = Load("[admin]\ntoken_file = \"secrets/admin.token\"\n" + kEndpoint, dir.path());
  INFO(Dump(from_file.errors));
  REQUIRE(from_file.ok());
  CHECK(from_file.config.admin.token.bytes() == "tok-file");  // the newline an editor adds is not part of it

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
