// store/endpoint_states: the steps of a secret rotation as endpoint_actions
// rows (secret_rotated, secret_retired), the service's "window ended" row
// written once per rotation, refusals that write nothing, and migration 11
// keeping the rows it rebuilds. Runs on PostgreSQL too (HOOKINBOX_TEST_PG_URL).
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include <vector>

#include "store/migrations.h"
#include "store_fixture.h"

using namespace hookinbox;
using namespace hookinbox::testing;

namespace {

constexpr int64_t kT0 = 1764511200000;

struct RotationFixture : StoreFixture {
  store::EndpointStates& states() { return *store; }
  // The audit rows, oldest first, as "endpoint|actor|action|reason|at".
  std::string Actions() const {
    return Joined(
        "SELECT endpoint || '|' || actor || '|' || action || '|' || coalesce(reason, '') || '|' || at"
        " FROM endpoint_actions ORDER BY id",
        ";");
  }
  bool Retired(const std::string& endpoint, bool only_after_rotation, int64_t at) {
    auto wrote = states().RecordSecretRetired(endpoint, "serve", "window ended", at, only_after_rotation);
    REQUIRE(wrote.ok());
    return *wrote;
  }
};

}  // namespace

TEST_CASE_METHOD(RotationFixture, "secret steps: a rotation is one secret_rotated row naming actor and reason",
                 "[store][rotation]") {
  REQUIRE(states().RecordSecretRotated("payments", "cli:alice", "new secret in /etc/s; until X", kT0).ok());
  CHECK(Actions() == "payments|cli:alice|secret_rotated|new secret in /etc/s; until X|" + std::to_string(kT0));
}

TEST_CASE_METHOD(RotationFixture, "secret steps: the service's window end is written once per rotation",
                 "[store][rotation]") {
  SECTION("no rotation ever: nothing written") {
    CHECK_FALSE(Retired("payments", true, kT0));
    CHECK(Actions().empty());
  }
  SECTION("after a rotation: once, then not again (restarts, replicas)") {
    REQUIRE(states().RecordSecretRotated("payments", "cli:alice", "r1", kT0).ok());
    CHECK(Retired("payments", true, kT0 + 1));
    CHECK_FALSE(Retired("payments", true, kT0 + 2));
    CHECK(Actions() == "payments|cli:alice|secret_rotated|r1|" + std::to_string(kT0) +
                           ";payments|serve|secret_retired|window ended|" + std::to_string(kT0 + 1));
    // A second rotation opens a new window, which ends once too.
    REQUIRE(states().RecordSecretRotated("payments", "cli:alice", "r2", kT0 + 3).ok());
    CHECK(Retired("payments", true, kT0 + 4));
    CHECK_FALSE(Retired("payments", true, kT0 + 5));
    CHECK(Count("SELECT count(*) FROM endpoint_actions WHERE action = 'secret_retired'") == 2);
  }
  SECTION("an operator's retire closed the window: the service writes nothing more") {
    REQUIRE(states().RecordSecretRotated("payments", "cli:alice", "r1", kT0).ok());
    auto wrote = states().RecordSecretRetired("payments", "cli:bob", "retired", kT0 + 1, false);
    REQUIRE(wrote.ok());
    CHECK(*wrote);
    CHECK_FALSE(Retired("payments", true, kT0 + 2));
  }
  SECTION("other endpoints' rows and other actions do not count") {
    REQUIRE(states().RecordSecretRotated("orders", "cli:alice", "r1", kT0).ok());
    REQUIRE(states().SetPaused("payments", true, "cli:alice", "maintenance", kT0).ok());
    CHECK_FALSE(Retired("payments", true, kT0 + 1));
    CHECK(Retired("orders", true, kT0 + 1));
  }
}

TEST_CASE_METHOD(RotationFixture, "secret steps: an operator's retire is always written, rotation or not",
                 "[store][rotation]") {
  for (int i = 0; i < 2; ++i) {
    auto wrote = states().RecordSecretRetired("payments", "cli:alice", "retired", kT0 + i, false);
    REQUIRE(wrote.ok());
    CHECK(*wrote);
  }
  CHECK(Count("SELECT count(*) FROM endpoint_actions WHERE action = 'secret_retired'") == 2);
}

TEST_CASE_METHOD(RotationFixture, "secret steps: bad arguments are refused and write nothing", "[store][rotation]") {
  const std::string long_reason(1025, 'r');
  struct Case {
    std::string endpoint, actor, reason;
  };
  for (const Case& c :
       {Case{"", "cli:alice", "r"}, Case{std::string(201, 'e'), "cli:alice", "r"}, Case{"payments", "", "r"},
        Case{"payments", "cli:alice", long_reason}, Case{"payments", "cli:alice", "bad \xff utf-8"}}) {
    INFO(c.endpoint.substr(0, 10) << " / " << c.actor << " / " << c.reason.size());
    Status rotated = states().RecordSecretRotated(c.endpoint, c.actor, c.reason, kT0);
    CHECK(rotated.code() == Code::kInvalidArgument);
    auto retired = states().RecordSecretRetired(c.endpoint, c.actor, c.reason, kT0, false);
    CHECK(retired.status().code() == Code::kInvalidArgument);
  }
  CHECK(Count("SELECT count(*) FROM endpoint_actions") == 0);
}

TEST_CASE("secret steps: migration 11 keeps every endpoint_actions row and its id, and admits the rotation steps",
          "[store][rotation]") {
  TempDir dir;
  TestDatabase database(dir.File("hookinbox.db"));
  auto all = store::ParseMigrations(
      store::EmbeddedSchema(database.postgres() ? store::sql::Backend::kPostgres : store::sql::Backend::kSqlite));
  REQUIRE(all.ok());
  std::vector<store::Migration> up_to_10;
  bool has_11 = false;
  for (const store::Migration& m : *all) {
    if (m.version <= 10) up_to_10.push_back(m);
    has_11 = has_11 || m.version == 11;
  }
  REQUIRE(has_11);
  if (!database.postgres()) SQLite::Database(database.sqlite_path(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  {
    auto db = database.Connect();
    REQUIRE(store::Migrate(*db, up_to_10).ok());
    db->Exec(
        "INSERT INTO endpoint_actions (endpoint, at, actor, action, reason) VALUES"
        " ('payments', 1, 'cli:alice', 'pause', 'maintenance'), ('payments', 2, 'cli:alice', 'resume', NULL),"
        " ('payments', 3, 'serve', 'key_spec_changed', 'key setting')");
    // Before 11, the rotation steps are not admitted.
    CHECK_THROWS(
        db->Exec("INSERT INTO endpoint_actions (endpoint, at, actor, action) VALUES"
                 " ('payments', 4, 'cli:alice', 'secret_rotated')"));
  }
  auto store = database.OpenStore(2000, 64);
  REQUIRE(store->RecordSecretRotated("payments", "cli:alice", "until then", 5).ok());
  auto retired = store->RecordSecretRetired("payments", "serve", "ended", 6, true);
  REQUIRE(retired.ok());
  CHECK(*retired);
  const bool postgres = database.postgres();
  auto db = database.Connect();
  auto rows = db->Prepare("SELECT id, action, coalesce(reason, '-') FROM endpoint_actions ORDER BY id");
  std::string seen;
  while (rows->executeStep()) {
    seen += rows->getColumn(0).getString() + ":" + rows->getColumn(1).getString() + ":" +
            rows->getColumn(2).getString() + ",";
  }
  // The rows before keep their ids; PostgreSQL's sequence moved on at the refused insert above, so
  // the new rows' ids are only later ones.
  CHECK(seen.substr(0, seen.find(":secret_rotated")) ==
        "1:pause:maintenance,2:resume:-,3:key_spec_changed:key setting," + std::string(postgres ? "5" : "4"));
  CHECK_THAT(seen, Catch::EndsWith(":secret_rotated:until then," + std::string(postgres ? "6" : "5") +
                                   ":secret_retired:ended,"));
  // Still only the known actions.
  CHECK_THROWS(
      db->Exec("INSERT INTO endpoint_actions (endpoint, at, actor, action) VALUES"
               " ('payments', 7, 'cli:alice', 'secret_leaked')"));
}
