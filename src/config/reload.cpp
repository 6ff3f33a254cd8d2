// config/reload.cpp — what differs between the config in force and a newly
// loaded one, and which of it waits for a restart.
//
// Design: every config struct defaults its ==, so a member nobody listed
// here still counts as a difference. Each section names the members it knows
// (one line per readable group), then falls back to one line for the
// section when the structs differ but no named member does: a key added
// later is reported (as needing a restart where the section is read only at
// start) until someone gives it its own line. Secrets are compared, never
// shown; the lines carry key names and endpoint, tenant and channel names only.
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
//     (handler_api_listen, when it exists) |                   |
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

void CompareServer(const ServerConfig& a, const ServerConfig& b, ConfigChanges& out) {
  if (a == b) return;
  bool named = AddDiffering(
      {
          {"server.listen", a.listen != b.listen},
          {"server.plain_http", a.plain_http != b.plain_http},
          {"server.tls_cert", a.tls_cert != b.tls_cert},
          {"server.tls_key", a.tls_key != b.tls_key},
          {"server.threads", a.threads != b.threads},
          {"server.keep_alive_max_requests", a.keep_alive_max_requests != b.keep_alive_max_requests},
          {"server.keep_alive_timeout_seconds", a.keep_alive_timeout_seconds != b.keep_alive_timeout_seconds},
          {"server.read_timeout_seconds", a.read_timeout_seconds != b.read_timeout_seconds},
          {"server.write_timeout_seconds", a.write_timeout_seconds != b.write_timeout_seconds},
          {"server.listen_backlog", a.listen_backlog != b.listen_backlog},
          {"server.max_connections", a.max_connections != b.max_connections},
          {"server.max_connections_per_address", a.max_connections_per_address != b.max_connections_per_address},
          {"server.header_timeout_seconds", a.header_timeout_seconds != b.header_timeout_seconds},
          {"server.max_header_bytes", a.max_header_bytes != b.max_header_bytes},
          {"server.body_timeout_seconds", a.body_timeout_seconds != b.body_timeout_seconds},
      },
      out.needs_restart);
  named |= AddDiffering({{"server.max_body_bytes changed", a.max_body_bytes != b.max_body_bytes}}, out.changed);
  if (!named) out.needs_restart.push_back("server");
}

void CompareAdmin(const AdminConfig& a, const AdminConfig& b, ConfigChanges& out) {
  if (a == b) return;
  bool named = AddDiffering(
      {
          {"admin.listen", a.listen != b.listen},
          {"admin.tls_cert", a.tls_cert != b.tls_cert},
          {"admin.tls_key", a.tls_key != b.tls_key},
          {"admin.max_connections", a.max_connections != b.max_connections},
          {"admin.max_connections_per_address", a.max_connections_per_address != b.max_connections_per_address},
          {"admin.allow_plain_http", a.allow_plain_http != b.allow_plain_http},
          {"admin.allowed_hosts", a.allowed_hosts != b.allowed_hosts},
      },
      out.needs_restart);
  // A new source with the same token changes nothing a request sees, but it is a change the file made.
  const bool token_source = a.token_env != b.token_env || a.token_file != b.token_file;
  const bool metrics_source = a.metrics_token_env != b.metrics_token_env;
  named |= AddDiffering(
      {
          {"admin token changed", a.token != b.token},
          {"admin token source changed (same token)", a.token == b.token && token_source},
          {"metrics token changed", a.metrics_token != b.metrics_token},
          {"metrics token source changed (same token)", a.metrics_token == b.metrics_token && metrics_source},
      },
      out.changed);
  if (!named) out.needs_restart.push_back("admin");
}

void CompareStorage(const StorageConfig& a, const StorageConfig& b, ConfigChanges& out) {
  if (a == b) return;
  // storage.url may hold a password: only its key is named.
  bool named = AddDiffering(
      {
          {"storage.backend", a.backend != b.backend},
          {"storage.path", a.path != b.path},
          {"storage.busy_timeout_ms", a.busy_timeout_ms != b.busy_timeout_ms},
          {"storage.max_batch", a.max_batch != b.max_batch},
          {"storage.url", a.url != b.url},
          {"storage.url_env", a.url_env != b.url_env},
          {"storage.url_file", a.url_file != b.url_file},
          {"storage.pool_size", a.pool_size != b.pool_size},
      },
      out.needs_restart);
  if (!named) out.needs_restart.push_back("storage");
}

void CompareWorker(const WorkerConfig& a, const WorkerConfig& b, ConfigChanges& out) {
  if (a == b) return;
  bool named = AddDiffering({{"worker.threads", a.threads != b.threads},
                             {"worker.lease_seconds", a.lease_seconds != b.lease_seconds}},
                            out.needs_restart);
  const bool retry = a.max_attempts != b.max_attempts || a.retry_for_ms != b.retry_for_ms ||
                     a.backoff_initial_ms != b.backoff_initial_ms || a.backoff_max_ms != b.backoff_max_ms;
  named |= AddDiffering(
      {
          {"[worker] retry settings changed", retry},
          {"worker.shutdown_grace_seconds changed", a.shutdown_grace_seconds != b.shutdown_grace_seconds},
      },
      out.changed);
  if (!named) out.needs_restart.push_back("worker");
}

void CompareLog(const LogConfig& a, const LogConfig& b, ConfigChanges& out) {
  if (a == b) return;
  if (!AddDiffering({{"log.redact", a.redact != b.redact}}, out.needs_restart)) out.needs_restart.push_back("log");
}

const AlertChannelConfig* FindChannel(const std::vector<AlertChannelConfig>& channels, const std::string& name) {
  for (const auto& c : channels) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

void CompareAlert(const AlertConfig& a, const AlertConfig& b, ConfigChanges& out) {
  if (a == b) return;
  for (const auto& c : a.channels) {
    const AlertChannelConfig* n = FindChannel(b.channels, c.name);
    if (n == nullptr) {
      out.changed.push_back("alert channel " + Quoted(c.name) + " removed");
    } else if (*n != c) {
      out.changed.push_back("alert channel " + Quoted(c.name) + " changed");
    }
  }
  for (const auto& c : b.channels) {
    if (FindChannel(a.channels, c.name) == nullptr) out.changed.push_back("alert channel " + Quoted(c.name) + " added");
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
std::vector<std::string> TenantLines(const std::vector<TenantConfig>& a, const std::vector<TenantConfig>& b) {
  std::vector<std::string> lines;
  if (a == b) return lines;
  for (const auto& t : a) {
    const TenantConfig* n = FindTenant(b, t.id);
    if (n == nullptr) {
      lines.push_back("tenant " + Quoted(t.id) + " removed");
    } else if (*n != t) {
      lines.push_back("tenant " + Quoted(t.id) + ": secret changed");
    }
  }
  for (const auto& t : b) {
    if (FindTenant(a, t.id) == nullptr) lines.push_back("tenant " + Quoted(t.id) + " added");
  }
  if (lines.empty()) lines.push_back("tenants reordered");
  return lines;
}

std::string SecretLine(const std::vector<Secret>& a, const std::vector<Secret>& b) {
  std::string line = a.size() == 1 && b.size() == 1 ? "secret changed" : "secrets changed";
  if (a.size() != b.size()) line += " (" + std::to_string(b.size()) + " active, was " + std::to_string(a.size()) + ")";
  return line;
}

// One line per group of an endpoint's settings that differs, without the
// endpoint's name; empty when the two are equal.
std::vector<std::string> EndpointLines(const EndpointConfig& a, const EndpointConfig& b) {
  std::vector<std::string> lines;
  if (a == b) return lines;
  const bool preset_data = a.handshake != b.handshake || a.sample_headers != b.sample_headers ||
                           a.redelivery_window_hours != b.redelivery_window_hours;
  AddDiffering(
      {
          {"provider changed (" + a.provider + " → " + b.provider + ")", a.provider != b.provider},
          {"tenant changed (" + Quoted(a.tenant) + " → " + Quoted(b.tenant) + ")", a.tenant != b.tenant},
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
          {"action changed", a.action != b.action},
          {"business_key settings changed", a.business_key != b.business_key},
          {"ordering settings changed", a.ordering != b.ordering},
          {"retention changed", a.retention != b.retention},
          {"[endpoint.alert] changed", a.alert != b.alert},
          {"provider preset data changed", preset_data},
      },
      lines);
  for (auto& t : TenantLines(a.tenants, b.tenants)) lines.push_back(std::move(t));
  if (lines.empty()) lines.push_back("settings changed");
  return lines;
}

void CompareEndpoints(const Config& current, const Config& next, ConfigChanges& out) {
  for (const auto& e : current.endpoints) {
    const std::string who = "endpoint " + Quoted(e.name);
    const EndpointConfig* n = next.FindEndpoint(e.name);
    if (n == nullptr) {
      out.changed.push_back(who + " removed (its stored events stay)");
      continue;
    }
    for (const auto& line : EndpointLines(e, *n)) out.changed.push_back(who + ": " + line);
  }
  for (const auto& e : next.endpoints) {
    if (current.FindEndpoint(e.name) == nullptr) out.changed.push_back("endpoint " + Quoted(e.name) + " added");
  }
}

// The listener refuses bodies above the largest limit it was started with
// (its payload backstop), so a limit above that applies only after a restart.
void CompareBodyBackstop(const Config& current, const Config& next, ConfigChanges& out) {
  int64_t at_start = current.server.max_body_bytes;
  for (const auto& e : current.endpoints) at_start = std::max(at_start, current.MaxBodyBytes(e));
  for (const auto& e : next.endpoints) {
    if (next.MaxBodyBytes(e) <= at_start) continue;
    out.needs_restart.push_back("endpoint " + Quoted(e.name) + ": max_body_bytes above " + std::to_string(at_start) +
                                " bytes (the limit at start)");
  }
}

}  // namespace

ConfigChanges CompareForReload(const Config& current, const Config& next) {
  ConfigChanges out;
  CompareServer(current.server, next.server, out);
  CompareAdmin(current.admin, next.admin, out);
  CompareLog(current.log, next.log, out);
  CompareStorage(current.storage, next.storage, out);
  CompareWorker(current.worker, next.worker, out);
  CompareAlert(current.alert, next.alert, out);
  CompareEndpoints(current, next, out);
  CompareBodyBackstop(current, next, out);
  return out;
}

}  // namespace hookinbox::config
