// store/copy: an SQLite installation copied into PostgreSQL keeps every row,
// its id and its audit history; copying again changes nothing; a target in
// use is refused. Runs in the PostgreSQL pass of the suite (the target).
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

#include "store/audit_chain.h"
#include "store/copy.h"
#include "store/sql/sqlite_connection.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;
const char* const kTables[] = {"webhook_inbox",     "webhook_deliveries", "webhook_payloads", "webhook_delivery_events",
                               "webhook_attempts",  "webhook_event_actions", "business_keys", "object_versions",
                               "effects",           "step_results",       "endpoint_states",   "endpoint_actions",
                               "endpoint_key_specs", "audit_chain_heads", "audit_checkpoints"};

// An SQLite installation with a bit of everything: accepted, duplicate and
// conflicting deliveries (one body binary), a batch, a rejection, a finished
// attempt, an operator's replay, a business key, an effect and a step.
struct SqliteSource {
  TempDir dir;
  std::string path = dir.File("source.db");

  SqliteSource() {
    auto opened = store::SqlStore::Open({path, 2000, 64});
    REQUIRE(opened.ok());
    auto& s = **opened;
    auto e1 = SampleEvent("evt_1", "h1", std::string("bin\0ary\xff", 8));
    e1.business_key = "bk-1";
    REQUIRE(s.RecordEvent(e1, SampleDelivery()).ok());
    REQUIRE(s.RecordEvent(e1, SampleDelivery()).ok());                              // duplicate
    REQUIRE(s.RecordEvent(SampleEvent("evt_1", "h-other"), SampleDelivery()).ok());  // conflict
    REQUIRE(s.RecordBatch({SampleEvent("evt_2", "h2"), SampleEvent("evt_3", "h3")}, SampleDelivery()).ok());
    auto rejected = SampleDelivery();
    rejected.reason = "unauthenticated";
    REQUIRE(s.RecordRejected(rejected).ok());
    auto c = s.LeaseDue("w1", kT0, 30000, {});
    REQUIRE(c.ok());
    REQUIRE(c->has_value());
    auto grant = s.Authenticate((*c)->token, kT0);
    REQUIRE(grant.ok());
    REQUIRE(s.ClaimEffect(*grant, "charge:1", kT0).ok());
    REQUIRE(s.EndEffect(*grant, "charge:1", store::EffectEnd::kDone, "ch_1", kT0).ok());
    REQUIRE(s.PutStep(*grant, "draft", "text/plain", "hello", kT0).ok());
    store::AttemptResult done;
    done.id = (*c)->id;
    done.owner = "w1";
    done.attempt = (*c)->attempt;
    done.outcome = store::AttemptOutcome::kCompleted;
    done.finished_at_ms = kT0 + 5;
    REQUIRE(s.Finish(done).ok());
    REQUIRE(s.Replay((*c)->id, "admin", "again", kT0 + 10).ok());
    REQUIRE(*s.SetPaused("payments", true, "cli:alice", "CRM maintenance", kT0 + 11));
    REQUIRE(*s.SetPaused("payments", false, "cli:alice", "", kT0 + 12));
    REQUIRE(*s.SetPaused("payments", true, "cli:bob", "", kT0 + 13));
    store::BreakerRecord open;
    open.endpoint = "crm";
    open.state = store::BreakerState::kOpen;
    open.failures = 5;
    open.at_ms = kT0 + 14;
    REQUIRE(s.RecordBreaker(open).ok());
    REQUIRE(s.RecordKeySpecs({{"payments", "generic", "aaaa", "{}"}}, {}, "serve:alice", kT0 + 15).ok());
    s.Close();
  }

  std::unique_ptr<store::sql::Connection> Connect() const {
    return std::make_unique<store::sql::SqliteConnection>(std::make_unique<SQLite::Database>(path, SQLite::OPEN_READONLY));
  }
};

int64_t Rows(store::sql::Connection& db, const std::string& table) {
  return store::sql::QueryInt64(db, "SELECT count(*) FROM " + table);
}

}  // namespace

TEST_CASE("copy: every table arrives with its ids, bytes and audit chain; a second copy changes nothing",
          "[store][copy]") {
  StoreFixture target;
  if (!target.postgres()) {
    SUCCEED("the target is PostgreSQL: runs in store_test_postgres");
    return;
  }
  SqliteSource source;
  auto from = source.Connect();
  for (int pass = 0; pass < 2; ++pass) {
    auto to = target.Connect();
    auto report = store::CopyDatabase(*from, *to, nullptr);
    INFO("pass " << pass << ": " << report.status().message());
    REQUIRE(report.ok());
    for (const char* table : kTables) {
      INFO(table);
      CHECK(Rows(*to, table) == Rows(*from, table));
    }
  }
  auto to = target.Connect();
  CHECK(Rows(*to, "webhook_inbox") == 3);
  CHECK(Rows(*to, "effects") == 1);
  CHECK(Rows(*to, "endpoint_actions") == 3);
  CHECK(Rows(*to, "endpoint_key_specs") == 1);
  CHECK(store::sql::QueryText(*to, "SELECT string_agg(endpoint || ':' || coalesce(paused_by, '-') || ':' || breaker, ','"
                                   " ORDER BY endpoint) FROM endpoint_states") == "crm:-:open,payments:cli:bob:closed");
  CHECK(store::sql::QueryText(*to, "SELECT body FROM webhook_payloads WHERE kind = 'original' ORDER BY id LIMIT 1") ==
        std::string("bin\0ary\xff", 8));
  CHECK(store::sql::QueryText(*to, "SELECT string_agg(id || ':' || event_id || ':' || status, ',' ORDER BY id) FROM webhook_inbox") ==
        store::sql::QueryText(*from, "SELECT group_concat(id || ':' || event_id || ':' || status, ',') FROM"
                                     " (SELECT * FROM webhook_inbox ORDER BY id)"));
  auto audit = store::VerifyAudit(*to);
  REQUIRE(audit.ok());
  INFO(audit->broken << ": " << audit->detail);
  CHECK(audit->ok);
  // New rows take ids after the copied ones.
  auto store = target.database.OpenStore(2000, 64);
  auto r = store->RecordEvent(SampleEvent("evt_new"), SampleDelivery());
  REQUIRE(r.ok());
  CHECK(r->inbox_id == 4);
  REQUIRE(*store->SetPaused("crm", true, "cli:alice", "", kT0 + 20));
  CHECK(store::sql::QueryInt64(*to, "SELECT max(id) FROM endpoint_actions") == 4);
}

TEST_CASE("copy: a target already in use is refused and left as it was", "[store][copy]") {
  StoreFixture target;
  if (!target.postgres()) {
    SUCCEED("the target is PostgreSQL: runs in store_test_postgres");
    return;
  }
  SqliteSource source;
  // Fewer rows than the source, so no id is past the source's: only the rows themselves tell.
  for (int i = 0; i < 2; ++i) target.ClaimAt(SampleEvent("pg_" + std::to_string(i)), kT0);
  auto before = target.Count("SELECT count(*) FROM webhook_deliveries");
  auto report = store::CopyDatabase(*source.Connect(), *target.Connect(), nullptr);
  REQUIRE_FALSE(report.ok());
  CHECK(report.status().code() == Code::kInvalidArgument);
  CHECK_THAT(report.status().message(), Catch::Contains("in use"));
  CHECK(target.Count("SELECT count(*) FROM webhook_deliveries") == before);
  CHECK(target.Count("SELECT count(*) FROM webhook_inbox WHERE event_id = 'evt_1'") == 0);
}
