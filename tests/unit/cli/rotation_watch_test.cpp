// cli/rotation_watch: the thread that records the end of each rotation's
// window, driven by a FakeClock against a fake EndpointStates that counts
// the calls. Waits poll with a deadline; nothing sleeps to wait.
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "cli/rotation_watch.h"
#include "common/clock.h"

using namespace hookinbox;

namespace {

constexpr int64_t kT0 = 1796860800000;
constexpr int64_t kHour = 3600000;

// Records every RecordSecretRetired call; the others are not used by the watch.
class FakeStates final : public store::EndpointStates {
 public:
  Result<std::vector<store::EndpointState>> ListEndpointStates() override {
    return std::vector<store::EndpointState>{};
  }
  Result<std::vector<std::string>> PausedEndpoints() override { return std::vector<std::string>{}; }
  Result<bool> SetPaused(const std::string&, bool, const std::string&, const std::string&, int64_t) override {
    return false;
  }
  Status RecordBreaker(const store::BreakerRecord&) override { return Status::Ok(); }
  Status RecordSecretRotated(const std::string&, const std::string&, const std::string&, int64_t) override {
    return Status::Ok();
  }
  Result<bool> RecordSecretRetired(const std::string& endpoint, const std::string& actor, const std::string& reason,
                                   int64_t now_ms, bool only_after_rotation) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_) {
      ++failures_;
      return Unavailable("database is locked");
    }
    ++calls_[endpoint];
    last_actor_ = actor;
    last_reason_ = reason;
    last_now_ = now_ms;
    all_only_after_rotation_ = all_only_after_rotation_ && only_after_rotation;
    return true;
  }

  int Calls(const std::string& endpoint) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_.count(endpoint) ? calls_[endpoint] : 0;
  }
  int Failures() {
    std::lock_guard<std::mutex> lock(mu_);
    return failures_;
  }
  void Fail(bool fail) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_ = fail;
  }
  std::string LastActor() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_actor_;
  }
  std::string LastReason() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_reason_;
  }
  int64_t LastNow() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_now_;
  }
  bool AllOnlyAfterRotation() {
    std::lock_guard<std::mutex> lock(mu_);
    return all_only_after_rotation_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> calls_;
  bool fail_ = false;
  int failures_ = 0;
  std::string last_actor_, last_reason_;
  int64_t last_now_ = 0;
  bool all_only_after_rotation_ = true;
};

// True once `condition` holds; false after 10 s (a failure, never a wait that the test relies on).
template <typename F>
bool PollUntil(F condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// An endpoint whose previous secret ends at `end` (0: no rotation).
config::EndpointConfig Endpoint(const std::string& name, int64_t end) {
  config::EndpointConfig e;
  e.name = name;
  e.secrets.emplace_back("new");
  if (end != 0) e.secrets.emplace_back("old", end);
  return e;
}

config::Config With(std::initializer_list<config::EndpointConfig> endpoints) {
  config::Config c;
  c.endpoints = endpoints;
  return c;
}

}  // namespace

TEST_CASE("rotation watch: an end in the future records nothing; past it, one row per endpoint", "[cli][rotation]") {
  FakeStates states;
  FakeClock clock(kT0);
  cli::RotationWatch watch(states, clock);
  watch.Watch(With({Endpoint("payments", kT0 + kHour), Endpoint("orders", kT0 + 2 * kHour), Endpoint("plain", 0)}));
  // A flush: an endpoint already past its end is recorded in the same sweep that
  // looks at the others, so once it is, the others were looked at and left.
  watch.Watch(With({Endpoint("payments", kT0 + kHour), Endpoint("orders", kT0 + 2 * kHour), Endpoint("flush", kT0)}));
  REQUIRE(PollUntil([&] { return states.Calls("flush") == 1; }));
  CHECK(states.Calls("payments") == 0);
  CHECK(states.Calls("orders") == 0);

  clock.Advance(2 * kHour);
  REQUIRE(PollUntil([&] { return states.Calls("payments") == 1 && states.Calls("orders") == 1; }));
  CHECK(states.AllOnlyAfterRotation());
  CHECK_THAT(states.LastActor(), Catch::StartsWith("serve:"));  // serve:<host>: which replica saw it
  CHECK_THAT(states.LastReason(), Catch::StartsWith("the previous secret's window ended at 2026-12-10T0"));
  CHECK(states.LastNow() == kT0 + 2 * kHour);
  // Recorded ends are dropped: another sweep does not record them again.
  clock.Advance(kHour);
  watch.Watch(With({Endpoint("flush2", kT0)}));
  REQUIRE(PollUntil([&] { return states.Calls("flush2") == 1; }));
  CHECK(states.Calls("payments") == 1);
  CHECK(states.Calls("orders") == 1);
  CHECK(states.Calls("flush") == 1);
}

TEST_CASE("rotation watch: Watch replaces the ends watched before", "[cli][rotation]") {
  FakeStates states;
  FakeClock clock(kT0);
  cli::RotationWatch watch(states, clock);
  watch.Watch(With({Endpoint("payments", kT0 + kHour)}));
  watch.Watch(With({Endpoint("orders", kT0 + kHour)}));  // a reload: payments' rotation retired meanwhile
  clock.Advance(2 * kHour);
  REQUIRE(PollUntil([&] { return states.Calls("orders") == 1; }));
  watch.Watch(With({Endpoint("flush", kT0)}));
  REQUIRE(PollUntil([&] { return states.Calls("flush") == 1; }));
  CHECK(states.Calls("payments") == 0);
}

TEST_CASE("rotation watch: an end whose row could not be written stays and is recorded later", "[cli][rotation]") {
  FakeStates states;
  states.Fail(true);
  FakeClock clock(kT0 + kHour);
  cli::RotationWatch watch(states, clock);
  watch.Watch(With({Endpoint("payments", kT0)}));
  REQUIRE(PollUntil([&] { return states.Failures() == 1; }));
  CHECK(states.Calls("payments") == 0);
  states.Fail(false);
  // No new Watch: the end stayed, and the thread tries again after its retry pause (5 s).
  REQUIRE(PollUntil([&] { return states.Calls("payments") == 1; }));
  CHECK(states.Failures() == 1);
}

TEST_CASE("rotation watch: the destructor stops the thread promptly, asleep or watching", "[cli][rotation]") {
  FakeStates states;
  FakeClock clock(kT0);
  for (bool watching : {false, true}) {
    INFO(watching);
    auto watch = std::make_unique<cli::RotationWatch>(states, clock);
    if (watching) watch->Watch(With({Endpoint("payments", kT0 + 24 * kHour)}));
    const auto started = std::chrono::steady_clock::now();
    watch.reset();
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(500));
  }
}
