// Clock jumps in the work queue. Leases, next_attempt_at and
// backoff are wall-clock times (stored, compared across processes and
// restarts; CLOCK_MONOTONIC restarts at boot), so a wall-clock step moves
// them. These pin what a step does to the queue, with a FakeClock stepped by
// Set() (wall only) as NTP or `date -s` would:
//  - forward past the lease: the process running the event never takes it
//    back (running ids), and its next renewal restores the lease (a
//    renewal does not check expiry). Only another process sharing the file
//    may take it before that renewal; the first then loses its Finish, so
//    the event still ends once.
//  - back: nothing running is taken early, a new delivery is due at once
//    (the claim loop does not stall), and a retry scheduled before the step
//    is delayed by the step.
#include <catch2/catch.hpp>

#include "common/clock.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;  // SampleEvent's received_at
constexpr int64_t kLease = 30000;

int64_t Add(store::SqlStore& s, const std::string& id, int64_t at) {
  auto e = SampleEvent(id, "h-" + id, R"({"id":")" + id + R"("})");
  e.received_at_ms = at;
  auto r = s.RecordEvent(e, SampleDelivery());
  REQUIRE(r.ok());
  return r->inbox_id;
}

std::optional<store::LeasedEvent> Lease(store::SqlStore& s, const std::string& owner, int64_t now,
                                        const std::vector<int64_t>& running = {}) {
  auto c = s.LeaseDue(owner, now, kLease, {}, running);
  REQUIRE(c.ok());
  return *c;
}

store::AttemptResult Done(const store::LeasedEvent& c, const std::string& owner, int64_t now) {
  store::AttemptResult r;
  r.id = c.id;
  r.owner = owner;
  r.attempt = c.attempt;
  r.outcome = store::AttemptOutcome::kCompleted;
  r.finished_at_ms = now;
  return r;
}

}  // namespace

TEST_CASE("clock jump: a wall-clock step forward past the lease never lets the running process take its event back",
          "[store][clock]") {
  StoreFixture f;
  FakeClock clock(kT0);
  const int64_t id = Add(*f.store, "evt_1", clock.NowMs());
  auto mine = Lease(*f.store, "proc-a:1", clock.NowMs());
  REQUIRE(mine.has_value());
  clock.Set(kT0 + 10 * kLease);  // the lease looks long expired

  // Another thread of the same process claims with the running ids: not it.
  CHECK_FALSE(Lease(*f.store, "proc-a:2", clock.NowMs(), {id}).has_value());

  SECTION("the owner's next renewal restores the lease, and it finishes once") {
    REQUIRE(f.store->RenewLease(id, "proc-a:1", mine->attempt, clock.NowMs() + kLease).ok());
    CHECK_FALSE(Lease(*f.store, "proc-b:1", clock.NowMs()).has_value());  // another process: not due
    REQUIRE(f.store->Finish(Done(*mine, "proc-a:1", clock.NowMs())).ok());
    CHECK(f.Text("SELECT status || ':' || attempt_count FROM webhook_inbox") == "completed:1");
  }
  SECTION("before that renewal another process may take it; the first then loses its Finish") {
    auto theirs = Lease(*f.store, "proc-b:1", clock.NowMs());
    REQUIRE(theirs.has_value());
    CHECK(theirs->attempt == 2);
    CHECK(f.store->RenewLease(id, "proc-a:1", mine->attempt, clock.NowMs() + kLease).code() == Code::kConflict);
    CHECK(f.store->Finish(Done(*mine, "proc-a:1", clock.NowMs())).code() == Code::kConflict);
    REQUIRE(f.store->Finish(Done(*theirs, "proc-b:1", clock.NowMs())).ok());
    CHECK(f.Joined("SELECT attempt || ':' || outcome FROM webhook_attempts ORDER BY id") == "1:lost,2:completed");
  }
}

TEST_CASE("clock jump: after a wall-clock step back new deliveries are due at once; earlier schedules wait",
          "[store][clock]") {
  StoreFixture f;
  FakeClock clock(kT0);
  const int64_t retry = Add(*f.store, "evt_retry", clock.NowMs());
  auto c = Lease(*f.store, "w:1", clock.NowMs());
  REQUIRE(c.has_value());
  store::AttemptResult r = Done(*c, "w:1", clock.NowMs());
  r.outcome = store::AttemptOutcome::kRetryableFailed;
  r.next_attempt_at_ms = kT0 + 1000;  // a 1 s backoff
  REQUIRE(f.store->Finish(r).ok());
  const int64_t running = Add(*f.store, "evt_running", clock.NowMs());
  REQUIRE(Lease(*f.store, "w:2", clock.NowMs()).has_value());

  clock.Set(kT0 - 3600 * 1000);  // an hour back
  const int64_t fresh = Add(*f.store, "evt_fresh", clock.NowMs());
  auto next = Lease(*f.store, "w:1", clock.NowMs());
  REQUIRE(next.has_value());
  CHECK(next->id == fresh);  // not stalled behind the earlier schedule
  CHECK_FALSE(Lease(*f.store, "w:1", clock.NowMs()).has_value());  // the running lease is not taken early
  REQUIRE(f.store->Finish(Done(*next, "w:1", clock.NowMs())).ok());
  // The retry is due when the wall clock reaches its time again: the step
  // delays it by an hour (wall time is what survives a restart).
  CHECK_FALSE(Lease(*f.store, "w:1", kT0 + 999).has_value());
  auto later = Lease(*f.store, "w:1", kT0 + 1000);
  REQUIRE(later.has_value());
  CHECK(later->id == retry);
  CHECK(running != retry);
}
