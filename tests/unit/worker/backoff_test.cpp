#include "worker/policy.h"

#include <catch2/catch.hpp>

namespace hookinbox::worker {
namespace {

TEST_CASE("backoff: full jitter below a doubling ceiling, capped", "[worker]") {
  // u close to 1 shows the ceiling; u = 0 the floor of full jitter.
  CHECK(BackoffMs(1, 1000, 3600000, 0.999999) == 999);
  CHECK(BackoffMs(2, 1000, 3600000, 0.999999) == 1999);
  CHECK(BackoffMs(3, 1000, 3600000, 0.5) == 2000);
  CHECK(BackoffMs(1, 1000, 3600000, 0.0) == 0);
  CHECK(BackoffMs(13, 1000, 3600000, 0.999999) == 3599996);
  CHECK(BackoffMs(100000, 1000, 3600000, 1.0) == 3600000);
  CHECK(BackoffMs(5, 1000, 3600000, 7.0) == 16000);   // clamped to 1
  CHECK(BackoffMs(5, 1000, 3600000, -1.0) == 0);      // clamped to 0
  CHECK(BackoffMs(3, 5000, 1000, 1.0) == 1000);       // initial above the cap
  CHECK(BackoffMs(0, 1000, 3600000, 1.0) == 1000);    // attempt 0 is treated as the first
}

TEST_CASE("backoff: grows with the attempt for the same random draw", "[worker]") {
  int64_t last = -1;
  for (int attempt = 1; attempt <= 12; ++attempt) {
    const int64_t d = BackoffMs(attempt, 1000, 3600000, 0.75);
    CHECK(d >= last);
    last = d;
  }
}

TEST_CASE("next attempt: never earlier than Retry-After, up to the cap", "[worker]") {
  const int64_t now = 1700000000000;
  CHECK(NextAttemptAt(now, 1, std::nullopt, 1000, 3600000, 0.5) == now + 500);
  CHECK(NextAttemptAt(now, 1, 2000, 1000, 3600000, 0.5) == now + 2000);
  CHECK(NextAttemptAt(now, 5, 2000, 1000, 3600000, 0.5) == now + 8000);  // backoff already later
  CHECK(NextAttemptAt(now, 1, 0, 1000, 3600000, 0.0) == now);
  // Beyond the cap, the cap: a downstream cannot push an event years away.
  CHECK(NextAttemptAt(now, 1, 7200000, 1000, 3600000, 0.5) == now + 3600000);
  CHECK(NextAttemptAt(now, 1, int64_t{99999999} * 1000, 1000, 3600000, 0.0) == now + 3600000);
  CHECK(NextAttemptAt(now, 1, INT64_MAX, 1000, 2000, 0.0) == now + 2000);
}

}  // namespace
}  // namespace hookinbox::worker
