// POST /admin/api/reload on a real admin listener (admin/api_reload.cpp,
// admin/admin_server.cpp): the admin token is required (401), a foreign Host
// is refused (421, browser_guard.h), a bad body is
// refused before the hook is called (400), no hook is 503, the hook's answer
// is 200 when applied and 422 when refused, and accept_key_change reaches
// the hook. Also: the admin token is read from the config in force per
// request, so a LiveConfig::Replace rotates it.
#include <httplib.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "admin/admin_server.h"
#include "common/clock.h"
#include "config/live.h"
#include "store/sql_store.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

const std::string kToken(32, 'a');
const std::string kNewToken(32, 'b');

config::Config ConfigWithToken(const std::string& token, const std::string& path) {
  config::Config c;
  c.admin.listen = "127.0.0.1:0";
  c.admin.token = Secret(token);
  c.storage.path = path;
  return c;
}

struct Fixture {
  testing::TempDir dir;
  SystemClock clock;
  std::unique_ptr<store::SqlStore> store;
  std::unique_ptr<config::LiveConfig> live;
  std::unique_ptr<admin::AdminServer> server;
  std::vector<config::ReloadAsk> asks;  // what the hook was called with

  explicit Fixture(bool with_hook, config::ReloadAnswer answer = {}) {
    auto opened = store::SqlStore::Open({dir.File("db.sqlite")});
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    live = std::make_unique<config::LiveConfig>(ConfigWithToken(kToken, dir.File("db.sqlite")));
    auto created = admin::AdminServer::Create(*live, *store, clock);
    REQUIRE(created.ok());
    server = std::move(created).value();
    if (with_hook) {
      server->SetReloadHook([this, answer](const config::ReloadAsk& ask) {
        asks.push_back(ask);
        return answer;
      });
    }
    REQUIRE(server->Bind().ok());
    server->Start();
  }
  ~Fixture() {
    server->Stop();
    store->Close();
  }
  httplib::Result Post(const std::string& body, const std::string& token = kToken) const {
    httplib::Client client("127.0.0.1", server->port());
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client.Post("/admin/api/reload", headers, body, "application/json");
  }
};

config::ReloadAnswer Applied() {
  config::ReloadAnswer a;
  a.applied = true;
  a.config_path = "/etc/hookinbox/hookinbox.toml";
  a.generation = 2;
  a.changed = {"endpoint \"orders\" added"};
  return a;
}

}  // namespace

TEST_CASE("reload route: the admin token is required; a bad body changes nothing", "[admin][reload]") {
  Fixture f(true, Applied());
  auto none = f.Post("");
  REQUIRE(none);  // the listener runs (Start returns once it is serving or failed)
  CHECK(none->status == 200);
  f.asks.clear();

  auto anonymous = f.Post("", "");
  REQUIRE(anonymous);
  CHECK(anonymous->status == 401);
  auto wrong = f.Post("", std::string(32, 'z'));
  REQUIRE(wrong);
  CHECK(wrong->status == 401);

  auto bad = f.Post(R"({"accept_key_change": "orders"})");
  REQUIRE(bad);
  CHECK(bad->status == 400);
  CHECK_THAT(bad->body, Catch::Contains("accept_key_change must be an array of endpoint names"));
  auto unknown = f.Post(R"({"force": true})");
  REQUIRE(unknown);
  CHECK(unknown->status == 400);
  CHECK_THAT(unknown->body, Catch::Contains("unknown member"));
  CHECK(f.asks.empty());  // the hook was never called

  // The browser guard of every admin route: a page on another site that
  // rebinds its name to this address is refused before the token is read.
  httplib::Client client("127.0.0.1", f.server->port());
  auto foreign = client.Post("/admin/api/reload", {{"Host", "evil.example"}, {"Authorization", "Bearer " + kToken}}, "",
                             "application/json");
  REQUIRE(foreign);
  CHECK(foreign->status == 421);
  CHECK(f.asks.empty());

  auto get = client.Get("/admin/api/reload");
  REQUIRE(get);
  CHECK(get->status == 405);
}

TEST_CASE("reload route: 503 without a hook", "[admin][reload]") {
  Fixture f(false);
  auto res = f.Post("");
  REQUIRE(res);
  CHECK(res->status == 503);
  CHECK(res->body == R"({"error":"reload is not available"})");
}

TEST_CASE("reload route: the hook's answer, 200 when applied; accept_key_change reaches the hook", "[admin][reload]") {
  Fixture f(true, Applied());
  auto res = f.Post(R"({"accept_key_change": ["orders", "refunds"]})");
  REQUIRE(res);
  CHECK(res->status == 200);
  auto j = nlohmann::json::parse(res->body);
  CHECK(j["applied"] == true);
  CHECK(j["config"] == "/etc/hookinbox/hookinbox.toml");
  CHECK(j["generation"] == 2);
  CHECK(j["changed"] == nlohmann::json::array({"endpoint \"orders\" added"}));
  CHECK(j["errors"].empty());
  REQUIRE(f.asks.size() == 1);
  CHECK(f.asks[0].actor.rfind("admin:", 0) == 0);  // "admin:<address>", as pause and replay
  CHECK(f.asks[0].accept_key_change == std::vector<std::string>{"orders", "refunds"});
}

TEST_CASE("reload route: a refused reload is 422 with its errors", "[admin][reload]") {
  config::ReloadAnswer refused;
  refused.config_path = "/etc/hookinbox/hookinbox.toml";
  refused.generation = 1;
  refused.errors = {{"endpoint[0].provider", 4, "unknown preset"}};
  Fixture f(true, refused);
  auto res = f.Post("");
  REQUIRE(res);
  CHECK(res->status == 422);
  auto j = nlohmann::json::parse(res->body);
  CHECK(j["applied"] == false);
  REQUIRE(j["errors"].size() == 1);
  CHECK(j["errors"][0]["file"] == "/etc/hookinbox/hookinbox.toml");
  CHECK(j["errors"][0]["key"] == "endpoint[0].provider");
  CHECK(j["errors"][0]["line"] == 4);
  REQUIRE(f.asks.size() == 1);
  CHECK(f.asks[0].accept_key_change.empty());
}

TEST_CASE("admin listener: the admin token in force is read per request, so a reload rotates it", "[admin][reload]") {
  Fixture f(true, Applied());
  auto before = f.Post("", kToken);
  REQUIRE(before);
  CHECK(before->status == 200);
  f.live->Replace(std::make_shared<const config::Config>(ConfigWithToken(kNewToken, f.dir.File("db.sqlite"))));
  auto old_token = f.Post("", kToken);
  REQUIRE(old_token);
  CHECK(old_token->status == 401);
  auto new_token = f.Post("", kNewToken);
  REQUIRE(new_token);
  CHECK(new_token->status == 200);
}
