// http/admission: the caps counted per address (IPv4, IPv6 /64) and in all.
#include <catch2/catch.hpp>

#include "http/admission.h"

using namespace hookinbox::http;

TEST_CASE("admission: an address is an IPv4 address or an IPv6 /64; mapped IPv4 counts as IPv4", "[http]") {
  CHECK(AddressKey("203.0.113.7") == "203.0.113.7");
  CHECK(AddressKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64");
  CHECK(AddressKey("2001:db8:1:2::1") == AddressKey("2001:db8:1:2:ffff::9"));
  CHECK(AddressKey("2001:db8:1:3::1") != AddressKey("2001:db8:1:2::1"));
  CHECK(AddressKey("::ffff:198.51.100.4") == "198.51.100.4");
  CHECK(AddressKey("not an address") == "not an address");
}

TEST_CASE("admission: the per-address cap and the total cap each refuse, and a release makes room", "[http]") {
  Admission admission(3, 2);
  CHECK(admission.Admit("a") == Admission::Verdict::kAdmitted);
  CHECK(admission.Admit("a") == Admission::Verdict::kAdmitted);
  CHECK(admission.Admit("a") == Admission::Verdict::kAddressFull);
  CHECK(admission.Admit("b") == Admission::Verdict::kAdmitted);
  CHECK(admission.Admit("c") == Admission::Verdict::kTotalFull);
  CHECK(admission.open() == 3);
  CHECK(admission.open_from("a") == 2);
  admission.Release("a");
  CHECK(admission.Admit("c") == Admission::Verdict::kAdmitted);
  admission.Release("unknown");  // never admitted: nothing changes
  CHECK(admission.open() == 3);
  for (const char* key : {"a", "b", "c"}) admission.Release(key);
  CHECK(admission.open() == 0);
  CHECK(admission.open_from("a") == 0);
  CHECK(std::string(VerdictName(Admission::Verdict::kAddressFull)) == "max_connections_per_address");
}
