// Regression: the store opened and closed the database
// file again while its first connection was open, which dropped this
// process's POSIX locks on it. Any other process that then opened and closed
// the database — the sqlite3 CLI an admin uses, `hookinbox events list` —
// believed itself the last connection, checkpointed and deleted the WAL under
// the running server, and every later commit went to an unlinked file: a
// delivery answered "accepted" was gone after a SIGKILL.
#include <signal.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace hookinbox::testing {

TEST_CASE("regress issue 4: other processes opening the database never cost the server a commit", "[regress][sqlite]") {
  Installation inst;
  inst.WriteTestConfig();
  ServerProcess server{inst};
  server.Start();
  auto deliver = [&](const std::string& id) {
    auto r = server.PostSigned("/hooks/demo", R"({"id":")" + id + R"(","type":"t"})");
    REQUIRE(r.status == 200);
    CHECK(nlohmann::json::parse(r.body)["status"] == "accepted");
  };
  deliver("evt_before");
  // A read-write sqlite3 session and the CLI, as an admin would run them.
  auto cli = RunCommand("sqlite3 " + inst.db_path() + " 'SELECT count(*) FROM webhook_inbox' 2>&1");
  CHECK(cli.exit_code == 0);
  auto events = RunCommand(BinaryPath() + " events list -c " + inst.config_path() + " 2>&1");
  CHECK(events.exit_code == 0);
  deliver("evt_after");
  server.Kill(SIGKILL);
  server.WaitExit();
  // Both accepted deliveries survived the crash.
  CHECK(inst.Sql("SELECT group_concat(event_id, ',') FROM (SELECT event_id FROM webhook_inbox ORDER BY id) AS sub") ==
        "evt_before,evt_after");
}

}  // namespace hookinbox::testing
