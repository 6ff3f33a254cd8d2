// The writer under faults. A lock held by another process
// bounds every write by the busy timeout from its own call, however deep the
// queue. A commit the disk refused makes CheckWritable (and so /readyz)
// fail until a write succeeds again, which the empty probe alone never saw.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "store/writer.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;
using Ms = std::chrono::milliseconds;

namespace {

struct Answer {
  Status status;
  Ms waited{0};
};

// Submits `count` inserts at once from as many threads; appends each answer.
void SubmitWave(store::Writer& w, int first, int count, std::vector<std::thread>& threads,
                std::vector<Answer>& answers, std::mutex& mu) {
  for (int i = first; i < first + count; ++i) {
    threads.emplace_back([&, i] {
      const auto start = std::chrono::steady_clock::now();
      Status st = w.Submit([i](store::sql::Connection& db) {
        db.Exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, received_at)"
                " VALUES ('g','e','t','id" + std::to_string(i) + "','h',0)");
      });
      const auto waited = std::chrono::duration_cast<Ms>(std::chrono::steady_clock::now() - start);
      std::lock_guard<std::mutex> lock(mu);
      answers.push_back({st, waited});
    });
  }
}

}  // namespace

TEST_CASE("writer: under a held lock every queued write fails within the busy timeout of its own call",
          "[store][fault][sqlite]") {
  constexpr int kBusyMs = 300;
  constexpr int kMaxBatch = 2;
  constexpr int kFirstWave = 12;  // 6 batches: the old writer answered the last after 6 × 300 ms
  constexpr int kLateWave = 4;    // queued while the first batch waits for the lock
  // What a write may exceed its own budget by: the writer's minimum wait
  // (10 ms) plus scheduling on a loaded 2-core machine or under TSan.
  constexpr Ms kMargin{250};
  TempDir dir;
  const std::string path = dir.File("data/hookinbox.db");
  auto opened = store::SqlStore::Open({path, kBusyMs, kMaxBatch});
  REQUIRE(opened.ok());
  auto& w = opened.value()->writer();

  SQLite::Database admin(path, SQLite::OPEN_READWRITE);  // an admin's sqlite3 session
  admin.exec("BEGIN IMMEDIATE");
  std::vector<std::thread> threads;
  std::vector<Answer> answers;
  std::mutex mu;
  const auto start = std::chrono::steady_clock::now();
  SubmitWave(w, 0, kFirstWave, threads, answers, mu);
  REQUIRE(PollUntilTrue([&] { return w.QueueDepth() >= kFirstWave - kMaxBatch; }));
  std::this_thread::sleep_for(Ms(kBusyMs / 3));  // a later arrival: part of the first batch's wait is gone
  SubmitWave(w, kFirstWave, kLateWave, threads, answers, mu);
  for (auto& t : threads) t.join();
  const auto all_answered = std::chrono::duration_cast<Ms>(std::chrono::steady_clock::now() - start);

  REQUIRE(answers.size() == kFirstWave + kLateWave);
  Ms longest{0}, shortest{Ms::max()};
  for (const Answer& a : answers) {
    CHECK(a.status.code() == Code::kUnavailable);
    CHECK(a.status.message().find("locked") != std::string::npos);
    longest = std::max(longest, a.waited);
    shortest = std::min(shortest, a.waited);
  }
  INFO("waits " << shortest.count() << ".." << longest.count() << " ms; all answered after "
                << all_answered.count() << " ms; busy timeout " << kBusyMs << " ms");
  CHECK(longest <= Ms(kBusyMs) + kMargin);
  // The lock was waited for, not given up on at once.
  CHECK(shortest >= Ms(kBusyMs / 2));
  CHECK(all_answered <= Ms(kBusyMs + kBusyMs / 3) + kMargin);

  admin.exec("ROLLBACK");
  // Nothing of the refused writes; the next one commits at once.
  const auto after = std::chrono::steady_clock::now();
  CHECK(w.Submit([](store::sql::Connection& db) {
          db.Exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, received_at)"
                  " VALUES ('g','e','t','after','h',0)");
        }).ok());
  CHECK(std::chrono::steady_clock::now() - after < Ms(kBusyMs));
  SQLite::Database reader(path, SQLite::OPEN_READONLY);
  CHECK(reader.execAndGet("SELECT group_concat(event_id) FROM webhook_inbox").getString() == "after");
  // A lock is not a storage failure: /readyz is fine as soon as it is gone.
  CHECK(opened.value()->CheckWritable().ok());
}

TEST_CASE("writer: a commit the disk refused fails CheckWritable until a write succeeds", "[store][fault]") {
  StoreFixture f;
  REQUIRE(f.store->CheckWritable().ok());
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  REQUIRE_FALSE(f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery()).ok());
  f.store->writer().SetCommitHookForTest(nullptr);

  // The probe commits nothing, so it would pass; the failed write says otherwise.
  Status st = f.store->CheckWritable();
  CHECK(st.code() == Code::kUnavailable);
  CHECK(st.message().find("injected: disk full") != std::string::npos);
  CHECK_FALSE(f.store->CheckWritable().ok());  // and the probe does not clear it

  // A write that reaches the disk does.
  REQUIRE(f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery()).ok());
  CHECK(f.store->CheckWritable().ok());
}

TEST_CASE("writer: a storage failure stops failing CheckWritable after its window", "[store][fault]") {
  StoreFixture f;
  f.store->writer().SetStorageFailureWindowForTest(100);
  f.store->writer().SetCommitHookForTest([] { return Unavailable("injected: disk full"); });
  REQUIRE_FALSE(f.store->RecordEvent(SampleEvent("evt_1"), SampleDelivery()).ok());
  f.store->writer().SetCommitHookForTest(nullptr);
  CHECK_FALSE(f.store->CheckWritable().ok());
  // Nothing written since: after the window the next write finds out for itself.
  CHECK(PollUntilTrue([&] { return f.store->CheckWritable().ok(); }));
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 0);
}

TEST_CASE("writer: the readiness check queues nothing and answers at once behind a held lock; a write that could "
          "not commit fails it until a commit succeeds or its window ends",
          "[store][fault][sqlite]") {
  // Long enough that the queued write's budget (counted from its enqueue)
  // cannot run out between seeing it queued and the checks below, even on a
  // loaded sanitizer run: at 500 ms an ASan run once saw it expire there.
  constexpr int kBusyMs = 2000;
  TempDir dir;
  const std::string path = dir.File("data/hookinbox.db");
  auto opened = store::SqlStore::Open({path, kBusyMs, /*max_batch=*/1});
  REQUIRE(opened.ok());
  store::SqlStore& s = *opened.value();
  auto& w = s.writer();

  SQLite::Database admin(path, SQLite::OPEN_READWRITE);  // an admin's sqlite3 session
  admin.exec("BEGIN IMMEDIATE");
  std::vector<std::thread> threads;
  std::vector<Answer> answers;
  std::mutex mu;
  const uint64_t submitted_before = w.SubmittedCount();  // opening the store wrote too
  SubmitWave(w, 0, 2, threads, answers, mu);
  // Both writes queued: one waits for the lock, the other behind it.
  REQUIRE(PollUntilTrue([&] { return w.SubmittedCount() == submitted_before + 2 && w.QueueDepth() == 1; }));
  const auto start = std::chrono::steady_clock::now();
  CHECK(s.CheckWritable().ok());  // nothing has failed yet, and asking costs no wait
  CHECK(std::chrono::steady_clock::now() - start < Ms(kBusyMs / 5));
  CHECK(w.SubmittedCount() == submitted_before + 2);  // and queued nothing
  for (auto& t : threads) t.join();
  for (const Answer& a : answers) CHECK(a.status.code() == Code::kUnavailable);

  Status st = s.CheckWritable();
  CHECK(st.code() == Code::kUnavailable);
  CHECK(st.message().find("could not commit") != std::string::npos);
  admin.exec("ROLLBACK");
  CHECK_FALSE(s.CheckWritable().ok());  // nobody has written since: the lock's fate is all it knows

  SECTION("a commit clears it") {
    REQUIRE(w.Submit([](store::sql::Connection& db) {
               db.Exec("INSERT INTO webhook_inbox (provider, endpoint, tenant_id, event_id, payload_hash, received_at)"
                       " VALUES ('g','e','t','after','h',0)");
             }).ok());
    CHECK(s.CheckWritable().ok());
  }
  SECTION("so does the end of its window, when nothing writes") {
    w.SetStorageFailureWindowForTest(100);
    CHECK(PollUntilTrue([&] { return s.CheckWritable().ok(); }));
  }
}
