#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using store::DeliveryOutcome;
using store::EventStatus;

TEST_CASE("inbox: a new key is accepted and stored with its payload and one delivery row", "[store]") {
  StoreFixture f;
  auto r = f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE(r.ok());
  CHECK(r->outcome == DeliveryOutcome::kAccepted);
  CHECK(r->inbox_id > 0);
  CHECK(r->status == EventStatus::kReceived);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 1);
  CHECK(f.Text("SELECT status FROM webhook_inbox") == "received");
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads WHERE kind = 'original'") == 1);
  CHECK(f.Text("SELECT body FROM webhook_payloads") == R"({"id":"evt_1"})");
  CHECK(f.Text("SELECT outcome FROM webhook_deliveries") == "accepted");
  CHECK(f.Count("SELECT http_status FROM webhook_deliveries") == 200);
  CHECK(f.Count("SELECT inbox_id FROM webhook_deliveries") == r->inbox_id);
}

TEST_CASE("inbox: the same key and payload hash is a duplicate of the original row", "[store]") {
  StoreFixture f;
  auto first = f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery());
  auto second = f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(second->outcome == DeliveryOutcome::kDuplicate);
  CHECK(second->inbox_id == first->inbox_id);
  CHECK(second->status == EventStatus::kReceived);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads") == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE outcome = 'duplicate'") == 1);
}

TEST_CASE("inbox: same key, different payload is a conflict; original untouched, payload kept", "[store]") {
  StoreFixture f;
  auto first = f.store->RecordEvent(SampleEvent("evt_1", "h1", R"({"amount":1})"), SampleDelivery());
  auto other = f.store->RecordEvent(SampleEvent("evt_1", "h2", R"({"amount":2})"), SampleDelivery());
  REQUIRE(other.ok());
  CHECK(other->outcome == DeliveryOutcome::kConflict);
  CHECK(other->inbox_id == first->inbox_id);
  CHECK(f.Text("SELECT payload_hash FROM webhook_inbox") == "h1");
  CHECK(f.Text("SELECT body FROM webhook_payloads WHERE kind = 'original'") == R"({"amount":1})");
  CHECK(f.Text("SELECT body FROM webhook_payloads WHERE kind = 'conflict'") == R"({"amount":2})");
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE outcome = 'conflict'") == 1);
}

TEST_CASE("inbox: the key is (provider, endpoint, tenant, event id)", "[store]") {
  StoreFixture f;
  auto a = SampleEvent("evt_1");
  auto b = a;
  b.tenant_id = "acme";
  auto c = a;
  c.endpoint = "orders";
  CHECK(f.store->RecordEvent(a, SampleDelivery())->outcome == DeliveryOutcome::kAccepted);
  CHECK(f.store->RecordEvent(b, SampleDelivery())->outcome == DeliveryOutcome::kAccepted);
  CHECK(f.store->RecordEvent(c, SampleDelivery())->outcome == DeliveryOutcome::kAccepted);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 3);
}

TEST_CASE("inbox: 20 threads claiming one key give exactly one claim and 19 duplicates", "[store]") {
  StoreFixture f;
  std::atomic<int> accepted{0}, duplicates{0}, other{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      auto r = f.store->RecordEvent(SampleEvent("evt_race"), SampleDelivery());
      if (!r.ok()) {
        ++other;
      } else if (r->outcome == DeliveryOutcome::kAccepted) {
        ++accepted;
      } else if (r->outcome == DeliveryOutcome::kDuplicate) {
        ++duplicates;
      } else {
        ++other;
      }
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  CHECK(accepted == 1);
  CHECK(duplicates == 19);
  CHECK(other == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == 20);
}

TEST_CASE("deliveries: rejected rows are recorded, and a flood from one address is folded", "[store]") {
  StoreFixture f;
  auto d = SampleDelivery();
  d.http_status = 401;
  d.reason = "unauthenticated";
  for (int i = 0; i < store::kRejectedRowsPerMinute + 40; ++i) REQUIRE(f.store->RecordRejected(d).ok());
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == store::kRejectedRowsPerMinute + 1);
  CHECK(f.Count("SELECT sum(request_count) FROM webhook_deliveries") == store::kRejectedRowsPerMinute + 40);
  CHECK(f.Count("SELECT max(request_count) FROM webhook_deliveries") == 40);
  CHECK(f.Text("SELECT outcome FROM webhook_deliveries LIMIT 1") == "rejected");
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 0);

  SECTION("another address, or the next minute, starts its own count") {
    auto other = d;
    other.remote_addr = "10.0.0.9";
    REQUIRE(f.store->RecordRejected(other).ok());
    auto later = d;
    later.received_at_ms += 60000;
    REQUIRE(f.store->RecordRejected(later).ok());
    CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE request_count = 1") ==
          store::kRejectedRowsPerMinute + 2);
  }
}

TEST_CASE("deliveries: a rolled-back rejection leaves no fold state behind", "[store]") {
  StoreFixture f;
  auto d = SampleDelivery();
  d.http_status = 401;
  d.reason = "unauthenticated";
  for (int i = 0; i < store::kRejectedRowsPerMinute; ++i) REQUIRE(f.store->RecordRejected(d).ok());
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  REQUIRE_FALSE(f.store->RecordRejected(d).ok());  // the would-be fold row is rolled back
  f.store->writer().SetCommitHookForTest(nullptr);
  auto claim = f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE(claim.ok());
  for (int i = 0; i < 5; ++i) REQUIRE(f.store->RecordRejected(d).ok());
  CHECK(f.Count("SELECT request_count FROM webhook_deliveries WHERE outcome = 'accepted'") == 1);
  CHECK(f.Count("SELECT request_count FROM webhook_deliveries WHERE reason LIKE 'flood%'") == 5);
}

TEST_CASE("deliveries: ignored deliveries are never folded", "[store]") {
  StoreFixture f;
  for (int i = 0; i < store::kRejectedRowsPerMinute + 10; ++i) {
    auto d = SampleDelivery();
    d.http_status = 200;
    d.event_id = "evt_" + std::to_string(i);
    REQUIRE(f.store->RecordIgnored(d).ok());
  }
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE outcome = 'ignored'") ==
        store::kRejectedRowsPerMinute + 10);
  CHECK(f.Count("SELECT count(DISTINCT event_id) FROM webhook_deliveries") == store::kRejectedRowsPerMinute + 10);
}

TEST_CASE("database: file is created with mode 0600, WAL and a writable check", "[store][sqlite]") {
  StoreFixture f;
  struct stat st{};
  REQUIRE(::stat(f.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(f.Text("PRAGMA journal_mode") == "wal");
  CHECK(f.store->CheckWritable().ok());
}

TEST_CASE("store: a fresh store passes its writable check", "[store]") {
  StoreFixture f;
  CHECK(f.store->CheckWritable().ok());
}

TEST_CASE("store: closed store refuses writes with Unavailable", "[store]") {
  StoreFixture f;
  f.store->Close();
  auto r = f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kUnavailable);
  CHECK(f.store->CheckWritable().code() == Code::kUnavailable);
}

TEST_CASE("store: a database locked by another process gives Unavailable after the busy timeout", "[store]") {
  StoreFixture f;
  auto s = f.database.OpenStore(100, 64);
  // Another session holds the write lock, as an admin's open transaction would.
  auto other = f.Connect();
  other->Exec(f.postgres() ? "BEGIN; LOCK TABLE webhook_inbox IN EXCLUSIVE MODE" : "BEGIN IMMEDIATE");
  // The claim runs on a thread so that a write that never gives up fails
  // this test instead of hanging it: the lock goes after 3 s (30 × the busy timeout) at most.
  std::atomic<bool> answered{false};
  Status status;
  std::thread claim([&] {
    status = s->RecordEvent(SampleEvent("evt_1"), SampleDelivery()).status();
    answered = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (!answered.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  const bool in_time = answered.load();
  other->Exec("ROLLBACK");
  claim.join();
  CHECK(in_time);
  CHECK(status.code() == Code::kUnavailable);
  CHECK(s->RecordEvent(SampleEvent("evt_1"), SampleDelivery()).ok());
}

TEST_CASE("deliveries: unsigned pings answered 200 share the rejections' budget and fold", "[store]") {
  StoreFixture f;
  auto d = SampleDelivery();
  d.http_status = 200;
  d.reason = "handshake: woocommerce ping";
  for (int i = 0; i < store::kRejectedRowsPerMinute + 25; ++i) REQUIRE(f.store->RecordUnverifiedAnswer(d).ok());
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == store::kRejectedRowsPerMinute + 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE outcome = 'ignored'") ==
        store::kRejectedRowsPerMinute + 1);
  CHECK(f.Count("SELECT request_count FROM webhook_deliveries WHERE reason LIKE 'flood%'") == 25);
  // Rejections keep their own count: pings cannot push a rejection out of the audit.
  auto r = SampleDelivery();
  r.http_status = 401;
  REQUIRE(f.store->RecordRejected(r).ok());
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == store::kRejectedRowsPerMinute + 2);
  // Authenticated ignored deliveries are never folded.
  REQUIRE(f.store->RecordIgnored(d).ok());
  CHECK(f.Count("SELECT count(*) FROM webhook_deliveries") == store::kRejectedRowsPerMinute + 3);
}
