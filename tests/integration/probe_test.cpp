// Reconcile before retry (action.probe_url): an attempt whose answer was lost
// asks the downstream whether it took effect, through the real binary.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// The demo endpoint forwarding to a non-idempotent `url` (a lost answer is
// `unknown`), reconciling through `probe_url`. The lease allows the doubled
// timeout (2 × timeout ≤ lease / 3).
void Configure(const Installation& inst, const std::string& url, const std::string& probe_url,
               int timeout_ms = 500, int lease_seconds = 5) {
  inst.WriteTestConfig(ForwardingAction(inst, url) + "idempotent_target = false\ntimeout_ms = " +
                       std::to_string(timeout_ms) + "\nprobe_url = \"" + probe_url +
                       "\"\n\n[worker]\nthreads = 2\nlease_seconds = " + std::to_string(lease_seconds) +
                       "\nbackoff_initial_ms = 10\nbackoff_max_ms = 50\n");
}

// A timeout long enough for a test to SIGKILL the server while its request is held.
void ConfigureForKill(const Installation& inst, const std::string& url, const std::string& probe_url) {
  Configure(inst, url, probe_url, /*timeout_ms=*/1400, /*lease_seconds=*/9);
}

std::string Attempts(const Installation& inst, int64_t id) {
  return inst.Sql("SELECT group_concat(kind || ':' || outcome, ',') FROM (SELECT kind, outcome FROM webhook_attempts"
                  " WHERE inbox_id = " + std::to_string(id) + " ORDER BY id) AS sub");
}

int64_t Deliver(const ServerProcess& server, const std::string& id) {
  auto r = server.PostSigned("/hooks/demo", R"({"id":")" + id + R"(","type":"order.created"})");
  REQUIRE(r.status == 200);
  return json::parse(r.body).at("id").get<int64_t>();
}

std::string StatusOf(const Installation& inst, int64_t id) {
  return inst.Sql("SELECT status FROM webhook_inbox WHERE id = " + std::to_string(id));
}

// Delivers one event, waits until `target` holds its request, SIGKILLs the
// server there and starts it again: the attempt was cut mid-request.
int64_t CutByKill(ServerProcess& server, const DownstreamProcess& target, const std::string& event_id) {
  server.Start();
  const int64_t id = Deliver(server, event_id);
  REQUIRE(PollUntil([&] { return target.Stats()["holding"] == 1; }, 20s));
  server.Kill(SIGKILL);
  server.WaitExit();
  return id;
}

}  // namespace

TEST_CASE("probe: the effect happened but the answer was lost → found → completed, no second call",
          "[worker][probe]") {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess target;
  target.Script(json::array({json{{"late_ms", 3000}}}));  // applies the effect, answers after the timeout
  Configure(inst, target.url(), target.url("/lookup?key={idempotency_key}"));
  server.Start();
  const int64_t id = Deliver(server, "evt_late");
  REQUIRE(PollUntil([&] { return inst.Sql("SELECT status FROM webhook_inbox WHERE id = " + std::to_string(id)) ==
                                 "completed"; }, 30s));
  CHECK(inst.Sql("SELECT result_ref FROM webhook_inbox WHERE id = " + std::to_string(id)) == "eff_1");
  CHECK(Attempts(inst, id) == "action:unknown,probe:completed");
  CHECK(inst.Sql("SELECT http_status || '|' || error FROM webhook_attempts WHERE kind = 'probe'") ==
        "200|probe: found");
  const json stats = target.Stats();
  CHECK(stats["calls"] == 1);
  CHECK(stats["effects"] == 1);
  CHECK(stats["lookups"] == 1);
}

TEST_CASE("probe: not found → retried once and completed; cannot tell → stays unknown", "[worker][probe]") {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess target(/*dedup=*/false);  // a target that ignores the key
  DownstreamProcess records;                  // where the probe looks: it never saw the event
  target.Script(json::array({json{{"hold", true}}}));  // the first request never gets an answer
  Configure(inst, target.url(), records.url("/lookup?key={idempotency_key}&event={event_id}"));
  server.Start();
  const int64_t id = Deliver(server, "evt_lost");
  REQUIRE(PollUntil([&] { return inst.Sql("SELECT status FROM webhook_inbox WHERE id = " + std::to_string(id)) ==
                                 "completed"; }, 30s));
  CHECK(Attempts(inst, id) == "action:unknown,probe:retryable_failed,action:completed");
  CHECK(records.Stats()["lookups"] == 1);
  CHECK(target.Stats()["calls"] == 2);

  SECTION("a probe that cannot answer leaves the event unknown for a person") {
    records.Kill();
    target.Script(json::array({json{{"hold", true}}}));
    const int64_t unclear = Deliver(server, "evt_unclear");
    REQUIRE(PollUntil([&] { return inst.Sql("SELECT status FROM webhook_inbox WHERE id = " +
                                            std::to_string(unclear)) == "unknown"; }, 30s));
    CHECK(Attempts(inst, unclear) == "action:unknown,probe:unknown");
    CHECK(inst.Sql("SELECT CASE WHEN error LIKE 'probe: no answer%' THEN 1 ELSE 0 END"
                   " FROM webhook_attempts WHERE kind = 'probe' AND inbox_id = " +
                   std::to_string(unclear)) == "1");
  }
  target.Release();
}

TEST_CASE("probe: an attempt cut by a SIGKILL is probed before anything is sent again — found → completed, one call",
          "[worker][probe]") {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess target;
  target.Script(json::array({json{{"hold", true}}}));
  ConfigureForKill(inst, target.url(), target.url("/lookup?key={idempotency_key}"));
  const int64_t id = CutByKill(server, target, "evt_cut_found");
  target.Release();  // the effect happens, though nobody hears the answer any more
  REQUIRE(PollUntil([&] { return target.Stats()["effects"] == 1; }, 20s));
  server.Start();
  REQUIRE(PollUntil([&] { return StatusOf(inst, id) == "completed"; }, 40s));
  CHECK(Attempts(inst, id) == "action:lost,action:unknown,probe:completed");
  CHECK(inst.Sql("SELECT result_ref FROM webhook_inbox WHERE id = " + std::to_string(id)) == "eff_1");
  const json stats = target.Stats();
  CHECK(stats["calls"] == 1);  // never sent twice
  CHECK(stats["lookups"] == 1);
  // Nothing was the downstream's fault: the breaker saw no failure.
  CHECK(inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(id) +
                 " AND kind = 'action' AND outcome = 'unknown' AND http_status IS NULL"
                 " AND error LIKE 'the previous attempt was cut%'") == "1");
}

TEST_CASE("probe: an attempt cut by a SIGKILL — not found → sent again once; cannot tell → unknown, not sent",
          "[worker][probe]") {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess target(/*dedup=*/false);
  target.Script(json::array({json{{"hold", true}}}));  // held until the end: it never took effect

  SECTION("not found") {
    DownstreamProcess records;  // where the probe looks: it never saw the event
    ConfigureForKill(inst, target.url(), records.url("/lookup?key={idempotency_key}"));
    const int64_t id = CutByKill(server, target, "evt_cut_missing");
    server.Start();
    REQUIRE(PollUntil([&] { return StatusOf(inst, id) == "completed"; }, 40s));
    CHECK(Attempts(inst, id) == "action:lost,action:unknown,probe:retryable_failed,action:completed");
    CHECK(records.Stats()["lookups"] == 1);
    CHECK(target.Stats()["calls"] == 2);
  }
  SECTION("cannot tell: the probe gets no answer") {
    DownstreamProcess records;
    ConfigureForKill(inst, target.url(), records.url("/lookup?key={idempotency_key}"));
    const int64_t id = CutByKill(server, target, "evt_cut_unclear");
    records.Kill();
    server.Start();
    REQUIRE(PollUntil([&] { return StatusOf(inst, id) == "unknown"; }, 40s));
    CHECK(Attempts(inst, id) == "action:lost,action:unknown,probe:unknown");
    CHECK(target.Stats()["calls"] == 1);
  }
  target.Release();
}

TEST_CASE("probe: a probe_url that is not an http URL is a config error", "[worker][probe]") {
  Installation inst;
  Configure(inst, "http://127.0.0.1:9/x", "ftp://example.test/{idempotency_key}");
  auto r = RunCommand(BinaryPath() + " check-config -c " + inst.config_path() + " 2>&1");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("endpoint[0].action.probe_url") != std::string::npos);
}

}  // namespace hookinbox::testing
