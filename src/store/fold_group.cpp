#include "store/fold_group.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace hookinbox::store {
namespace {

// Group i (0-based) of the /64, as RFC 5952 writes it: lower-case hex, no leading zeros.
std::string Group(const Slash64& net, int i) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%x", (net[2 * i] << 8) | net[2 * i + 1]);
  return buf;
}

bool Zero(const Slash64& net, int i) { return net[2 * i] == 0 && net[2 * i + 1] == 0; }

// Groups [from, to) joined with ':'.
std::string Join(const Slash64& net, int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) {
    if (i > from) out += ':';
    out += Group(net, i);
  }
  return out;
}

}  // namespace

std::optional<Slash64> Slash64Of(std::string_view addr) {
  const std::string text(addr.substr(0, addr.find('%')));  // no zone id ("fe80::1%eth0")
  in6_addr a{};
  if (inet_pton(AF_INET6, text.c_str(), &a) != 1 || IN6_IS_ADDR_V4MAPPED(&a)) return std::nullopt;
  Slash64 net{};
  std::memcpy(net.data(), a.s6_addr, net.size());
  return net;
}

// The text starts with the four groups unless the "::" of the longest zero
// run begins within them, at group s. Then it is the groups before s, "::",
// and — when the run ends at group e before the fourth — the groups after e
// up to the fourth; when the run reaches past the fourth, the rest lies in
// the interface id and the prefix ends at "::".
std::vector<std::string> Slash64Prefixes(const Slash64& net) {
  std::vector<std::string> out{Join(net, 0, 4) + ":"};
  for (int s = 0; s < 4; ++s) {
    for (int e = s; e < 4 && Zero(net, e); ++e) {
      const std::string head = Join(net, 0, s) + "::";
      if (e == 3) {
        out.push_back(head);  // the run may go on into the interface id
      } else if (e > s) {     // a run of at least two groups ending at e
        out.push_back(head + Join(net, e + 1, 4) + ":");
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace hookinbox::store
