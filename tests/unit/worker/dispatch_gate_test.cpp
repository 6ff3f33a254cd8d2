// The circuit breaker, the rate limit and the dispatch gate that joins them
// with the paused set: pure, time passed in.
#include "worker/dispatch_gate.h"

#include <catch2/catch.hpp>

namespace hookinbox::worker {
namespace {

using store::BreakerState;

action::Outcome Refused() {
  action::Outcome o;
  o.verdict = action::Verdict::kTransient;
  o.no_answer = action::NoAnswer::kNotSent;
  o.error = "connect: connection refused";
  return o;
}

action::Outcome Answered(int status, action::Verdict verdict) {
  action::Outcome o;
  o.verdict = verdict;
  o.http_status = status;
  return o;
}

TEST_CASE("breaker: what counts as the downstream being down", "[worker]") {
  CHECK(CountsAgainstBreaker(Refused()));
  action::Outcome timed_out;
  timed_out.verdict = action::Verdict::kUnknown;
  timed_out.no_answer = action::NoAnswer::kTimedOut;
  CHECK(CountsAgainstBreaker(timed_out));
  CHECK(CountsAgainstBreaker(Answered(503, action::Verdict::kTransient)));
  CHECK(CountsAgainstBreaker(Answered(500, action::Verdict::kTransient)));
  // An answer below 500 means the downstream is up, whatever it thought of the event.
  CHECK_FALSE(CountsAgainstBreaker(Answered(429, action::Verdict::kTransient)));
  CHECK_FALSE(CountsAgainstBreaker(Answered(400, action::Verdict::kPermanent)));
  CHECK_FALSE(CountsAgainstBreaker(Answered(200, action::Verdict::kSuccess)));
  action::Outcome exit75;
  exit75.verdict = action::Verdict::kTransient;
  exit75.exit_code = 75;
  CHECK_FALSE(CountsAgainstBreaker(exit75));
}

TEST_CASE("breaker: opens after N consecutive failures; a success in between starts over", "[worker]") {
  Breaker b(3, 1000);
  CHECK_FALSE(b.Finished(1, true, "e", 0));
  CHECK_FALSE(b.Finished(2, true, "e", 0));
  CHECK_FALSE(b.Finished(3, false, "", 0));  // reset
  CHECK_FALSE(b.Finished(4, true, "e", 0));
  CHECK_FALSE(b.Finished(5, true, "e", 0));
  CHECK(b.state() == BreakerState::kClosed);
  CHECK(b.Capacity(0) == std::nullopt);
  auto opened = b.Finished(6, true, "connect: refused", 100);
  REQUIRE(opened);
  CHECK(opened->from == BreakerState::kClosed);
  CHECK(opened->to == BreakerState::kOpen);
  CHECK(opened->failures == 3);
  CHECK(opened->next_probe_at_ms == 1100);
  CHECK(opened->last_error == "connect: refused");
  CHECK(b.Capacity(1099) == 0);
  CHECK(b.NextChangeAt(100) == 1100);
  // Once the trial is due, no timed wake-up: a due event or a freed slot wakes the worker.
  CHECK(b.NextChangeAt(1100) == std::nullopt);
}

TEST_CASE("breaker: one trial at a growing interval decides; success closes", "[worker]") {
  Breaker b(1, 1000);
  REQUIRE(b.Finished(1, true, "e", 0));  // open, trial at 1000
  CHECK_FALSE(b.Leased(2, 999));         // not a trial yet (a lease of an attempt begun before)
  CHECK(b.Capacity(1000) == 1);
  auto trial = b.Leased(3, 1000);
  REQUIRE(trial);
  CHECK(trial->to == BreakerState::kHalfOpen);
  CHECK(b.Capacity(1000) == 1);  // the trial itself, counted in flight
  CHECK_FALSE(b.Finished(2, true, "old", 1001));  // an attempt begun before the breaker opened
  auto again = b.Finished(3, true, "e", 1500);    // the trial failed: interval doubles
  REQUIRE(again);
  CHECK(again->from == BreakerState::kHalfOpen);
  CHECK(again->to == BreakerState::kOpen);
  CHECK(again->next_probe_at_ms == 3500);
  REQUIRE(b.Leased(4, 3500));
  REQUIRE(b.Finished(4, true, "e", 3500));
  CHECK(b.NextChangeAt(3500) == 3500 + 4000);
  REQUIRE(b.Leased(5, 7500));
  auto closed = b.Finished(5, false, "", 7600);
  REQUIRE(closed);
  CHECK(closed->to == BreakerState::kClosed);
  CHECK(b.Capacity(7600) == std::nullopt);
  // The interval starts over after closing.
  REQUIRE(b.Finished(6, true, "e", 8000));
  CHECK(b.NextChangeAt(8000) == 9000);
}

TEST_CASE("breaker: the interval grows to ten minutes at most", "[worker]") {
  Breaker b(1, 1000);
  int64_t now = 0;
  REQUIRE(b.Finished(1, true, "e", now));
  for (int i = 0; i < 20; ++i) {
    now = *b.NextChangeAt(now);
    REQUIRE(b.Leased(100 + i, now));
    REQUIRE(b.Finished(100 + i, true, "e", now));
  }
  CHECK(*b.NextChangeAt(now) - now == 600000);
}

TEST_CASE("breaker: a trial whose lease was lost gives its place to the next event at once", "[worker]") {
  Breaker b(1, 1000);
  REQUIRE(b.Finished(1, true, "e", 0));
  REQUIRE(b.Leased(2, 1000));
  CHECK_FALSE(b.Abandoned(7, 1200));  // not the trial
  auto back = b.Abandoned(2, 1200);
  REQUIRE(back);
  CHECK(back->to == BreakerState::kOpen);
  CHECK(b.Capacity(1200) == 1);
}

TEST_CASE("breaker: a success of an attempt begun before it opened closes it", "[worker]") {
  Breaker b(1, 1000);
  REQUIRE(b.Finished(1, true, "e", 0));
  auto closed = b.Finished(2, false, "", 10);
  REQUIRE(closed);
  CHECK(closed->from == BreakerState::kOpen);
  CHECK(b.state() == BreakerState::kClosed);
}

TEST_CASE("breaker: 0 failures never opens", "[worker]") {
  Breaker b(0, 1000);
  for (int i = 0; i < 100; ++i) CHECK_FALSE(b.Finished(i, true, "e", i));
  CHECK(b.state() == BreakerState::kClosed);
}

TEST_CASE("rate limit: a fifth of a second's burst, then the steady rate", "[worker]") {
  RateLimit r(50, 0);
  CHECK(r.Available(0) == 10);
  for (int i = 0; i < 10; ++i) r.Take(0);
  CHECK(r.Available(0) == 0);
  CHECK(r.NextTokenAt(0) == 20);  // 50/s: one every 20 ms
  CHECK(r.Available(19) == 0);
  CHECK(r.Available(20) == 1);
  CHECK(r.Available(100000) == 10);  // never more than the burst
  // Leases over 10 s take at most burst + 10 s × rate.
  RateLimit steady(50, 0);
  int taken = 0;
  for (int64_t t = 0; t <= 10000; ++t) {
    while (steady.Available(t) > 0) {
      steady.Take(t);
      ++taken;
    }
  }
  CHECK(taken >= 10 + 499);
  CHECK(taken <= 10 + 500);
}

TEST_CASE("rate limit: one per second at least a burst of one; a clock step back adds nothing", "[worker]") {
  RateLimit r(1, 5000);
  CHECK(r.Available(5000) == 1);
  r.Take(5000);
  CHECK(r.Available(4000) == 0);
  CHECK(r.NextTokenAt(5000) == 6000);
  // Concurrent leases may overshoot by one: the debt is paid first.
  r.Take(5000);
  CHECK(r.Available(6999) == 0);
  CHECK(r.Available(7000) == 1);
}

config::Config TwoEndpoints() {
  config::Config c;
  config::EndpointConfig a;
  a.name = "crm";
  a.action.type = "http";
  a.action.url = "http://127.0.0.1:1/";
  a.action.breaker_failures = 2;
  a.action.breaker_probe_seconds = 1;
  a.action.max_per_second = 5;
  config::EndpointConfig b = a;
  b.name = "shop";
  b.action.breaker_failures = 0;
  b.action.max_per_second = 0;
  config::EndpointConfig audit;
  audit.name = "audit";  // no action: nothing to gate
  c.endpoints = {a, b, audit};
  return c;
}

TEST_CASE("dispatch gate: paused, breaker and rate limit each hold an endpoint", "[worker]") {
  DispatchGate g(TwoEndpoints(), 0);
  CHECK(g.MayLease("crm", 0, 0, 0));
  CHECK(g.MayLease("shop", 0, 0, 0));
  // Rate limit: a burst of 1 at 5/s, and a pending claim counts against it.
  CHECK_FALSE(g.MayLease("crm", 0, 1, 0));
  g.Leased("crm", 1, 0);
  CHECK_FALSE(g.MayLease("crm", 0, 0, 0));
  CHECK(g.NextChangeAt(0) == 200);
  CHECK(g.MayLease("crm", 0, 0, 200));
  // Paused: held whatever else says, and its times do not wake anybody.
  g.SetPaused({"crm"});
  CHECK(g.Paused("crm"));
  CHECK_FALSE(g.MayLease("crm", 0, 0, 10000));
  CHECK(g.NextChangeAt(0) == std::nullopt);
  g.SetPaused({});
  CHECK(g.MayLease("crm", 0, 0, 10000));
  // Breaker: two failures open it; held until the trial time; one trial at a time.
  CHECK_FALSE(g.Finished("crm", 1, true, "e", 10000));
  auto opened = g.Finished("crm", 2, true, "e", 10000);
  REQUIRE(opened);
  CHECK_FALSE(g.MayLease("crm", 0, 0, 10999));
  CHECK(g.NextChangeAt(10000) == 11000);
  CHECK(g.NextChangeAt(11000) == std::nullopt);  // due: nothing to wait for
  CHECK(g.MayLease("crm", 0, 0, 11000));
  CHECK_FALSE(g.MayLease("crm", 1, 0, 11000));  // an attempt still running takes the trial's place
  REQUIRE(g.Leased("crm", 3, 11000));
  CHECK_FALSE(g.MayLease("crm", 1, 0, 11000));
  REQUIRE(g.Finished("crm", 3, false, "", 11100));
  CHECK(g.MayLease("crm", 0, 0, 11300));
  // No breaker configured: never held by failures.
  for (int i = 0; i < 10; ++i) CHECK_FALSE(g.Finished("shop", 100 + i, true, "e", 0));
  CHECK(g.MayLease("shop", 0, 5, 0));
}

// Opens "crm"'s breaker (two failures at `now`).
void OpenCrm(DispatchGate& g, int64_t now) {
  CHECK_FALSE(g.Finished("crm", 1, true, "e", now));
  REQUIRE(g.Finished("crm", 2, true, "e", now));
  REQUIRE_FALSE(g.BreakerClosed("crm", now));
}

TEST_CASE("dispatch gate: a reload with the same breaker settings keeps an open breaker open", "[worker]") {
  DispatchGate g(TwoEndpoints(), 0);
  OpenCrm(g, 0);
  config::Config next = TwoEndpoints();
  next.endpoints[0].action.url = "http://127.0.0.1:2/";  // another change to the endpoint
  next.endpoints[0].action.concurrency = 3;
  CHECK(g.Reconfigure(next, 10).empty());
  CHECK_FALSE(g.BreakerClosed("crm", 10));
  CHECK_FALSE(g.MayLease("crm", 0, 0, 999));
  CHECK(g.NextChangeAt(10) == 1000);  // still its trial time
}

TEST_CASE("dispatch gate: changed breaker settings start a fresh breaker, reported closed", "[worker]") {
  DispatchGate g(TwoEndpoints(), 0);
  OpenCrm(g, 0);
  config::Config next = TwoEndpoints();
  next.endpoints[0].action.breaker_probe_seconds = 5;
  auto resets = g.Reconfigure(next, 10);
  REQUIRE(resets.size() == 1);
  CHECK(resets[0].first == "crm");
  CHECK(resets[0].second.from == BreakerState::kOpen);
  CHECK(resets[0].second.to == BreakerState::kClosed);
  CHECK(g.BreakerClosed("crm", 10));
  // The fresh breaker has the new settings: two failures open it, 5 s to the trial.
  CHECK_FALSE(g.Finished("crm", 3, true, "e", 20));
  auto opened = g.Finished("crm", 4, true, "e", 20);
  REQUIRE(opened);
  CHECK(opened->next_probe_at_ms == 5020);
  // breaker_failures = 0 drops it: never held by failures.
  next.endpoints[0].action.breaker_failures = 0;
  CHECK(g.Reconfigure(next, 30).size() == 1);
  for (int i = 0; i < 5; ++i) CHECK_FALSE(g.Finished("crm", 10 + i, true, "e", 30));
  CHECK(g.BreakerClosed("crm", 30));
}

TEST_CASE("dispatch gate: a rate limit keeps its tokens unless max_per_second changed", "[worker]") {
  DispatchGate g(TwoEndpoints(), 0);
  g.Leased("crm", 1, 0);  // the burst of one is spent
  CHECK_FALSE(g.MayLease("crm", 0, 0, 0));
  config::Config same = TwoEndpoints();
  same.endpoints[0].action.breaker_failures = 3;  // the breaker changes, not the limit
  g.Reconfigure(same, 0);
  CHECK_FALSE(g.MayLease("crm", 0, 0, 0));
  CHECK(g.NextChangeAt(0) == 200);
  config::Config faster = same;
  faster.endpoints[0].action.max_per_second = 10;
  g.Reconfigure(faster, 0);
  CHECK(g.MayLease("crm", 0, 0, 0));  // a fresh bucket starts full
  faster.endpoints[0].action.max_per_second = 0;
  g.Reconfigure(faster, 0);
  CHECK(g.MayLease("crm", 0, 100, 0));  // no limit any more
}

TEST_CASE("dispatch gate: new endpoints get a breaker and a limit; removed ones are dropped", "[worker]") {
  config::Config start = TwoEndpoints();
  start.endpoints.erase(start.endpoints.begin());  // no "crm" yet
  DispatchGate g(start, 0);
  g.SetPaused({"shop"});
  g.Reconfigure(TwoEndpoints(), 0);
  g.Leased("crm", 1, 0);
  CHECK_FALSE(g.MayLease("crm", 0, 0, 0));  // its rate limit
  OpenCrm(g, 0);
  CHECK(g.Paused("shop"));  // the paused set is not the config's
  // "crm" removed while its attempts run (its breaker open): they end on
  // the gate without an effect.
  auto resets = g.Reconfigure(start, 10);
  REQUIRE(resets.size() == 1);
  CHECK(resets[0].first == "crm");
  CHECK_FALSE(g.Finished("crm", 5, false, "", 20));
  CHECK_FALSE(g.Abandoned("crm", 6, 20));
  CHECK_FALSE(g.Leased("crm", 7, 20));
  CHECK(g.NextChangeAt(20) == std::nullopt);
  CHECK(g.Paused("shop"));
  // An endpoint that lost its action (kept in the config) is dropped too.
  config::Config no_action = TwoEndpoints();
  no_action.endpoints[0].action.type.clear();
  g.Reconfigure(TwoEndpoints(), 30);
  OpenCrm(g, 30);
  CHECK(g.Reconfigure(no_action, 40).size() == 1);
  CHECK(g.BreakerClosed("crm", 40));
}

}  // namespace
}  // namespace hookinbox::worker
