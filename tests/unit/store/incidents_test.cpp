// store/incidents: open, update, remind and resolve an incident with the
// messages each change queues; acknowledge and mute; the digest once per day
// and channel; the outbox lease (a lapsed lease is leased again) and its
// outcomes; and, on one database shared by two stores (two replicas), one
// incident and one start row per channel however many threads observe at
// once, and no row leased twice. Runs on SQLite and on PostgreSQL.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "store/incidents.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::IncidentChange;

namespace {

constexpr int64_t kT0 = 1764511200000;
constexpr int64_t kHour = 3600000;

store::Observation Dead(int64_t count, const std::string& endpoint = "crm") {
  return {"dead_letters", endpoint, endpoint + ": " + std::to_string(count) + " dead letters", count};
}

store::PlannedMessages Planned(int64_t remind_every_ms = 0) {
  store::PlannedMessages m;
  m.channels = {"ops-mail", "ops-slack"};
  m.start_message = R"({"kind":"start"})";
  m.reminder_message = R"({"kind":"reminder"})";
  m.resolved_message = R"({"kind":"resolved"})";
  m.remind_every_ms = remind_every_ms;
  return m;
}

struct IncidentsFixture : StoreFixture {
  // "kind:status" of every notification row, in id order.
  std::string Rows() const {
    return Joined("SELECT kind || ':' || channel || ':' || status FROM alert_notifications ORDER BY id");
  }
  int64_t Open(const store::Observation& o, const store::PlannedMessages& m, int64_t at) {
    auto r = store->ObserveCondition(o, m, at);
    REQUIRE(r.ok());
    return r->incident.id;
  }
};

}  // namespace

TEST_CASE("incidents: the first observation opens an incident and queues one start message per channel",
          "[store][incidents]") {
  IncidentsFixture f;
  auto r = f.store->ObserveCondition(Dead(3), Planned(), kT0);
  REQUIRE(r.ok());
  CHECK(r->change == IncidentChange::kOpened);
  CHECK(r->incident.open());
  CHECK(r->incident.condition == "dead_letters");
  CHECK(r->incident.endpoint == "crm");
  CHECK(r->incident.count == 3);
  CHECK(r->incident.observations == 1);
  CHECK(r->incident.opened_at_ms == kT0);
  CHECK(r->incident.last_notified_at_ms == kT0);
  CHECK(f.Rows() == "start:ops-mail:pending,start:ops-slack:pending");
  CHECK(f.Text("SELECT message FROM alert_notifications ORDER BY id LIMIT 1") == R"({"kind":"start"})");
}

TEST_CASE(
    "incidents: later observations update the open incident and queue nothing; reminders come at most "
    "every remind_every",
    "[store][incidents]") {
  IncidentsFixture f;
  const int64_t id = f.Open(Dead(3), Planned(2 * kHour), kT0);
  auto r = f.store->ObserveCondition(Dead(5), Planned(2 * kHour), kT0 + kHour);
  REQUIRE(r.ok());
  CHECK(r->change == IncidentChange::kNone);
  CHECK(r->incident.id == id);
  CHECK(r->incident.count == 5);
  CHECK(r->incident.observations == 2);
  CHECK(r->incident.last_seen_at_ms == kT0 + kHour);
  CHECK(r->incident.summary == "crm: 5 dead letters");
  CHECK(f.Count("SELECT count(*) FROM alert_notifications") == 2);

  r = f.store->ObserveCondition(Dead(6), Planned(2 * kHour), kT0 + 2 * kHour);
  REQUIRE(r.ok());
  CHECK(r->change == IncidentChange::kReminded);
  CHECK(r->incident.last_notified_at_ms == kT0 + 2 * kHour);
  CHECK(f.Count("SELECT count(*) FROM alert_notifications WHERE kind = 'reminder'") == 2);
  // The next reminder counts from this one.
  r = f.store->ObserveCondition(Dead(6), Planned(2 * kHour), kT0 + 3 * kHour);
  REQUIRE(r.ok());
  CHECK(r->change == IncidentChange::kNone);
  SECTION("without remind_every there are no reminders") {
    r = f.store->ObserveCondition(Dead(6), Planned(0), kT0 + 30 * kHour);
    REQUIRE(r.ok());
    CHECK(r->change == IncidentChange::kNone);
  }
  CHECK(f.Count("SELECT count(*) FROM alerts") == 1);
}

TEST_CASE("incidents: an acknowledged or muted incident gets no reminders", "[store][incidents]") {
  IncidentsFixture f;
  const int64_t id = f.Open(Dead(1), Planned(kHour), kT0);
  SECTION("acknowledged") {
    auto acked = f.store->AcknowledgeIncident(id, "admin:alice", kT0 + 1);
    REQUIRE(acked.ok());
    CHECK(*acked);
  }
  SECTION("muted") { REQUIRE(f.store->MuteIncident(id, kT0 + 10 * kHour, "admin:alice", kT0 + 1).ok()); }
  auto r = f.store->ObserveCondition(Dead(2), Planned(kHour), kT0 + 5 * kHour);
  REQUIRE(r.ok());
  CHECK(r->change == IncidentChange::kNone);
  CHECK(f.Count("SELECT count(*) FROM alert_notifications WHERE kind = 'reminder'") == 0);
}

TEST_CASE("incidents: resolving queues the resolved messages; a muted one records them as suppressed",
          "[store][incidents]") {
  IncidentsFixture f;
  const int64_t id = f.Open(Dead(1), Planned(), kT0);
  bool muted = false;
  SECTION("not muted") {}
  SECTION("muted") {
    muted = true;
    REQUIRE(f.store->MuteIncident(id, kT0 + kHour, "admin:alice", kT0 + 1).ok());
  }
  auto r = f.store->ResolveCondition("dead_letters", "crm", Planned(), kT0 + 60000);
  REQUIRE(r.ok());
  REQUIRE(r->has_value());
  CHECK((*r)->id == id);
  CHECK((*r)->resolved_at_ms == kT0 + 60000);
  const std::string status = muted ? "suppressed" : "pending";
  CHECK(f.Rows() ==
        "start:ops-mail:pending,start:ops-slack:pending,resolved:ops-mail:" + status + ",resolved:ops-slack:" + status);
  CHECK((*r)->last_notified_at_ms == (muted ? kT0 : kT0 + 60000));
  // Nothing open any more: resolving again changes nothing; observing again opens a new one.
  auto again = f.store->ResolveCondition("dead_letters", "crm", Planned(), kT0 + 70000);
  REQUIRE(again.ok());
  CHECK_FALSE(again->has_value());
  auto reopened = f.store->ObserveCondition(Dead(1), Planned(), kT0 + 80000);
  REQUIRE(reopened.ok());
  CHECK(reopened->change == IncidentChange::kOpened);
  CHECK(reopened->incident.id != id);
}

TEST_CASE("incidents: each (condition, endpoint) is its own incident; '' is the whole installation",
          "[store][incidents]") {
  IncidentsFixture f;
  const int64_t a = f.Open(Dead(1, "crm"), Planned(), kT0);
  const int64_t b = f.Open(Dead(1, "shop"), Planned(), kT0);
  const int64_t c = f.Open({"disk_free", "", "disk 3% free", 3}, Planned(), kT0);
  CHECK(a != b);
  CHECK(b != c);
  CHECK(f.Count("SELECT count(*) FROM alerts WHERE resolved_at IS NULL") == 3);
  CHECK(f.Text("SELECT endpoint FROM alerts WHERE id = " + std::to_string(c)) == "");
}

TEST_CASE("incidents: list shows open ones, with all also those resolved since a time; get and notifications",
          "[store][incidents]") {
  IncidentsFixture f;
  const int64_t old_one = f.Open(Dead(1, "old"), Planned(), kT0);
  REQUIRE(f.store->ResolveCondition("dead_letters", "old", Planned(), kT0 + 1000).ok());
  const int64_t recent = f.Open(Dead(1, "recent"), Planned(), kT0 + 2000);
  REQUIRE(f.store->ResolveCondition("dead_letters", "recent", Planned(), kT0 + 5000).ok());
  const int64_t open = f.Open(Dead(1, "open"), Planned(), kT0 + 3000);

  auto listed = f.store->ListIncidents({});
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK(listed->front().id == open);

  store::IncidentQuery all;
  all.open_only = false;
  all.resolved_since_ms = kT0 + 4000;
  listed = f.store->ListIncidents(all);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 2);
  CHECK((*listed)[0].id == open);  // open ones first
  CHECK((*listed)[1].id == recent);
  CHECK(old_one != recent);

  auto got = f.store->GetIncident(recent);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->resolved_at_ms == kT0 + 5000);
  auto none = f.store->GetIncident(9999);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  auto records = f.store->NotificationsOf(recent);
  REQUIRE(records.ok());
  REQUIRE(records->size() == 4);
  CHECK((*records)[0].kind == "start");
  CHECK((*records)[0].channel == "ops-mail");
  CHECK((*records)[0].status == "pending");
  CHECK((*records)[3].kind == "resolved");
  CHECK((*records)[0].alert_id == recent);

  store::IncidentQuery bad;
  bad.limit = 0;
  CHECK(f.store->ListIncidents(bad).status().code() == Code::kInvalidArgument);
}

TEST_CASE("incidents: acknowledge once, then false changing nothing; mute and unmute; unknown ids are NotFound",
          "[store][incidents]") {
  IncidentsFixture f;
  const int64_t id = f.Open(Dead(1), Planned(), kT0);
  auto first = f.store->AcknowledgeIncident(id, "admin:alice", kT0 + 1);
  REQUIRE(first.ok());
  CHECK(*first);
  auto second = f.store->AcknowledgeIncident(id, "admin:bob", kT0 + 2);
  REQUIRE(second.ok());
  CHECK_FALSE(*second);
  auto got = f.store->GetIncident(id);
  REQUIRE(got.ok());
  CHECK((*got)->acked_by == "admin:alice");
  CHECK((*got)->acked_at_ms == kT0 + 1);

  REQUIRE(f.store->MuteIncident(id, kT0 + kHour, "admin:bob", kT0 + 3).ok());
  CHECK(f.Text("SELECT muted_by FROM alerts") == "admin:bob");
  CHECK((*f.store->GetIncident(id))->muted_until_ms == kT0 + kHour);
  REQUIRE(f.store->MuteIncident(id, 0, "admin:bob", kT0 + 4).ok());
  CHECK_FALSE((*f.store->GetIncident(id))->muted_until_ms.has_value());
  CHECK(f.Count("SELECT count(*) FROM alerts WHERE muted_by IS NULL") == 1);

  CHECK(f.store->AcknowledgeIncident(id + 100, "admin:alice", kT0).status().code() == Code::kNotFound);
  CHECK(f.store->MuteIncident(id + 100, kT0 + kHour, "admin:alice", kT0).code() == Code::kNotFound);
  // A time already past, or no actor, is refused and changes nothing.
  CHECK(f.store->MuteIncident(id, kT0, "admin:alice", kT0 + 5).code() == Code::kInvalidArgument);
  CHECK(f.store->AcknowledgeIncident(id, "", kT0).status().code() == Code::kInvalidArgument);
  CHECK(f.Count("SELECT count(*) FROM alerts WHERE muted_until IS NULL") == 1);
}

TEST_CASE("incidents: bad observations are refused and change nothing", "[store][incidents]") {
  IncidentsFixture f;
  CHECK(f.store->ObserveCondition({"", "crm", "x", 1}, Planned(), kT0).status().code() == Code::kInvalidArgument);
  CHECK(f.store->ObserveCondition({"dead_letters", std::string(300, 'e'), "x", 1}, Planned(), kT0).status().code() ==
        Code::kInvalidArgument);
  auto bad_channel = Planned();
  bad_channel.channels.push_back("");
  CHECK(f.store->ObserveCondition(Dead(1), bad_channel, kT0).status().code() == Code::kInvalidArgument);
  CHECK(f.store->ResolveCondition("", "crm", Planned(), kT0).status().code() == Code::kInvalidArgument);
  CHECK(f.Count("SELECT count(*) FROM alerts") == 0);
  CHECK(f.Count("SELECT count(*) FROM alert_notifications") == 0);
}

TEST_CASE("incidents: a day's digest is queued once per channel; a new channel still gets it", "[store][incidents]") {
  IncidentsFixture f;
  auto first = f.store->QueueDigest("2026-12-01", {"ops-mail"}, R"({"kind":"digest"})", kT0);
  REQUIRE(first.ok());
  CHECK(*first);
  auto again = f.store->QueueDigest("2026-12-01", {"ops-mail"}, R"({"kind":"digest"})", kT0 + 1);
  REQUIRE(again.ok());
  CHECK_FALSE(*again);
  auto more = f.store->QueueDigest("2026-12-01", {"ops-mail", "ops-slack"}, R"({"kind":"digest"})", kT0 + 2);
  REQUIRE(more.ok());
  CHECK(*more);
  auto next_day = f.store->QueueDigest("2026-12-02", {"ops-mail"}, R"({"kind":"digest"})", kT0 + 3);
  REQUIRE(next_day.ok());
  CHECK(*next_day);
  CHECK(f.Joined("SELECT digest_day || ':' || channel || ':' || kind FROM alert_notifications ORDER BY id") ==
        "2026-12-01:ops-mail:digest,2026-12-01:ops-slack:digest,2026-12-02:ops-mail:digest");
  CHECK(f.Count("SELECT count(*) FROM alert_notifications WHERE alert_id IS NULL") == 3);

  CHECK(f.store->QueueDigest("2026-12-1", {"ops-mail"}, "{}", kT0).status().code() == Code::kInvalidArgument);
  CHECK(f.store->QueueDigest("2026-12-03", {}, "{}", kT0).status().code() == Code::kInvalidArgument);
  CHECK(f.Count("SELECT count(*) FROM alert_notifications") == 3);
}

TEST_CASE("incidents: the alert lead is taken when free, renewed by its owner, refused to another until it lapses",
          "[store][incidents][lead]") {
  IncidentsFixture f;
  auto other = f.database.OpenStore(2000, 64);  // a second replica
  const int64_t lease = 60000;
  auto lead = [](store::Incidents& s, const std::string& owner, int64_t at, int64_t lease_ms) {
    auto r = s.HoldAlertLead(owner, at, lease_ms);
    REQUIRE(r.ok());
    return *r;
  };
  CHECK(lead(*f.store, "host-a:1", kT0, lease));  // free: taken
  CHECK(f.Text("SELECT owner || ':' || lease_until FROM alert_lead") == "host-a:1:" + std::to_string(kT0 + lease));
  CHECK_FALSE(lead(*other, "host-b:2", kT0 + 1, lease));  // held: refused, unchanged
  CHECK(f.Text("SELECT owner FROM alert_lead") == "host-a:1");
  CHECK(lead(*f.store, "host-a:1", kT0 + 30000, lease));  // renewed by its owner
  CHECK(f.Count("SELECT lease_until FROM alert_lead") == kT0 + 30000 + lease);
  CHECK_FALSE(lead(*other, "host-b:2", kT0 + 30000 + lease - 1, lease));  // a millisecond before it lapses
  CHECK(lead(*other, "host-b:2", kT0 + 30000 + lease, lease));            // lapsed: taken over
  CHECK(f.Text("SELECT owner FROM alert_lead") == "host-b:2");
  CHECK_FALSE(lead(*f.store, "host-a:1", kT0 + 30000 + lease + 1, lease));  // the old owner no longer leads
  CHECK(f.Count("SELECT count(*) FROM alert_lead") == 1);
  // Released by another owner: nothing; by its owner: free at once.
  REQUIRE(f.store->ReleaseAlertLead("host-a:1").ok());
  CHECK(f.Text("SELECT owner FROM alert_lead") == "host-b:2");
  REQUIRE(other->ReleaseAlertLead("host-b:2").ok());
  CHECK(f.Count("SELECT count(*) FROM alert_lead") == 0);
  CHECK(lead(*f.store, "host-a:1", kT0 + 30000 + lease + 2, lease));
}

TEST_CASE("incidents: a bad alert lead request is refused and changes nothing", "[store][incidents][lead]") {
  IncidentsFixture f;
  for (auto [owner, now, lease] : {std::tuple<std::string, int64_t, int64_t>{"", kT0, 60000},
                                   {std::string(300, 'x'), kT0, 60000},
                                   {"host:1", 0, 60000},
                                   {"host:1", kT0, 0}}) {
    auto r = f.store->HoldAlertLead(owner, now, lease);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK_THAT(r.status().message(), Catch::Contains("hold alert lead"));
  }
  CHECK(f.Count("SELECT count(*) FROM alert_lead") == 0);
}

TEST_CASE("incidents: two stores asking for the alert lead at once: exactly one leads", "[store][incidents][lead]") {
  IncidentsFixture f;
  auto other = f.database.OpenStore(2000, 64);
  std::atomic<int> led{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      store::Incidents& s = (i % 2 == 0) ? static_cast<store::Incidents&>(*f.store) : *other;
      auto r = s.HoldAlertLead("host:" + std::to_string(i), kT0, 60000);
      if (!r.ok()) ++failed;
      if (r.ok() && *r) ++led;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failed == 0);
  CHECK(led == 1);
}

TEST_CASE("incidents: the outbox leases due rows once; a lapsed lease is leased again; outcomes are recorded",
          "[store][incidents]") {
  IncidentsFixture f;
  const int64_t id = f.Open(Dead(1), Planned(), kT0);
  auto leased = f.store->LeaseNotifications(10, 30000, kT0, {});
  REQUIRE(leased.ok());
  REQUIRE(leased->size() == 2);
  CHECK((*leased)[0].alert_id == id);
  CHECK((*leased)[0].kind == "start");
  CHECK((*leased)[0].message == R"({"kind":"start"})");
  CHECK((*leased)[0].attempts == 0);
  CHECK((*leased)[0].created_at_ms == kT0);
  // Held: nobody else gets them until the lease lapses.
  auto held = f.store->LeaseNotifications(10, 30000, kT0 + 29999, {});
  REQUIRE(held.ok());
  CHECK(held->empty());

  CHECK((*leased)[0].lease_until_ms == kT0 + 30000);
  const int64_t mail = (*leased)[0].id, slack = (*leased)[1].id;
  REQUIRE(f.store->FinishNotification((*leased)[0], true, "", std::nullopt, kT0 + 10).ok());
  REQUIRE(f.store->FinishNotification((*leased)[1], false, "slack answered 500", kT0 + 60000, kT0 + 10).ok());
  CHECK(f.Joined("SELECT status || ':' || attempts || ':' || coalesce(last_error, '-') FROM alert_notifications"
                 " ORDER BY id") == "sent:1:-,pending:1:slack answered 500");
  CHECK(f.Count("SELECT sent_at FROM alert_notifications WHERE id = " + std::to_string(mail)) == kT0 + 10);

  // The retry is due at its time, not before.
  CHECK(f.store->LeaseNotifications(10, 30000, kT0 + 59999, {})->empty());
  auto retry = f.store->LeaseNotifications(10, 30000, kT0 + 60000, {});
  REQUIRE(retry.ok());
  REQUIRE(retry->size() == 1);
  CHECK(retry->front().attempts == 1);
  // The sender died: its lease lapses and the row is leased again.
  auto lapsed = f.store->LeaseNotifications(10, 30000, kT0 + 90000, {});
  REQUIRE(lapsed.ok());
  REQUIRE(lapsed->size() == 1);
  REQUIRE(f.store->FinishNotification(lapsed->front(), false, "still down", std::nullopt, kT0 + 90001).ok());
  CHECK(f.Text("SELECT status FROM alert_notifications WHERE id = " + std::to_string(slack)) == "failed");
  CHECK(f.store->LeaseNotifications(10, 30000, kT0 + 200000, {})->empty());

  CHECK(f.store->FinishNotification(lapsed->front(), true, "", std::nullopt, kT0).code() == Code::kConflict);
  store::PendingNotification unknown;
  unknown.id = 9999;
  CHECK(f.store->FinishNotification(unknown, true, "", std::nullopt, kT0).code() == Code::kNotFound);
  CHECK(f.store->LeaseNotifications(0, 30000, kT0, {}).status().code() == Code::kInvalidArgument);
  CHECK(f.store->LeaseNotifications(10, 0, kT0, {}).status().code() == Code::kInvalidArgument);
}

namespace {

// "kind:channel" of leased rows, in the order returned.
std::string Leased(const Result<std::vector<store::PendingNotification>>& r) {
  REQUIRE(r.ok());
  std::string out;
  for (const auto& p : *r) out += (out.empty() ? "" : ",") + p.kind + ":" + p.channel;
  return out;
}

}  // namespace

TEST_CASE(
    "incidents: a row waits while an older row about the same incident for the same channel is pending; "
    "other incidents, other channels and digests do not wait",
    "[store][incidents]") {
  IncidentsFixture f;
  f.Open(Dead(1), Planned(), kT0);
  auto first = f.store->LeaseNotifications(10, 30000, kT0, {});
  REQUIRE(first.ok());
  REQUIRE(first->size() == 2);
  REQUIRE(f.store->FinishNotification((*first)[0], true, "", std::nullopt, kT0 + 10).ok());
  // The slack start backs off for a minute.
  REQUIRE(f.store->FinishNotification((*first)[1], false, "slack answered 500", kT0 + 60000, kT0 + 10).ok());
  REQUIRE(f.store->ResolveCondition("dead_letters", "crm", Planned(), kT0 + 1000).ok());
  REQUIRE(f.store->QueueDigest("2026-12-01", {"ops-slack"}, R"({"kind":"digest"})", kT0 + 1000).ok());
  f.Open(Dead(1, "shop"), Planned(), kT0 + 1000);

  // The slack "resolved" is due but behind the slack "start".
  auto due = f.store->LeaseNotifications(10, 30000, kT0 + 2000, {});
  CHECK(Leased(due) == "resolved:ops-mail,digest:ops-slack,start:ops-mail,start:ops-slack");
  for (const auto& p : *due) REQUIRE(f.store->FinishNotification(p, true, "", std::nullopt, kT0 + 2001).ok());
  CHECK(Leased(f.store->LeaseNotifications(10, 30000, kT0 + 59999, {})).empty());

  // The start goes out first; only then the resolved.
  auto start = f.store->LeaseNotifications(10, 30000, kT0 + 60000, {});
  CHECK(Leased(start) == "start:ops-slack");
  REQUIRE(f.store->FinishNotification(start->front(), true, "", std::nullopt, kT0 + 60001).ok());
  CHECK(Leased(f.store->LeaseNotifications(10, 30000, kT0 + 60002, {})) == "resolved:ops-slack");
}

TEST_CASE("incidents: the outbox leases past the excluded channels; a bad excluded name is refused",
          "[store][incidents]") {
  IncidentsFixture f;
  REQUIRE(f.store->QueueDigest("2026-12-01", {"a", "b", "c", "d"}, "{}", kT0).ok());
  CHECK(Leased(f.store->LeaseNotifications(10, 30000, kT0, {"a", "c", "x"})) == "digest:b,digest:d");
  CHECK(Leased(f.store->LeaseNotifications(1, 30000, kT0, {"a"})) == "digest:c");
  CHECK(f.store->LeaseNotifications(10, 30000, kT0, {""}).status().code() == Code::kInvalidArgument);
  CHECK(f.store->LeaseNotifications(10, 30000, kT0, {std::string(201, 'x')}).status().code() ==
        Code::kInvalidArgument);
  CHECK(Leased(f.store->LeaseNotifications(10, 30000, kT0, {})) == "digest:a");  // the refusals leased nothing
}

TEST_CASE(
    "incidents: an outcome is recorded only under the lease the row was sent with; a lapsed lease nobody "
    "took since still records",
    "[store][incidents]") {
  IncidentsFixture f;
  REQUIRE(f.store->QueueDigest("2026-12-01", {"ops-mail", "ops-slack"}, "{}", kT0).ok());
  auto slow = f.store->LeaseNotifications(1, 30000, kT0, {});
  REQUIRE(slow.ok());
  REQUIRE(slow->size() == 1);
  // The slow sender's lease lapses; another sender leases the row.
  auto other = f.store->LeaseNotifications(1, 30000, kT0 + 30000, {});
  REQUIRE(other.ok());
  REQUIRE(other->size() == 1);
  REQUIRE(other->front().id == slow->front().id);
  CHECK(other->front().lease_until_ms == kT0 + 60000);

  Status st = f.store->FinishNotification(slow->front(), true, "", std::nullopt, kT0 + 30001);
  CHECK(st.code() == Code::kConflict);
  CHECK_THAT(st.message(), Catch::Contains("another sender holds it"));
  const std::string id = std::to_string(slow->front().id);
  CHECK(f.Text("SELECT status || ':' || attempts || ':' || lease_until FROM alert_notifications WHERE id = " + id) ==
        "pending:0:" + std::to_string(kT0 + 60000));
  REQUIRE(f.store->FinishNotification(other->front(), true, "", std::nullopt, kT0 + 30002).ok());
  st = f.store->FinishNotification(slow->front(), false, "late", kT0 + 90000, kT0 + 30003);
  CHECK(st.code() == Code::kConflict);
  CHECK_THAT(st.message(), Catch::Contains("no longer pending"));
  CHECK(f.Text("SELECT status || ':' || attempts FROM alert_notifications WHERE id = " + id) == "sent:1");

  // Lapsed, but nobody leased it since: the outcome is still this sender's to record.
  auto late = f.store->LeaseNotifications(1, 30000, kT0 + 40000, {});
  REQUIRE(late.ok());
  REQUIRE(late->size() == 1);
  CHECK(f.store->FinishNotification(late->front(), true, "", std::nullopt, kT0 + 90000).ok());
}

TEST_CASE(
    "incidents: the schema allows one open incident per (condition, endpoint) and one digest per day "
    "and channel",
    "[store][incidents]") {
  IncidentsFixture f;
  f.Exec(
      "INSERT INTO alerts (condition, endpoint, summary, opened_at, last_seen_at) VALUES"
      " ('silence', 'shop', 's', 1, 1)");
  CHECK_THROWS(
      f.Exec("INSERT INTO alerts (condition, endpoint, summary, opened_at, last_seen_at) VALUES"
             " ('silence', 'shop', 's', 2, 2)"));
  f.Exec("UPDATE alerts SET resolved_at = 3");
  f.Exec(
      "INSERT INTO alerts (condition, endpoint, summary, opened_at, last_seen_at) VALUES"
      " ('silence', 'shop', 's', 4, 4)");
  f.Exec(
      "INSERT INTO alert_notifications (channel, kind, message, created_at, next_attempt_at, digest_day)"
      " VALUES ('m', 'digest', '{}', 1, 1, '2026-12-01')");
  CHECK_THROWS(
      f.Exec("INSERT INTO alert_notifications (channel, kind, message, created_at, next_attempt_at,"
             " digest_day) VALUES ('m', 'digest', '{}', 1, 1, '2026-12-01')"));
  CHECK_THROWS(
      f.Exec("INSERT INTO alert_notifications (channel, kind, message, status, created_at, next_attempt_at)"
             " VALUES ('m', 'test', '{}', 'lost', 1, 1)"));
  CHECK(f.Count("SELECT count(*) FROM alerts") == 2);
}

TEST_CASE(
    "incidents: two stores on one database observing one condition from 20 threads open one incident with "
    "one start row per channel",
    "[store][incidents]") {
  IncidentsFixture f;
  auto other = f.database.OpenStore(2000, 64);  // a second replica
  std::atomic<int> opened{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&, i] {
      store::Incidents& s = (i % 2 == 0) ? static_cast<store::Incidents&>(*f.store) : *other;
      auto r = s.ObserveCondition(Dead(i), Planned(kHour), kT0 + i);
      if (!r.ok()) ++failed;
      if (r.ok() && r->change == IncidentChange::kOpened) ++opened;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failed == 0);
  CHECK(opened == 1);
  CHECK(f.Count("SELECT count(*) FROM alerts") == 1);
  CHECK(f.Count("SELECT observations FROM alerts") == 20);
  CHECK(f.Joined("SELECT channel FROM alert_notifications WHERE kind = 'start' ORDER BY channel") ==
        "ops-mail,ops-slack");
  CHECK(f.Count("SELECT count(*) FROM alert_notifications") == 2);
}

TEST_CASE("incidents: two stores leasing the outbox at once never lease the same row", "[store][incidents]") {
  IncidentsFixture f;
  auto other = f.database.OpenStore(2000, 64);
  for (int day = 1; day <= 9; ++day) {
    REQUIRE(f.store->QueueDigest("2026-11-0" + std::to_string(day), {"a", "b", "c", "d"}, "{}", kT0).ok());
  }
  std::mutex mu;
  std::atomic<int> failed{0};
  std::vector<int64_t> all;
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      store::Incidents& s = (i % 2 == 0) ? static_cast<store::Incidents&>(*f.store) : *other;
      for (int round = 0; round < 5; ++round) {
        auto r = s.LeaseNotifications(3, 60000, kT0 + 1, {});
        if (!r.ok()) {
          ++failed;  // Catch2's REQUIRE is not for other threads
          continue;
        }
        std::lock_guard<std::mutex> lock(mu);
        for (const auto& p : *r) all.push_back(p.id);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<int64_t> distinct(all.begin(), all.end());
  CHECK(failed == 0);
  CHECK(all.size() == 36);
  CHECK(distinct.size() == 36);
}
