// store/fold_group.h — which rejected deliveries share one flood budget
// (ingest.h RecordRejected: 60 rows a minute, then one folding row).
//
// An IPv4 address is one sender. An IPv6 sender, though, usually holds a
// whole /64 (one customer's LAN, one VM's subnet) and can pick a fresh
// address per request; folding per address would give it 2^64 budgets. So
// IPv6 deliveries are folded per /64. IPv4-mapped IPv6 (::ffff:a.b.c.d,
// what a dual-stack listener reports for IPv4 clients) stays per address.
//
// The stored remote_addr is the address as the listener reported it
// (RFC 5952 text, as inet_ntop writes it), so a /64 is not one text prefix:
// "2001:db8::1" and "2001:db8:0:0:1::1" share 2001:db8::/64. Slash64Prefixes
// lists the few text prefixes every address of a /64 starts with (they may
// match a little more); the caller reads those rows and keeps the ones
// SameSlash64 confirms.
// Pure: no I/O.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookinbox::store {

using Slash64 = std::array<uint8_t, 8>;

// The /64 of an IPv6 address; nullopt for IPv4, IPv4-mapped IPv6, an empty
// string or anything that is not an address.
std::optional<Slash64> Slash64Of(std::string_view addr);

// Text prefixes such that the RFC 5952 text of every address in `net`
// starts with at least one of them.
std::vector<std::string> Slash64Prefixes(const Slash64& net);

}  // namespace hookinbox::store
