// cli/local_address.h — where a verb on this machine reaches a listener of the
// running service, from the address the config tells it to listen on.
#pragma once

#include <string>

namespace hookinbox::cli {

// "host:port" a client connects to for `listen`: a wildcard host (empty,
// 0.0.0.0, ::) becomes loopback (127.0.0.1, ::1), an IPv6 literal gets its
// brackets. `listen` unchanged when it has no port.
std::string ClientAuthority(const std::string& listen);

}  // namespace hookinbox::cli
