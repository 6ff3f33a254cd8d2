#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "config/load.h"
#include "support/temp_dir.h"
#include "config_test_util.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::config::test::Find;
using hookinbox::config::test::kEndpoint;
using hookinbox::config::test::Load;
using hookinbox::config::test::MarkedLine;
using hookinbox::testing::TempDir;

namespace {

// SPEC §6's example, without [endpoint.action] and with the generic
// provider, plus a second endpoint with tenants that relies on defaults.
const char* kFullConfig = R"([server]
listen = "0.0.0.0:8443"
tls_cert = "tls/cert.pem"
tls_key = "/etc/ssl/private/hookinbox.pem"
plain_http = false
max_body_bytes = 2097152
threads = 32
keep_alive_max_requests = 500
keep_alive_timeout_seconds = 7
read_timeout_seconds = 11
write_timeout_seconds = 12
listen_backlog = 2048
header_timeout_seconds = 13
max_header_bytes = 131072
body_timeout_seconds = 14

[admin]
listen = "127.0.0.1:8081"
token_env = "HOOKINBOX_CT_FULL_ADMIN_TOKEN"

[storage]
backend = "sqlite"
path = "data/hookinbox.db"
busy_timeout_ms = 2500
max_batch = 128

[worker]
threads = 8
lease_seconds = 90
max_attempts = 5
backoff_initial_ms = 500
backoff_max_ms = 60000
shutdown_grace_seconds = 15

[[endpoint]]
name = "payments"
provider = "generic"
tenant = "acme"
secret_env = "HOOKINBOX_CT_FULL_SECRET"
secret_file = "secrets/payments.key"
event_types = ["invoice.paid", "invoice.failed"]
ignore_other_event_types = true
max_body_bytes = 65536
content_types = ["application/json", "application/x-www-form-urlencoded"]
volatile_fields = ["/attempt", "/meta/retry~1count"]

[endpoint.signature]
header = "X-Signature"
format = "t={timestamp},v1={signature}"
algorithm = "sha512"
encoding = "base64"
signed_payload = "{timestamp}.{body}"
timestamp_header = ""
tolerance_seconds = 120

[endpoint.key]
id_pointer = "/id"
event_type_pointer = "/type"

[[endpoint]]
name = "forms"

[endpoint.key]
fields = ["/form_id", "/submission/id"]
event_type_header = "X-Event-Type"

[[endpoint.tenants]]
id = "shop-1"
secret_env = "HOOKINBOX_CT_FULL_TENANT1"

[[endpoint.tenants]]
id = "shop-2"
secrets_file = ["secrets/shop-2.key"]
)";

std::string SecretOf(const std::vector<hookinbox::Secret>& secrets, size_t i) {
  REQUIRE(i < secrets.size());
  return std::string(secrets[i].bytes());
}

}  // namespace

TEST_CASE("config: a full valid file loads with every value in its field", "[config]") {
  TempDir dir;
  ::setenv("HOOKINBOX_CT_FULL_ADMIN_TOKEN", "admin-token-0123456789abcdef0123456", 1);
  ::setenv("HOOKINBOX_CT_FULL_SECRET", "env-secret", 1);
  ::setenv("HOOKINBOX_CT_FULL_TENANT1", "tenant-1-secret", 1);
  ::chmod(dir.Write("secrets/payments.key", "file-secret\n").c_str(), 0600);
  ::chmod(dir.Write("secrets/shop-2.key", "tenant-2-secret\r\n").c_str(), 0600);
  const std::string path = dir.Write("hookinbox.toml", kFullConfig);

  LoadResult r = LoadFile(path);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  CHECK(r.warnings.empty());
  const Config& c = r.config;
  CHECK(c.path == path);
  CHECK(c.base_dir == dir.path());

  SECTION("server") {
    CHECK(c.server.listen == "0.0.0.0:8443");
    CHECK(c.server.tls_cert == dir.path() + "/tls/cert.pem");
    CHECK(c.server.tls_key == "/etc/ssl/private/hookinbox.pem");
    CHECK_FALSE(c.server.plain_http);
    CHECK(c.server.max_body_bytes == 2097152);
    CHECK(c.server.threads == 32);
    CHECK(c.server.keep_alive_max_requests == 500);
    CHECK(c.server.keep_alive_timeout_seconds == 7);
    CHECK(c.server.read_timeout_seconds == 11);
    CHECK(c.server.write_timeout_seconds == 12);
    CHECK(c.server.listen_backlog == 2048);
    CHECK(c.server.header_timeout_seconds == 13);
    CHECK(c.server.max_header_bytes == 131072);
    CHECK(c.server.body_timeout_seconds == 14);
  }
  SECTION("admin, storage, worker") {
    CHECK(c.admin.listen == "127.0.0.1:8081");
    CHECK(c.admin.token_env == "HOOKINBOX_CT_FULL_ADMIN_TOKEN");
    CHECK(c.admin.token_file.empty());
    CHECK(c.storage.backend == "sqlite");
    CHECK(c.storage.path == dir.path() + "/data/hookinbox.db");
    CHECK(c.storage.busy_timeout_ms == 2500);
    CHECK(c.storage.max_batch == 128);
    CHECK(c.worker.threads == 8);
    CHECK(c.worker.lease_seconds == 90);
    CHECK(c.worker.max_attempts == 5);
    CHECK(c.worker.backoff_initial_ms == 500);
    CHECK(c.worker.backoff_max_ms == 60000);
    CHECK(c.worker.shutdown_grace_seconds == 15);
  }
  SECTION("an endpoint with every key set") {
    REQUIRE(c.endpoints.size() == 2);
    const EndpointConfig& e = c.endpoints[0];
    CHECK(e.name == "payments");
    CHECK(e.provider == "generic");
    CHECK(e.tenant == "acme");
    REQUIRE(e.secrets.size() == 2);
    CHECK(SecretOf(e.secrets, 0) == "env-secret");   // secret_env comes before secret_file
    CHECK(SecretOf(e.secrets, 1) == "file-secret");  // trailing newline stripped
    CHECK(e.event_types == std::vector<std::string>{"invoice.paid", "invoice.failed"});
    CHECK(e.ignore_other_event_types);
    CHECK(e.max_body_bytes == 65536);
    CHECK(c.MaxBodyBytes(e) == 65536);
    CHECK(e.content_types == std::vector<std::string>{"application/json", "application/x-www-form-urlencoded"});
    CHECK(e.volatile_fields == std::vector<std::string>{"/attempt", "/meta/retry~1count"});
    CHECK_FALSE(e.insecure);
    CHECK(e.tenants.empty());
    CHECK(e.signature.scheme == "hmac");
    CHECK(e.signature.header == "X-Signature");
    CHECK(e.signature.format == "t={timestamp},v1={signature}");
    CHECK(e.signature.algorithm == "sha512");
    CHECK(e.signature.encoding == "base64");
    CHECK(e.signature.signed_payload == "{timestamp}.{body}");
    CHECK(e.signature.timestamp_header.empty());
    CHECK(e.signature.tolerance_seconds == 120);
    CHECK(e.key.id_pointer == "/id");
    CHECK(e.key.id_header.empty());
    CHECK(e.key.fields.empty());
    CHECK_FALSE(e.key.canonical_hash);
    CHECK(e.key.event_type_pointer == "/type");
  }
  SECTION("an endpoint relying on defaults, with tenants") {
    REQUIRE(c.endpoints.size() == 2);
    const EndpointConfig& e = c.endpoints[1];
    CHECK(e.name == "forms");
    CHECK(e.provider == "generic");
    CHECK(e.tenant == "default");
    CHECK(e.secrets.empty());
    CHECK(e.max_body_bytes == 0);
    CHECK(c.MaxBodyBytes(e) == 2097152);
    CHECK(e.content_types == std::vector<std::string>{"application/json"});
    CHECK(e.event_types.empty());
    CHECK(e.volatile_fields.empty());
    CHECK(e.signature.scheme == "hmac");
    CHECK(e.signature.format == "{signature}");
    CHECK(e.signature.algorithm == "sha256");
    CHECK(e.signature.encoding == "hex");
    CHECK(e.signature.signed_payload == "{body}");
    CHECK(e.signature.tolerance_seconds == 300);
    CHECK(e.key.fields == std::vector<std::string>{"/form_id", "/submission/id"});
    CHECK(e.key.event_type_header == "X-Event-Type");
    REQUIRE(e.tenants.size() == 2);
    CHECK(e.tenants[0].id == "shop-1");
    CHECK(SecretOf(e.tenants[0].secrets, 0) == "tenant-1-secret");
    CHECK(e.tenants[1].id == "shop-2");
    CHECK(SecretOf(e.tenants[1].secrets, 0) == "tenant-2-secret");  // "\r\n" stripped
    CHECK(e.FindTenant("shop-2") == &e.tenants[1]);
    CHECK(c.FindEndpoint("forms") == &e);
  }
}

TEST_CASE("config: omitted sections keep their defaults", "[config]") {
  LoadResult r = Load(kEndpoint);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  const Config defaults;
  CHECK(r.config.server.listen == defaults.server.listen);
  CHECK(r.config.server.threads == 128);
  CHECK(r.config.server.max_body_bytes == 1048576);
  CHECK(r.config.server.listen_backlog == 1024);
  CHECK(r.config.admin.listen == "127.0.0.1:8081");
  CHECK(r.config.storage.busy_timeout_ms == 5000);
  CHECK(r.config.storage.max_batch == 256);
  CHECK_FALSE(r.config.worker.max_attempts.has_value());  // no limit: the horizon decides
  CHECK(r.config.worker.retry_for_ms == 3 * 86400000LL);
  CHECK(r.config.worker.backoff_max_ms == 3600000);
  CHECK(r.config.path.empty());
  CHECK(r.config.base_dir == "/etc/hookinbox");
}

TEST_CASE("config: relative paths resolve against the config file's directory", "[config]") {
  const std::string toml = "[server]\ntls_cert = \"certs/c.pem\"\ntls_key = \"/abs/k.pem\"\n"
                           "[storage]\npath = \"../db/x.db\"\n[admin]\ntoken_file = \"admin.token\"\n" + kEndpoint;
  SECTION("with LoadString's base_dir") {
    TempDir dir;
    ::chmod(dir.Write("admin.token", "t-0123456789abcdef0123456789abcdef\n").c_str(), 0600);
    LoadResult r = Load(toml, dir.path());
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(r.config.server.tls_cert == dir.path() + "/certs/c.pem");
    CHECK(r.config.server.tls_key == "/abs/k.pem");
    CHECK(r.config.storage.path == dir.path() + "/../db/x.db");
    CHECK(r.config.admin.token_file == dir.path() + "/admin.token");
  }
  SECTION("defaults are relative too") {
    LoadResult r = Load(kEndpoint, "/srv/hooks");
    REQUIRE(r.ok());
    CHECK(r.config.server.tls_cert == "/srv/hooks/tls/cert.pem");
    CHECK(r.config.server.tls_key == "/srv/hooks/tls/key.pem");
    CHECK(r.config.storage.path == "/srv/hooks/data/hookinbox.db");
  }
  SECTION("LoadFile makes a relative config path's directory absolute") {
    TempDir dir;
    dir.Write("sub/hookinbox.toml", kEndpoint);
    char* cwd = ::getcwd(nullptr, 0);
    REQUIRE(::chdir(dir.path().c_str()) == 0);
    ::setenv(hookinbox::config::test::kBaseSecretVar, "x", 1);
    LoadResult r = LoadFile("sub/hookinbox.toml");
    REQUIRE(::chdir(cwd) == 0);
    std::free(cwd);
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(r.config.path == "sub/hookinbox.toml");
    CHECK(r.config.base_dir == dir.path() + "/sub");
    CHECK(r.config.storage.path == dir.path() + "/sub/data/hookinbox.db");
  }
}

TEST_CASE("config: LoadFile on a missing or unreadable file is one problem naming the path", "[config]") {
  TempDir dir;
  SECTION("missing") {
    LoadResult r = LoadFile(dir.File("nope.toml"));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key.empty());
    CHECK(r.errors[0].line == 0);
    CHECK_THAT(r.errors[0].message, Catch::Contains(dir.File("nope.toml")) && Catch::Contains("No such file"));
  }
  SECTION("a directory") {
    LoadResult r = LoadFile(dir.path());
    REQUIRE(r.errors.size() == 1);
    CHECK_THAT(r.errors[0].message, Catch::Contains(dir.path()) && Catch::Contains("directory"));
  }
}

TEST_CASE("config: a syntax error reports its line", "[config]") {
  LoadResult r = Load("[server]\nlisten = \"0.0.0.0:8443\"\nthreads = = 4\n");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].key.empty());
  CHECK(r.errors[0].line == 3);
  CHECK_THAT(r.errors[0].message, Catch::StartsWith("TOML syntax error: "));
  CHECK_THAT(Describe(r.errors[0], "h.toml"), Catch::StartsWith("h.toml:3: TOML syntax error: "));
}

TEST_CASE("config: unknown key is an error naming key and line", "[config]") {
  struct Case {
    const char* what;
    std::string toml;
    std::string key;
    std::string message;
  };
  const std::string head = "[[endpoint]]\nname = \"demo\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n";
  const std::string key = "[endpoint.key]\nid_header = \"X-Event-Id\"\n";
  const std::vector<Case> cases = {
      {"top level", "colour = \"red\" #<\n" + kEndpoint, "colour", "unknown key"},
      {"unknown table", kEndpoint + "[metrics] #<\nport = 9100\n", "metrics", "unknown key"},
      {"typo in [server] gets a suggestion", "[server]\nlistn = \"0.0.0.0:1\" #<\n" + kEndpoint, "server.listn",
       "unknown key; did you mean \"listen\"?"},
      {"inside [[endpoint]]", head + "retries = 3 #<\n" + key, "endpoint[0].retries", "unknown key"},
      {"inside [endpoint.action]", kEndpoint + "[endpoint.action]\ntype = \"exec\"\ncommand = [\"/bin/true\"]\nretries = 3 #<\n",
       "endpoint[0].action.retries", "unknown key"},
      {"in the second endpoint's tenant",
       kEndpoint + "[[endpoint]]\nname = \"b\"\n" + key +
           "[[endpoint.tenants]]\nid = \"t\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\nsecrt_file = \"x\" #<\n",
       "endpoint[1].tenants[0].secrt_file", "unknown key; did you mean \"secret_file\"?"},
      {"a quoted dotted key is not a path", "\"server.listen\" = \"0.0.0.0:1\" #<\n" + kEndpoint, "server.listen",
       "unknown key"},
      {"in [endpoint.signature]", head + "[endpoint.signature]\nsecret = \"x\" #<\n" + key,
       "endpoint[0].signature.secret", "unknown key"},
  };
  for (const auto& c : cases) {
    INFO(c.what << "\n" << c.toml);
    LoadResult r = Load(c.toml);
    INFO(Dump(r.errors));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == c.key);
    CHECK(r.errors[0].line == MarkedLine(c.toml));
    CHECK(r.errors[0].message == c.message);
  }
}

TEST_CASE("config: a value of the wrong type names the expected type", "[config]") {
  struct Case {
    std::string toml;
    std::string key;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"[server]\nlisten = 8443 #<\n" + kEndpoint, "server.listen", "must be a string, not an integer"},
      {"[server]\nplain_http = \"yes\" #<\n" + kEndpoint, "server.plain_http", "must be true or false, not a string"},
      {"[server]\nthreads = 4.5 #<\n" + kEndpoint, "server.threads", "must be an integer, not a float"},
      {"server = \"x\" #<\n" + kEndpoint, "server", "must be a table, written [server], not a string"},
      {"[endpoint] #<\nname = \"x\"\n", "endpoint", "must be an array of tables, written [[endpoint]], not a table"},
      {kEndpoint + "[endpoint.signature]\nheader = [\"X\"] #<\n", "endpoint[0].signature.header",
       "must be a string, not an array"},
      {"[[endpoint]]\nname = \"demo\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\nevent_types = \"a\" #<\n"
       "[endpoint.key]\nid_header = \"X\"\nevent_type_header = \"T\"\n",
       "endpoint[0].event_types", "must be an array of strings, not a string"},
      {"[[endpoint]]\nname = \"demo\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
       "event_types = [\"a\",\n  1] #<\n[endpoint.key]\nid_header = \"X\"\nevent_type_header = \"T\"\n",
       "endpoint[0].event_types[1]", "must be a string, not an integer"},
  };
  for (const auto& c : cases) {
    INFO(c.toml);
    LoadResult r = Load(c.toml);
    // A missing [[endpoint]] is reported too when the endpoint itself was the bad value.
    const Problem* p = Find(r.errors, c.key);
    INFO(Dump(r.errors));
    REQUIRE(p != nullptr);
    CHECK(p->line == MarkedLine(c.toml));
    CHECK(p->message == c.message);
  }
}

TEST_CASE("config: every problem in a file is reported, in line order", "[config]") {
  const std::string toml =
      "[server]\n"
      "threads = 1\n"                    // 2: out of range
      "bogus = true\n"                   // 3: unknown
      "[storage]\n"
      "backend = \"mysql\"\n"            // 5: not supported
      "[[endpoint]]\n"
      "name = \"bad name\"\n"            // 7: pattern
      "secret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n"
      "[endpoint.signature]\n"
      "algorithm = \"sha384\"\n"         // 10: enum
      "[endpoint.key]\n"
      "id_pointer = \"id\"\n";           // 12: not a pointer
  LoadResult r = Load(toml);
  INFO(Dump(r.errors));
  REQUIRE(r.errors.size() == 6);
  std::vector<std::pair<int, std::string>> got;
  for (const auto& p : r.errors) got.emplace_back(p.line, p.key);
  CHECK(got == std::vector<std::pair<int, std::string>>{{2, "server.threads"},
                                                          {3, "server.bogus"},
                                                          {5, "storage.backend"},
                                                          {7, "endpoint[0].name"},
                                                          {10, "endpoint[0].signature.algorithm"},
                                                          {12, "endpoint[0].key.id_pointer"}});
  CHECK(Find(r.errors, "storage.backend")->message == "must be one of sqlite, postgres (got \"mysql\")");
  CHECK(Find(r.errors, "endpoint[0].signature.algorithm")->message ==
        "must be one of sha1, sha256, sha512, md5, sha1-digest, sha256-digest, sha512-digest, md5-digest (got \"sha384\")");
}

TEST_CASE("config: Describe formats source, line, key and message", "[config]") {
  CHECK(Describe({"endpoint[0].signature.algorithm", 12, "must be one of sha1, sha256, sha512"}, "hookinbox.toml") ==
        "hookinbox.toml:12: endpoint[0].signature.algorithm: must be one of sha1, sha256, sha512");
  CHECK(Describe({"endpoint", 0, "no [[endpoint]]"}, "h.toml") == "h.toml: endpoint: no [[endpoint]]");
  CHECK(Describe({"", 3, "TOML syntax error: x"}, "h.toml") == "h.toml:3: TOML syntax error: x");
  CHECK(Describe({"", 0, "cannot read config file h.toml"}, "h.toml") == "h.toml: cannot read config file h.toml");
}
