// Metrics and stats against the database: a scripted
// scenario — accepted, duplicate, conflict, rejected for two reasons, a
// retry, a dead letter, an unknown, and events waiting on an endpoint with
// no action — then GET /metrics on the admin listener, whose values must
// equal what sqlite3 reads from the file; then a restart, after which the
// state gauges still match (counters restart at 0 by design, see
// common/metrics.h) and `hookinbox stats --json` agrees too.
#include <catch2/catch.hpp>
#include <httplib.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

// A second endpoint signed like demo but without an action: its events stay
// 'received', so the backlog and oldest-pending gauges have something to show.
const std::string kIdleEndpoint = DemoLikeEndpoint("idle");

std::string Config(const Installation& inst, const std::string& url) {
  // The [worker] table must follow the demo endpoint's action keys, and the
  // idle endpoint must come before [worker] (a table ends an array of tables).
  return ForwardingAction(inst, url) + "idempotent_target = false\ntimeout_ms = 700\n" + kIdleEndpoint +
         "\n[worker]\nthreads = 1\nlease_seconds = 5\nmax_attempts = 3\nbackoff_initial_ms = 10\n"
         "backoff_max_ms = 20\nshutdown_grace_seconds = 2\n";
}

// Parses the exposition text into "name{labels as written}" → value.
std::map<std::string, double> ParseMetrics(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.rfind(' ');
    std::string v = line.substr(sp + 1);
    out[line.substr(0, sp)] = v == "+Inf" ? 1e308 : std::stod(v);
  }
  return out;
}

double Value(const std::map<std::string, double>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

int64_t SqlInt(const Installation& inst, const std::string& q) {
  std::string out = inst.Sql(q);
  INFO(q << " → " << out);
  REQUIRE(!out.empty());
  return std::stoll(out);
}

std::string Metrics(const ServerProcess& server) {
  httplib::Client client("127.0.0.1", server.admin_port());
  auto res = client.Get("/metrics");
  REQUIRE(res);
  INFO(res->body);
  REQUIRE(res->status == 200);
  CHECK(res->get_header_value("Content-Type").rfind("text/plain", 0) == 0);
  return res->body;
}

struct Scenario {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess downstream;

  Scenario() { inst.WriteTestConfig(Config(inst, downstream.url())); }

  std::string Status(int64_t id) const { return inst.Sql("SELECT status FROM webhook_inbox WHERE id = " + std::to_string(id)); }
  int64_t Deliver(const std::string& path, const std::string& body) const {
    auto r = server.PostSigned(path, body);
    INFO(r.body);
    REQUIRE(r.status == 200);
    CHECK(r.headers.count("X-Request-Id") == 1);
    return json::parse(r.body).at("id").get<int64_t>();
  }
  void WaitFor(int64_t id, const std::string& status) const {
    bool reached = PollUntil([&] { return Status(id) == status; }, 20s);
    INFO("event " << id << " is " << Status(id) << ", expected " << status << "\n" << server.log());
    REQUIRE(reached);
  }

  void Run() {
    server.Start();
    REQUIRE(server.admin_port() > 0);
    // A retry, then success.
    downstream.Script(json::array({{{"status", 503}}, {{"status", 200}}}));
    const std::string body_a = R"({"id":"evt_m_retry","type":"t","data":"METRICS-PAYLOAD-A"})";
    WaitFor(Deliver("/hooks/demo", body_a), "completed");
    // A permanent refusal: dead letter.
    downstream.Script(json::array({{{"status", 400}}}));
    WaitFor(Deliver("/hooks/demo", R"({"id":"evt_m_dead","type":"t","data":"METRICS-PAYLOAD-B"})"), "dead_lettered");
    // No answer from a non-idempotent target: unknown.
    downstream.Script(json::array({{{"hold", true}}}));
    WaitFor(Deliver("/hooks/demo", R"({"id":"evt_m_unknown","type":"t","data":"METRICS-PAYLOAD-C"})"), "unknown");
    downstream.Release();
    // A duplicate and a conflict of the first event.
    auto dup = server.PostSigned("/hooks/demo", body_a);
    CHECK(json::parse(dup.body)["status"] == "duplicate");
    auto conflict = server.PostSigned("/hooks/demo", R"({"id":"evt_m_retry","type":"t","data":"METRICS-CHANGED"})");
    CHECK(json::parse(conflict.body)["status"] == "conflict");
    // Two rejection reasons: a bad signature and an unknown endpoint.
    const std::string ts = std::to_string(NowSeconds());
    const std::string bad = R"({"id":"evt_m_bad","type":"t","data":"METRICS-PAYLOAD-REJECTED"})";
    RegisterLeakMarker(bad);
    auto unauth = server.Request("POST", "/hooks/demo", bad,
                                 {{"X-Timestamp", ts}, {"X-Signature", "sha256=" + HmacSha256Hex("wrong", ts + "." + bad)}});
    CHECK(unauth.status == 401);
    CHECK(server.PostSigned("/hooks/nope", bad).status == 404);
    // Two events that wait (no action on "idle").
    Deliver("/hooks/idle", R"({"id":"evt_m_wait1","type":"t","data":"METRICS-PAYLOAD-W1"})");
    Deliver("/hooks/idle", R"({"id":"evt_m_wait2","type":"t","data":"METRICS-PAYLOAD-W2"})");
  }

  // The state gauges equal the database, per endpoint; an endpoint without
  // an action has no backlog: its events are kept as received, waiting for nothing.
  void CheckGauges(const std::map<std::string, double>& m) const {
    for (const std::string endpoint : {"demo", "idle"}) {
      INFO(endpoint);
      const std::string labels = "{endpoint=\"" + endpoint + "\",provider=\"generic\"}";
      const std::string where = "FROM webhook_inbox WHERE endpoint = '" + endpoint + "'";
      CHECK(Value(m, "webhook_dead_lettered" + labels) == SqlInt(inst, "SELECT count(*) " + where + " AND status = 'dead_lettered'"));
      CHECK(Value(m, "webhook_unknown" + labels) == SqlInt(inst, "SELECT count(*) " + where + " AND status = 'unknown'"));
      CHECK(m.count("webhook_oldest_pending_age_seconds" + labels) == 1);
    }
    CHECK(Value(m, "webhook_backlog{endpoint=\"demo\",provider=\"generic\"}") ==
          SqlInt(inst, "SELECT count(*) FROM webhook_inbox WHERE endpoint = 'demo'"
                       " AND status IN ('received','retryable_failed','processing')"));
    CHECK(SqlInt(inst, "SELECT count(*) FROM webhook_inbox WHERE endpoint = 'idle' AND status = 'received'") == 2);
    CHECK(Value(m, "webhook_backlog{endpoint=\"idle\",provider=\"generic\"}") == 0);
    CHECK(Value(m, "webhook_oldest_pending_age_seconds{endpoint=\"idle\",provider=\"generic\"}") == 0);
    CHECK(Value(m, "webhook_dead_lettered{endpoint=\"demo\",provider=\"generic\"}") == 1);
    CHECK(Value(m, "webhook_unknown{endpoint=\"demo\",provider=\"generic\"}") == 1);
  }
};


}  // namespace

TEST_CASE("metrics: /metrics equals the database after a scripted scenario, and state survives a restart",
          "[integration][metrics][worker]") {
  Scenario s;
  s.Run();
  const Installation& inst = s.inst;
  std::string text = Metrics(s.server);
  INFO(text);
  auto m = ParseMetrics(text);
  const std::string demo = "endpoint=\"demo\",provider=\"generic\"";

  // Receipts: counters equal the audit rows (one row per request).
  const std::string deliveries = "SELECT count(*) FROM webhook_deliveries WHERE endpoint = 'demo' AND outcome ";
  CHECK(Value(m, "webhook_received_total{" + demo + "}") ==
        SqlInt(inst, deliveries + "IN ('accepted','duplicate','conflict')"));
  CHECK(Value(m, "webhook_received_total{" + demo + "}") == 5);
  CHECK(Value(m, "webhook_duplicate_total{" + demo + "}") == SqlInt(inst, deliveries + "= 'duplicate'"));
  CHECK(Value(m, "webhook_claim_conflict_total{" + demo + "}") == SqlInt(inst, deliveries + "= 'conflict'"));
  CHECK(Value(m, "webhook_duplicate_total{" + demo + "}") == 1);
  CHECK(Value(m, "webhook_claim_conflict_total{" + demo + "}") == 1);
  // Rejections by reason: the label is the code the audit row's reason starts with.
  CHECK(Value(m, "webhook_rejected_total{" + demo + ",reason=\"unauthenticated\"}") ==
        SqlInt(inst, "SELECT sum(request_count) FROM webhook_deliveries WHERE endpoint = 'demo' AND outcome = 'rejected'"
                     " AND reason LIKE 'unauthenticated:%'"));
  CHECK(Value(m, "webhook_rejected_total{endpoint=\"\",provider=\"\",reason=\"not_found\"}") ==
        SqlInt(inst, "SELECT sum(request_count) FROM webhook_deliveries WHERE coalesce(endpoint, '') = ''"
                     " AND reason LIKE 'not_found:%'"));
  CHECK(Value(m, "webhook_rejected_total{" + demo + ",reason=\"unauthenticated\"}") == 1);
  CHECK(Value(m, "webhook_rejected_total{endpoint=\"\",provider=\"\",reason=\"not_found\"}") == 1);

  // Processing: one observation per finished action attempt; retries by cause.
  const std::string attempts =
      "SELECT count(*) FROM webhook_attempts a JOIN webhook_inbox i ON i.id = a.inbox_id WHERE i.endpoint = 'demo'"
      " AND a.kind = 'action' AND a.outcome ";
  CHECK(Value(m, "webhook_processing_seconds_count{" + demo + "}") == SqlInt(inst, attempts + "IS NOT NULL"));
  CHECK(Value(m, "webhook_processing_seconds_count{" + demo + "}") == 4);
  CHECK(Value(m, "webhook_processing_seconds_bucket{" + demo + ",le=\"+Inf\"}") == 4);
  CHECK(Value(m, "webhook_processing_seconds_sum{" + demo + "}") > 0.5);  // the unknown one waited ~0.7 s
  CHECK(Value(m, "webhook_retries_total{" + demo + ",reason=\"status_5xx\"}") ==
        SqlInt(inst, attempts + "= 'retryable_failed'"));
  CHECK(Value(m, "webhook_retries_total{" + demo + ",reason=\"status_5xx\"}") == 1);
  for (const std::string outcome : {"completed", "retryable_failed", "dead_lettered", "unknown"}) {
    INFO(outcome);
    CHECK(Value(m, "webhook_attempts_total{" + demo + ",outcome=\"" + outcome + "\"}") ==
          SqlInt(inst, attempts + "= '" + outcome + "'"));
  }
  s.CheckGauges(m);

  // Restart: counters start again at 0, state comes back from the database.
  s.server.Kill(SIGTERM);
  REQUIRE(s.server.WaitExit() == 0);
  s.server.Start();
  auto after = ParseMetrics(Metrics(s.server));
  CHECK(Value(after, "webhook_received_total{" + demo + "}") == 0);
  s.CheckGauges(after);

  // `hookinbox stats --json` reads the same figures from the file.
  auto cli = RunCommand(BinaryPath() + " stats --json -c " + inst.config_path() + " 2>&1");
  INFO(cli.out);
  REQUIRE(cli.exit_code == 0);
  auto stats = json::parse(cli.out);
  std::map<std::string, json> by_endpoint;
  for (const auto& e : stats["endpoints"]) by_endpoint[e["endpoint"]] = e;
  REQUIRE(by_endpoint.count("demo") == 1);
  const json& d = by_endpoint["demo"];
  CHECK(d["received"] == SqlInt(inst, deliveries + "IN ('accepted','duplicate','conflict')"));
  CHECK(d["duplicates"] == 1);
  CHECK(d["conflicts"] == 1);
  CHECK(d["rejected"] == 1);
  CHECK(d["completed"] == SqlInt(inst, "SELECT count(*) FROM webhook_inbox WHERE endpoint = 'demo' AND status = 'completed'"));
  CHECK(d["dead_lettered"] == 1);
  CHECK(d["unknown"] == 1);
  CHECK(by_endpoint["idle"]["backlog"] == 0);  // no action: kept, not waiting
  CHECK(by_endpoint["idle"]["has_action"] == false);
  CHECK(d["has_action"] == true);
  CHECK(by_endpoint[""]["rejected"] == 1);
  // The human table names every endpoint.
  auto table = RunCommand(BinaryPath() + " stats -c " + inst.config_path() + " 2>&1");
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("demo") != std::string::npos);
  CHECK(table.out.find("idle") != std::string::npos);
  // idle's backlog and oldest-waiting columns say "-", not a number.
  const size_t idle_line = table.out.find("idle");
  const std::string idle_row = table.out.substr(idle_line, table.out.find('\n', idle_line) - idle_line);
  INFO(idle_row);
  CHECK(idle_row.find(" - ") != std::string::npos);
}

TEST_CASE("logs: each delivery is one JSON line with its request id, which the answer carries",
          "[integration][logs]") {
  Installation inst;
  inst.WriteTestConfig("", "", "", "");
  ServerProcess server(inst);
  server.Start();
  auto r = server.PostSigned("/hooks/demo", R"({"id":"evt_req_id","type":"t","data":"LOG-LINE-PAYLOAD"})");
  REQUIRE(r.status == 200);
  REQUIRE(r.headers.count("X-Request-Id") == 1);
  const std::string request_id = r.headers.at("X-Request-Id");
  CHECK(request_id.size() == 16);
  CHECK(request_id.find_first_not_of("0123456789abcdef") == std::string::npos);
  json line;
  bool found = PollUntil(
      [&] {
        std::istringstream in(server.log());
        for (std::string l; std::getline(in, l);) {
          if (l.find(request_id) == std::string::npos) continue;
          line = json::parse(l, nullptr, false);
          return true;
        }
        return false;
      },
      10s);
  INFO(server.log());
  REQUIRE(found);
  REQUIRE(line.is_object());
  CHECK(line["event"] == "delivery");
  CHECK(line["level"] == "info");
  CHECK(line["endpoint"] == "demo");
  CHECK(line["event_id"] == "evt_req_id");
  CHECK(line["outcome"] == "accepted");
  CHECK(line["status"] == 200);
  CHECK(line["latency_ms"].is_number());
  CHECK(line["remote_addr"] == "127.0.0.1");
}

TEST_CASE("logs: [log] redact replaces the named fields' values", "[integration][logs]") {
  Installation inst;
  inst.WriteTestConfig("\n[log]\nredact = [\"remote_addr\", \"tenant\"]\n");
  ServerProcess server(inst);
  server.Start();
  REQUIRE(server.PostSigned("/hooks/demo", R"({"id":"evt_redact","type":"t","data":"REDACT-PAYLOAD"})").status == 200);
  bool logged = PollUntil([&] { return server.log().find("evt_redact") != std::string::npos; }, 10s);
  REQUIRE(logged);
  std::istringstream in(server.log());
  int deliveries = 0;
  for (std::string l; std::getline(in, l);) {
    if (l.find("\"event\":\"delivery\"") == std::string::npos) continue;
    ++deliveries;
    json j = json::parse(l);
    CHECK(j["remote_addr"] == "[redacted]");
    CHECK(j["tenant"] == "[redacted]");
    CHECK(j["endpoint"] == "demo");
  }
  CHECK(deliveries == 1);
  CHECK(server.log().find("\"remote_addr\":\"127.0.0.1\"") == std::string::npos);
}

}  // namespace hookinbox::testing
