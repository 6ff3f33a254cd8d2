#include <catch2/catch.hpp>

#include <cstdint>

#include "common/secret.h"

using namespace hookinbox;

TEST_CASE("constant-time equal: equal, different and different-length inputs", "[common]") {
  CHECK(ConstantTimeEqual("abc", "abc"));
  CHECK(ConstantTimeEqual("", ""));
  CHECK_FALSE(ConstantTimeEqual("abc", "abd"));
  CHECK_FALSE(ConstantTimeEqual("abc", "abcd"));
  CHECK_FALSE(ConstantTimeEqual("", "a"));
}

TEST_CASE("random hex: right length, hex digits, not repeating", "[common]") {
  std::string a = RandomHex(32), b = RandomHex(32);
  CHECK(a.size() == 64);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
}

TEST_CASE("secret: exposes its bytes only through bytes()", "[common]") {
  Secret s("whsec_123");
  CHECK(s.bytes() == "whsec_123");
  CHECK_FALSE(s.empty());
  CHECK(Secret().empty());
}

TEST_CASE("secret: one with an end is valid only before it; none means no end", "[common][rotation]") {
  Secret forever("k");
  CHECK(forever.valid_until_ms() == 0);
  CHECK(forever.ValidAt(0));
  CHECK(forever.ValidAt(INT64_MAX));
  Secret rotated_out("k", 1000);
  CHECK(rotated_out.valid_until_ms() == 1000);
  CHECK(rotated_out.ValidAt(999));
  CHECK_FALSE(rotated_out.ValidAt(1000));
  CHECK_FALSE(rotated_out.ValidAt(1001));
}

TEST_CASE("secret: == compares the bytes and the end", "[common][rotation]") {
  CHECK(Secret("k", 1000) == Secret("k", 1000));
  CHECK(Secret("k") == Secret("k", 0));
  CHECK_FALSE(Secret("k", 1000) == Secret("k", 2000));
  CHECK_FALSE(Secret("k", 1000) == Secret("k"));
  CHECK_FALSE(Secret("k", 1000) == Secret("j", 1000));
  Secret copy = Secret("k", 1000);
  CHECK(copy.valid_until_ms() == 1000);  // copies keep the end
}
