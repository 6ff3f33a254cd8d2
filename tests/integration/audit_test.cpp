// The tamper-evident audit trail and retention from the outside: the real
// server writes the database, `hookinbox verify-audit` checks copies of it
// (edited and pruned with the sqlite3 CLI), `hookinbox purge` applies
// [endpoint.retention] to crafted rows in every state, and check-config
// refuses a key_days shorter than the provider's redelivery window.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>

#include "harness.h"

using namespace hookinbox::testing;
using nlohmann::json;

namespace {

// Completes every event, except those whose id contains "dead" (exit 1: permanent → dead_lettered).
constexpr const char* kHandler = R"(#!/bin/sh
case "$HOOKINBOX_EVENT_ID" in *dead*) exit 1;; esac
exit 0
)";

constexpr const char* kExecAction = R"(
[endpoint.action]
type = "exec"
command = ["handler.sh"]

[worker]
threads = 2
max_attempts = 1
)";

CommandResult Hookinbox(const std::string& args) { return RunCommand(BinaryPath() + " " + args + " 2>&1"); }

CommandResult Sqlite(const std::string& db, const std::string& sql) {
  return RunCommand("sqlite3 -cmd '.timeout 5000' " + db + " \"" + sql + "\" 2>&1");
}

std::string SqlValue(const std::string& db, const std::string& sql) {
  auto r = Sqlite(db, sql);
  REQUIRE(r.exit_code == 0);
  while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == '\r')) r.out.pop_back();
  return r.out;
}

}  // namespace

// [sqlite]: verify-audit checks a copy of the SQLite file (PRAGMA integrity_check and the chains).
TEST_CASE("verify-audit: passes on untouched copies of what the server wrote and names an edited or removed row",
          "[integration][audit][sqlite]") {
  Installation inst;
  std::ofstream(inst.dir() + "/handler.sh") << kHandler;
  ::chmod((inst.dir() + "/handler.sh").c_str(), 0700);
  inst.WriteTestConfig(kExecAction);
  ServerProcess server(inst);
  server.Start();
  for (const char* id : {"evt_ok", "evt_dead", "evt_ok"}) {
    auto r = server.PostSigned("/hooks/demo", std::string(R"({"id":")") + id + R"(","type":"invoice.paid"})");
    REQUIRE(r.status == 200);
  }
  auto bad = server.Request("POST", "/hooks/demo", R"({"id":"evt_forged"})", {{"X-Signature", "sha256=00"}});
  CHECK(bad.status == 401);
  REQUIRE(PollUntil([&] {
    return inst.Sql("SELECT group_concat(status, ',') FROM (SELECT status FROM webhook_inbox ORDER BY id) AS sub") ==
           "completed,dead_lettered";
  }, std::chrono::seconds(20)));

  // A copy taken while the server runs, as an export would be.
  const std::string live_copy = inst.dir() + "/live-copy.db";
  REQUIRE(Sqlite(inst.db_path(), ".backup " + live_copy).exit_code == 0);
  auto live = Hookinbox("verify-audit " + live_copy);
  INFO(live.out);
  CHECK(live.exit_code == 0);
  CHECK(live.out.find("ok") == 0);

  server.Kill(SIGTERM);
  REQUIRE(server.WaitExit() == 0);
  const std::string copy = inst.dir() + "/copy.db";
  REQUIRE(RunCommand("cp " + inst.db_path() + " " + copy).exit_code == 0);
  auto clean = Hookinbox("verify-audit " + copy + " --json");
  INFO(clean.out);
  REQUIRE(clean.exit_code == 0);
  json report = json::parse(clean.out);
  CHECK(report["ok"] == true);
  CHECK(report["integrity_check"] == "ok");
  CHECK(report["chains"][0]["sealed"] == 4);  // 3 accepted/duplicate + 1 rejected
  CHECK(report["chains"][1]["sealed"] == 2);  // one attempt per event

  SECTION("an attempt's outcome edited with sqlite3") {
    std::string id = SqlValue(copy, "SELECT a.id FROM webhook_attempts a JOIN webhook_inbox i ON i.id = a.inbox_id"
                                    " WHERE i.event_id = 'evt_dead'");
    REQUIRE(Sqlite(copy, "UPDATE webhook_attempts SET outcome = 'completed' WHERE id = " + id).exit_code == 0);
    auto r = Hookinbox("verify-audit " + copy);
    INFO(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("webhook_attempts rowid " + id + ":") != std::string::npos);
  }
  SECTION("a delivery row deleted with sqlite3") {
    std::string next = SqlValue(copy, "SELECT id FROM webhook_deliveries WHERE chain_seq = 3");
    REQUIRE(Sqlite(copy, "DELETE FROM webhook_deliveries WHERE chain_seq = 2").exit_code == 0);
    auto r = Hookinbox("verify-audit " + copy);
    INFO(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("webhook_deliveries rowid " + next + ":") != std::string::npos);
    CHECK(r.out.find("missing") != std::string::npos);
  }
  SECTION("the newest attempt deleted") {
    std::string last = SqlValue(copy, "SELECT row_id FROM audit_chain_heads WHERE table_name = 'webhook_attempts'");
    REQUIRE(Sqlite(copy, "DELETE FROM webhook_attempts WHERE id = " + last).exit_code == 0);
    auto r = Hookinbox("verify-audit " + copy);
    INFO(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("webhook_attempts rowid " + last + ":") != std::string::npos);
  }
  SECTION("usage: no file, a missing file, a file that is not a hookinbox database") {
    CHECK(Hookinbox("verify-audit").exit_code == 2);
    CHECK(Hookinbox("verify-audit " + inst.dir() + "/nope.db").exit_code == 2);
    CHECK(Hookinbox("verify-audit " + inst.config_path()).exit_code == 2);
  }
}

namespace {

// Rows in every state, received 100 days ago (and one completed today),
// inserted with the database's own CLI as an old installation would hold them.
void CraftOldRows(const Installation& inst) {
  const int64_t now_ms = NowSeconds() * 1000;
  const std::string old = std::to_string(now_ms - int64_t{100} * 86400000);
  std::string sql = "BEGIN;";
  int n = 0;
  for (const char* state :
       {"received", "processing", "retryable_failed", "unknown", "completed", "dead_lettered", "skipped"}) {
    const std::string s = state;
    const std::string id = std::to_string(1000 + n++);
    const bool terminal = s == "completed" || s == "dead_lettered" || s == "skipped";
    sql += "INSERT INTO webhook_inbox (id, provider, endpoint, tenant_id, event_id, payload_hash, status,"
           " attempt_count, received_at, completed_at, next_attempt_at, lease_owner, lease_until) VALUES (" +
           id + ", 'generic', 'demo', 'default', 'old_" + s + "', 'h', '" + s + "', 1, " + old + ", " +
           (s == "completed" ? old : "NULL") + ", " +
           (terminal || s == "unknown" ? "NULL" : "4102444800000") + ", " +
           (s == "processing" ? "'w1', 4102444800000" : "NULL, NULL") + ");";
    sql += "INSERT INTO webhook_payloads (inbox_id, kind, payload_hash, body, created_at) VALUES (" + id +
           ", 'original', 'h', 'body', " + old + ");";
    sql += "INSERT INTO webhook_deliveries (received_at, endpoint, provider, tenant_id, event_id, inbox_id, outcome,"
           " http_status) VALUES (" + old + ", 'demo', 'generic', 'default', 'old_" + s + "', " + id +
           ", 'accepted', 200);";
    if (s != "received") {
      const std::string outcome = s == "processing" ? "NULL" : "'" + s + "'";
      sql += "INSERT INTO webhook_attempts (inbox_id, attempt, worker, started_at, finished_at, outcome) VALUES (" +
             id + ", 1, 'w1', " + old + ", " + (s == "processing" ? "NULL" : old) + ", " + outcome + ");";
    }
  }
  const std::string now = std::to_string(now_ms);
  sql += "INSERT INTO webhook_inbox (id, provider, endpoint, tenant_id, event_id, payload_hash, status, received_at,"
         " completed_at) VALUES (2000, 'generic', 'demo', 'default', 'new_completed', 'h', 'completed', " + now +
         ", " + now + ");";
  sql += "INSERT INTO webhook_deliveries (received_at, endpoint, inbox_id, outcome, http_status) VALUES (" + now +
         ", 'demo', 2000, 'accepted', 200);";
  sql += "COMMIT;";
  inst.SqlWrite(sql);
}

// Sql() that REQUIREs an answer: an error message ("Error:", "ERROR:") is no evidence.
std::string SqlRows(const Installation& inst, const std::string& sql) {
  std::string out = inst.Sql(sql);
  INFO(sql << ": " << out);
  REQUIRE(out.find("rror") == std::string::npos);
  return out;
}

// Every row of the tables purge may touch, chain columns included.
std::string Dump(const Installation& inst) {
  std::string out;
  for (const char* t : {"webhook_inbox", "webhook_payloads", "webhook_deliveries", "webhook_attempts",
                        "audit_checkpoints", "audit_chain_heads"}) {
    out += SqlRows(inst, std::string("SELECT * FROM ") + t + " ORDER BY 1") + "\n--\n";
  }
  return out;
}

}  // namespace

TEST_CASE("purge: --dry-run changes nothing; purge removes only old terminal events and the chains still verify",
          "[integration][purge]") {
  Installation inst;
  inst.WriteTestConfig("\n[endpoint.retention]\npayload_days = 30\nkey_days = 60\n");
  CHECK(Hookinbox("check-config -c " + inst.config_path()).exit_code == 0);
  CHECK(Hookinbox("events list -c " + inst.config_path()).exit_code == 0);  // creates the database
  CraftOldRows(inst);
  // The first hookinbox write seals the crafted rows into the chains.
  auto first = Hookinbox("purge --dry-run --json -c " + inst.config_path());
  INFO(first.out);
  REQUIRE(first.exit_code == 0);
  const std::string before = Dump(inst);
  auto dry = Hookinbox("purge --dry-run --json -c " + inst.config_path());
  REQUIRE(dry.exit_code == 0);
  CHECK(Dump(inst) == before);
  json would = json::parse(dry.out)["endpoints"]["demo"];
  CHECK(would["events"] == 3);
  CHECK(would["deliveries"] == 3);
  CHECK(would["attempts"] == 3);  // one each for completed, dead_lettered and skipped
  CHECK(would["payloads"] == 3);
  CHECK(json::parse(dry.out)["dry_run"] == true);
  auto text = Hookinbox("purge --dry-run -c " + inst.config_path());
  CHECK(text.out.find("demo: would remove 3 events") != std::string::npos);

  auto real = Hookinbox("purge --json -c " + inst.config_path());
  INFO(real.out);
  REQUIRE(real.exit_code == 0);
  json did = json::parse(real.out)["endpoints"]["demo"];
  CHECK(did["events"] == 3);
  CHECK(did["deliveries"] == 3);
  CHECK(did["attempts"] == 3);
  CHECK(did["payloads"] == 3);
  CHECK(SqlRows(inst, "SELECT group_concat(event_id || ':' || status, ',') FROM"
                      " (SELECT event_id, status FROM webhook_inbox ORDER BY id) AS sub") ==
        "old_received:received,old_processing:processing,old_retryable_failed:retryable_failed,"
        "old_unknown:unknown,new_completed:completed");
  CHECK(SqlRows(inst, "SELECT count(*) FROM webhook_payloads") == "4");
  CHECK(SqlRows(inst, "SELECT count(*) FROM webhook_deliveries") == "5");
  CHECK(SqlRows(inst, "SELECT count(*) FROM webhook_attempts") == "3");
  CHECK(SqlRows(inst, "SELECT count(*) FROM audit_checkpoints WHERE kind = 'purge'") != "0");
  if (!inst.postgres()) {  // verify-audit reads a SQLite file
    auto verify = Hookinbox("verify-audit " + inst.db_path());
    INFO(verify.out);
    CHECK(verify.exit_code == 0);
    CHECK(verify.out.find("purged") != std::string::npos);
  }
}

TEST_CASE("check-config: key_days shorter than the provider's redelivery window is refused with key and line",
          "[integration][purge][cli]") {
  Installation inst;
  const std::string stripe = R"(
[[endpoint]]
name = "payments"
provider = "stripe"
secret_file = "secrets/demo.secret"

[endpoint.retention]
key_days = 2
)";
  inst.WriteTestConfig(stripe);
  std::ifstream in(inst.config_path());
  std::string line;
  int number = 0, key_line = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line == "key_days = 2") key_line = number;
  }
  REQUIRE(key_line > 0);
  auto refused = Hookinbox("check-config -c " + inst.config_path());
  INFO(refused.out);
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.find(":" + std::to_string(key_line) + ": endpoint[1].retention.key_days: must be at least 3 days") !=
        std::string::npos);
  std::string ok = stripe;
  ok.replace(ok.find("key_days = 2"), 12, "key_days = 3");
  inst.WriteTestConfig(ok);
  auto accepted = Hookinbox("check-config -c " + inst.config_path());
  INFO(accepted.out);
  CHECK(accepted.exit_code == 0);
}
