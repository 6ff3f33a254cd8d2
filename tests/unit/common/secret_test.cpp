#include <catch2/catch.hpp>

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
