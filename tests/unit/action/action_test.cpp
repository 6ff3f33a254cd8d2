#include "action/action.h"

#include <openssl/sha.h>

#include <catch2/catch.hpp>

#include "common/clock.h"

namespace hookinbox::action {
namespace {

std::string Hex(const unsigned char* p, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

TEST_CASE("idempotency key: hex SHA-256 of the documented length-prefixed encoding", "[action]") {
  const std::string joined = "hookinbox-idempotency-v1\n6:stripe\n8:payments\n7:default\n9:evt_12345";
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(joined.data()), joined.size(), digest);
  CHECK(IdempotencyKey("stripe", "payments", "default", "evt_12345") == Hex(digest, sizeof digest));
}

TEST_CASE("idempotency key: stable, header-safe, and distinct for every part", "[action]") {
  const std::string key = IdempotencyKey("stripe", "payments", "default", "evt_1");
  CHECK(key.size() == 64);
  CHECK(key.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(IdempotencyKey("stripe", "payments", "default", "evt_1") == key);
  CHECK(IdempotencyKey("github", "payments", "default", "evt_1") != key);
  CHECK(IdempotencyKey("stripe", "orders", "default", "evt_1") != key);
  CHECK(IdempotencyKey("stripe", "payments", "acme", "evt_1") != key);
  CHECK(IdempotencyKey("stripe", "payments", "default", "evt_2") != key);
  // Shifting a boundary between parts changes the key (length prefixes).
  CHECK(IdempotencyKey("ab", "c", "d", "e") != IdempotencyKey("a", "bc", "d", "e"));
}

TEST_CASE("verdict names are the words the audit rows store", "[action]") {
  CHECK(std::string(VerdictName(Verdict::kSuccess)) == "success");
  CHECK(std::string(VerdictName(Verdict::kTransient)) == "transient");
  CHECK(std::string(VerdictName(Verdict::kPermanent)) == "permanent");
  CHECK(std::string(VerdictName(Verdict::kUnknown)) == "unknown");
}

TEST_CASE("MakeAction: no type is no action; http and exec build their action", "[action]") {
  FakeClock clock(0);
  config::ActionConfig c;
  CHECK(MakeAction(c, clock) == nullptr);
  c.type = "http";
  c.url = "http://127.0.0.1:1/";
  CHECK(MakeAction(c, clock) != nullptr);
  c.type = "exec";
  c.command = {"/bin/true"};
  auto exec = MakeAction(c, clock);
  REQUIRE(exec != nullptr);
  CHECK(exec->Run(ActionInput{}).verdict == Verdict::kSuccess);
}

}  // namespace
}  // namespace hookinbox::action
