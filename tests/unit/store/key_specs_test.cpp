// store/key_specs: the key-derivation guard's record on both backends — the
// first record, an unchanged spec, a change with and without stored events,
// an accepted change and its audit row, the fingerprint stored at ingest,
// and migration 10 keeping the endpoint_actions rows it rebuilds.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>
#include <vector>

#include "store/key_specs.h"
#include "store/migrations.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;

store::KeySpecNow Spec(const std::string& endpoint, const std::string& fingerprint,
                       const std::string& provider = "generic") {
  return {endpoint, provider, fingerprint, R"({"id_pointer":"/)" + fingerprint + R"(","provider":"generic"})"};
}

std::vector<store::KeySpecChange> Check(StoreFixture& f, const std::vector<store::KeySpecNow>& specs) {
  auto r = f.store->CheckKeySpecs(specs);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *r;
}

void Record(StoreFixture& f, const std::vector<store::KeySpecNow>& specs, const std::vector<std::string>& accepted,
            int64_t at) {
  Status st = f.store->RecordKeySpecs(specs, accepted, "serve:alice", at);
  INFO(st.message());
  REQUIRE(st.ok());
}

int64_t HistoryRows(const StoreFixture& f) { return f.Count("SELECT count(*) FROM endpoint_key_specs"); }
int64_t ActionRows(const StoreFixture& f) { return f.Count("SELECT count(*) FROM endpoint_actions"); }

}  // namespace

TEST_CASE("key specs: the first record is no change; an unchanged spec records nothing more", "[store][key_spec]") {
  StoreFixture f;
  f.ClaimAt(SampleEvent("evt_1"), kT0);  // events from before the upgrade: no spec recorded yet
  const std::vector<store::KeySpecNow> specs = {Spec("payments", "aaaa"), Spec("crm", "bbbb")};
  CHECK(Check(f, specs).empty());
  Record(f, specs, {}, kT0);
  CHECK(HistoryRows(f) == 2);
  CHECK(f.Joined("SELECT endpoint || '|' || provider || '|' || fingerprint || '|' || in_force_from || '|' ||"
                 " recorded_by FROM endpoint_key_specs ORDER BY id") ==
        "payments|generic|aaaa|1764511200000|serve:alice,crm|generic|bbbb|1764511200000|serve:alice");
  CHECK(f.Text("SELECT spec FROM endpoint_key_specs WHERE endpoint = 'payments'") == specs[0].spec);
  CHECK(ActionRows(f) == 0);  // a first record is not a change

  CHECK(Check(f, specs).empty());
  Record(f, specs, {}, kT0 + 1000);
  CHECK(HistoryRows(f) == 2);
  CHECK(ActionRows(f) == 0);
}

TEST_CASE("key specs: a change while events are stored is reported, refused unaccepted, audited accepted",
          "[store][key_spec]") {
  StoreFixture f;
  Record(f, {Spec("payments", "aaaa"), Spec("crm", "bbbb")}, {}, kT0);
  f.ClaimAt(SampleEvent("evt_1"), kT0 + 1);
  f.ClaimAt(SampleEvent("evt_2"), kT0 + 2);
  const std::vector<store::KeySpecNow> now = {Spec("payments", "cccc"), Spec("crm", "bbbb")};

  auto changes = Check(f, now);
  REQUIRE(changes.size() == 1);
  const store::KeySpecChange& c = changes[0];
  CHECK(c.endpoint == "payments");
  CHECK(c.old_fingerprint == "aaaa");
  CHECK(c.new_fingerprint == "cccc");
  CHECK(c.old_spec == Spec("payments", "aaaa").spec);
  CHECK(c.new_spec == now[0].spec);
  CHECK(c.stored_events == 2);
  CHECK(store::ExplainKeySpecChange(c).rfind(
            "endpoint \"payments\": the idempotency key settings changed (fingerprint aaaa → cccc) while 2 stored "
            "events still deduplicate by the old keys: a provider's redelivery of one of them would be stored and "
            "processed again as a new event. Start or reload with --accept-key-change payments to accept this.",
            0) == 0);

  SECTION("not accepted: Conflict with the explanation, nothing written") {
    for (const std::vector<std::string>& accepted : {std::vector<std::string>{}, {"crm"}}) {
      Status st = f.store->RecordKeySpecs(now, accepted, "serve:alice", kT0 + 10);
      CHECK(st.code() == Code::kConflict);
      CHECK_THAT(st.message(), Catch::Contains("--accept-key-change payments"));
    }
    CHECK(HistoryRows(f) == 2);
    CHECK(ActionRows(f) == 0);
    CHECK(Check(f, now).size() == 1);
  }
  SECTION("accepted: a history row and an audit row; then no change any more") {
    Record(f, now, {"payments"}, kT0 + 10);
    CHECK(HistoryRows(f) == 3);
    CHECK(f.Text("SELECT fingerprint FROM endpoint_key_specs WHERE endpoint = 'payments' ORDER BY id DESC LIMIT 1") ==
          "cccc");
    CHECK(f.Joined("SELECT endpoint || '|' || at || '|' || actor || '|' || action FROM endpoint_actions") ==
          "payments|1764511200010|serve:alice|key_spec_changed");
    const std::string reason = f.Text("SELECT reason FROM endpoint_actions");
    CHECK_THAT(reason, Catch::StartsWith("key settings aaaa → cccc, accepted while 2 stored events kept their old keys"));
    CHECK_THAT(reason, Catch::Contains(now[0].spec));
    CHECK(Check(f, now).empty());
  }
}

TEST_CASE("key specs: a change with no stored events is not reported, just recorded and audited",
          "[store][key_spec]") {
  StoreFixture f;
  Record(f, {Spec("payments", "aaaa"), Spec("crm", "bbbb")}, {}, kT0);
  f.ClaimAt(SampleEvent("evt_1"), kT0 + 1);  // a payments event: crm holds none
  const std::vector<store::KeySpecNow> now = {Spec("payments", "aaaa"), Spec("crm", "dddd")};
  CHECK(Check(f, now).empty());
  Record(f, now, {}, kT0 + 10);
  CHECK(HistoryRows(f) == 3);
  CHECK(f.Joined("SELECT endpoint || '|' || action || '|' || reason FROM endpoint_actions") ==
        "crm|key_spec_changed|key settings bbbb → dddd (no stored events); was " + Spec("crm", "bbbb").spec +
            "; now " + now[1].spec);
}

TEST_CASE("key specs: events are found under the provider last recorded, also when the provider changes",
          "[store][key_spec]") {
  StoreFixture f;
  Record(f, {Spec("payments", "aaaa", "generic")}, {}, kT0);
  f.ClaimAt(SampleEvent("evt_1"), kT0 + 1);  // stored under provider "generic"
  auto changes = Check(f, {Spec("payments", "eeee", "stripe")});
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].stored_events == 1);
  CHECK_THAT(store::ExplainKeySpecChange(changes[0]),
             Catch::Contains("while 1 stored event still deduplicates by its old key: a provider's redelivery of it"
                             " would be stored"));
  SECTION("a new endpoint and an endpoint gone from the config are no change") {
    CHECK(Check(f, {Spec("other", "ffff")}).empty());
    CHECK(Check(f, {}).empty());
  }
}

TEST_CASE("key specs: bad input is refused and writes nothing", "[store][key_spec]") {
  StoreFixture f;
  CHECK(f.store->RecordKeySpecs({Spec("payments", "aaaa")}, {}, "", kT0).code() == Code::kInvalidArgument);
  auto incomplete = Spec("payments", "aaaa");
  incomplete.spec.clear();
  CHECK(f.store->RecordKeySpecs({incomplete}, {}, "serve:alice", kT0).code() == Code::kInvalidArgument);
  CHECK(f.store->CheckKeySpecs({incomplete}).status().code() == Code::kInvalidArgument);
  Status twice = f.store->RecordKeySpecs({Spec("payments", "aaaa"), Spec("payments", "bbbb")}, {}, "serve:alice", kT0);
  CHECK(twice.code() == Code::kInvalidArgument);
  CHECK_THAT(twice.message(), Catch::Contains("named twice"));
  CHECK(HistoryRows(f) == 0);
}

TEST_CASE("key specs: each event stores the fingerprint that derived its key; none stores NULL",
          "[store][key_spec]") {
  StoreFixture f;
  auto with = SampleEvent("evt_1");
  with.key_spec = "0123456789abcdef";
  f.ClaimAt(with, kT0);
  f.ClaimAt(SampleEvent("evt_2"), kT0);
  auto batch = f.store->RecordBatch({with, [&] {
                                       auto e = with;
                                       e.event_id = "evt_3";
                                       return e;
                                     }()},
                                    SampleDelivery());
  REQUIRE(batch.ok());
  CHECK(f.Joined("SELECT event_id || '|' || coalesce(key_spec, 'NULL') FROM webhook_inbox ORDER BY id") ==
        "evt_1|0123456789abcdef,evt_2|NULL,evt_3|0123456789abcdef");
}

TEST_CASE("key specs: the stored-events check seeks the inbox's unique key, never scans it", "[store][key_spec][sqlite]") {
  StoreFixture f;
  SQLite::Database db(f.path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db,
                      "EXPLAIN QUERY PLAN SELECT count(*) FROM (SELECT 1 FROM webhook_inbox WHERE provider = ?"
                      " AND endpoint = ? LIMIT 10001) AS held");
  std::string plan;
  while (q.executeStep()) plan += q.getColumn(3).getString() + "\n";
  CAPTURE(plan);
  CHECK_THAT(plan, Catch::Contains("SEARCH webhook_inbox USING COVERING INDEX sqlite_autoindex_webhook_inbox_1"));
  CHECK_THAT(plan, !Catch::Contains("SCAN webhook_inbox"));
  SQLite::Statement latest(db,
                           "EXPLAIN QUERY PLAN SELECT provider, fingerprint, spec FROM endpoint_key_specs"
                           " WHERE endpoint = ? ORDER BY id DESC LIMIT 1");
  plan.clear();
  while (latest.executeStep()) plan += latest.getColumn(3).getString() + "\n";
  CHECK_THAT(plan, Catch::Contains("SEARCH endpoint_key_specs USING INDEX endpoint_key_specs_endpoint"));
}

TEST_CASE("key specs: migration 10 keeps every endpoint_actions row and its id, and admits key_spec_changed",
          "[store][key_spec]") {
  TempDir dir;
  TestDatabase database(dir.File("hookinbox.db"));
  auto all = store::ParseMigrations(store::EmbeddedSchema(database.postgres() ? store::sql::Backend::kPostgres
                                                                              : store::sql::Backend::kSqlite));
  REQUIRE(all.ok());
  // Up to 9 by version, not "all but the last": later migrations follow 10.
  std::vector<store::Migration> up_to_9;
  bool has_10 = false;
  for (const store::Migration& m : *all) {
    if (m.version <= 9) up_to_9.push_back(m);
    has_10 = has_10 || m.version == 10;
  }
  REQUIRE(has_10);
  REQUIRE(up_to_9.back().version == 9);
  if (!database.postgres()) SQLite::Database(database.sqlite_path(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  {
    auto db = database.Connect();
    REQUIRE(store::Migrate(*db, up_to_9).ok());
    db->Exec("INSERT INTO endpoint_actions (endpoint, at, actor, action, reason) VALUES"
             " ('payments', 1, 'cli:alice', 'pause', 'maintenance'), ('payments', 2, 'cli:alice', 'resume', NULL)");
  }
  auto store = database.OpenStore(2000, 64);
  REQUIRE(store->RecordKeySpecs({Spec("payments", "aaaa")}, {}, "serve:alice", kT0).ok());
  REQUIRE(store->RecordKeySpecs({Spec("payments", "bbbb")}, {}, "serve:alice", kT0 + 1).ok());
  auto db = database.Connect();
  auto rows = db->Prepare("SELECT id, action, coalesce(reason, '-') FROM endpoint_actions ORDER BY id");
  std::string seen;
  while (rows->executeStep()) {
    seen += rows->getColumn(0).getString() + ":" + rows->getColumn(1).getString() + ":" +
            rows->getColumn(2).getString().substr(0, 11) + ",";
  }
  CHECK(seen == "1:pause:maintenance,2:resume:-,3:key_spec_changed:key setting,");
  CHECK(store::sql::QueryInt64(*db, "SELECT count(*) FROM endpoint_key_specs") == 2);
}
