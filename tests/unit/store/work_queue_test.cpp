#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::AttemptOutcome;
using store::AttemptResult;

namespace {

constexpr int64_t kT0 = 1764511200000;  // SampleEvent's received_at
constexpr int64_t kLease = 30000;

struct QueueFixture : StoreFixture {
  store::WorkQueue& q() { return *store; }
  store::AdminQueries& admin() { return *store; }

  int64_t Add(const std::string& event_id, const std::string& endpoint = "payments", int64_t at = kT0) {
    auto e = SampleEvent(event_id, "h-" + event_id, R"({"id":")" + event_id + R"("})");
    e.endpoint = endpoint;
    e.received_at_ms = at;
    auto r = store->RecordEvent(e, SampleDelivery());
    REQUIRE(r.ok());
    return r->inbox_id;
  }

  store::LeasedEvent MustClaim(const std::string& owner, int64_t now = kT0, std::vector<std::string> excluded = {}) {
    auto c = q().LeaseDue(owner, now, kLease, excluded);
    REQUIRE(c.ok());
    REQUIRE(c->has_value());
    return **c;
  }

  bool NothingDue(const std::string& owner, int64_t now) {
    auto c = q().LeaseDue(owner, now, kLease, {});
    REQUIRE(c.ok());
    return !c->has_value();
  }

  std::string StatusOf(int64_t id) { return Text("SELECT status FROM webhook_inbox WHERE id = " + std::to_string(id)); }

  // Sets a row's state directly, as a worker (not written yet) would have left it.
  void ForceStatus(int64_t id, const std::string& status) {
    Exec("UPDATE webhook_inbox SET status = '" + status + "', next_attempt_at = NULL WHERE id = " +
         std::to_string(id));
  }
};

AttemptResult ResultFor(const store::LeasedEvent& c, const std::string& owner, AttemptOutcome outcome) {
  AttemptResult r;
  r.id = c.id;
  r.owner = owner;
  r.attempt = c.attempt;
  r.outcome = outcome;
  r.finished_at_ms = kT0 + 1000;
  return r;
}

}  // namespace

TEST_CASE("work queue: claims the oldest due event with its payload and opens an attempt row", "[store][queue]") {
  QueueFixture f;
  int64_t late = f.Add("evt_late", "payments", kT0 + 10);
  int64_t early = f.Add("evt_early", "payments", kT0);
  auto c = f.MustClaim("w1", kT0 + 10);
  CHECK(c.id == early);
  CHECK(c.attempt == 1);
  CHECK(c.event_id == "evt_early");
  CHECK(c.body == R"({"id":"evt_early"})");
  CHECK(c.content_type == "application/json");
  CHECK(c.lease_until_ms == kT0 + 10 + kLease);
  CHECK(f.StatusOf(early) == "processing");
  CHECK(f.Text("SELECT lease_owner FROM webhook_inbox WHERE id = " + std::to_string(early)) == "w1");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE outcome IS NULL AND worker = 'w1'") == 1);
  CHECK(f.MustClaim("w1", kT0 + 10).id == late);
  CHECK(f.NothingDue("w1", kT0 + 10));
}

TEST_CASE("work queue: events not yet due and excluded endpoints are not claimed", "[store][queue]") {
  QueueFixture f;
  f.Add("evt_future", "payments", kT0 + 5000);
  CHECK(f.NothingDue("w1", kT0));
  int64_t other = f.Add("evt_other", "orders", kT0);
  CHECK(f.MustClaim("w1", kT0 + 6000, {"payments"}).id == other);
  auto none = f.q().LeaseDue("w1", kT0 + 6000, kLease, {"payments", "orders"});
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
}

TEST_CASE("work queue: a valid lease is never reclaimed; an expired one is, closing the old attempt as lost",
          "[store][queue]") {
  QueueFixture f;
  int64_t id = f.Add("evt_1");
  auto first = f.MustClaim("dead-worker", kT0);
  CHECK(f.NothingDue("w2", kT0 + kLease));  // lease_until is not yet passed
  auto second = f.MustClaim("w2", kT0 + kLease + 1);
  CHECK(second.id == id);
  CHECK(second.attempt == 2);
  CHECK(f.Text("SELECT outcome FROM webhook_attempts WHERE worker = 'dead-worker'") == "lost");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE worker = 'w2' AND outcome IS NULL") == 1);
  CHECK(first.attempt == 1);
  // The worker is told the previous attempt was cut (a probe_url then decides before it sends).
  CHECK_FALSE(first.reclaimed);
  CHECK(second.reclaimed);
}

TEST_CASE("work queue: concurrent claims never hand one event to two workers", "[store][queue]") {
  QueueFixture f;
  constexpr int kEvents = 200;
  for (int i = 0; i < kEvents; ++i) f.Add("evt_" + std::to_string(i));
  std::mutex mu;
  std::vector<int64_t> claimed;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (;;) {
        auto c = f.q().LeaseDue("w" + std::to_string(t), kT0, kLease, {});
        if (!c.ok() || !c->has_value()) return;
        std::lock_guard<std::mutex> lock(mu);
        claimed.push_back((*c)->id);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<int64_t> distinct(claimed.begin(), claimed.end());
  CHECK(claimed.size() == kEvents);
  CHECK(distinct.size() == kEvents);
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts") == kEvents);
}

TEST_CASE("work queue: renewing extends the lease; after the lease is lost it fails with Conflict", "[store][queue]") {
  QueueFixture f;
  f.Add("evt_1");
  auto c = f.MustClaim("w1", kT0);
  REQUIRE(f.q().RenewLease(c.id, "w1", c.attempt, kT0 + 2 * kLease).ok());
  CHECK(f.NothingDue("w2", kT0 + kLease + 1));  // the renewal holds it
  f.MustClaim("w2", kT0 + 2 * kLease + 1);
  Status lost = f.q().RenewLease(c.id, "w1", c.attempt, kT0 + 3 * kLease);
  CHECK(lost.code() == Code::kConflict);
  CHECK(f.Text("SELECT lease_owner FROM webhook_inbox") == "w2");
}

TEST_CASE("work queue: a stale owner's Finish is recorded as lost and changes nothing", "[store][queue]") {
  QueueFixture f;
  f.Add("evt_1");
  auto stale = f.MustClaim("w1", kT0);
  auto fresh = f.MustClaim("w2", kT0 + kLease + 1);
  Status st = f.q().Finish(ResultFor(stale, "w1", AttemptOutcome::kCompleted));
  CHECK(st.code() == Code::kConflict);
  CHECK(f.StatusOf(fresh.id) == "processing");
  CHECK(f.Text("SELECT lease_owner FROM webhook_inbox") == "w2");
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE completed_at IS NOT NULL") == 0);
  CHECK(f.Text("SELECT outcome FROM webhook_attempts WHERE worker = 'w1'") == "lost");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE worker = 'w2' AND outcome IS NULL") == 1);
  // The new owner still finishes normally.
  REQUIRE(f.q().Finish(ResultFor(fresh, "w2", AttemptOutcome::kCompleted)).ok());
  CHECK(f.StatusOf(fresh.id) == "completed");
}

TEST_CASE("work queue: each outcome moves the event, clears the lease and closes the attempt", "[store][queue]") {
  QueueFixture f;
  int64_t id = f.Add("evt_1");
  auto c = f.MustClaim("w1", kT0);
  auto r = ResultFor(c, "w1", AttemptOutcome::kCompleted);
  std::string sql_id = std::to_string(id);

  SECTION("completed") {
    r.result_ref = "ord_42";
    r.http_status = 201;
    REQUIRE(f.q().Finish(r).ok());
    CHECK(f.StatusOf(id) == "completed");
    CHECK(f.Count("SELECT completed_at FROM webhook_inbox") == kT0 + 1000);
    CHECK(f.Text("SELECT result_ref FROM webhook_inbox") == "ord_42");
    CHECK(f.Count("SELECT http_status FROM webhook_attempts") == 201);
    CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE next_attempt_at IS NULL") == 1);
  }
  SECTION("retryable_failed: due again at next_attempt_at") {
    r.outcome = AttemptOutcome::kRetryableFailed;
    r.next_attempt_at_ms = kT0 + 5000;
    r.error = "503 from downstream";
    r.http_status = 503;
    REQUIRE(f.q().Finish(r).ok());
    CHECK(f.StatusOf(id) == "retryable_failed");
    CHECK(f.Text("SELECT last_error FROM webhook_inbox") == "503 from downstream");
    CHECK(f.Count("SELECT next_attempt_at FROM webhook_inbox") == kT0 + 5000);
    CHECK(f.NothingDue("w1", kT0 + 4999));
  }
  SECTION("dead_lettered") {
    r.outcome = AttemptOutcome::kDeadLettered;
    r.error = "exit 1";
    r.exit_code = 1;
    REQUIRE(f.q().Finish(r).ok());
    CHECK(f.StatusOf(id) == "dead_lettered");
    CHECK(f.Text("SELECT last_error FROM webhook_inbox") == "exit 1");
    CHECK(f.Count("SELECT exit_code FROM webhook_attempts") == 1);
    CHECK(f.NothingDue("w1", kT0 + 10 * kLease));
  }
  SECTION("unknown is never claimed again by itself") {
    r.outcome = AttemptOutcome::kUnknown;
    r.error = "timeout after send";
    REQUIRE(f.q().Finish(r).ok());
    CHECK(f.StatusOf(id) == "unknown");
    CHECK(f.NothingDue("w1", kT0 + 10 * kLease));
  }
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE lease_owner IS NULL AND lease_until IS NULL") == 1);
  CHECK(f.Text("SELECT outcome FROM webhook_attempts WHERE attempt = 1") == AttemptOutcomeName(r.outcome));
  CHECK(f.Count("SELECT finished_at FROM webhook_attempts WHERE attempt = 1") == kT0 + 1000);
}

TEST_CASE("work queue: Finish without an owner or a retry time is refused and changes nothing", "[store][queue]") {
  QueueFixture f;
  f.Add("evt_1");
  auto c = f.MustClaim("w1");
  auto r = ResultFor(c, "", AttemptOutcome::kCompleted);
  CHECK(f.q().Finish(r).code() == Code::kInvalidArgument);
  r = ResultFor(c, "w1", AttemptOutcome::kRetryableFailed);
  CHECK(f.q().Finish(r).code() == Code::kInvalidArgument);
  CHECK(f.StatusOf(c.id) == "processing");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE outcome IS NULL") == 1);
}

TEST_CASE("work queue: an error longer than the limit is truncated", "[store][queue]") {
  QueueFixture f;
  f.Add("evt_1");
  auto r = ResultFor(f.MustClaim("w1"), "w1", AttemptOutcome::kDeadLettered);
  r.error = std::string(5000, 'x');
  REQUIRE(f.q().Finish(r).ok());
  CHECK(f.Count("SELECT length(last_error) FROM webhook_inbox") == static_cast<int64_t>(store::kMaxErrorBytes));
  CHECK(f.Count("SELECT length(error) FROM webhook_attempts") == static_cast<int64_t>(store::kMaxErrorBytes));
}

TEST_CASE("work queue: releasing an owner's leases makes its events claimable at once", "[store][queue]") {
  QueueFixture f;
  f.Add("evt_1");
  f.Add("evt_2");
  auto mine = f.MustClaim("w1", kT0);
  auto other = f.MustClaim("w2", kT0);
  auto released = f.q().ReleaseLeases("w1", kT0 + 100, "shutdown");
  REQUIRE(released.ok());
  CHECK(*released == 1);
  CHECK(f.Text("SELECT outcome FROM webhook_attempts WHERE worker = 'w1'") == "released");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE worker = 'w2' AND outcome IS NULL") == 1);
  auto again = f.MustClaim("w3", kT0 + 100);
  CHECK(again.id == mine.id);
  CHECK(again.attempt == 2);
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE outcome = 'lost'") == 0);  // released, not lost
  CHECK(f.NothingDue("w3", kT0 + 100));  // w2's lease still holds
  CHECK(other.id != mine.id);
}

TEST_CASE("work queue: NextDueAt is the earliest retry or lease expiry", "[store][queue]") {
  QueueFixture f;
  auto none = f.q().NextDueAt();
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  f.Add("evt_1", "payments", kT0);
  CHECK(**f.q().NextDueAt() == kT0);
  auto c = f.MustClaim("w1", kT0);
  CHECK(**f.q().NextDueAt() == kT0 + kLease);
  auto r = ResultFor(c, "w1", AttemptOutcome::kRetryableFailed);
  r.next_attempt_at_ms = kT0 + 7000;
  REQUIRE(f.q().Finish(r).ok());
  CHECK(**f.q().NextDueAt() == kT0 + 7000);
  f.Add("evt_2", "payments", kT0 + 3000);
  CHECK(**f.q().NextDueAt() == kT0 + 3000);
}

TEST_CASE("work queue: replay returns terminal events to received with an audit row", "[store][queue]") {
  QueueFixture f;
  int64_t id = f.Add("evt_1");
  auto c = f.MustClaim("w1", kT0);
  auto r = ResultFor(c, "w1", AttemptOutcome::kCompleted);
  r.result_ref = "ord_1";
  REQUIRE(f.q().Finish(r).ok());
  REQUIRE(f.admin().Replay(id, "cli:alice", "downstream lost it", kT0 + 2000).ok());
  CHECK(f.StatusOf(id) == "received");
  CHECK(f.Count("SELECT attempt_count FROM webhook_inbox") == 0);
  CHECK(f.Count("SELECT next_attempt_at FROM webhook_inbox") == kT0 + 2000);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE result_ref IS NULL AND completed_at IS NULL") == 1);
  CHECK(f.Text("SELECT actor || '|' || action || '|' || from_status || '|' || to_status || '|' || result_ref || '|' ||"
               " note FROM webhook_event_actions") == "cli:alice|replay|completed|received|ord_1|downstream lost it");
  CHECK(f.MustClaim("w1", kT0 + 2000).attempt == 1);  // attempts counted afresh

  for (const char* from : {"dead_lettered", "unknown"}) {
    int64_t other = f.Add(std::string("evt_") + from);
    f.ForceStatus(other, from);
    REQUIRE(f.admin().Replay(other, "cli:alice", "", kT0 + 3000).ok());
    CHECK(f.StatusOf(other) == "received");
  }
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 3);
}

TEST_CASE("work queue: replay of a received, processing or missing event is refused and changes nothing",
          "[store][queue]") {
  QueueFixture f;
  int64_t waiting = f.Add("evt_1");
  Status st = f.admin().Replay(waiting, "cli:alice", "", kT0);
  CHECK(st.code() == Code::kConflict);
  CHECK(st.message().find("received") != std::string::npos);
  f.MustClaim("w1", kT0);
  CHECK(f.admin().Replay(waiting, "cli:alice", "", kT0).code() == Code::kConflict);
  CHECK(f.StatusOf(waiting) == "processing");
  CHECK(f.admin().Replay(9999, "cli:alice", "", kT0).code() == Code::kNotFound);
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 0);
}

TEST_CASE("work queue: resolve closes only unknown events, as completed or dead_lettered", "[store][queue]") {
  QueueFixture f;
  int64_t a = f.Add("evt_a");
  int64_t b = f.Add("evt_b");
  f.ForceStatus(a, "unknown");
  f.ForceStatus(b, "unknown");
  CHECK(f.admin().Resolve(a, "received", "", "", "cli:alice", kT0).code() == Code::kInvalidArgument);
  REQUIRE(f.admin().Resolve(a, "completed", "ord_7", "checked by hand", "cli:alice", kT0 + 1).ok());
  CHECK(f.StatusOf(a) == "completed");
  CHECK(f.Text("SELECT result_ref FROM webhook_inbox WHERE id = " + std::to_string(a)) == "ord_7");
  CHECK(f.Count("SELECT completed_at FROM webhook_inbox WHERE id = " + std::to_string(a)) == kT0 + 1);
  REQUIRE(f.admin().Resolve(b, "dead_lettered", "", "", "cli:bob", kT0 + 2).ok());
  CHECK(f.StatusOf(b) == "dead_lettered");
  CHECK(f.Joined("SELECT action || ':' || from_status || '>' || to_status || ':' || actor"
                 " FROM webhook_event_actions ORDER BY id") ==
        "resolve:unknown>completed:cli:alice,resolve:unknown>dead_lettered:cli:bob");

  // Refusals: not unknown any more, or no such event.
  CHECK(f.admin().Resolve(a, "dead_lettered", "", "", "cli:alice", kT0).code() == Code::kConflict);
  CHECK(f.StatusOf(a) == "completed");
  CHECK(f.admin().Resolve(424242, "completed", "", "", "cli:alice", kT0).code() == Code::kNotFound);
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 2);
}

TEST_CASE("work queue: a failing commit changes nothing", "[store][queue]") {
  QueueFixture f;
  int64_t id = f.Add("evt_1");
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  auto claim = f.q().LeaseDue("w1", kT0, kLease, {});
  CHECK(claim.status().code() == Code::kUnavailable);
  CHECK(f.StatusOf(id) == "received");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts") == 0);

  f.store->writer().SetCommitHookForTest(nullptr);
  auto c = f.MustClaim("w1", kT0);
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  CHECK(f.q().RenewLease(c.id, "w1", c.attempt, kT0 + 2 * kLease).code() == Code::kUnavailable);
  CHECK(f.Count("SELECT lease_until FROM webhook_inbox") == kT0 + kLease);
  CHECK(f.q().Finish(ResultFor(c, "w1", AttemptOutcome::kCompleted)).code() == Code::kUnavailable);
  CHECK(f.StatusOf(id) == "processing");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE outcome IS NULL") == 1);
  CHECK_FALSE(f.q().ReleaseLeases("w1", kT0, "shutdown").ok());
  CHECK(f.Count("SELECT lease_until FROM webhook_inbox") == kT0 + kLease);

  f.store->writer().SetCommitHookForTest(nullptr);
  f.ForceStatus(id, "unknown");
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  CHECK(f.admin().Resolve(id, "completed", "r", "", "cli:alice", kT0).code() == Code::kUnavailable);
  CHECK(f.admin().Replay(id, "cli:alice", "", kT0).code() == Code::kUnavailable);
  CHECK(f.StatusOf(id) == "unknown");
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 0);
}

TEST_CASE("work queue: GetEvent shows deliveries, attempts and actions; the payload only when asked",
          "[store][queue]") {
  QueueFixture f;
  int64_t id = f.Add("evt_1");
  f.Add("evt_1");  // a duplicate delivery of the same event
  auto c = f.MustClaim("w1", kT0);
  auto r = ResultFor(c, "w1", AttemptOutcome::kUnknown);
  REQUIRE(f.q().Finish(r).ok());
  REQUIRE(f.admin().Resolve(id, "completed", "ord_1", "ok", "cli:alice", kT0 + 5).ok());

  auto d = f.admin().GetEvent(id, false);
  REQUIRE(d.ok());
  CHECK(d->event.status == "completed");
  CHECK(d->event.event_id == "evt_1");
  REQUIRE(d->deliveries.size() == 2);
  CHECK(d->deliveries[1].outcome == "duplicate");
  REQUIRE(d->attempts.size() == 1);
  CHECK(d->attempts[0].outcome == "unknown");
  REQUIRE(d->actions.size() == 1);
  CHECK(d->actions[0].actor == "cli:alice");
  CHECK_FALSE(d->has_payload);
  CHECK(d->payload.empty());

  auto with = f.admin().GetEvent(id, true);
  REQUIRE(with.ok());
  CHECK(with->has_payload);
  CHECK(with->payload == R"({"id":"evt_1"})");
  CHECK(f.admin().GetEvent(777, false).status().code() == Code::kNotFound);
}

TEST_CASE("work queue: ListEvents filters and pages newest first by id", "[store][queue]") {
  QueueFixture f;
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(f.Add("evt_" + std::to_string(i), i % 2 ? "orders" : "payments"));
  f.ForceStatus(ids[4], "dead_lettered");

  store::EventFilter all;
  all.limit = 2;
  auto p1 = f.admin().ListEvents(all);
  REQUIRE(p1.ok());
  REQUIRE(p1->events.size() == 2);
  CHECK(p1->events[0].id == ids[4]);
  CHECK(p1->events[1].id == ids[3]);
  CHECK(p1->next_before_id == ids[3]);
  all.before_id = p1->next_before_id;
  auto p2 = f.admin().ListEvents(all);
  all.before_id = p2->next_before_id;
  auto p3 = f.admin().ListEvents(all);
  REQUIRE(p3.ok());
  CHECK(p3->events.size() == 1);
  CHECK(p3->next_before_id == 0);

  store::EventFilter orders;
  orders.endpoint = "orders";
  CHECK(f.admin().ListEvents(orders)->events.size() == 2);
  store::EventFilter dead;
  dead.status = "dead_lettered";
  REQUIRE(f.admin().ListEvents(dead)->events.size() == 1);
  CHECK(f.admin().ListEvents(dead)->events[0].id == ids[4]);

  store::EventFilter bad;
  bad.status = "nonsense";
  CHECK(f.admin().ListEvents(bad).status().code() == Code::kInvalidArgument);
  bad = {};
  bad.limit = 0;
  CHECK(f.admin().ListEvents(bad).status().code() == Code::kInvalidArgument);
}

TEST_CASE("work queue: reads after Close fail with Unavailable", "[store][queue]") {
  QueueFixture f;
  f.store->Close();
  CHECK(f.q().NextDueAt().status().code() == Code::kUnavailable);
  CHECK(f.q().LeaseDue("w1", kT0, kLease, {}).status().code() == Code::kUnavailable);
}

// Regression: a lease can lapse while its process is alive
// (renewals failing under a write lock held longer than the lease, or a
// forward clock jump). That process's own claims must leave the event alone,
// and the attempt still running must finish normally.
TEST_CASE("work queue: an event the claiming process still runs is not reclaimed on a lapsed lease; it then "
          "finishes normally",
          "[store][queue]") {
  QueueFixture f;
  const int64_t running = f.Add("evt_running", "payments", kT0);
  const int64_t next = f.Add("evt_next", "payments", kT0 + 10);
  auto c = f.MustClaim("p1:0", kT0);
  REQUIRE(c.id == running);
  const int64_t lapsed = kT0 + kLease + 1;
  // Another thread of the same process: the lapsed event is skipped, the next one taken.
  auto other = f.q().LeaseDue("p1:1", lapsed, kLease, {}, {running});
  REQUIRE(other.ok());
  REQUIRE(other->has_value());
  CHECK((*other)->id == next);
  auto none = f.q().LeaseDue("p1:1", lapsed, kLease, {}, {running, next});
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  CHECK(f.Text("SELECT status || '|' || lease_owner || '|' || attempt_count FROM webhook_inbox WHERE id = " +
               std::to_string(running)) == "processing|p1:0|1");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE outcome IS NOT NULL") == 0);
  // The running attempt renews its lapsed lease and finishes as usual: no 'lost' row.
  REQUIRE(f.q().RenewLease(running, "p1:0", c.attempt, lapsed + kLease).ok());
  AttemptResult r = ResultFor(c, "p1:0", AttemptOutcome::kCompleted);
  r.finished_at_ms = lapsed + 5;
  REQUIRE(f.q().Finish(r).ok());
  CHECK(f.StatusOf(running) == "completed");
  CHECK(f.Joined("SELECT outcome || ':' || attempt FROM webhook_attempts WHERE inbox_id = " +
                     std::to_string(running) + " ORDER BY id",
                 ";") == "completed:1");
  // A process that does not run it (a successor after a crash) still takes a lapsed lease.
  auto late = f.MustClaim("p2:0", lapsed + kLease + 1);
  CHECK(late.id == next);
  CHECK(late.attempt == 2);
  CHECK(f.Text("SELECT outcome FROM webhook_attempts WHERE worker = 'p1:1'") == "lost");
}

TEST_CASE("work queue: a lapsed lease nobody reclaimed finishes normally without a renewal", "[store][queue]") {
  QueueFixture f;
  const int64_t id = f.Add("evt_1");
  auto c = f.MustClaim("p1:0", kT0);
  CHECK(f.NothingDue("p1:1", kT0 + 1));
  AttemptResult r = ResultFor(c, "p1:0", AttemptOutcome::kCompleted);
  r.finished_at_ms = kT0 + 3 * kLease;  // long past lease_until
  REQUIRE(f.q().Finish(r).ok());
  CHECK(f.StatusOf(id) == "completed");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE outcome = 'lost'") == 0);
}

// The worker finishes one event and takes the next in one commit.
TEST_CASE("work queue: FinishAndLease records the attempt and claims the next due event together", "[store][queue]") {
  QueueFixture f;
  int64_t a = f.Add("evt_a", "payments", kT0);
  int64_t b = f.Add("evt_b", "payments", kT0 + 1);
  auto first = f.MustClaim("w1", kT0 + 10);
  REQUIRE(first.id == a);

  std::optional<store::LeasedEvent> next;
  store::WorkQueue::LeaseRequest request{"w1", kT0 + 20, kLease, {}, {a}};
  REQUIRE(f.q().FinishAndLease(ResultFor(first, "w1", AttemptOutcome::kCompleted), request, &next).ok());
  CHECK(f.StatusOf(a) == "completed");
  REQUIRE(next.has_value());
  CHECK(next->id == b);
  CHECK(next->attempt == 1);
  CHECK(f.StatusOf(b) == "processing");
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(b) +
                " AND outcome IS NULL") == 1);

  // Nothing more is due: the finish alone is recorded.
  REQUIRE(f.q().FinishAndLease(ResultFor(*next, "w1", AttemptOutcome::kCompleted), request, &next).ok());
  CHECK_FALSE(next.has_value());
  CHECK(f.StatusOf(b) == "completed");
}

TEST_CASE("work queue: FinishAndLease after a lost lease still claims; a failed commit does neither", "[store][queue]") {
  QueueFixture f;
  int64_t a = f.Add("evt_a", "payments", kT0);
  auto mine = f.MustClaim("w1", kT0 + 10);
  REQUIRE(mine.id == a);
  // w1's lease lapses and w2 takes the event over.
  const int64_t later = kT0 + 10 + kLease + 1;
  auto theirs = f.MustClaim("w2", later);
  REQUIRE(theirs.id == a);
  int64_t b = f.Add("evt_b", "payments", later);

  std::optional<store::LeasedEvent> next;
  store::WorkQueue::LeaseRequest request{"w1", later + 10, kLease, {}, {}};
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  Status failed = f.q().FinishAndLease(ResultFor(mine, "w1", AttemptOutcome::kCompleted), request, &next);
  f.store->writer().SetCommitHookForTest(nullptr);
  CHECK(failed.code() == Code::kUnavailable);
  CHECK_FALSE(next.has_value());
  CHECK(f.StatusOf(b) == "received");

  Status st = f.q().FinishAndLease(ResultFor(mine, "w1", AttemptOutcome::kCompleted), request, &next);
  CHECK(st.code() == Code::kConflict);
  CHECK(f.StatusOf(a) == "processing");  // still w2's
  REQUIRE(next.has_value());
  CHECK(next->id == b);
}

// Concurrent claims and a lapsed lease: a claim reads the process's running set when it
// runs and adds what it took; a claim that does not commit leaves it alone.
TEST_CASE("work queue: a claim with a RunningSet skips its events and records what it took", "[store][queue]") {
  QueueFixture f;
  int64_t a = f.Add("evt_a", "payments", kT0);
  store::RunningSet running;
  store::WorkQueue::LeaseRequest request{"w1", kT0 + 10, kLease, {}, {}, &running};
  auto first = f.q().LeaseDue(request);
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((*first)->id == a);
  CHECK(running.Snapshot() == std::vector<int64_t>{a});

  // Its lease lapses while it still runs here: the process's next claim leaves it.
  request.now_ms = kT0 + 10 + kLease + 1;
  auto again = f.q().LeaseDue(request);
  REQUIRE(again.ok());
  CHECK_FALSE(again->has_value());

  int64_t b = f.Add("evt_b", "payments", kT0 + 1);
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  auto failed = f.q().LeaseDue(request);
  f.store->writer().SetCommitHookForTest(nullptr);
  CHECK_FALSE(failed.ok());
  CHECK(running.Snapshot() == std::vector<int64_t>{a});  // b was not taken
  CHECK(f.StatusOf(b) == "received");
}
