// `hookinbox events list|show|replay|resolve` from the outside, against the
// database of a running server whose demo endpoint has no action (so the
// worker leaves its events alone); the states a worker would produce
// (unknown, dead_lettered) are set with the sqlite3 CLI.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "harness.h"

using namespace hookinbox::testing;
using nlohmann::json;

namespace {

// The test config, the server started; SqlWrite and Deliver (harness.h).
struct Running : RunningServer {
  // Runs `hookinbox events ARGS -c CONFIG`; stderr goes to the output too.
  CommandResult Events(const std::string& args) const { return Cli("events " + args); }
  json EventsJson(const std::string& args) const {
    auto r = RunCommand(BinaryPath() + " events " + args + " --json -c " + inst.config_path());
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  }
};

}  // namespace

TEST_CASE("events cli: list and show see a delivered event; the payload only with --payload",
          "[integration][cli][events]") {
  Running r;
  int64_t first = r.Deliver("evt_1");
  int64_t second = r.Deliver("evt_2");
  r.Deliver("evt_2");  // a duplicate delivery

  json list = r.EventsJson("list");
  REQUIRE(list["events"].size() == 2);
  CHECK(list["events"][0]["id"] == second);  // newest first
  CHECK(list["events"][1]["id"] == first);
  CHECK(list["events"][0]["status"] == "received");
  CHECK(list["events"][0]["endpoint"] == "demo");
  CHECK(list["next_before_id"].is_null());
  CHECK(r.EventsJson("list --limit 1")["next_before_id"] == second);
  CHECK(r.EventsJson("list --status completed")["events"].empty());

  json show = r.EventsJson("show " + std::to_string(second));
  CHECK(show["event"]["event_id"] == "evt_2");
  CHECK(show["deliveries"].size() == 2);
  CHECK(show["attempts"].empty());
  CHECK_FALSE(show.contains("payload"));
  json with = r.EventsJson("show " + std::to_string(second) + " --payload");
  CHECK(with["payload"]["body"] == R"({"id":"evt_2","type":"invoice.paid","data":{}})");

  auto plain = r.Events("show " + std::to_string(second));
  CHECK(plain.exit_code == 0);
  CHECK(plain.out.find("evt_2") != std::string::npos);
  CHECK(plain.out.find("invoice.paid\",\"data") == std::string::npos);  // no payload
  CHECK(r.Events("show 999").exit_code == 1);
  CHECK(r.Events("list --limit 0").exit_code == 2);
  CHECK(r.Events("show").exit_code == 2);
}

TEST_CASE("events cli: replay of a received event and resolve of a non-unknown one exit 1 and change nothing",
          "[integration][cli][events]") {
  Running r;
  int64_t id = r.Deliver("evt_1");
  auto replay = r.Events("replay " + std::to_string(id));
  CHECK(replay.exit_code == 1);
  CHECK(replay.out.find("received") != std::string::npos);
  auto resolve = r.Events("resolve " + std::to_string(id) + " --as completed");
  CHECK(resolve.exit_code == 1);
  CHECK(r.Events("resolve " + std::to_string(id) + " --as received").exit_code == 2);
  CHECK(r.Events("replay 424242").exit_code == 1);
  CHECK(r.inst.Sql("SELECT status || '|' || attempt_count FROM webhook_inbox") == "received|0");
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_event_actions") == "0");
}

TEST_CASE("events cli: resolve closes an unknown event and replay returns a dead-lettered one, with audit rows",
          "[integration][cli][events]") {
  Running r;
  int64_t unknown = r.Deliver("evt_unknown");
  int64_t dead = r.Deliver("evt_dead");
  r.SqlWrite("UPDATE webhook_inbox SET status = 'unknown', next_attempt_at = NULL, attempt_count = 1 WHERE id = " +
             std::to_string(unknown));
  r.SqlWrite("UPDATE webhook_inbox SET status = 'dead_lettered', next_attempt_at = NULL, attempt_count = 5 WHERE id = " +
             std::to_string(dead));

  auto resolve = r.Events("resolve " + std::to_string(unknown) + " --as completed --result-ref ord_9 --note 'seen in ERP'");
  INFO(resolve.out);
  CHECK(resolve.exit_code == 0);
  auto replay = r.Events("replay " + std::to_string(dead) + " --note retry");
  INFO(replay.out);
  CHECK(replay.exit_code == 0);

  CHECK(r.inst.Sql("SELECT status || '|' || result_ref FROM webhook_inbox WHERE id = " + std::to_string(unknown)) ==
        "completed|ord_9");
  CHECK(r.inst.Sql("SELECT status || '|' || attempt_count FROM webhook_inbox WHERE id = " + std::to_string(dead)) ==
        "received|0");
  std::string actor = r.inst.Sql("SELECT DISTINCT actor FROM webhook_event_actions");
  CHECK(actor.rfind("cli:", 0) == 0);
  CHECK(r.inst.Sql("SELECT group_concat(action || ':' || from_status || '>' || to_status || ':' || note, ',')"
                   " FROM (SELECT * FROM webhook_event_actions ORDER BY id) AS sub") ==
        "resolve:unknown>completed:seen in ERP,replay:dead_lettered>received:retry");
  json show = r.EventsJson("show " + std::to_string(unknown));
  REQUIRE(show["actions"].size() == 1);
  CHECK(show["actions"][0]["result_ref"] == "ord_9");

  // The replayed event is a fresh arrival again: a second replay is refused.
  CHECK(r.Events("replay " + std::to_string(dead)).exit_code == 1);
}

TEST_CASE("events cli: replay by filter counts with --dry-run, refuses without --yes off a terminal, then replays "
          "what the filter matches",
          "[integration][cli][events][replay]") {
  Running r;
  std::vector<int64_t> ids;
  for (const char* id : {"evt_a", "evt_b", "evt_c"}) ids.push_back(r.Deliver(id));
  r.SqlWrite("UPDATE webhook_inbox SET status = 'dead_lettered', next_attempt_at = NULL, attempt_count = 5,"
             " last_error = 'HTTP 422 invalid customer'");
  r.SqlWrite("UPDATE webhook_inbox SET last_error = 'HTTP 410 gone' WHERE id = " + std::to_string(ids[2]));
  auto snapshot = [&] {
    return r.inst.Sql("SELECT group_concat(status, ',') FROM (SELECT status FROM webhook_inbox ORDER BY id) AS s") +
           "|" + r.inst.Sql("SELECT count(*) FROM webhook_event_actions");
  };
  const std::string before = snapshot();
  REQUIRE(before == "dead_lettered,dead_lettered,dead_lettered|0");

  json dry = r.EventsJson("replay --status dead_lettered --endpoint demo --dry-run");
  CHECK(dry["matched"] == 3);
  CHECK(dry["replayed"] == 0);
  CHECK(dry["dry_run"] == true);
  auto dry_text = r.Events("replay --status dead_lettered --endpoint demo --error 'HTTP 422' --dry-run");
  CHECK(dry_text.exit_code == 0);
  CHECK(dry_text.out.find("dry run: 2 events match") != std::string::npos);
  CHECK(snapshot() == before);

  // stdin is not a terminal: without --yes it refuses, as a usage error.
  auto refused = r.Events("replay --status dead_lettered --endpoint demo < /dev/null");
  INFO(refused.out);
  CHECK(refused.exit_code == 2);
  CHECK(refused.out.find("--yes") != std::string::npos);
  // Bad flags are usage errors too, and change nothing.
  for (const char* bad : {"--status received --endpoint demo --yes", "--status dead_letters --endpoint demo --yes",
                          "--status dead_lettered --yes", "--endpoint demo --yes",
                          "--status dead_lettered --endpoint demo --since yesterday --yes",
                          "--status dead_lettered --endpoint demo --until 2026-13-01T00:00:00Z --yes",
                          "--status dead_lettered --endpoint demo --since 1h --until 2h --yes",
                          "1 --status dead_lettered --endpoint demo --yes",
                          "--status dead_lettered --endpoint dmeo --yes", ""}) {
    auto res = r.Events(std::string("replay ") + bad + " < /dev/null");
    INFO(bad << " → " << res.out);
    CHECK(res.exit_code == 2);
  }
  CHECK(snapshot() == before);

  auto done = r.Events("replay --status dead_lettered --endpoint demo --error 'HTTP 422' --since 1h --yes "
                       "--note 'CRM back' < /dev/null");
  INFO(done.out);
  CHECK(done.exit_code == 0);
  CHECK(done.out.find("matched 2, replayed 2, skipped 0") != std::string::npos);
  CHECK(r.inst.Sql("SELECT group_concat(status, ',') FROM (SELECT status FROM webhook_inbox ORDER BY id) AS s") ==
        "received,received,dead_lettered");
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_event_actions WHERE action = 'replay' AND note = 'CRM back'"
                   " AND actor LIKE 'cli:%'") == "2");
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE retry_window_start IS NOT NULL") == "2");
}
