// Upgrading over a database an older hookinbox left behind.
//
// Two kinds of old file: tests/fixtures/db/make-old-db.sh builds one at any
// user_version N from the first N blocks of schema.sql (honest because an
// applied block is never edited), and v5-issue5-binary.sql is a dump of what
// a real binary at schema 5 wrote (what the old *code* did, not just its
// schema). `serve` must migrate either on start, keep every row, go on
// receiving (the old events still count for dedup), leave a sound audit
// chain, and refuse — without touching it — a file newer than itself.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

std::string SourceDir() { return HOOKINBOX_SOURCE_DIR; }

// The last "-- migration: N" of schema.sql: where every older file must end up.
int LatestSchemaVersion() {
  std::istringstream schema(ReadFile(SourceDir() + "/schema.sql"));
  int latest = 0;
  for (std::string line; std::getline(schema, line);) {
    if (line.rfind("-- migration: ", 0) == 0) ++latest;
  }
  return latest;
}

// An old database and the one event of it the test resends.
struct OldDatabase {
  std::string make;        // shell command that writes it; "{db}" stands for the file
  int version = 0;         // its user_version
  std::string known_body;  // the exact body of an event already in its inbox
  int64_t known_id = 0;    // that event's inbox id
};

OldDatabase FromBlocks(int n) {
  return {"bash '" + SourceDir() + "/tests/fixtures/db/make-old-db.sh' '" + SourceDir() + "/schema.sql' " +
              std::to_string(n) + " {db}",
          n, R"({"id":"evt_old_1","type":"demo.ping"})", 1};
}

OldDatabase FromIssue5Dump() {
  return {"sqlite3 -bail {db} < '" + SourceDir() + "/tests/fixtures/db/v5-issue5-binary.sql'", 5,
          R"({"data":{"endpoint":"demo","hookinbox":"send-test"},"id":"evt_test_cb0a3c246b0037c959875c9b",)"
          R"("type":"hookinbox.test"})",
          1};
}

// Replaces the database `hookinbox init` made with the old one.
void Install(const Installation& inst, const OldDatabase& old) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(inst.db_path() + suffix);
  std::string command = old.make;
  command.replace(command.find("{db}"), 4, "'" + inst.db_path() + "'");
  auto r = RunCommand(command + " 2>&1");
  INFO(command << "\n" << r.out);
  REQUIRE(r.exit_code == 0);
}

int64_t Int(const Installation& inst, const std::string& query) {
  std::string out = inst.Sql(query);
  INFO(query << " -> " << out);
  REQUIRE(!out.empty());
  REQUIRE(out.find_first_not_of("0123456789") == std::string::npos);
  return std::stoll(out);
}

// `columns` of every row of `table`, quoted, in id order: equal strings mean
// equal rows. Only columns every version has, so a migration's new columns
// (chain_seq, row_hash) do not count as a change.
std::string Rows(const Installation& inst, const std::string& table, const std::vector<std::string>& columns) {
  std::string row;
  for (const auto& c : columns) row += (row.empty() ? "" : "||','||") + std::string("quote(") + c + ")";
  std::string out = inst.Sql("SELECT group_concat(r, ';') FROM (SELECT " + row + " AS r FROM " + table +
                             " ORDER BY id) AS sub");
  INFO(table << ": " << out);
  REQUIRE(out.find("rror") == std::string::npos);  // "Error:"/"Parse error": a broken query is no evidence
  return out;
}

// What the old rows are, as far as this test promises to keep them.
struct Snapshot {
  int64_t inbox = 0, deliveries = 0, payloads = 0, attempts = 0;
  std::string rows;
};

Snapshot Take(const Installation& inst) {
  Snapshot s;
  s.inbox = Int(inst, "SELECT count(*) FROM webhook_inbox");
  s.deliveries = Int(inst, "SELECT count(*) FROM webhook_deliveries");
  s.payloads = Int(inst, "SELECT count(*) FROM webhook_payloads");
  // webhook_attempts came with migration 3.
  if (Int(inst, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'webhook_attempts'") == 1) {
    s.attempts = Int(inst, "SELECT count(*) FROM webhook_attempts");
  }
  s.rows = Rows(inst, "webhook_inbox",
                {"id", "provider", "endpoint", "tenant_id", "event_id", "event_type", "payload_hash", "status",
                 "attempt_count", "next_attempt_at", "received_at", "completed_at", "result_ref"}) +
           "\n" +
           Rows(inst, "webhook_deliveries",
                {"id", "received_at", "remote_addr", "path", "endpoint", "tenant_id", "event_id", "inbox_id",
                 "outcome", "http_status", "reason", "payload_hash", "body_bytes"}) +
           "\n" +
           Rows(inst, "webhook_payloads",
                {"id", "inbox_id", "delivery_id", "kind", "payload_hash", "content_type", "hex(body)", "created_at"});
  if (s.attempts > 0) {
    s.rows += "\n" + Rows(inst, "webhook_attempts",
                          {"id", "inbox_id", "attempt", "worker", "started_at", "finished_at", "outcome"});
  }
  return s;
}

void CheckSameRows(const Snapshot& before, const Snapshot& after) {
  CHECK(after.inbox == before.inbox);
  CHECK(after.deliveries == before.deliveries);
  CHECK(after.payloads == before.payloads);
  CHECK(after.attempts == before.attempts);
  CHECK(after.rows == before.rows);
}

void WaitReady(const ServerProcess& server) {
  bool ready = PollUntil([&] { return server.Request("GET", "/readyz", "", {}).status == 200; },
                         std::chrono::seconds(30));
  INFO(server.log());
  REQUIRE(ready);
}

std::string Genesis(const Installation& inst) {
  return inst.Sql("SELECT group_concat(table_name || ':' || rows, ' ') FROM (SELECT * FROM audit_checkpoints"
                  " WHERE kind = 'genesis' ORDER BY table_name) AS sub");
}

// Migration 6's genesis checkpoints: one per chain, counting the rows that
// predate it — written by this upgrade for a database older than 6, left as
// they were (`genesis_before`) for one that had them already.
void CheckGenesis(const Installation& inst, const OldDatabase& old, const Snapshot& before,
                  const std::string& genesis_before) {
  if (old.version >= 6) {
    CHECK(Genesis(inst) == genesis_before);
  } else {
    CHECK(Genesis(inst) == "webhook_attempts:" + std::to_string(before.attempts) +
                               " webhook_deliveries:" + std::to_string(before.deliveries));
  }
  // Serve's first (empty) write seals the old rows into the chain.
  CHECK(inst.Sql("SELECT count(*) FROM webhook_deliveries WHERE chain_seq IS NULL") == "0");
}

// A new event is accepted; an event the old binary stored is a duplicate.
void CheckReceiving(const ServerProcess& server, const OldDatabase& old, const Snapshot& before) {
  auto fresh = server.PostSigned("/hooks/demo", R"({"id":"evt_after_upgrade","type":"demo.ping"})");
  REQUIRE(fresh.status == 200);
  auto fresh_json = nlohmann::json::parse(fresh.body);
  CHECK(fresh_json.at("status") == "accepted");
  CHECK(fresh_json.at("id").get<int64_t>() > before.inbox);
  auto repeat = server.PostSigned("/hooks/demo", old.known_body);
  REQUIRE(repeat.status == 200);
  auto repeat_json = nlohmann::json::parse(repeat.body);
  CHECK(repeat_json.at("status") == "duplicate");
  CHECK(repeat_json.at("id").get<int64_t>() == old.known_id);
}

// The file after a clean stop: verify-audit, SQLite's own checks.
void CheckStoppedFile(const Installation& inst) {
  auto audit = RunCommand(BinaryPath() + " verify-audit " + inst.db_path() + " 2>&1");
  INFO(audit.out);
  CHECK(audit.exit_code == 0);
  CHECK(inst.Sql("PRAGMA integrity_check") == "ok");
  CHECK(inst.Sql("PRAGMA foreign_key_check") == "");
}

void Stop(ServerProcess& server) {
  server.Kill(SIGTERM);
  int code = server.WaitExit();
  INFO(server.log());
  REQUIRE(code == 0);
}

void CheckUpgrade(const OldDatabase& old) {
  Installation inst;
  inst.WriteTestConfig();
  const int latest = LatestSchemaVersion();
  // The binary's own idea of "latest": what init just created.
  REQUIRE(Int(inst, "PRAGMA user_version") == latest);
  Install(inst, old);
  REQUIRE(Int(inst, "PRAGMA user_version") == old.version);
  const Snapshot before = Take(inst);
  const std::string genesis_before = old.version >= 6 ? Genesis(inst) : "";
  REQUIRE(before.inbox >= 2);
  REQUIRE(before.rows.find(",'evt_") != std::string::npos);

  ServerProcess server(inst);
  server.Start();
  WaitReady(server);
  CHECK(Int(inst, "PRAGMA user_version") == latest);
  CheckSameRows(before, Take(inst));
  CheckGenesis(inst, old, before, genesis_before);

  CheckReceiving(server, old, before);
  const Snapshot after_receive = Take(inst);
  CHECK(after_receive.inbox == before.inbox + 1);
  CHECK(after_receive.deliveries == before.deliveries + 2);
  CHECK(after_receive.payloads == before.payloads + 1);
  Stop(server);
  CheckStoppedFile(inst);

  // A second start finds nothing to migrate and changes nothing.
  server.Start();
  WaitReady(server);
  CHECK(Int(inst, "PRAGMA user_version") == latest);
  CheckSameRows(after_receive, Take(inst));
  CHECK(Int(inst, "SELECT count(*) FROM audit_checkpoints") == 2);
  Stop(server);
  CheckStoppedFile(inst);
}

std::string Sha256(const std::string& path) {
  auto r = RunCommand("sha256sum '" + path + "'");
  REQUIRE(r.exit_code == 0);
  return r.out.substr(0, 64);
}

}  // namespace

// [sqlite]: the fixtures are SQLite files of every older schema version.
TEST_CASE("upgrade: a database from schema N is migrated on start and keeps its rows",
          "[integration][upgrade][sqlite]") {
  const int latest = LatestSchemaVersion();
  REQUIRE(latest >= 6);  // schema.sql had 6 blocks when this test was written
  for (int n = 1; n < latest; ++n) {
    DYNAMIC_SECTION("schema " << n << " built from the first " << n << " blocks of schema.sql") {
      CheckUpgrade(FromBlocks(n));
    }
  }
  SECTION("schema 5 as the issue-5 binary wrote it (v5-issue5-binary.sql)") { CheckUpgrade(FromIssue5Dump()); }
}

TEST_CASE("upgrade: a database newer than the binary is refused, untouched", "[integration][upgrade][sqlite]") {
  Installation inst;
  inst.WriteTestConfig();
  Install(inst, FromBlocks(LatestSchemaVersion()));
  // What a newer hookinbox would leave: its own user_version, WAL mode, no
  // -wal file; or what its `backup` writes: rollback-journal mode, which
  // switching to WAL before the version check would rewrite.
  std::string journal = "wal";
  SECTION("in WAL mode, as serve leaves it") {}
  SECTION("in rollback-journal mode, as a backup is") { journal = "delete"; }
  auto bump = RunCommand("sqlite3 '" + inst.db_path() + "' 'PRAGMA journal_mode = " + journal +
                         "' 'PRAGMA user_version = 99' 2>&1");
  REQUIRE(bump.exit_code == 0);
  const std::string sha = Sha256(inst.db_path());

  ServerProcess server(inst);
  server.TryStartAsync();
  int code = server.WaitExit();
  INFO(server.log());
  CHECK(code == 1);
  CHECK(server.log().find("database schema version 99 is newer than this binary understands") != std::string::npos);
  CHECK(server.log().find("\"event\":\"listening\"") == std::string::npos);
  CHECK(Sha256(inst.db_path()) == sha);
  CHECK_FALSE(std::filesystem::exists(inst.db_path() + "-wal"));
  CHECK(Int(inst, "PRAGMA user_version") == 99);
}
