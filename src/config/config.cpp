#include "config/config.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <string>

namespace hookinbox::config {

const EndpointConfig* Config::FindEndpoint(std::string_view name) const {
  for (const auto& e : endpoints) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

const TenantConfig* EndpointConfig::FindTenant(std::string_view id) const {
  for (const auto& t : tenants) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

std::optional<ListenAddress> SplitListen(std::string_view listen) {
  size_t colon = listen.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return ListenAddress{std::string(host), std::atoi(std::string(listen.substr(colon + 1)).c_str())};
}

bool IsLoopbackHost(std::string_view host) {
  if (host.size() == 9) {
    std::string lower(host);
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lower == "localhost") return true;
  }
  const std::string text(host);
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, text.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

std::string Config::Resolve(const std::string& p) const {
  if (p.empty() || p.front() == '/' || base_dir.empty()) return p;
  return base_dir + "/" + p;
}

std::string BusinessKeyConfig::OperationFor(std::string_view event_type) const {
  for (const auto& [type, op] : operations)
    if (type == event_type) return op;
  return operation;
}

}  // namespace hookinbox::config
