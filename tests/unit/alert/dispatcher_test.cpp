// alert/dispatcher: the outbox is sent once, retried with backoff, given up
// after a day; a channel that is down never holds up a check.
#include <catch2/catch.hpp>

#include <future>
#include <map>

#include "alert/dispatcher.h"
#include "alert/engine.h"
#include "fakes.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764662400000;
constexpr int64_t kSec = 1000;
constexpr int64_t kHour = 3600 * kSec;

store::PlannedMessages Messages(std::vector<std::string> channels) {
  alert::Notification n;
  n.kind = alert::NotificationKind::kStart;
  n.title = "payments: 2 dead letters";
  n.condition = "dead_letters";
  n.endpoint = "payments";
  store::PlannedMessages m;
  m.channels = std::move(channels);
  m.start_message = alert::NotificationToJson(n);
  n.kind = alert::NotificationKind::kResolved;
  n.title = "payments: resolved";
  m.resolved_message = alert::NotificationToJson(n);
  return m;
}

struct Rig {
  FakeClock clock{kT0};
  FakeIncidents incidents;
  FakeChannel* ops = nullptr;  // owned by the dispatcher
  std::map<std::string, FakeChannel*> channels;  // every one, by name
  std::unique_ptr<alert::Dispatcher> dispatcher;

  explicit Rig(std::vector<std::string> names = {"ops"}) {
    std::vector<std::unique_ptr<alert::Channel>> owned;
    for (const auto& name : names) {
      auto channel = std::make_unique<FakeChannel>(name);
      channels[name] = channel.get();
      owned.push_back(std::move(channel));
    }
    ops = channels.count("ops") ? channels["ops"] : nullptr;
    alert::DispatcherOptions o;
    o.idle_poll_ms = 50;
    dispatcher = std::make_unique<alert::Dispatcher>(incidents, std::move(owned), clock, o);
  }
  void Open(std::vector<std::string> channels = {"ops"}, const std::string& endpoint = "payments") {
    REQUIRE(incidents.ObserveCondition({"dead_letters", endpoint, "2 dead letters", 2}, Messages(channels),
                                       clock.NowMs())
                .ok());
  }
};

}  // namespace

TEST_CASE("dispatcher: the wait doubles from 30 s to 1 h and ends after 24 h", "[alert][dispatcher]") {
  alert::DispatcherOptions o;
  CHECK(alert::NextTryAt(o, 1, kT0, kT0) == kT0 + 30 * kSec);
  CHECK(alert::NextTryAt(o, 2, kT0, kT0) == kT0 + 60 * kSec);
  CHECK(alert::NextTryAt(o, 3, kT0, kT0) == kT0 + 120 * kSec);
  CHECK(alert::NextTryAt(o, 8, kT0, kT0) == kT0 + kHour);  // 30 s × 2^7 = 3840 s, capped at 1 h
  CHECK(alert::NextTryAt(o, 40, kT0, kT0) == kT0 + kHour);
  CHECK(alert::NextTryAt(o, 40, kT0, kT0 + 23 * kHour) == kT0 + 24 * kHour);
  CHECK_FALSE(alert::NextTryAt(o, 40, kT0, kT0 + 23 * kHour + 1).has_value());
}

TEST_CASE("dispatcher: a queued message is sent once, with its incident id", "[alert][dispatcher]") {
  Rig rig;
  rig.Open();
  CHECK(rig.dispatcher->RunOnce() == 1);
  CHECK(rig.dispatcher->RunOnce() == 0);
  REQUIRE(rig.ops->Sent().size() == 1);
  CHECK(rig.ops->Sent()[0].incident_id == 1);
  CHECK(rig.ops->Sent()[0].title == "payments: 2 dead letters");
  CHECK(rig.incidents.Rows()[0].status == "sent");
}

TEST_CASE("dispatcher: a failing channel is retried with backoff, then given up after 24 h", "[alert][dispatcher]") {
  Rig rig;
  rig.ops->SetStatus(Unavailable("slack: HTTP 503"));
  rig.Open();
  CHECK(rig.dispatcher->RunOnce() == 1);
  CHECK(rig.dispatcher->RunOnce() == 0);  // not due again yet
  std::vector<int64_t> waits;
  int64_t last_try = rig.clock.NowMs();
  while (rig.incidents.Rows()[0].status == "pending") {
    const int64_t due = rig.incidents.Rows()[0].due_at_ms;
    rig.clock.Advance(due - rig.clock.NowMs() - 1);
    REQUIRE(rig.dispatcher->RunOnce() == 0);  // a millisecond early: nothing
    rig.clock.Advance(1);
    REQUIRE(rig.dispatcher->RunOnce() == 1);
    waits.push_back(rig.clock.NowMs() - last_try);
    last_try = rig.clock.NowMs();
  }
  const FakeRow row = rig.incidents.Rows()[0];
  CHECK(row.status == "failed");
  CHECK(row.last_error == "slack: HTTP 503");
  REQUIRE(waits.size() >= 8);
  CHECK(waits[0] == 30 * kSec);
  CHECK(waits[1] == 60 * kSec);
  CHECK(waits[2] == 120 * kSec);
  CHECK(waits.back() == kHour);
  CHECK(last_try - kT0 <= 24 * kHour);
  CHECK(rig.ops->calls() == static_cast<int>(waits.size()) + 1);
  rig.clock.Advance(10 * kHour);
  CHECK(rig.dispatcher->RunOnce() == 0);  // never again
}

TEST_CASE("dispatcher: a message for a channel the config no longer has fails at once, saying so",
          "[alert][dispatcher]") {
  Rig rig;
  rig.Open({"pager"});
  CHECK(rig.dispatcher->RunOnce() == 1);
  const FakeRow row = rig.incidents.Rows()[0];
  CHECK(row.status == "failed");
  CHECK_THAT(row.last_error, Catch::Contains("no channel named 'pager'"));
  CHECK(rig.ops->calls() == 0);
}

TEST_CASE("dispatcher: an unreadable stored message fails without a send", "[alert][dispatcher]") {
  Rig rig;
  store::PlannedMessages m = Messages({"ops"});
  m.start_message = "{not json";
  REQUIRE(rig.incidents.ObserveCondition({"unknown", "payments", "x", 1}, m, kT0).ok());
  CHECK(rig.dispatcher->RunOnce() == 1);
  CHECK(rig.incidents.Rows()[0].status == "failed");
  CHECK(rig.ops->calls() == 0);
}

TEST_CASE("dispatcher: a channel that hangs never blocks the engine's checks", "[alert][dispatcher]") {
  Rig rig;
  FakeSignals signals;
  config::Config c;
  config::EndpointConfig payments;
  payments.name = "payments";
  c.endpoints.push_back(payments);
  config::AlertChannelConfig ops;
  ops.name = "ops";
  c.alert.channels.push_back(ops);
  alert::EngineSources s;
  s.signals = &signals;
  s.incidents = &rig.incidents;
  s.clock = &rig.clock;
  s.on_queued = [&] { rig.dispatcher->Wake(); };
  alert::Engine engine(s, c);

  rig.ops->Block();
  rig.dispatcher->Start();
  signals.endpoints["payments"].dead_lettered = 1;
  REQUIRE(engine.CheckOnce().ok());
  REQUIRE(PollUntilTrue([&] { return rig.ops->InSend(); }));  // the dispatcher is stuck in the channel

  // Further checks finish while the send hangs: a new incident opens and is queued.
  signals.endpoints["payments"].unknown = 1;
  auto check = std::async(std::launch::async, [&] { return engine.CheckOnce(); });
  REQUIRE(check.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  auto r = check.get();
  REQUIRE(r.ok());
  CHECK(r->opened == 1);
  CHECK(rig.incidents.Rows().size() == 2);

  rig.ops->Release();  // the channel is back: both go out, once each
  REQUIRE(PollUntilTrue([&] { return rig.ops->Sent().size() == 2; }));
  rig.dispatcher->Stop();
  CHECK(rig.ops->calls() == 2);
}

TEST_CASE("dispatcher: Stop waits for the send in progress only; the rows not reached stay pending, unleased",
          "[alert][dispatcher]") {
  Rig rig;
  for (const char* endpoint : {"payments", "orders", "crm"}) {
    REQUIRE(rig.incidents.ObserveCondition({"dead_letters", endpoint, "2 dead letters", 2}, Messages({"ops"}),
                                           rig.clock.NowMs())
                .ok());
  }
  rig.ops->Block();
  rig.dispatcher->Start();
  REQUIRE(PollUntilTrue([&] { return rig.ops->InSend(); }));  // the first of the three leased rows
  auto stopped = std::async(std::launch::async, [&] { rig.dispatcher->Stop(); });
  // Stop is waiting for that send (a channel's timeout at most), then for nothing else.
  CHECK(stopped.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
  rig.ops->Release();
  REQUIRE(stopped.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(rig.ops->calls() == 1);
  const auto rows = rig.incidents.Rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].status == "sent");
  CHECK(rows[1].status == "pending");  // one row is leased at a time: the next sender takes these at once
  CHECK(rows[1].lease_until_ms == 0);
  CHECK(rows[2].status == "pending");
  CHECK(rows[2].lease_until_ms == 0);
}

TEST_CASE("dispatcher: a resolved message waits for its started message that is backing off; both go out in order",
          "[alert][dispatcher]") {
  Rig rig;
  rig.ops->SetStatus(Unavailable("slack: HTTP 503"));
  rig.Open();
  CHECK(rig.dispatcher->RunOnce() == 1);  // the start fails: due again in 30 s
  rig.clock.Advance(kSec);
  REQUIRE(rig.incidents.ResolveCondition("dead_letters", "payments", Messages({"ops"}), rig.clock.NowMs()).ok());
  REQUIRE(rig.incidents.Kinds() ==
          std::vector<std::string>{"start:dead_letters:payments@ops", "resolved:dead_letters:payments@ops"});
  rig.clock.Advance(kSec);
  CHECK(rig.dispatcher->RunOnce() == 0);  // due, but behind the start
  CHECK(rig.ops->calls() == 1);

  rig.ops->SetStatus(Status::Ok());
  rig.clock.Advance(28 * kSec);
  CHECK(rig.dispatcher->RunOnce() == 2);
  const auto sent = rig.ops->Sent();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].kind == alert::NotificationKind::kStart);
  CHECK(sent[1].kind == alert::NotificationKind::kResolved);
}

TEST_CASE("dispatcher: a failing channel is tried once per pass; the other channel's rows all go out in that pass",
          "[alert][dispatcher]") {
  Rig rig({"ops", "pager"});
  FakeChannel* pager = rig.channels["pager"];
  pager->SetStatus(Unavailable("webhook: Connection"));  // as a channel that timed out answers
  for (const char* endpoint : {"payments", "orders", "crm"}) rig.Open({"pager", "ops"}, endpoint);

  CHECK(rig.dispatcher->RunOnce() == 4);
  CHECK(pager->calls() == 1);
  CHECK(rig.ops->Sent().size() == 3);
  const auto calls = rig.incidents.LeaseCalls();
  REQUIRE(calls.size() == 5);  // 4 rows and the empty answer
  for (const auto& c : calls) CHECK(c.limit == 1);
  CHECK(calls[0].excluded_channels.empty());
  CHECK(calls[1].excluded_channels == std::vector<std::string>{"pager"});
  CHECK(calls[4].excluded_channels == std::vector<std::string>{"pager"});

  // Each later pass tries the failing channel once more (the next due row), then passes it by.
  CHECK(rig.dispatcher->RunOnce() == 1);
  CHECK(pager->calls() == 2);
  CHECK(rig.dispatcher->RunOnce() == 1);
  CHECK(rig.dispatcher->RunOnce() == 0);  // every pager row now waits for its retry time
  CHECK(pager->calls() == 3);
  CHECK(rig.ops->calls() == 3);
}

TEST_CASE("dispatcher: a row is leased alone, for long enough for the slowest channel's timeout",
          "[alert][dispatcher]") {
  alert::DispatcherOptions o;
  CHECK(alert::LeaseMsFor(o, 10) == 5 * 60 * kSec);
  CHECK(alert::LeaseMsFor(o, 80) == 5 * 60 * kSec);  // 3 × 80 s + 60 s = 5 min
  CHECK(alert::LeaseMsFor(o, 81) == 303 * kSec);
  CHECK(alert::LeaseMsFor(o, 300) == 960 * kSec);

  Rig rig;
  rig.Open();
  CHECK(rig.dispatcher->RunOnce() == 1);
  std::vector<std::unique_ptr<alert::Channel>> reloaded;
  reloaded.push_back(std::make_unique<FakeChannel>("ops", 10));
  reloaded.push_back(std::make_unique<FakeChannel>("slow", 300));
  rig.dispatcher->SetChannels(std::move(reloaded));
  rig.Open({"ops"}, "orders");
  CHECK(rig.dispatcher->RunOnce() == 1);
  const auto calls = rig.incidents.LeaseCalls();
  REQUIRE(calls.size() == 4);
  CHECK(calls[0].limit == 1);
  CHECK(calls[0].lease_ms == 5 * 60 * kSec);
  CHECK(calls[2].limit == 1);
  CHECK(calls[2].lease_ms == 960 * kSec);
}

TEST_CASE("dispatcher: a send that outlasted its lease does not record over the sender that leased the row since",
          "[alert][dispatcher]") {
  Rig rig;
  rig.Open();
  std::optional<store::PendingNotification> other;
  rig.ops->on_send = [&] {
    if (other) return;
    rig.clock.Advance(5 * 60 * kSec);  // the lease lapses while the channel is slow…
    // …and another replica leases the row.
    auto leased = rig.incidents.LeaseNotifications(1, 60 * kSec, rig.clock.NowMs(), {});
    REQUIRE(leased.ok());
    REQUIRE(leased->size() == 1);
    other = leased->front();
  };
  CHECK(rig.dispatcher->RunOnce() == 1);
  FakeRow row = rig.incidents.Rows()[0];
  CHECK(row.status == "pending");  // the Conflict is logged (alert_record_failed); the other sender records
  CHECK(row.pending.attempts == 0);
  CHECK(row.lease_until_ms == other->lease_until_ms);
  REQUIRE(rig.incidents.FinishNotification(*other, true, "", std::nullopt, rig.clock.NowMs()).ok());
  CHECK(rig.incidents.Rows()[0].status == "sent");
}

TEST_CASE("dispatcher: a send whose outcome could not be recorded goes out again once its lease lapses",
          "[alert][dispatcher]") {
  Rig rig;
  rig.Open();
  rig.incidents.fail_finish = true;
  CHECK(rig.dispatcher->RunOnce() == 1);  // sent; alert_record_failed is logged
  CHECK(rig.ops->Sent().size() == 1);
  CHECK(rig.incidents.Rows()[0].status == "pending");
  rig.incidents.fail_finish = false;
  rig.clock.Advance(5 * 60 * kSec - 1);
  CHECK(rig.dispatcher->RunOnce() == 0);  // still leased
  rig.clock.Advance(1);
  CHECK(rig.dispatcher->RunOnce() == 1);
  CHECK(rig.ops->Sent().size() == 2);  // at least once: a second copy, never none
  CHECK(rig.incidents.Rows()[0].status == "sent");
}
