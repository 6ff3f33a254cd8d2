// alert/engine: every condition opens an incident, reminds while it lasts and
// resolves, against the fakes with a FakeClock (no sleeps).
#include <catch2/catch.hpp>

#include <functional>

#include "alert/engine.h"
#include "fakes.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764662400000;  // 2025-12-02 08:00 UTC
constexpr int64_t kMin = 60 * 1000;
constexpr int64_t kHour = 60 * kMin;

config::Config TestConfig() {
  config::Config c;
  config::EndpointConfig payments;
  payments.name = "payments";
  payments.provider = "stripe";
  payments.action.type = "http";
  payments.alert.silence_ms = 24 * kHour;
  payments.secrets.push_back(Secret("whsec_do_not_leak"));
  c.endpoints.push_back(payments);
  config::AlertChannelConfig ops;
  ops.name = "ops";
  ops.type = "slack";
  ops.url = Secret("https://hooks.slack.test/T000/SECRETPATH");
  c.alert.channels.push_back(ops);
  c.alert.remind_every_ms = 4 * kHour;
  c.alert.ui_url = "https://inbox.example.com/admin";
  return c;
}

struct Rig {
  FakeClock clock{kT0};
  FakeSignals signals;
  FakeIncidents incidents;
  int64_t storage_total = 0;
  std::optional<int64_t> not_after;
  int wakes = 0;
  std::unique_ptr<alert::Engine> engine;

  explicit Rig(config::Config c = TestConfig()) {
    // A healthy, recently active endpoint: nothing holds.
    signals.endpoints["payments"].last_accepted_at_ms = kT0 - kMin;
    alert::EngineSources s;
    s.signals = &signals;
    s.incidents = &incidents;
    s.clock = &clock;
    s.lead_owner = "replica-a";
    s.storage_failures_total = [this] { return storage_total; };
    s.certificate_not_after_ms = [this] { return not_after; };
    s.on_queued = [this] { ++wakes; };
    engine = std::make_unique<alert::Engine>(s, std::move(c));
  }
  // Another replica's engine over the same database and clock (its 503s: none).
  std::unique_ptr<alert::Engine> Replica(const std::string& owner, config::Config c = TestConfig()) {
    alert::EngineSources s;
    s.signals = &signals;
    s.incidents = &incidents;
    s.clock = &clock;
    s.storage_failures_total = [] { return int64_t{0}; };
    s.lead_owner = owner;
    return std::make_unique<alert::Engine>(s, std::move(c));
  }
  store::EndpointSignals& payments() { return signals.endpoints["payments"]; }
  alert::CheckReport Check() {
    auto r = engine->CheckOnce();
    REQUIRE(r.ok());
    return *r;
  }
};

struct ConditionCase {
  const char* condition;
  const char* endpoint;
  std::function<void(Rig&, bool)> set;  // makes it hold (true) or not (false)
};

const std::vector<ConditionCase>& Cases() {
  static const std::vector<ConditionCase> cases = {
      {"dead_letters", "payments", [](Rig& r, bool on) { r.payments().dead_lettered = on ? 3 : 0; }},
      {"unknown", "payments", [](Rig& r, bool on) { r.payments().unknown = on ? 1 : 0; }},
      {"conflicts", "payments", [](Rig& r, bool on) { r.payments().conflicts = on ? 2 : 0; }},
      {"backlog_age", "payments",
       [](Rig& r, bool on) {
         r.payments().oldest_due_received_at_ms =
             on ? std::optional<int64_t>(r.clock.NowMs() - 20 * kMin) : std::optional<int64_t>(r.clock.NowMs());
       }},
      {"signature_failures", "payments", [](Rig& r, bool on) { r.payments().signature_failures = on ? 43 : 2; }},
      {"silence", "payments",
       [](Rig& r, bool on) { r.payments().last_accepted_at_ms = on ? std::nullopt : std::optional(r.clock.NowMs()); }},
      {"breaker_open", "payments",
       [](Rig& r, bool on) {
         r.payments().breaker_open_since_ms = on ? std::optional<int64_t>(kT0 - 11 * kMin) : std::nullopt;
       }},
      {"certificate_days", "",
       [](Rig& r, bool on) { r.not_after = r.clock.NowMs() + (on ? 3 : 60) * 24 * kHour; }},
      {"disk_free", "", [](Rig& r, bool on) { r.signals.installation.disk_free_bytes = on ? 1 << 20 : int64_t{50} << 30; }},
      {"storage_failures", "", [](Rig& r, bool on) { r.storage_total += on ? 5 : 0; }},
  };
  return cases;
}

}  // namespace

TEST_CASE("engine: each condition opens, reminds at remind_every, and resolves once", "[alert][engine]") {
  for (const ConditionCase& c : Cases()) {
    DYNAMIC_SECTION(c.condition) {
      Rig rig;
      rig.Check();  // a baseline check: nothing holds, nothing queued
      REQUIRE(rig.incidents.Rows().empty());
      const std::string what = std::string(c.condition) + ":" + c.endpoint + "@ops";

      c.set(rig, true);
      alert::CheckReport r = rig.Check();
      CHECK(r.opened == 1);
      CHECK(rig.wakes == 1);
      CHECK(rig.incidents.Kinds() == std::vector<std::string>{"start:" + what});

      rig.clock.Advance(kHour);  // holds still, before remind_every: nothing new
      c.set(rig, true);
      CHECK(rig.Check().opened == 0);
      CHECK(rig.incidents.Kinds().size() == 1);

      rig.clock.Advance(3 * kHour);  // remind_every since the start
      c.set(rig, true);
      CHECK(rig.Check().reminded == 1);
      CHECK(rig.incidents.Kinds().back() == "reminder:" + what);

      rig.clock.Advance(kMin);
      c.set(rig, false);
      if (std::string(c.condition) == "storage_failures") rig.clock.Advance(alert::kStorageWindowMs);
      CHECK(rig.Check().resolved == 1);
      CHECK(rig.incidents.Kinds() == std::vector<std::string>{"start:" + what, "reminder:" + what, "resolved:" + what});
      CHECK(rig.incidents.All().size() == 1);

      rig.clock.Advance(kMin);
      CHECK(rig.Check().resolved == 0);  // resolved once
      CHECK(rig.incidents.Rows().size() == 3);
    }
  }
}

TEST_CASE("engine: the signature message says what, where, how many and what to do", "[alert][engine]") {
  Rig rig;
  rig.payments().signature_failures = 43;
  rig.Check();
  auto rows = rig.incidents.Rows();
  REQUIRE(rows.size() == 1);
  auto n = alert::NotificationFromJson(rows[0].pending.message);
  REQUIRE(n.ok());
  CHECK(n->kind == alert::NotificationKind::kStart);
  CHECK(n->condition == "signature_failures");
  CHECK(n->endpoint == "payments");
  CHECK(n->link == "https://inbox.example.com/admin");
  CHECK_THAT(n->text, Catch::Contains("Stripe deliveries to 'payments' are being refused because their signature does "
                                      "not match: 43 in the last 5 minutes."));
  CHECK_THAT(n->text, Catch::Contains("If you rotated the signing secret at Stripe, update it here."));
}

TEST_CASE("engine: messages carry no secret and no channel URL", "[alert][engine]") {
  Rig rig;
  rig.Check();  // the 503 count's baseline
  for (const ConditionCase& c : Cases()) c.set(rig, true);
  rig.Check();
  REQUIRE(rig.incidents.Rows().size() == Cases().size());
  for (const FakeRow& row : rig.incidents.Rows()) {
    CHECK_THAT(row.pending.message, !Catch::Contains("whsec_do_not_leak"));
    CHECK_THAT(row.pending.message, !Catch::Contains("SECRETPATH"));
  }
}

TEST_CASE("engine: a threshold switched off judges nothing and closes its open incident", "[alert][engine]") {
  config::Config c = TestConfig();
  Rig rig(c);
  rig.payments().dead_lettered = 2;
  CHECK(rig.Check().opened == 1);

  c.endpoints[0].alert.dead_letters.reset();
  rig.engine->SetConfig(c);
  rig.clock.Advance(kMin);
  CHECK(rig.Check().resolved == 1);
  CHECK(rig.incidents.Kinds().back() == "resolved:dead_letters:payments@ops");
  rig.clock.Advance(kMin);
  CHECK(rig.Check().opened == 0);  // still 2 dead letters, but no longer watched
}

TEST_CASE("engine: a threshold above the figure does not hold", "[alert][engine]") {
  config::Config c = TestConfig();
  c.endpoints[0].alert.signature_failures = 50;
  Rig rig(c);
  rig.payments().signature_failures = 43;
  CHECK(rig.Check().holding == 0);
  rig.payments().signature_failures = 50;
  CHECK(rig.Check().opened == 1);
}

TEST_CASE("engine: an unreadable database skips the check and changes nothing", "[alert][engine]") {
  Rig rig;
  rig.payments().dead_lettered = 2;
  rig.Check();
  rig.signals.fail = true;
  rig.payments().dead_lettered = 0;
  rig.clock.Advance(kMin);
  auto r = rig.engine->CheckOnce();
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("database is locked"));
  CHECK(rig.incidents.All()[0].open());  // not resolved for want of figures
  CHECK(rig.incidents.Rows().size() == 1);
}

TEST_CASE("engine: a failing incident write is reported and the other findings still go through",
          "[alert][engine]") {
  Rig rig;
  rig.incidents.fail_writes = true;
  rig.incidents.write_error = Status(Code::kInternal, "fake: constraint failed");
  rig.payments().dead_lettered = 2;
  auto r = rig.engine->CheckOnce();
  REQUIRE(r.ok());
  CHECK(r->opened == 0);
  CHECK(rig.wakes == 0);
  rig.incidents.fail_writes = false;
  CHECK(rig.Check().opened == 1);
}

TEST_CASE("engine: the breaker counts from its first opening, not from its last half-open trial",
          "[alert][engine]") {
  Rig rig;
  rig.payments().breaker_open_since_ms = kT0;  // opened now
  CHECK(rig.Check().holding == 0);
  for (int i = 0; i < 9; ++i) {
    rig.clock.Advance(kMin);
    rig.payments().breaker_open_since_ms = rig.clock.NowMs();  // each trial rewrites breaker_changed_at
    rig.Check();
  }
  rig.clock.Advance(kMin);
  rig.payments().breaker_open_since_ms = rig.clock.NowMs();
  CHECK(rig.Check().opened == 1);  // open 10 minutes, the default breaker_open
  auto n = alert::NotificationFromJson(rig.incidents.Rows()[0].pending.message);
  REQUIRE(n.ok());
  CHECK_THAT(n->text, Catch::Contains("10 minutes ago"));
}

TEST_CASE("engine: silence is judged per endpoint from its own threshold, off where unset", "[alert][engine]") {
  config::Config c = TestConfig();
  config::EndpointConfig quiet = c.endpoints[0];
  quiet.name = "crm";
  quiet.alert.silence_ms.reset();
  c.endpoints.push_back(quiet);
  Rig rig(c);
  rig.payments().last_accepted_at_ms = kT0 - 25 * kHour;
  alert::CheckReport r = rig.Check();
  CHECK(r.opened == 1);  // payments (silence 24h); crm has no silence and never counts
  CHECK(rig.incidents.Kinds() == std::vector<std::string>{"start:silence:payments@ops"});
  CHECK(rig.signals.last_query.accepted_since_ms == kT0 - 24 * kHour);
}

TEST_CASE("engine: storage failures count the 503s of the last five minutes", "[alert][engine]") {
  Rig rig;
  rig.Check();
  rig.storage_total = 1;
  rig.clock.Advance(kMin);
  CHECK(rig.Check().opened == 1);
  rig.clock.Advance(kMin);
  CHECK(rig.Check().resolved == 0);  // the 503 is still within the window
  rig.clock.Advance(alert::kStorageWindowMs);
  CHECK(rig.Check().resolved == 1);
}

TEST_CASE("engine: Start checks on its own thread every check_every; Stop ends it", "[alert][engine]") {
  config::Config c = TestConfig();
  c.alert.check_every_ms = 100;
  Rig rig(c);
  rig.payments().dead_lettered = 1;
  rig.engine->Start();
  CHECK(PollUntilTrue([&] { return rig.incidents.Rows().size() == 1; }));
  rig.engine->Stop();
}

TEST_CASE("engine: storage failures are the 503s the receive path counted, over the configured endpoints",
          "[alert][engine]") {
  metrics::Registry registry;
  registry.Declare(metrics::kRejectedTotal, metrics::Type::kCounter, "refused", {"endpoint", "provider", "reason"});
  registry.Add(metrics::kRejectedTotal, {"payments", "stripe", "unavailable"}, 3);
  registry.Add(metrics::kRejectedTotal, {"payments", "stripe", "unauthenticated"}, 9);  // not a storage failure
  registry.Add(metrics::kRejectedTotal, {"gone", "generic", "unavailable"}, 5);         // no such endpoint now
  CHECK(alert::StorageFailuresTotal(registry, TestConfig()) == 3);
}

// --- One replica checks at a time (the alert lead) ---

TEST_CASE("engine: a replica without the alert lead does not evaluate; it takes over once the lease lapses",
          "[alert][engine][lead]") {
  Rig rig;
  REQUIRE(*rig.incidents.HoldAlertLead("replica-b", kT0, alert::LeadLeaseMs(TestConfig().alert)));
  rig.payments().dead_lettered = 2;
  alert::CheckReport r = rig.Check();
  CHECK_FALSE(r.leading);
  CHECK(r.findings == 0);
  CHECK(rig.signals.last_query.endpoints.empty());  // read nothing
  CHECK(rig.incidents.writes() == 0);
  CHECK(rig.incidents.All().empty());

  rig.clock.Advance(alert::LeadLeaseMs(TestConfig().alert) - 1);  // replica-b's lease still runs
  CHECK_FALSE(rig.Check().leading);
  rig.clock.Advance(1);  // lapsed: replica-b stopped renewing
  r = rig.Check();
  CHECK(r.leading);
  CHECK(r.opened == 1);
  CHECK(rig.incidents.lead_owner() == "replica-a");
  CHECK(rig.incidents.lead_until() == rig.clock.NowMs() + alert::LeadLeaseMs(TestConfig().alert));
}

TEST_CASE("engine: an engine that ends gives up the lead; one that never led leaves it alone", "[alert][engine][lead]") {
  Rig rig;
  auto b = rig.Replica("replica-b");
  rig.Check();
  CHECK_FALSE(b->CheckOnce()->leading);
  b.reset();
  CHECK(rig.incidents.lead_owner() == "replica-a");
  rig.engine.reset();
  CHECK(rig.incidents.lead_owner().empty());
}

TEST_CASE("engine: the lead's lease is 3 x check_every, at least a minute", "[alert][engine][lead]") {
  config::AlertConfig a;
  a.check_every_ms = 200;
  CHECK(alert::LeadLeaseMs(a) == kMin);
  a.check_every_ms = 5 * kMin;
  CHECK(alert::LeadLeaseMs(a) == 15 * kMin);
}

TEST_CASE("engine: two replicas — the leader checks, the other waits; each renews nothing it does not hold",
          "[alert][engine][lead]") {
  Rig rig;
  auto b = rig.Replica("replica-b");
  rig.payments().dead_lettered = 2;
  CHECK(rig.Check().opened == 1);
  for (int i = 0; i < 5; ++i) {
    rig.clock.Advance(30 * 1000);
    rig.payments().dead_lettered = 0;  // only the leader may resolve it
    auto rb = b->CheckOnce();
    REQUIRE(rb.ok());
    CHECK_FALSE(rb->leading);
    rig.payments().dead_lettered = 2;
    CHECK(rig.Check().leading);
  }
  CHECK(rig.incidents.All().size() == 1);
  CHECK(rig.incidents.All()[0].open());
  CHECK(rig.incidents.Kinds() == std::vector<std::string>{"start:dead_letters:payments@ops"});
}

TEST_CASE("engine: a new leader does not resolve a breaker incident it did not see open from the start",
          "[alert][engine][lead]") {
  Rig rig;
  rig.payments().breaker_open_since_ms = kT0 - 11 * kMin;
  CHECK(rig.Check().opened == 1);  // open 11 minutes: over breaker_open (10)
  // replica-a stops, its lease lapses; a half-open trial failed a minute ago,
  // rewriting breaker_changed_at, and replica-b never saw the breaker before.
  rig.clock.Advance(alert::LeadLeaseMs(TestConfig().alert));
  rig.payments().breaker_open_since_ms = rig.clock.NowMs() - kMin;
  auto b = rig.Replica("replica-b");
  auto r = b->CheckOnce();
  REQUIRE(r.ok());
  CHECK(r->leading);
  CHECK(r->holding == 1);
  CHECK(r->resolved == 0);
  CHECK(rig.incidents.All()[0].open());
  // The breaker closes: now it resolves.
  rig.clock.Advance(kMin);
  rig.payments().breaker_open_since_ms.reset();
  CHECK(b->CheckOnce()->resolved == 1);
}

TEST_CASE("engine: a new leader does not resolve the storage incident before it has counted a whole window",
          "[alert][engine][lead]") {
  Rig rig;
  rig.Check();
  rig.storage_total = 5;
  rig.clock.Advance(kMin);
  CHECK(rig.Check().opened == 1);
  rig.clock.Advance(alert::LeadLeaseMs(TestConfig().alert));  // replica-a stopped
  auto b = rig.Replica("replica-b");  // saw no 503 itself
  auto r = b->CheckOnce();
  REQUIRE(r.ok());
  CHECK(r->leading);
  CHECK(r->resolved == 0);
  rig.clock.Advance(alert::kStorageWindowMs);
  CHECK(b->CheckOnce()->resolved == 1);  // none in a whole window of its own
}

// --- Shutdown stays bounded; a quiet check writes nothing ---

TEST_CASE("engine: a Stop asked during a check ends it before the next write", "[alert][engine]") {
  Rig rig;
  rig.payments().dead_lettered = 2;
  rig.payments().unknown = 1;
  rig.payments().conflicts = 1;
  rig.incidents.on_write = [&] { rig.engine->Stop(); };
  alert::CheckReport r = rig.Check();
  CHECK(r.stopped);
  CHECK(rig.incidents.writes() == 1);
  CHECK(rig.incidents.All().size() == 1);
  CHECK(r.opened == 1);
  CHECK(rig.wakes == 1);  // what it queued still goes out
}

TEST_CASE("engine: the database answering Unavailable ends the check at once", "[alert][engine]") {
  Rig rig;
  rig.payments().dead_lettered = 2;
  rig.payments().unknown = 1;
  rig.payments().conflicts = 1;
  rig.incidents.fail_writes = true;  // Unavailable: database is locked
  auto r = rig.engine->CheckOnce();
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kUnavailable);
  CHECK(rig.incidents.writes() == 1);
  rig.incidents.fail_writes = false;
  rig.clock.Advance(kMin);
  CHECK(rig.Check().opened == 3);  // the next check does it all
}

TEST_CASE("engine: a lead that cannot be written skips the check", "[alert][engine][lead]") {
  Rig rig;
  rig.incidents.fail_lead = true;
  rig.payments().dead_lettered = 2;
  auto r = rig.engine->CheckOnce();
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kUnavailable);
  CHECK(rig.incidents.writes() == 0);
}

TEST_CASE("engine: a check with nothing open and nothing holding writes nothing", "[alert][engine]") {
  Rig rig;
  rig.Check();
  CHECK(rig.incidents.writes() == 0);  // every condition judged, none holds, none open
  rig.payments().dead_lettered = 2;
  rig.clock.Advance(kMin);
  CHECK(rig.Check().opened == 1);
  rig.payments().dead_lettered = 0;
  rig.clock.Advance(kMin);
  CHECK(rig.Check().resolved == 1);
  const int after = rig.incidents.writes();
  CHECK(after == 2);  // one open, one resolve
  rig.clock.Advance(kMin);
  alert::CheckReport r = rig.Check();
  CHECK(r.findings > 5);
  CHECK(rig.incidents.writes() == after);
}
