// The incident routes of the admin API (admin/api_incidents.cpp,
// admin/incident_json.cpp): the list (open; with all=1 also those resolved
// in the last 7 days), one incident with its notifications, acknowledge
// (once; then "changed": false) and mute (until, minutes, unmute), and the
// 400s and 404s that change nothing. Drives AdminApi directly over a real
// SQLite file, incidents seeded through the store; the clock is injected.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "admin/admin_api.h"
#include "admin/incident_json.h"
#include "admin/routes.h"
#include "store/sql_store.h"
#include "support/temp_dir.h"

using namespace hookinbox;
using namespace hookinbox::admin;
using nlohmann::json;

namespace {

constexpr int64_t kNow = 1764669600000;  // 2025-12-02T10:00:00Z
constexpr int64_t kDay = 24 * 3600 * 1000;

struct ApiFixture {
  testing::TempDir dir;
  FakeClock clock{kNow};
  config::Config config;
  std::unique_ptr<store::SqlStore> store;
  std::unique_ptr<config::LiveConfig> live;
  std::unique_ptr<AdminApi> api;
  ApiFixture() {
    config.base_dir = dir.path();
    config.storage.path = dir.File("data/hookinbox.db");
    auto opened = store::SqlStore::Open({config.storage.path, 2000, 64});
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    live = std::make_unique<config::LiveConfig>(config);
    api = std::make_unique<AdminApi>(*live, *store, clock);
  }
  int64_t Seed(const std::string& condition, const std::string& endpoint, int64_t at) {
    store::PlannedMessages m;
    m.channels = {"ops"};
    m.start_message = m.resolved_message = "{}";
    auto r = store->ObserveCondition({condition, endpoint, endpoint + ": " + condition, 4}, m, at);
    REQUIRE(r.ok());
    return r->incident.id;
  }
  void Resolve(const std::string& condition, const std::string& endpoint, int64_t at) {
    store::PlannedMessages m;
    m.channels = {"ops"};
    m.resolved_message = "{}";
    REQUIRE(store->ResolveCondition(condition, endpoint, m, at).ok());
  }
  std::pair<int, json> Call(const std::string& method, const std::string& path, const std::string& body = "",
                            const httplib::Params& params = {}) const {
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.body = body;
    req.params = params;
    req.remote_addr = "10.0.0.5";
    httplib::Response res;
    api->Handle(MatchAdminRoute(path), req, res);
    return {res.status, json::parse(res.body, nullptr, false)};
  }
  std::string Path(int64_t id, const std::string& verb = "") const {
    return "/admin/api/incidents/" + std::to_string(id) + (verb.empty() ? "" : "/" + verb);
  }
};

}  // namespace

TEST_CASE("incidents API: the list shows open incidents; all=1 adds those resolved in the last 7 days",
          "[admin][incidents]") {
  ApiFixture f;
  f.Seed("dead_letters", "old", kNow - 20 * kDay);
  f.Resolve("dead_letters", "old", kNow - 10 * kDay);
  const int64_t recent = f.Seed("silence", "shop", kNow - 3 * kDay);
  f.Resolve("silence", "shop", kNow - 2 * kDay);
  const int64_t open = f.Seed("disk_free", "", kNow - 3600000);

  auto [status, body] = f.Call("GET", "/admin/api/incidents");
  CHECK(status == 200);
  REQUIRE(body["incidents"].size() == 1);
  const json& i = body["incidents"][0];
  CHECK(i["id"] == open);
  CHECK(i["condition"] == "disk_free");
  CHECK(i["endpoint"].is_null());  // the whole installation
  CHECK(i["opened_at"] == "2025-12-02T09:00:00.000Z");
  CHECK(i["resolved_at"].is_null());
  CHECK(i["count"] == 4);
  CHECK(i["observations"] == 1);
  CHECK(i["acked_at"].is_null());
  CHECK(i["muted_until"].is_null());
  CHECK(i["last_notified_at"] == "2025-12-02T09:00:00.000Z");
  std::vector<std::string> keys;
  for (const auto& [k, v] : i.items()) keys.push_back(k);
  CHECK(keys.size() == 13);

  auto [all_status, all] = f.Call("GET", "/admin/api/incidents", "", {{"all", "1"}});
  CHECK(all_status == 200);
  REQUIRE(all["incidents"].size() == 2);
  CHECK(all["incidents"][0]["id"] == open);
  CHECK(all["incidents"][1]["id"] == recent);
  CHECK(all["incidents"][1]["resolved_at"] == "2025-11-30T10:00:00.000Z");

  for (const httplib::Params& bad : {httplib::Params{{"all", "yes"}}, httplib::Params{{"open", "1"}}}) {
    auto [bad_status, error] = f.Call("GET", "/admin/api/incidents", "", bad);
    CHECK(bad_status == 400);
    CHECK(error["error"].is_string());
  }
}

TEST_CASE("incidents API: one incident with its notifications; 404 for an unknown id", "[admin][incidents]") {
  ApiFixture f;
  const int64_t id = f.Seed("dead_letters", "crm", kNow - 60000);
  auto [status, body] = f.Call("GET", f.Path(id));
  CHECK(status == 200);
  CHECK(body["id"] == id);
  CHECK(body["endpoint"] == "crm");
  REQUIRE(body["notifications"].size() == 1);
  const json& n = body["notifications"][0];
  CHECK(n["channel"] == "ops");
  CHECK(n["kind"] == "start");
  CHECK(n["status"] == "pending");
  CHECK(n["attempts"] == 0);
  CHECK(n["sent_at"].is_null());
  CHECK(n["last_error"].is_null());
  CHECK_FALSE(n.contains("message"));
  CHECK(f.Call("GET", f.Path(id + 1)).first == 404);
}

TEST_CASE("incidents API: acknowledge records the admin once; again answers changed false", "[admin][incidents]") {
  ApiFixture f;
  const int64_t id = f.Seed("dead_letters", "crm", kNow - 60000);
  auto [status, body] = f.Call("POST", f.Path(id, "ack"), "{}");
  CHECK(status == 200);
  CHECK(body["changed"] == true);
  CHECK(body["incident"]["acked_by"] == "admin:10.0.0.5");
  CHECK(body["incident"]["acked_at"] == "2025-12-02T10:00:00.000Z");
  f.clock.Advance(1000);
  auto [again_status, again] = f.Call("POST", f.Path(id, "ack"), "");
  CHECK(again_status == 200);
  CHECK(again["changed"] == false);
  CHECK(again["incident"]["acked_at"] == "2025-12-02T10:00:00.000Z");

  CHECK(f.Call("POST", f.Path(id + 1, "ack"), "{}").first == 404);
  auto [bad_status, bad] = f.Call("POST", f.Path(id, "ack"), "[1]");
  CHECK(bad_status == 400);
  CHECK(f.Call("POST", f.Path(id, "ack"), R"({"note":"x"})").first == 400);
}

TEST_CASE("incidents API: mute until a time or for minutes, and unmute; bad bodies are 400 and change nothing",
          "[admin][incidents]") {
  ApiFixture f;
  const int64_t id = f.Seed("silence", "shop", kNow - 60000);
  auto [status, body] = f.Call("POST", f.Path(id, "mute"), R"({"until":"2025-12-02T18:00:00Z"})");
  CHECK(status == 200);
  CHECK(body["incident"]["muted_until"] == "2025-12-02T18:00:00.000Z");
  CHECK_FALSE(body.contains("changed"));

  auto minutes = f.Call("POST", f.Path(id, "mute"), R"({"minutes":60})");
  CHECK(minutes.first == 200);
  CHECK(minutes.second["incident"]["muted_until"] == "2025-12-02T11:00:00.000Z");

  for (const char* bad : {R"({"until":"2025-12-02T09:00:00Z"})", R"({"until":"tomorrow"})", R"({"until":5})",
                          R"({"minutes":-1})", R"({"minutes":1.5})", R"({"minutes":"60"})", R"({"minutes":600000})",
                          R"({"minutes":5,"until":"2025-12-02T18:00:00Z"})", R"({"hours":1})", "not json"}) {
    INFO(bad);
    auto [bad_status, error] = f.Call("POST", f.Path(id, "mute"), bad);
    CHECK(bad_status == 400);
    CHECK(error["error"].is_string());
  }
  auto got = f.store->GetIncident(id);
  REQUIRE(got.ok());
  CHECK((*got)->muted_until_ms == kNow + 3600000);  // as the last good request left it

  CHECK(f.Call("POST", f.Path(id + 1, "mute"), R"({"minutes":60})").first == 404);

  for (const char* unmute : {R"({"minutes":0})", R"({"until":null})", "{}", ""}) {
    INFO(unmute);
    REQUIRE(f.Call("POST", f.Path(id, "mute"), R"({"minutes":5})").first == 200);
    auto [u_status, u] = f.Call("POST", f.Path(id, "mute"), unmute);
    CHECK(u_status == 200);
    CHECK(u["incident"]["muted_until"].is_null());
  }
}
