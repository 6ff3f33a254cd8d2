// RecordBatch: one batch delivery, one transaction, one delivery row, one inbox
// row per new event (SPEC §2), and nothing at all when the commit fails.
#include <catch2/catch.hpp>

#include <vector>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::DeliveryOutcome;

namespace {

std::vector<store::NewEvent> Batch(std::initializer_list<const char*> ids, const std::string& hash = "h1") {
  std::vector<store::NewEvent> events;
  for (const char* id : ids) events.push_back(SampleEvent(id, hash, std::string(R"({"eventId":")") + id + "\"}"));
  return events;
}

}  // namespace

TEST_CASE("batch: every new event gets its inbox row and payload, the request one delivery row", "[store]") {
  StoreFixture f;
  auto r = f.store->RecordBatch(Batch({"e1", "e2", "e3"}), SampleDelivery());
  REQUIRE(r.ok());
  REQUIRE(r->size() == 3);
  for (const auto& c : *r) CHECK(c.outcome == DeliveryOutcome::kAccepted);
  CHECK((*r)[0].inbox_id != (*r)[1].inbox_id);
  CHECK((*r)[0].delivery_id == (*r)[2].delivery_id);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 3);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 1);
  CHECK(f.Text("SELECT outcome FROM webhook_deliveries") == "accepted");
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE inbox_id IS NULL") == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads WHERE kind = 'original'") == 3);
  CHECK(f.Text("SELECT body FROM webhook_payloads p JOIN webhook_inbox i ON i.id = p.inbox_id"
               " WHERE i.event_id = 'e2'") == R"({"eventId":"e2"})");
  CHECK(f.Count("SELECT count(*) FROM webhook_delivery_events") == 3);
  CHECK(f.Joined("SELECT event_id || '=' || outcome FROM webhook_delivery_events ORDER BY position") ==
        "e1=accepted,e2=accepted,e3=accepted");
}

TEST_CASE("batch: a repeated batch is all duplicates, a partly new one mixes, a changed payload conflicts",
          "[store]") {
  StoreFixture f;
  REQUIRE(f.store->RecordBatch(Batch({"e1", "e2"}), SampleDelivery()).ok());

  auto again = f.store->RecordBatch(Batch({"e1", "e2"}), SampleDelivery());
  REQUIRE(again.ok());
  CHECK((*again)[0].outcome == DeliveryOutcome::kDuplicate);
  CHECK((*again)[1].outcome == DeliveryOutcome::kDuplicate);
  CHECK(f.Text("SELECT outcome FROM webhook_deliveries ORDER BY id DESC LIMIT 1") == "duplicate");

  auto mixed = f.store->RecordBatch(Batch({"e2", "e3"}), SampleDelivery());
  REQUIRE(mixed.ok());
  CHECK((*mixed)[0].outcome == DeliveryOutcome::kDuplicate);
  CHECK((*mixed)[1].outcome == DeliveryOutcome::kAccepted);
  CHECK(f.Text("SELECT outcome FROM webhook_deliveries ORDER BY id DESC LIMIT 1") == "accepted");

  auto changed = f.store->RecordBatch(Batch({"e1"}, "h2"), SampleDelivery());
  REQUIRE(changed.ok());
  CHECK((*changed)[0].outcome == DeliveryOutcome::kConflict);
  CHECK(f.Text("SELECT outcome FROM webhook_deliveries ORDER BY id DESC LIMIT 1") == "conflict");
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads WHERE kind = 'conflict'") == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 3);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 4);
}

TEST_CASE("batch: the same key twice in one batch is stored once, the second is its duplicate", "[store]") {
  StoreFixture f;
  auto r = f.store->RecordBatch(Batch({"e1", "e1"}), SampleDelivery());
  REQUIRE(r.ok());
  CHECK((*r)[0].outcome == DeliveryOutcome::kAccepted);
  CHECK((*r)[1].outcome == DeliveryOutcome::kDuplicate);
  CHECK((*r)[1].inbox_id == (*r)[0].inbox_id);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 1);
}

TEST_CASE("batch: a failed commit writes none of the events and no delivery row", "[store]") {
  StoreFixture f;
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  auto r = f.store->RecordBatch(Batch({"e1", "e2"}), SampleDelivery());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kUnavailable);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_delivery_events") == 0);
  f.store->writer().SetCommitHookForTest(nullptr);
  auto again = f.store->RecordBatch(Batch({"e1", "e2"}), SampleDelivery());
  REQUIRE(again.ok());
  CHECK((*again)[1].outcome == DeliveryOutcome::kAccepted);
}

TEST_CASE("batch: an empty batch is refused and writes nothing", "[store]") {
  StoreFixture f;
  auto r = f.store->RecordBatch({}, SampleDelivery());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 0);
}
