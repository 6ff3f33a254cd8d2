// The key table. One row per key, in the order a sample file lists them.
//
// Rows are built by small helpers that take a section accessor (which struct
// the key lives in) and a member pointer (which field), so each row says
// where its value goes and nothing else needs to know. Bounds are the ones
// SPEC §9 pins (worker minimums) or that keep a typo from becoming a
// resource problem (threads, timeouts, body sizes); cross-field rules live in
// validate.cpp.
#include "config/keys.h"

#include <cassert>
#include <cstdio>
#include <limits>
#include <optional>

#include "config/duration.h"
#include "config/size.h"

namespace hookinbox::config {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

// Section accessors: which struct a key of each table writes into.
ServerConfig* Server(const KeyTarget& t) { return &t.config->server; }
AdminConfig* Admin(const KeyTarget& t) { return &t.config->admin; }
LogConfig* Log(const KeyTarget& t) { return &t.config->log; }
StorageConfig* Storage(const KeyTarget& t) { return &t.config->storage; }
WorkerConfig* Worker(const KeyTarget& t) { return &t.config->worker; }
EndpointConfig* Endpoint(const KeyTarget& t) { return t.endpoint; }
SignatureConfig* Signature(const KeyTarget& t) { return &t.endpoint->signature; }
KeyConfig* Key(const KeyTarget& t) { return &t.endpoint->key; }
TenantConfig* Tenant(const KeyTarget& t) { return t.tenant; }
SecretSources* EndpointSecrets(const KeyTarget& t) { return &t.sources->secrets; }
SecretSources* EndpointPublicKeys(const KeyTarget& t) { return &t.sources->public_keys; }
SecretSources* EndpointVerifyToken(const KeyTarget& t) { return &t.sources->verify_token; }
ActionConfig* Action(const KeyTarget& t) { return &t.endpoint->action; }
BusinessKeyConfig* BusinessKey(const KeyTarget& t) { return &t.endpoint->business_key; }
OrderingConfig* Ordering(const KeyTarget& t) { return &t.endpoint->ordering; }
RetentionConfig* Retention(const KeyTarget& t) { return &t.endpoint->retention; }
SecretSources* ActionForwardSecret(const KeyTarget& t) { return &t.sources->forward_secret; }
SecretSources* ActionAuthSecret(const KeyTarget& t) { return &t.sources->auth_secret; }
SecretSources* TenantSecrets(const KeyTarget& t) { return t.tenant_sources; }
AlertConfig* Alert(const KeyTarget& t) { return &t.config->alert; }
AlertThresholds* AlertLimits(const KeyTarget& t) { return &t.config->alert.thresholds; }
AlertThresholds* EndpointAlert(const KeyTarget& t) { return &t.endpoint->alert; }
AlertChannelConfig* Channel(const KeyTarget& t) { return t.channel; }
ChannelSources* ChannelSrc(const KeyTarget& t) { return t.channel_sources; }
SecretSources* ChannelSecret(const KeyTarget& t) { return &t.channel_sources->secret; }

template <class S>
using Section = S* (*)(const KeyTarget&);

std::string RenderList(const std::vector<std::string>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out += ", ";
    out += TomlQuote(list[i]);
  }
  return out + "]";
}

KeyInfo Table(std::string path, KeyType type, std::string doc) {
  KeyInfo k;
  k.path = std::move(path);
  k.type = type;
  k.doc = std::move(doc);
  return k;
}

template <class S>
KeyInfo String(std::string path, Section<S> section, std::string S::*field, std::string doc,
               std::vector<std::string> allowed = {}, std::string rejection = {}) {
  KeyInfo k = Table(std::move(path), KeyType::kString, std::move(doc));
  k.allowed = std::move(allowed);
  k.rejection = std::move(rejection);
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) { section(t)->*field = v.text; };
  k.get = [section, field](const KeyTarget& t) { return TomlQuote(section(t)->*field); };
  return k;
}

template <class S>
KeyInfo Bool(std::string path, Section<S> section, bool S::*field, std::string doc) {
  KeyInfo k = Table(std::move(path), KeyType::kBool, std::move(doc));
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) { section(t)->*field = v.flag; };
  k.get = [section, field](const KeyTarget& t) { return std::string(section(t)->*field ? "true" : "false"); };
  return k;
}

template <class S>
KeyInfo Strings(std::string path, Section<S> section, std::vector<std::string> S::*field, std::string doc) {
  KeyInfo k = Table(std::move(path), KeyType::kStringArray, std::move(doc));
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) { section(t)->*field = v.list; };
  k.get = [section, field](const KeyTarget& t) { return RenderList(section(t)->*field); };
  return k;
}

template <class S>
KeyInfo StringMap(std::string path, Section<S> section, std::vector<std::pair<std::string, std::string>> S::*field,
                  std::string doc) {
  KeyInfo k = Table(std::move(path), KeyType::kStringMap, std::move(doc));
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) { section(t)->*field = v.map; };
  k.get = [section, field](const KeyTarget& t) {
    std::string out = "{";
    for (const auto& [name, value] : section(t)->*field) {
      out += (out.size() > 1 ? ", " : " ") + TomlQuote(name) + " = " + TomlQuote(value);
    }
    return out + (out.size() > 1 ? " }" : "}");
  };
  return k;
}
template <class S, class I>
KeyInfo Int(std::string path, Section<S> section, I S::*field, int64_t min, int64_t max, std::string doc) {
  // The loader checks bounds before calling set, so the cast below cannot narrow.
  assert(min >= std::numeric_limits<I>::min() && max <= std::numeric_limits<I>::max());
  KeyInfo k = Table(std::move(path), KeyType::kInt, std::move(doc));
  k.min = min;
  k.max = max;
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) { section(t)->*field = static_cast<I>(v.number); };
  k.get = [section, field](const KeyTarget& t) { return std::to_string(section(t)->*field); };
  return k;
}

// An integer key that may be left unset (no default; see KeyInfo::optional).
template <class S, class I>
KeyInfo OptionalInt(std::string path, Section<S> section, std::optional<I> S::*field, int64_t min, int64_t max,
                    std::string doc) {
  assert(min >= std::numeric_limits<I>::min() && max <= std::numeric_limits<I>::max());
  KeyInfo k = Table(std::move(path), KeyType::kInt, std::move(doc));
  k.min = min;
  k.max = max;
  k.optional = true;
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) { section(t)->*field = static_cast<I>(v.number); };
  k.get = [section, field](const KeyTarget& t) {
    const std::optional<I>& value = section(t)->*field;
    return value ? std::to_string(*value) : std::string();
  };
  return k;
}

// A duration key ("3d"), held in ms; the loader checks it with ParseDurationMs.
template <class S>
KeyInfo Duration(std::string path, Section<S> section, int64_t S::*field, std::string doc) {
  KeyInfo k = Table(std::move(path), KeyType::kDuration, std::move(doc));
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) { section(t)->*field = v.number; };
  k.get = [section, field](const KeyTarget& t) { return TomlQuote(FormatDurationMs(section(t)->*field)); };
  return k;
}

// A duration key that may be left unset (no default; see KeyInfo::optional).
template <class S>
KeyInfo OptionalDuration(std::string path, Section<S> section, std::optional<int64_t> S::*field, std::string doc) {
  KeyInfo k = Table(std::move(path), KeyType::kDuration, std::move(doc));
  k.optional = true;
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) { section(t)->*field = v.number; };
  k.get = [section, field](const KeyTarget& t) {
    const std::optional<int64_t>& value = section(t)->*field;
    return value ? TomlQuote(FormatDurationMs(*value)) : std::string();
  };
  return k;
}

// An alert threshold: a count, or `false` for off (nullopt).
template <class S>
KeyInfo Threshold(std::string path, Section<S> section, std::optional<int64_t> S::*field, int64_t max,
                  std::string doc) {
  KeyInfo k = Table(std::move(path), KeyType::kInt, std::move(doc));
  k.min = 1;
  k.max = max;
  k.off_allowed = true;
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) {
    section(t)->*field = v.off ? std::nullopt : std::optional<int64_t>(v.number);
  };
  k.get = [section, field](const KeyTarget& t) {
    const std::optional<int64_t>& value = section(t)->*field;
    return value ? std::to_string(*value) : std::string("false");
  };
  return k;
}

// An alert threshold written as a duration ("15m") or a size ("1GB"), or `false` for off.
template <class S>
KeyInfo TextThreshold(std::string path, KeyType type, Section<S> section, std::optional<int64_t> S::*field,
                      std::string doc) {
  KeyInfo k = Table(std::move(path), type, std::move(doc));
  k.off_allowed = true;
  k.set = [section, field](const KeyTarget& t, const KeyValue& v) {
    section(t)->*field = v.off ? std::nullopt : std::optional<int64_t>(v.number);
  };
  k.get = [section, field, type](const KeyTarget& t) {
    const std::optional<int64_t>& value = section(t)->*field;
    if (!value) return std::string("false");
    return TomlQuote(type == KeyType::kSize ? FormatSizeBytes(*value) : FormatDurationMs(*value));
  };
  return k;
}

// The seven per-endpoint thresholds, for [alert] and for [endpoint.alert].
void AddThresholdKeys(std::vector<KeyInfo>& k, const std::string& prefix, Section<AlertThresholds> s,
                      const std::string& scope) {
  using T = AlertThresholds;
  k.push_back(Threshold(prefix + ".dead_letters", s, &T::dead_letters, 1000000,
                        "alert when this many events were dead-lettered " + scope + " since the last check; false = off"));
  k.push_back(Threshold(prefix + ".unknown", s, &T::unknown, 1000000,
                        "alert when this many events " + scope + " are in unknown (outcome not known); false = off"));
  k.push_back(Threshold(prefix + ".conflicts", s, &T::conflicts, 1000000,
                        "alert on this many new conflicts " + scope + " (one key, different payloads); false = off"));
  k.push_back(TextThreshold(prefix + ".backlog_age", KeyType::kDuration, s, &T::backlog_age_ms,
                            "alert when the oldest due event " + scope + " has waited longer than this; false = off"));
  k.push_back(Threshold(prefix + ".signature_failures", s, &T::signature_failures, 1000000,
                        "alert when this many deliveries " + scope +
                            " are refused for their signature within 5 minutes (a rotated secret?); false = off"));
  k.push_back(TextThreshold(prefix + ".silence", KeyType::kDuration, s, &T::silence_ms,
                            "alert when no delivery " + scope + " was accepted for this long, e.g. \"24h\"; false = off"));
  k.push_back(TextThreshold(prefix + ".breaker_open", KeyType::kDuration, s, &T::breaker_open_ms,
                            "alert when a circuit breaker " + scope + " stays open longer than this; false = off"));
}

// [alert]: the installation-wide conditions, the reminders and the digest.
void AddAlertKeys(std::vector<KeyInfo>& k) {
  k.push_back(Table("alert", KeyType::kTable, "when to tell a person, and the daily digest (see Alerts)"));
  AddThresholdKeys(k, "alert", AlertLimits, "on an endpoint");
  k.push_back(Threshold("alert.certificate_days", Alert, &AlertConfig::certificate_days, 3650,
                        "alert when a listener's TLS certificate expires within this many days; false = off"));
  k.push_back(TextThreshold("alert.disk_free", KeyType::kSize, Alert, &AlertConfig::disk_free_bytes,
                            "alert when free space on the database's file system falls under this (\"500MB\", "
                            "\"1GB\"); false = off"));
  k.push_back(TextThreshold("alert.database_size", KeyType::kSize, Alert, &AlertConfig::database_size_bytes,
                            "alert when the database grows past this (\"10GB\"); false = off"));
  k.push_back(Threshold("alert.storage_failures", Alert, &AlertConfig::storage_failures, 1000000,
                        "alert on this many deliveries answered 503 (storage unavailable) since the last check; "
                        "false = off"));
  KeyInfo remind = Table("alert.remind_every", KeyType::kDuration,
                         "while an incident lasts, remind at most this often; false = no reminders");
  remind.off_allowed = true;
  remind.set = [](const KeyTarget& t, const KeyValue& v) { t.config->alert.remind_every_ms = v.off ? 0 : v.number; };
  remind.get = [](const KeyTarget& t) {
    const int64_t ms = t.config->alert.remind_every_ms;
    return ms == 0 ? std::string("false") : TomlQuote(FormatDurationMs(ms));
  };
  k.push_back(std::move(remind));
  k.push_back(Duration("alert.check_every", Alert, &AlertConfig::check_every_ms,
                       "how often the conditions are evaluated"));
  k.push_back(String("alert.digest_at", Alert, &AlertConfig::digest_at,
                     "\"HH:MM\" (server local time) to send the daily digest; \"\" = no digest"));
  k.push_back(String("alert.digest_channel", Alert, &AlertConfig::digest_channel,
                     "the [[alert.channel]] name the digest goes to; \"\" = every channel"));
  k.push_back(String("alert.ui_url", Alert, &AlertConfig::ui_url,
                     "the admin UI's address as a person opens it, for links in messages; \"\" = no links"));
}

// [[alert.channel]]: where notifications go (alert/channel.h).
void AddChannelKeys(std::vector<KeyInfo>& k) {
  k.push_back(Table("alert.channel", KeyType::kTableArray, "one [[alert.channel]] per place alerts are sent"));
  k.push_back(String("alert.channel.name", Channel, &AlertChannelConfig::name,
                     "unique name: what alert test, digest_channel and the records say"));
  k.push_back(String("alert.channel.type", Channel, &AlertChannelConfig::type,
                     "email, slack, teams, discord or webhook", {"", "email", "slack", "teams", "discord", "webhook"},
                     "must be one of email, slack, teams, discord, webhook (got {value})"));
  k.push_back(String("alert.channel.url", ChannelSrc, &ChannelSources::url,
                     "slack, teams, discord, webhook: the https URL to POST to (it is itself a credential: prefer "
                     "url_env or url_file)"));
  k.push_back(String("alert.channel.url_env", ChannelSrc, &ChannelSources::url_env,
                     "environment variable holding url instead"));
  k.push_back(String("alert.channel.url_file", ChannelSrc, &ChannelSources::url_file,
                     "file holding url instead, read like a secret file; relative to the config file"));
  k.push_back(String("alert.channel.smtp_url", ChannelSrc, &ChannelSources::smtp_url,
                     "email: smtp://user:password@host:587 (STARTTLS required) or smtps://user:password@host:465 "
                     "(prefer smtp_url_env or smtp_url_file)"));
  k.push_back(String("alert.channel.smtp_url_env", ChannelSrc, &ChannelSources::smtp_url_env,
                     "environment variable holding smtp_url instead"));
  k.push_back(String("alert.channel.smtp_url_file", ChannelSrc, &ChannelSources::smtp_url_file,
                     "file holding smtp_url instead, read like a secret file; relative to the config file"));
  k.push_back(String("alert.channel.from", Channel, &AlertChannelConfig::from,
                     "email: the From address, e.g. \"hookinbox@example.com\""));
  k.push_back(Strings("alert.channel.to", Channel, &AlertChannelConfig::to,
                      "email: the recipients, e.g. [\"ops@example.com\"]"));
  k.push_back(String("alert.channel.secret_env", ChannelSecret, &SecretSources::env,
                     "webhook: environment variable holding the Standard Webhooks secret (whsec_<base64>)"));
  k.push_back(String("alert.channel.secret_file", ChannelSecret, &SecretSources::file,
                     "webhook: file holding that secret; relative to the config file"));
  k.push_back(String("alert.channel.ca_file", Channel, &AlertChannelConfig::ca_file,
                     "PEM CA bundle to trust instead of the system CAs; relative to the config file"));
  k.push_back(Int("alert.channel.timeout_seconds", Channel, &AlertChannelConfig::timeout_seconds, 1, 300,
                  "one send attempt gives up after this many seconds"));
}

// The four secret source keys, for [[endpoint]] and for [[endpoint.tenants]].
void AddSecretKeys(std::vector<KeyInfo>& keys, const std::string& prefix, Section<SecretSources> section) {
  keys.push_back(String(prefix + ".secret_env", section, &SecretSources::env,
                        "environment variable holding the secret"));
  keys.push_back(String(prefix + ".secret_file", section, &SecretSources::file,
                        "file holding the secret (one trailing newline is ignored); relative to the config file"));
  keys.push_back(Strings(prefix + ".secrets_env", section, &SecretSources::envs,
                         "several secret variables, newest first, all accepted (rotation)"));
  keys.push_back(Strings(prefix + ".secrets_file", section, &SecretSources::files,
                         "several secret files, newest first, all accepted (rotation)"));
}

std::vector<KeyInfo> BuildKeys() {
  std::vector<KeyInfo> k;
  k.push_back(Table("server", KeyType::kTable, "the public listener that receives webhooks"));
  k.push_back(String("server.listen", Server, &ServerConfig::listen,
                     "host:port of the public listener; port 0 = any free port"));
  k.push_back(String("server.tls_cert", Server, &ServerConfig::tls_cert,
                     "PEM certificate (chain); relative to the config file"));
  k.push_back(String("server.tls_key", Server, &ServerConfig::tls_key, "PEM private key; relative to the config file"));
  k.push_back(Bool("server.plain_http", Server, &ServerConfig::plain_http,
                   "serve plain HTTP; only behind a TLS-terminating proxy"));
  k.push_back(Int("server.max_body_bytes", Server, &ServerConfig::max_body_bytes, 1, kGiB,
                  "default body limit per endpoint in bytes; 413 above it"));
  k.push_back(Int("server.threads", Server, &ServerConfig::threads, 4, 1024,
                  "connection threads; a keep-alive connection holds one"));
  k.push_back(Int("server.keep_alive_max_requests", Server, &ServerConfig::keep_alive_max_requests, 1, 1000000,
                  "requests per connection before it is closed"));
  k.push_back(Int("server.keep_alive_timeout_seconds", Server, &ServerConfig::keep_alive_timeout_seconds, 1, 3600,
                  "idle keep-alive connection lifetime in seconds"));
  k.push_back(Int("server.read_timeout_seconds", Server, &ServerConfig::read_timeout_seconds, 1, 3600,
                  "slow senders are cut off after this many seconds"));
  k.push_back(Int("server.write_timeout_seconds", Server, &ServerConfig::write_timeout_seconds, 1, 3600,
                  "slow readers are cut off after this many seconds"));
  k.push_back(Int("server.listen_backlog", Server, &ServerConfig::listen_backlog, 16, 65535,
                  "accept queue length"));
  k.push_back(Int("server.max_connections", Server, &ServerConfig::max_connections, 16, 65536,
                  "open connections in all; sockets past it are closed at accept"));
  k.push_back(Int("server.max_connections_per_address", Server, &ServerConfig::max_connections_per_address, 1,
                  65536, "open connections from one IPv4 address or IPv6 /64; raise it behind a proxy"));
  k.push_back(Int("server.header_timeout_seconds", Server, &ServerConfig::header_timeout_seconds, 1, 3600,
                  "a connection's TLS handshake and request headers must arrive within this many seconds"));
  k.push_back(Int("server.max_header_bytes", Server, &ServerConfig::max_header_bytes, 32768, 16777216,
                  "bytes a connection may send (TLS handshake included) before its request headers end; "
                  "at least 32 KiB, as one 16 KiB TLS record may carry the headers and the body's start"));
  k.push_back(Int("server.body_timeout_seconds", Server, &ServerConfig::body_timeout_seconds, 1, 86400,
                  "a request's body must arrive and be answered within this many seconds"));

  k.push_back(Table("admin", KeyType::kTable, "the admin listener: web UI, API, metrics"));
  k.push_back(String("admin.listen", Admin, &AdminConfig::listen, "host:port of the admin listener"));
  k.push_back(String("admin.token_env", Admin, &AdminConfig::token_env,
                     "environment variable holding the admin bearer token"));
  k.push_back(String("admin.token_file", Admin, &AdminConfig::token_file,
                     "file holding the admin bearer token; relative to the config file"));
  k.push_back(String("admin.tls_cert", Admin, &AdminConfig::tls_cert,
                     "PEM certificate for HTTPS on the admin listener (with tls_key); relative to the config file"));
  k.push_back(String("admin.tls_key", Admin, &AdminConfig::tls_key,
                     "PEM private key for HTTPS on the admin listener (with tls_cert); relative to the config file"));
  k.push_back(Int("admin.max_connections", Admin, &AdminConfig::max_connections, 16, 65536,
                  "open admin connections in all; sockets past it are closed at accept"));
  k.push_back(Int("admin.max_connections_per_address", Admin, &AdminConfig::max_connections_per_address, 1, 65536,
                  "open admin connections from one address (handlers on this host share 127.0.0.1)"));
  k.push_back(String("admin.metrics_token_env", Admin, &AdminConfig::metrics_token_env,
                     "environment variable holding a bearer token for GET /metrics; unset = no token needed"));
  k.push_back(Bool("admin.allow_plain_http", Admin, &AdminConfig::allow_plain_http,
                   "serve the admin listener without TLS on a non-loopback address (behind a TLS proxy only)"));
  k.push_back(Strings("admin.allowed_hosts", Admin, &AdminConfig::allowed_hosts,
                      "further host names the admin listener answers to (Host header), e.g. [\"admin.example.com\"]"));
  k.push_back(String("admin.handler_api_listen", Admin, &AdminConfig::handler_api_listen,
                     "host:port of a second listener serving only the handler API (/v1), e.g. the Docker bridge "
                     "\"172.17.0.1:8082\"; same TLS and limits as admin.listen; \"\" = none"));
  k.push_back(String("admin.handler_api_url", Admin, &AdminConfig::handler_api_url,
                     "how handlers reach the handler API, without /v1, e.g. \"http://172.17.0.1:8082\"; sent with "
                     "/v1 as X-Hookinbox-Api and HOOKINBOX_API; \"\" = built from handler_api_listen or listen"));

  k.push_back(Table("log", KeyType::kTable, "the JSON log lines on stderr"));
  k.push_back(Strings("log.redact", Log, &LogConfig::redact,
                      "log field names whose values are written as \"[redacted]\", e.g. [\"remote_addr\"]"));

  k.push_back(Table("storage", KeyType::kTable, "where events and the audit trail are kept"));
  k.push_back(String("storage.backend", Storage, &StorageConfig::backend,
                     "storage engine: sqlite (one file) or postgres (one database shared by replicas)",
                     {"sqlite", "postgres"}));
  k.push_back(String("storage.path", Storage, &StorageConfig::path,
                     "SQLite database file; relative to the config file (backend = \"sqlite\")"));
  k.push_back(Int("storage.busy_timeout_ms", Storage, &StorageConfig::busy_timeout_ms, 0, 600000,
                  "wait this long for a lock held by another process, then answer 503"));
  k.push_back(Int("storage.max_batch", Storage, &StorageConfig::max_batch, 1, 10000,
                  "most writes grouped into one commit"));
  k.push_back(String("storage.url", Storage, &StorageConfig::url,
                     "PostgreSQL connection string, postgresql://user:password@host/db or \"host=… dbname=…\" "
                     "(backend = \"postgres\"); kept out of logs"));
  k.push_back(String("storage.url_file", Storage, &StorageConfig::url_file,
                     "file holding storage.url, read like a secret file; relative to the config file "
                     "(set one of url, url_env, url_file)"));
  k.push_back(String("storage.url_env", Storage, &StorageConfig::url_env,
                     "environment variable holding storage.url instead (set one of url, url_env, url_file)"));
  k.push_back(Int("storage.pool_size", Storage, &StorageConfig::pool_size, 2, 64,
                  "PostgreSQL connections per process: one writes, the others read"));

  k.push_back(Table("worker", KeyType::kTable, "the background worker that processes stored events"));
  k.push_back(Int("worker.threads", Worker, &WorkerConfig::threads, 1, 1024, "events processed at once"));
  k.push_back(Int("worker.lease_seconds", Worker, &WorkerConfig::lease_seconds, 1, 86400,
                  "an event in processing is claimable again after this"));
  k.push_back(OptionalInt("worker.max_attempts", Worker, &WorkerConfig::max_attempts, 1, 10000,
                          "attempts before an event is dead-lettered, even within retry_for; unset = no limit"));
  k.push_back(Duration("worker.retry_for", Worker, &WorkerConfig::retry_for_ms,
                       "how long transient failures are retried, from the event's arrival (or replay): \"90s\", "
                       "\"30m\", \"6h\", \"3d\"; the last attempt is at that moment, then it is dead-lettered"));
  k.push_back(Int("worker.backoff_initial_ms", Worker, &WorkerConfig::backoff_initial_ms, 10, 86400000,
                  "delay before the first retry; doubles per attempt, with jitter"));
  k.push_back(Int("worker.backoff_max_ms", Worker, &WorkerConfig::backoff_max_ms, 10, 604800000,
                  "longest delay between retries, also when Retry-After asks for more"));
  k.push_back(Int("worker.shutdown_grace_seconds", Worker, &WorkerConfig::shutdown_grace_seconds, 0, 3600,
                  "how long shutdown waits for running actions"));

  AddAlertKeys(k);
  AddChannelKeys(k);

  k.push_back(Table("endpoint", KeyType::kTableArray, "one [[endpoint]] per webhook URL: POST /hooks/{name}"));
  k.push_back(String("endpoint.name", Endpoint, &EndpointConfig::name,
                     "the {name} of POST /hooks/{name}; letters, digits, '.', '_', '-'"));
  k.push_back(String("endpoint.provider", Endpoint, &EndpointConfig::provider, "\"generic\" or a provider preset (see Provider presets); a preset fills signature, key, volatile_fields and content_types, and keys written here override it", {"generic"},
                     "unknown provider {value}; supported: {allowed}"));
  k.push_back(String("endpoint.tenant", Endpoint, &EndpointConfig::tenant, "tenant_id stored with each event"));
  AddSecretKeys(k, "endpoint", EndpointSecrets);
  k.push_back(String("endpoint.public_key_env", EndpointPublicKeys, &SecretSources::env,
                     "environment variable holding the provider's public key (asymmetric schemes): Discord hex, "
                     "SendGrid or Wise base64 DER or PEM"));
  k.push_back(String("endpoint.public_key_file", EndpointPublicKeys, &SecretSources::file,
                     "file holding the provider's public key, or for rsa-sha256-cert (PayPal) the pinned PEM "
                     "certificate; relative to the config file"));
  k.push_back(Strings("endpoint.public_keys_env", EndpointPublicKeys, &SecretSources::envs,
                      "several public key variables, all accepted (rotation)"));
  k.push_back(Strings("endpoint.public_keys_file", EndpointPublicKeys, &SecretSources::files,
                      "several public key or certificate files, all accepted (rotation)"));
  k.push_back(String("endpoint.verify_token_env", EndpointVerifyToken, &SecretSources::env,
                     "environment variable holding the verify token Meta's GET subscription check must present "
                     "(hub.verify_token; provider meta)"));
  k.push_back(String("endpoint.verify_token_file", EndpointVerifyToken, &SecretSources::file,
                     "file holding that verify token; relative to the config file"));
  k.push_back(Int("endpoint.max_body_bytes", Endpoint, &EndpointConfig::max_body_bytes, 0, kGiB,
                  "body limit in bytes; 0 = server.max_body_bytes"));
  k.push_back(Strings("endpoint.content_types", Endpoint, &EndpointConfig::content_types,
                      "accepted media types (parameters ignored); others get 415"));
  k.push_back(Strings("endpoint.event_types", Endpoint, &EndpointConfig::event_types,
                      "allow-list of event types; empty = all"));
  k.push_back(Bool("endpoint.ignore_other_event_types", Endpoint, &EndpointConfig::ignore_other_event_types,
                   "answer 200 \"ignored\" instead of 422 for event types not in event_types"));
  k.push_back(Bool("endpoint.insecure", Endpoint, &EndpointConfig::insecure,
                   "required for signature.scheme = \"none\""));
  k.push_back(String("endpoint.public_url", Endpoint, &EndpointConfig::public_url,
                     "the full URL the provider was given; what {url} in signed_payload stands for"));
  k.push_back(String("endpoint.rotation_ends", Endpoint, &EndpointConfig::rotation_ends,
                     "YYYY-MM-DD (UTC) by which a rotated-out secret should be removed; warned about after it"));
  k.push_back(Strings("endpoint.volatile_fields", Endpoint, &EndpointConfig::volatile_fields,
                      "JSON Pointers removed before the payload hash (fields a provider changes on retries); "
                      "a segment * means every element"));
  k.push_back(Strings("endpoint.redact", Endpoint, &EndpointConfig::redact,
                      "JSON Pointers whose values the admin API shows as \"[redacted]\" in a payload"));

  k.push_back(Table("endpoint.signature", KeyType::kTable, "how a delivery proves it came from the provider"));
  k.push_back(String("endpoint.signature.scheme", Signature, &SignatureConfig::scheme,
                     "hmac, token, basic or none (none needs insecure = true), or an asymmetric kind checked "
                     "against the endpoint's public keys: ed25519, ecdsa-p256-sha256, rsa-sha256-cert or rsa-sha256; "
                     "adyen-hmac: Adyen's per-item signatures",
                     {"hmac", "token", "basic", "none", "ed25519", "ecdsa-p256-sha256", "rsa-sha256-cert", "rsa-sha256",
                      "adyen-hmac"}));
  k.push_back(String("endpoint.signature.header", Signature, &SignatureConfig::header,
                     "header carrying the signature or token"));
  k.push_back(String("endpoint.signature.format", Signature, &SignatureConfig::format,
                     "where the signature sits in the header value, e.g. \"t={timestamp},v1={signature}\""));
  k.push_back(String("endpoint.signature.algorithm", Signature, &SignatureConfig::algorithm,
                     "HMAC hash (md5 only for providers that still use it: WayForPay); \"<hash>-digest\": a "
                     "plain hash of signed_payload, which must then contain {secret} (LiqPay, Fondy)",
                     {"sha1", "sha256", "sha512", "md5", "sha1-digest", "sha256-digest", "sha512-digest", "md5-digest"}));
  k.push_back(String("endpoint.signature.encoding", Signature, &SignatureConfig::encoding,
                     "encoding of the signature", {"hex", "base64", "base64url"}));
  k.push_back(String("endpoint.signature.secret_encoding", Signature, &SignatureConfig::secret_encoding,
                     "how a secret becomes HMAC key bytes (after secret_prefix is removed); html-entities "
                     "decodes &amp; &lt; &gt; &quot; &#039; as WooCommerce does",
                     {"utf8", "base64", "hex", "html-entities"}));
  k.push_back(String("endpoint.signature.secret_prefix", Signature, &SignatureConfig::secret_prefix,
                     "removed from the start of a secret before decoding, e.g. \"whsec_\""));
  k.push_back(String("endpoint.signature.signed_payload", Signature, &SignatureConfig::signed_payload,
                     "the signed bytes: {body}, with optional {timestamp}, {id}, {method} and {url}; "
                     "asymmetric schemes also {header:NAME}, {webhook_id} and {crc32} (the body's CRC-32); "
                     "{token}: the string at token_pointer (Mailgun); {secret}: the secret itself, only with a "
                     "\"<hash>-digest\" algorithm (LiqPay, Fondy)"));
  k.push_back(String("endpoint.signature.webhook_id", Signature, &SignatureConfig::webhook_id,
                     "what {webhook_id} in signed_payload stands for: the provider's id of this webhook "
                     "(PayPal's Webhook ID)"));
  k.push_back(String("endpoint.signature.timestamp_header", Signature, &SignatureConfig::timestamp_header,
                     "header with the signed timestamp, if any"));
  k.push_back(String("endpoint.signature.timestamp_pointer", Signature, &SignatureConfig::timestamp_pointer,
                     "JSON Pointer to the timestamp in the body (a number or numeric string), if any"));
  k.push_back(String("endpoint.signature.timestamp_unit", Signature, &SignatureConfig::timestamp_unit,
                     "unit of the received timestamp: s, ms or iso8601 (RFC 3339 text, e.g. "
                     "\"2026-11-30T17:00:00Z\")",
                     {"s", "ms", "iso8601"}));
  k.push_back(String("endpoint.signature.signature_pointer", Signature, &SignatureConfig::signature_pointer,
                     "JSON Pointer to the signature inside the body instead of a header (Mailgun "
                     "\"/signature/signature\"); signed_payload then must not contain {body}"));
  k.push_back(String("endpoint.signature.signature_source", Signature, &SignatureConfig::signature_source,
                     "where the signature is when not in a header: \"json:<pointer>\" (\"json:/signature\"), "
                     "\"form:<field>\" or \"query:<parameter>\" (\"query:vnp_SecureHash\")"));
  k.push_back(String("endpoint.signature.access_key", Signature, &SignatureConfig::access_key,
                     "what {access_key} in signed_payload stands for: a merchant constant the provider signs "
                     "but does not send (MoMo's accessKey)"));
  k.push_back(String("endpoint.signature.token_pointer", Signature, &SignatureConfig::token_pointer,
                     "JSON Pointer to the body field {token} in signed_payload stands for (Mailgun \"/signature/token\")"));
  k.push_back(Strings("endpoint.signature.url_decode", Signature, &SignatureConfig::url_decode,
                      "percent-escapes decoded in {url} before signing, e.g. [\"%3A\", \"%2F\"] (HubSpot v3)"));
  k.push_back(Int("endpoint.signature.tolerance_seconds", Signature, &SignatureConfig::tolerance_seconds, 1, 86400,
                  "a timestamp further than this from now is rejected"));
  k.push_back(String("endpoint.signature.body_kind", Signature, &SignatureConfig::body_kind,
                     "how the body's fields are read by the key and {form_sorted_kv}: json, form "
                     "(x-www-form-urlencoded), multipart (multipart/form-data) or raw",
                     {"json", "form", "multipart", "raw"}));

  k.push_back(Table("endpoint.key", KeyType::kTable, "where the idempotency key and the event type come from"));
  k.push_back(String("endpoint.key.id_header", Key, &KeyConfig::id_header, "header with the provider's event id"));
  k.push_back(String("endpoint.key.id_pointer", Key, &KeyConfig::id_pointer,
                     "JSON Pointer to the provider's event id in the body"));
  k.push_back(Strings("endpoint.key.fields", Key, &KeyConfig::fields,
                      "parts joined with ':' in order to form the key: JSON Pointers (\"/data/id\"), headers (\"header:X-GitHub-Delivery\") or form fields (\"form:MessageSid\")"));
  k.push_back(Bool("endpoint.key.canonical_hash", Key, &KeyConfig::canonical_hash,
                   "key on the hash of the canonical JSON body (last resort)"));
  k.push_back(String("endpoint.key.event_type_pointer", Key, &KeyConfig::event_type_pointer,
                     "JSON Pointer to the event type"));
  k.push_back(String("endpoint.key.event_type_header", Key, &KeyConfig::event_type_header,
                     "header with the event type"));
  k.push_back(Bool("endpoint.key.batch", Key, &KeyConfig::batch,
                   "the body carries several events: each element of the array at batch_pointer becomes its own "
                   "event, and the key's pointers and volatile_fields are relative to the element"));
  k.push_back(String("endpoint.key.batch_pointer", Key, &KeyConfig::batch_pointer,
                     "JSON Pointer of the events array when batch = true (\"\" = the body itself)"));

  // [endpoint.action] (action/action.h).
  k.push_back(Table("endpoint.action", KeyType::kTable,
                    "what the worker does with each stored event; without it events stay received"));
  k.push_back(String("endpoint.action.type", Action, &ActionConfig::type,
                     "http (POST the event to url) or exec (run command); absent = no action", {"", "http", "exec"},
                     "must be \"http\" or \"exec\" (got {value}); leave type out for no action"));
  k.push_back(String("endpoint.action.url", Action, &ActionConfig::url,
                     "http: the http:// or https:// URL the original body is POSTed to; redirects are not followed"));
  k.push_back(Strings("endpoint.action.command", Action, &ActionConfig::command,
                      "exec: argv, run without a shell or PATH search; the first element is absolute or relative "
                      "to the config file"));
  k.push_back(Int("endpoint.action.timeout_ms", Action, &ActionConfig::timeout_ms, 1, 3600000,
                  "exec: the whole command; http: connect and each read or write; past it a sent attempt is "
                  "unknown (or retried when idempotent_target)"));
  k.push_back(Bool("endpoint.action.idempotent_target", Action, &ActionConfig::idempotent_target,
                   "the target deduplicates by Idempotency-Key, so an attempt whose answer was lost is retried "
                   "instead of becoming unknown"));
  k.push_back(String("endpoint.action.forward_secret_env", ActionForwardSecret, &SecretSources::env,
                     "http: environment variable holding the Standard Webhooks secret (whsec_<base64>) that signs "
                     "every forward"));
  k.push_back(String("endpoint.action.forward_secret_file", ActionForwardSecret, &SecretSources::file,
                     "http: file holding that secret; relative to the config file"));
  k.push_back(Int("endpoint.action.concurrency", Action, &ActionConfig::concurrency, 0, 1024,
                  "most events of this endpoint in flight at once; 0 = half of worker.threads, at least 1"));
  k.push_back(Int("endpoint.action.max_per_second", Action, &ActionConfig::max_per_second, 0, 100000,
                  "most attempts started per second (a downstream's API quota), on top of concurrency; 0 = no "
                  "limit"));
  k.push_back(Int("endpoint.action.breaker_failures", Action, &ActionConfig::breaker_failures, 0, 10000,
                  "consecutive connection failures, timeouts or 5xx answers that open the circuit breaker: the "
                  "endpoint's events then wait, spending no attempts, until a trial delivery succeeds; 0 = off"));
  k.push_back(Int("endpoint.action.breaker_probe_seconds", Action, &ActionConfig::breaker_probe_seconds, 1, 86400,
                  "seconds an open breaker waits before one trial delivery; doubles after each failed trial, up "
                  "to 10 minutes (or this, if longer)"));
  k.push_back(String("endpoint.action.result_ref_header", Action, &ActionConfig::result_ref_header,
                     "http: response header whose value is stored as result_ref, e.g. \"Location\""));
  k.push_back(String("endpoint.action.result_ref_pointer", Action, &ActionConfig::result_ref_pointer,
                     "http: JSON Pointer into a JSON answer whose value is stored as result_ref, e.g. \"/id\""));
  k.push_back(String("endpoint.action.ca_file", Action, &ActionConfig::ca_file,
                     "http: PEM CA bundle that verifies an https url; empty = the system CAs; relative to the "
                     "config file"));

  k.push_back(String("endpoint.action.probe_url", Action, &ActionConfig::probe_url,
                     "asked with GET when an attempt ends unknown ({idempotency_key}, {event_id}, {event_type} "
                     "filled in): 200 = found → completed, 404 = not found → retried, else it stays unknown"));
  k.push_back(OptionalDuration("endpoint.action.retry_for", Action, &ActionConfig::retry_for_ms,
                               "this endpoint's retry horizon, as worker.retry_for; unset = worker.retry_for"));
  k.push_back(String("endpoint.action.auth", Action, &ActionConfig::auth,
                     "http: the credential every forward carries besides the signature: bearer (Authorization: "
                     "Bearer), basic (Authorization: Basic, the secret is user:password) or header (auth_header: "
                     "the secret); absent = none",
                     {"", "bearer", "basic", "header"},
                     "must be \"bearer\", \"basic\" or \"header\" (got {value}); leave auth out for none"));
  k.push_back(String("endpoint.action.auth_header", Action, &ActionConfig::auth_header,
                     "http, auth = \"header\": the header that carries the secret, e.g. \"X-N8n-Auth\""));
  k.push_back(String("endpoint.action.auth_secret_env", ActionAuthSecret, &SecretSources::env,
                     "http: environment variable holding the auth credential (the token, or user:password for "
                     "basic)"));
  k.push_back(String("endpoint.action.auth_secret_file", ActionAuthSecret, &SecretSources::file,
                     "http: file holding the auth credential; relative to the config file"));
  k.push_back(Bool("endpoint.action.async", Action, &ActionConfig::async,
                   "http: a 202 Accepted answer means started: the event stays processing (its lease renewed by "
                   "the handler through POST /v1/events/renew) until the handler calls POST "
                   "/v1/events/complete, fail or unknown, or the lease lapses"));

  // [endpoint.business_key] and [endpoint.ordering].
  k.push_back(Table("endpoint.business_key", KeyType::kTable,
                    "two different events meaning one business action are acted on once (semantic duplicates)"));
  k.push_back(Strings("endpoint.business_key.fields", BusinessKey, &BusinessKeyConfig::fields,
                      "JSON Pointers whose values, with the tenant and the operation, make the business key; only "
                      "a hash is stored"));
  k.push_back(String("endpoint.business_key.operation", BusinessKey, &BusinessKeyConfig::operation,
                     "the operation of every event type not listed in operations, e.g. \"mark_paid\"; \"\" = those "
                     "events have no business key"));
  k.push_back(StringMap("endpoint.business_key.operations", BusinessKey, &BusinessKeyConfig::operations,
                        "event type → operation, e.g. \"invoice.paid\" = \"mark_paid\""));
  k.push_back(Table("endpoint.ordering", KeyType::kTable,
                    "events of one object are applied in version order, one at a time; older versions are skipped"));
  k.push_back(String("endpoint.ordering.object", Ordering, &OrderingConfig::object,
                     "JSON Pointer to the object id; an event without it is not ordered"));
  k.push_back(String("endpoint.ordering.version", Ordering, &OrderingConfig::version,
                     "JSON Pointer to the object version: an integer, a Unix time or an RFC 3339 time"));

  // [endpoint.retention] (store/purge.h).
  k.push_back(Table("endpoint.retention", KeyType::kTable,
                    "how long this endpoint's data is kept; an hourly purge in serve (and hookinbox purge) applies it"));
  k.push_back(Int("endpoint.retention.payload_days", Retention, &RetentionConfig::payload_days, 0, 36500,
                  "bodies (payloads, step results) of completed, dead_lettered and skipped events older than this "
                  "many days are removed; 0 = kept"));
  k.push_back(Int("endpoint.retention.key_days", Retention, &RetentionConfig::key_days, 0, 36500,
                  "completed, dead_lettered and skipped events idle for this many days are removed with their audit "
                  "rows (a checkpoint keeps the chain verifiable); at least the provider's redelivery window; "
                  "0 = kept"));

  k.push_back(Table("endpoint.alert", KeyType::kTable,
                    "this endpoint's alert thresholds; keys not written here are [alert]'s"));
  AddThresholdKeys(k, "endpoint.alert", EndpointAlert, "on this endpoint");

  k.push_back(Table("endpoint.tenants", KeyType::kTableArray,
                    "per-tenant secrets; the endpoint is then POST /hooks/{name}/{tenant}"));
  k.push_back(String("endpoint.tenants.id", Tenant, &TenantConfig::id,
                     "the {tenant} path segment and stored tenant_id"));
  AddSecretKeys(k, "endpoint.tenants", TenantSecrets);

  // Defaults come from the structs themselves.
  Config config;
  EndpointConfig endpoint;
  EndpointSources sources;
  TenantConfig tenant;
  SecretSources tenant_sources;
  AlertChannelConfig channel;
  ChannelSources channel_sources;
  const KeyTarget defaults{&config, &endpoint, &sources, &tenant, &tenant_sources, &channel, &channel_sources};
  for (KeyInfo& key : k) {
    if (key.get) key.default_value = key.get(defaults);
  }
  return k;
}

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

}  // namespace

const char* KeyTypeName(KeyType type) {
  switch (type) {
    case KeyType::kString: return "a string";
    case KeyType::kInt: return "an integer";
    case KeyType::kBool: return "true or false";
    case KeyType::kStringArray: return "an array of strings";
    case KeyType::kTable: return "a table";
    case KeyType::kTableArray: return "an array of tables";
    case KeyType::kStringMap: return "a table of strings";
    case KeyType::kDuration: return "a duration";
    case KeyType::kSize: return "a size";
  }
  return "?";
}

std::string KeyInfo::RejectionFor(const KeyValue& value) const {
  if (type == KeyType::kInt) {
    return "must be between " + std::to_string(min) + " and " + std::to_string(max) + " (got " +
           std::to_string(value.number) + ")";
  }
  std::string list;
  for (size_t i = 0; i < allowed.size(); ++i) list += (i > 0 ? ", " : "") + allowed[i];
  std::string message = rejection.empty() ? "must be one of {allowed} (got {value})" : rejection;
  // {value} is replaced last so a value containing "{allowed}" is not expanded.
  ReplaceAll(message, "{allowed}", list);
  ReplaceAll(message, "{value}", TomlQuote(value.text));
  return message;
}

const std::vector<KeyInfo>& KnownKeys() {
  static const std::vector<KeyInfo> keys = BuildKeys();
  return keys;
}

const KeyInfo* FindKey(std::string_view path) {
  for (const KeyInfo& key : KnownKeys()) {
    if (key.path == path) return &key;
  }
  return nullptr;
}

std::string TomlQuote(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace hookinbox::config
