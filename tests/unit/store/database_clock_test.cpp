// store/database_clock: replicas take "now" from the database server, follow
// its corrections, ignore local wall-clock steps and survive a lost server.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "common/clock.h"
#include "store/database_clock.h"
#include "store_fixture.h"

using namespace hookinbox;

TEST_CASE("database clock: now is the server's time, carried forward by the local monotonic clock",
          "[store][clock]") {
  FakeClock local(1'000);  // this host's wall clock is far off
  int64_t server = 1'764'511'200'000;
  int reads = 0;
  store::DatabaseClock clock([&] { ++reads; return server; }, local, 10'000);
  CHECK(clock.synced());
  CHECK(clock.NowMs() == server);
  local.Advance(2'500);
  CHECK(clock.NowMs() == server + 2'500);
  local.Set(99'999'999);  // a local wall-clock step changes nothing
  CHECK(clock.NowMs() == server + 2'500);
  CHECK(reads == 1);
  // After resync_ms it reads the server again and follows its correction.
  server += 60'000;
  local.Advance(7'500);
  CHECK(clock.NowMs() == server);
  CHECK(reads == 2);
}

TEST_CASE("database clock: a server that cannot be read keeps the last reading; before any, the local clock",
          "[store][clock]") {
  FakeClock local(5'000);
  bool down = true;
  store::DatabaseClock clock(
      [&]() -> int64_t {
        if (down) throw std::runtime_error("connection refused");
        return 1'000'000;
      },
      local, 1'000);
  CHECK_FALSE(clock.synced());
  CHECK(clock.NowMs() == 5'000);
  down = false;
  local.Advance(1'000);
  CHECK(clock.NowMs() == 1'000'000);
  down = true;
  local.Advance(1'500);
  CHECK(clock.NowMs() == 1'001'500);  // the failed reading left the last one in place
}

TEST_CASE("database clock: the store reads its server's clock", "[store][clock]") {
  testing::StoreFixture f;
  SystemClock local;
  auto server = f.store->ServerNowMs();
  REQUIRE(server.ok());
  // Same machine in tests: within a few seconds of this host's clock.
  CHECK(std::abs(*server - local.NowMs()) < 5'000);
}
