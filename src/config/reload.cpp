// config/reload.cpp — what differs between the config in force and a newly
// loaded one, and which of it waits for a restart.
//
// Design: the keys read only at start are one table (ForEachRestartOnlySection):
// each section with its keys and the members of it that apply live. It
// drives both the needs_restart lines and KeepRestartOnly, which puts those
// keys back to their start value in the config put in force.
// Every config struct defaults its ==, so a member nobody listed
// here still counts as a difference. Each section names the members it knows
// (one line per readable group), then falls back to one line for the
// section when the structs differ but no named member does: a key added
// later is reported (as needing a restart where the section is read only at
// start) until someone gives it its own line. Secrets are compared, never
// shown; the lines carry key names and endpoint, tenant and channel names only,
// and not those either where the caller hides them (the log, under log.redact).
//
// What applies live and what waits for a restart:
//
//   key                                    | applies           | why
//   ---------------------------------------+-------------------+------------------------------------------
//   server.listen, server.plain_http       | restart           | the socket is bound at start
//   server.tls_cert, server.tls_key        | restart (paths)   | the files' contents reload (SIGHUP)
//   server.threads, listen_backlog         | restart           | the pool and the accept queue exist once
//   server.max_connections(_per_address)   | restart           | admission is built with the listener
//   server.keep_alive_*                    | restart           | set on the httplib server at start
//   server.read/write/header/body_timeout_ | restart           | set on the server and its connection guard
//   server.max_header_bytes                | restart           | the connection guard's, set at start
//   server.max_body_bytes                  | live, up to the   | checked per request from the snapshot; the
//     (and endpoint.max_body_bytes)        | limit at start    | listener's backstop is the largest at start
//   admin.listen, tls_cert/tls_key (paths),| restart           | the admin listener is bound at start
//     max_connections(_per_address),       |                   |
//     allow_plain_http, allowed_hosts      |                   |
//     handler_api_listen                 |                   |
//   admin.handler_api_url                  | restart           | the worker is given the handler API's URL
//                                          |                   | once, at start
//   admin.token_env/token_file (the token) | live              | each request checks the token in force
//   admin.metrics_token_env (the token)    | live              | likewise
//   log.redact                             | restart           | set on the process-wide log sink at start
//   storage.* (all)                        | restart           | the database is opened once
//   worker.threads                         | restart           | the threads are started once (note: the
//                                          |                   | default action.concurrency follows it)
//   worker.max_attempts, retry_for,        | live              | read per attempt ("retry settings")
//     backoff_initial_ms, backoff_max_ms   |                   |
//   worker.lease_seconds                   | restart           | a lease is renewed at the length it was
//                                          |                   | taken with; one length per process keeps
//                                          |                   | a claim and its renewals from disagreeing
//   worker.shutdown_grace_seconds          | live              | read at shutdown
//   [alert], [[alert.channel]]             | live              | read per check and per send
//   [[endpoint]] (every key)               | live              | each request and attempt takes a snapshot
//
// Not compared: Config::path and base_dir (the same file is reloaded) and
// secret_origins (where the secrets came from; the secrets themselves are
// compared).
#include "config/reload.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace hookinbox::config {
namespace {

// A group of members with the text that names it when any of them differs.
struct Row {
  std::string text;
  bool differs;
};

// Appends the text of every row that differs to `out`; true when any did.
bool AddDiffering(std::initializer_list<Row> rows, std::vector<std::string>& out) {
  bool any = false;
  for (const Row& r : rows) {
    if (!r.differs) continue;
    out.push_back(r.text);
    any = true;
  }
  return any;
}

std::string Quoted(const std::string& name) { return "\"" + name + "\""; }

// How the lines write the names they carry: quoted, or as "[redacted]" when
// the caller hides that kind of name (log.redact naming its log field).
class Names {
 public:
  explicit Names(const std::vector<std::string>& redacted)
      : endpoint_(Has(redacted, "endpoint")), tenant_(Has(redacted, "tenant")), channel_(Has(redacted, "channel")) {}
  std::string Endpoint(const std::string& name) const { return Shown(endpoint_, name); }
  std::string Tenant(const std::string& id) const { return Shown(tenant_, id); }
  std::string Channel(const std::string& name) const { return Shown(channel_, name); }

 private:
  static bool Has(const std::vector<std::string>& list, const char* field) {
    return std::find(list.begin(), list.end(), field) != list.end();
  }
  static std::string Shown(bool hidden, const std::string& name) { return Quoted(hidden ? "[redacted]" : name); }

  bool endpoint_, tenant_, channel_;
};

// --- The restart-only keys: one table drives both the report (needs_restart)
// and KeepRestartOnly, so a key named as waiting for a restart is exactly a
// key the config put in force keeps from the start.

// One key that cannot change in a running process, named as needs_restart names it.
template <class S>
struct RestartOnlyKey {
  const char* name;
  bool (*differs)(const S& a, const S& b);
};

template <auto kMember>
struct SectionOf;
template <class S, class T, T S::*kMember>
struct SectionOf<kMember> {
  using type = S;
};

template <auto kMember>
RestartOnlyKey<typename SectionOf<kMember>::type> Key(const char* name) {
  using S = typename SectionOf<kMember>::type;
  return {name, [](const S& a, const S& b) { return a.*kMember != b.*kMember; }};
}

// A section of Config read only at start, but for the members `take_live`
// copies (they apply at once). Every other member is kept from the start —
// also one added later that no key names yet: it is reported under the
// section's name until someone gives it its own key or a place among the live ones.
template <class S>
struct RestartOnlySection {
  const char* name;
  S Config::*section;
  std::vector<RestartOnlyKey<S>> keys;
  void (*take_live)(S& into, const S& from);
};

// Calls f with each section, in the order needs_restart lists them.
template <class F>
void ForEachRestartOnlySection(F&& f) {
  static const RestartOnlySection<ServerConfig> kServer{
      "server",
      &Config::server,
      {
          Key<&ServerConfig::listen>("server.listen"),
          Key<&ServerConfig::plain_http>("server.plain_http"),
          Key<&ServerConfig::tls_cert>("server.tls_cert"),
          Key<&ServerConfig::tls_key>("server.tls_key"),
          Key<&ServerConfig::threads>("server.threads"),
          Key<&ServerConfig::keep_alive_max_requests>("server.keep_alive_max_requests"),
          Key<&ServerConfig::keep_alive_timeout_seconds>("server.keep_alive_timeout_seconds"),
          Key<&ServerConfig::read_timeout_seconds>("server.read_timeout_seconds"),
          Key<&ServerConfig::write_timeout_seconds>("server.write_timeout_seconds"),
          Key<&ServerConfig::listen_backlog>("server.listen_backlog"),
          Key<&ServerConfig::max_connections>("server.max_connections"),
          Key<&ServerConfig::max_connections_per_address>("server.max_connections_per_address"),
          Key<&ServerConfig::header_timeout_seconds>("server.header_timeout_seconds"),
          Key<&ServerConfig::max_header_bytes>("server.max_header_bytes"),
          Key<&ServerConfig::body_timeout_seconds>("server.body_timeout_seconds"),
      },
      // Checked per request, up to the listener's backstop (CompareBodyBackstop).
      [](ServerConfig& into, const ServerConfig& from) { into.max_body_bytes = from.max_body_bytes; }};
  static const RestartOnlySection<AdminConfig> kAdmin{
      "admin",
      &Config::admin,
      {
          Key<&AdminConfig::listen>("admin.listen"),
          Key<&AdminConfig::tls_cert>("admin.tls_cert"),
          Key<&AdminConfig::tls_key>("admin.tls_key"),
          Key<&AdminConfig::max_connections>("admin.max_connections"),
          Key<&AdminConfig::max_connections_per_address>("admin.max_connections_per_address"),
          Key<&AdminConfig::allow_plain_http>("admin.allow_plain_http"),
          Key<&AdminConfig::allowed_hosts>("admin.allowed_hosts"),
          Key<&AdminConfig::handler_api_listen>("admin.handler_api_listen"),
          Key<&AdminConfig::handler_api_url>("admin.handler_api_url"),
      },
      // Each request checks the tokens in force.
      [](AdminConfig& into, const AdminConfig& from) {
        into.token_env = from.token_env;
        into.token_file = from.token_file;
        into.token = from.token;
        into.metrics_token_env = from.metrics_token_env;
        into.metrics_token = from.metrics_token;
      }};
  static const RestartOnlySection<LogConfig> kLog{
      "log", &Config::log, {Key<&LogConfig::redact>("log.redact")}, [](LogConfig&, const LogConfig&) {}};
  // storage.url may hold a password: only its key is named.
  static const RestartOnlySection<StorageConfig> kStorage{
      "storage",
      &Config::storage,
      {
          Key<&StorageConfig::backend>("storage.backend"),
          Key<&StorageConfig::path>("storage.path"),
          Key<&StorageConfig::busy_timeout_ms>("storage.busy_timeout_ms"),
          Key<&StorageConfig::max_batch>("storage.max_batch"),
          Key<&StorageConfig::url>("storage.url"),
          Key<&StorageConfig::url_env>("storage.url_env"),
          Key<&StorageConfig::url_file>("storage.url_file"),
          Key<&StorageConfig::pool_size>("storage.pool_size"),
      },
      [](StorageConfig&, const StorageConfig&) {}};
  static const RestartOnlySection<WorkerConfig> kWorker{"worker",
                                                        &Config::worker,
                                                        {
                                                            Key<&WorkerConfig::threads>("worker.threads"),
                                                            Key<&WorkerConfig::lease_seconds>("worker.lease_seconds"),
                                                        },
                                                        // Read per attempt, and at shutdown.
                                                        [](WorkerConfig& into, const WorkerConfig& from) {
                                                          into.max_attempts = from.max_attempts;
                                                          into.retry_for_ms = from.retry_for_ms;
                                                          into.backoff_initial_ms = from.backoff_initial_ms;
                                                          into.backoff_max_ms = from.backoff_max_ms;
                                                          into.shutdown_grace_seconds = from.shutdown_grace_seconds;
                                                        }};
  f(kServer);
  f(kAdmin);
  f(kLog);
  f(kStorage);
  f(kWorker);
}

// Whether a and b differ in a member that waits for a restart.
template <class S>
bool DiffersAfterLive(const RestartOnlySection<S>& s, const S& a, const S& b) {
  S b_with_live_of_a = b;
  s.take_live(b_with_live_of_a, a);
  return b_with_live_of_a != a;
}

// Each restart-only key that differs, or the section's name when only a
// member no key names does.
void CompareRestartOnly(const Config& current, const Config& next, ConfigChanges& out) {
  ForEachRestartOnlySection([&](const auto& s) {
    const auto& a = current.*s.section;
    const auto& b = next.*s.section;
    bool named = false;
    for (const auto& k : s.keys) {
      if (!k.differs(a, b)) continue;
      out.needs_restart.push_back(k.name);
      named = true;
    }
    if (!named && DiffersAfterLive(s, a, b)) out.needs_restart.push_back(s.name);
  });
}

// --- What applies live in the sections above.

void CompareServer(const ServerConfig& a, const ServerConfig& b, ConfigChanges& out) {
  AddDiffering({{"server.max_body_bytes changed", a.max_body_bytes != b.max_body_bytes}}, out.changed);
}

void CompareAdmin(const AdminConfig& a, const AdminConfig& b, ConfigChanges& out) {
  // A new source with the same token changes nothing a request sees, but it is a change the file made.
  const bool token_source = a.token_env != b.token_env || a.token_file != b.token_file;
  const bool metrics_source = a.metrics_token_env != b.metrics_token_env;
  AddDiffering(
      {
          {"admin token changed", a.token != b.token},
          {"admin token source changed (same token)", a.token == b.token && token_source},
          {"metrics token changed", a.metrics_token != b.metrics_token},
          {"metrics token source changed (same token)", a.metrics_token == b.metrics_token && metrics_source},
      },
      out.changed);
}

void CompareWorker(const WorkerConfig& a, const WorkerConfig& b, ConfigChanges& out) {
  const bool retry = a.max_attempts != b.max_attempts || a.retry_for_ms != b.retry_for_ms ||
                     a.backoff_initial_ms != b.backoff_initial_ms || a.backoff_max_ms != b.backoff_max_ms;
  AddDiffering(
      {
          {"[worker] retry settings changed", retry},
          {"worker.shutdown_grace_seconds changed", a.shutdown_grace_seconds != b.shutdown_grace_seconds},
      },
      out.changed);
}

const AlertChannelConfig* FindChannel(const std::vector<AlertChannelConfig>& channels, const std::string& name) {
  for (const auto& c : channels) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

void CompareAlert(const AlertConfig& a, const AlertConfig& b, const Names& names, ConfigChanges& out) {
  if (a == b) return;
  for (const auto& c : a.channels) {
    const AlertChannelConfig* n = FindChannel(b.channels, c.name);
    if (n == nullptr) {
      out.changed.push_back("alert channel " + names.Channel(c.name) + " removed");
    } else if (*n != c) {
      out.changed.push_back("alert channel " + names.Channel(c.name) + " changed");
    }
  }
  for (const auto& c : b.channels) {
    if (FindChannel(a.channels, c.name) == nullptr)
      out.changed.push_back("alert channel " + names.Channel(c.name) + " added");
  }
  // Everything but the channels, whatever [alert] grows to hold.
  AlertConfig rest_a = a, rest_b = b;
  rest_a.channels.clear();
  rest_b.channels.clear();
  if (rest_a != rest_b) out.changed.push_back("[alert] changed");
}

const TenantConfig* FindTenant(const std::vector<TenantConfig>& tenants, const std::string& id) {
  for (const auto& t : tenants) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

// "tenant "acme" added", … for one endpoint's [[endpoint.tenants]].
std::vector<std::string> TenantLines(const std::vector<TenantConfig>& a, const std::vector<TenantConfig>& b,
                                     const Names& names) {
  std::vector<std::string> lines;
  if (a == b) return lines;
  for (const auto& t : a) {
    const TenantConfig* n = FindTenant(b, t.id);
    if (n == nullptr) {
      lines.push_back("tenant " + names.Tenant(t.id) + " removed");
    } else if (*n != t) {
      lines.push_back("tenant " + names.Tenant(t.id) + ": secret changed");
    }
  }
  for (const auto& t : b) {
    if (FindTenant(a, t.id) == nullptr) lines.push_back("tenant " + names.Tenant(t.id) + " added");
  }
  if (lines.empty()) lines.push_back("tenants reordered");
  return lines;
}

std::string SecretLine(const std::vector<Secret>& a, const std::vector<Secret>& b) {
  std::string line = a.size() == 1 && b.size() == 1 ? "secret changed" : "secrets changed";
  if (a.size() != b.size()) line += " (" + std::to_string(b.size()) + " active, was " + std::to_string(a.size()) + ")";
  return line;
}

// The destination credential of an action (compared, never shown), and the
// rest of the action without it: a rotated credential reads "action auth
// changed", not as if the whole action had.
struct ActionAuth {
  std::string auth, header;
  Secret secret;
  bool operator==(const ActionAuth&) const = default;
};
ActionAuth ActionAuthOf(const ActionConfig& a) { return {a.auth, a.auth_header, a.auth_secret}; }
ActionConfig WithoutAuth(ActionConfig a) {
  a.auth.clear();
  a.auth_header.clear();
  a.auth_secret = Secret();
  return a;
}

// One line per group of an endpoint's settings that differs, without the
// endpoint's name; empty when the two are equal.
std::vector<std::string> EndpointLines(const EndpointConfig& a, const EndpointConfig& b, const Names& names) {
  std::vector<std::string> lines;
  if (a == b) return lines;
  const bool preset_data = a.handshake != b.handshake || a.sample_headers != b.sample_headers ||
                           a.redelivery_window_hours != b.redelivery_window_hours || a.answers != b.answers ||
                           a.get_deliveries != b.get_deliveries;
  AddDiffering(
      {
          {"provider changed (" + a.provider + " → " + b.provider + ")", a.provider != b.provider},
          {"tenant changed (" + names.Tenant(a.tenant) + " → " + names.Tenant(b.tenant) + ")", a.tenant != b.tenant},
          {SecretLine(a.secrets, b.secrets), a.secrets != b.secrets},
          {"signature settings changed",
           a.signature != b.signature || a.insecure != b.insecure || a.public_url != b.public_url},
          {"public keys changed", a.public_keys != b.public_keys},
          {"verify token changed", a.verify_token != b.verify_token},
          {"idempotency key settings changed", a.key != b.key},
          {"volatile_fields changed", a.volatile_fields != b.volatile_fields},
          {"max_body_bytes changed", a.max_body_bytes != b.max_body_bytes},
          {"content_types changed", a.content_types != b.content_types},
          {"event type filter changed",
           a.event_types != b.event_types || a.ignore_other_event_types != b.ignore_other_event_types},
          {"rotation_ends changed", a.rotation_ends != b.rotation_ends},
          {"redact changed", a.redact != b.redact},
          {"action changed", WithoutAuth(a.action) != WithoutAuth(b.action)},
          {"action auth changed", ActionAuthOf(a.action) != ActionAuthOf(b.action)},
          {"business_key settings changed", a.business_key != b.business_key},
          {"ordering settings changed", a.ordering != b.ordering},
          {"retention changed", a.retention != b.retention},
          {"[endpoint.alert] changed", a.alert != b.alert},
          {"provider preset data changed", preset_data},
      },
      lines);
  for (auto& t : TenantLines(a.tenants, b.tenants, names)) lines.push_back(std::move(t));
  if (lines.empty()) lines.push_back("settings changed");
  return lines;
}

void CompareEndpoints(const Config& current, const Config& next, const Names& names, ConfigChanges& out) {
  for (const auto& e : current.endpoints) {
    const std::string who = "endpoint " + names.Endpoint(e.name);
    const EndpointConfig* n = next.FindEndpoint(e.name);
    if (n == nullptr) {
      out.changed.push_back(who + " removed (its stored events stay)");
      continue;
    }
    for (const auto& line : EndpointLines(e, *n, names)) out.changed.push_back(who + ": " + line);
  }
  for (const auto& e : next.endpoints) {
    if (current.FindEndpoint(e.name) == nullptr) out.changed.push_back("endpoint " + names.Endpoint(e.name) + " added");
  }
}

// The listener refuses bodies above the largest limit it was started with
// (its payload backstop), so a limit above that applies only after a restart.
void CompareBodyBackstop(const Config& current, const Config& next, const Names& names, ConfigChanges& out) {
  int64_t at_start = current.server.max_body_bytes;
  for (const auto& e : current.endpoints) at_start = std::max(at_start, current.MaxBodyBytes(e));
  for (const auto& e : next.endpoints) {
    if (next.MaxBodyBytes(e) <= at_start) continue;
    out.needs_restart.push_back("endpoint " + names.Endpoint(e.name) + ": max_body_bytes above " +
                                std::to_string(at_start) + " bytes (the limit at start)");
  }
}

}  // namespace

ConfigChanges CompareForReload(const Config& current, const Config& next, const std::vector<std::string>& redacted) {
  const Names names(redacted);
  ConfigChanges out;
  CompareRestartOnly(current, next, out);
  CompareServer(current.server, next.server, out);
  CompareAdmin(current.admin, next.admin, out);
  CompareWorker(current.worker, next.worker, out);
  CompareAlert(current.alert, next.alert, names, out);
  CompareEndpoints(current, next, names, out);
  CompareBodyBackstop(current, next, names, out);
  return out;
}

void KeepRestartOnly(Config& next, const Config& at_start) {
  ForEachRestartOnlySection([&](const auto& s) {
    auto kept = at_start.*s.section;
    s.take_live(kept, next.*s.section);
    next.*s.section = std::move(kept);
  });
}

std::vector<std::string> RestartOnlyKeys() {
  std::vector<std::string> out;
  ForEachRestartOnlySection([&](const auto& s) {
    for (const auto& k : s.keys) out.push_back(k.name);
  });
  return out;
}

}  // namespace hookinbox::config
