// Cross-field rules: what a single key's type and bounds cannot say.
//
// Each rule reports the key a user should edit, so check-config points at the
// right line. Rules read only the Config and the lines map; they never touch
// the file system (CheckFiles does, separately, because `init` and `serve`
// create the TLS files after loading).
#include <arpa/inet.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <algorithm>
#include <optional>
#include <set>

#include "config/load.h"
#include "config/parsed.h"

namespace hookinbox::config {
namespace {

// Days since 1970-01-01 of a "YYYY-MM-DD" date, or nullopt when it is not a
// real calendar date (civil-from-days arithmetic, proleptic Gregorian).
std::optional<int64_t> DaysFromDate(const std::string& text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  int y = std::stoi(text.substr(0, 4)), m = std::stoi(text.substr(5, 2)), d = std::stoi(text.substr(8, 2));
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1] + (m == 2 && leap ? 1 : 0)) return std::nullopt;
  y -= m <= 2;
  int64_t era = y / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}


std::string Quote(std::string_view s) { return TomlQuote(s); }

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// [A-Za-z0-9][A-Za-z0-9._-]{0,63}: safe in a URL path, a log field and a file name.
bool IsName(std::string_view s) {
  if (s.empty() || s.size() > 64 || !IsAlnum(s[0])) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

// An RFC 9110 field name: one or more tchar.
bool IsHeaderName(std::string_view s) {
  if (s.empty() || s.size() > 256) return false;
  for (char c : s) {
    if (!IsAlnum(c) && (c == '\0' || std::strchr("!#$%&'*+-.^_`|~", c) == nullptr)) return false;
  }
  return true;
}

namespace {

// Whether the endpoint's key names an event type source (a pointer, a header,
// or the preset-only member name Telegram's updates need).
bool ReadsEventType(const KeyConfig& k) {
  return !k.event_type_pointer.empty() || !k.event_type_header.empty() || !k.event_type_member_besides.empty();
}

constexpr const char* kNameRule = "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";

bool IsHostname(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  size_t start = 0;
  while (start <= host.size()) {
    size_t dot = host.find('.', start);
    std::string_view label = host.substr(start, dot == std::string_view::npos ? host.npos : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!IsAlnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

}  // namespace

// Why `listen` is not host:port, or "" when it is.
std::string ListenProblem(std::string_view listen) {
  const std::string usage = "must be host:port, e.g. \"0.0.0.0:8443\" or \"[::1]:8443\" (got " + Quote(listen) + ")";
  std::string_view host;
  std::string_view port;
  if (!listen.empty() && listen.front() == '[') {
    size_t close = listen.find(']');
    if (close == std::string_view::npos || close + 1 >= listen.size() || listen[close + 1] != ':') return usage;
    host = listen.substr(1, close - 1);
    port = listen.substr(close + 2);
    in6_addr addr{};
    if (inet_pton(AF_INET6, std::string(host).c_str(), &addr) != 1) {
      return Quote(host) + " is not an IPv6 address";
    }
  } else {
    size_t colon = listen.rfind(':');
    if (colon == std::string_view::npos) return usage;
    host = listen.substr(0, colon);
    port = listen.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return "an IPv6 address must be in brackets, e.g. \"[::1]:8443\"";
    if (host.empty()) return usage;
    bool numeric = host.find_first_not_of("0123456789.") == std::string_view::npos;
    in_addr addr{};
    if (numeric && inet_pton(AF_INET, std::string(host).c_str(), &addr) != 1) {
      return Quote(host) + " is not an IPv4 address";
    }
    if (!numeric && !IsHostname(host)) return Quote(host) + " is not a valid host name";
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoi(std::string(port)) > 65535) {
    return "port must be a number from 0 to 65535 (got " + Quote(port) + ")";
  }
  return "";
}

namespace {

bool IsIpLiteral(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

int PortOf(std::string_view listen) { return std::atoi(std::string(listen.substr(listen.rfind(':') + 1)).c_str()); }

// Why `pointer` is not an RFC 6901 JSON Pointer, or "" when it is.
std::string PointerProblem(std::string_view pointer) {
  if (!pointer.empty() && pointer.front() != '/') {
    return Quote(pointer) + " is not a JSON Pointer: it must start with '/', e.g. \"/data/id\"";
  }
  for (size_t i = 0; i < pointer.size(); ++i) {
    if (pointer[i] == '~' && (i + 1 >= pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1'))) {
      return Quote(pointer) + " is not a JSON Pointer: '~' must be written ~0, and '/' inside a name ~1";
    }
  }
  return "";
}

// True when a segment of `pointer` is exactly "*".
bool HasWildcardSegment(std::string_view pointer) {
  for (size_t at = pointer.find("/*"); at != std::string_view::npos; at = pointer.find("/*", at + 1)) {
    if (at + 2 == pointer.size() || pointer[at + 2] == '/') return true;
  }
  return false;
}

// "{header:NAME}" (any NAME; IsHeaderName checks it).
bool IsHeaderPlaceholder(std::string_view ph) { return ph.rfind("{header:", 0) == 0 && ph.size() > 9; }

// "{field:<pointer>}" (the pointer is checked by FieldSignature).
bool IsFieldPlaceholder(std::string_view ph) { return ph.rfind("{field:", 0) == 0; }

bool HasControl(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

// An http:// or https:// URL with a host and no spaces or control characters.
bool IsHttpUrl(const std::string& url) {
  const bool https = url.rfind("https://", 0) == 0;
  const size_t host_at = https ? 8 : 7;
  return (https || url.rfind("http://", 0) == 0) && url.size() > host_at && url[host_at] != '/' && !HasControl(url) &&
         url.find(' ') == std::string::npos;
}

namespace {

// RFC 6838 restricted-name characters, for both halves of type/subtype.
bool IsMediaTypeToken(std::string_view s) {
  if (s.empty() || s.size() > 127 || !IsAlnum(s[0])) return false;
  for (char c : s) {
    if (!IsAlnum(c) && std::strchr("!#$&-^_.+", c) == nullptr) return false;
  }
  return true;
}

// The {placeholders} in `text`, in order; an unclosed '{' yields "{".
std::vector<std::string> Placeholders(std::string_view text) {
  std::vector<std::string> out;
  for (size_t open = text.find('{'); open != std::string_view::npos; open = text.find('{', open + 1)) {
    size_t close = text.find('}', open);
    out.emplace_back(close == std::string_view::npos ? "{" : text.substr(open, close - open + 1));
  }
  return out;
}

size_t Count(const std::vector<std::string>& items, std::string_view item) {
  size_t n = 0;
  for (const auto& i : items) n += i == item ? 1 : 0;
  return n;
}

// True when `conninfo` opens with "keyword =", as libpq's keyword form does
// ("host=db dbname=hookinbox"); a URL whose scheme was left out does not.
bool OpensWithKeyword(std::string_view conninfo) {
  const size_t start = conninfo.find_first_not_of(" \t");
  const size_t eq = conninfo.find('=');
  if (start == std::string_view::npos || eq == std::string_view::npos || eq <= start) return false;
  std::string_view keyword = conninfo.substr(start, eq - start);
  keyword = keyword.substr(0, keyword.find_last_not_of(" \t") + 1);
  return std::all_of(keyword.begin(), keyword.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; });
}

}  // namespace

std::string ConninfoProblem(std::string_view conninfo) {
  if (conninfo.empty()) return "must not be empty";
  if (conninfo.rfind("postgresql://", 0) == 0 || conninfo.rfind("postgres://", 0) == 0) return "";
  if (OpensWithKeyword(conninfo)) return "";
  return "is not a PostgreSQL connection string: expected postgresql://user@host:port/dbname or "
         "\"host=… dbname=…\"";
}

namespace {

class Validator {
 public:
  Validator(const Parsed& parsed, Reporter& report) : p_(parsed), c_(parsed.config), report_(report) {}

  void Run() {
    Server();
    Worker();
    Storage();
    Log();
    // When `endpoint` is present but malformed, the loader has said so already.
    if (c_.endpoints.empty() && !p_.Has("endpoint")) {
      report_.Error("endpoint", "no [[endpoint]]: add at least one, e.g. [[endpoint]] with name = \"demo\"");
    }
    std::set<std::string> names;
    for (size_t i = 0; i < c_.endpoints.size(); ++i) {
      Endpoint(c_.endpoints[i], "endpoint[" + std::to_string(i) + "]", names);
    }
  }

 private:
  // log.redact names fields of the JSON lines: lower-case identifiers, and
  // never the three every line needs to be read at all.
  void Log() {
    for (size_t i = 0; i < c_.log.redact.size(); ++i) {
      const std::string& name = c_.log.redact[i];
      const std::string at = "log.redact[" + std::to_string(i) + "]";
      bool ident = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
      });
      if (!ident) {
        report_.Error(at, "expected a log field name of a-z, 0-9 and _, e.g. \"remote_addr\"; got " + Quote(name));
      } else if (name == "ts" || name == "level" || name == "event") {
        report_.Error(at, Quote(name) + " is part of every line and cannot be redacted");
      }
    }
  }

  void Server() {
    if (auto problem = ListenProblem(c_.server.listen); !problem.empty()) report_.Error("server.listen", problem);
    if (auto problem = ListenProblem(c_.admin.listen); !problem.empty()) {
      report_.Error("admin.listen", problem);
    } else if (c_.admin.listen == c_.server.listen && PortOf(c_.server.listen) != 0) {
      report_.Error("admin.listen", "must differ from server.listen (both are " + Quote(c_.server.listen) + ")");
    } else {
      AdminPlainHttp();
    }
    // The admin listener's HTTPS is optional, but half of it is a mistake.
    if (c_.admin.tls_cert.empty() != c_.admin.tls_key.empty()) {
      report_.Error(c_.admin.tls_cert.empty() ? "admin.tls_cert" : "admin.tls_key",
                    "set both admin.tls_cert and admin.tls_key, or neither (plain HTTP)");
    }
    AdminAllowedHosts();
    if (!c_.server.plain_http) {
      if (c_.server.tls_cert.empty()) report_.Error("server.tls_cert", "required unless plain_http = true");
      if (c_.server.tls_key.empty()) report_.Error("server.tls_key", "required unless plain_http = true");
    }
  }

  // Plain HTTP is for loopback: anywhere else the admin token and payloads
  // would cross the network in clear, unless the operator says a proxy in
  // front does TLS.
  void AdminPlainHttp() {
    if (!c_.admin.tls_cert.empty() || c_.admin.allow_plain_http) return;
    auto listen = SplitListen(c_.admin.listen);
    if (!listen || IsLoopbackHost(listen->host)) return;
    report_.Error("admin.listen", Quote(listen->host) + " is not loopback, and the admin listener has no TLS: set "
                                  "admin.tls_cert and admin.tls_key, or admin.allow_plain_http = true when a "
                                  "TLS-terminating proxy sits in front");
  }

  void AdminAllowedHosts() {
    for (size_t i = 0; i < c_.admin.allowed_hosts.size(); ++i) {
      const std::string& host = c_.admin.allowed_hosts[i];
      if (IsHostname(host) || IsIpLiteral(host)) continue;
      report_.Error("admin.allowed_hosts[" + std::to_string(i) + "]",
                    "expected a host name such as \"admin.example.com\" (no scheme, no port); got " + Quote(host));
    }
  }

  void Worker() {
    if (c_.worker.backoff_max_ms < c_.worker.backoff_initial_ms) {
      report_.Error("worker.backoff_max_ms", "must be at least backoff_initial_ms (" +
                                                 std::to_string(c_.worker.backoff_initial_ms) + ")");
    }
  }

  // backend = "sqlite" takes path; "postgres" takes exactly one of url and
  // url_env (read in secrets.cpp) and ignores path. Messages never quote the
  // url: it may carry a password.
  void Storage() {
    const StorageConfig& s = c_.storage;
    if (s.backend != "postgres") {
      if (s.path.empty()) report_.Error("storage.path", "required: the SQLite database file");
      // A url with the default backend most likely means backend = "postgres"
      // was forgotten: refusing beats silently writing to a local file.
      for (const char* key : {"storage.url", "storage.url_env", "storage.url_file"}) {
        if (p_.Has(key)) report_.Error(key, "only used with backend = \"postgres\" (backend is \"sqlite\")");
      }
      if (p_.Has("storage.pool_size")) report_.Warn("storage.pool_size", "unused with backend = \"sqlite\"");
      return;
    }
    if (p_.Has("storage.path")) report_.Warn("storage.path", "unused with backend = \"postgres\"");
    const bool url = p_.Has("storage.url");
    const bool url_env = p_.Has("storage.url_env");
    const bool url_file = p_.Has("storage.url_file");
    if (int{url} + int{url_env} + int{url_file} > 1) {
      report_.Error(url_file ? "storage.url_file" : "storage.url_env", "set only one of url, url_env and url_file");
    } else if (!url && !url_env && !url_file) {
      report_.Error("storage", "backend = \"postgres\" needs url (a postgresql://… connection string), url_env "
                               "(the environment variable holding it) or url_file (a file holding it)");
    } else if (url) {
      if (std::string problem = ConninfoProblem(s.url); !problem.empty()) {
        if (!s.url.empty()) problem += "; to read it from the environment, write the variable's name in url_env";
        report_.Error("storage.url", problem);
      }
    }
  }

  void Endpoint(const EndpointConfig& e, const std::string& at, std::set<std::string>& names) {
    if (e.name.empty()) {
      report_.Error(at + ".name", "required: the {name} of POST /hooks/{name}");
    } else if (!IsName(e.name)) {
      report_.Error(at + ".name", std::string(kNameRule) + " (got " + Quote(e.name) + ")");
    } else if (!names.insert(e.name).second) {
      report_.Error(at + ".name", "duplicate endpoint name " + Quote(e.name));
    }
    if (!IsName(e.tenant)) report_.Error(at + ".tenant", std::string(kNameRule) + " (got " + Quote(e.tenant) + ")");
    if (!e.tenants.empty() && p_.Has(at + ".tenant")) {
      report_.Warn(at + ".tenant", "unused: this endpoint has [[endpoint.tenants]], each naming its own id");
    }
    Tenants(e, at);
    if (!e.rotation_ends.empty() && !DaysFromDate(e.rotation_ends)) {
      report_.Error(at + ".rotation_ends", "must be a date YYYY-MM-DD (got " + Quote(e.rotation_ends) + ")");
    }
    Signature(e, at);
    Key(e, at);
    Lists(e, at);
    Action(e, at);
    BusinessKey(e, at);
    Ordering(e, at);
    Retention(e, at);
  }

  // [endpoint.retention]: a key forgotten before the provider stops
  // redelivering makes a late retry a new event, acted on twice.
  void Retention(const EndpointConfig& e, const std::string& endpoint_at) {
    const RetentionConfig& r = e.retention;
    const std::string at = endpoint_at + ".retention";
    if (r.key_days > 0 && static_cast<int64_t>(r.key_days) * 24 < e.redelivery_window_hours) {
      const int need = (e.redelivery_window_hours + 23) / 24;
      report_.Error(at + ".key_days", "must be at least " + std::to_string(need) + (need == 1 ? " day" : " days") +
                                          ": provider " + Quote(e.provider) + " redelivers for up to " +
                                          std::to_string(e.redelivery_window_hours) +
                                          " hours, and a retry after its key is purged would be acted on again (got " +
                                          std::to_string(r.key_days) + ")");
    }
    if (r.key_days > 0 && r.payload_days > r.key_days) {
      report_.Warn(at + ".payload_days", "has no effect beyond key_days (" + std::to_string(r.key_days) +
                                             "): the whole event goes then");
    }
  }

  // [endpoint.business_key]: the values are read from the JSON body (or a
  // batch element), so fields are JSON Pointers; without an operation no
  // event would ever carry a key.
  void BusinessKey(const EndpointConfig& e, const std::string& endpoint_at) {
    const BusinessKeyConfig& b = e.business_key;
    const std::string at = endpoint_at + ".business_key";
    if (!p_.Has(at)) return;
    if (b.fields.empty()) {
      report_.Error(at, "needs fields, the JSON Pointers that name the business object, e.g. fields = [\"/data/object/id\"]");
    }
    PointerList(at + ".fields", b.fields, false);
    if (b.operation.empty() && b.operations.empty()) {
      report_.Error(at, "needs operation = \"…\" or [" + at + ".operations] mapping event types to operations");
    }
    for (const auto& [type, op] : b.operations) {
      if (op.empty() || HasControl(op) || op.size() > 100) {
        report_.Error(at + ".operations." + type, "must be a short operation name, e.g. \"mark_paid\"");
      }
    }
    if (!b.operations.empty() && !ReadsEventType(e.key)) {
      report_.Error(at + ".operations", "maps event types, but the endpoint reads none: set key.event_type_pointer "
                                        "or key.event_type_header");
    }
    if (HasControl(b.operation) || b.operation.size() > 100) {
      report_.Error(at + ".operation", "must be a short operation name, e.g. \"mark_paid\"");
    }
  }

  // [endpoint.ordering]: both pointers, or neither.
  void Ordering(const EndpointConfig& e, const std::string& endpoint_at) {
    const OrderingConfig& o = e.ordering;
    const std::string at = endpoint_at + ".ordering";
    if (!p_.Has(at)) return;
    if (o.object.empty()) report_.Error(at, "needs object, the JSON Pointer to the object id, e.g. \"/data/object/id\"");
    if (o.version.empty()) {
      report_.Error(at, "needs version, the JSON Pointer to the object's version or update time, e.g. "
                        "\"/data/object/updated\"");
    }
    if (!o.object.empty()) Pointer(at + ".object", o.object, false);
    if (!o.version.empty()) Pointer(at + ".version", o.version, false);
  }

  // [endpoint.action]. The forward secret is checked where
  // it is read (secrets.cpp); the program and ca_file by CheckFiles.
  void Action(const EndpointConfig& e, const std::string& endpoint_at) {
    const ActionConfig& a = e.action;
    const std::string at = endpoint_at + ".action";
    if (a.type.empty()) {
      if (p_.Has(at)) report_.Warn(at, "has no type: events of this endpoint stay received (set type = \"http\" or \"exec\")");
      return;
    }
    if (!a.probe_url.empty() && !IsHttpUrl(a.probe_url)) {
      report_.Error(at + ".probe_url", Quote(a.probe_url) + " is not an http:// or https:// URL with a host");
    }
    if (a.type == "http") {
      const bool https = a.url.rfind("https://", 0) == 0;
      if (a.url.empty()) {
        report_.Error(at + ".type", "type = \"http\" needs url, e.g. url = \"http://127.0.0.1:9000/payments\"");
      } else if (!IsHttpUrl(a.url)) {
        report_.Error(at + ".url", Quote(a.url) + " is not an http:// or https:// URL with a host");
      }
      if (!a.ca_file.empty() && !https) report_.Warn(at + ".ca_file", "unused: url is not https://");
      if (!a.command.empty()) report_.Warn(at + ".command", "unused with type = \"http\"");
      if (!a.result_ref_header.empty() && !a.result_ref_pointer.empty()) {
        report_.Error(at + ".result_ref_pointer", "set only one of result_ref_header and result_ref_pointer");
      }
      if (!a.result_ref_header.empty() && !IsHeaderName(a.result_ref_header)) {
        report_.Error(at + ".result_ref_header", Quote(a.result_ref_header) + " is not a header name");
      }
      if (auto problem = PointerProblem(a.result_ref_pointer); !problem.empty()) {
        report_.Error(at + ".result_ref_pointer", problem);
      }
      return;
    }
    // exec
    if (a.command.empty() || a.command[0].empty()) {
      report_.Error(at + (p_.Has(at + ".command") ? ".command" : ".type"), "type = \"exec\" needs command, an argv array such as [\"/usr/local/bin/handle\", \"--flag\"]");
    }
    for (size_t i = 0; i < a.command.size(); ++i) {
      if (a.command[i].find('\0') != std::string::npos) {
        report_.Error(at + ".command[" + std::to_string(i) + "]", "must not contain a NUL character");
      }
    }
    if (!a.url.empty()) report_.Warn(at + ".url", "unused with type = \"exec\"");
    // A command has no 202 to answer, and its token would die with it.
    if (a.async) {
      report_.Error(at + ".async", "async = true needs type = \"http\" (a 202 answer means started); exec actions end when the command exits");
    }
    for (const char* unused : {"result_ref_header", "result_ref_pointer", "ca_file"}) {
      if (p_.Has(at + "." + unused)) {
        report_.Warn(at + "." + unused, "unused with type = \"exec\" (its result_ref comes from a JSON last stdout line)");
      }
    }
  }

  void Tenants(const EndpointConfig& e, const std::string& at) {
    std::set<std::string> ids;
    for (size_t j = 0; j < e.tenants.size(); ++j) {
      const std::string key = at + ".tenants[" + std::to_string(j) + "].id";
      const std::string& id = e.tenants[j].id;
      if (id.empty()) {
        report_.Error(key, "required: the {tenant} of POST /hooks/" + e.name + "/{tenant}");
      } else if (!IsName(id)) {
        report_.Error(key, std::string(kNameRule) + " (got " + Quote(id) + ")");
      } else if (!ids.insert(id).second) {
        report_.Error(key, "duplicate tenant id " + Quote(id) + " in this endpoint");
      }
    }
  }

  void Signature(const EndpointConfig& e, const std::string& endpoint_at) {
    const SignatureConfig& s = e.signature;
    const std::string at = endpoint_at + ".signature";
    if (s.scheme == "none" && !e.insecure) {
      report_.Error(at + ".scheme", "\"none\" accepts deliveries from anyone; set insecure = true on the endpoint to allow it");
    }
    if (e.insecure) {
      report_.Warn(endpoint_at + ".insecure",
                   s.scheme == "none" ? "deliveries to this endpoint are not authenticated (signature.scheme = \"none\")"
                                      : "insecure = true: this endpoint is marked as accepting unauthenticated deliveries");
    }
    if ((s.scheme == "hmac" || s.scheme == "token") && s.header.empty() && s.signature_pointer.empty() &&
        s.signature_source.empty()) {
      report_.Error(at + ".header", "required for scheme " + Quote(s.scheme) + ": the header carrying the signature");
    }

    std::vector<std::string> format = Placeholders(s.format);
    for (const auto& ph : format) {
      if (ph != "{signature}" && ph != "{timestamp}") {
        report_.Error(at + ".format", "unknown placeholder " + ph + "; format may contain {signature} and {timestamp}");
      }
    }
    if (size_t n = Count(format, "{signature}"); n != 1) {
      report_.Error(at + ".format", "must contain {signature} exactly once (found " + std::to_string(n) + ")");
    }
    if (Count(format, "{timestamp}") > 1) report_.Error(at + ".format", "may contain {timestamp} at most once");

    std::vector<std::string> payload = Placeholders(s.signed_payload);
    for (const auto& ph : payload) {
      if (ph != "{body}" && ph != "{timestamp}" && ph != "{id}" && ph != "{method}" && ph != "{url}" &&
          ph != "{form_sorted_kv}" && ph != "{token}" && ph != "{crc32}" && ph != "{webhook_id}" &&
          ph != "{sorted_fields}" && ph != "{access_key}" && ph != "{secret}" && !IsFieldPlaceholder(ph) &&
          !IsHeaderPlaceholder(ph)) {
        report_.Error(at + ".signed_payload", "unknown placeholder " + ph +
                                                  "; signed_payload may contain {body}, {timestamp}, {id}, "
                                                  "{method} and {url}");
      }
    }
    // {form_sorted_kv} covers the body too: every form field is signed (Twilio).
    // A signature inside the body (signature_pointer) cannot cover the body; BodySignature checks that case.
    // {crc32} stands for the body in PayPal's signed string (a weak binding, but the one PayPal signs).
    // A signed {token} that is also the event id the key reads (Ecwid signs
    // eventCreated.eventId) binds the key instead: another body under the
    // same signature is that event's duplicate, never a new event.
    const bool signed_key = Count(payload, "{token}") > 0 && !s.token_pointer.empty() &&
                            s.token_pointer == e.key.id_pointer && e.key.fields.empty() && e.key.id_header.empty();
    if (Count(payload, "{body}") == 0 && Count(payload, "{form_sorted_kv}") == 0 && Count(payload, "{crc32}") == 0 &&
        s.signature_pointer.empty() && s.signature_source.empty() && !signed_key) {
      report_.Error(at + ".signed_payload", "must contain {body} (or {form_sorted_kv} for a form body)");
    }
    if (Count(payload, "{form_sorted_kv}") > 0 && s.body_kind != "form" && s.body_kind != "multipart") {
      report_.Error(at + ".signed_payload", "uses {form_sorted_kv} but body_kind is " + Quote(s.body_kind) +
                                                ": set body_kind = \"form\" (or \"multipart\")");
    }
    Digest(s, at, payload);
    Timestamp(s, at, format, payload);
    BodySignature(s, at, payload);
    FieldSignature(e, at, payload);
    UrlDecode(s, at);
    if (Count(payload, "{id}") > 0 && e.key.id_header.empty()) {
      report_.Error(at + ".signed_payload", "uses {id} but " + endpoint_at + ".key.id_header is not set");
    }
    if (Count(payload, "{url}") > 0 && e.public_url.empty()) {
      if (e.provider != "generic" && !p_.Has(at + ".signed_payload")) {
        // The preset signs the URL; the user has only public_url to add.
        report_.Error(endpoint_at + ".public_url",
                      "required for provider " + Quote(e.provider) +
                          ", which signs the notification URL: set it to the exact URL given to the provider, "
                          "e.g. \"https://hooks.example.com/hooks/" +
                          (e.name.empty() ? std::string("demo") : e.name) + "\"");
      } else {
        report_.Error(at + ".signed_payload", "uses {url} but " + endpoint_at +
                                                  ".public_url is not set: set it to the URL the provider was given");
      }
    }
    PublicUrl(e, endpoint_at);
    KeyEncoding(e, at);
    Asymmetric(e, endpoint_at, payload);
  }

  // The asymmetric schemes (helper "asym") and the placeholders only they
  // expand today: {header:NAME} and {webhook_id} (PayPal). Their public keys
  // are read and checked with the secrets (secrets.cpp).
  void Asymmetric(const EndpointConfig& e, const std::string& endpoint_at, const std::vector<std::string>& payload) {
    const SignatureConfig& s = e.signature;
    const std::string at = endpoint_at + ".signature";
    const bool asymmetric = s.scheme == "ed25519" || s.scheme == "ecdsa-p256-sha256" || s.scheme == "rsa-sha256-cert" ||
                            s.scheme == "rsa-sha256";
    for (const auto& ph : payload) {
      if (IsHeaderPlaceholder(ph) && !IsHeaderName(std::string_view(ph).substr(8, ph.size() - 9))) {
        report_.Error(at + ".signed_payload", ph + ": after \"header:\" write a header name, e.g. "
                                                   "{header:PAYPAL-TRANSMISSION-ID}");
      } else if (!asymmetric && (IsHeaderPlaceholder(ph) || ph == "{webhook_id}")) {
        report_.Error(at + ".signed_payload", ph + " is supported with the asymmetric schemes (ed25519, "
                                                   "ecdsa-p256-sha256, rsa-sha256-cert, rsa-sha256) only");
      }
    }
    if (Count(payload, "{webhook_id}") > 0 && s.webhook_id.empty()) {
      report_.Error(at + ".webhook_id",
                    e.provider != "generic" && !p_.Has(at + ".signed_payload")
                        ? "required for provider " + Quote(e.provider) +
                              ", which signs it: the webhook's ID as the provider shows it (PayPal: the Webhook ID "
                              "in the app's webhook settings)"
                        : "signed_payload uses {webhook_id}: set webhook_id");
    } else if (Count(payload, "{webhook_id}") == 0 && p_.Has(at + ".webhook_id")) {
      report_.Warn(at + ".webhook_id", "has no effect: signed_payload does not use {webhook_id}");
    }
    if (!asymmetric) return;
    if (s.header.empty()) {
      report_.Error(at + ".header", "required for scheme " + Quote(s.scheme) + ": the header carrying the signature");
    }
    if (!e.tenants.empty()) {
      report_.Error(endpoint_at + ".tenants", "not supported with scheme " + Quote(s.scheme) +
                                                  ": tenants carry secrets, and this scheme verifies with the "
                                                  "endpoint's public keys");
    }
  }

  // At most one timestamp source, and a configured one must be signed.
  void Timestamp(const SignatureConfig& s, const std::string& at, const std::vector<std::string>& format,
                 const std::vector<std::string>& payload) {
    std::vector<std::string> sources;
    if (!s.timestamp_header.empty()) sources.push_back("timestamp_header");
    if (Count(format, "{timestamp}") > 0) sources.push_back("format");
    if (!s.timestamp_pointer.empty()) sources.push_back("timestamp_pointer");
    if (sources.size() > 1) {
      std::string list;
      for (const auto& name : sources) list += (list.empty() ? "" : ", ") + name;
      report_.Error(at + "." + sources[1], "set only one timestamp source (found " + list + ")");
    }
    Pointer(at + ".timestamp_pointer", s.timestamp_pointer, false);
    const bool signs_timestamp = Count(payload, "{timestamp}") > 0;
    if (signs_timestamp && sources.empty()) {
      report_.Error(at + ".signed_payload",
                    "uses {timestamp} but nothing provides one: set timestamp_header or put {timestamp} in format "
                    "(or set timestamp_pointer)");
    }
    // A timestamp that is not signed can be refreshed by anyone replaying a
    // captured delivery: the tolerance window would only look like protection.
    // A timestamp read from the body (timestamp_pointer) is signed whenever
    // {body} is, as with Linear, which signs only the body and carries
    // webhookTimestamp inside it; {body} is required above, so it always is.
    const bool signed_in_body = sources.size() == 1 && sources[0] == "timestamp_pointer" &&
                                Count(payload, "{body}") > 0;
    if (!sources.empty() && !signs_timestamp && !signed_in_body) {
      report_.Error(at + ".signed_payload",
                    "a timestamp is configured but not signed: add {timestamp} to signed_payload "
                    "(e.g. \"{timestamp}.{body}\") or remove the timestamp source");
    }
    if (sources.empty() && p_.Has(at + ".timestamp_unit")) {
      report_.Warn(at + ".timestamp_unit", "has no effect without a timestamp source");
    }
  }

  // signature_pointer and token_pointer read the JSON body (Mailgun). A
  // signature stored inside the body cannot sign that body, so {body} is
  // refused with it; {token} needs its pointer.
  void BodySignature(const SignatureConfig& s, const std::string& at, const std::vector<std::string>& payload) {
    Pointer(at + ".signature_pointer", s.signature_pointer, false);
    Pointer(at + ".token_pointer", s.token_pointer, false);
    if (!s.signature_pointer.empty()) {
      if (s.scheme != "hmac") {
        report_.Error(at + ".signature_pointer", "only scheme = \"hmac\" reads the signature from the body");
      }
      if (s.body_kind != "json") {
        report_.Error(at + ".signature_pointer", "reads a JSON body but body_kind is " + Quote(s.body_kind) +
                                                     ": set body_kind = \"json\"");
      }
      if (Count(payload, "{body}") > 0) {
        report_.Error(at + ".signed_payload", "must not contain {body} when the signature is inside the body "
                                              "(signature_pointer); sign the fields the provider signs, e.g. "
                                              "\"{timestamp}{token}\"");
      }
      if (payload.empty()) {
        report_.Error(at + ".signed_payload", "signs nothing: name what the provider signs, e.g. \"{timestamp}{token}\"");
      }
    }
    if (Count(payload, "{token}") > 0 && s.token_pointer.empty()) {
      report_.Error(at + ".signed_payload", "uses {token} but token_pointer is not set (Mailgun: \"/signature/token\")");
    }
    if (!s.token_pointer.empty()) {
      if (Count(payload, "{token}") == 0) report_.Warn(at + ".token_pointer", "has no effect: signed_payload has no {token}");
      if (s.body_kind != "json") {
        report_.Error(at + ".token_pointer", "reads a JSON body but body_kind is " + Quote(s.body_kind) +
                                                 ": set body_kind = \"json\"");
      }
    }
  }

  // A signature inside the delivery over some of its fields (VNPay, MoMo,
  // ZaloPay, payOS; verify/signed_fields.h): signature_source, {field:…},
  // {sorted_fields} and {access_key}.
  void FieldSignature(const EndpointConfig& e, const std::string& at, const std::vector<std::string>& payload) {
    const SignatureConfig& s = e.signature;
    if (!s.signature_source.empty()) {
      const size_t colon = s.signature_source.find(':');
      const std::string kind = s.signature_source.substr(0, colon);
      const std::string name = colon == std::string::npos ? "" : s.signature_source.substr(colon + 1);
      if ((kind != "json" && kind != "form" && kind != "query") || name.empty()) {
        report_.Error(at + ".signature_source", "must be \"json:<pointer>\", \"form:<field>\" or \"query:<parameter>\" "
                                                "(e.g. \"json:/signature\"), not " + Quote(s.signature_source));
      } else if (kind == "json") {
        Pointer(at + ".signature_source", name, false);
      }
      if (s.scheme != "hmac") report_.Error(at + ".signature_source", "only scheme = \"hmac\" reads it");
      if (!s.signature_pointer.empty()) {
        report_.Error(at + ".signature_source", "set signature_source or signature_pointer, not both");
      }
      if (kind == "json" && s.body_kind != "json") {
        report_.Error(at + ".signature_source", "reads a JSON body but body_kind is " + Quote(s.body_kind));
      }
      if (kind == "form" && s.body_kind != "form" && s.body_kind != "multipart") {
        report_.Error(at + ".signature_source", "reads a form body but body_kind is " + Quote(s.body_kind));
      }
      // The signature is part of the body it would sign, so the body cannot be signed whole.
      if ((kind == "json" || kind == "form") && Count(payload, "{body}") > 0) {
        report_.Error(at + ".signed_payload", "must not contain {body} when the signature is inside the body; "
                                              "sign the fields the provider signs ({field:/…} or {sorted_fields})");
      }
      // A signature that covers none of the delivery (only {access_key} or a
      // timestamp) would be one constant MAC, valid for any body.
      const bool covers_delivery = Count(payload, "{body}") > 0 || Count(payload, "{form_sorted_kv}") > 0 ||
                                   Count(payload, "{sorted_fields}") > 0 ||
                                   std::any_of(payload.begin(), payload.end(), IsFieldPlaceholder);
      if (!covers_delivery) {
        report_.Error(at + ".signed_payload", "signs none of the delivery: name the fields the provider signs "
                                              "({field:/…} or {sorted_fields}), or {body}");
      }
    }
    for (const auto& ph : payload) {
      if (IsFieldPlaceholder(ph)) Pointer(at + ".signed_payload", ph.substr(7, ph.size() - 8), false);
      if (IsFieldPlaceholder(ph) && s.body_kind != "json") {
        report_.Error(at + ".signed_payload", ph + " reads a JSON body but body_kind is " + Quote(s.body_kind));
      }
    }
    if (Count(payload, "{sorted_fields}") > 0 && s.field_join.source.empty()) {
      report_.Error(at + ".signed_payload", "uses {sorted_fields}, which only a provider preset defines");
    }
    if (Count(payload, "{access_key}") > 0 && s.access_key.empty()) {
      report_.Error(at + ".access_key", e.provider != "generic"
                                            ? "required for provider " + Quote(e.provider) +
                                                  ", which signs it: the access key the provider gave you "
                                                  "(MoMo: accessKey, next to the secretKey)"
                                            : "signed_payload uses {access_key}: set access_key");
    } else if (Count(payload, "{access_key}") == 0 && p_.Has(at + ".access_key")) {
      report_.Warn(at + ".access_key", "has no effect: signed_payload does not use {access_key}");
    }
  }

  // A "<hash>-digest" algorithm is a plain hash: only the secret inside the
  // hashed bytes makes it a signature, so {secret} is required there; with an
  // HMAC the secret is the key and {secret} would put it in the data too.
  void Digest(const SignatureConfig& s, const std::string& at, const std::vector<std::string>& payload) {
    const bool digest = s.algorithm.size() > 7 && s.algorithm.compare(s.algorithm.size() - 7, 7, "-digest") == 0;
    const size_t n = Count(payload, "{secret}");
    if (digest && n == 0) {
      report_.Error(at + ".signed_payload", "must contain {secret} with algorithm " + Quote(s.algorithm) +
                                                ": a plain hash without the secret proves nothing");
    }
    // A plain hash of secret‖data can be extended by anyone who saw one
    // delivery (length extension), so the secret must also end the hashed
    // bytes — unless all the data is JSON field text (Fondy: "{secret}|v1|…"),
    // which is UTF-8 and cannot carry the extension's raw padding bytes.
    const bool json_fields_only = s.body_kind == "json" && Count(payload, "{body}") == 0 &&
                                  Count(payload, "{form_sorted_kv}") == 0;
    if (digest && n > 0 && payload.back() != "{secret}" && !json_fields_only) {
      report_.Error(at + ".signed_payload", "must end with {secret} with algorithm " + Quote(s.algorithm) +
                                                " (e.g. \"{secret}{body}{secret}\"): a plain hash that only starts "
                                                "with the secret can be extended by anyone who saw one delivery");
    }
    if (!digest && n > 0) {
      report_.Error(at + ".signed_payload", "uses {secret}, which only a \"<hash>-digest\" algorithm signs "
                                            "(algorithm is " + Quote(s.algorithm) + ")");
    }
  }

  // url_decode: each entry one percent-escape "%XX" (two hex digits).
  void UrlDecode(const SignatureConfig& s, const std::string& at) {
    for (size_t i = 0; i < s.url_decode.size(); ++i) {
      const std::string& e = s.url_decode[i];
      if (e.size() != 3 || e[0] != '%' || !std::isxdigit(static_cast<unsigned char>(e[1])) ||
          !std::isxdigit(static_cast<unsigned char>(e[2]))) {
        report_.Error(at + ".url_decode[" + std::to_string(i) + "]",
                      "must be a percent-escape such as \"%3A\" (got " + Quote(e) + ")");
      }
    }
  }

  // public_url is compared with nothing, only signed: it must be the absolute
  // URL the provider was given, without a query (the received one is appended).
  void PublicUrl(const EndpointConfig& e, const std::string& endpoint_at) {
    const std::string& url = e.public_url;
    if (url.empty()) return;
    bool scheme_ok = url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
    size_t host_at = url.find("//") + 2;
    if (!scheme_ok || host_at >= url.size() || url[host_at] == '/' ||
        url.find_first_of("?# \t") != std::string::npos || HasControl(url)) {
      report_.Error(endpoint_at + ".public_url",
                    "must be an absolute http(s) URL without query or fragment, e.g. "
                    "\"https://hooks.example.com/hooks/" + (e.name.empty() ? std::string("demo") : e.name) +
                        "\" (got " + Quote(url) + ")");
    }
  }

  // The decoding itself happens with the secrets (secrets.cpp), where the bytes are.
  void KeyEncoding(const EndpointConfig& e, const std::string& at) {
    if (e.signature.scheme == "hmac" || e.signature.scheme == "adyen-hmac") return;
    for (const char* name : {".secret_encoding", ".secret_prefix"}) {
      if (p_.Has(at + name)) report_.Warn(at + name, "has no effect unless scheme = \"hmac\"");
    }
  }

  void Key(const EndpointConfig& e, const std::string& endpoint_at) {
    const KeyConfig& k = e.key;
    const std::string at = endpoint_at + ".key";
    std::vector<std::string> sources;
    if (!k.id_header.empty()) sources.push_back("id_header");
    if (!k.id_pointer.empty()) sources.push_back("id_pointer");
    if (!k.fields.empty()) sources.push_back("fields");
    if (k.canonical_hash) sources.push_back("canonical_hash");
    if (sources.empty()) {
      report_.Error(at, "name where the event id comes from: id_header, id_pointer, fields or canonical_hash = true");
    } else if (sources.size() > 1) {
      std::string list;
      for (const auto& s : sources) list += (list.empty() ? "" : ", ") + s;
      report_.Error(at + "." + sources[1], "set only one event id source (found " + list + ")");
    }
    if (!k.event_type_pointer.empty() && !k.event_type_header.empty()) {
      report_.Error(at + ".event_type_header", "set only one of event_type_pointer and event_type_header");
    }
    Pointer(at + ".id_pointer", k.id_pointer, false);
    Pointer(at + ".event_type_pointer", k.event_type_pointer, false);
    Fields(at + ".fields", k.fields, e.signature.body_kind);
    PointerList(endpoint_at + ".volatile_fields", e.volatile_fields, true);
    PointerList(endpoint_at + ".redact", e.redact, true);
    Batch(e, at);
  }

  // A batch is split from its JSON array, so it needs JSON and an id that
  // tells its events apart: a header id would give every event the same key.
  void Batch(const EndpointConfig& e, const std::string& at) {
    const KeyConfig& k = e.key;
    if (!k.batch) {
      if (p_.Has(at + ".batch_pointer")) report_.Warn(at + ".batch_pointer", "has no effect unless batch = true");
      return;
    }
    Pointer(at + ".batch_pointer", k.batch_pointer, false);
    if (!k.id_header.empty()) {
      report_.Error(at + ".id_header", "a batch's events need their own ids: use id_pointer, fields or canonical_hash");
    }
    if (e.signature.body_kind != "json") {
      report_.Error(at + ".batch", "a batch is a JSON array: signature.body_kind must be \"json\"");
    }
  }

  // `wildcard`: a "*" segment means "every element" (volatile_fields only);
  // elsewhere it is refused, since a pointer there must name one value.
  void Pointer(const std::string& key, const std::string& pointer, bool wildcard) {
    if (auto problem = PointerProblem(pointer); !problem.empty()) {
      report_.Error(key, problem);
    } else if (!wildcard && HasWildcardSegment(pointer)) {
      report_.Error(key, Quote(pointer) + ": a '*' segment (every element) is only allowed in volatile_fields");
    }
  }

  void PointerList(const std::string& key, const std::vector<std::string>& pointers, bool wildcard) {
    for (size_t i = 0; i < pointers.size(); ++i) {
      const std::string element = key + "[" + std::to_string(i) + "]";
      if (pointers[i].empty()) {
        report_.Error(element, "must not be empty (\"\" is the whole document); write e.g. \"/data/id\"");
      } else {
        Pointer(element, pointers[i], wildcard);
      }
    }
  }

  // key.fields: each a JSON Pointer, "header:<Name>" (an HTTP field-name
  // token) or "form:<name>" (a form field; body_kind form or multipart).
  void Fields(const std::string& key, const std::vector<std::string>& fields, const std::string& body_kind) {
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string element = key + "[" + std::to_string(i) + "]";
      const std::string& f = fields[i];
      if (f.rfind(kFormField, 0) == 0) {
        if (f.size() == kFormField.size()) {
          report_.Error(element, Quote(f) + ": after \"form:\" write a form field name, e.g. \"form:MessageSid\"");
        } else if (body_kind != "form" && body_kind != "multipart") {
          report_.Error(element, Quote(f) + " reads a form field but signature.body_kind is " + Quote(body_kind) +
                                     ": set body_kind = \"form\" or \"multipart\"");
        }
      } else if (f.rfind(kHeaderField, 0) == 0) {
        if (!IsHeaderName(std::string_view(f).substr(kHeaderField.size()))) {
          report_.Error(element, Quote(f) + ": after \"header:\" write a header name, e.g. "
                                            "\"header:X-GitHub-Delivery\" (letters, digits and !#$%&'*+-.^_`|~)");
        }
      } else if (f.empty()) {
        report_.Error(element, "must not be empty (\"\" is the whole document); write e.g. \"/data/id\" or "
                               "\"header:X-GitHub-Delivery\"");
      } else if (f.front() != '/') {
        report_.Error(element, Quote(f) + " must be a JSON Pointer (\"/data/id\") or a header written "
                                          "\"header:<Name>\" (\"header:X-GitHub-Delivery\")");
      } else {
        Pointer(element, f, false);
      }
    }
  }

  void Lists(const EndpointConfig& e, const std::string& at) {
    if (e.content_types.empty()) {
      report_.Error(at + ".content_types", "must list at least one media type, e.g. [\"application/json\"]");
    }
    for (size_t i = 0; i < e.content_types.size(); ++i) {
      const std::string& t = e.content_types[i];
      size_t slash = t.find('/');
      if (slash == std::string::npos || !IsMediaTypeToken(t.substr(0, slash)) || !IsMediaTypeToken(t.substr(slash + 1))) {
        report_.Error(at + ".content_types[" + std::to_string(i) + "]",
                      Quote(t) + " is not a media type; write type/subtype without parameters, e.g. \"application/json\"");
      }
    }
    for (size_t i = 0; i < e.event_types.size(); ++i) {
      if (e.event_types[i].empty()) report_.Error(at + ".event_types[" + std::to_string(i) + "]", "must not be empty");
    }
    if (!e.event_types.empty() && !ReadsEventType(e.key)) {
      report_.Error(at + ".event_types",
                    "an allow-list needs the event type: set key.event_type_pointer or key.event_type_header");
    }
    if (e.ignore_other_event_types && e.event_types.empty()) {
      report_.Warn(at + ".ignore_other_event_types", "has no effect without event_types");
    }
  }

  const Parsed& p_;
  const Config& c_;
  Reporter& report_;
};

// Opens without reading: the key file is a secret we have no use for here.
void CheckReadable(const std::string& key, const std::string& path, std::vector<Problem>& out) {
  if (std::string why = UnreadableReason(path); !why.empty()) {
    out.push_back(Problem{key, 0, "cannot read " + path + ": " + why});
  }
}

}  // namespace

void Validate(const Parsed& parsed, Reporter& report) { Validator(parsed, report).Run(); }

std::vector<Problem> CheckFiles(const Config& config) {
  std::vector<Problem> out;
  if (!config.server.plain_http) {
    if (!config.server.tls_cert.empty()) CheckReadable("server.tls_cert", config.server.tls_cert, out);
    if (!config.server.tls_key.empty()) CheckReadable("server.tls_key", config.server.tls_key, out);
  }
  if (!config.admin.tls_cert.empty()) CheckReadable("admin.tls_cert", config.admin.tls_cert, out);
  if (!config.admin.tls_key.empty()) CheckReadable("admin.tls_key", config.admin.tls_key, out);
  for (size_t i = 0; i < config.endpoints.size(); ++i) {
    const ActionConfig& a = config.endpoints[i].action;
    const std::string at = "endpoint[" + std::to_string(i) + "].action";
    if (a.type == "http" && !a.ca_file.empty()) CheckReadable(at + ".ca_file", a.ca_file, out);
    // No PATH search: command[0] was made absolute against the config file's directory.
    if (a.type == "exec" && !a.command.empty() && !a.command[0].empty() && ::access(a.command[0].c_str(), X_OK) != 0) {
      out.push_back(Problem{at + ".command", 0,
                            "cannot run " + a.command[0] + ": " + std::strerror(errno) +
                                " (no PATH search: write an absolute path or one relative to the config file)"});
    }
  }
  return out;
}

std::vector<Problem> CheckRotation(const Config& config, int64_t now_ms) {
  std::vector<Problem> out;
  const int64_t today = now_ms / 86400000;
  for (size_t i = 0; i < config.endpoints.size(); ++i) {
    const EndpointConfig& e = config.endpoints[i];
    auto ends = DaysFromDate(e.rotation_ends);
    if (!ends || today <= *ends) continue;
    size_t most = e.secrets.size();
    for (const auto& t : e.tenants) most = std::max(most, t.secrets.size());
    if (most < 2) continue;
    out.push_back({"endpoint[" + std::to_string(i) + "].rotation_ends", 0,
                   "the rotation window ended on " + e.rotation_ends + " but " + std::to_string(most) +
                       " secrets are still active: remove the old one from the config and the environment"});
  }
  return out;
}

}  // namespace hookinbox::config
