// Exactly one effect per event, end to end: many deliveries with duplicates
// (some at the same moment), and SIGKILL at random moments while deliveries
// arrive and actions run. The downstream process deduplicates by
// Idempotency-Key the way Stripe does (downstream.h), so what it counts as
// "effects" is what a payment API would have charged.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;


struct Rig {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess downstream;
  Rig() {
    inst.WriteTestConfig(ForwardingConfig(inst, downstream.url()));
  }
  static std::string Body(int n) {
    return R"({"id":"evt_)" + std::to_string(n) + R"(","type":"invoice.paid","amount":)" + std::to_string(100 + n) +
           "}";
  }
  // One delivery as a provider sends it: "" when no answer came (the
  // provider would retry), else the answer's status field.
  std::string Deliver(int n) const {
    HttpResult r = server.PostSigned("/hooks/demo", Body(n));
    if (r.status != 200) return r.status == 0 ? "" : "HTTP " + std::to_string(r.status);
    return json::parse(r.body).value("status", "?");
  }
  int Count(const std::string& where) const {
    return std::stoi(inst.Sql("SELECT count(*) FROM webhook_inbox WHERE " + where));
  }
  // Every call the downstream applied, by idempotency key: effects per key.
  std::map<std::string, int> EffectsByKey() const {
    std::map<std::string, int> effects;
    for (const json& call : downstream.Calls())
      if (call.contains("effect")) ++effects[call["headers"].value("Idempotency-Key", "")];
    return effects;
  }
};

}  // namespace

TEST_CASE("exactly once: 1000 deliveries with 30% duplicates, some concurrent, give one effect per event",
          "[worker][exactly-once]") {
  Rig rig;
  rig.server.Start();

  // 700 events. 100 of them are delivered twice at the same moment, 200 are
  // delivered again later in the run: 700 + 100 + 200 = 1000 deliveries.
  struct Job {
    int event;
    int copies;  // sent at the same moment
  };
  std::vector<Job> jobs;
  for (int n = 0; n < 700; ++n) jobs.push_back({n, n < 100 ? 2 : 1});
  std::mt19937 rng(20261130);
  std::shuffle(jobs.begin(), jobs.end(), rng);
  for (int n = 100; n < 300; ++n) jobs.push_back({n, 1});  // late duplicates, while the worker runs

  std::atomic<size_t> next{0};
  std::mutex mu;
  std::map<std::string, int> answers;  // status → count
  auto sender = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      std::vector<std::future<std::string>> copies;
      for (int c = 0; c < jobs[i].copies; ++c)
        copies.push_back(std::async(std::launch::async, [&, n = jobs[i].event] { return rig.Deliver(n); }));
      for (auto& copy : copies) {
        std::string status = copy.get();
        std::lock_guard<std::mutex> lock(mu);
        ++answers[status];
      }
    }
  };
  std::vector<std::thread> senders;
  for (int t = 0; t < 8; ++t) senders.emplace_back(sender);
  for (auto& t : senders) t.join();

  INFO(json(answers).dump());
  CHECK(answers["accepted"] == 700);
  // A duplicate sees the original's state at that moment: received,
  // processing or completed — all answered 200 "duplicate".
  CHECK(answers["duplicate"] == 300);
  CHECK(answers.size() == 2);

  REQUIRE(PollUntil([&] { return rig.Count("status = 'completed'") == 700; }, 180s));
  CHECK(rig.Count("1 = 1") == 700);
  CHECK(rig.inst.Sql("SELECT count(*) FROM webhook_deliveries") == "1000");
  CHECK(rig.inst.Sql("SELECT count(DISTINCT result_ref) FROM webhook_inbox") == "700");

  const json stats = rig.downstream.Stats();
  INFO(stats.dump());
  CHECK(stats["effects"] == 700);
  CHECK(stats["mismatches"] == 0);
  const auto effects = rig.EffectsByKey();
  CHECK(effects.size() == 700);
  CHECK(std::all_of(effects.begin(), effects.end(), [](const auto& e) { return e.second == 1; }));
  // Each event's effect carried its own body, unchanged.
  std::set<std::string> bodies;
  for (const json& call : rig.downstream.Calls())
    if (call.contains("effect")) bodies.insert(call["body"].get<std::string>());
  CHECK(bodies.size() == 700);
  CHECK(bodies.count(Rig::Body(0)) == 1);
  CHECK(bodies.count(Rig::Body(699)) == 1);
}

TEST_CASE("exactly once: SIGKILL at random moments, 20 times, loses nothing and doubles nothing",
          "[worker][exactly-once]") {
  Rig rig;
  // Each effect takes a while, so kills land while actions are in flight.
  rig.downstream.Default(json{{"status", 200}, {"delay_ms", 40}});
  const unsigned seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  constexpr int kRounds = 20, kPerRound = 10;
  std::set<int> unanswered;  // deliveries whose answer was lost: the provider sends them again

  for (int round = 0; round < kRounds; ++round) {
    INFO("round " << round);
    rig.server.Start();
    // The provider's retries of what went unanswered before the last crash.
    for (auto it = unanswered.begin(); it != unanswered.end();) {
      const std::string status = rig.Deliver(*it);
      CHECK((status == "accepted" || status == "duplicate"));
      it = unanswered.erase(it);
    }
    // This round's deliveries arrive while the kill comes: the moment is the
    // arrival of a random call at the downstream (some rounds kill the
    // process between answers and effects, some mid-delivery, some idle).
    std::vector<int> round_events;
    for (int i = 0; i < kPerRound; ++i) round_events.push_back(round * kPerRound + i);
    std::thread provider([&] {
      for (int n : round_events) {
        const std::string status = rig.Deliver(n);
        if (status != "accepted" && status != "duplicate") unanswered.insert(n);
      }
    });
    const int calls_before = rig.downstream.Stats()["calls"].get<int>();
    const int wait_for = std::uniform_int_distribution<int>(0, kPerRound)(rng);
    PollUntil([&] { return rig.downstream.Stats()["calls"].get<int>() >= calls_before + wait_for; }, 10s);
    rig.server.Kill(SIGKILL);
    provider.join();
    CHECK(rig.server.WaitExit() == 128 + SIGKILL);
  }

  // The last start: unanswered deliveries are sent again, everything drains.
  rig.server.Start();
  for (int n : unanswered) {
    const std::string status = rig.Deliver(n);
    CHECK((status == "accepted" || status == "duplicate"));
  }
  const int events = kRounds * kPerRound;
  REQUIRE(PollUntil([&] { return rig.Count("status = 'completed'") == events; }, 180s));
  CHECK(rig.Count("1 = 1") == events);

  const json stats = rig.downstream.Stats();
  INFO(stats.dump());
  CHECK(stats["effects"] == events);
  CHECK(stats["mismatches"] == 0);
  const auto effects = rig.EffectsByKey();
  CHECK(effects.size() == static_cast<size_t>(events));
  CHECK(std::all_of(effects.begin(), effects.end(), [](const auto& e) { return e.second == 1; }));
  // The kills did hit actions in flight: some attempts were lost and redone,
  // and the redo was answered from the downstream's saved result.
  CHECK(std::stoi(rig.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE outcome = 'lost'")) > 0);
  CHECK(stats["replays"].get<int>() + stats["in_use"].get<int>() > 0);
  // Every event's result_ref is the one effect the downstream applied for it.
  CHECK(rig.inst.Sql("SELECT count(DISTINCT result_ref) FROM webhook_inbox WHERE result_ref LIKE 'eff_%'") ==
        std::to_string(events));
}

}  // namespace hookinbox::testing
