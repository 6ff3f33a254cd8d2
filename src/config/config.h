// config/config.h — the configuration as plain structs.
//
// Owns: every option the product has, with its default and unit. Modules take
// only their own sub-struct, so a test builds one in a line without TOML.
// Filled by config/load.cpp (the only toml++ user) and checked by
// config/validate.cpp; secrets are resolved there too, so a loaded Config
// holds the secret bytes and nothing downstream reads the environment.
// Key names in comments are the TOML keys of SPEC §6; they are the contract.
// Every struct defaults ==, so a reload's comparison (config/reload.cpp)
// covers each member, also one added later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/secret.h"

namespace hookinbox::config {

struct ServerConfig {
  std::string listen = "0.0.0.0:8443";  // server.listen: host:port of the public listener; port 0 = any free port
  std::string tls_cert = "tls/cert.pem";  // server.tls_cert: PEM certificate (chain), relative to the config file
  std::string tls_key = "tls/key.pem";    // server.tls_key: PEM private key
  bool plain_http = false;       // server.plain_http: serve HTTP, only behind a TLS-terminating proxy
  int64_t max_body_bytes = 1048576;  // server.max_body_bytes: default body limit per endpoint; 413 above it
  int threads = 128;             // server.threads: connection threads; a keep-alive connection holds one
  int keep_alive_max_requests = 1000;  // server.keep_alive_max_requests: requests per connection before close
  int keep_alive_timeout_seconds = 5;  // server.keep_alive_timeout_seconds: idle keep-alive connection lifetime
  int read_timeout_seconds = 10;   // server.read_timeout_seconds: slow senders are cut off after this
  int write_timeout_seconds = 10;  // server.write_timeout_seconds
  int listen_backlog = 1024;       // server.listen_backlog: accept queue length (the library's own is 5)
  // Admission (http/admission.h), at accept time: sockets past either cap are
  // closed at once. An address is an IPv4 address or an IPv6 /64. A socket
  // that speaks takes a thread: threads stay well above the per-address cap,
  // so one address never holds them all. Behind a proxy every connection
  // comes from the proxy: raise the per-address cap.
  int max_connections = 1024;             // server.max_connections: open connections in all
  int max_connections_per_address = 64;   // server.max_connections_per_address: open connections from one address
  // The connection guard (http/connection_guard.h): a connection must
  // finish its handshake (TLS) and request headers within
  // header_timeout_seconds, sending at most max_header_bytes meanwhile (TLS
  // record bytes, handshake included), and its body and answer within
  // body_timeout_seconds; otherwise it is cut. The library's read timeout
  // is per recv, so without these a trickle holds a thread for ever.
  int header_timeout_seconds = 5;   // server.header_timeout_seconds: handshake + request line + headers
  int64_t max_header_bytes = 65536;  // server.max_header_bytes: bytes received before the headers end
  int body_timeout_seconds = 60;     // server.body_timeout_seconds: from the headers' end to the answer sent
  bool operator==(const ServerConfig&) const = default;
};

struct AdminConfig {
  std::string listen = "127.0.0.1:8081";  // admin.listen: the admin listener (handler API /v1); port 0 = any free port
  std::string token_env;                  // admin.token_env: env var holding the bearer token
  std::string token_file;                 // admin.token_file: file holding the bearer token
  // Resolved from token_env / token_file (config/secrets.cpp); empty = none
  // configured, and /admin/api answers 503 until one is.
  Secret token;
  // admin.tls_cert / admin.tls_key: serve the admin listener over HTTPS (both
  // or neither; relative to the config file). Empty = plain HTTP, meant for loopback.
  std::string tls_cert;
  std::string tls_key;
  // admin.metrics_token_env: env var holding a bearer token GET /metrics then
  // requires (admin/auth.h); unset = /metrics needs no token (SPEC §9).
  std::string metrics_token_env;
  Secret metrics_token;  // resolved from metrics_token_env (config/secrets.cpp)
  // Admission on the admin listener, as server.max_connections(_per_address).
  // Handlers call /v1 from this host: the per-address cap bounds them too.
  int max_connections = 256;             // admin.max_connections
  int max_connections_per_address = 32;  // admin.max_connections_per_address
  // admin.allow_plain_http: serve the admin listener without TLS on an address
  // other than loopback. Off by default: the token and the payloads would
  // cross the network in clear. Set it only behind a TLS-terminating proxy or
  // on a private network you trust.
  bool allow_plain_http = false;
  // admin.allowed_hosts: further names the admin listener answers to in the
  // Host header (admin/browser_guard.h); IP literals, "localhost" and
  // admin.listen's own host need no entry. Case-insensitive, no port.
  std::vector<std::string> allowed_hosts;
  // admin.handler_api_listen: a second listener serving only the handler API
  // (/v1; everything else 404), e.g. on the Docker bridge, with the admin
  // listener's TLS, limits and login limiter. "" = /v1 on admin.listen only.
  std::string handler_api_listen;
  // admin.handler_api_url: how handlers reach the handler API, without "/v1"
  // ("http://172.17.0.1:8082"); sent with "/v1" appended as X-Hookinbox-Api
  // and HOOKINBOX_API. "" = built from handler_api_listen, else admin.listen.
  std::string handler_api_url;
  bool operator==(const AdminConfig&) const = default;
};

// The shortest admin or metrics token accepted (bytes): long enough that no
// online guessing can find it, whatever the login limit lets through.
inline constexpr size_t kMinAdminTokenBytes = 32;

// [log]: the JSON lines on stderr (common/log.h).
struct LogConfig {
  // log.redact: field names (e.g. "remote_addr", "tenant") whose values every
  // log line replaces by "[redacted]"; "ts", "level" and "event" cannot be.
  std::vector<std::string> redact;
  bool operator==(const LogConfig&) const = default;
};

struct StorageConfig {
  std::string backend = "sqlite";           // storage.backend: "sqlite" (one file) or "postgres" (shared by replicas)
  std::string path = "data/hookinbox.db";   // storage.path: SQLite only; relative to the config file
  int busy_timeout_ms = 5000;               // storage.busy_timeout_ms: wait for a lock held by another process, then 503
  int max_batch = 256;                      // storage.max_batch: most writes grouped into one commit
  // storage.url (PostgreSQL only): a libpq URL or keyword string. After
  // loading it holds the connection string in use, also when it came from
  // the variable storage.url_env or the file storage.url_file names (config/secrets.cpp). It may carry a
  // password: print or log only store::sql::RedactConninfo(url).
  std::string url;
  std::string url_env;                      // storage.url_env: env var holding the URL instead of writing it here
  std::string url_file;                     // storage.url_file: file (mode 0600) holding the URL, like any secret
  int pool_size = 4;                        // storage.pool_size: PostgreSQL connections per process (2..64)
  bool operator==(const StorageConfig&) const = default;
};

struct WorkerConfig {  // [worker]: the loop that runs the actions (worker/worker_loop.h)
  int threads = 4;                     // worker.threads
  int lease_seconds = 60;              // worker.lease_seconds (>= 1)
  // worker.max_attempts (>= 1 when set): ends retries early. Unset = no
  // limit: the retry horizon (retry_for) alone decides when to give up.
  std::optional<int> max_attempts;
  // worker.retry_for ("3d"): transient failures are retried until this long
  // after the event was received (or replayed), the last attempt at that
  // moment; then it is dead-lettered. [endpoint.action] retry_for overrides it.
  int64_t retry_for_ms = int64_t{3} * 24 * 3600 * 1000;
  int64_t backoff_initial_ms = 1000;   // worker.backoff_initial_ms (>= 10)
  int64_t backoff_max_ms = 3600000;    // worker.backoff_max_ms: the longest interval, also for Retry-After
  int shutdown_grace_seconds = 30;     // worker.shutdown_grace_seconds (>= 0)
  bool operator==(const WorkerConfig&) const = default;
};

// The fields a provider signs, joined into one string: what {sorted_fields}
// in signed_payload stands for (VNPay signs its query parameters, payOS the
// members of its "data" object). Preset data, not TOML keys; see
// verify/signed_fields.h for how each option is applied.
struct FieldJoinConfig {
  // Where the fields are: "query" (the request's query string), "form" (the
  // form body) or "json:<pointer>" (a JSON object in the body, "json:/data").
  std::string source;
  std::string include_prefix;         // only names starting with this ("vnp_": not the user's own parameters)
  std::vector<std::string> exclude;   // names left out (the signature's own fields)
  bool skip_empty = false;            // leave out fields whose value is empty (after null_as)
  std::string separator = "&";        // between fields
  bool values_only = false;           // "v1|v2" instead of "k1=v1&k2=v2"
  // none | php-urlencode: names and values re-encoded as PHP's urlencode()
  // does (VNPay signs the encoded form of what it sent).
  std::string value_encoding = "none";
  std::string null_as;                // a JSON null's text (payOS: "")
  bool operator==(const FieldJoinConfig&) const = default;
};

// How a delivery proves it came from the provider ([endpoint.signature]).
struct SignatureConfig {
  // hmac | token | basic | none (none needs endpoint.insecure = true), or an
  // asymmetric kind checked against endpoint.public_keys: ed25519 |
  // ecdsa-p256-sha256 | rsa-sha256-cert | rsa-sha256.
  std::string scheme = "hmac";
  std::string header = "X-Signature";  // header carrying the signature or token
  // Where the signature sits in the header value. "{signature}" marks it; for a
  // key-value list such as "t={timestamp},v1={signature}" the parts are split on
  // the separator the format uses (',' or ';', as Paddle's "ts={timestamp};h1={signature}")
  // and matched by key, any order, any number of signature parts.
  std::string format = "{signature}";
  // sha1 | sha256 | sha512 | md5 (WayForPay): HMAC. "<one of them>-digest": a
  // plain hash of signed_payload, which then contains {secret} (LiqPay's
  // sha1(key + data + key), Fondy's sha1(key|values)).
  std::string algorithm = "sha256";
  std::string encoding = "hex";      // hex | base64
  // signature.secret_encoding: how each configured secret becomes HMAC key
  // bytes, after secret_prefix is stripped: utf8 (as written; Stripe keeps its
  // "whsec_") | base64 (Standard Webhooks) | hex. Applied when secrets are resolved.
  std::string secret_encoding = "utf8";
  std::string secret_prefix;         // signature.secret_prefix: removed from a secret that starts with it ("whsec_")
  // The bytes that are signed: placeholders {body}, {timestamp}, {id}, {method}
  // (the HTTP method) and {url} (endpoint.public_url plus "?query" when the request had one);
  // for signatures inside the delivery also {field:<pointer>} (a JSON value as
  // text), {sorted_fields} (field_join) and {access_key}; {secret} only with a
  // "-digest" algorithm.
  std::string signed_payload = "{body}";
  // At most one timestamp source: this header, a {timestamp} part of format, or timestamp_pointer.
  std::string timestamp_header;      // signature.timestamp_header: header with the signed timestamp, if any
  // signature.timestamp_pointer: JSON Pointer to the timestamp in the body (a
  // number or a numeric string), e.g. Linear's "/webhookTimestamp".
  std::string timestamp_pointer;
  std::string timestamp_unit = "s";  // signature.timestamp_unit: s | ms | iso8601, the form of the received timestamp
  int64_t tolerance_seconds = 300;   // |now - timestamp| above this is rejected (401)
  // signature.body_kind: how the body's fields are read, by {form_sorted_kv}
  // and by the [endpoint.key] sources: json | form (x-www-form-urlencoded) |
  // multipart (multipart/form-data) | raw (no fields).
  std::string body_kind = "json";
  // signature.signature_pointer: the signature sits in the JSON body at this
  // pointer instead of a header (Mailgun "/signature/signature").
  std::string signature_pointer;
  // signature.token_pointer: the body field {token} of signed_payload stands for (Mailgun "/signature/token").
  std::string token_pointer;
  // signature.url_decode: percent-escapes ("%3A") that {url} has decoded
  // before signing, each matched case-insensitively and decoded once. HubSpot
  // v3 decodes a documented list; empty (the default) signs the URL as is.
  std::vector<std::string> url_decode;
  // signature.webhook_id: what {webhook_id} in signed_payload stands for: a
  // constant of this endpoint that the provider signs (PayPal's webhook ID).
  std::string webhook_id;
  // A header in which the provider names its signing algorithm (PayPal's
  // PAYPAL-AUTH-ALGO); when set it must be present and name the scheme's own
  // algorithm (rsa-sha256-cert: "SHA256withRSA"). Preset data, not a TOML key.
  std::string algorithm_header;
  // signature.signature_source: where the signature is when the provider
  // puts it in the delivery itself rather than in `header`: "json:<pointer>"
  // (as signature_pointer; MoMo "json:/signature", ZaloPay "json:/mac"),
  // "form:<field>" (a form body's field) or "query:<param>" (VNPay
  // "query:vnp_SecureHash"). "" = the header (or signature_pointer).
  std::string signature_source;
  // signature.access_key: what {access_key} in signed_payload stands for: a
  // constant of the merchant that the provider signs but does not send (MoMo's accessKey).
  std::string access_key;
  FieldJoinConfig field_join;  // {sorted_fields}; preset data
  bool operator==(const SignatureConfig&) const = default;
};

// A key.fields entry starting with this names a header rather than a JSON Pointer.
inline constexpr std::string_view kHeaderField = "header:";
// A key.fields entry starting with this names a form field (signature.body_kind
// form or multipart); "form:MessageSid" is the same as the pointer "/MessageSid".
inline constexpr std::string_view kFormField = "form:";

// Where the idempotency key comes from ([endpoint.key]); SPEC §2 order.
struct KeyConfig {
  std::string id_header;               // provider-issued id in a header, or
  std::string id_pointer;              // in the JSON body at this JSON Pointer, or
  // A composite of these parts joined with ':' in order, each a JSON Pointer
  // ("/data/id") or kHeaderField plus a header name ("header:X-GitHub-Delivery"), or
  std::vector<std::string> fields;
  bool canonical_hash = false;         // the canonical JSON hash of the body (opt-in, last resort)
  std::string event_type_pointer;      // JSON Pointer of the event type, or
  std::string event_type_header;       // the header carrying it, or
  // the name of the body's one top-level member other than this one (Telegram:
  // an Update is update_id plus exactly one of message, callback_query, …).
  // Preset data, not a TOML key; cleared when the endpoint sets either above.
  std::string event_type_member_besides;
  // key.batch: the body carries several events (HubSpot, SendGrid, Meta);
  // each element of the array at key.batch_pointer becomes its own inbox row,
  // and the pointers above (and volatile_fields) are relative to the element.
  bool batch = false;
  std::string batch_pointer;           // key.batch_pointer: JSON Pointer of the events array ("" = the body)
  bool operator==(const KeyConfig&) const = default;
};

// One tenant of an endpoint that has per-tenant secrets ([[endpoint.tenants]]).
// Such an endpoint is reached only as POST /hooks/{endpoint}/{tenant}.
struct TenantConfig {
  std::string id;               // tenants.id: the {tenant} path segment and the stored tenant_id
  std::vector<Secret> secrets;  // from tenants.secret_env / secret_file / secrets_env / secrets_file
  bool operator==(const TenantConfig&) const = default;
};

// [endpoint.business_key]: two different events that mean the same business
// action (SPEC §6 "Beyond the inbox"). The key is the tenant, an operation and
// the values at `fields`; only its hash is stored. No fields = no business key.
struct BusinessKeyConfig {
  std::vector<std::string> fields;  // business_key.fields: JSON Pointers (relative to a batch element)
  std::string operation;            // business_key.operation: for every event type not in `operations`
  // business_key.operations: event type → operation, in file order. An event
  // whose type is neither mapped nor covered by `operation` has no business key.
  std::vector<std::pair<std::string, std::string>> operations;
  bool enabled() const { return !fields.empty(); }
  // The operation for `event_type`, or "" when the event carries no business action.
  std::string OperationFor(std::string_view event_type) const;
  bool operator==(const BusinessKeyConfig&) const = default;
};

// [endpoint.ordering]: events of one object are applied oldest version first,
// never two at once, and an older version after a newer one is skipped.
struct OrderingConfig {
  std::string object;   // ordering.object: JSON Pointer to the object id; absent in an event = no ordering for it
  std::string version;  // ordering.version: JSON Pointer to an integer, a Unix time or an RFC 3339 time
  bool enabled() const { return !object.empty(); }
  bool operator==(const OrderingConfig&) const = default;
};

// [endpoint.action]: what the worker does with each stored event (SPEC §6, §9
// "Worker and actions"). type "" = no action: events stay `received`.
struct ActionConfig {
  std::string type;                    // action.type: "" (none) | "http" | "exec"
  std::string url;                     // action.url: http(s) URL the body is POSTed to (type http)
  // action.command: argv, no shell, no PATH search (type exec); [0] is made
  // absolute against the config file's directory when loading.
  std::vector<std::string> command;
  // action.timeout_ms: exec: the whole command; http: each phase (connect,
  // each write, each read). Past it a sent attempt's outcome is unknown.
  int64_t timeout_ms = 10000;
  // action.idempotent_target: the target honours Idempotency-Key, so an attempt
  // whose answer was lost is retried; false makes it `unknown` (never retried).
  bool idempotent_target = false;
  // Resolved from action.forward_secret_env / forward_secret_file (a Standard
  // Webhooks "whsec_<standard base64>" secret; the prefix is optional, other
  // text is a config error): the HMAC key bytes that sign forwards, decoded.
  Secret forward_secret;
  int concurrency = 0;                 // action.concurrency: events in flight at once; 0 = max(1, worker.threads / 2)
  int max_per_second = 0;              // action.max_per_second: attempts started per second at most; 0 = no limit
  // action.breaker_failures: consecutive connection failures, timeouts or 5xx
  // that open the endpoint's circuit breaker (worker/breaker.h); 0 = no breaker.
  int breaker_failures = 5;
  // action.breaker_probe_seconds: how long an open breaker waits before one
  // trial delivery; doubles after each failed trial, up to 10 minutes (or this, if longer).
  int breaker_probe_seconds = 30;
  std::string result_ref_header;       // action.result_ref_header: response header holding the result (e.g. "Location")
  std::string result_ref_pointer;      // action.result_ref_pointer: JSON Pointer into a JSON answer (e.g. "/id")
  std::string ca_file;                 // action.ca_file: PEM CA bundle for an https url; "" = the system CAs
  // action.probe_url: asked (GET) when an attempt ends unknown; 200 = found →
  // completed, 404 = not found → retried, else it stays unknown. "" = no probe.
  std::string probe_url;
  // action.retry_for: this endpoint's retry horizon in ms; unset =
  // worker.retry_for (Config::RetryForMs).
  std::optional<int64_t> retry_for_ms;
  // action.auth: the credential every http forward (and probe) carries for
  // the destination: "" (none) | "bearer" | "basic" | "header"
  // (action/destination_auth.h).
  std::string auth;
  std::string auth_header;  // action.auth_header: the header name for auth = "header"
  // Resolved from action.auth_secret_env / auth_secret_file: the token, or
  // "user:password" for basic. Never logged or shown.
  Secret auth_secret;
  // action.async (http only): a 202 Accepted answer means "started" — the
  // event stays processing under its lease and the handler ends it through
  // /v1/events/complete|fail|unknown (admin/handler_api.h). false: 202 is a
  // plain success.
  bool async = false;
  bool operator==(const ActionConfig&) const = default;
};

// [endpoint.retention] (SPEC §9 "Beyond the inbox"): how long an endpoint's
// data is kept; the hourly purge of `serve` and `hookinbox purge` apply it
// (store/purge.h says exactly what goes). 0 = keep forever.
struct RetentionConfig {
  int payload_days = 0;  // retention.payload_days: bodies of terminal events older than this are removed
  int key_days = 0;      // retention.key_days: terminal events (their key, audit rows, …) older than this are removed
  bool operator==(const RetentionConfig&) const = default;
};

// [[alert.channel]] (SPEC §10): where alerts and the digest go (alert/channel.h).
struct AlertChannelConfig {
  std::string name;  // alert.channel.name: unique; what alert test, digest_channel and the records name
  std::string type;  // alert.channel.type: "email" | "slack" | "teams" | "discord" | "webhook"
  // Chat and webhook channels: the URL (an incoming-webhook URL is itself a
  // credential) from url / url_env / url_file.
  Secret url;
  // email: smtp://user:password@host:587 (STARTTLS, required) or smtps://…:465
  // (implicit TLS), from smtp_url / smtp_url_env / smtp_url_file.
  Secret smtp_url;
  std::string from;             // alert.channel.from (email)
  std::vector<std::string> to;  // alert.channel.to (email): at least one address
  Secret secret;                // alert.channel.secret_env / secret_file (webhook): Standard Webhooks "whsec_…" key
  std::string ca_file;          // alert.channel.ca_file: PEM CA bundle to trust instead of the system CAs
  int timeout_seconds = 10;     // alert.channel.timeout_seconds: one send attempt
  bool operator==(const AlertChannelConfig&) const = default;
};

// Thresholds of the alert conditions (SPEC §10 [alert]); nullopt = off
// (`= false` in TOML). [endpoint.alert] overrides the per-endpoint ones.
struct AlertThresholds {
  std::optional<int64_t> dead_letters = 1;        // alert.dead_letters: events in dead_lettered now
  std::optional<int64_t> unknown = 1;             // alert.unknown: events in 'unknown'
  std::optional<int64_t> conflicts = 1;           // alert.conflicts: conflicting deliveries in the last 24 h
  std::optional<int64_t> backlog_age_ms = int64_t{15} * 60 * 1000;  // alert.backlog_age: oldest due event older than
  std::optional<int64_t> signature_failures = 20;  // alert.signature_failures: refused signatures per 5 minutes
  std::optional<int64_t> silence_ms;               // alert.silence: no accepted delivery for this long (off by default)
  std::optional<int64_t> breaker_open_ms = int64_t{10} * 60 * 1000;  // alert.breaker_open: open for longer than
  bool operator==(const AlertThresholds&) const = default;
};

struct AlertConfig {  // [alert]
  std::vector<AlertChannelConfig> channels;
  AlertThresholds thresholds;
  std::optional<int64_t> certificate_days = 14;      // alert.certificate_days: TLS certificate expires within
  std::optional<int64_t> disk_free_bytes = int64_t{1} << 30;  // alert.disk_free: free space under ("1GB")
  std::optional<int64_t> database_size_bytes;        // alert.database_size: the database grew past ("10GB")
  std::optional<int64_t> storage_failures = 1;       // alert.storage_failures: 503s (storage unavailable) in the last 5 min
  int64_t remind_every_ms = int64_t{4} * 3600 * 1000;  // alert.remind_every: reminders while it lasts ("4h"; false = none)
  int64_t check_every_ms = 30 * 1000;                // alert.check_every: how often conditions are evaluated
  std::string digest_at;        // alert.digest_at: "08:00" local time; "" = no digest
  std::string digest_channel;   // alert.digest_channel: "" = every channel
  std::string ui_url;           // alert.ui_url: the admin UI as a person reaches it, for links ("" = no links)
  bool operator==(const AlertConfig&) const = default;
};

// One answer a provider expects (ProviderAnswers).
struct ProviderAnswer {
  int http_status = 0;  // 0 = not set
  std::string body;     // "" = no body
  std::string content_type = "application/json";
  bool operator==(const ProviderAnswer&) const = default;
};

// The answers a provider expects instead of the inbox's own JSON (SPEC §10):
// VNPay reads {"RspCode":"00"|"02"|"97"} from a 200, ZaloPay a return_code,
// MoMo wants 204. Preset data, not TOML keys. They are given only once the
// claim is durable, exactly where the inbox's own answer would be, and the
// audit row still records the real outcome (accepted, duplicate, rejected).
struct ProviderAnswers {
  ProviderAnswer accepted;   // a new event stored
  ProviderAnswer duplicate;  // the event was already stored (also a conflict: the provider must not retry)
  // A delivery whose signature does not verify. Only that refusal: an
  // unavailable store or an oversized body keep their own status, so the
  // provider retries them.
  ProviderAnswer refused;
  bool enabled() const { return accepted.http_status != 0; }
  bool operator==(const ProviderAnswers&) const = default;
};

struct EndpointConfig {
  std::string name;                    // endpoint.name: the {endpoint} of POST /hooks/{endpoint}
  std::string provider = "generic";    // endpoint.provider: "generic" or a preset name (verify/registry.cpp)
  std::string tenant = "default";      // endpoint.tenant: tenant_id stored with each event
  // Resolved secrets, newest first. Any of them verifies (rotation). Filled from
  // secret_env / secret_file / secrets_env / secrets_file, in that order.
  std::vector<Secret> secrets;
  // How `secrets` were configured, for `hookinbox secrets rotate`, which
  // rotates one secret_file (config/rotation.h): endpoint.secret_file
  // resolved ("" = not set), and the other secret keys set ("secret_env",
  // "secrets_env", "secrets_file").
  std::string secret_file;
  std::vector<std::string> other_secret_keys;
  int64_t max_body_bytes = 0;          // endpoint.max_body_bytes; 0 = server.max_body_bytes
  // endpoint.content_types: accepted media types (parameters ignored); others get 415.
  std::vector<std::string> content_types = {"application/json"};
  std::vector<std::string> event_types;  // endpoint.event_types: allow-list; empty = all
  bool ignore_other_event_types = false;  // endpoint.ignore_other_event_types: 200 "ignored" instead of 422
  bool insecure = false;               // endpoint.insecure: required for signature.scheme = "none"
  // endpoint.public_url: the full URL the provider was given
  // ("https://hooks.example.com/hooks/payments"), for signatures over {url};
  // never derived from the Host header, which a proxy or a sender controls.
  std::string public_url;
  // endpoint.rotation_ends: "YYYY-MM-DD" (UTC), the day by which a rotated-out
  // secret should be gone. Once it has passed while two or more secrets are
  // still active, check-config and serve warn (an old secret left active is a
  // second key that still opens the door).
  std::string rotation_ends;
  // endpoint.volatile_fields: JSON Pointers removed before the payload hash
  // (fields a provider changes on its own retries, e.g. an attempt counter).
  // A segment "*" means every element or member at that level ("/*/attemptNumber").
  std::vector<std::string> volatile_fields;
  // endpoint.redact: JSON Pointers whose values the admin API replaces with
  // "[redacted]" when it shows a payload (GET /admin/api/events/{id}?payload=1).
  std::vector<std::string> redact;
  std::vector<TenantConfig> tenants;  // endpoint.tenants: when set, endpoint.tenant and secrets are unused
  // Public keys for the asymmetric schemes, as the provider's dashboard shows
  // them (SendGrid base64 DER or PEM, Discord hex, PayPal a PEM certificate),
  // from endpoint.public_key_env / public_key_file / public_keys_env /
  // public_keys_file, in that order (config/secrets.cpp). Any of them verifies.
  std::vector<std::string> public_keys;
  // endpoint.verify_token_env / verify_token_file: the token Meta's GET
  // subscription handshake must present (hub.verify_token).
  Secret verify_token;
  // The provider handshake this endpoint answers instead of storing (preset
  // data, not a TOML key): "" | slack | zoom | meta | woocommerce | discord | twitch | dropbox | head |
  // viber | line | xero | front.
  std::string handshake;
  // Headers the provider always sends that the verifier does not read (preset
  // data, not a TOML key): send-test adds them so the provider's own library
  // accepts its sample (Shopify's checks X-Shopify-Shop-Domain and -API-Version).
  std::vector<std::pair<std::string, std::string>> sample_headers;
  // How long the provider keeps redelivering an event, in hours (preset data
  // from docs/providers.md, not a TOML key; 0 = not documented, no minimum):
  // retention.key_days may not be shorter, or a late retry would act twice.
  int redelivery_window_hours = 0;
  // The provider's own answers (preset data; empty = the inbox's JSON answers).
  ProviderAnswers answers;
  // The provider delivers with GET, its data in the query string (VNPay IPN;
  // preset data, not a TOML key). Such a GET is received like a POST whose
  // form body is the query string: stored, deduplicated and audited the same.
  // GET stays refused (405) on every other endpoint.
  bool get_deliveries = false;
  SignatureConfig signature;
  KeyConfig key;
  ActionConfig action;
  BusinessKeyConfig business_key;
  OrderingConfig ordering;
  RetentionConfig retention;
  // [endpoint.alert]: the effective thresholds for this endpoint — [alert]'s,
  // with the keys [endpoint.alert] sets (silence = "24h") replaced (config/load.cpp).
  AlertThresholds alert;
  // The fingerprint of this endpoint's key settings (verify/key_spec.h),
  // stored with each event it keys (webhook_inbox.key_spec). Not a TOML key:
  // config/ cannot call verify/, so cli/load_config.cpp fills it once per
  // load, keeping the hashing off the request path. "" = not computed (a
  // Config built in code): the event's key_spec is stored as NULL.
  std::string key_spec;

  // The tenant with this id, or nullptr.
  const TenantConfig* FindTenant(std::string_view id) const;
  // Whether a worker processes this endpoint's events (the others keep theirs as received).
  bool HasAction() const { return !action.type.empty(); }
  bool operator==(const EndpointConfig&) const = default;
};

// A validated listen address split into host (brackets of an IPv6 literal
// removed) and port. nullopt when it has no ":port" (validation reports why).
struct ListenAddress {
  std::string host;
  int port = 0;
};
std::optional<ListenAddress> SplitListen(std::string_view listen);

// True for a host only this machine can reach: "localhost", 127.0.0.0/8 and
// ::1 (also IPv4-mapped, ::ffff:127.x). A name other than "localhost" is not
// resolved, so it is never loopback here.
bool IsLoopbackHost(std::string_view host);

// Where a loaded config's secrets came from (filled by config/load.cpp; not
// TOML keys), so they can be kept inside the process: every variable a *_env
// key names, removed from the environment once read (cli/load_config.cpp),
// and every file holding a secret or a private key, resolved, which exec
// actions hide from their command (action/exec_action.h).
// The largest secret (or token, or key) file read: far above any real one;
// guards against naming a big file by mistake.
inline constexpr size_t kMaxSecretBytes = 64 * 1024;

struct SecretOrigins {
  std::vector<std::string> env_names;
  std::vector<std::string> files;
  bool operator==(const SecretOrigins&) const = default;
};

struct Config {
  std::string path;       // the file it was loaded from ("" when built in code)
  std::string base_dir;   // directory relative paths resolve against
  ServerConfig server;
  AdminConfig admin;
  LogConfig log;
  StorageConfig storage;
  WorkerConfig worker;
  AlertConfig alert;
  std::vector<EndpointConfig> endpoints;
  SecretOrigins secret_origins;

  // The endpoint named `name`, or nullptr.
  const EndpointConfig* FindEndpoint(std::string_view name) const;
  // `p` made absolute against base_dir (unchanged when already absolute or base_dir is empty).
  std::string Resolve(const std::string& p) const;
  // Effective body limit of an endpoint.
  int64_t MaxBodyBytes(const EndpointConfig& e) const {
    return e.max_body_bytes > 0 ? e.max_body_bytes : server.max_body_bytes;
  }
  // The names of the endpoints with an action: the ones whose events a worker
  // processes (the others keep theirs as received).
  std::vector<std::string> EndpointsWithAction() const {
    std::vector<std::string> out;
    for (const auto& e : endpoints) {
      if (e.HasAction()) out.push_back(e.name);
    }
    return out;
  }
  // Effective retry horizon of an endpoint: action.retry_for, else worker.retry_for.
  int64_t RetryForMs(const EndpointConfig& e) const { return e.action.retry_for_ms.value_or(worker.retry_for_ms); }
  // Effective action.concurrency of an endpoint (SPEC §9): half the worker threads, at least 1, unless set.
  int ActionConcurrency(const EndpointConfig& e) const {
    return e.action.concurrency > 0 ? e.action.concurrency : (worker.threads / 2 > 1 ? worker.threads / 2 : 1);
  }
};

}  // namespace hookinbox::config
