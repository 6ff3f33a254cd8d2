#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "config/keys.h"
#include "config_test_util.h"

using namespace hookinbox::config;
using hookinbox::config::test::Dump;

TEST_CASE("keys: the table lists exactly the documented keys", "[config]") {
  // Every field commented in config.h, under the key its comment names, plus
  // the secret source keys and the tables themselves.
  const std::vector<std::string> expected = {
      "server", "server.listen", "server.tls_cert", "server.tls_key", "server.plain_http", "server.max_body_bytes",
      "server.threads", "server.keep_alive_max_requests", "server.keep_alive_timeout_seconds",
      "server.read_timeout_seconds", "server.write_timeout_seconds", "server.listen_backlog", "server.max_connections", "server.max_connections_per_address",
      "server.header_timeout_seconds", "server.max_header_bytes", "server.body_timeout_seconds",
      "admin", "admin.listen", "admin.token_env", "admin.token_file",
      "admin.tls_cert", "admin.tls_key", "admin.max_connections", "admin.max_connections_per_address",
      "admin.metrics_token_env", "admin.allow_plain_http", "admin.allowed_hosts", "admin.handler_api_listen", "admin.handler_api_url", "log", "log.redact",
      "storage", "storage.backend", "storage.path", "storage.busy_timeout_ms", "storage.max_batch",
      "storage.url", "storage.url_file", "storage.url_env", "storage.pool_size",
      "worker", "worker.threads", "worker.lease_seconds", "worker.max_attempts", "worker.retry_for",
      "worker.backoff_initial_ms",
      "worker.backoff_max_ms", "worker.shutdown_grace_seconds",
      "alert", "alert.dead_letters", "alert.unknown", "alert.conflicts", "alert.backlog_age", "alert.signature_failures", "alert.silence", "alert.breaker_open", "alert.certificate_days", "alert.disk_free", "alert.database_size", "alert.storage_failures", "alert.remind_every", "alert.check_every", "alert.digest_at", "alert.digest_channel", "alert.ui_url",
      "alert.channel", "alert.channel.name", "alert.channel.type", "alert.channel.url", "alert.channel.url_env", "alert.channel.url_file", "alert.channel.smtp_url", "alert.channel.smtp_url_env", "alert.channel.smtp_url_file", "alert.channel.from", "alert.channel.to", "alert.channel.secret_env", "alert.channel.secret_file", "alert.channel.ca_file", "alert.channel.timeout_seconds",
      "endpoint", "endpoint.name", "endpoint.provider", "endpoint.tenant", "endpoint.secret_env",
      "endpoint.secret_file", "endpoint.secrets_env", "endpoint.secrets_file", "endpoint.public_key_env",
      "endpoint.public_key_file", "endpoint.public_keys_env", "endpoint.public_keys_file",
      "endpoint.verify_token_env", "endpoint.verify_token_file", "endpoint.max_body_bytes",
      "endpoint.content_types", "endpoint.event_types", "endpoint.ignore_other_event_types", "endpoint.insecure",
      "endpoint.public_url", "endpoint.rotation_ends", "endpoint.volatile_fields", "endpoint.redact",
      "endpoint.signature", "endpoint.signature.scheme", "endpoint.signature.header", "endpoint.signature.format",
      "endpoint.signature.algorithm", "endpoint.signature.encoding", "endpoint.signature.secret_encoding",
      "endpoint.signature.secret_prefix", "endpoint.signature.signed_payload", "endpoint.signature.webhook_id",
      "endpoint.signature.timestamp_header",
      "endpoint.signature.timestamp_pointer", "endpoint.signature.timestamp_unit",
      "endpoint.signature.signature_pointer", "endpoint.signature.signature_source",
      "endpoint.signature.access_key", "endpoint.signature.token_pointer", "endpoint.signature.url_decode",
      "endpoint.signature.tolerance_seconds", "endpoint.signature.body_kind",
      "endpoint.key", "endpoint.key.id_header", "endpoint.key.id_pointer", "endpoint.key.fields",
      "endpoint.key.canonical_hash", "endpoint.key.event_type_pointer", "endpoint.key.event_type_header",
      "endpoint.key.batch", "endpoint.key.batch_pointer",
      "endpoint.action", "endpoint.action.type", "endpoint.action.url", "endpoint.action.command",
      "endpoint.action.timeout_ms", "endpoint.action.idempotent_target", "endpoint.action.forward_secret_env",
      "endpoint.action.forward_secret_file", "endpoint.action.concurrency", "endpoint.action.max_per_second",
      "endpoint.action.breaker_failures", "endpoint.action.breaker_probe_seconds", "endpoint.action.result_ref_header",
      "endpoint.action.result_ref_pointer", "endpoint.action.ca_file", "endpoint.action.probe_url",
      "endpoint.action.retry_for", "endpoint.action.auth", "endpoint.action.auth_header",
      "endpoint.action.auth_secret_env", "endpoint.action.auth_secret_file", "endpoint.action.async",
      "endpoint.business_key", "endpoint.business_key.fields", "endpoint.business_key.operation",
      "endpoint.business_key.operations", "endpoint.ordering", "endpoint.ordering.object", "endpoint.ordering.version",
      "endpoint.retention", "endpoint.retention.payload_days", "endpoint.retention.key_days",
      "endpoint.alert", "endpoint.alert.dead_letters", "endpoint.alert.unknown", "endpoint.alert.conflicts", "endpoint.alert.backlog_age", "endpoint.alert.signature_failures", "endpoint.alert.silence", "endpoint.alert.breaker_open",
      "endpoint.tenants", "endpoint.tenants.id", "endpoint.tenants.secret_env", "endpoint.tenants.secret_file",
      "endpoint.tenants.secrets_env", "endpoint.tenants.secrets_file",
  };
  std::vector<std::string> got;
  for (const auto& k : KnownKeys()) got.push_back(k.path);
  CHECK(got == expected);
}

TEST_CASE("keys: every entry is complete and its default is allowed", "[config]") {
  std::set<std::string> seen;
  for (const auto& k : KnownKeys()) {
    INFO(k.path);
    CHECK(seen.insert(k.path).second);
    CHECK_FALSE(k.doc.empty());
    CHECK(k.doc.find('\n') == std::string::npos);
    const bool table = k.type == KeyType::kTable || k.type == KeyType::kTableArray;
    CHECK(static_cast<bool>(k.set) == !table);
    CHECK(static_cast<bool>(k.get) == !table);
    CHECK(k.default_value.empty() == (table || k.optional));
    if (k.type == KeyType::kInt && !k.optional) {
      CHECK(k.min <= k.max);
      const int64_t d = std::stoll(k.default_value);
      CHECK(d >= k.min);
      CHECK(d <= k.max);
    }
    if (!k.allowed.empty()) {
      CHECK(std::find(k.allowed.begin(), k.allowed.end(),
                      k.default_value.substr(1, k.default_value.size() - 2)) != k.allowed.end());
    }
    // A key's table is listed before it.
    if (size_t dot = k.path.rfind('.'); dot != std::string::npos) CHECK(seen.count(k.path.substr(0, dot)) == 1);
  }
}

TEST_CASE("keys: defaults are read from the structs of config.h", "[config]") {
  struct Case {
    const char* path;
    const char* value;
  };
  for (const auto& c : std::vector<Case>{{"server.listen", "\"0.0.0.0:8443\""},
                                         {"server.threads", "128"},
                                         {"server.plain_http", "false"},
                                         {"storage.path", "\"data/hookinbox.db\""},
                                         {"worker.backoff_max_ms", "3600000"},
                                         {"worker.retry_for", "\"3d\""},
                                         {"worker.max_attempts", ""},
                                         {"endpoint.action.retry_for", ""},
                                         {"endpoint.provider", "\"generic\""},
                                         {"endpoint.content_types", "[\"application/json\"]"},
                                         {"endpoint.event_types", "[]"},
                                         {"endpoint.secret_env", "\"\""},
                                         {"endpoint.signature.format", "\"{signature}\""},
                                         {"endpoint.signature.tolerance_seconds", "300"},
                                         {"endpoint.key.canonical_hash", "false"},
                                         {"alert.dead_letters", "1"},
                                         {"alert.silence", "false"},
                                         {"alert.backlog_age", "\"15m\""},
                                         {"alert.disk_free", "\"1GB\""},
                                         {"alert.database_size", "false"},
                                         {"alert.remind_every", "\"4h\""},
                                         {"alert.channel.timeout_seconds", "10"},
                                         {"endpoint.alert.breaker_open", "\"10m\""}}) {
    INFO(c.path);
    const KeyInfo* k = FindKey(c.path);
    REQUIRE(k != nullptr);
    CHECK(k->default_value == c.value);
  }
  CHECK(FindKey("endpoint.no_such_table") == nullptr);
  CHECK(FindKey("endpoint[0].name") == nullptr);
}

TEST_CASE("keys: a sample file written from the table loads without key or type errors", "[config]") {
  // What `init` will do: every key with its default, under its table.
  std::string toml;
  for (const auto& k : KnownKeys()) {
    if (k.type == KeyType::kTable) {
      toml += "\n[" + k.path + "]\n";
    } else if (k.type == KeyType::kTableArray) {
      toml += "\n[[" + k.path + "]]\n";
    } else if (k.optional) {
      toml += "# " + k.doc + "\n# " + k.path.substr(k.path.rfind('.') + 1) + " = \n";
    } else {
      toml += "# " + k.doc + "\n" + k.path.substr(k.path.rfind('.') + 1) + " = " + k.default_value + "\n";
    }
  }
  LoadResult r = LoadString(toml, "sample.toml", "/tmp");
  INFO(toml << "\n" << Dump(r.errors));
  REQUIRE_FALSE(r.errors.empty());  // the sample leaves name, secrets and key sources empty
  for (const auto& p : r.errors) {
    INFO(Describe(p, "sample.toml"));
    CHECK_FALSE(p.key.empty());
    CHECK_THAT(p.message, !Catch::StartsWith("unknown key") && !Catch::StartsWith("must be a") &&
                              !Catch::StartsWith("must be true") && !Catch::StartsWith("must be between"));
  }
}

TEST_CASE("keys: rejection messages list what is allowed", "[config]") {
  KeyValue v;
  v.text = "sha384";
  CHECK(FindKey("endpoint.signature.algorithm")->RejectionFor(v) == "must be one of sha1, sha256, sha512, md5, sha1-digest, sha256-digest, sha512-digest, md5-digest (got \"sha384\")");
  v.text = "stripe";
  CHECK(FindKey("endpoint.provider")->RejectionFor(v) == "unknown provider \"stripe\"; supported: generic");
  v.text = "{allowed}";
  CHECK(FindKey("endpoint.provider")->RejectionFor(v) == "unknown provider \"{allowed}\"; supported: generic");
  v.number = 3;
  CHECK(FindKey("server.threads")->RejectionFor(v) == "must be between 4 and 1024 (got 3)");
}

TEST_CASE("keys: TomlQuote escapes quotes, backslashes and control characters", "[config]") {
  CHECK(TomlQuote("plain") == "\"plain\"");
  CHECK(TomlQuote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(TomlQuote("l1\nl2\t\x01") == "\"l1\\nl2\\t\\u0001\"");
}
