// RFC 3339 timestamps (signature.timestamp_unit = "iso8601"): a table of
// accepted and refused texts, with expected Unix times worked out by hand
// from day counts (not from the code under test).
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "verify/timestamp.h"

using hookinbox::verify::FormatRfc3339Utc;
using hookinbox::verify::ParseRfc3339Millis;

namespace {

constexpr int64_t kDay = 86400;
// 2026-11-30T17:00:00Z: 20787 days after 1970-01-01, plus 17 hours.
constexpr int64_t k20261130T17 = 20787 * kDay + 17 * 3600;

}  // namespace

TEST_CASE("timestamp: RFC 3339 texts become Unix milliseconds", "[verify]") {
  struct Case {
    const char* text;
    int64_t ms;
  };
  const Case cases[] = {
      {"1970-01-01T00:00:00Z", 0},
      {"2026-11-30T17:00:00Z", k20261130T17 * 1000},
      {"2026-11-30t17:00:00z", k20261130T17 * 1000},              // lower-case T and Z
      {"2026-11-30 17:00:00Z", k20261130T17 * 1000},              // RFC 3339 §5.6 allows a space
      {"2026-11-30T17:00:00.5Z", k20261130T17 * 1000 + 500},     // one fraction digit
      {"2026-11-30T17:00:00.123Z", k20261130T17 * 1000 + 123},
      {"2026-11-30T17:00:00.123999999Z", k20261130T17 * 1000 + 123},  // truncated, not rounded
      {"2026-11-30T18:00:00+01:00", k20261130T17 * 1000},          // offsets are east of UTC
      {"2026-11-30T12:30:00-04:30", k20261130T17 * 1000},
      {"2026-11-30T18:00:00+0100", k20261130T17 * 1000},           // ISO-8601 basic offset
      {"2026-11-30T18:00:00+01", k20261130T17 * 1000},             // hours-only offset
      {"2026-11-30T17:00:00-00:00", k20261130T17 * 1000},          // "unknown local offset" = UTC
      {"2026-12-01T00:00:00+07:00", k20261130T17 * 1000},          // offset crosses the day
      {"2024-02-29T00:00:00Z", 19782 * kDay * 1000},               // leap year
      {"2000-02-29T00:00:00Z", 11016 * kDay * 1000},               // divisible by 400: leap
      {"1969-12-31T23:59:59Z", -1000},                             // before the epoch
      {"1969-12-31T23:59:59.5Z", -500},
      {"2026-12-31T23:59:59Z", (20818 * kDay + kDay - 1) * 1000},  // last second of a year
  };
  for (const Case& c : cases) {
    INFO(c.text);
    std::optional<int64_t> got = ParseRfc3339Millis(c.text);
    REQUIRE(got.has_value());
    CHECK(*got == c.ms);
  }
}

TEST_CASE("timestamp: malformed or impossible dates are refused", "[verify]") {
  for (const char* text : {
           "",
           "1767225600",                 // Unix seconds are not RFC 3339
           "2026-11-30",                 // a date alone
           "2026-11-30T17:00:00",        // no zone: local time is ambiguous
           "2026-11-30T17:00Z",          // no seconds
           "2026-11-30T17:00:00.Z",      // a dot without digits
           "2026-11-30T17:00:00ZZ",      // trailing text
           "2026-11-30T17:00:00Z ",      // trailing space (callers trim)
           " 2026-11-30T17:00:00Z",
           "2026-02-29T00:00:00Z",       // not a leap year
           "1900-02-29T00:00:00Z",       // divisible by 100, not by 400
           "2026-04-31T00:00:00Z",       // April has 30 days
           "2026-13-01T00:00:00Z",
           "2026-00-10T00:00:00Z",
           "2026-11-00T00:00:00Z",
           "2026-11-30T24:00:00Z",       // hour 24
           "2026-11-30T17:60:00Z",
           "2026-11-30T17:00:60Z",       // leap second: Unix time has no place for it
           "2026-11-30T17:00:00+24:00",  // offset hours above 23
           "2026-11-30T17:00:00+01:60",
           "2026-11-30T17:00:00+1:00",   // one-digit offset
           "2026-11-30T17:00:00+01:",
           "2026-11-30T17:00:00+01:0",
           "26-11-30T17:00:00Z",         // two-digit year
           "2026/11/30T17:00:00Z",
           "2026-11-30X17:00:00Z",
           "+2026-11-30T17:00:00Z",
           "2026-1１-30T17:00:00Z",      // a non-ASCII digit
       }) {
    INFO(text);
    CHECK_FALSE(ParseRfc3339Millis(text).has_value());
  }
}

TEST_CASE("timestamp: the bounds of the accepted years parse without overflow", "[verify]") {
  // 0000-01-01 is 719528 days before the epoch (proleptic Gregorian).
  CHECK(ParseRfc3339Millis("0000-01-01T00:00:00Z") == -719528 * kDay * 1000);
  CHECK(ParseRfc3339Millis("0000-01-01T00:00:00+23:59") == (-719528 * kDay - 23 * 3600 - 59 * 60) * 1000);
  // 10000-01-01 is 2932897 days after the epoch.
  CHECK(ParseRfc3339Millis("9999-12-31T23:59:59.999Z") == (2932897 * kDay - 1) * 1000 + 999);
  CHECK(ParseRfc3339Millis("9999-12-31T23:59:59-23:59") == (2932897 * kDay - 1 + 23 * 3600 + 59 * 60) * 1000);
}

TEST_CASE("timestamp: FormatRfc3339Utc writes what ParseRfc3339Millis reads", "[verify]") {
  CHECK(FormatRfc3339Utc(0) == "1970-01-01T00:00:00Z");
  CHECK(FormatRfc3339Utc(k20261130T17) == "2026-11-30T17:00:00Z");
  CHECK(FormatRfc3339Utc(19782 * kDay + 3661) == "2024-02-29T01:01:01Z");
  CHECK(FormatRfc3339Utc(-1) == "1969-12-31T23:59:59Z");
  for (int64_t t : {int64_t{0}, int64_t{951782400}, k20261130T17, int64_t{4102444799}, int64_t{-86401}}) {
    INFO(t);
    CHECK(ParseRfc3339Millis(FormatRfc3339Utc(t)) == t * 1000);
  }
}
