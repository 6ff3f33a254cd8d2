// config/reload.h CompareForReload: what a reload applies and what waits for a restart.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "config/reload.h"

using namespace hookinbox;
using namespace hookinbox::config;

namespace {

constexpr const char* kSecretText = "s3cr3t-value-never-printed";
constexpr const char* kOtherSecretText = "an0ther-s3cr3t-never-printed";

EndpointConfig Endpoint(const std::string& name) {
  EndpointConfig e;
  e.name = name;
  e.secrets = {Secret(kSecretText)};
  e.key.id_header = "X-Event-Id";
  return e;
}

AlertChannelConfig Channel(const std::string& name, const std::string& type) {
  AlertChannelConfig c;
  c.name = name;
  c.type = type;
  return c;
}

Config Base() {
  Config c;
  c.path = "/etc/hookinbox/hookinbox.toml";
  c.admin.token = Secret(std::string(40, 'a'));
  c.endpoints = {Endpoint("payments"), Endpoint("orders")};
  c.endpoints[1].tenants = {{"acme", {Secret(kSecretText)}}};
  c.alert.channels.push_back(Channel("ops", "slack"));
  c.alert.channels[0].url = Secret("https://hooks.slack.test/" + std::string(kSecretText));
  return c;
}

EndpointConfig& Payments(Config& c) { return c.endpoints[0]; }

bool Has(const std::vector<std::string>& lines, const std::string& line) {
  for (const auto& l : lines) {
    if (l == line) return true;
  }
  return false;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string All(const ConfigChanges& ch) {
  std::string out;
  for (const auto& l : ch.changed) out += "changed: " + l + "\n";
  for (const auto& l : ch.needs_restart) out += "restart: " + l + "\n";
  return out;
}

struct Case {
  std::string what;
  std::function<void(Config&)> change;
  std::string line;      // the one line expected
  bool restart = false;  // in needs_restart rather than changed
};

// Every kind of change, each from Base(), with the one line it gives.
std::vector<Case> AllCases();

}  // namespace

TEST_CASE("reload compare: identical configs differ in nothing", "[config][reload]") {
  ConfigChanges ch = CompareForReload(Base(), Base());
  INFO(All(ch));
  CHECK(ch.changed.empty());
  CHECK(ch.needs_restart.empty());
}

TEST_CASE("reload compare: the order of endpoints does not matter", "[config][reload]") {
  Config next = Base();
  std::swap(next.endpoints[0], next.endpoints[1]);
  ConfigChanges ch = CompareForReload(Base(), next);
  INFO(All(ch));
  CHECK(ch.changed.empty());
  CHECK(ch.needs_restart.empty());
}

namespace {

std::vector<Case> AllCases() {
  return {
      // [[endpoint]]
      {"endpoint added", [](Config& c) { c.endpoints.push_back(Endpoint("refunds")); }, "endpoint \"refunds\" added"},
      {"endpoint removed", [](Config& c) { c.endpoints.pop_back(); },
       "endpoint \"orders\" removed (its stored events stay)"},
      {"secret", [](Config& c) { Payments(c).secrets = {Secret(kOtherSecretText)}; },
       "endpoint \"payments\": secret changed"},
      {"secret added (rotation)",
       [](Config& c) { Payments(c).secrets.insert(Payments(c).secrets.begin(), Secret(kOtherSecretText)); },
       "endpoint \"payments\": secrets changed (2 active, was 1)"},
      {"provider", [](Config& c) { Payments(c).provider = "stripe"; },
       "endpoint \"payments\": provider changed (generic → stripe)"},
      {"tenant", [](Config& c) { Payments(c).tenant = "eu"; },
       "endpoint \"payments\": tenant changed (\"default\" → \"eu\")"},
      {"signature", [](Config& c) { Payments(c).signature.algorithm = "sha512"; },
       "endpoint \"payments\": signature settings changed"},
      {"insecure", [](Config& c) { Payments(c).insecure = true; }, "endpoint \"payments\": signature settings changed"},
      {"public_url", [](Config& c) { Payments(c).public_url = "https://x.test/hooks/payments"; },
       "endpoint \"payments\": signature settings changed"},
      {"public keys", [](Config& c) { Payments(c).public_keys = {"abcd"}; },
       "endpoint \"payments\": public keys changed"},
      {"verify token", [](Config& c) { Payments(c).verify_token = Secret(kOtherSecretText); },
       "endpoint \"payments\": verify token changed"},
      {"key", [](Config& c) { Payments(c).key.canonical_hash = true; },
       "endpoint \"payments\": idempotency key settings changed"},
      {"volatile_fields", [](Config& c) { Payments(c).volatile_fields = {"/attempt"}; },
       "endpoint \"payments\": volatile_fields changed"},
      {"max_body_bytes lower", [](Config& c) { Payments(c).max_body_bytes = 1000; },
       "endpoint \"payments\": max_body_bytes changed"},
      {"content_types", [](Config& c) { Payments(c).content_types.push_back("text/plain"); },
       "endpoint \"payments\": content_types changed"},
      {"event_types", [](Config& c) { Payments(c).event_types = {"invoice.paid"}; },
       "endpoint \"payments\": event type filter changed"},
      {"ignore_other_event_types", [](Config& c) { Payments(c).ignore_other_event_types = true; },
       "endpoint \"payments\": event type filter changed"},
      {"rotation_ends", [](Config& c) { Payments(c).rotation_ends = "2030-01-01"; },
       "endpoint \"payments\": rotation_ends changed"},
      {"redact", [](Config& c) { Payments(c).redact = {"/card"}; }, "endpoint \"payments\": redact changed"},
      {"action", [](Config& c) { Payments(c).action.type = "http"; }, "endpoint \"payments\": action changed"},
      {"forward secret", [](Config& c) { Payments(c).action.forward_secret = Secret(kOtherSecretText); },
       "endpoint \"payments\": action changed"},
      // The destination credential apart from the rest of the action, its value never shown.
      {"action auth kind", [](Config& c) { Payments(c).action.auth = "bearer"; },
       "endpoint \"payments\": action auth changed"},
      {"action auth header", [](Config& c) { Payments(c).action.auth_header = "X-N8n-Auth"; },
       "endpoint \"payments\": action auth changed"},
      {"action auth secret", [](Config& c) { Payments(c).action.auth_secret = Secret(kOtherSecretText); },
       "endpoint \"payments\": action auth changed"},
      {"business_key", [](Config& c) { Payments(c).business_key.fields = {"/id"}; },
       "endpoint \"payments\": business_key settings changed"},
      {"ordering", [](Config& c) { Payments(c).ordering.object = "/id"; },
       "endpoint \"payments\": ordering settings changed"},
      {"retention", [](Config& c) { Payments(c).retention.key_days = 9; }, "endpoint \"payments\": retention changed"},
      {"endpoint alert", [](Config& c) { Payments(c).alert.silence_ms = 1000; },
       "endpoint \"payments\": [endpoint.alert] changed"},
      {"preset data", [](Config& c) { Payments(c).redelivery_window_hours = 72; },
       "endpoint \"payments\": provider preset data changed"},
      {"tenant added",
       [](Config& c) {
         c.endpoints[1].tenants.push_back({"globex", {Secret(kSecretText)}});
       },
       "endpoint \"orders\": tenant \"globex\" added"},
      {"tenant removed", [](Config& c) { c.endpoints[1].tenants.clear(); },
       "endpoint \"orders\": tenant \"acme\" removed"},
      {"tenant secret", [](Config& c) { c.endpoints[1].tenants[0].secrets = {Secret(kOtherSecretText)}; },
       "endpoint \"orders\": tenant \"acme\": secret changed"},
      // [server]
      {"server.listen", [](Config& c) { c.server.listen = "0.0.0.0:9443"; }, "server.listen", true},
      {"server.plain_http", [](Config& c) { c.server.plain_http = true; }, "server.plain_http", true},
      {"server.tls_cert", [](Config& c) { c.server.tls_cert = "other.pem"; }, "server.tls_cert", true},
      {"server.tls_key", [](Config& c) { c.server.tls_key = "other.pem"; }, "server.tls_key", true},
      {"server.threads", [](Config& c) { c.server.threads = 8; }, "server.threads", true},
      {"server.keep_alive_max_requests", [](Config& c) { c.server.keep_alive_max_requests = 8; },
       "server.keep_alive_max_requests", true},
      {"server.keep_alive_timeout_seconds", [](Config& c) { c.server.keep_alive_timeout_seconds = 8; },
       "server.keep_alive_timeout_seconds", true},
      {"server.read_timeout_seconds", [](Config& c) { c.server.read_timeout_seconds = 8; },
       "server.read_timeout_seconds", true},
      {"server.write_timeout_seconds", [](Config& c) { c.server.write_timeout_seconds = 8; },
       "server.write_timeout_seconds", true},
      {"server.listen_backlog", [](Config& c) { c.server.listen_backlog = 8; }, "server.listen_backlog", true},
      {"server.max_connections", [](Config& c) { c.server.max_connections = 8; }, "server.max_connections", true},
      {"server.max_connections_per_address", [](Config& c) { c.server.max_connections_per_address = 8; },
       "server.max_connections_per_address", true},
      {"server.header_timeout_seconds", [](Config& c) { c.server.header_timeout_seconds = 8; },
       "server.header_timeout_seconds", true},
      {"server.max_header_bytes", [](Config& c) { c.server.max_header_bytes = 8000; }, "server.max_header_bytes", true},
      {"server.body_timeout_seconds", [](Config& c) { c.server.body_timeout_seconds = 8; },
       "server.body_timeout_seconds", true},
      {"server.max_body_bytes lower", [](Config& c) { c.server.max_body_bytes = 1000; },
       "server.max_body_bytes changed"},
      // [admin]
      {"admin.listen", [](Config& c) { c.admin.listen = "127.0.0.1:9081"; }, "admin.listen", true},
      {"admin.tls_cert", [](Config& c) { c.admin.tls_cert = "a.pem"; }, "admin.tls_cert", true},
      {"admin.tls_key", [](Config& c) { c.admin.tls_key = "a.pem"; }, "admin.tls_key", true},
      {"admin.max_connections", [](Config& c) { c.admin.max_connections = 8; }, "admin.max_connections", true},
      {"admin.max_connections_per_address", [](Config& c) { c.admin.max_connections_per_address = 8; },
       "admin.max_connections_per_address", true},
      {"admin.allow_plain_http", [](Config& c) { c.admin.allow_plain_http = true; }, "admin.allow_plain_http", true},
      {"admin.allowed_hosts", [](Config& c) { c.admin.allowed_hosts = {"admin.example.com"}; }, "admin.allowed_hosts",
       true},
      {"admin.handler_api_listen", [](Config& c) { c.admin.handler_api_listen = "172.17.0.1:8082"; },
       "admin.handler_api_listen", true},
      {"admin.handler_api_url", [](Config& c) { c.admin.handler_api_url = "http://172.17.0.1:8082"; },
       "admin.handler_api_url", true},
      {"admin token", [](Config& c) { c.admin.token = Secret(std::string(40, 'b')); }, "admin token changed"},
      {"admin token source", [](Config& c) { c.admin.token_file = "/etc/hookinbox/admin.token"; },
       "admin token source changed (same token)"},
      {"metrics token", [](Config& c) { c.admin.metrics_token = Secret(std::string(40, 'm')); },
       "metrics token changed"},
      {"metrics token source", [](Config& c) { c.admin.metrics_token_env = "METRICS"; },
       "metrics token source changed (same token)"},
      // [log], [storage], [worker]
      {"log.redact", [](Config& c) { c.log.redact = {"tenant"}; }, "log.redact", true},
      {"storage.backend", [](Config& c) { c.storage.backend = "postgres"; }, "storage.backend", true},
      {"storage.path", [](Config& c) { c.storage.path = "x.db"; }, "storage.path", true},
      {"storage.busy_timeout_ms", [](Config& c) { c.storage.busy_timeout_ms = 8; }, "storage.busy_timeout_ms", true},
      {"storage.max_batch", [](Config& c) { c.storage.max_batch = 8; }, "storage.max_batch", true},
      {"storage.url", [](Config& c) { c.storage.url = "postgresql://u:pw@h/db"; }, "storage.url", true},
      {"storage.url_env", [](Config& c) { c.storage.url_env = "PG"; }, "storage.url_env", true},
      {"storage.url_file", [](Config& c) { c.storage.url_file = "pg.url"; }, "storage.url_file", true},
      {"storage.pool_size", [](Config& c) { c.storage.pool_size = 8; }, "storage.pool_size", true},
      {"worker.threads", [](Config& c) { c.worker.threads = 8; }, "worker.threads", true},
      {"worker.max_attempts", [](Config& c) { c.worker.max_attempts = 3; }, "[worker] retry settings changed"},
      {"worker.retry_for", [](Config& c) { c.worker.retry_for_ms = 1000; }, "[worker] retry settings changed"},
      {"worker.backoff_initial_ms", [](Config& c) { c.worker.backoff_initial_ms = 20; },
       "[worker] retry settings changed"},
      {"worker.backoff_max_ms", [](Config& c) { c.worker.backoff_max_ms = 20000; }, "[worker] retry settings changed"},
      {"worker.lease_seconds", [](Config& c) { c.worker.lease_seconds = 8; }, "worker.lease_seconds", true},
      {"worker.shutdown_grace_seconds", [](Config& c) { c.worker.shutdown_grace_seconds = 8; },
       "worker.shutdown_grace_seconds changed"},
      // [alert]
      {"alert threshold", [](Config& c) { c.alert.thresholds.dead_letters = 5; }, "[alert] changed"},
      {"alert.digest_at", [](Config& c) { c.alert.digest_at = "08:00"; }, "[alert] changed"},
      {"alert.check_every", [](Config& c) { c.alert.check_every_ms = 1000; }, "[alert] changed"},
      {"alert channel added", [](Config& c) { c.alert.channels.push_back(Channel("mail", "email")); },
       "alert channel \"mail\" added"},
      {"alert channel removed", [](Config& c) { c.alert.channels.clear(); }, "alert channel \"ops\" removed"},
      {"alert channel url", [](Config& c) { c.alert.channels[0].url = Secret(kOtherSecretText); },
       "alert channel \"ops\" changed"},
  };
}

}  // namespace

TEST_CASE("reload compare: each kind of change is named once, in its list", "[config][reload]") {
  for (const Case& k : AllCases()) {
    Config next = Base();
    k.change(next);
    ConfigChanges ch = CompareForReload(Base(), next);
    INFO(k.what << "\n" << All(ch));
    const auto& expected = k.restart ? ch.needs_restart : ch.changed;
    const auto& other = k.restart ? ch.changed : ch.needs_restart;
    CHECK(expected == std::vector<std::string>{k.line});
    CHECK(other.empty());
    // Never a secret's bytes, whatever changed.
    for (const auto& l : ch.changed) CHECK(l.find("s3cr3t") == std::string::npos);
    for (const auto& l : ch.needs_restart) CHECK(l.find("pw@") == std::string::npos);
  }
}

TEST_CASE("keep restart-only: each key named as waiting for a restart keeps its start value, the rest applies",
          "[config][reload]") {
  std::vector<std::string> tested;
  Config all = Base();
  for (const Case& k : AllCases()) {
    Config next = Base();
    k.change(next);
    KeepRestartOnly(next, Base());
    ConfigChanges ch = CompareForReload(Base(), next);
    INFO(k.what << "\n" << All(ch));
    CHECK(ch.needs_restart.empty());
    if (k.restart) {
      CHECK(ch.changed.empty());
      tested.push_back(k.line);
      k.change(all);
    } else {
      CHECK(ch.changed == std::vector<std::string>{k.line});
    }
  }
  SECTION("the cases cover every key of the table") {
    for (const std::string& key : RestartOnlyKeys()) {
      INFO(key);
      CHECK(Has(tested, key));
    }
  }
  SECTION("all at once") {
    CHECK(CompareForReload(Base(), all).needs_restart.size() == tested.size());
    KeepRestartOnly(all, Base());
    ConfigChanges ch = CompareForReload(Base(), all);
    INFO(All(ch));
    CHECK(ch.changed.empty());
    CHECK(ch.needs_restart.empty());
  }
}

TEST_CASE("reload compare: a body limit above the largest at start needs a restart", "[config][reload]") {
  Config current = Base();
  Payments(current).max_body_bytes = 2 << 20;  // the largest at start: 2 MiB
  SECTION("an endpoint above it is named with the limit") {
    Config next = current;
    next.endpoints[1].max_body_bytes = 4 << 20;
    ConfigChanges ch = CompareForReload(current, next);
    INFO(All(ch));
    CHECK(Has(ch.changed, "endpoint \"orders\": max_body_bytes changed"));
    CHECK(ch.needs_restart ==
          std::vector<std::string>{"endpoint \"orders\": max_body_bytes above 2097152 bytes (the limit at start)"});
    // Not put back: the listener's backstop holds it, and the same file reloaded finds nothing changed.
    KeepRestartOnly(next, current);
    CHECK(next.endpoints[1].max_body_bytes == 4 << 20);
  }
  SECTION("up to it applies live") {
    Config next = current;
    next.endpoints[1].max_body_bytes = 2 << 20;
    ConfigChanges ch = CompareForReload(current, next);
    INFO(All(ch));
    CHECK(ch.needs_restart.empty());
  }
  SECTION("a new endpoint on a raised server default is named too") {
    Config next = current;
    next.server.max_body_bytes = 3 << 20;
    next.endpoints.push_back(Endpoint("refunds"));
    ConfigChanges ch = CompareForReload(current, next);
    INFO(All(ch));
    CHECK(Has(ch.needs_restart, "endpoint \"refunds\": max_body_bytes above 2097152 bytes (the limit at start)"));
    CHECK(Has(ch.needs_restart, "endpoint \"orders\": max_body_bytes above 2097152 bytes (the limit at start)"));
    CHECK(Has(ch.changed, "server.max_body_bytes changed"));
  }
}

TEST_CASE("reload compare: several differences give one line each, secrets never shown", "[config][reload]") {
  Config next = Base();
  Payments(next).secrets = {Secret(kOtherSecretText), Secret(kSecretText)};
  Payments(next).action.type = "exec";
  Payments(next).action.command = {"/bin/true"};
  next.admin.token = Secret(kOtherSecretText);
  next.storage.url = std::string("postgresql://u:") + kOtherSecretText + "@h/db";
  next.server.listen = "0.0.0.0:1";
  ConfigChanges ch = CompareForReload(Base(), next);
  INFO(All(ch));
  CHECK(ch.changed == std::vector<std::string>{"admin token changed",
                                               "endpoint \"payments\": secrets changed (2 active, was 1)",
                                               "endpoint \"payments\": action changed"});
  CHECK(ch.needs_restart == std::vector<std::string>{"server.listen", "storage.url"});
  CHECK(All(ch).find("s3cr3t") == std::string::npos);
}

TEST_CASE("reload compare: names log.redact hides are written as [redacted], the rest as always", "[config][reload]") {
  Config next = Base();
  Payments(next).tenant = "eu";
  next.endpoints[1].tenants.push_back({"globex", {Secret(kSecretText)}});
  next.endpoints[1].tenants[0].secrets = {Secret(kOtherSecretText)};
  next.endpoints.push_back(Endpoint("refunds"));
  next.endpoints.back().max_body_bytes = 4 << 20;  // above the limit at start: a needs_restart line
  next.alert.channels[0].type = "teams";
  SECTION("tenant") {
    ConfigChanges ch = CompareForReload(Base(), next, {"tenant", "remote_addr"});
    INFO(All(ch));
    CHECK(ch.changed == std::vector<std::string>{
                            "alert channel \"ops\" changed",
                            "endpoint \"payments\": tenant changed (\"[redacted]\" → \"[redacted]\")",
                            "endpoint \"orders\": tenant \"[redacted]\": secret changed",
                            "endpoint \"orders\": tenant \"[redacted]\" added",
                            "endpoint \"refunds\" added",
                        });
    for (const char* id : {"acme", "globex", "\"eu\"", "default"}) CHECK(!Contains(All(ch), id));
  }
  SECTION("endpoint and channel") {
    ConfigChanges ch = CompareForReload(Base(), next, {"endpoint", "channel"});
    INFO(All(ch));
    for (const char* name : {"payments", "orders", "refunds", "ops"}) CHECK(!Contains(All(ch), name));
    CHECK(Has(ch.changed, "endpoint \"[redacted]\": tenant \"globex\" added"));
    CHECK(Has(ch.changed, "alert channel \"[redacted]\" changed"));
    CHECK(ch.needs_restart ==
          std::vector<std::string>{"endpoint \"[redacted]\": max_body_bytes above 1048576 bytes (the limit at start)"});
  }
  SECTION("none: the same lines as without a list") {
    ConfigChanges plain = CompareForReload(Base(), next);
    ConfigChanges listed = CompareForReload(Base(), next, {"remote_addr"});
    CHECK(listed.changed == plain.changed);
    CHECK(listed.needs_restart == plain.needs_restart);
    CHECK(Has(plain.changed, "endpoint \"orders\": tenant \"globex\" added"));
  }
}
