// The rules of what handlers and destinations are given: where the handler
// API listens and how handlers are told to reach it (admin.handler_api_*),
// and the credential an http action presents to its destination
// ([endpoint.action] auth*). The credential's value is checked where it is
// read (secrets.cpp); here only how the keys are written.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>

#include "config/parsed.h"

namespace hookinbox::config {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Headers a forward cannot let a credential replace: framing and hop-by-hop
// headers (the connection would break or be hijacked), and the ones
// hookinbox itself sets (a downstream reads them as hookinbox's word).
std::string ReservedHeaderReason(std::string_view name) {
  static constexpr std::array<std::string_view, 13> kFraming = {
      "host",    "content-length", "content-type", "transfer-encoding",   "connection",         "keep-alive",     "te",
      "trailer", "upgrade",        "expect",       "proxy-authorization", "proxy-authenticate", "idempotency-key"};
  const std::string lower = Lower(name);
  if (std::find(kFraming.begin(), kFraming.end(), lower) != kFraming.end()) {
    return "is a header hookinbox or HTTP itself sets on every forward";
  }
  if (lower.rfind("webhook-", 0) == 0) return "is a Standard Webhooks header (webhook-*) hookinbox signs with";
  if (lower.rfind("x-hookinbox-", 0) == 0) return "is one of hookinbox's own headers (X-Hookinbox-*)";
  return "";
}

void HandlerApiListen(const Parsed& p, Reporter& report) {
  const AdminConfig& a = p.config.admin;
  if (a.handler_api_listen.empty()) return;
  const std::string key = "admin.handler_api_listen";
  if (std::string problem = ListenProblem(a.handler_api_listen); !problem.empty()) return report.Error(key, problem);
  for (const auto& [other, value] :
       {std::pair{"admin.listen", &a.listen}, {"server.listen", &p.config.server.listen}}) {
    auto at = SplitListen(*value);
    if (*value == a.handler_api_listen && at && at->port != 0) {
      return report.Error(key, std::string("must differ from ") + other + " (both are " + TomlQuote(*value) + ")");
    }
  }
  // As admin.listen: /v1 carries handler tokens and payload-derived data.
  auto listen = SplitListen(a.handler_api_listen);
  if (!a.tls_cert.empty() || a.allow_plain_http || !listen || IsLoopbackHost(listen->host)) return;
  report.Error(key, TomlQuote(listen->host) +
                        " is not loopback, and the admin listeners have no TLS: set "
                        "admin.tls_cert and admin.tls_key, or admin.allow_plain_http = true "
                        "on a private network such as the Docker bridge");
}

void HandlerApiUrl(const Parsed& p, Reporter& report) {
  const std::string& url = p.config.admin.handler_api_url;
  if (url.empty() && !p.Has("admin.handler_api_url")) return;
  const std::string key = "admin.handler_api_url";
  if (!IsHttpUrl(url)) {
    return report.Error(key, TomlQuote(url) +
                                 " is not an absolute http:// or https:// URL with a host, e.g. "
                                 "\"http://172.17.0.1:8082\"");
  }
  const size_t authority = url.find("://") + 3;
  const std::string_view rest = std::string_view(url).substr(authority);
  if (rest.substr(0, rest.find('/')).find('@') != std::string_view::npos) {
    return report.Error(key, "must not carry a user or password: every handler is sent this URL");
  }
  if (url.find_first_of("?#") != std::string::npos) return report.Error(key, "must not have a query or fragment");
  if (url.ends_with("/v1") || url.ends_with("/v1/")) {
    return report.Error(
        key, "leave out /v1: it is the handler API's base, and hookinbox appends /v1 (got " + TomlQuote(url) + ")");
  }
  if (url.ends_with("/")) return report.Error(key, "must not end with '/' (got " + TomlQuote(url) + ")");
}

void ActionAuthHeader(const ActionConfig& a, const std::string& at, const Parsed& p, Reporter& report) {
  if (a.auth != "header") {
    if (p.Has(at + ".auth_header")) report.Error(at + ".auth_header", "is only used with auth = \"header\"");
    return;
  }
  if (a.auth_header.empty()) {
    return report.Error(at + (p.Has(at + ".auth_header") ? ".auth_header" : ".auth"),
                        "auth = \"header\" needs auth_header, the header's name, e.g. \"X-N8n-Auth\"");
  }
  if (!IsHeaderName(a.auth_header)) {
    return report.Error(at + ".auth_header", TomlQuote(a.auth_header) + " is not a header name");
  }
  if (std::string why = ReservedHeaderReason(a.auth_header); !why.empty()) {
    report.Error(at + ".auth_header", TomlQuote(a.auth_header) + " " + why + "; choose another name");
  }
}

void ActionAuth(const EndpointConfig& e, const std::string& at, const Parsed& p, Reporter& report) {
  const ActionConfig& a = e.action;
  const bool env = p.Has(at + ".auth_secret_env");
  const bool file = p.Has(at + ".auth_secret_file");
  if (a.type != "http") {
    // An exec command runs here and needs no credential; one written for it is a mistake.
    for (const char* name : {"auth", "auth_header", "auth_secret_env", "auth_secret_file"}) {
      if (!p.Has(at + "." + name)) continue;
      report.Error(at + "." + name, a.type.empty() ? "needs type = \"http\": only an http action sends a credential"
                                                   : "not allowed with type = \"" + a.type +
                                                         "\": only an http action sends a credential");
    }
    return;
  }
  ActionAuthHeader(a, at, p, report);
  if (a.auth.empty()) {
    // A value the loader refused (auth = "jwt") has its own error; one is enough.
    if (p.Has(at + ".auth")) return;
    for (const char* name : {"auth_secret_env", "auth_secret_file"}) {
      if (p.Has(at + "." + name)) {
        report.Error(at + "." + name, "unused without auth: set auth = \"bearer\", \"basic\" or \"header\"");
      }
    }
    return;
  }
  if (!env && !file) {
    report.Error(at + ".auth", "auth = \"" + a.auth + "\" needs auth_secret_env or auth_secret_file (" +
                                   (a.auth == "basic" ? "user:password" : "the token") + ")");
  }
}

}  // namespace

void ValidateHandlerAccess(const Parsed& parsed, Reporter& report) {
  HandlerApiListen(parsed, report);
  HandlerApiUrl(parsed, report);
  for (size_t i = 0; i < parsed.config.endpoints.size(); ++i) {
    ActionAuth(parsed.config.endpoints[i], "endpoint[" + std::to_string(i) + "].action", parsed, report);
  }
}

}  // namespace hookinbox::config
