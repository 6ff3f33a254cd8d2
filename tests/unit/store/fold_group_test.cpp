// Rejected deliveries fold per IPv4 address and per IPv6 /64
// (store/fold_group.h): the text prefixes of a /64 against the real
// inet_ntop, and the store folding a /64 that rotates its addresses.
#include "store/fold_group.h"

#include <catch2/catch.hpp>

#include <arpa/inet.h>

#include <cstring>
#include <random>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

std::string Ntop(const unsigned char (&bytes)[16]) {
  char buf[INET6_ADDRSTRLEN];
  REQUIRE(inet_ntop(AF_INET6, bytes, buf, sizeof buf) != nullptr);
  return buf;
}

bool StartsWithOneOf(const std::string& text, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes) {
    if (text.rfind(p, 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("fold group: IPv6 addresses group by /64; IPv4 and IPv4-mapped addresses do not", "[store][fold]") {
  REQUIRE(store::Slash64Of("2001:db8:1:2::1"));
  CHECK(store::Slash64Of("2001:db8:1:2::1") == store::Slash64Of("2001:db8:1:2:ffff:ffff:ffff:ffff"));
  CHECK(store::Slash64Of("2001:db8::1") == store::Slash64Of("2001:db8:0:0:1::1"));
  CHECK(store::Slash64Of("2001:DB8:1:2::1") == store::Slash64Of("2001:db8:1:2::2"));
  CHECK(store::Slash64Of("2001:db8:1:2::1") != store::Slash64Of("2001:db8:1:3::1"));
  CHECK(store::Slash64Of("fe80::1%eth0") == store::Slash64Of("fe80::2"));
  CHECK_FALSE(store::Slash64Of("192.0.2.1"));
  CHECK_FALSE(store::Slash64Of("::ffff:192.0.2.1"));
  CHECK_FALSE(store::Slash64Of(""));
  CHECK_FALSE(store::Slash64Of("not an address"));
}

TEST_CASE("fold group: the text of every address of a /64 starts with one of its prefixes", "[store][fold]") {
  // Prefixes with zero groups anywhere, which is where "::" moves the text.
  const char* nets[] = {"2001:db8:1:2::", "2001:db8::", "2001:0:0:5::", "2001:0:5:0::", "0:0:1:2::", "::",
                        "fe80::",         "2a01:4f8:c17:0::", "2001:0:0:0::", "0:1:0:0::"};
  std::mt19937 rng(42);
  for (const char* net_text : nets) {
    unsigned char net_bytes[16];
    REQUIRE(inet_pton(AF_INET6, net_text, net_bytes) == 1);
    auto net = store::Slash64Of(net_text);
    REQUIRE(net);
    const auto prefixes = store::Slash64Prefixes(*net);
    for (int i = 0; i < 2000; ++i) {
      unsigned char a[16];
      std::memcpy(a, net_bytes, 8);
      // Interface ids rich in zero groups, so every compression shape shows up.
      for (int g = 4; g < 8; ++g) {
        const uint16_t v = rng() % 3 == 0 ? static_cast<uint16_t>(rng()) : 0;
        a[2 * g] = static_cast<unsigned char>(v >> 8);
        a[2 * g + 1] = static_cast<unsigned char>(v & 0xff);
      }
      const std::string text = Ntop(a);
      if (!store::Slash64Of(text)) continue;  // an IPv4-mapped address of ::/64: folded per address
      INFO(net_text << " → " << text);
      CHECK(StartsWithOneOf(text, prefixes));
      CHECK(store::Slash64Of(text) == net);
    }
  }
}

TEST_CASE("deliveries: rejections from one IPv6 /64 share one flood budget however the address rotates",
          "[store][fold]") {
  StoreFixture f;
  auto d = SampleDelivery();
  d.http_status = 401;
  d.reason = "unauthenticated";
  const int total = store::kRejectedRowsPerMinute + 40;
  for (int i = 0; i < total; ++i) {
    // A fresh address each time, some of them written with "::" inside the /64.
    d.remote_addr = i % 2 ? "2001:db8:0:0:" + std::to_string(i) + "::1" : "2001:db8::" + std::to_string(i);
    REQUIRE(f.store->RecordRejected(d).ok());
  }
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == store::kRejectedRowsPerMinute + 1);
  CHECK(f.Count("SELECT sum(request_count) FROM webhook_deliveries") == total);
  CHECK(f.Count("SELECT max(request_count) FROM webhook_deliveries") == 40);

  SECTION("another /64, an IPv4 address and IPv4-mapped addresses keep their own budgets") {
    for (const char* addr : {"2001:db8:0:1::1", "192.0.2.7", "::ffff:192.0.2.8", "::ffff:192.0.2.9"}) {
      d.remote_addr = addr;
      REQUIRE(f.store->RecordRejected(d).ok());
    }
    CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE request_count = 1") ==
          store::kRejectedRowsPerMinute + 4);
  }
}
