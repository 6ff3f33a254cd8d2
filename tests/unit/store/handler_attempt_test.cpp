// The asynchronous attempt in the store: the worker's hand-over on a 202,
// the handler's renewal and end (store/sql_handler_attempt.cpp), and their
// refusals. Runs on SQLite, and on PostgreSQL with HOOKINBOX_TEST_PG_URL.
#include <catch2/catch.hpp>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::AttemptOutcome;
using store::HandlerGrant;

namespace {

constexpr int64_t kT0 = 1764511200000;  // SampleEvent's received_at
constexpr int64_t kLease = 30000;

struct AsyncFixture : StoreFixture {
  // An event claimed by worker "w1" and handed to its handler at kT0 + 100.
  store::LeasedEvent Started(const std::string& event_id = "evt_1") {
    REQUIRE(store->RecordEvent(SampleEvent(event_id, "h-" + event_id), SampleDelivery()).ok());
    auto c = store->LeaseDue("w1", kT0, kLease, {});
    REQUIRE(c.ok());
    REQUIRE(c->has_value());
    REQUIRE(store->HandOver((*c)->id, "w1", (*c)->attempt, kT0 + 100 + kLease).ok());
    return **c;
  }
  HandlerGrant Grant(const store::LeasedEvent& e, int64_t now = kT0 + 200) {
    auto g = store->Authenticate(e.token, now);
    REQUIRE(g.ok());
    return *g;
  }
  store::AttemptResult Ended(AttemptOutcome outcome, int64_t at = kT0 + 500) {
    store::AttemptResult r;
    r.outcome = outcome;
    r.finished_at_ms = at;
    if (outcome == AttemptOutcome::kRetryableFailed) r.next_attempt_at_ms = at + 1000;
    return r;
  }
  std::string Column(int64_t id, const std::string& column) {
    return Text("SELECT COALESCE(CAST(" + column +
                " AS TEXT), '') FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
  std::string AttemptRows(int64_t id) {
    return Joined("SELECT worker || ':' || COALESCE(outcome, 'open') FROM webhook_attempts WHERE inbox_id = " +
                      std::to_string(id) + " ORDER BY id",
                  ";");
  }
};

}  // namespace

TEST_CASE("handler attempt: the hand-over leases the event to the handler and keeps its attempt open",
          "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent e = f.Started();
  CHECK(f.Column(e.id, "status") == "processing");
  CHECK(f.Column(e.id, "lease_owner") == "handler:w1");
  CHECK(f.Column(e.id, "lease_until") == std::to_string(kT0 + 100 + kLease));
  CHECK(f.AttemptRows(e.id) == "w1:open");
  // The worker's own renewals and shutdown release no longer touch it.
  CHECK(f.store->RenewLease(e.id, "w1", e.attempt, kT0 + 999999).code() == Code::kConflict);
  auto released = f.store->ReleaseLeases("w1", kT0 + 300, "shutdown");
  REQUIRE(released.ok());
  CHECK(*released == 0);
  CHECK(f.AttemptRows(e.id) == "w1:open");
  // The handler's token still works.
  CHECK(f.Grant(e).inbox_id == e.id);
}

TEST_CASE("handler attempt: a second hand-over, or one after the lease was lost, is a conflict", "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent e = f.Started();
  CHECK(f.store->HandOver(e.id, "w1", e.attempt, kT0 + 99999).code() == Code::kConflict);
  CHECK(f.store->HandOver(e.id, "w2", e.attempt, kT0 + 99999).code() == Code::kConflict);
  CHECK(f.Column(e.id, "lease_until") == std::to_string(kT0 + 100 + kLease));
}

TEST_CASE("handler attempt: complete ends the event as the worker's finish would", "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent e = f.Started();
  store::AttemptResult r = f.Ended(AttemptOutcome::kCompleted);
  r.result_ref = "crm-42";
  HandlerGrant g = f.Grant(e);
  REQUIRE(f.store->EndAttempt(g, r).ok());
  CHECK(f.Column(e.id, "status") == "completed");
  CHECK(f.Column(e.id, "result_ref") == "crm-42");
  CHECK(f.Column(e.id, "lease_owner").empty());
  CHECK(f.Column(e.id, "completed_at") == std::to_string(kT0 + 500));
  CHECK(f.AttemptRows(e.id) == "w1:completed");
  // Replayed: the same end again is refused, nothing changes.
  // Its token no longer authenticates; a grant taken before is fenced out.
  CHECK_FALSE(f.store->Authenticate(e.token, kT0 + 600).ok());
  CHECK(f.store->EndAttempt(g, r).code() == Code::kConflict);
  CHECK(f.store->EndAttempt(g, f.Ended(AttemptOutcome::kDeadLettered)).code() == Code::kConflict);
  CHECK(f.Column(e.id, "status") == "completed");
  CHECK(f.AttemptRows(e.id) == "w1:completed");
}

TEST_CASE("handler attempt: fail makes it retryable with its next attempt time, and a new claim takes it",
          "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent e = f.Started();
  store::AttemptResult r = f.Ended(AttemptOutcome::kRetryableFailed);
  r.error = "handler: crm down";
  REQUIRE(f.store->EndAttempt(f.Grant(e), r).ok());
  CHECK(f.Column(e.id, "status") == "retryable_failed");
  CHECK(f.Column(e.id, "next_attempt_at") == std::to_string(kT0 + 1500));
  CHECK(f.Column(e.id, "last_error") == "handler: crm down");
  CHECK(f.AttemptRows(e.id) == "w1:retryable_failed");
  auto again = f.store->LeaseDue("w2", kT0 + 1500, kLease, {});
  REQUIRE(again.ok());
  REQUIRE(again->has_value());
  CHECK((*again)->attempt == 2);
  // The first attempt's token is dead: a new one per attempt.
  CHECK_FALSE(f.store->Authenticate(e.token, kT0 + 1600).ok());
}

TEST_CASE("handler attempt: unknown and dead_lettered end the event for good", "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent a = f.Started("evt_a");
  store::LeasedEvent b = f.Started("evt_b");
  REQUIRE(f.store->EndAttempt(f.Grant(a), f.Ended(AttemptOutcome::kUnknown)).ok());
  REQUIRE(f.store->EndAttempt(f.Grant(b), f.Ended(AttemptOutcome::kDeadLettered)).ok());
  CHECK(f.Column(a.id, "status") == "unknown");
  CHECK(f.Column(b.id, "status") == "dead_lettered");
  CHECK(f.AttemptRows(a.id) == "w1:unknown");
}

TEST_CASE("handler attempt: renew extends the lease; refused once the attempt is over", "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent e = f.Started();
  HandlerGrant g = f.Grant(e);
  REQUIRE(f.store->RenewAttempt(g, kT0 + 500000, kT0 + 300).ok());
  CHECK(f.Column(e.id, "lease_until") == std::to_string(kT0 + 500000));
  CHECK(f.Column(e.id, "lease_owner") == "handler:w1");
  // The token lives as long as the lease.
  CHECK(f.store->Authenticate(e.token, kT0 + 400000).ok());
  CHECK(f.store->RenewAttempt(g, kT0 + 200, kT0 + 300).code() == Code::kInvalidArgument);
  REQUIRE(f.store->EndAttempt(g, f.Ended(AttemptOutcome::kCompleted)).ok());
  CHECK(f.store->RenewAttempt(g, kT0 + 900000, kT0 + 600).code() == Code::kConflict);
  CHECK(f.Column(e.id, "lease_until").empty());
}

TEST_CASE("handler attempt: a lapsed lease is reclaimed; the late handler changes nothing", "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent e = f.Started();
  HandlerGrant g = f.Grant(e);
  const int64_t lapsed = kT0 + 100 + kLease + 1;
  // Lapsed, not yet reclaimed: too late already.
  CHECK(f.store->EndAttempt(g, f.Ended(AttemptOutcome::kCompleted, lapsed)).code() == Code::kConflict);
  CHECK(f.store->RenewAttempt(g, lapsed + kLease, lapsed).code() == Code::kConflict);
  auto again = f.store->LeaseDue("w2", lapsed, kLease, {});
  REQUIRE(again.ok());
  REQUIRE(again->has_value());
  CHECK((*again)->attempt == 2);
  CHECK(f.AttemptRows(e.id) == "w1:lost;w2:open");
  // Even at a time its lease would have covered, the old grant is fenced out.
  CHECK(f.store->EndAttempt(g, f.Ended(AttemptOutcome::kCompleted, kT0 + 500)).code() == Code::kConflict);
  CHECK(f.Column(e.id, "status") == "processing");
  CHECK(f.Column(e.id, "lease_owner") == "w2");
}

TEST_CASE("handler attempt: an end before the worker's hand-over is recorded; the hand-over then yields",
          "[store][async]") {
  AsyncFixture f;
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_fast", "h-fast"), SampleDelivery()).ok());
  auto c = f.store->LeaseDue("w1", kT0, kLease, {});
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  // A fast handler: its complete arrives before the worker read the 202.
  REQUIRE(f.store->EndAttempt(f.Grant(**c), f.Ended(AttemptOutcome::kCompleted)).ok());
  CHECK(f.AttemptRows((*c)->id) == "w1:completed");
  CHECK(f.store->HandOver((*c)->id, "w1", (*c)->attempt, kT0 + 99999).code() == Code::kConflict);
  CHECK(f.Column((*c)->id, "status") == "completed");
}

TEST_CASE("handler attempt: a retryable end without a next attempt time is refused", "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent e = f.Started();
  store::AttemptResult r = f.Ended(AttemptOutcome::kRetryableFailed);
  r.next_attempt_at_ms = 0;
  CHECK(f.store->EndAttempt(f.Grant(e), r).code() == Code::kInvalidArgument);
  CHECK(f.Column(e.id, "status") == "processing");
  CHECK(f.AttemptRows(e.id) == "w1:open");
}

TEST_CASE("handler attempt: an end whose lease names no worker is refused as the worker's finish would be",
          "[store][async]") {
  AsyncFixture f;
  store::LeasedEvent e = f.Started();
  const HandlerGrant g = f.Grant(e);
  // A hand edit (or a bug) left the handler's lease without its worker.
  REQUIRE(f.Count("SELECT count(*) FROM webhook_inbox WHERE lease_owner = 'handler:w1'") == 1);
  f.Exec("UPDATE webhook_inbox SET lease_owner = 'handler:' WHERE id = " + std::to_string(e.id));
  CHECK(f.store->EndAttempt(g, f.Ended(AttemptOutcome::kCompleted)).code() == Code::kInvalidArgument);
  CHECK(f.Column(e.id, "status") == "processing");
  CHECK(f.AttemptRows(e.id) == "w1:open");
}

TEST_CASE("handler attempt: a renewal before the hand-over is never cut back by it, nor by the worker's renewer",
          "[store][async]") {
  AsyncFixture f;
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_early", "h-early"), SampleDelivery()).ok());
  auto c = f.store->LeaseDue("w1", kT0, kLease, {});
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  // The handler (n8n) renews for 10 minutes while the worker still waits for its 202.
  HandlerGrant g = f.Grant(**c, kT0 + 100);
  REQUIRE(f.store->RenewAttempt(g, kT0 + 600000, kT0 + 100).ok());
  REQUIRE(f.store->RenewLease((*c)->id, "w1", (*c)->attempt, kT0 + 150 + kLease).ok());
  REQUIRE(f.store->HandOver((*c)->id, "w1", (*c)->attempt, kT0 + 200 + kLease).ok());
  CHECK(f.Column((*c)->id, "lease_until") == std::to_string(kT0 + 600000));
  CHECK(f.Column((*c)->id, "lease_owner") == "handler:w1");
}

TEST_CASE("handler attempt: a worker finishing after the handler ended the attempt leaves the handler's row",
          "[store][async]") {
  AsyncFixture f;
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_race", "h-race"), SampleDelivery()).ok());
  auto c = f.store->LeaseDue("w1", kT0, kLease, {});
  REQUIRE(c.ok());
  REQUIRE(c->has_value());
  // The handler completes before the worker has its (lost) answer.
  REQUIRE(f.store->EndAttempt(f.Grant(**c, kT0 + 100), f.Ended(AttemptOutcome::kCompleted, kT0 + 150)).ok());
  store::AttemptResult late = f.Ended(AttemptOutcome::kUnknown, kT0 + 200);
  late.id = (*c)->id;
  late.attempt = (*c)->attempt;
  late.owner = "w1";
  CHECK(f.store->Finish(late).code() == Code::kConflict);
  CHECK(f.AttemptRows((*c)->id) == "w1:completed");
  CHECK(f.Column((*c)->id, "status") == "completed");
}
