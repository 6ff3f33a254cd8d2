#include "store/reconcile.h"

#include <catch2/catch.hpp>

#include <chrono>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

std::vector<std::string> Ids(const std::vector<store::ReconcileEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.event_id);
  return out;
}

// Claims `event_id` for payments/default and forces its status (the worker's
// transitions are tested elsewhere; here only the stored state matters).
int64_t Stored(StoreFixture& f, const std::string& event_id, const std::string& status,
               const std::string& tenant = "default", const std::string& endpoint = "payments") {
  auto e = SampleEvent(event_id, "h-" + event_id);
  e.tenant_id = tenant;
  e.endpoint = endpoint;
  auto r = f.store->RecordEvent(e, SampleDelivery());
  REQUIRE(r.ok());
  auto db = f.Connect();
  auto st = db->Prepare("UPDATE webhook_inbox SET status = ? WHERE id = ?");
  st->bind(1, status);
  st->bind(2, r->inbox_id);
  REQUIRE(st->exec() == 1);
  return r->inbox_id;
}

}  // namespace

TEST_CASE("reconcile: ids are sorted into completed, never received, not completed and unknown", "[reconcile]") {
  StoreFixture f;
  Stored(f, "done_1", "completed");
  Stored(f, "skip_1", "skipped");
  const int64_t dead = Stored(f, "dead_1", "dead_lettered");
  const int64_t waiting = Stored(f, "wait_1", "retryable_failed");
  const int64_t fresh = Stored(f, "new_1", "received");
  const int64_t lost = Stored(f, "unk_1", "unknown");
  Stored(f, "other_tenant", "completed", "acme");
  Stored(f, "other_endpoint", "completed", "default", "orders");

  auto r = f.store->Reconcile("payments", "default",
                              {"done_1", "missing_1", "dead_1", "skip_1", "unk_1", "wait_1", "new_1",
                               "other_tenant", "other_endpoint", "done_1"});
  REQUIRE(r.ok());
  CHECK(r->completed == 2);  // done_1 (listed twice, counted once) and skip_1
  CHECK(Ids(r->never_received) == std::vector<std::string>{"missing_1", "other_tenant", "other_endpoint"});
  for (const auto& e : r->never_received) {
    CHECK(e.id == 0);
    CHECK(e.status.empty());
  }
  REQUIRE(Ids(r->not_completed) == std::vector<std::string>{"dead_1", "wait_1", "new_1"});  // input order
  CHECK(r->not_completed[0].id == dead);
  CHECK(r->not_completed[0].status == "dead_lettered");
  CHECK(r->not_completed[1].id == waiting);
  CHECK(r->not_completed[1].status == "retryable_failed");
  CHECK(r->not_completed[2].id == fresh);
  CHECK(r->not_completed[2].status == "received");
  REQUIRE(r->unknown.size() == 1);
  CHECK(r->unknown[0].event_id == "unk_1");
  CHECK(r->unknown[0].id == lost);
  CHECK(r->unknown[0].status == "unknown");
}

TEST_CASE("reconcile: the tenant selects the rows", "[reconcile]") {
  StoreFixture f;
  Stored(f, "evt_a", "completed", "acme");
  auto acme = f.store->Reconcile("payments", "acme", {"evt_a"});
  REQUIRE(acme.ok());
  CHECK(acme->completed == 1);
  CHECK(acme->never_received.empty());
  auto other = f.store->Reconcile("payments", "default", {"evt_a"});
  REQUIRE(other.ok());
  CHECK(other->completed == 0);
  CHECK(Ids(other->never_received) == std::vector<std::string>{"evt_a"});
}

TEST_CASE("reconcile: an empty list and an empty inbox", "[reconcile]") {
  StoreFixture f;
  auto none = f.store->Reconcile("payments", "default", {});
  REQUIRE(none.ok());
  CHECK(none->completed == 0);
  CHECK(none->never_received.empty());
  auto empty_inbox = f.store->Reconcile("payments", "default", {"x"});
  REQUIRE(empty_inbox.ok());
  CHECK(Ids(empty_inbox->never_received) == std::vector<std::string>{"x"});
  CHECK(f.store->Reconcile("", "default", {"x"}).status().code() == Code::kInvalidArgument);
}

TEST_CASE("reconcile: 100 000 ids across batch boundaries are fast and exact", "[reconcile]") {
  StoreFixture f;
  // 3 000 stored events (every third id of the first 9 000), completed; one of them dead-lettered.
  {
    auto db = f.Connect();
    store::sql::Transaction txn(*db, store::sql::TxnMode::kWrite);
    auto ins = db->Prepare("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, status,"
                           " received_at) VALUES ('generic', 'payments', 'default', ?, 'h', ?, 1)");
    for (int i = 0; i < 9000; i += 3) {
      ins->reset();
      ins->bind(1, "evt_" + std::to_string(i));
      ins->bind(2, i == 4998 ? "dead_lettered" : "completed");
      ins->exec();
    }
    txn.commit();
  }
  std::vector<std::string> ids;
  for (int i = 0; i < 100000; ++i) ids.push_back("evt_" + std::to_string(i));
  const auto started = std::chrono::steady_clock::now();
  auto r = f.store->Reconcile("payments", "default", ids);
  const auto elapsed = std::chrono::steady_clock::now() - started;
  REQUIRE(r.ok());
  CHECK(r->completed == 2999);
  REQUIRE(r->not_completed.size() == 1);
  CHECK(r->not_completed[0].event_id == "evt_4998");
  CHECK(r->never_received.size() == 100000 - 3000);
  CHECK(r->never_received.front().event_id == "evt_1");
  CHECK(r->never_received.back().event_id == "evt_99999");
  CHECK(elapsed < std::chrono::seconds(5));
}

TEST_CASE("reconcile: works on a plain connection (the admin API's) and on a closed store fails", "[reconcile]") {
  StoreFixture f;
  Stored(f, "evt_1", "completed");
  auto r = store::Reconcile(*f.Connect(), "payments", "default", {"evt_1", "evt_2"});
  REQUIRE(r.ok());
  CHECK(r->completed == 1);
  CHECK(Ids(r->never_received) == std::vector<std::string>{"evt_2"});
  f.store->Close();
  CHECK(f.store->Reconcile("payments", "default", {"evt_1"}).status().code() == Code::kUnavailable);
}
