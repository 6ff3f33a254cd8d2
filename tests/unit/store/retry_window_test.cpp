// The start of an event's retry window (worker.retry_for counts from it):
// its arrival until a replay opens a new one. Runs on both backends.
#include <catch2/catch.hpp>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;  // SampleEvent's received_at
constexpr int64_t kLease = 30000;

store::LeasedEvent MustClaim(StoreFixture& f, int64_t now) {
  store::WorkQueue& queue = *f.store;
  auto c = queue.LeaseDue("w1", now, kLease, {});
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  return **c;
}

void Fail(StoreFixture& f, const store::LeasedEvent& c, store::AttemptOutcome outcome, int64_t at, int64_t next) {
  store::AttemptResult r;
  r.id = c.id;
  r.owner = "w1";
  r.attempt = c.attempt;
  r.outcome = outcome;
  r.finished_at_ms = at;
  r.next_attempt_at_ms = next;
  r.error = "HTTP 503";
  store::WorkQueue& queue = *f.store;
  REQUIRE(queue.Finish(r).ok());
}

store::AdminQueries& Admin(StoreFixture& f) { return *f.store; }

}  // namespace

TEST_CASE("retry window: a claimed event carries its arrival as the window's start, on every retry",
          "[store][queue]") {
  StoreFixture f;
  const int64_t id = f.ClaimAt(SampleEvent("evt_1"), kT0);
  auto first = MustClaim(f, kT0 + 10);
  CHECK(first.id == id);
  CHECK(first.received_at_ms == kT0);
  CHECK(first.retry_window_start_ms == kT0);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE retry_window_start IS NULL") == 1);
  Fail(f, first, store::AttemptOutcome::kRetryableFailed, kT0 + 20, kT0 + 500);
  auto second = MustClaim(f, kT0 + 500);
  CHECK(second.attempt == 2);
  CHECK(second.retry_window_start_ms == kT0);
}

TEST_CASE("retry window: a replay starts a new one at the replay's time", "[store][queue]") {
  StoreFixture f;
  const int64_t id = f.ClaimAt(SampleEvent("evt_1"), kT0);
  auto c = MustClaim(f, kT0 + 10);
  Fail(f, c, store::AttemptOutcome::kDeadLettered, kT0 + 20, 0);
  const int64_t replayed_at = kT0 + 4 * 86400000LL;  // days later, past any horizon of the first round
  REQUIRE(Admin(f).Replay(id, "cli:alice", "", replayed_at).ok());
  CHECK(f.Count("SELECT retry_window_start FROM webhook_inbox WHERE id = " + std::to_string(id)) == replayed_at);
  auto again = MustClaim(f, replayed_at);
  CHECK(again.attempt == 1);
  CHECK(again.received_at_ms == kT0);  // the arrival is history and stays
  CHECK(again.retry_window_start_ms == replayed_at);
}

TEST_CASE("retry window: a refused replay leaves the window as it was", "[store][queue]") {
  StoreFixture f;
  const int64_t id = f.ClaimAt(SampleEvent("evt_1"), kT0);
  CHECK(Admin(f).Replay(id, "cli:alice", "", kT0 + 5000).code() == Code::kConflict);  // still received
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE retry_window_start IS NULL") == 1);
  CHECK(MustClaim(f, kT0).retry_window_start_ms == kT0);
}
