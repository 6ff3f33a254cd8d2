// Tests of worker/worker_loop with an async action (action.async): a 202
// "started" hands the event to its handler — nothing recorded, the slot
// freed, the lease no longer renewed by the worker.
#include <catch2/catch.hpp>

#include "worker/worker_loop.h"
#include "worker_fakes.h"

namespace hookinbox::worker {

using namespace fakes;

namespace {

// Answers 202 "started" for evt_1, once the worker renewed its lease at
// least once (so the test sees the renewals stop); 200 for the others.
class StartingAction final : public action::Action {
 public:
  explicit StartingAction(FakeQueue& q) : q_(q) {}
  action::Outcome Run(const action::ActionInput& in) override {
    action::Outcome o;
    o.verdict = action::Verdict::kSuccess;
    o.sent = true;
    o.http_status = 200;
    if (in.event_id != "evt_1") return o;
    renewed_before = Eventually([&] { return RenewalsOf(1) > 0; });
    o.http_status = 202;
    o.started = true;
    return o;
  }
  int RenewalsOf(int64_t id) {
    std::lock_guard<std::mutex> lock(q_.mu);
    return static_cast<int>(std::count(q_.renewed_ids.begin(), q_.renewed_ids.end(), id));
  }
  std::atomic<bool> renewed_before{false};

 private:
  FakeQueue& q_;
};

config::Config AsyncConfig() {
  config::Config c = TwoEndpoints(2);
  c.worker.lease_seconds = 1;  // the worker renews every 333 ms
  c.endpoints[0].action.concurrency = 1;
  c.endpoints[0].action.async = true;
  return c;
}

}  // namespace

TEST_CASE("WorkerLoop: a 202 on an async endpoint hands the event over, frees the slot, stops renewing",
          "[worker][async]") {
  auto q_owner = std::make_unique<FakeQueue>();
  FakeQueue& q = *q_owner;
  q.releases_return = true;
  const bool conflict = GENERATE(false, true);  // true: the handler ended it before the worker read the 202
  q.handover_conflict = conflict;
  q.Add(1, "a");
  q.Add(2, "a");
  auto action = std::make_shared<StartingAction>(q);
  SystemClock clock;
  auto loop = NewLoop(Snapshot(AsyncConfig()), q, clock, {{"a", action}}, {std::chrono::milliseconds(20), "test"});
  const int64_t before_ms = clock.NowMs();
  loop->Start();
  // Event 2 runs in the one slot while event 1 is still with its handler.
  REQUIRE(Eventually([&] { return q.FinishedCount() == 1; }));
  CHECK(action->renewed_before);
  {
    std::lock_guard<std::mutex> lock(q.mu);
    CHECK(q.finished[0].id == 2);
    REQUIRE(q.handed_over.size() == 1);
    CHECK(q.handed_over[0].id == 1);
    CHECK(q.handed_over[0].attempt == 1);
    CHECK(q.handed_over[0].owner.rfind("test:", 0) == 0);
    // A full lease from the 202 on.
    CHECK(q.handed_over[0].until_ms >= before_ms + 1000);
  }
  const int renewals = action->RenewalsOf(1);
  CHECK_FALSE(Eventually([&] { return action->RenewalsOf(1) > renewals; }, 800ms));
  loop->Stop(0ms);
  // Never finished by the worker, nor released at shutdown.
  std::lock_guard<std::mutex> lock(q.mu);
  CHECK(q.finished.size() == 1);
  CHECK(std::none_of(q.pending.begin(), q.pending.end(), [](const store::LeasedEvent& e) { return e.id == 1; }));
}

}  // namespace hookinbox::worker
