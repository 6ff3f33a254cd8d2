#include "admin/login_limiter.h"

#include <catch2/catch.hpp>

#include "common/clock.h"

using hookinbox::FakeClock;
using hookinbox::admin::LoginLimiter;

TEST_CASE("login limiter: 10 failures within a minute block the address for a minute; others are unaffected",
          "[admin][auth]") {
  FakeClock clock(1'000'000);
  LoginLimiter limiter(clock);
  for (int i = 0; i < 9; ++i) {
    limiter.RecordFailure("10.0.0.1");
    clock.Advance(1000);
  }
  CHECK(limiter.BlockedForMs("10.0.0.1") == 0);  // nine: still allowed
  limiter.RecordFailure("10.0.0.1");             // the 10th, 9 s after the first
  CHECK(limiter.BlockedForMs("10.0.0.1") == 60000);
  CHECK(limiter.BlockedForMs("10.0.0.2") == 0);
  clock.Advance(59999);
  CHECK(limiter.BlockedForMs("10.0.0.1") == 1);
  clock.Advance(1);
  CHECK(limiter.BlockedForMs("10.0.0.1") == 0);
  // The block cleared the count: one more failure does not block again.
  limiter.RecordFailure("10.0.0.1");
  CHECK(limiter.BlockedForMs("10.0.0.1") == 0);
}

TEST_CASE("login limiter: failures older than a minute do not count", "[admin][auth]") {
  FakeClock clock(5'000'000);
  LoginLimiter limiter(clock);
  for (int i = 0; i < 20; ++i) {
    limiter.RecordFailure("10.0.0.1");
    clock.Advance(7000);  // 9 in any 60 s window, never 10
    CHECK(limiter.BlockedForMs("10.0.0.1") == 0);
  }
  // Exactly on the window's edge: the failure 60 s ago has left it.
  FakeClock edge(0 + 100'000);
  LoginLimiter l2(edge);
  l2.RecordFailure("a");
  edge.Advance(60000);
  for (int i = 0; i < 9; ++i) l2.RecordFailure("a");
  CHECK(l2.BlockedForMs("a") == 0);
  l2.RecordFailure("a");
  CHECK(l2.BlockedForMs("a") > 0);
}

TEST_CASE("login limiter: a flood of addresses stays bounded and keeps blocked ones", "[admin][auth]") {
  FakeClock clock(1'000'000);
  LoginLimiter limiter(clock);
  for (int i = 0; i < 10; ++i) limiter.RecordFailure("attacker");
  REQUIRE(limiter.BlockedForMs("attacker") > 0);
  clock.Advance(1);
  // Fresh addresses fill the table; each has one failure in its window.
  for (size_t i = 0; i < LoginLimiter::kMaxTracked + 50; ++i) limiter.RecordFailure("a" + std::to_string(i));
  // Making room dropped the entries whose last activity is oldest; the
  // attacker's block ends in the future, so it is the last to go.
  CHECK(limiter.BlockedForMs("attacker") > 0);
}

// The limiter's state is in memory only, so it runs on the
// monotonic clock; FakeClock::Set steps the wall clock alone, as NTP or
// `date -s` would.
TEST_CASE("login limiter: a wall-clock step backward does not lengthen a block, nor one forward lift it",
          "[admin][auth]") {
  FakeClock clock(1'700'000'000'000);
  LoginLimiter limiter(clock);
  for (int i = 0; i < LoginLimiter::kMaxFailures; ++i) limiter.RecordFailure("10.0.0.1");
  REQUIRE(limiter.BlockedForMs("10.0.0.1") == 60000);
  clock.Set(clock.NowMs() - 3'600'000);  // an hour back
  CHECK(limiter.BlockedForMs("10.0.0.1") == 60000);
  clock.Advance(30000);
  CHECK(limiter.BlockedForMs("10.0.0.1") == 30000);
  clock.Set(clock.NowMs() + 7'200'000);  // two hours forward
  CHECK(limiter.BlockedForMs("10.0.0.1") == 30000);
  clock.Advance(30000);
  CHECK(limiter.BlockedForMs("10.0.0.1") == 0);
}

TEST_CASE("login limiter: a wall-clock step forward does not empty the failure window", "[admin][auth]") {
  FakeClock clock(1'700'000'000'000);
  LoginLimiter limiter(clock);
  for (int i = 0; i < LoginLimiter::kMaxFailures - 1; ++i) limiter.RecordFailure("10.0.0.1");
  clock.Set(clock.NowMs() + 3'600'000);
  clock.Advance(1000);
  CHECK(limiter.RecordFailure("10.0.0.1") == LoginLimiter::kMaxFailures);  // still within the minute
  CHECK(limiter.BlockedForMs("10.0.0.1") == 60000);
}

TEST_CASE("login limiter: failures are counted back to the caller; each block reports its first refusal once",
          "[admin][auth]") {
  FakeClock clock(1'000'000);
  LoginLimiter limiter(clock);
  for (int i = 1; i <= LoginLimiter::kMaxFailures; ++i) CHECK(limiter.RecordFailure("a") == i);
  bool first = false;
  CHECK(limiter.BlockedForMs("a") == 60000);  // a caller that does not ask leaves the report alone
  CHECK(limiter.BlockedForMs("a", &first) == 60000);
  CHECK(first);
  clock.Advance(1000);
  CHECK(limiter.BlockedForMs("a", &first) == 59000);
  CHECK_FALSE(first);
  CHECK(limiter.BlockedForMs("b", &first) == 0);  // never seen
  CHECK_FALSE(first);
  // After the block, counting starts again, and the next block is reported again.
  clock.Advance(59000);
  CHECK(limiter.BlockedForMs("a", &first) == 0);
  CHECK_FALSE(first);
  for (int i = 1; i <= LoginLimiter::kMaxFailures; ++i) CHECK(limiter.RecordFailure("a") == i);
  CHECK(limiter.BlockedForMs("a", &first) == 60000);
  CHECK(first);
}
