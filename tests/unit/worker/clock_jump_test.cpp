// Clock jumps in the worker loop, against the real SqlStore and a
// FakeClock whose wall time is stepped with Set() (NTP, `date -s`) while the
// loop's own waits stay on steady time:
//  - a step forward past the lease while an action runs: the other thread's
//    claim skips the running event (running ids) although, being due the
//    earliest, it would come first; it runs once.
//  - a step back: the loop is not put to sleep until the wall clock catches
//    up with the next due time (SleepFor is capped by the poll), so a new
//    delivery is run within the poll, without a Notify.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "worker/worker_loop.h"
#include "store/sql_store.h"
#include "support/temp_dir.h"

namespace hookinbox::worker {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kT0 = 1764511200000;
constexpr int kLeaseSeconds = 60;  // renewals every 20 s of real time: none during the test

bool Eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout = 5000ms) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (cond()) return true;
    std::this_thread::sleep_for(2ms);  // a poll step, not a wait for an outcome
  }
  return cond();
}

// Counts runs per event; the event named `held` waits until Open().
class CountingAction final : public action::Action {
 public:
  explicit CountingAction(std::string held) : held_(std::move(held)) {}
  action::Outcome Run(const action::ActionInput& in) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++runs_[in.event_id];
    cv_.wait(lock, [&] { return open_ || in.event_id != held_; });
    action::Outcome o;
    o.verdict = action::Verdict::kSuccess;
    return o;
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  int Runs(const std::string& event_id) {
    std::lock_guard<std::mutex> lock(mu_);
    return runs_[event_id];
  }

 private:
  const std::string held_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, int> runs_;
  bool open_ = false;
};

int64_t Deliver(store::SqlStore& s, const std::string& id, int64_t at) {
  store::NewEvent e;
  e.provider = "generic";
  e.endpoint = "payments";
  e.tenant_id = "default";
  e.event_id = id;
  e.payload_hash = "h-" + id;
  e.content_type = "application/json";
  e.body = R"({"id":")" + id + R"("})";
  e.received_at_ms = at;
  store::DeliveryRecord d;
  d.received_at_ms = at;
  d.endpoint = "payments";
  d.provider = "generic";
  auto r = s.RecordEvent(e, d);
  REQUIRE(r.ok());
  return r->inbox_id;
}

std::string Status(store::SqlStore& s, int64_t id) {
  auto e = s.GetEvent(id, false);
  return e.ok() ? e->event.status : "";
}

}  // namespace

TEST_CASE("WorkerLoop clock jump: a wall-clock step never runs an event twice nor stalls the claim loop",
          "[worker][clock]") {
  testing::TempDir dir;
  auto opened = store::SqlStore::Open({dir.File("h.db"), 2000, 64});
  REQUIRE(opened.ok());
  store::SqlStore& s = **opened;
  config::Config c;
  c.worker.threads = 2;
  c.worker.lease_seconds = kLeaseSeconds;
  c.endpoints.resize(1);
  c.endpoints[0].name = "payments";
  c.endpoints[0].action.type = "exec";
  c.endpoints[0].action.concurrency = 2;
  FakeClock clock(kT0);
  auto action = std::make_shared<CountingAction>("evt_long");
  WorkerLoop loop(std::make_shared<const config::Config>(c), s, clock, {{"payments", action}}, {50ms, "proc"});
  // A failed REQUIRE must not leave held actions behind: Stop would wait for them forever.
  struct OpenOnExit {
    CountingAction& action;
    ~OpenOnExit() { action.Open(); }
  } open_on_exit{*action};
  loop.Start();

  const int64_t long_id = Deliver(s, "evt_long", clock.NowMs());
  loop.Notify();
  REQUIRE(Eventually([&] { return action->Runs("evt_long") == 1; }));

  // Forward, far past the lease: evt_long is due first (its next_attempt_at
  // is its lapsed lease), yet the free thread must take evt_next instead.
  clock.Set(kT0 + 10 * kLeaseSeconds * 1000);
  const int64_t next_id = Deliver(s, "evt_next", clock.NowMs());
  loop.Notify();
  REQUIRE(Eventually([&] { return Status(s, next_id) == "completed"; }));
  CHECK(action->Runs("evt_long") == 1);

  // Back a day: the next due time (evt_long's lapsed lease) is now a day
  // ahead; the idle thread must still look again within the poll.
  clock.Set(kT0 - 24 * 3600 * 1000);
  // Let the idle thread go back to sleep under the stepped clock first (a
  // few polls); a delivery landing before that would be found by a sleep
  // computed before the step and prove nothing.
  std::this_thread::sleep_for(4 * 50ms);
  const int64_t back_id = Deliver(s, "evt_after_step_back", clock.NowMs());  // no Notify
  CHECK(Eventually([&] { return Status(s, back_id) == "completed"; }, 3000ms));

  action->Open();
  REQUIRE(Eventually([&] { return Status(s, long_id) == "completed"; }));
  loop.Stop(5000ms);
  CHECK(action->Runs("evt_long") == 1);
  CHECK(action->Runs("evt_next") == 1);
  CHECK(action->Runs("evt_after_step_back") == 1);
}

}  // namespace hookinbox::worker
