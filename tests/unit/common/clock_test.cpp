// common/clock: FormatUtc, the time an operator reads and writes (a secret
// rotation's end), and FakeClock's two clocks.
#include <catch2/catch.hpp>

#include "common/clock.h"

using namespace hookinbox;

TEST_CASE("clock: FormatUtc writes UTC to the second, rounding down", "[common][clock]") {
  CHECK(FormatUtc(0) == "1970-01-01T00:00:00Z");
  CHECK(FormatUtc(999) == "1970-01-01T00:00:00Z");
  CHECK(FormatUtc(1000) == "1970-01-01T00:00:01Z");
  CHECK(FormatUtc(1796860800000) == "2026-12-10T00:00:00Z");
  CHECK(FormatUtc(1796860800999) == "2026-12-10T00:00:00Z");
  CHECK(FormatUtc(951782400000) == "2000-02-29T00:00:00Z");  // a leap day
  CHECK(FormatUtc(4102444799000) == "2099-12-31T23:59:59Z");
}

TEST_CASE("clock: FormatUtc before the epoch rounds down too (towards the past)", "[common][clock]") {
  CHECK(FormatUtc(-1) == "1969-12-31T23:59:59Z");
  CHECK(FormatUtc(-999) == "1969-12-31T23:59:59Z");
  CHECK(FormatUtc(-1000) == "1969-12-31T23:59:59Z");
  CHECK(FormatUtc(-1001) == "1969-12-31T23:59:58Z");
  CHECK(FormatUtc(-86400000) == "1969-12-31T00:00:00Z");
}

TEST_CASE("clock: FakeClock's Advance moves both clocks, Set only the wall clock", "[common][clock]") {
  FakeClock clock(1000);
  const int64_t mono = clock.MonotonicMs();
  clock.Advance(500);
  CHECK(clock.NowMs() == 1500);
  CHECK(clock.MonotonicMs() == mono + 500);
  clock.Set(100);
  CHECK(clock.NowMs() == 100);
  CHECK(clock.MonotonicMs() == mono + 500);
}
