// The store reads and writes the admin API adds: the wider event filter,
// effects and steps in an event's detail, the conflicts queue, and an
// operator closing an effect marked unknown.
#include <catch2/catch.hpp>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;  // SampleEvent's received_at

// Stores `event_id` at kT0 + offset_ms on `endpoint` / `tenant` with `type`; returns its id.
int64_t Put(StoreFixture& f, const std::string& event_id, const std::string& endpoint, const std::string& tenant,
            const std::string& type, int64_t offset_ms) {
  auto e = SampleEvent(event_id, "h-" + event_id);
  e.endpoint = endpoint;
  e.tenant_id = tenant;
  e.event_type = type;
  e.received_at_ms = kT0 + offset_ms;
  auto r = f.store->RecordEvent(e, SampleDelivery());
  REQUIRE(r.ok());
  return r->inbox_id;
}

std::vector<int64_t> Ids(StoreFixture& f, const store::EventFilter& filter) {
  auto page = f.store->ListEvents(filter);
  REQUIRE(page.ok());
  std::vector<int64_t> ids;
  for (const auto& e : page->events) ids.push_back(e.id);
  return ids;
}

}  // namespace

TEST_CASE("admin queries: tenant, type, id substring and the time range narrow the list", "[store][admin]") {
  StoreFixture f;
  int64_t a = Put(f, "evt_a%1", "payments", "t1", "invoice.paid", 0);
  int64_t b = Put(f, "evt_b_2", "payments", "t2", "invoice.paid", 1000);
  int64_t c = Put(f, "evt_c3", "shop", "t1", "order.created", 2000);
  store::EventFilter all;
  CHECK(Ids(f, all) == std::vector<int64_t>{c, b, a});
  store::EventFilter t;
  t.tenant = "t1";
  CHECK(Ids(f, t) == std::vector<int64_t>{c, a});
  store::EventFilter ty;
  ty.event_type = "invoice.paid";
  CHECK(Ids(f, ty) == std::vector<int64_t>{b, a});
  store::EventFilter q;
  q.id_contains = "%";  // literal, not a wildcard
  CHECK(Ids(f, q) == std::vector<int64_t>{a});
  q.id_contains = "_2";
  CHECK(Ids(f, q) == std::vector<int64_t>{b});
  store::EventFilter range;
  range.since_ms = kT0 + 1000;  // inclusive
  range.until_ms = kT0 + 2000;  // exclusive
  CHECK(Ids(f, range) == std::vector<int64_t>{b});
  store::EventFilter combined;
  combined.tenant = "t1";
  combined.since_ms = kT0 + 1;
  CHECK(Ids(f, combined) == std::vector<int64_t>{c});
}

TEST_CASE("admin queries: the detail lists the event's effects and describes its steps without bodies",
          "[store][admin]") {
  StoreFixture f;
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery()).ok());
  auto claimed = f.store->LeaseDue("w", kT0, 30000, {});
  REQUIRE(claimed.ok());
  REQUIRE(claimed->has_value());
  auto grant = f.store->Authenticate((*claimed)->token, kT0);
  REQUIRE(grant.ok());
  REQUIRE(f.store->ClaimEffect(*grant, "charge:1", kT0).ok());
  REQUIRE(f.store->EndEffect(*grant, "charge:1", store::EffectEnd::kDone, "ch_1", kT0 + 5).ok());
  REQUIRE(f.store->PutStep(*grant, "draft", "text/plain", "hello world", kT0 + 6).ok());
  auto d = f.store->GetEvent((*claimed)->id, false);
  REQUIRE(d.ok());
  REQUIRE(d->effects.size() == 1);
  CHECK(d->effects[0].effect_key == "charge:1");
  CHECK(d->effects[0].status == "done");
  CHECK(d->effects[0].external_ref == "ch_1");
  CHECK(d->effects[0].updated_at_ms == kT0 + 5);
  REQUIRE(d->steps.size() == 1);
  CHECK(d->steps[0].name == "draft");
  CHECK(d->steps[0].content_type == "text/plain");
  CHECK(d->steps[0].bytes == 11);
  CHECK(d->steps[0].stored_at_ms == kT0 + 6);
}

TEST_CASE("admin queries: conflicts of single and batch deliveries, newest first, paged by keyset",
          "[store][admin]") {
  StoreFixture f;
  auto original = f.store->RecordEvent(SampleEvent("evt_1", "h1", R"({"v":1})"), SampleDelivery());
  REQUIRE(original.ok());
  auto single = f.store->RecordEvent(SampleEvent("evt_1", "h2", R"({"v":2})"), SampleDelivery());
  REQUIRE(single.ok());
  REQUIRE(single->outcome == store::DeliveryOutcome::kConflict);
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_2", "h1"), SampleDelivery()).ok());
  // A batch: one new event and a conflict on evt_2 — the delivery row says 'accepted'.
  auto batch = f.store->RecordBatch({SampleEvent("evt_3", "h3"), SampleEvent("evt_2", "h9")}, SampleDelivery());
  REQUIRE(batch.ok());
  REQUIRE((*batch)[1].outcome == store::DeliveryOutcome::kConflict);

  store::ConflictFilter filter;
  auto page = f.store->ListConflicts(filter);
  REQUIRE(page.ok());
  REQUIRE(page->conflicts.size() == 2);
  CHECK_FALSE(page->more);
  const auto& newest = page->conflicts[0];
  CHECK(newest.event_id == "evt_2");
  CHECK(newest.delivery_id == (*batch)[1].delivery_id);
  CHECK(newest.position == 1);
  CHECK(newest.conflict_hash == "h9");
  CHECK(newest.original_hash == "h1");
  CHECK(newest.conflict_payload_id ==
        f.Count("SELECT id FROM webhook_payloads WHERE kind = 'conflict' AND payload_hash = 'h9'"));
  const auto& older = page->conflicts[1];
  CHECK(older.event_id == "evt_1");
  CHECK(older.delivery_id == single->delivery_id);
  CHECK(older.inbox_id == original->inbox_id);
  CHECK(older.original_payload_id ==
        f.Count("SELECT id FROM webhook_payloads WHERE kind = 'original' AND inbox_id = " +
                std::to_string(original->inbox_id)));

  filter.limit = 1;
  auto first = f.store->ListConflicts(filter);
  REQUIRE(first.ok());
  REQUIRE(first->more);
  filter.before_delivery_id = first->conflicts[0].delivery_id;
  filter.before_position = first->conflicts[0].position;
  auto second = f.store->ListConflicts(filter);
  REQUIRE(second.ok());
  REQUIRE(second->conflicts.size() == 1);
  CHECK(second->conflicts[0].event_id == "evt_1");
  CHECK_FALSE(second->more);
  filter.endpoint = "elsewhere";
  filter.before_delivery_id = 0;
  CHECK(f.store->ListConflicts(filter)->conflicts.empty());
  filter.limit = 0;
  CHECK_FALSE(f.store->ListConflicts(filter).ok());
}

TEST_CASE("admin queries: an operator closes only an unknown effect, with an audit row", "[store][admin]") {
  StoreFixture f;
  auto r = f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE(r.ok());
  const std::string id = std::to_string(r->inbox_id);
  f.Exec("INSERT INTO effects (tenant_id, effect_key, status, inbox_id, attempt, claimed_at, updated_at) VALUES "
         "('default', 'u', 'unknown', " + id + ", 1, 1, 1), ('default', 'd', 'done', " + id + ", 1, 1, 1)");
  CHECK(f.store->ResolveEffect("default", "u", "maybe", "", "", "admin:x", kT0).code() == Code::kInvalidArgument);
  CHECK(f.store->ResolveEffect("default", "u", "failed", "ref", "", "admin:x", kT0).code() == Code::kInvalidArgument);
  CHECK(f.store->ResolveEffect("default", "", "done", "", "", "admin:x", kT0).code() == Code::kInvalidArgument);
  CHECK(f.store->ResolveEffect("default", "missing", "done", "", "", "admin:x", kT0).code() == Code::kNotFound);
  CHECK(f.store->ResolveEffect("default", "d", "failed", "", "", "admin:x", kT0).code() == Code::kConflict);
  CHECK(f.store->ResolveEffect("other", "u", "done", "", "", "admin:x", kT0).code() == Code::kNotFound);
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 0);
  CHECK(f.Text("SELECT status FROM effects WHERE effect_key = 'u'") == "unknown");

  REQUIRE(f.store->ResolveEffect("default", "u", "failed", "", "no charge in Stripe", "admin:10.0.0.9", kT0 + 7).ok());
  CHECK(f.Text("SELECT status || '|' || error || '|' || updated_at FROM effects WHERE effect_key = 'u'") ==
        "failed|resolved as failed by admin:10.0.0.9|" + std::to_string(kT0 + 7));
  CHECK(f.Text("SELECT actor || '|' || action || '|' || from_status || '|' || to_status || '|' || note FROM "
               "webhook_event_actions") ==
        "admin:10.0.0.9|resolve|received|received|effect u: unknown -> failed; no charge in Stripe");
  CHECK(f.store->ResolveEffect("default", "u", "done", "", "", "admin:x", kT0).code() == Code::kConflict);
}
