// Retention (store/purge.h): what goes, what never goes, and that the audit
// chains still verify afterwards.
#include <catch2/catch.hpp>

#include "store/audit_chain.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;
constexpr int64_t kDay = 86400000;

struct PurgeFixture : StoreFixture {
  bool Verified() const {
    auto r = store::VerifyAudit(*Connect());
    REQUIRE(r.ok());
    INFO(r->broken << ": " << r->detail);
    return r->ok;
  }
  int64_t Accept(const std::string& id, int64_t at = kT0) {
    return ClaimAt(SampleEvent(id, "h-" + id, R"({"id":")" + id + R"("})"), at);
  }
  // Claims the next due event; with an outcome, finishes it.
  int64_t Work(std::optional<store::AttemptOutcome> outcome, int64_t now = kT0 + 1000) {
    auto c = store->LeaseDue("w1", now, 30000, {});
    REQUIRE(c.ok());
    REQUIRE(c->has_value());
    if (outcome) {
      store::AttemptResult r;
      r.id = (*c)->id;
      r.owner = "w1";
      r.attempt = (*c)->attempt;
      r.outcome = *outcome;
      r.finished_at_ms = now + 10;
      r.next_attempt_at_ms = now + 365 * kDay;  // retryable: not due again in this test
      REQUIRE(store->Finish(r).ok());
    }
    return (*c)->id;
  }
  store::PurgeReport Purge(int key_days, int payload_days, bool dry_run, int64_t now = kT0 + 30 * kDay) {
    store::PurgeOptions o;
    o.endpoints = {{"payments", payload_days, key_days}};
    o.orphan_key_days = key_days;
    o.now_ms = now;
    o.dry_run = dry_run;
    o.batch = 2;  // several batches even for a handful of rows
    auto r = store->Purge(o);
    REQUIRE(r.ok());
    return *r;
  }
  // Every row of every table, as one text, to compare before and after.
  std::string Snapshot() const {
    std::string out;
    for (const char* t : {"webhook_inbox", "webhook_payloads", "webhook_deliveries", "webhook_attempts",
                          "step_results", "audit_checkpoints", "business_keys"}) {
      out += t + std::string(":") + std::to_string(Count(std::string("SELECT count(*) FROM ") + t)) + ";";
    }
    return out + Joined("SELECT id || status FROM webhook_inbox ORDER BY id");
  }
};

// One event in every state, all received 30+ days before `now`, each with a delivery, a payload and
// (for those the worker touched) attempts. Returns ids by state.
std::map<std::string, int64_t> EveryState(PurgeFixture& f) {
  std::map<std::string, int64_t> ids;
  using O = store::AttemptOutcome;
  ids["completed"] = f.Accept("evt_completed");
  f.Work(O::kCompleted);
  ids["dead_lettered"] = f.Accept("evt_dead");
  f.Work(O::kDeadLettered);
  ids["unknown"] = f.Accept("evt_unknown");
  f.Work(O::kUnknown);
  ids["retryable_failed"] = f.Accept("evt_retry");
  f.Work(O::kRetryableFailed);
  ids["processing"] = f.Accept("evt_processing");
  f.Work(std::nullopt);  // claimed, never finished: attempt open
  ids["received"] = f.Accept("evt_received");
  ids["skipped"] = f.Accept("evt_skipped");
  f.Exec("UPDATE webhook_inbox SET status = 'skipped', next_attempt_at = NULL WHERE id = " +
         std::to_string(ids["skipped"]));
  // Make sure "received" stays unclaimed (nothing above claims after it was added).
  return ids;
}

}  // namespace

TEST_CASE("purge: only completed, dead_lettered and skipped events go; every other state keeps every row",
          "[store][purge]") {
  PurgeFixture f;
  auto ids = EveryState(f);
  REQUIRE(f.Verified());
  auto report = f.Purge(7, 7, false);
  const auto& c = report.endpoints.at("payments");
  CHECK(c.events == 3);
  CHECK(c.deliveries == 3);
  CHECK(c.attempts == 2);  // completed and dead_lettered had one each; skipped none
  CHECK(c.payloads == 3);
  for (const char* gone : {"completed", "dead_lettered", "skipped"}) {
    INFO(gone);
    CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE id = " + std::to_string(ids[gone])) == 0);
  }
  for (const char* kept : {"received", "processing", "retryable_failed", "unknown"}) {
    INFO(kept);
    const std::string id = std::to_string(ids[kept]);
    CHECK(f.Text("SELECT status FROM webhook_inbox WHERE id = " + id) == kept);
    CHECK(f.Count("SELECT count(*) FROM webhook_payloads WHERE inbox_id = " + id) == 1);
    CHECK(f.Count("SELECT count(*) FROM webhook_deliveries WHERE inbox_id = " + id) == 1);
  }
  CHECK(f.Count("SELECT count(*) FROM webhook_attempts") == 3);  // unknown, retryable_failed, processing (open)
  CHECK(report.checkpoints >= 1);
  CHECK(f.Count("SELECT count(*) FROM audit_checkpoints WHERE kind = 'purge'") >= 1);
  CHECK(f.Verified());
  // A second run finds nothing more.
  CHECK_FALSE(f.Purge(7, 7, false).endpoints.at("payments").any());
}

TEST_CASE("purge: an endpoint's pause, breaker and pause history are kept however old", "[store][purge]") {
  PurgeFixture f;
  EveryState(f);
  REQUIRE(*f.store->SetPaused("payments", true, "cli:alice", "old", kT0));
  REQUIRE(*f.store->SetPaused("payments", false, "cli:alice", "", kT0 + 1));
  REQUIRE(*f.store->SetPaused("payments", true, "cli:bob", "still", kT0 + 2));
  f.Purge(7, 7, false);
  CHECK(f.Count("SELECT count(*) FROM endpoint_actions") == 3);
  CHECK(f.Text("SELECT paused_by FROM endpoint_states WHERE endpoint = 'payments'") == "cli:bob");
}

TEST_CASE("purge: a dry run changes nothing and counts what the real run removes", "[store][purge]") {
  PurgeFixture f;
  EveryState(f);
  const std::string before = f.Snapshot();
  auto dry = f.Purge(7, 7, true).endpoints.at("payments");
  CHECK(f.Snapshot() == before);
  auto real = f.Purge(7, 7, false).endpoints.at("payments");
  CHECK(dry.events == real.events);
  CHECK(dry.deliveries == real.deliveries);
  CHECK(dry.attempts == real.attempts);
  CHECK(dry.payloads == real.payloads);
  CHECK(f.Snapshot() != before);
}

TEST_CASE("purge: payload_days removes only the bodies of terminal events", "[store][purge]") {
  PurgeFixture f;
  auto ids = EveryState(f);
  auto c = f.Purge(0, 7, false).endpoints.at("payments");
  CHECK(c.events == 0);
  CHECK(c.payloads == 3);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox") == 7);
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads WHERE inbox_id = " + std::to_string(ids["completed"])) == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_payloads WHERE inbox_id = " + std::to_string(ids["unknown"])) == 1);
  CHECK(f.Verified());
  // Without its body a completed event cannot be replayed (the action would get an empty one).
  Status replay = f.store->Replay(ids["completed"], "cli:test", "", kT0 + 31 * kDay);
  CHECK(replay.code() == Code::kConflict);
  CHECK(replay.message().find("retention") != std::string::npos);
  CHECK(f.Text("SELECT status FROM webhook_inbox WHERE id = " + std::to_string(ids["completed"])) == "completed");
}

TEST_CASE("purge: recent activity and business keys keep an expired event", "[store][purge]") {
  PurgeFixture f;
  int64_t recent = f.Accept("evt_recent");
  f.Work(store::AttemptOutcome::kCompleted);
  int64_t guarded = f.Accept("evt_guarded");
  f.Work(store::AttemptOutcome::kCompleted);
  int64_t old = f.Accept("evt_old");
  f.Work(store::AttemptOutcome::kCompleted);
  f.Accept("evt_recent", kT0 + 29 * kDay);  // the provider still sends it: a duplicate a day ago
  f.Exec("INSERT INTO business_keys (tenant_id, key_hash, hint, inbox_id, status, claimed_at) VALUES"
         " ('default', 'k1', 'mark_paid', " + std::to_string(guarded) + ", 'applied', 0)");
  auto c = f.Purge(7, 0, false).endpoints.at("payments");
  CHECK(c.events == 1);
  CHECK(c.kept == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE id = " + std::to_string(old)) == 0);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE id = " + std::to_string(recent)) == 1);
  CHECK(f.Count("SELECT count(*) FROM webhook_inbox WHERE id = " + std::to_string(guarded)) == 1);
  CHECK(f.Count("SELECT count(*) FROM business_keys") == 1);
  CHECK(f.Verified());
}

TEST_CASE("purge: holes purged at different times join into one checkpoint and the chain still verifies",
          "[store][purge]") {
  PurgeFixture f;
  // Deliveries 1..4: a (old), b (newer), c (old), keeper (never terminal).
  int64_t a = f.Accept("evt_a");
  int64_t b = f.Accept("evt_b", kT0 + 10 * kDay);
  int64_t c = f.Accept("evt_c");
  f.Accept("evt_keep");
  f.Exec("UPDATE webhook_inbox SET status = 'completed', next_attempt_at = NULL WHERE id IN (" + std::to_string(a) +
         "," + std::to_string(b) + "," + std::to_string(c) + ")");
  f.Purge(7, 0, false, kT0 + 15 * kDay);  // a and c: two holes
  CHECK(f.Count("SELECT count(*) FROM audit_checkpoints WHERE kind = 'purge' AND table_name = 'webhook_deliveries'") ==
        2);
  CHECK(f.Verified());
  f.Purge(7, 0, false, kT0 + 30 * kDay);  // b fills the gap between them
  CHECK(f.Count("SELECT count(*) FROM audit_checkpoints WHERE kind = 'purge' AND table_name = 'webhook_deliveries'") ==
        1);
  CHECK(f.Text("SELECT first_seq || '-' || last_seq || ':' || rows FROM audit_checkpoints WHERE kind = 'purge'") ==
        "1-3:3");
  CHECK(f.Verified());
  // Deleting a checkpoint is noticed like deleting rows.
  f.Exec("DELETE FROM audit_checkpoints WHERE kind = 'purge'");
  CHECK_FALSE(f.Verified());
}
