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
  auto r = f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kUnavailable);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads") == 0);

  f.store->writer().SetCommitHookForTest(nullptr);
  auto again = f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE(again.ok());
  CHECK(again->outcome == store::DeliveryOutcome::kAccepted);
}

TEST_CASE("writer: one throwing operation fails alone; the rest of its batch commits", "[store]") {
  StoreFixture f;
  auto& w = f.store->writer();
  // Hold the writer inside a first transaction until the 16 operations are
  // all queued, so they are taken as one batch.
  std::atomic<bool> release{false};
  std::atomic<int> hook_calls{0};
  w.SetCommitHookForTest([&] {
    if (hook_calls++ == 0) {
      while (!release.load()) std::this_thread::yield();
    }
    return Status::Ok();
  });
  std::thread holder([&] { REQUIRE(w.Submit([](store::sql::Connection&) {}).ok()); });
  REQUIRE(PollUntilTrue([&] { return hook_calls.load() == 1; }));

  std::atomic<int> ok{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      Status st = w.Submit([i](store::sql::Connection& db) {
        if (i == 7) db.Exec("INSERT INTO no_such_table VALUES (1)");
        db.Exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, received_at)"
                " VALUES ('g','e','t','id" + std::to_string(i) + "','h',0)");
      });
      (st.ok() ? ok : failed)++;
    });
  }
  REQUIRE(PollUntilTrue([&] { return w.QueueDepth() == 16; }));
  release = true;
  holder.join();
  for (auto& t : threads) t.join();
  CHECK(ok == 15);
  CHECK(failed == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 15);
  // The holder's commit, then the batch of 16 (it throws before reaching
  // commit), then 16 single reruns of which the 15 good ones reach commit.
  CHECK(hook_calls == 1 + 15);
}
