// The handler's end of an async attempt through the handler API
// (admin/handler_attempt.cpp): POST /v1/events/complete|fail|unknown and
// /v1/events/renew — 200 with the state the event moved to, 400 for a bad
// body, 401 for a wrong token, 409 once the attempt is over (also on the
// effect and step routes, never counted as a failed login); refusals change
// nothing. Drives HandlerApi directly over a real SQLite file; the clock is injected.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>

#include "admin/handler_api.h"
#include "store/sql_store.h"
#include "support/temp_dir.h"

using namespace hookinbox;
using namespace hookinbox::admin;
using nlohmann::json;

namespace {

constexpr int64_t kNow = 1764669600000;  // 2025-12-02T10:00:00Z

struct HandlerFixture {
  testing::TempDir dir;
  FakeClock clock{kNow};
  std::unique_ptr<store::SqlStore> store;
  std::unique_ptr<config::LiveConfig> live;
  std::unique_ptr<HandlerApi> api;
  store::LeasedEvent event;

  HandlerFixture() {
    config::Config config;
    config.worker.lease_seconds = 30;
    config.worker.max_attempts = 2;
    config.worker.backoff_initial_ms = 1000;
    config.endpoints.resize(1);
    config.endpoints[0].name = "payments";
    config.endpoints[0].action.type = "http";
    config.endpoints[0].action.async = true;
    auto opened = store::SqlStore::Open({dir.File("data/hookinbox.db"), 2000, 64});
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    live = std::make_unique<config::LiveConfig>(config);
    api = std::make_unique<HandlerApi>(*store, *live, clock);
    event = Start("evt_1");
  }
  // A stored event, claimed by worker "w1" and handed to its handler (a 202).
  store::LeasedEvent Start(const std::string& event_id) {
    store::NewEvent e;
    e.provider = "generic";
    e.endpoint = "payments";
    e.tenant_id = "default";
    e.event_id = event_id;
    e.payload_hash = "h-" + event_id;
    e.body = "{}";
    e.received_at_ms = clock.NowMs();
    store::DeliveryRecord d;
    d.received_at_ms = clock.NowMs();
    d.endpoint = "payments";
    REQUIRE(store->RecordEvent(e, d).ok());
    auto c = store->LeaseDue("w1", clock.NowMs(), 30000, {});
    REQUIRE(c.ok());
    REQUIRE(c->has_value());
    REQUIRE(store->HandOver((*c)->id, "w1", (*c)->attempt, clock.NowMs() + 30000).ok());
    return **c;
  }
  std::pair<int, json> Call(const std::string& path, const std::string& body = "", std::string token = "") const {
    return Send("POST", path, body, std::move(token));
  }
  std::pair<int, json> Send(const std::string& method, const std::string& path, const std::string& body = "",
                            std::string token = "") const {
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.body = body;
    req.remote_addr = "127.0.0.1";
    req.set_header("Authorization", "Bearer " + (token.empty() ? event.token : token));
    httplib::Response res;
    if (!api->Precheck(req, res)) api->Handle(req, res);
    return {res.status, res.body.empty() ? json() : json::parse(res.body)};
  }
  // Writes behind the store's back, as a hand edit would.
  void SqlExec(const std::string& sql) const {
    SQLite::Database db(dir.File("data/hookinbox.db"), SQLite::OPEN_READWRITE);
    db.exec(sql);
  }
  std::string State() const {
    auto d = store->GetEvent(event.id, false);
    REQUIRE(d.ok());
    return d->event.status;
  }
};

}  // namespace

TEST_CASE("handler API: complete ends the event; a second complete is 409 saying it already ended", "[admin][async]") {
  HandlerFixture f;
  auto [code, body] = f.Call("/v1/events/complete", R"({"result_ref":"crm-42"})");
  CHECK(code == 200);
  CHECK(body["status"] == "completed");
  CHECK(body["result_ref"] == "crm-42");
  CHECK(body["id"] == f.event.id);
  CHECK(f.State() == "completed");
  auto [again, why] = f.Call("/v1/events/complete", R"({"result_ref":"crm-42"})");
  CHECK(again == 409);
  CHECK_THAT(why["error"].get<std::string>(), Catch::Contains("already ended"));
  CHECK(f.State() == "completed");
}

TEST_CASE("handler API: complete without a body is fine", "[admin][async]") {
  HandlerFixture f;
  CHECK(f.Call("/v1/events/complete").first == 200);
  CHECK(f.State() == "completed");
}

TEST_CASE("handler API: fail is a transient failure under the retry policy", "[admin][async]") {
  HandlerFixture f;
  auto [code, body] = f.Call("/v1/events/fail", R"({"error":"crm down","retry_after_seconds":5})");
  CHECK(code == 200);
  CHECK(body["status"] == "retryable_failed");
  CHECK(body["next_attempt_at_ms"].get<int64_t>() >= kNow + 5000);
  auto d = f.store->GetEvent(f.event.id, false);
  REQUIRE(d.ok());
  CHECK(d->event.status == "retryable_failed");
  CHECK(d->event.last_error == "handler: crm down");
  // The second attempt, handed over again, fails too: max_attempts = 2 dead-letters it.
  f.clock.Advance(10 * 60 * 1000);
  f.event = f.Start("evt_unused");  // the due retry is older: it is the one claimed
  REQUIRE(f.event.attempt == 2);
  auto [last, end] = f.Call("/v1/events/fail");
  CHECK(last == 200);
  CHECK(end["status"] == "dead_lettered");
}

TEST_CASE("handler API: unknown ends the event as unknown", "[admin][async]") {
  HandlerFixture f;
  auto [code, body] = f.Call("/v1/events/unknown", R"({"error":"mail server timed out after DATA"})");
  CHECK(code == 200);
  CHECK(body["status"] == "unknown");
  CHECK(f.State() == "unknown");
}

TEST_CASE("handler API: renew extends the lease; the default is worker.lease_seconds", "[admin][async]") {
  HandlerFixture f;
  auto [code, body] = f.Call("/v1/events/renew", R"({"lease_seconds":3600})");
  CHECK(code == 200);
  CHECK(body["status"] == "renewed");
  CHECK(body["lease_until_ms"] == kNow + 3600 * 1000);
  CHECK(body["lease_seconds"] == 3600);
  // Past the first lease, the token still works.
  f.clock.Advance(60 * 1000);
  auto [plain, renewed] = f.Call("/v1/events/renew");
  CHECK(plain == 200);
  CHECK(renewed["lease_until_ms"] == kNow + 60 * 1000 + 30 * 1000);
  CHECK(f.Call("/v1/events/complete").first == 200);
  CHECK(f.Call("/v1/events/renew").first == 409);
}

TEST_CASE("handler API: a lapsed lease is 409 for the late handler", "[admin][async]") {
  HandlerFixture f;
  f.clock.Advance(31 * 1000);
  auto [code, body] = f.Call("/v1/events/complete");
  CHECK(code == 409);
  CHECK_THAT(body["error"].get<std::string>(), Catch::Contains("lease lapsed"));
  CHECK(f.State() == "processing");
}

TEST_CASE("handler API: a wrong token is 401 and changes nothing", "[admin][async]") {
  HandlerFixture f;
  const std::string wrong = "hkt_" + std::string(64, 'a');
  for (const char* path : {"/v1/events/complete", "/v1/events/fail", "/v1/events/unknown", "/v1/events/renew"}) {
    INFO(path);
    CHECK(f.Call(path, "", wrong).first == 401);
  }
  CHECK(f.State() == "processing");
}

TEST_CASE("handler API: a token whose attempt ended is 409 on every route and never counts as a failed login; "
          "a token never issued is 401 and counts",
          "[admin][async]") {
  HandlerFixture f;
  const std::string first = f.event.token;
  SECTION("replaced by a later attempt after its lease lapsed") {
    f.clock.Advance(31 * 1000);
    auto again = f.store->LeaseDue("w2", f.clock.NowMs(), 30000, {});
    REQUIRE(again.ok());
    REQUIRE(again->has_value());
    f.event = **again;
  }
  SECTION("ended by its handler") { REQUIRE(f.Call("/v1/events/complete").first == 200); }
  const std::string state = f.State();
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"POST", "/v1/events/complete"}, {"POST", "/v1/events/fail"}, {"POST", "/v1/events/renew"},
      {"POST", "/v1/effects/claim"},   {"POST", "/v1/effects/k/complete"}, {"PUT", "/v1/steps/s"},
      {"GET", "/v1/steps/s"}};
  // Far more late calls than the limiter allows wrong tokens (LoginLimiter::kMaxFailures).
  for (int round = 0; round < 3; ++round) {
    for (const auto& [method, path] : routes) {
      INFO(method << " " << path);
      auto [code, body] = f.Send(method, path, path == "/v1/effects/claim" ? R"({"key":"k"})" : "", first);
      CHECK(code == 409);
      CHECK_THAT(body["error"].get<std::string>(), Catch::StartsWith("attempt ended: ") && Catch::Contains("replaced"));
    }
  }
  CHECK(f.State() == state);
  // Tokens hookinbox never issued still count: ten are 401, the next is 429.
  for (int i = 0; i < LoginLimiter::kMaxFailures; ++i) {
    CHECK(f.Call("/v1/events/renew", "", "hkt_" + std::string(64, 'a' + i % 6)).first == 401);
  }
  CHECK(f.Call("/v1/events/renew", "", "hkt_" + std::string(64, 'f')).first == 429);
}

TEST_CASE("handler API: bad bodies are 400 and change nothing", "[admin][async]") {
  HandlerFixture f;
  struct Case {
    const char* path;
    std::string body;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"/v1/events/complete", "not json", "JSON object"},
      {"/v1/events/complete", R"({"result_ref":42})", "result_ref must be a string"},
      {"/v1/events/complete", R"({"ref":"x"})", "unknown member \"ref\"; expected result_ref"},
      {"/v1/events/complete", R"({"result_ref":")" + std::string(1025, 'x') + R"("})", "over 1024 bytes"},
      {"/v1/events/fail", R"({"retry_after":5})", "unknown member \"retry_after\""},
      {"/v1/events/fail", R"({"retry_after_seconds":-1})", "retry_after_seconds must be a whole number"},
      {"/v1/events/fail", R"({"retry_after_seconds":"5"})", "retry_after_seconds must be a whole number"},
      {"/v1/events/unknown", R"({"retry_after_seconds":5})", "unknown member"},
      {"/v1/events/renew", R"({"lease_seconds":0})", "lease_seconds must be a whole number from 1 to 86400"},
      {"/v1/events/renew", R"({"lease_seconds":86401})", "lease_seconds must be"},
  };
  for (const auto& c : cases) {
    INFO(c.path << " " << c.body);
    auto [code, body] = f.Call(c.path, c.body);
    CHECK(code == 400);
    CHECK_THAT(body["error"].get<std::string>(), Catch::Contains(c.says));
  }
  CHECK(f.State() == "processing");
}

TEST_CASE("handler API: the attempt of an endpoint without async is not the handler's to end", "[admin][async]") {
  HandlerFixture f;
  config::Config sync = *f.live->Current();
  sync.endpoints[0].action.async = false;
  // Handed over before a reload turned async off: still the handler's.
  f.live->Replace(std::make_shared<const config::Config>(sync));
  CHECK(f.Call("/v1/events/renew").first == 200);
  // Not handed over (a synchronous attempt still running): refused, nothing changed.
  f.SqlExec("UPDATE webhook_inbox SET lease_owner = 'w1' WHERE id = " + std::to_string(f.event.id));
  for (const char* path : {"/v1/events/complete", "/v1/events/fail", "/v1/events/unknown", "/v1/events/renew"}) {
    INFO(path);
    auto [code, body] = f.Call(path);
    CHECK(code == 409);
    CHECK_THAT(body["error"].get<std::string>(), Catch::Contains("is not async"));
  }
  CHECK(f.State() == "processing");
}

TEST_CASE("handler API: other verbs under /v1/events are 404, GET is 405", "[admin][async]") {
  HandlerFixture f;
  CHECK(f.Call("/v1/events/finish").first == 404);
  httplib::Request req;
  req.method = "GET";
  req.path = "/v1/events/complete";
  httplib::Response res;
  CHECK(f.api->Precheck(req, res));
  CHECK(res.status == 405);
}
