#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "config/load.h"
#include "config_test_util.h"
#include "support/temp_dir.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;
using hookinbox::config::test::Find;
using hookinbox::config::test::kEndpoint;
using hookinbox::config::test::Load;
using hookinbox::config::test::MarkedLine;
using hookinbox::testing::TempDir;

namespace {

// The start of a valid endpoint, so a case can add keys to it, and its key table.
const std::string kHead = "[[endpoint]]\nname = \"demo\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n";
const std::string kKey = "[endpoint.key]\nid_header = \"X-Event-Id\"\n";

struct Case {
  const char* what;
  std::string toml;     // the offending line carries "#<" (none: line 0 expected)
  std::string key;      // the key path the one error must name
  std::string message;  // a fragment the message must contain
};

// Each case must produce exactly one error, with this key, on the marked line.
void CheckCases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    INFO(c.what << "\n--- toml ---\n" << c.toml);
    LoadResult r = Load(c.toml);
    INFO("--- errors ---\n" << Dump(r.errors));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].key == c.key);
    CHECK(r.errors[0].line == MarkedLine(c.toml));
    CHECK_THAT(r.errors[0].message, Catch::Contains(c.message));
  }
}

void CheckValid(const std::vector<std::string>& tomls) {
  for (const auto& toml : tomls) {
    INFO(toml);
    LoadResult r = Load(toml);
    INFO(Dump(r.errors));
    CHECK(r.ok());
  }
}

}  // namespace

TEST_CASE("config: listen addresses must be host:port", "[config]") {
  CheckCases({
      {"no port", "[server]\nlisten = \"0.0.0.0\" #<\n" + kEndpoint, "server.listen", "must be host:port"},
      {"port too big", "[server]\nlisten = \"0.0.0.0:70000\" #<\n" + kEndpoint, "server.listen",
       "port must be a number from 0 to 65535 (got \"70000\")"},
      {"port not a number", "[server]\nlisten = \"0.0.0.0:https\" #<\n" + kEndpoint, "server.listen",
       "port must be a number"},
      {"no host", "[server]\nlisten = \":8443\" #<\n" + kEndpoint, "server.listen", "must be host:port"},
      {"bad IPv4", "[server]\nlisten = \"300.1.1.1:80\" #<\n" + kEndpoint, "server.listen", "not an IPv4 address"},
      {"bad host name", "[server]\nlisten = \"my_host:80\" #<\n" + kEndpoint, "server.listen",
       "not a valid host name"},
      {"IPv6 without brackets", "[admin]\nlisten = \"::1:8081\" #<\n" + kEndpoint, "admin.listen", "brackets"},
      {"bad IPv6", "[admin]\nlisten = \"[::g]:8081\" #<\n" + kEndpoint, "admin.listen", "not an IPv6 address"},
      {"admin on the public address", "[admin]\nlisten = \"0.0.0.0:8443\" #<\n" + kEndpoint, "admin.listen",
       "must differ from server.listen"},
  });
  CheckValid({
      "[server]\nlisten = \"[::]:8443\"\n[admin]\nlisten = \"[::1]:0\"\n" + kEndpoint,
      "[server]\nlisten = \"localhost:0\"\n[admin]\nlisten = \"localhost:0\"\n" + kEndpoint,
      "[server]\nlisten = \"hooks.example.com:443\"\n" + kEndpoint,
  });
}

TEST_CASE("config: TLS files are required unless plain_http", "[config]") {
  CheckCases({
      {"empty cert", "[server]\ntls_cert = \"\" #<\n" + kEndpoint, "server.tls_cert",
       "required unless plain_http = true"},
      {"empty key", "[server]\ntls_key = \"\" #<\n" + kEndpoint, "server.tls_key", "required unless plain_http = true"},
  });
  CheckValid({"[server]\nplain_http = true\ntls_cert = \"\"\ntls_key = \"\"\n" + kEndpoint});
}

TEST_CASE("config: numbers outside their bounds name the allowed range", "[config]") {
  CheckCases({
      {"server body limit 0", "[server]\nmax_body_bytes = 0 #<\n" + kEndpoint, "server.max_body_bytes",
       "must be between 1 and 1073741824 (got 0)"},
      {"server threads", "[server]\nthreads = 2 #<\n" + kEndpoint, "server.threads", "between 4 and 1024 (got 2)"},
      {"backlog", "[server]\nlisten_backlog = 8 #<\n" + kEndpoint, "server.listen_backlog", "between 16 and 65535"},
      {"read timeout", "[server]\nread_timeout_seconds = 0 #<\n" + kEndpoint, "server.read_timeout_seconds",
       "between 1 and 3600"},
      {"write timeout", "[server]\nwrite_timeout_seconds = 3601 #<\n" + kEndpoint, "server.write_timeout_seconds",
       "between 1 and 3600"},
      {"keep-alive timeout", "[server]\nkeep_alive_timeout_seconds = 0 #<\n" + kEndpoint,
       "server.keep_alive_timeout_seconds", "between 1 and 3600"},
      {"keep-alive requests", "[server]\nkeep_alive_max_requests = 0 #<\n" + kEndpoint,
       "server.keep_alive_max_requests", "between 1 and 1000000"},
      {"header timeout", "[server]\nheader_timeout_seconds = 0 #<\n" + kEndpoint, "server.header_timeout_seconds",
       "between 1 and 3600"},
      {"header budget under one TLS record's worth", "[server]\nmax_header_bytes = 16384 #<\n" + kEndpoint,
       "server.max_header_bytes", "between 32768 and 16777216 (got 16384)"},
      {"body timeout", "[server]\nbody_timeout_seconds = 0 #<\n" + kEndpoint, "server.body_timeout_seconds",
       "between 1 and 86400"},
      {"busy timeout", "[storage]\nbusy_timeout_ms = -1 #<\n" + kEndpoint, "storage.busy_timeout_ms",
       "between 0 and 600000"},
      {"max batch", "[storage]\nmax_batch = 0 #<\n" + kEndpoint, "storage.max_batch", "between 1 and 10000"},
      {"lease", "[worker]\nlease_seconds = 0 #<\n" + kEndpoint, "worker.lease_seconds", "between 1 and"},
      {"grace", "[worker]\nshutdown_grace_seconds = -1 #<\n" + kEndpoint, "worker.shutdown_grace_seconds",
       "between 0 and"},
      {"backoff", "[worker]\nbackoff_initial_ms = 5 #<\n" + kEndpoint, "worker.backoff_initial_ms", "between 10 and"},
      {"attempts", "[worker]\nmax_attempts = 0 #<\n" + kEndpoint, "worker.max_attempts", "between 1 and"},
      {"endpoint body limit", kHead + "max_body_bytes = 2147483648 #<\n" + kKey, "endpoint[0].max_body_bytes",
       "between 0 and 1073741824"},
      {"tolerance 0", kHead + "[endpoint.signature]\ntolerance_seconds = 0 #<\n" + kKey,
       "endpoint[0].signature.tolerance_seconds", "between 1 and 86400"},
      {"tolerance a day and a second", kHead + "[endpoint.signature]\ntolerance_seconds = 86401 #<\n" + kKey,
       "endpoint[0].signature.tolerance_seconds", "between 1 and 86400"},
  });
  // SPEC §9: check-config accepts the small values tests use.
  CheckValid({"[worker]\nlease_seconds = 1\nshutdown_grace_seconds = 0\nbackoff_initial_ms = 10\n"
              "backoff_max_ms = 10\nmax_attempts = 1\n" + kEndpoint});
}

TEST_CASE("config: worker backoff_max_ms must not be below backoff_initial_ms", "[config]") {
  CheckCases({{"max below initial", "[worker]\nbackoff_initial_ms = 5000\nbackoff_max_ms = 1000 #<\n" + kEndpoint,
               "worker.backoff_max_ms", "must be at least backoff_initial_ms (5000)"}});
}

TEST_CASE("config: unsupported storage backend and provider say what is supported", "[config]") {
  CheckCases({
      {"an unknown backend", "[storage]\nbackend = \"mysql\" #<\n" + kEndpoint, "storage.backend",
       "must be one of sqlite, postgres (got \"mysql\")"},
      {"a preset that does not exist yet", kHead + "provider = \"stripe\" #<\n" + kKey, "endpoint[0].provider",
       "unknown provider \"stripe\"; supported: generic"},
      {"empty storage path", "[storage]\npath = \"\" #<\n" + kEndpoint, "storage.path", "required"},
  });
}

TEST_CASE("config: endpoints need a unique, well-formed name", "[config]") {
  CheckCases({
      {"no endpoint at all", "[server]\nlisten = \"127.0.0.1:8443\"\n", "endpoint", "no [[endpoint]]"},
      {"name missing", "[[endpoint]] #<\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n" + kKey, "endpoint[0].name",
       "required"},
      {"name with a space", "[[endpoint]]\nname = \"pay ments\" #<\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n" + kKey,
       "endpoint[0].name", "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"},
      {"name starting with a dot", "[[endpoint]]\nname = \".hidden\" #<\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n" + kKey,
       "endpoint[0].name", "starting with a letter or digit"},
      {"name of 65 characters",
       "[[endpoint]]\nname = \"" + std::string(65, 'a') + "\" #<\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n" + kKey,
       "endpoint[0].name", "1-64"},
      {"duplicate name", kEndpoint + "[[endpoint]]\nname = \"demo\" #<\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n" + kKey,
       "endpoint[1].name", "duplicate endpoint name \"demo\""},
      {"bad tenant", kHead + "tenant = \"a/b\" #<\n" + kKey, "endpoint[0].tenant", "must be 1-64 letters"},
  });
  CheckValid({"[[endpoint]]\nname = \"" + std::string(64, 'a') + "\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n" + kKey,
              "[[endpoint]]\nname = \"0pay_v2.x-y\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n" + kKey});
}

TEST_CASE("config: tenant ids are required, well-formed and unique per endpoint", "[config]") {
  const std::string head = "[[endpoint]]\nname = \"demo\"\n" + kKey;
  const std::string secret = "secret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n";
  CheckCases({
      {"missing id", head + "[[endpoint.tenants]] #<\n" + secret, "endpoint[0].tenants[0].id", "required"},
      {"bad id", head + "[[endpoint.tenants]]\nid = \"a b\" #<\n" + secret, "endpoint[0].tenants[0].id",
       "must be 1-64 letters"},
      {"duplicate id",
       head + "[[endpoint.tenants]]\nid = \"a\"\n" + secret + "[[endpoint.tenants]]\nid = \"a\" #<\n" + secret,
       "endpoint[0].tenants[1].id", "duplicate tenant id \"a\""},
  });
  // The same tenant id in two endpoints is fine.
  CheckValid({head + "[[endpoint.tenants]]\nid = \"a\"\n" + secret + "[[endpoint]]\nname = \"other\"\n" + kKey +
              "[[endpoint.tenants]]\nid = \"a\"\n" + secret});
}

TEST_CASE("config: signature scheme, algorithm and encoding are checked", "[config]") {
  const std::string sig = kHead + "[endpoint.signature]\n";
  CheckCases({
      {"unknown scheme", sig + "scheme = \"rsa\" #<\n" + kKey, "endpoint[0].signature.scheme",
       "must be one of hmac, token, basic, none, ed25519, ecdsa-p256-sha256, rsa-sha256-cert, rsa-sha256, adyen-hmac (got \"rsa\")"},
      {"none without insecure", sig + "scheme = \"none\" #<\n" + kKey, "endpoint[0].signature.scheme",
       "set insecure = true"},
      {"sha384", sig + "algorithm = \"sha384\" #<\n" + kKey, "endpoint[0].signature.algorithm",
       "must be one of sha1, sha256, sha512, md5, sha1-digest, sha256-digest, sha512-digest, md5-digest (got \"sha384\")"},
      {"base32", sig + "encoding = \"base32\" #<\n" + kKey, "endpoint[0].signature.encoding",
       "must be one of hex, base64, base64url (got \"base32\")"},
      {"hmac without header", sig + "header = \"\" #<\n" + kKey, "endpoint[0].signature.header",
       "required for scheme \"hmac\""},
  });
  CheckValid({sig + "scheme = \"token\"\nheader = \"X-Token\"\n" + kKey, sig + "scheme = \"basic\"\n" + kKey,
              sig + "algorithm = \"sha1\"\nencoding = \"base64\"\n" + kKey});
}

TEST_CASE("config: signature format and signed_payload placeholders are checked", "[config]") {
  const std::string sig = kHead + "[endpoint.signature]\n";
  CheckCases({
      {"format without {signature}", sig + "format = \"sha256=\" #<\n" + kKey, "endpoint[0].signature.format",
       "must contain {signature} exactly once (found 0)"},
      {"format with {signature} twice", sig + "format = \"{signature},{signature}\" #<\n" + kKey,
       "endpoint[0].signature.format", "exactly once (found 2)"},
      {"format with an unknown placeholder", sig + "format = \"n={nonce},s={signature}\" #<\n" + kKey,
       "endpoint[0].signature.format", "unknown placeholder {nonce}"},
      {"payload without {body}", sig + "timestamp_header = \"X-T\"\nsigned_payload = \"{timestamp}\" #<\n" + kKey,
       "endpoint[0].signature.signed_payload", "must contain {body}"},
      {"payload with an unknown placeholder", sig + "signed_payload = \"{nonce}.{body}\" #<\n" + kKey,
       "endpoint[0].signature.signed_payload", "unknown placeholder {nonce}"},
      {"{timestamp} with no timestamp source", sig + "signed_payload = \"{timestamp}.{body}\" #<\n" + kKey,
       "endpoint[0].signature.signed_payload", "set timestamp_header or put {timestamp} in format"},
      {"a timestamp header that is not signed",
       sig + "timestamp_header = \"X-T\"\nsigned_payload = \"{body}\" #<\n" + kKey,
       "endpoint[0].signature.signed_payload", "a timestamp is configured but not signed"},
      {"a format timestamp that is not signed",
       sig + "format = \"t={timestamp},v1={signature}\"\nsigned_payload = \"{body}\" #<\n" + kKey,
       "endpoint[0].signature.signed_payload", "add {timestamp} to signed_payload"},
      {"{id} without key.id_header",
       sig + "signed_payload = \"{id}.{body}\" #<\n[endpoint.key]\nid_pointer = \"/id\"\n",
       "endpoint[0].signature.signed_payload", "endpoint[0].key.id_header is not set"},
  });
  CheckValid({
      sig + "timestamp_header = \"X-Timestamp\"\nsigned_payload = \"{timestamp}.{body}\"\n" + kKey,
      sig + "format = \"t={timestamp},v1={signature}\"\nsigned_payload = \"{timestamp}.{body}\"\n" + kKey,
      sig + "timestamp_header = \"X-T\"\nsigned_payload = \"{id}.{timestamp}.{body}\"\n" + kKey,
      sig + "format = \"sha256={signature}\"\n" + kKey,
  });
}

TEST_CASE("config: the key table names exactly one event id source", "[config]") {
  CheckCases({
      {"no [endpoint.key]", "[[endpoint]] #<\nname = \"demo\"\nsecret_env = \"HOOKINBOX_CT_BASE_SECRET\"\n",
       "endpoint[0].key",
       "name where the event id comes from: id_header, id_pointer, fields or canonical_hash = true"},
      {"an empty [endpoint.key]", kHead + "[endpoint.key] #<\ncanonical_hash = false\n", "endpoint[0].key",
       "name where the event id comes from"},
      {"two sources", kHead + "[endpoint.key]\nid_header = \"X-Id\"\nfields = [\"/a\"] #<\n",
       "endpoint[0].key.fields", "set only one event id source (found id_header, fields)"},
      {"two event type sources",
       kHead + kKey + "event_type_pointer = \"/type\"\nevent_type_header = \"X-Type\" #<\n",
       "endpoint[0].key.event_type_header", "set only one of event_type_pointer and event_type_header"},
  });
  CheckValid({kHead + "[endpoint.key]\nid_pointer = \"/id\"\n", kHead + "[endpoint.key]\nfields = [\"/a\", \"/b\"]\n",
              kHead + "[endpoint.key]\ncanonical_hash = true\n"});
}

TEST_CASE("config: JSON Pointers must follow RFC 6901", "[config]") {
  CheckCases({
      {"id_pointer without a slash", kHead + "[endpoint.key]\nid_pointer = \"id\" #<\n", "endpoint[0].key.id_pointer",
       "must start with '/'"},
      {"bad escape in fields", kHead + "[endpoint.key]\nfields = [\"/a\", \"/b~2\"] #<\n",
       "endpoint[0].key.fields[1]", "'~' must be written ~0"},
      {"empty field", kHead + "[endpoint.key]\nfields = [\"\"] #<\n", "endpoint[0].key.fields[0]",
       "must not be empty"},
      {"trailing ~ in event_type_pointer", kHead + kKey + "event_type_pointer = \"/type~\" #<\n",
       "endpoint[0].key.event_type_pointer", "'~' must be written ~0"},
      {"bad volatile field", kHead + "volatile_fields = [\"/ok\",\n  \"attempt\"] #<\n" + kKey,
       "endpoint[0].volatile_fields[1]", "must start with '/'"},
  });
  CheckValid({kHead + "volatile_fields = [\"/a~0b/c~1d\", \"/\"]\n[endpoint.key]\nid_pointer = \"/data/0/id\"\n"});
}

TEST_CASE("config: content types and the event type allow-list are checked", "[config]") {
  CheckCases({
      {"no content types", kHead + "content_types = [] #<\n" + kKey, "endpoint[0].content_types",
       "at least one media type"},
      {"not type/subtype", kHead + "content_types = [\"json\"] #<\n" + kKey, "endpoint[0].content_types[0]",
       "\"json\" is not a media type"},
      {"with parameters", kHead + "content_types = [\"application/json; charset=utf-8\"] #<\n" + kKey,
       "endpoint[0].content_types[0]", "without parameters"},
      {"allow-list without an event type source", kHead + "event_types = [\"a\"] #<\n" + kKey,
       "endpoint[0].event_types", "set key.event_type_pointer or key.event_type_header"},
      {"empty event type", kHead + "event_types = [\"a\", \"\"] #<\n" + kKey + "event_type_header = \"X-T\"\n",
       "endpoint[0].event_types[1]", "must not be empty"},
  });
  CheckValid({kHead + "content_types = [\"application/json\", \"application/vnd.api+json\", \"text/plain\"]\n" + kKey});
}

TEST_CASE("config: insecure endpoints and no-op settings are warnings", "[config]") {
  SECTION("scheme none with insecure = true loads with a warning on insecure") {
    const std::string toml = "[[endpoint]]\nname = \"open\"\ninsecure = true #<\n[endpoint.signature]\n"
                             "scheme = \"none\"\n" + kKey;
    LoadResult r = Load(toml);
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].key == "endpoint[0].insecure");
    CHECK(r.warnings[0].line == MarkedLine(toml));
    CHECK_THAT(r.warnings[0].message, Catch::Contains("not authenticated"));
    CHECK(r.config.endpoints[0].secrets.empty());
  }
  SECTION("insecure = true warns on every endpoint, whatever the scheme") {
    LoadResult r = Load(kHead + "insecure = true\n" + kKey + "[[endpoint]]\nname = \"b\"\ninsecure = true\n"
                        "[endpoint.signature]\nscheme = \"none\"\n" + kKey);
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    CHECK(Find(r.warnings, "endpoint[0].insecure") != nullptr);
    CHECK(Find(r.warnings, "endpoint[1].insecure") != nullptr);
  }
  SECTION("ignore_other_event_types without event_types") {
    LoadResult r = Load(kHead + "ignore_other_event_types = true\n" + kKey);
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].key == "endpoint[0].ignore_other_event_types");
    CHECK(r.warnings[0].line == 4);
  }
}

TEST_CASE("config: CheckFiles reports TLS files that cannot be read", "[config]") {
  TempDir dir;
  Config c;
  c.server.tls_cert = dir.File("cert.pem");
  c.server.tls_key = dir.File("key.pem");
  SECTION("missing") {
    auto problems = CheckFiles(c);
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].key == "server.tls_cert");
    CHECK_THAT(problems[0].message, Catch::Contains(dir.File("cert.pem")) && Catch::Contains("No such file"));
    CHECK(problems[1].key == "server.tls_key");
  }
  SECTION("present") {
    dir.Write("cert.pem", "cert");
    dir.Write("key.pem", "key");
    CHECK(CheckFiles(c).empty());
  }
  SECTION("a directory is not a certificate") {
    c.server.tls_cert = dir.path();
    dir.Write("key.pem", "key");
    auto problems = CheckFiles(c);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0].message, Catch::Contains("directory"));
  }
  SECTION("not checked with plain_http") {
    c.server.plain_http = true;
    CHECK(CheckFiles(c).empty());
  }
  SECTION("loading does not require them") {
    LoadResult r = Load(kEndpoint, dir.path());
    CHECK(r.ok());
    CHECK(CheckFiles(r.config).size() == 2);
  }
}

TEST_CASE("config: {url} needs a well-formed public_url; {method} needs nothing", "[config]") {
  const std::string sig = "[endpoint.signature]\n";
  CheckCases({
      {"{url} without public_url", kHead + sig + "signed_payload = \"{method}{url}{body}\" #<\n" + kKey,
       "endpoint[0].signature.signed_payload", "uses {url} but endpoint[0].public_url is not set"},
      {"public_url without a scheme", kHead + "public_url = \"hooks.example.com/hooks/demo\" #<\n" + kKey,
       "endpoint[0].public_url", "must be an absolute http(s) URL"},
      {"public_url with a query", kHead + "public_url = \"https://h.example.com/hooks/demo?x=1\" #<\n" + kKey,
       "endpoint[0].public_url", "without query or fragment"},
      {"public_url without a host", kHead + "public_url = \"https:///hooks/demo\" #<\n" + kKey,
       "endpoint[0].public_url", "must be an absolute http(s) URL"},
  });
  CheckValid({
      kHead + "public_url = \"https://hooks.example.com/hooks/demo\"\n" + sig +
          "signed_payload = \"{method}{url}{body}\"\n" + kKey,
      kHead + "public_url = \"http://127.0.0.1:8080/hooks/demo\"\n" + sig + "signed_payload = \"{url}{body}\"\n" +
          kKey,
      kHead + sig + "signed_payload = \"{method}:{body}\"\n" + kKey,
  });
}

TEST_CASE("config: at most one timestamp source, and it must be signed", "[config]") {
  const std::string sig = kHead + "[endpoint.signature]\n";
  CheckCases({
      {"header and pointer",
       sig + "timestamp_header = \"X-T\"\ntimestamp_pointer = \"/ts\" #<\nsigned_payload = \"{timestamp}.{body}\"\n" +
           kKey,
       "endpoint[0].signature.timestamp_pointer",
       "set only one timestamp source (found timestamp_header, timestamp_pointer)"},
      {"header and format",
       sig + "timestamp_header = \"X-T\"\nformat = \"t={timestamp},v1={signature}\" #<\n"
             "signed_payload = \"{timestamp}.{body}\"\n" + kKey,
       "endpoint[0].signature.format", "set only one timestamp source (found timestamp_header, format)"},
      {"format and pointer",
       sig + "format = \"t={timestamp},v1={signature}\"\ntimestamp_pointer = \"/ts\" #<\n"
             "signed_payload = \"{timestamp}.{body}\"\n" + kKey,
       "endpoint[0].signature.timestamp_pointer", "(found format, timestamp_pointer)"},
      {"a malformed timestamp_pointer", sig + "timestamp_pointer = \"ts\" #<\n" + kKey,
       "endpoint[0].signature.timestamp_pointer", "must start with '/'"},
      {"a '*' in timestamp_pointer", sig + "timestamp_pointer = \"/*/ts\" #<\n" + kKey,
       "endpoint[0].signature.timestamp_pointer", "only allowed in volatile_fields"},
      {"an unknown unit", sig + "timestamp_header = \"X-T\"\ntimestamp_unit = \"us\" #<\n"
                               "signed_payload = \"{timestamp}.{body}\"\n" + kKey,
       "endpoint[0].signature.timestamp_unit", "must be one of s, ms, iso8601 (got \"us\")"},
      {"a header timestamp is not signed by {body} alone",
       sig + "timestamp_header = \"X-T\"\nsigned_payload = \"{body}\" #<\n" + kKey,
       "endpoint[0].signature.signed_payload", "a timestamp is configured but not signed"},
  });
  // A timestamp read from the body is signed by {body} (Linear), or may be signed again.
  CheckValid({
      sig + "timestamp_pointer = \"/webhookTimestamp\"\ntimestamp_unit = \"ms\"\n" + kKey,
      sig + "timestamp_pointer = \"/webhookTimestamp\"\nsigned_payload = \"{timestamp}.{body}\"\n" + kKey,
      sig + "timestamp_header = \"X-T\"\ntimestamp_unit = \"ms\"\nsigned_payload = \"{method}{body}{timestamp}\"\n" +
          kKey,
      sig + "format = \"ts={timestamp};h1={signature}\"\nsigned_payload = \"{timestamp}:{body}\"\n" + kKey,
  });
  SECTION("timestamp_unit without a timestamp source is a warning") {
    LoadResult r = Load(sig + "timestamp_unit = \"ms\"\n" + kKey);
    INFO(Dump(r.errors));
    REQUIRE(r.ok());
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].key == "endpoint[0].signature.timestamp_unit");
  }
}

TEST_CASE("config: a '*' segment is accepted in volatile_fields only", "[config]") {
  CheckCases({
      {"in id_pointer", kHead + "[endpoint.key]\nid_pointer = \"/*/eventId\" #<\n", "endpoint[0].key.id_pointer",
       "a '*' segment (every element) is only allowed in volatile_fields"},
      {"in fields", kHead + "[endpoint.key]\nfields = [\"/0/subscriptionId\", \"/*\"] #<\n",
       "endpoint[0].key.fields[1]", "only allowed in volatile_fields"},
      {"in event_type_pointer", kHead + kKey + "event_type_pointer = \"/data/*/type\" #<\n",
       "endpoint[0].key.event_type_pointer", "only allowed in volatile_fields"},
  });
  CheckValid({
      kHead + "volatile_fields = [\"/*/attemptNumber\", \"/meta/*\", \"/*/a/*/b\"]\n" + kKey,
      // '*' inside a segment is an ordinary name, anywhere.
      kHead + "volatile_fields = [\"/a*\"]\n[endpoint.key]\nid_pointer = \"/x*/y\"\n",
  });
}

TEST_CASE("config: secret_encoding and secret_prefix are checked and warned about outside hmac", "[config]") {
  const std::string sig = kHead + "[endpoint.signature]\n";
  CheckCases({
      {"an unknown encoding", sig + "secret_encoding = \"base32\" #<\n" + kKey,
       "endpoint[0].signature.secret_encoding", "must be one of utf8, base64, hex, html-entities (got \"base32\")"},
  });
  LoadResult r = Load(sig + "scheme = \"token\"\nheader = \"X-Token\"\nsecret_prefix = \"whsec_\" #<\n" + kKey);
  INFO(Dump(r.errors));
  REQUIRE(r.ok());
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].key == "endpoint[0].signature.secret_prefix");
  CHECK_THAT(r.warnings[0].message, Catch::Contains("has no effect unless scheme = \"hmac\""));
}

TEST_CASE("config: rotation_ends must be a real date", "[config]") {
  CheckCases({
      {"not a date", kHead + "rotation_ends = \"next week\" #<\n" + kKey, "endpoint[0].rotation_ends",
       "must be a date YYYY-MM-DD"},
      {"no such day", kHead + "rotation_ends = \"2026-02-30\" #<\n" + kKey, "endpoint[0].rotation_ends",
       "must be a date YYYY-MM-DD"},
  });
  CheckValid({kHead + "rotation_ends = \"2028-02-29\"\n" + kKey});
}

TEST_CASE("config: a passed rotation_ends with several active secrets is a warning, not before", "[config]") {
  ::setenv("HOOKINBOX_CT_ROT_NEW", "new-secret", 1);
  ::setenv("HOOKINBOX_CT_ROT_OLD", "old-secret", 1);
  const std::string two = "[[endpoint]]\nname = \"demo\"\nsecrets_env = [\"HOOKINBOX_CT_ROT_NEW\", "
                          "\"HOOKINBOX_CT_ROT_OLD\"]\nrotation_ends = \"2026-11-30\"\n" + kKey;
  LoadResult r = Load(two);
  REQUIRE(r.ok());
  const int64_t nov30_noon = 1764504000000 + 365LL * 86400000;  // 2026-11-30T12:00Z
  CHECK(CheckRotation(r.config, nov30_noon).empty());  // the last day itself is still fine
  auto late = CheckRotation(r.config, nov30_noon + 86400000);
  REQUIRE(late.size() == 1);
  CHECK(late[0].key == "endpoint[0].rotation_ends");
  CHECK_THAT(late[0].message, Catch::Contains("2 secrets are still active"));
  CHECK_THAT(late[0].message, !Catch::Contains("old-secret"));

  LoadResult one = Load(kHead + "rotation_ends = \"2020-01-01\"\n" + kKey);
  REQUIRE(one.ok());
  CHECK(CheckRotation(one.config, nov30_noon).empty());  // rotation finished: nothing to warn about
}
