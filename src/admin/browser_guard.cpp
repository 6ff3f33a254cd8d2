#include "admin/browser_guard.h"

#include <arpa/inet.h>

#include <algorithm>
#include <string>

#include "http/request_view.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

// For answers that are data: nothing may load, run, or frame them.
constexpr const char* kDataPolicy =
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox";

// The UI loads only its own files and talks only to this listener: no
// inline script, no framing (clickjacking of the replay button), no referrer
// leaking an event id to anything else.
constexpr const char* kPagePolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

constexpr int kHttpMisdirected = 421;

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  return out;
}

// The host of a Host value without port, brackets or a final dot, lower
// case; "" when it is not of the form host[:port].
std::string HostOf(std::string_view value) {
  std::string_view host = value;
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return "";
    if (close + 1 < host.size() && host[close + 1] != ':') return "";
    host = host.substr(1, close - 1);
  } else if (size_t colon = host.find(':'); colon != std::string_view::npos) {
    if (host.find(':', colon + 1) != std::string_view::npos) return "";  // a bare IPv6 address is not a Host
    host = host.substr(0, colon);
  }
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  return Lower(host);
}

bool IsIpLiteral(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

}  // namespace

httplib::Headers SecurityHeaders() {
  return {
      {"X-Content-Type-Options", "nosniff"},
      {"Content-Security-Policy", kDataPolicy},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", "no-referrer"},
  };
}

void UsePagePolicy(httplib::Response& res) {
  res.headers.erase("Content-Security-Policy");
  res.set_header("Content-Security-Policy", kPagePolicy);
}

bool HostAllowed(const config::AdminConfig& admin, std::string_view host_header) {
  const std::string host = HostOf(host_header);
  if (host.empty()) return false;
  if (host == "localhost" || IsIpLiteral(host)) return true;
  if (auto listen = config::SplitListen(admin.listen); listen && Lower(listen->host) == host) return true;
  return std::any_of(admin.allowed_hosts.begin(), admin.allowed_hosts.end(),
                     [&](const std::string& allowed) { return HostOf(allowed) == host; });
}

bool RefuseForeignHost(const config::AdminConfig& admin, const httplib::Request& req, httplib::Response& res) {
  const std::string host = req.get_header_value("Host");
  if (!host.empty() && HostAllowed(admin, host)) return false;
  if (host.empty()) {
    http::ReplyJson(res, 400, R"({"error":"missing Host header"})");
  } else {
    http::ReplyJson(res, kHttpMisdirected,
                    R"({"error":"host not allowed on the admin listener; add its name to admin.allowed_hosts"})");
  }
  // Whatever it sent was meant for another server: do not read on.
  http::CloseAfterResponse(res);
  return true;
}

}  // namespace hookinbox::admin
