// store/endpoint_states: pause and resume with their audit rows, refusals
// that change nothing, the breaker's record beside a pause, and two stores
// on one database (two replicas, or the CLI beside the server).
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::BreakerState;

namespace {

constexpr int64_t kT0 = 1764511200000;

struct StatesFixture : StoreFixture {
  store::EndpointStates& states() { return *store; }

  std::vector<std::string> Paused() {
    auto r = states().PausedEndpoints();
    REQUIRE(r.ok());
    return *r;
  }
  store::EndpointState StateOf(const std::string& endpoint) {
    auto list = states().ListEndpointStates();
    REQUIRE(list.ok());
    for (const auto& s : *list) {
      if (s.endpoint == endpoint) return s;
    }
    FAIL("no row for " << endpoint);
    return {};
  }
  // The audit rows, oldest first, as "endpoint|actor|action|reason".
  std::string Actions() const {
    return Joined("SELECT endpoint || '|' || actor || '|' || action || '|' || coalesce(reason, '') || '|' || at"
                  " FROM endpoint_actions ORDER BY id",
                  ";");
  }
  // Every row of both tables, to compare before and after a refusal.
  std::string Everything() const {
    return Actions() + "#" +
           Joined("SELECT endpoint || '|' || coalesce(paused_at, 0) || '|' || breaker || '|' || updated_at"
                  " FROM endpoint_states ORDER BY endpoint",
                  ";");
  }
};

store::BreakerRecord Breaker(const std::string& endpoint, BreakerState state, int failures, int64_t at) {
  store::BreakerRecord r;
  r.endpoint = endpoint;
  r.state = state;
  r.failures = failures;
  r.at_ms = at;
  return r;
}

}  // namespace

TEST_CASE("endpoint states: a fresh database has no rows and nothing paused", "[store][endpoints]") {
  StatesFixture f;
  auto list = f.states().ListEndpointStates();
  REQUIRE(list.ok());
  CHECK(list->empty());
  CHECK(f.Paused().empty());
}

TEST_CASE("endpoint states: pause records who, why and since when; resume clears it; each writes one audit row",
          "[store][endpoints]") {
  StatesFixture f;
  auto paused = f.states().SetPaused("crm", true, "cli:alice", "CRM maintenance", kT0);
  REQUIRE(paused.ok());
  CHECK(*paused);
  CHECK(f.Paused() == std::vector<std::string>{"crm"});
  store::EndpointState s = f.StateOf("crm");
  CHECK(s.paused());
  CHECK(*s.paused_at_ms == kT0);
  CHECK(s.paused_by == "cli:alice");
  CHECK(s.paused_reason == "CRM maintenance");
  CHECK(s.breaker == BreakerState::kClosed);
  CHECK(f.Actions() == "crm|cli:alice|pause|CRM maintenance|" + std::to_string(kT0));

  auto resumed = f.states().SetPaused("crm", false, "admin:127.0.0.1", "", kT0 + 10);
  REQUIRE(resumed.ok());
  CHECK(*resumed);
  CHECK(f.Paused().empty());
  s = f.StateOf("crm");
  CHECK_FALSE(s.paused());
  CHECK(s.paused_by.empty());
  CHECK(s.paused_reason.empty());
  CHECK(f.Count("SELECT updated_at FROM endpoint_states WHERE endpoint = 'crm'") == kT0 + 10);
  CHECK(f.Actions() == "crm|cli:alice|pause|CRM maintenance|" + std::to_string(kT0) + ";crm|admin:127.0.0.1|resume||" +
                           std::to_string(kT0 + 10));
  CHECK(f.Count("SELECT count(*) FROM endpoint_actions WHERE reason IS NULL") == 1);  // no reason: NULL, not ''
}

TEST_CASE("endpoint states: pausing a paused endpoint or resuming a running one returns false and writes nothing",
          "[store][endpoints]") {
  StatesFixture f;
  SECTION("resume of an endpoint never paused creates no row") {
    auto r = f.states().SetPaused("crm", false, "cli:alice", "", kT0);
    REQUIRE(r.ok());
    CHECK_FALSE(*r);
    CHECK(f.Count("SELECT count(*) FROM endpoint_states") == 0);
    CHECK(f.Count("SELECT count(*) FROM endpoint_actions") == 0);
  }
  SECTION("a second pause keeps the first one's who, why and since") {
    REQUIRE(*f.states().SetPaused("crm", true, "cli:alice", "first", kT0));
    const std::string before = f.Everything();
    auto r = f.states().SetPaused("crm", true, "cli:bob", "second", kT0 + 5);
    REQUIRE(r.ok());
    CHECK_FALSE(*r);
    CHECK(f.Everything() == before);
    CHECK(f.StateOf("crm").paused_by == "cli:alice");
  }
  SECTION("a second resume") {
    REQUIRE(*f.states().SetPaused("crm", true, "cli:alice", "", kT0));
    REQUIRE(*f.states().SetPaused("crm", false, "cli:alice", "", kT0 + 1));
    const std::string before = f.Everything();
    auto r = f.states().SetPaused("crm", false, "cli:alice", "", kT0 + 2);
    REQUIRE(r.ok());
    CHECK_FALSE(*r);
    CHECK(f.Everything() == before);
  }
}

TEST_CASE("endpoint states: bad arguments are refused and change nothing", "[store][endpoints]") {
  StatesFixture f;
  CHECK(f.states().SetPaused("", true, "cli:alice", "", kT0).status().code() == Code::kInvalidArgument);
  CHECK(f.states().SetPaused("crm", true, "", "", kT0).status().code() == Code::kInvalidArgument);
  auto too_long = f.states().SetPaused("crm", true, "cli:alice", std::string(1025, 'x'), kT0);
  CHECK(too_long.status().code() == Code::kInvalidArgument);
  CHECK(too_long.status().message().find("1024") != std::string::npos);
  auto not_utf8 = f.states().SetPaused("crm", true, "cli:alice", "caf\xe9", kT0);
  CHECK(not_utf8.status().code() == Code::kInvalidArgument);
  CHECK(f.states().RecordBreaker(Breaker("", BreakerState::kOpen, 5, kT0)).code() == Code::kInvalidArgument);
  CHECK(f.Everything() == "#");
}

TEST_CASE("endpoint states: a failing commit pauses nothing", "[store][endpoints]") {
  StatesFixture f;
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  auto r = f.states().SetPaused("crm", true, "cli:alice", "", kT0);
  CHECK(r.status().code() == Code::kUnavailable);
  CHECK(r.status().message().find("pause endpoint") != std::string::npos);
  f.store->writer().SetCommitHookForTest(nullptr);
  CHECK(f.Everything() == "#");
  CHECK(f.Paused().empty());
}

TEST_CASE("endpoint states: the breaker's record changes only the breaker columns", "[store][endpoints]") {
  StatesFixture f;
  auto open = Breaker("crm", BreakerState::kOpen, 5, kT0);
  open.next_probe_at_ms = kT0 + 30000;
  open.last_error = "connect: connection refused";
  REQUIRE(f.states().RecordBreaker(open).ok());
  store::EndpointState s = f.StateOf("crm");
  CHECK_FALSE(s.paused());
  CHECK(s.breaker == BreakerState::kOpen);
  CHECK(s.breaker_failures == 5);
  CHECK(*s.breaker_changed_at_ms == kT0);
  CHECK(*s.breaker_next_probe_at_ms == kT0 + 30000);
  CHECK(s.breaker_last_error == "connect: connection refused");
  CHECK(f.Count("SELECT count(*) FROM endpoint_actions") == 0);  // the breaker is not an operator's action

  REQUIRE(*f.states().SetPaused("crm", true, "cli:alice", "stop it", kT0 + 1));
  REQUIRE(f.states().RecordBreaker(Breaker("crm", BreakerState::kHalfOpen, 5, kT0 + 2)).ok());
  s = f.StateOf("crm");
  CHECK(s.breaker == BreakerState::kHalfOpen);
  CHECK_FALSE(s.breaker_next_probe_at_ms.has_value());
  CHECK(s.breaker_last_error.empty());
  CHECK(*s.paused_at_ms == kT0 + 1);  // the pause is untouched
  CHECK(s.paused_by == "cli:alice");
  CHECK(s.paused_reason == "stop it");

  REQUIRE(*f.states().SetPaused("crm", false, "cli:alice", "", kT0 + 3));
  s = f.StateOf("crm");
  CHECK(s.breaker == BreakerState::kHalfOpen);  // a resume leaves the breaker to the worker
  CHECK(f.Text("SELECT breaker FROM endpoint_states") == "half_open");
}

TEST_CASE("endpoint states: a long error is cut to 1024 bytes of valid UTF-8", "[store][endpoints]") {
  StatesFixture f;
  auto open = Breaker("crm", BreakerState::kOpen, 3, kT0);
  open.last_error = std::string(1023, 'e') + "\xc3\xa9" + "tail";  // the cut falls inside "é"
  REQUIRE(f.states().RecordBreaker(open).ok());
  const std::string stored = f.StateOf("crm").breaker_last_error;
  CHECK(stored.substr(0, 1023) == std::string(1023, 'e'));
  CHECK(stored.find("tail") == std::string::npos);
  CHECK(stored.size() <= 1023 + 3);  // the split character became one U+FFFD
}

TEST_CASE("endpoint states: names round-trip through their stored text", "[store][endpoints]") {
  for (BreakerState s : {BreakerState::kClosed, BreakerState::kOpen, BreakerState::kHalfOpen}) {
    CHECK(store::BreakerStateFromName(store::BreakerStateName(s)) == s);
  }
  CHECK(std::string(store::BreakerStateName(BreakerState::kHalfOpen)) == "half_open");
  CHECK_FALSE(store::BreakerStateFromName("half-open").has_value());
}

TEST_CASE("endpoint states: a pause through one store is seen by another on the same database, and concurrent "
          "pauses record one",
          "[store][endpoints]") {
  StatesFixture f;
  auto other = f.database.OpenStore(2000, 64);  // a second replica, or the CLI beside the server
  std::atomic<int> won{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      store::EndpointStates& s = (i % 2 == 0) ? static_cast<store::EndpointStates&>(*f.store) : *other;
      auto r = s.SetPaused("crm", true, "cli:user" + std::to_string(i), "", kT0 + i);
      if (r.ok() && *r) ++won;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(won == 1);
  CHECK(f.Count("SELECT count(*) FROM endpoint_actions") == 1);
  auto seen = other->PausedEndpoints();
  REQUIRE(seen.ok());
  CHECK(*seen == std::vector<std::string>{"crm"});
  REQUIRE(*other->SetPaused("crm", false, "cli:bob", "", kT0 + 10));
  CHECK(f.Paused().empty());
}
