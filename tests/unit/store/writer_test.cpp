#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "store/writer.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

TEST_CASE("writer: a failing commit writes nothing and the store recovers", "[store]") {
  StoreFixture f;
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  auto r = f.store->Claim(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kUnavailable);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads") == 0);

  f.store->writer().SetCommitHookForTest(nullptr);
  auto again = f.store->Claim(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE(again.ok());
  CHECK(again->outcome == store::ClaimOutcome::kAccepted);
}

TEST_CASE("writer: one throwing operation fails alone; the rest of its batch commits", "[store]") {
  StoreFixture f;
  auto& w = f.store->writer();
  std::atomic<int> ok{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      Status st = w.Submit([i](SQLite::Database& db) {
        if (i == 7) db.exec("INSERT INTO no_such_table VALUES (1)");
        db.exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, received_at)"
                " VALUES ('g','e','t','id" + std::to_string(i) + "','h',0)");
      });
      (st.ok() ? ok : failed)++;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == 15);
  CHECK(failed == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 15);
}
