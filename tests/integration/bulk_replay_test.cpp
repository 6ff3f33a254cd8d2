// Bulk replay (POST /admin/api/events/replay, `events replay --status …`)
// through the real binary: 1 000 dead letters of an endpoint whose downstream
// refused them (HTTP 422, permanent), replayed by filter once it accepts,
// while 1 000 new deliveries arrive — ingest never answers 503, every
// replayed event reaches the downstream once more with its original
// Idempotency-Key and completes, and so does every new one. Bad requests
// change nothing. Every wait polls with a deadline.
#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <httplib.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

struct Rig {
  Installation inst;
  ServerProcess server{inst};
  DownstreamProcess downstream;
  std::string token;

  Rig() {
    inst.WriteTestConfig(ForwardingConfig(inst, downstream.url()), "", "", "token_file = \"secrets/admin.token\"\n");
    token = Trimmed(ReadFile(inst.dir() + "/secrets/admin.token"));
    REQUIRE(token.size() == 64);
  }

  HttpResult Admin(const std::string& body, const std::string& bearer = "USE_TOKEN") const {
    httplib::Client client("127.0.0.1", server.admin_port());
    client.set_read_timeout(120, 0);
    httplib::Headers h;
    h.emplace("Authorization", "Bearer " + (bearer == "USE_TOKEN" ? token : bearer));
    auto res = client.Post("/admin/api/events/replay", h, body, "application/json");
    HttpResult r;
    if (!res) return r;
    r.status = res->status;
    r.body = res->body;
    return r;
  }

  // Delivers evt_<prefix><i> for i in [from, to); returns the answers' statuses.
  std::vector<int> Deliver(const std::string& prefix, int from, int to, std::atomic<int>* sent = nullptr) const {
    std::vector<int> statuses;
    for (int i = from; i < to; ++i) {
      auto r = server.PostSigned("/hooks/demo", R"({"id":"evt_)" + prefix + std::to_string(i) +
                                                    R"(","type":"invoice.paid"})");
      statuses.push_back(r.status);
      if (sent) ++*sent;
    }
    return statuses;
  }

  // Delivers n events from `threads` threads; returns every answer's status.
  std::vector<int> DeliverMany(const std::string& prefix, int n, int threads, std::atomic<int>* sent = nullptr) const {
    std::vector<std::vector<int>> parts(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] { parts[t] = Deliver(prefix, n * t / threads, n * (t + 1) / threads, sent); });
    }
    for (auto& th : pool) th.join();
    std::vector<int> all;
    for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    return all;
  }

  int Count(const std::string& where) const {
    return std::stoi(inst.Sql("SELECT count(*) FROM webhook_inbox WHERE " + where));
  }
  std::string Snapshot() const {
    return inst.Sql("SELECT count(*) || '/' || sum(CASE WHEN status = 'dead_lettered' THEN 1 ELSE 0 END)"
                    " FROM webhook_inbox") +
           "|" + inst.Sql("SELECT count(*) FROM webhook_event_actions");
  }
};

std::string Header(const json& call, const std::string& name) { return call["headers"].value(name, ""); }

}  // namespace

TEST_CASE("bulk replay: 1000 dead letters replayed by filter while 1000 new deliveries arrive; each delivered once "
          "with its original key, no 503",
          "[integration][worker][replay]") {
  Rig rig;
  rig.downstream.Default(json{{"status", 422}});
  rig.server.Start();
  const int n = 1000;
  for (int status : rig.DeliverMany("old_", n, 4)) REQUIRE(status == 200);
  REQUIRE(PollUntil([&] { return rig.Count("status = 'dead_lettered'") == n; }, 120s));

  // The key each dead letter was sent with.
  std::map<std::string, std::string> original_key;
  for (const json& call : rig.downstream.Calls()) {
    REQUIRE(call["status"] == 422);
    original_key[Header(call, "X-Hookinbox-Event-Id")] = Header(call, "Idempotency-Key");
  }
  REQUIRE(original_key.size() == static_cast<size_t>(n));

  // The downstream recovers; a dry run counts and changes nothing.
  rig.downstream.Default(json{{"status", 200}});
  auto dry = rig.Admin(R"({"status":"dead_lettered","endpoint":"demo","error":"HTTP 422","dry_run":true})");
  INFO(dry.body);
  REQUIRE(dry.status == 200);
  CHECK(json::parse(dry.body) ==
        json{{"matched", n}, {"replayed", 0}, {"skipped", 0}, {"skipped_payload_purged", 0}, {"skipped_changed", 0},
             {"dry_run", true}});
  CHECK(rig.Count("status = 'dead_lettered'") == n);

  // New deliveries arrive while the replay runs.
  std::atomic<int> sent{0};
  std::vector<int> new_statuses;
  std::thread senders([&] { new_statuses = rig.DeliverMany("new_", n, 4, &sent); });
  REQUIRE(PollUntil([&] { return sent.load() >= 50; }, 60s));
  auto replay = rig.Admin(R"({"status":"dead_lettered","endpoint":"demo","note":"after the outage"})");
  const int sent_when_replayed = sent.load();
  senders.join();
  INFO(replay.body);
  REQUIRE(replay.status == 200);
  json report = json::parse(replay.body);
  CHECK(report["matched"] == n);
  CHECK(report["replayed"] == n);
  CHECK(report["skipped"] == 0);
  CHECK(report["dry_run"] == false);
  // The replay ran while deliveries arrived: it started after 50 and ended before the last.
  CHECK(sent_when_replayed < n);
  std::map<int, int> by_status;
  for (int s : new_statuses) ++by_status[s];
  CHECK(by_status == std::map<int, int>{{200, n}});  // no 503, no failure of any kind

  REQUIRE(PollUntil([&] { return rig.Count("status = 'completed'") == 2 * n; }, 300s));
  CHECK(rig.inst.Sql("SELECT count(*) FROM webhook_event_actions WHERE action = 'replay'"
                     " AND from_status = 'dead_lettered' AND note = 'after the outage' AND actor LIKE 'admin:%'") ==
        std::to_string(n));
  CHECK(rig.inst.Sql("SELECT count(DISTINCT inbox_id) FROM webhook_event_actions") == std::to_string(n));

  // Every replayed event: one more call, with its original key, applied once.
  std::map<std::string, std::vector<json>> calls;
  for (const json& call : rig.downstream.Calls()) calls[Header(call, "X-Hookinbox-Event-Id")].push_back(call);
  int replayed_ok = 0, new_ok = 0;
  for (const auto& [event_id, list] : calls) {
    INFO(event_id << ": " << json(list).dump());
    if (event_id.rfind("evt_old_", 0) == 0) {
      REQUIRE(list.size() == 2);
      CHECK(list[1]["status"] == 200);
      CHECK(Header(list[1], "Idempotency-Key") == original_key[event_id]);
      CHECK(Header(list[1], "X-Hookinbox-Attempt") == "1");  // attempts counted afresh
      replayed_ok += list[1]["status"] == 200 ? 1 : 0;
    } else {
      REQUIRE(list.size() == 1);
      new_ok += list[0]["status"] == 200 ? 1 : 0;
    }
  }
  CHECK(replayed_ok == n);
  CHECK(new_ok == n);
  CHECK(rig.downstream.Stats()["effects"] == 2 * n);
}

TEST_CASE("bulk replay: bad requests are refused with 400 (404 for an unknown endpoint, 401 without the token) and "
          "change nothing",
          "[integration][replay]") {
  Rig rig;
  rig.downstream.Default(json{{"status", 422}});
  rig.server.Start();
  for (int status : rig.Deliver("old_", 0, 3)) REQUIRE(status == 200);
  REQUIRE(PollUntil([&] { return rig.Count("status = 'dead_lettered'") == 3; }, 30s));
  const std::string before = rig.Snapshot();
  struct Case {
    const char* body;
    const char* says;
  };
  const Case cases[] = {
      {"", "body"},
      {"[1]", "object"},
      {R"({"endpoint":"demo"})", "status is missing"},
      {R"({"status":"received","endpoint":"demo"})", "status must be"},
      {R"({"status":"dead_lettered"})", "endpoint is missing"},
      {R"({"status":"dead_lettered","endpoint":"demo","since":"yesterday"})", "since: not a time"},
      {R"({"status":"dead_lettered","endpoint":"demo","since":2000,"until":1000})", "until must be after since"},
      {R"({"status":"dead_lettered","endpoint":"demo","dry_run":"no"})", "dry_run must be true or false"},
      {R"({"status":"dead_lettered","endpoint":"demo","limit":5})", "unknown member limit"},
  };
  for (const Case& c : cases) {
    auto r = rig.Admin(c.body);
    INFO(c.body << " → " << r.status << " " << r.body);
    CHECK(r.status == 400);
    CHECK(r.body.find(c.says) != std::string::npos);
  }
  // A mistyped endpoint is an error, not "0 matched".
  auto unknown = rig.Admin(R"({"status":"dead_lettered","endpoint":"dmeo"})");
  CHECK(unknown.status == 404);
  CHECK(unknown.body.find("no endpoint named dmeo") != std::string::npos);
  auto unauthorized = rig.Admin(R"({"status":"dead_lettered","endpoint":"demo"})", "wrong");
  CHECK(unauthorized.status == 401);
  CHECK(rig.Snapshot() == before);
}

}  // namespace hookinbox::testing
