// Tests of WorkerLoop::Reconfigure: a reload adds, changes and removes
// endpoints under a running worker. Attempts that started finish on the
// action and config they started with; events leased ahead for an endpoint
// that is gone go back unrun; the breaker of an unchanged endpoint survives.
#include <catch2/catch.hpp>

#include "worker/worker_loop.h"
#include "worker_fakes.h"

namespace hookinbox::worker {
namespace {

using namespace fakes;

// TwoEndpoints with a second endpoint "b" that has an action too.
config::Config WithB(int threads) {
  config::Config c = TwoEndpoints(threads);
  config::EndpointConfig b = c.endpoints[0];
  b.name = "b";
  c.endpoints.push_back(b);
  return c;
}

bool IsPending(FakeQueue& q, int64_t id) {
  std::lock_guard<std::mutex> lock(q.mu);
  return std::any_of(q.pending.begin(), q.pending.end(), [&](const store::LeasedEvent& e) { return e.id == id; });
}

const store::AttemptResult* FinishedOf(FakeQueue& q, int64_t id) {
  for (const auto& r : q.finished) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

// An action that runs at once, counting per endpoint how many run at the same
// time (shared by the action objects of successive reloads).
class CountingAction final : public action::Action {
 public:
  struct Counters {
    std::mutex mu;
    std::map<std::string, int> running, max_running;
    std::multiset<std::string> runs;  // idempotency keys
  };
  explicit CountingAction(std::shared_ptr<Counters> counters) : counters_(std::move(counters)) {}
  action::Outcome Run(const action::ActionInput& in) override {
    {
      std::lock_guard<std::mutex> lock(counters_->mu);
      int& n = ++counters_->running[in.endpoint];
      counters_->max_running[in.endpoint] = std::max(counters_->max_running[in.endpoint], n);
      counters_->runs.insert(in.idempotency_key);
    }
    std::this_thread::yield();  // let another thread overlap, if the limits allowed it
    std::lock_guard<std::mutex> lock(counters_->mu);
    --counters_->running[in.endpoint];
    action::Outcome o;
    o.verdict = action::Verdict::kSuccess;
    return o;
  }

 private:
  std::shared_ptr<Counters> counters_;
};

}  // namespace

TEST_CASE("WorkerLoop reload: an endpoint added gets its due events claimed") {
  config::Config c = TwoEndpoints(2);
  auto q_owner = std::make_unique<FakeQueue>();
  FakeQueue& q = *q_owner;
  auto a = std::make_shared<GateAction>();
  auto b = std::make_shared<GateAction>();
  a->Open();
  b->Open();
  q.Add(1, "b");
  SystemClock clock;
  auto loop_owner = NewLoop(Snapshot(c), q, clock, {{"a", a}}, {20ms, "test"});
  WorkerLoop& loop = *loop_owner;
  loop.Start();
  q.Add(2, "a");
  loop.Notify("a");
  REQUIRE(Eventually([&] { return q.FinishedCount() == 1; }));
  CHECK(IsPending(q, 1));  // "b" is not in the config yet
  loop.Reconfigure(Snapshot(WithB(2)), {{"a", a}, {"b", b}});
  REQUIRE(Eventually([&] { return q.FinishedCount() == 2; }));
  q.Add(3, "b");
  loop.Notify("b");  // the current action map: "b" has one now
  REQUIRE(Eventually([&] { return q.FinishedCount() == 3; }));
  loop.Stop(0ms);
  CHECK(b->keys.size() == 2);
  std::lock_guard<std::mutex> lock(q.mu);
  REQUIRE(FinishedOf(q, 1) != nullptr);
  CHECK(FinishedOf(q, 1)->outcome == store::AttemptOutcome::kCompleted);
}

TEST_CASE("WorkerLoop reload: an endpoint removed gets no more claims; its events stay") {
  auto q_owner = std::make_unique<FakeQueue>();
  FakeQueue& q = *q_owner;
  auto a = std::make_shared<GateAction>();
  auto b = std::make_shared<GateAction>();
  a->Open();
  b->Open();
  q.Add(1, "b");
  SystemClock clock;
  auto loop_owner = NewLoop(Snapshot(WithB(2)), q, clock, {{"a", a}, {"b", b}}, {20ms, "test"});
  WorkerLoop& loop = *loop_owner;
  loop.Start();
  REQUIRE(Eventually([&] { return q.FinishedCount() == 1; }));
  SECTION("removed from the config") { loop.Reconfigure(Snapshot(TwoEndpoints(2)), {{"a", a}}); }
  SECTION("kept in the config without an action") {
    config::Config receive_only = WithB(2);
    receive_only.endpoints[2].action = config::ActionConfig{};
    loop.Reconfigure(Snapshot(receive_only), {{"a", a}});
  }
  q.Add(2, "b");
  q.Add(3, "b");
  q.Add(4, "a");
  loop.Notify("b");
  loop.Notify("a");
  REQUIRE(Eventually([&] { return q.FinishedCount() == 2; }));
  // Claims keep coming (20 ms poll): none takes "b"'s events.
  CHECK_FALSE(Eventually([&] { return q.FinishedCount() > 2; }, 200ms));
  loop.Stop(0ms);
  CHECK(IsPending(q, 2));
  CHECK(IsPending(q, 3));
  CHECK(b->keys.size() == 1);
  std::lock_guard<std::mutex> lock(q.mu);
  CHECK(std::find(q.last_searched.begin(), q.last_searched.end(), "b") == q.last_searched.end());
}

// One thread, so nothing is leased ahead: event 2 is claimed after event 1's
// finish, once the new action is in force.
TEST_CASE("WorkerLoop reload: the running attempt ends on the old action and config, the next runs on the new") {
  config::Config c = TwoEndpoints(1);
  c.endpoints[0].action.concurrency = 1;
  auto q_owner = std::make_unique<FakeQueue>();
  FakeQueue& q = *q_owner;
  SystemClock clock;
  for (int64_t id : {1, 2}) {
    q.Add(id, "a");
    q.pending.back().retry_window_start_ms = clock.NowMs();
  }
  auto old_action = std::make_shared<GateAction>();
  old_action->verdict = action::Verdict::kTransient;
  auto new_action = std::make_shared<GateAction>();
  new_action->verdict = action::Verdict::kTransient;
  new_action->Open();
  auto loop_owner = NewLoop(Snapshot(c), q, clock, {{"a", old_action}}, {20ms, "test"});
  WorkerLoop& loop = *loop_owner;
  loop.Start();
  REQUIRE(Eventually([&] { return old_action->Running() == 1; }));
  // The new config gives up after one attempt; the old one retries.
  config::Config next = c;
  next.worker.max_attempts = 1;
  next.endpoints[0].action.timeout_ms = 1234;
  loop.Reconfigure(Snapshot(next), {{"a", new_action}});
  old_action->Open();
  REQUIRE(Eventually([&] { return q.FinishedCount() == 2; }));
  loop.Stop(0ms);
  REQUIRE(old_action->keys.size() == 1);
  CHECK(old_action->keys[0] == action::IdempotencyKey("generic", "a", "", "evt_1"));
  REQUIRE(new_action->keys.size() == 1);
  CHECK(new_action->keys[0] == action::IdempotencyKey("generic", "a", "", "evt_2"));
  std::lock_guard<std::mutex> lock(q.mu);
  REQUIRE(FinishedOf(q, 1) != nullptr);
  REQUIRE(FinishedOf(q, 2) != nullptr);
  CHECK(FinishedOf(q, 1)->outcome == store::AttemptOutcome::kRetryableFailed);  // the config it started on
  CHECK(FinishedOf(q, 2)->outcome == store::AttemptOutcome::kDeadLettered);     // the new one
}

TEST_CASE("WorkerLoop reload: an open breaker stays open when its settings did not change") {
  config::Config c = TwoEndpoints(1);
  c.endpoints[0].action.breaker_failures = 1;
  c.endpoints[0].action.breaker_probe_seconds = 3600;
  auto q_owner = std::make_unique<FakeQueue>();
  FakeQueue& q = *q_owner;
  for (int64_t id = 1; id <= 3; ++id) q.Add(id, "a");
  auto failing = std::make_shared<FailingAction>();
  auto healthy = std::make_shared<GateAction>();
  healthy->Open();
  SystemClock clock;
  auto loop_owner = NewLoop(Snapshot(c), q, clock, {{"a", failing}}, {20ms, "test"});
  WorkerLoop& loop = *loop_owner;
  loop.Start();
  REQUIRE(Eventually([&] { return q.FinishedCount() == 1; }));
  // Another action object and another URL, the same breaker settings: still open.
  config::Config same_breaker = c;
  same_breaker.endpoints[0].action.url = "http://127.0.0.1:2/";
  loop.Reconfigure(Snapshot(same_breaker), {{"a", healthy}});
  loop.Notify("a");
  CHECK_FALSE(Eventually([&] { return q.FinishedCount() > 1; }, 200ms));
  CHECK(healthy->keys.empty());
  // Changed settings: a fresh, closed breaker lets the events go.
  config::Config new_breaker = same_breaker;
  new_breaker.endpoints[0].action.breaker_probe_seconds = 60;
  loop.Reconfigure(Snapshot(new_breaker), {{"a", healthy}});
  REQUIRE(Eventually([&] { return q.FinishedCount() == 3; }));
  loop.Stop(0ms);
  CHECK(failing->calls == 1);
  CHECK(healthy->keys.size() == 2);
}

TEST_CASE("WorkerLoop reload: events leased ahead for a removed endpoint go back unrun") {
  config::Config c = TwoEndpoints(2);
  c.endpoints[0].action.concurrency = 1;  // below the thread count: leases ahead allowed
  auto q_owner = std::make_unique<FakeQueue>();
  FakeQueue& q = *q_owner;
  q.releases_return = true;
  for (int64_t id = 1; id <= 3; ++id) q.Add(id, "a");
  auto gate = std::make_shared<GateAction>();
  SystemClock clock;
  auto loop_owner = NewLoop(Snapshot(c), q, clock, {{"a", gate}}, {20ms, "test"});
  WorkerLoop& loop = *loop_owner;
  loop.Start();
  REQUIRE(Eventually([&] { return gate->Running() == 1; }));
  REQUIRE(Eventually([&] {
    std::lock_guard<std::mutex> lock(q.mu);
    return q.pending.empty();  // events 2 and 3 are leased ahead
  }));
  config::Config without_a = c;
  without_a.endpoints.erase(without_a.endpoints.begin());
  loop.Reconfigure(Snapshot(without_a), {});
  gate->Open();  // event 1 ends on the action it started with
  REQUIRE(Eventually([&] { return q.FinishedCount() == 1 && q.release_calls.load() == 1; }));
  loop.Stop(0ms);
  CHECK(gate->keys.size() == 1);
  CHECK(IsPending(q, 2));  // back, unrun, as due as before
  CHECK(IsPending(q, 3));
  std::lock_guard<std::mutex> lock(q.mu);
  CHECK(q.finished[0].id == 1);
  CHECK(q.finished[0].outcome == store::AttemptOutcome::kCompleted);
  REQUIRE_FALSE(q.release_reasons.empty());
  CHECK(q.release_reasons[0] == "endpoint removed from the config before it ran");
}

// Reloads race claims, leases ahead and finishes: "b" comes and goes, every
// reload brings new action objects. Nothing runs twice, no limit is
// overshot, and once "b" is back for good every event completes once.
TEST_CASE("WorkerLoop reload: repeated reloads while threads claim and finish") {
  config::Config with_b = WithB(4);
  with_b.endpoints[0].action.concurrency = 2;
  with_b.endpoints[2].action.concurrency = 1;
  config::Config without_b = with_b;
  without_b.endpoints.pop_back();
  auto q_owner = std::make_unique<FakeQueue>();
  FakeQueue& q = *q_owner;
  q.releases_return = true;
  q.claim_delay = std::chrono::microseconds(100);  // claims overlap, as group commits do
  constexpr int kEach = 150;
  for (int i = 1; i <= kEach; ++i) {
    q.Add(i, "a");
    q.Add(1000 + i, "b");
  }
  auto counters = std::make_shared<CountingAction::Counters>();
  auto actions = [&](bool b) {
    ActionMap m{{"a", std::make_shared<CountingAction>(counters)}};
    if (b) m["b"] = std::make_shared<CountingAction>(counters);
    return m;
  };
  SystemClock clock;
  auto loop_owner = NewLoop(Snapshot(with_b), q, clock, actions(true), {5ms, "test"});
  WorkerLoop& loop = *loop_owner;
  loop.Start();
  std::atomic<bool> done{false};
  std::thread reloader([&] {
    for (int i = 0; !done.load(); ++i) {
      const bool b = i % 2 == 1;
      const size_t finished = q.FinishedCount();
      loop.Reconfigure(Snapshot(b ? with_b : without_b), actions(b));
      // The next reload once the worker got on with something (or the end).
      Eventually([&] { return done.load() || q.FinishedCount() > finished; }, 1000ms);
    }
  });
  // "a" is never removed: its events complete while the reloads go on.
  const bool a_done = Eventually([&] {
    std::lock_guard<std::mutex> lock(q.mu);
    return std::count_if(q.finished.begin(), q.finished.end(), [](const auto& r) { return r.id <= kEach; }) == kEach;
  }, 20000ms);
  done = true;
  reloader.join();
  REQUIRE(a_done);
  loop.Reconfigure(Snapshot(with_b), actions(true));
  REQUIRE(Eventually([&] { return q.FinishedCount() == 2 * kEach; }, 20000ms));
  loop.Stop(0ms);
  std::lock_guard<std::mutex> lock(q.mu);
  std::set<int64_t> ids;
  for (const auto& r : q.finished) {
    CHECK(r.outcome == store::AttemptOutcome::kCompleted);
    ids.insert(r.id);
  }
  CHECK(ids.size() == 2 * kEach);  // each event finished once
  std::lock_guard<std::mutex> counted(counters->mu);
  CHECK(counters->runs.size() == 2 * kEach);  // and ran once
  CHECK(counters->max_running["a"] <= 2);
  CHECK(counters->max_running["b"] <= 1);
}

}  // namespace hookinbox::worker
