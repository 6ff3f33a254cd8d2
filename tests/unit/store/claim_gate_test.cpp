// The claim's gate (store/claim_gate.h) through the WorkQueue: business keys
// and the ordering guard decide, inside the claim's transaction, whether an
// event runs, waits for another, or is skipped.
#include <catch2/catch.hpp>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::AttemptOutcome;

namespace {

constexpr int64_t kT0 = 1764511200000;
constexpr int64_t kLease = 30000;

struct GateFixture : StoreFixture {
  // An event with a business key and/or an object version ("" / 0 = none).
  int64_t Add(const std::string& event_id, const std::string& business_key, const std::string& object_key = "",
              int64_t version = 0, const std::string& hash = "") {
    auto e = SampleEvent(event_id, hash.empty() ? "h-" + event_id : hash, R"({"id":")" + event_id + R"("})");
    e.business_key = business_key;
    e.business_key_hint = business_key.empty() ? "" : "mark_paid(/data/id) #" + business_key.substr(0, 4);
    e.object_key = object_key;
    e.object_version = version;
    auto r = store->RecordEvent(e, SampleDelivery());
    REQUIRE(r.ok());
    REQUIRE(r->outcome == store::DeliveryOutcome::kAccepted);
    return r->inbox_id;
  }
  std::optional<store::LeasedEvent> Lease(int64_t now) {
    auto c = store->LeaseDue("w1", now, kLease, {});
    REQUIRE(c.ok());
    return *c;
  }
  void Finish(const store::LeasedEvent& c, AttemptOutcome outcome, int64_t at) {
    store::AttemptResult r;
    r.id = c.id;
    r.owner = "w1";
    r.attempt = c.attempt;
    r.outcome = outcome;
    r.finished_at_ms = at;
    r.next_attempt_at_ms = at + 1000;
    REQUIRE(store->Finish(r).ok());
  }
  std::string Row(int64_t id, const std::string& columns) {
    return Text("SELECT " + columns + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
};

}  // namespace

TEST_CASE("gate: a second event with an applied business key is skipped, with a reference to the first",
          "[store][gate]") {
  GateFixture f;
  const int64_t first = f.Add("evt_a", "bk1");
  const int64_t second = f.Add("evt_b", "bk1");
  auto c1 = f.Lease(kT0);
  REQUIRE(c1);
  CHECK(c1->id == first);
  // While the first runs, the second waits for it: no attempt spent.
  CHECK_FALSE(f.Lease(kT0 + 10));
  CHECK(f.Row(second, "status || '|' || attempt_count || '|' || waiting_for") ==
        "received|0|" + std::to_string(first));
  CHECK(f.Row(second, "next_attempt_at") == std::to_string(kT0 + kLease + 1));
  // The first completes: the second is due at once, and skipped.
  f.Finish(*c1, AttemptOutcome::kCompleted, kT0 + 100);
  CHECK(f.Row(second, "next_attempt_at") == std::to_string(kT0 + 100));
  CHECK_FALSE(f.Lease(kT0 + 200));
  CHECK(f.Row(second, "status || '|' || skip_reason || '|' || skipped_for") ==
        "skipped|duplicate_business_key|" + std::to_string(first));
  CHECK(f.Text("SELECT outcome || '|' || substr(error, 1, 22) FROM webhook_attempts WHERE inbox_id = " +
               std::to_string(second)) == "skipped|duplicate_business_key");
  CHECK(f.Text("SELECT status || '|' || inbox_id FROM business_keys") == "applied|" + std::to_string(first));
  // The key's hint is stored, never the values it was made of.
  CHECK(f.Text("SELECT hint FROM business_keys") == "mark_paid(/data/id) #bk1");
}

TEST_CASE("gate: a dead-lettered holder frees the business key for the next event", "[store][gate]") {
  GateFixture f;
  const int64_t first = f.Add("evt_a", "bk1");
  const int64_t second = f.Add("evt_b", "bk1");
  auto c1 = f.Lease(kT0);
  REQUIRE(c1);
  f.Finish(*c1, AttemptOutcome::kDeadLettered, kT0 + 100);
  CHECK(f.Count("SELECT count(*) FROM business_keys") == 0);
  auto c2 = f.Lease(kT0 + 200);
  REQUIRE(c2);
  CHECK(c2->id == second);
  CHECK(f.Text("SELECT status || '|' || inbox_id FROM business_keys") == "claimed|" + std::to_string(second));
  f.Finish(*c2, AttemptOutcome::kCompleted, kT0 + 300);
  CHECK(f.Row(first, "status") == "dead_lettered");
  CHECK(f.Row(second, "status") == "completed");
}

TEST_CASE("gate: a retrying holder keeps its key; different keys never wait for each other", "[store][gate]") {
  GateFixture f;
  const int64_t first = f.Add("evt_a", "bk1");
  const int64_t other = f.Add("evt_c", "bk2");
  const int64_t second = f.Add("evt_b", "bk1");
  auto c1 = f.Lease(kT0);
  REQUIRE(c1);
  auto c2 = f.Lease(kT0);  // bk2 is free: runs beside the first
  REQUIRE(c2);
  CHECK(c2->id == other);
  f.Finish(*c1, AttemptOutcome::kRetryableFailed, kT0 + 100);  // due again at kT0 + 1100
  CHECK_FALSE(f.Lease(kT0 + 200));                               // the second waits for the retry
  CHECK(f.Row(second, "waiting_for") == std::to_string(first));
  auto again = f.Lease(kT0 + 1100);
  REQUIRE(again);
  CHECK(again->id == first);
}

TEST_CASE("gate: an older or equal version of an object is skipped as stale; equal with another payload conflicts",
          "[store][gate]") {
  GateFixture f;
  const int64_t v2 = f.Add("evt_v2", "", "obj1", 2, "hash-v2");
  const int64_t v1 = f.Add("evt_v1", "", "obj1", 1);
  const int64_t v2_again = f.Add("evt_v2_resent", "", "obj1", 2, "hash-v2");
  const int64_t v2_other = f.Add("evt_v2_other", "", "obj1", 2, "hash-v2-different");
  const int64_t v3 = f.Add("evt_v3", "", "obj1", 3);
  auto c = f.Lease(kT0);
  REQUIRE(c);
  CHECK(c->id == v2);
  // Never two events of one object at once.
  CHECK_FALSE(f.Lease(kT0 + 1));
  CHECK(f.Row(v1, "waiting_for") == std::to_string(v2));
  f.Finish(*c, AttemptOutcome::kCompleted, kT0 + 100);
  CHECK(f.Text("SELECT version || '|' || inbox_id FROM object_versions") == "2|" + std::to_string(v2));
  auto next = f.Lease(kT0 + 200);  // v1 and the resent v2 are skipped on the way, v2_other conflicts
  REQUIRE(next);
  CHECK(next->id == v3);
  CHECK(f.Row(v1, "status || '|' || skip_reason || '|' || skipped_for") ==
        "skipped|stale_version|" + std::to_string(v2));
  CHECK(f.Row(v2_again, "status || '|' || skip_reason") == "skipped|stale_version");
  CHECK(f.Row(v2_other, "status") == "dead_lettered");
  CHECK(f.Row(v2_other, "last_error").rfind("version conflict", 0) == 0);
  f.Finish(*next, AttemptOutcome::kCompleted, kT0 + 300);
  CHECK(f.Text("SELECT version || '|' || inbox_id FROM object_versions") == "3|" + std::to_string(v3));
}

TEST_CASE("gate: a holder whose lease expired no longer blocks; its attempt ends lost", "[store][gate]") {
  GateFixture f;
  const int64_t first = f.Add("evt_a", "", "obj1", 1);
  const int64_t second = f.Add("evt_b", "", "obj1", 2);
  auto c1 = f.Lease(kT0);
  REQUIRE(c1);
  CHECK_FALSE(f.Lease(kT0 + 1));  // second waits until the first's lease ends
  // After the lease, the first (older next_attempt_at) is reclaimed first.
  auto again = f.Lease(kT0 + kLease + 2);
  REQUIRE(again);
  CHECK(again->id == first);
  CHECK(f.Joined("SELECT coalesce(outcome, 'open') FROM webhook_attempts WHERE inbox_id = " + std::to_string(first) +
                 " ORDER BY id") == "lost,open");
  f.Finish(*again, AttemptOutcome::kCompleted, kT0 + kLease + 10);
  auto c2 = f.Lease(kT0 + kLease + 20);
  REQUIRE(c2);
  CHECK(c2->id == second);
}

TEST_CASE("gate: resolving an unknown holder as completed applies its key", "[store][gate]") {
  GateFixture f;
  const int64_t first = f.Add("evt_a", "bk1");
  const int64_t second = f.Add("evt_b", "bk1");
  auto c1 = f.Lease(kT0);
  REQUIRE(c1);
  f.Finish(*c1, AttemptOutcome::kUnknown, kT0 + 100);
  CHECK_FALSE(f.Lease(kT0 + 200));  // waits: the effect may have happened
  CHECK(f.Row(second, "status") == "received");
  REQUIRE(f.store->Resolve(first, "completed", "ref-1", "checked", "test", kT0 + 300).ok());
  CHECK_FALSE(f.Lease(kT0 + 400));
  CHECK(f.Row(second, "status || '|' || skip_reason") == "skipped|duplicate_business_key");
}

// A running event is never reclaimed on a lapsed lease, so it
// must also keep holding its object: the gate alone lets a lapsed holder go.
TEST_CASE("gate: an event of the same object as one its claimer still runs waits, even with the lease lapsed",
          "[store][gate]") {
  GateFixture f;
  const int64_t holder = f.Add("evt_a", "", "order-1", 1);
  auto c1 = f.Lease(kT0);
  REQUIRE(c1);
  REQUIRE(c1->id == holder);
  const int64_t later = f.Add("evt_b", "", "order-1", 2);
  const int64_t lapsed = kT0 + kLease + 1;
  auto c2 = f.store->LeaseDue("w2", lapsed, kLease, {}, {holder});
  REQUIRE(c2.ok());
  CHECK_FALSE(c2->has_value());
  CHECK(f.Row(later, "status || '|' || attempt_count || '|' || waiting_for || '|' || next_attempt_at") ==
        "received|0|" + std::to_string(holder) + "|" + std::to_string(lapsed + kLease));
  // The holder finishes: the waiting event is due at once and runs.
  f.Finish(*c1, AttemptOutcome::kCompleted, lapsed + 10);
  auto c3 = f.store->LeaseDue("w2", lapsed + 20, kLease, {}, {});
  REQUIRE(c3.ok());
  REQUIRE(c3->has_value());
  CHECK((*c3)->id == later);
}
