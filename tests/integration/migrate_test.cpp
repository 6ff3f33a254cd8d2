// `hookinbox migrate-to-postgres` from the outside: a populated
// SQLite installation, served by the real binary, copied into PostgreSQL
// (twice: idempotent), then served from PostgreSQL with the same ids, and its
// audit history intact in an auditor's file made from PostgreSQL. Needs
// PostgreSQL (HOOKINBOX_TEST_PG_URL, harness.h); on SQLite it passes at once.
#include <catch2/catch.hpp>

#include <csignal>
#include <string>

#include "harness.h"

namespace hookinbox::testing {
namespace {

std::string Body(const std::string& id, int amount) {
  return R"({"id":")" + id + R"(","type":"invoice.paid","amount":)" + std::to_string(amount) + "}";
}

// The test config with the SQLite file as its store, whatever the run's backend.
void WriteSqliteConfig(const Installation& inst) {
  inst.WriteTestConfig();
  std::string toml = ReadFile(inst.config_path());
  const std::string pg = inst.StorageLines();
  toml.replace(toml.find(pg), pg.size(), "path = \"data/hookinbox.db\"\n");
  inst.WriteConfig(toml);
}

std::string Sqlite(const Installation& inst, const std::string& query) {
  auto r = RunCommand("sqlite3 -readonly " + inst.db_path() + " \"" + query + "\"");
  REQUIRE(r.exit_code == 0);
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

}  // namespace

TEST_CASE("migrate-to-postgres: a served SQLite installation is served from PostgreSQL with the same ids and a "
          "sound audit history; a second run changes nothing", "[migrate]") {
  Installation inst;
  if (!inst.postgres()) {
    SUCCEED("needs PostgreSQL (HOOKINBOX_TEST_PG_URL)");
    return;
  }
  // 1. On SQLite: three events, a duplicate, a conflict and a rejected delivery.
  WriteSqliteConfig(inst);
  {
    ServerProcess server(inst);
    server.Start();
    for (int n = 1; n <= 3; ++n) REQUIRE(server.PostSigned("/hooks/demo", Body("evt_m" + std::to_string(n), n)).status == 200);
    REQUIRE(server.PostSigned("/hooks/demo", Body("evt_m1", 1)).status == 200);   // duplicate
    REQUIRE(server.PostSigned("/hooks/demo", Body("evt_m2", 99)).status == 200);  // conflict
    CHECK(server.Request("POST", "/hooks/demo", Body("evt_forged", 1), {{"X-Signature", "sha256=00"}}).status == 401);
    server.Kill(SIGTERM);
    REQUIRE(server.WaitExit() == 0);
  }
  const std::string events = Sqlite(inst, "SELECT group_concat(id || ':' || event_id, ',') FROM "
                                          "(SELECT id, event_id FROM webhook_inbox ORDER BY id) AS e");
  const std::string deliveries = Sqlite(inst, "SELECT count(*) FROM webhook_deliveries");
  REQUIRE(events == "1:evt_m1,2:evt_m2,3:evt_m3");
  REQUIRE(deliveries == "6");

  // 2. The copy, twice.
  const std::string migrate = BinaryPath() + " migrate-to-postgres --from " + inst.db_path() + " --to '" +
                              inst.postgres_url() + "' 2>&1";
  for (int run = 0; run < 2; ++run) {
    INFO("run " << run);
    auto copied = RunCommand(migrate);
    INFO(copied.out);
    REQUIRE(copied.exit_code == 0);
    CHECK_THAT(copied.out, Catch::Contains("webhook_inbox: 3 rows"));
    CHECK_THAT(copied.out, Catch::Contains("the audit chains verify on the copy"));
    CHECK(inst.Sql("SELECT group_concat(id || ':' || event_id, ',') FROM "
                   "(SELECT id, event_id FROM webhook_inbox ORDER BY id) AS e") == events);
    CHECK(inst.Sql("SELECT count(*) FROM webhook_deliveries") == deliveries);
  }

  // 3. Served from PostgreSQL: an old event is a duplicate under its old id; a new one follows the copied ids.
  inst.WriteTestConfig();
  ServerProcess server(inst);
  server.Start();
  auto dup = server.PostSigned("/hooks/demo", Body("evt_m3", 3));
  CHECK(dup.status == 200);
  CHECK_THAT(dup.body, Catch::Contains(R"("status":"duplicate","id":3)"));
  auto fresh = server.PostSigned("/hooks/demo", Body("evt_m4", 4));
  CHECK(fresh.status == 200);
  CHECK_THAT(fresh.body, Catch::Contains(R"("status":"accepted")"));
  // After the copied ids (PostgreSQL's sequence leaves gaps: the duplicate's insert drew one).
  CHECK(std::stoll(inst.Sql("SELECT id FROM webhook_inbox WHERE event_id = 'evt_m4'")) > 3);

  // 4. The auditor's file, made from PostgreSQL, verifies: the copied history and the new rows chained after it.
  const std::string out = inst.dir() + "/audit.db";
  auto backup = RunCommand(BinaryPath() + " backup " + out + " -c " + inst.config_path() + " 2>&1");
  INFO(backup.out);
  REQUIRE(backup.exit_code == 0);
  auto verified = RunCommand(BinaryPath() + " verify-audit " + out + " 2>&1");
  INFO(verified.out);
  CHECK(verified.exit_code == 0);
  CHECK(RunCommand("sqlite3 -readonly " + out + " 'SELECT count(*) FROM webhook_deliveries'").out == "8\n");
}

TEST_CASE("migrate-to-postgres: usage errors exit 2 and name the problem; the password is never printed",
          "[migrate]") {
  Installation inst;
  auto missing = RunCommand(BinaryPath() + " migrate-to-postgres --from " + inst.dir() + "/nope.db --to postgresql://x 2>&1");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.out, Catch::Contains("no such file"));
  auto no_target = RunCommand(BinaryPath() + " migrate-to-postgres --from " + inst.db_path() + " 2>&1");
  CHECK(no_target.exit_code == 2);
  const std::string secret_url = "postgresql://hook:s3cr%zzet@127.0.0.1:1/h";
  auto refused = RunCommand(BinaryPath() + " migrate-to-postgres --from " + inst.db_path() + " --to '" + secret_url +
                            "' 2>&1");
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.find("s3cr") == std::string::npos);
}

}  // namespace hookinbox::testing
