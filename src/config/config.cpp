#include "config/config.h"

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

std::string Config::Resolve(const std::string& p) const {
  if (p.empty() || p.front() == '/' || base_dir.empty()) return p;
  return base_dir + "/" + p;
}

}  // namespace hookinbox::config
