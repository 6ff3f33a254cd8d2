// alert/digest: the local day it covers (TZ respected), once a day, and its
// words against seeded figures.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <ctime>

#include "alert/digest.h"
#include "alert/engine.h"
#include "fakes.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

// Sets TZ for one test and puts the old value back.
class ScopedTz {
 public:
  explicit ScopedTz(const char* tz) {
    if (const char* old = std::getenv("TZ")) old_ = old;
    had_ = std::getenv("TZ") != nullptr;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~ScopedTz() {
    if (had_) {
      setenv("TZ", old_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  std::string old_;
  bool had_ = false;
};

// 2026-12-02 00:00 UTC.
constexpr int64_t kDec2Utc = 1796169600000;
constexpr int64_t kHour = 3600 * 1000;

}  // namespace

TEST_CASE("digest: due at digest_at local time for the local day before, once", "[alert][digest]") {
  ScopedTz tz("Europe/Berlin");  // UTC+1 in December
  alert::DigestSchedule s;
  const int64_t berlin_0759 = kDec2Utc + 7 * kHour - kHour + 59 * 60 * 1000;  // 07:59 in Berlin
  CHECK_FALSE(s.Due("08:00", berlin_0759).has_value());
  auto due = s.Due("08:00", berlin_0759 + 60 * 1000);
  REQUIRE(due.has_value());
  CHECK(due->day == "2026-12-01");
  CHECK(due->from_ms == kDec2Utc - 24 * kHour - kHour);  // Berlin midnight is 23:00 UTC
  CHECK(due->to_ms == kDec2Utc - kHour);
  s.Done(due->day);
  CHECK_FALSE(s.Due("08:00", berlin_0759 + 3 * kHour).has_value());
  auto next = s.Due("08:00", berlin_0759 + 24 * kHour + 60 * 1000);
  REQUIRE(next.has_value());
  CHECK(next->day == "2026-12-02");
}

TEST_CASE("digest: a day with a DST change is 23 or 25 hours long", "[alert][digest]") {
  ScopedTz tz("Europe/Berlin");
  // 2026-03-29 (clocks go forward): asked on the 30th at noon.
  const alert::LocalDay spring = alert::DayBefore(1774864800000);  // 2026-03-30 10:00 UTC
  CHECK(spring.day == "2026-03-29");
  CHECK(spring.to_ms - spring.from_ms == 23 * kHour);
}

TEST_CASE("digest: digest_at must be HH:MM", "[alert][digest]") {
  CHECK(alert::ParseTimeOfDay("08:00") == 480);
  CHECK(alert::ParseTimeOfDay("23:59") == 23 * 60 + 59);
  for (const char* bad : {"", "8:00", "24:00", "08:60", "08:00x", "ab:cd", "08-00"}) {
    CAPTURE(bad);
    CHECK_FALSE(alert::ParseTimeOfDay(bad).has_value());
  }
  alert::DigestSchedule s;
  CHECK_FALSE(s.Due("", kDec2Utc + 12 * kHour).has_value());
  CHECK_FALSE(s.Due("8am", kDec2Utc + 12 * kHour).has_value());
}

TEST_CASE("digest: the message states the seeded day's figures and incidents", "[alert][digest]") {
  alert::DigestInput in;
  in.day = {"2026-12-01", kDec2Utc - 24 * kHour, kDec2Utc};
  in.figures.received = 1250;
  in.figures.duplicates = 310;
  in.figures.rejected = 4;
  in.figures.events = 940;
  in.figures.completed = 930;
  in.figures.failed = 3;
  in.figures.waiting = 7;
  store::Incident open;
  open.summary = "payments: 3 dead letters";
  store::Incident resolved;
  resolved.summary = "shop: no delivery for 1 day";
  resolved.resolved_at_ms = kDec2Utc - kHour;
  in.open_now = {open};
  in.of_the_day = {open, resolved};
  in.ui_url = "https://inbox.example.com/admin";
  const alert::Notification n = alert::ComposeDigest(in);
  CHECK(n.kind == alert::NotificationKind::kDigest);
  CHECK(n.title == "hookinbox daily digest for 2026-12-01");
  CHECK_THAT(n.text, Catch::Contains("1250 deliveries received, 310 duplicates absorbed"));
  CHECK_THAT(n.text, Catch::Contains("4 requests refused"));
  CHECK_THAT(n.text, Catch::Contains("Of the 940 events that arrived: 930 processed, 3 failed"));
  CHECK_THAT(n.text, Catch::Contains("7 still waiting"));
  CHECK_THAT(n.text, Catch::Contains("1 incident is open now:\n- payments: 3 dead letters"));
  CHECK_THAT(n.text, Catch::Contains("That day 2 incidents started:"));
  CHECK_THAT(n.text, Catch::Contains("- shop: no delivery for 1 day (resolved)"));
  CHECK_THAT(n.text, Catch::Contains("https://inbox.example.com/admin"));
  CHECK(n.link == "https://inbox.example.com/admin");
  CHECK(n.facts.size() == 6);

  alert::DigestInput quiet;
  quiet.day = in.day;
  CHECK_THAT(alert::ComposeDigest(quiet).text, Catch::Contains("No incidents"));
}

TEST_CASE("digest: the engine queues it once a day, to digest_channel, with the store's figures",
          "[alert][digest]") {
  ScopedTz tz("UTC");
  FakeClock clock(kDec2Utc + 8 * kHour);
  FakeSignals signals;
  signals.day.received = 12;
  signals.day.completed = 11;
  FakeIncidents incidents;
  config::Config c;
  for (const char* name : {"ops", "owner"}) {
    config::AlertChannelConfig ch;
    ch.name = name;
    c.alert.channels.push_back(ch);
  }
  c.alert.digest_at = "08:00";
  c.alert.digest_channel = "owner";
  alert::EngineSources s;
  s.signals = &signals;
  s.incidents = &incidents;
  s.clock = &clock;
  alert::Engine engine(s, c);

  auto r = engine.CheckOnce();
  REQUIRE(r.ok());
  CHECK(r->digest_queued);
  CHECK(signals.day_from_ms == kDec2Utc - 24 * kHour);
  CHECK(signals.day_to_ms == kDec2Utc);
  REQUIRE(incidents.Kinds() == std::vector<std::string>{"digest@owner"});
  auto n = alert::NotificationFromJson(incidents.Rows()[0].pending.message);
  REQUIRE(n.ok());
  CHECK_THAT(n->text, Catch::Contains("12 deliveries received"));

  clock.Advance(kHour);
  CHECK_FALSE(engine.CheckOnce()->digest_queued);
  clock.Advance(23 * kHour);
  CHECK(engine.CheckOnce()->digest_queued);
  CHECK(incidents.Rows().size() == 2);
}

TEST_CASE("digest: a day another replica already queued is not queued again", "[alert][digest]") {
  ScopedTz tz("UTC");
  FakeClock clock(kDec2Utc + 9 * kHour);
  FakeSignals signals;
  FakeIncidents incidents;
  config::Config c;
  config::AlertChannelConfig ch;
  ch.name = "ops";
  c.alert.channels.push_back(ch);
  c.alert.digest_at = "08:00";
  REQUIRE(*incidents.QueueDigest("2026-12-01", {"ops"}, "{}", clock.NowMs()));  // the other replica
  alert::EngineSources s{&signals, &incidents, &clock, {}, {}, {}, {}};
  alert::Engine engine(s, c);
  CHECK_FALSE(engine.CheckOnce()->digest_queued);
  CHECK(incidents.Rows().size() == 1);
}
