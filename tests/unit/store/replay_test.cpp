// Bulk replay (AdminQueries::ReplayMatching): which events a filter takes,
// that it works in batches (kReplayBatchSqlite or kReplayBatchPostgres) (one commit each), that each
// event ends as a single replay leaves it, with its own audit row, and that
// a dry run or a bad filter changes nothing.
#include <catch2/catch.hpp>

#include <atomic>

#include "store/event_actions.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;  // SampleEvent's received_at
constexpr int64_t kNow = kT0 + 3600 * 1000;

struct ReplayFixture : StoreFixture {
  // Stores events evt_<prefix><i> on `endpoint`, received at kT0 + i s, in one
  // transaction, and puts them in `status` with `error`; returns their ids.
  std::vector<int64_t> Add(int n, const std::string& prefix, const std::string& endpoint = "payments",
                           const std::string& status = "dead_lettered", const std::string& error = "HTTP 422") {
    std::vector<store::NewEvent> events;
    for (int i = 0; i < n; ++i) {
      const std::string id = "evt_" + prefix + std::to_string(i);
      auto e = SampleEvent(id, "h-" + id, R"({"id":")" + id + R"("})");
      e.endpoint = endpoint;
      e.received_at_ms = kT0 + i * 1000;
      events.push_back(e);
    }
    auto r = store->RecordBatch(events, SampleDelivery());
    REQUIRE(r.ok());
    std::vector<int64_t> ids;
    for (const auto& x : *r) ids.push_back(x.inbox_id);
    Exec("UPDATE webhook_inbox SET status = '" + status + "', next_attempt_at = NULL, attempt_count = 7,"
         " last_error = '" + error + "' WHERE event_id LIKE 'evt_" + prefix + "%'");
    return ids;
  }

  store::ReplayReport Run(const store::ReplayFilter& filter, bool dry_run = false) {
    auto r = store->ReplayMatching(filter, "admin:10.0.0.1", "after the outage", kNow, dry_run);
    INFO(r.status().message());
    REQUIRE(r.ok());
    return *r;
  }

  int64_t CountStatus(const std::string& status) {
    return Count("SELECT count(*) FROM webhook_inbox WHERE status = '" + status + "'");
  }
};

store::ReplayFilter Filter(const std::string& status = "dead_lettered", const std::string& endpoint = "payments") {
  store::ReplayFilter f;
  f.status = status;
  f.endpoint = endpoint;
  return f;
}

}  // namespace

TEST_CASE("bulk replay: status, endpoint, time range and error text narrow what is replayed", "[store][replay]") {
  ReplayFixture f;
  f.Add(4, "a", "payments", "dead_lettered", "HTTP 422 invalid customer");
  f.Add(2, "b", "payments", "dead_lettered", "connection refused");
  f.Add(3, "c", "payments", "unknown", "timeout after send");
  f.Add(2, "d", "shop", "dead_lettered", "HTTP 422 invalid customer");

  auto error = Filter();
  error.error_contains = "422 invalid";
  CHECK(f.Run(error, true).matched == 4);
  auto range = Filter();
  range.since_ms = kT0 + 1000;  // inclusive
  range.until_ms = kT0 + 3000;  // exclusive
  CHECK(f.Run(range, true).matched == 3);  // a1, a2, b1
  auto literal = Filter();
  literal.error_contains = "4_2";  // taken literally, not as a LIKE pattern
  CHECK(f.Run(literal, true).matched == 0);
  CHECK(f.Run(Filter("unknown"), true).matched == 3);
  CHECK(f.Run(Filter("dead_lettered", "shop"), true).matched == 2);
  CHECK(f.Run(Filter("completed"), true).matched == 0);

  store::ReplayReport r = f.Run(error);
  CHECK(r.matched == 4);
  CHECK(r.replayed == 4);
  CHECK(r.skipped_payload_purged == 0);
  CHECK(f.Joined("SELECT event_id FROM webhook_inbox WHERE status = 'received' ORDER BY id") ==
        "evt_a0,evt_a1,evt_a2,evt_a3");
  CHECK(f.CountStatus("dead_lettered") == 4);  // b0, b1 and shop's two
  CHECK(f.CountStatus("unknown") == 3);
}

TEST_CASE("bulk replay: each event ends as a single replay leaves it, with one audit row naming the actor",
          "[store][replay]") {
  ReplayFixture f;
  auto ids = f.Add(3, "a", "payments", "completed", "");
  f.Exec("UPDATE webhook_inbox SET result_ref = 'ord_1', completed_at = 5, lease_owner = 'w', lease_until = 9");
  store::ReplayReport r = f.Run(Filter("completed"));
  CHECK(r.replayed == 3);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE status = 'received' AND attempt_count = 0"
                " AND next_attempt_at = " + std::to_string(kNow) + " AND retry_window_start = " + std::to_string(kNow) +
                " AND lease_owner IS NULL AND lease_until IS NULL AND result_ref IS NULL AND completed_at IS NULL") == 3);
  CHECK(f.Joined("SELECT event_id FROM webhook_inbox ORDER BY id") == "evt_a0,evt_a1,evt_a2");  // keys kept
  CHECK(f.Joined("SELECT inbox_id || '|' || actor || '|' || action || '|' || from_status || '|' || to_status || '|' ||"
                 " result_ref || '|' || note FROM webhook_event_actions ORDER BY id") ==
        std::to_string(ids[0]) + "|admin:10.0.0.1|replay|completed|received|ord_1|after the outage," +
            std::to_string(ids[1]) + "|admin:10.0.0.1|replay|completed|received|ord_1|after the outage," +
            std::to_string(ids[2]) + "|admin:10.0.0.1|replay|completed|received|ord_1|after the outage");
  // Replayed events are 'received' now: a second run matches nothing.
  CHECK(f.Run(Filter("completed")).matched == 0);
}

TEST_CASE("bulk replay: the single replay starts a new retry round too", "[store][replay]") {
  ReplayFixture f;
  auto ids = f.Add(1, "a");
  REQUIRE(f.store->Replay(ids[0], "cli:alice", "", kNow).ok());
  CHECK(f.Count("SELECT retry_window_start FROM webhook_inbox") == kNow);
}

TEST_CASE("bulk replay: works in batches, one commit each, and a failed batch keeps the ones before it",
          "[store][replay]") {
  ReplayFixture f;
  const int batch = f.postgres() ? store::kReplayBatchPostgres : store::kReplayBatchSqlite;
  const int n = 2 * batch + 100;
  f.Add(n, "a");
  std::atomic<int> commits{0};
  std::atomic<int> fail_at{0};  // the commit to fail; 0 = none
  f.store->writer().SetCommitHookForTest([&] {
    int c = ++commits;
    return c == fail_at.load() ? Unavailable("disk full (test)") : Status::Ok();
  });

  SECTION("all batches commit") {
    store::ReplayReport r = f.Run(Filter());
    CHECK(r.matched == n);
    CHECK(r.replayed == n);
    CHECK(commits == 3);
    CHECK(f.CountStatus("received") == n);
    CHECK(f.Count("SELECT count(*) FROM webhook_event_actions WHERE action = 'replay'") == n);
    CHECK(f.Count("SELECT count(DISTINCT inbox_id) FROM webhook_event_actions") == n);
  }
  SECTION("the second batch fails") {
    fail_at = 2;
    auto r = f.store->ReplayMatching(Filter(), "cli:bob", "", kNow, false);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("after " + std::to_string(batch) + " of " + std::to_string(n) + " replayed") !=
          std::string::npos);
    CHECK(f.CountStatus("received") == batch);
    CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == batch);
    // Run again, it takes the rest.
    fail_at = 0;
    CHECK(f.Run(Filter()).replayed == n - batch);
    CHECK(f.CountStatus("received") == n);
  }
}

TEST_CASE("bulk replay: events whose payload retention removed are skipped and counted", "[store][replay]") {
  ReplayFixture f;
  auto ids = f.Add(5, "a");
  f.Exec("DELETE FROM webhook_payloads WHERE inbox_id IN (" + std::to_string(ids[1]) + "," + std::to_string(ids[3]) +
         ")");
  store::ReplayReport dry = f.Run(Filter(), true);
  CHECK(dry.matched == 5);
  CHECK(dry.skipped_payload_purged == 2);
  store::ReplayReport r = f.Run(Filter());
  CHECK(r.matched == 5);
  CHECK(r.replayed == 3);
  CHECK(r.skipped_payload_purged == 2);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE status = 'dead_lettered' AND id IN (" +
                std::to_string(ids[1]) + "," + std::to_string(ids[3]) + ")") == 2);
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 3);
}

TEST_CASE("bulk replay: a dry run counts and changes nothing", "[store][replay]") {
  ReplayFixture f;
  f.Add(3, "a");
  std::atomic<int> commits{0};
  f.store->writer().SetCommitHookForTest([&] {
    ++commits;
    return Status::Ok();
  });
  store::ReplayReport r = f.Run(Filter(), true);
  CHECK(r.matched == 3);
  CHECK(r.replayed == 0);
  CHECK(commits == 0);
  CHECK(f.CountStatus("dead_lettered") == 3);
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 0);
}

TEST_CASE("bulk replay: a bad filter is refused and changes nothing", "[store][replay]") {
  ReplayFixture f;
  f.Add(2, "a");
  auto refused = [&](store::ReplayFilter filter, const std::string& says) {
    auto r = f.store->ReplayMatching(filter, "cli:bob", "", kNow, false);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK(r.status().message().find(says) != std::string::npos);
  };
  refused(Filter("received"), "status must be dead_lettered, unknown or completed");
  refused(Filter("processing"), "status must be");
  refused(Filter(""), "status must be");
  refused(Filter("dead_letters"), "status must be");
  refused(Filter("dead_lettered", ""), "an endpoint is required");
  auto range = Filter();
  range.since_ms = kT0 + 5000;
  range.until_ms = kT0 + 5000;
  refused(range, "until must be after since");
  CHECK(f.CountStatus("dead_lettered") == 2);
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 0);
}

TEST_CASE("bulk replay: an event no longer in the filtered state when its batch runs is left alone",
          "[store][replay]") {
  // The batch replays an id only from the state the filter named
  // (ReplayEventInTransaction's only_from): one replayed by hand meanwhile
  // (now received) or resolved (now completed) is not replayed again.
  ReplayFixture f;
  auto ids = f.Add(1, "a");
  f.Exec("UPDATE webhook_inbox SET status = 'completed'");
  auto db = f.Connect();
  auto r = store::ReplayEventInTransaction(*db, ids[0], store::EventStatus::kDeadLettered, "cli:bob", "", kNow);
  CHECK(r.verdict == store::ReplayVerdict::kNotReplayable);
  CHECK(r.from == store::EventStatus::kCompleted);
  CHECK(f.Count("SELECT count(*) FROM webhook_event_actions") == 0);
  CHECK(store::ReplayEventInTransaction(*db, ids[0] + 100, std::nullopt, "cli:bob", "", kNow).verdict ==
        store::ReplayVerdict::kNoSuchEvent);
}

TEST_CASE("bulk replay: 100 000 events, how long each batch holds the writer (prints figures)", "[.][bench][replay]") {
  ReplayFixture f;
  const int n = 100000;
  for (int i = 0; i < n / 5000; ++i) f.Add(5000, "b" + std::to_string(i) + "_");
  std::vector<std::chrono::steady_clock::time_point> commits;
  f.store->writer().SetCommitHookForTest([&] {
    commits.push_back(std::chrono::steady_clock::now());
    return Status::Ok();
  });
  const auto start = std::chrono::steady_clock::now();
  store::ReplayReport r = f.Run(Filter());
  const auto total = std::chrono::steady_clock::now() - start;
  CHECK(r.replayed == n);
  int64_t longest_us = 0;
  for (size_t i = 1; i < commits.size(); ++i) {
    longest_us = std::max<int64_t>(
        longest_us, std::chrono::duration_cast<std::chrono::microseconds>(commits[i] - commits[i - 1]).count());
  }
  WARN("replayed " << n << " in " << std::chrono::duration_cast<std::chrono::milliseconds>(total).count() << " ms, "
                   << commits.size() << " commits, longest gap between two commits " << longest_us / 1000 << " ms");
}
