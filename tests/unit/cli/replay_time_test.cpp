// cli/replay_time.h: what `events replay --since/--until` accept.
#include "cli/replay_time.h"

#include <catch2/catch.hpp>

using namespace hookinbox;

TEST_CASE("replay time: RFC 3339, ms and how long ago", "[cli]") {
  const int64_t now = 1764590400000;  // 2025-12-01T12:00:00Z
  CHECK(*cli::ParseReplayTime("2025-12-01T10:00:00Z", now) == now - 2 * 3600 * 1000);
  CHECK(*cli::ParseReplayTime("2025-12-01T11:00:00+01:00", now) == now - 2 * 3600 * 1000);
  CHECK(*cli::ParseReplayTime("1764583200000", now) == now - 2 * 3600 * 1000);
  CHECK(*cli::ParseReplayTime("2h", now) == now - 2 * 3600 * 1000);
  CHECK(*cli::ParseReplayTime("90s", now) == now - 90 * 1000);
  CHECK(*cli::ParseReplayTime("30m", now) == now - 30 * 60 * 1000);
  CHECK(*cli::ParseReplayTime("3d", now) == now - 3 * 24 * 3600 * 1000);
  CHECK(*cli::ParseReplayTime("0s", now) == now);
}

TEST_CASE("replay time: anything else is a usage error naming the forms", "[cli]") {
  const int64_t now = 1764590400000;
  for (const char* bad : {"", "h", "2w", "-2h", "2.5h", "yesterday", "2025-13-01T00:00:00Z", "2025-12-01T10:00:00",
                          "99999999999d"}) {
    INFO(bad);
    auto t = cli::ParseReplayTime(bad, now);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
  }
  CHECK(cli::ParseReplayTime("x", now).status().message().find("RFC 3339") != std::string::npos);
}

TEST_CASE("future time: how long from now, RFC 3339, a date", "[cli][rotation]") {
  const int64_t now = 1764590400000;  // 2025-12-01T12:00:00Z
  CHECK(*cli::ParseFutureTime("48h", now) == now + 48 * 3600 * 1000);
  CHECK(*cli::ParseFutureTime("90s", now) == now + 90 * 1000);
  CHECK(*cli::ParseFutureTime("30m", now) == now + 30 * 60 * 1000);
  CHECK(*cli::ParseFutureTime("7d", now) == now + 7 * 24 * 3600 * 1000);
  CHECK(*cli::ParseFutureTime("2026-12-10T00:00:00Z", now) == 1796860800000);
  CHECK(*cli::ParseFutureTime("2026-12-10T01:00:00+01:00", now) == 1796860800000);
  CHECK(*cli::ParseFutureTime("2026-12-10", now) == 1796860800000);  // its midnight UTC
  // A time already past parses: whether it is in the future is the caller's check (it names the time).
  CHECK(*cli::ParseFutureTime("2025-12-01T10:00:00Z", now) == now - 2 * 3600 * 1000);
}

TEST_CASE("future time: anything else is a usage error naming the forms", "[cli][rotation]") {
  const int64_t now = 1764590400000;
  for (const char* bad : {"", "h", "2w", "-2h", "2.5h", "tomorrow", "2026-02-31", "2026-12-10T00:00:00",
                          "99999999999d", "0"}) {
    INFO(bad);
    auto t = cli::ParseFutureTime(bad, now);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
    CHECK_THAT(t.status().message(), Catch::Contains("how long from now (90s, 30m, 48h, 7d)"));
  }
}
