#include "cli/local_address.h"

#include "config/config.h"

namespace hookinbox::cli {

std::string ClientAuthority(const std::string& listen) {
  auto addr = config::SplitListen(listen);
  if (!addr) return listen;
  std::string host = addr->host;
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return host + ":" + std::to_string(addr->port);
}

}  // namespace hookinbox::cli
