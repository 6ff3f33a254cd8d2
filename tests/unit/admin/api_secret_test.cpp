// POST /admin/api/endpoints/{name}/secret/rotate and …/retire on a real admin
// listener (admin/api_secret.cpp) with a fake hook: the admin token is
// required, a bad body is 400 before the hook is called, no hook is 503, the
// hook's answer gives the status (200, 404, 409) and the JSON. The new secret
// reaches the hook and nothing else: not the answer, not a log line.
// GET /admin/api/endpoints reads each secret_file's rotation as it is now.
#include <fcntl.h>
#include <httplib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "admin/admin_server.h"
#include "admin/routes.h"
#include "common/clock.h"
#include "config/live.h"
#include "store/sql_store.h"
#include "support/temp_dir.h"

using namespace hookinbox;

namespace {

const std::string kToken(32, 'a');
const std::string kNewSecret = "whsec_NEWSECRETdo-not-leak-7f3a";

// What the process writes to stderr (the log) while it lives.
class StderrCapture {
 public:
  explicit StderrCapture(std::string path) : path_(std::move(path)) {
    saved_ = ::dup(2);
    int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 2);
    ::close(fd);
  }
  ~StderrCapture() { Restore(); }
  std::string Text() {
    Restore();
    std::ifstream in(path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  void Restore() {
    if (saved_ < 0) return;
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  std::string path_;
  int saved_ = -1;
};

struct Fixture {
  testing::TempDir dir;
  SystemClock clock;
  std::unique_ptr<store::SqlStore> store;
  std::unique_ptr<config::LiveConfig> live;
  std::unique_ptr<admin::AdminServer> server;
  std::vector<config::SecretRotateAsk> asks;  // what the hook was called with

  explicit Fixture(bool with_hook, config::SecretRotateAnswer answer = {},
                   const std::function<void(config::Config&, const testing::TempDir&)>& edit = nullptr) {
    auto opened = store::SqlStore::Open({dir.File("db.sqlite")});
    REQUIRE(opened.ok());
    store = std::move(opened).value();
    config::Config c;
    c.admin.listen = "127.0.0.1:0";
    c.admin.token = Secret(kToken);
    c.storage.path = dir.File("db.sqlite");
    if (edit) edit(c, dir);
    live = std::make_unique<config::LiveConfig>(std::move(c));
    auto created = admin::AdminServer::Create(*live, *store, clock);
    REQUIRE(created.ok());
    server = std::move(created).value();
    if (with_hook) {
      server->SetSecretHook([this, answer](const config::SecretRotateAsk& ask) {
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
  httplib::Result Get(const std::string& path) const {
    httplib::Client client("127.0.0.1", server->port());
    return client.Get(path.c_str(), {{"Authorization", "Bearer " + kToken}});
  }
  httplib::Result Post(const std::string& path, const std::string& body, const std::string& token = kToken) const {
    httplib::Client client("127.0.0.1", server->port());
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client.Post(path.c_str(), headers, body, "application/json");
  }
};

config::SecretRotateAnswer Rotated() {
  config::SecretRotateAnswer a;
  a.secret_file = "/etc/hookinbox/shop.secret";
  a.previous_until_ms = 1796860800000;  // 2026-12-10T00:00:00Z
  a.reloaded = true;
  a.reload.applied = true;
  a.reload.config_path = "/etc/hookinbox/hookinbox.toml";
  a.reload.generation = 2;
  a.reload.changed = {"endpoint \"shop\": secret changed"};
  return a;
}

std::string RotateBody(const std::string& extra = "") {
  return R"({"secret":")" + kNewSecret + R"(","keep_old_until":"2099-01-01T00:00:00Z")" + extra + "}";
}

}  // namespace

TEST_CASE("secret routes: rotate reaches the hook; the answer is 200 without the secret, nor is it logged",
          "[admin][secret]") {
  Fixture f(true, Rotated());
  StderrCapture log(f.dir.File("stderr.log"));
  auto res = f.Post("/admin/api/endpoints/shop/secret/rotate", RotateBody());
  const std::string logged = log.Text();
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->get_header_value("Cache-Control") == "no-store");
  auto j = nlohmann::json::parse(res->body);
  CHECK(j["endpoint"] == "shop");
  CHECK(j["secret_file"] == "/etc/hookinbox/shop.secret");
  CHECK(j["previous_until"] == "2026-12-10T00:00:00.000Z");
  CHECK(j["reloaded"] == true);
  CHECK(j["reload"]["applied"] == true);
  CHECK(j["reload"]["changed"] == nlohmann::json::array({"endpoint \"shop\": secret changed"}));
  CHECK_THAT(res->body, !Catch::Contains(kNewSecret));
  REQUIRE(f.asks.size() == 1);
  CHECK(f.asks[0].endpoint == "shop");
  CHECK_FALSE(f.asks[0].retire);
  CHECK(f.asks[0].next.bytes() == kNewSecret);
  CHECK(f.asks[0].keep_old_until_ms == 4070908800000);  // 2099-01-01
  CHECK(f.asks[0].actor.rfind("admin:", 0) == 0);
  CHECK_THAT(logged, Catch::Contains("admin_secret_rotate_requested"));
  CHECK_THAT(logged, !Catch::Contains(kNewSecret) && !Catch::Contains("NEWSECRET"));
}

TEST_CASE("secret routes: retire asks with retire and no secret", "[admin][secret]") {
  config::SecretRotateAnswer retired = Rotated();
  retired.previous_until_ms = 0;
  Fixture f(true, retired);
  for (const char* body : {"", "{}"}) {
    auto res = f.Post("/admin/api/endpoints/shop/secret/retire", body);
    REQUIRE(res);
    CHECK(res->status == 200);
    auto j = nlohmann::json::parse(res->body);
    CHECK(j["previous_until"].is_null());
    CHECK(j["reloaded"] == true);
  }
  REQUIRE(f.asks.size() == 2);
  CHECK(f.asks[0].retire);
  CHECK(f.asks[0].next.empty());
}

TEST_CASE("secret routes: a bad body or no token is refused before the hook, never echoing the secret",
          "[admin][secret]") {
  Fixture f(true, Rotated());
  StderrCapture log(f.dir.File("stderr.log"));
  const std::string path = "/admin/api/endpoints/shop/secret/rotate";
  auto anonymous = f.Post(path, RotateBody(), "");
  REQUIRE(anonymous);
  CHECK(anonymous->status == 401);
  struct Case {
    std::string body;
    const char* error;
  };
  const Case cases[] = {
      {RotateBody(R"(,"force":true)"), "unknown member force"},
      {R"({"secret":")" + kNewSecret + R"(","keep_old_until":"2020-01-01"})", "keep_old_until must be in the future"},
      {R"({"secret":")" + kNewSecret + R"(","keep_old_until":"soon"})", "keep_old_until: "},
      {R"({"secret":")" + kNewSecret + R"(")", "body must be a JSON object"},  // cut short: not JSON
      {R"({"secret":""})", "secret is empty"},
      {"", "body must be a JSON object"},
  };
  for (const Case& c : cases) {
    INFO(c.body);
    auto res = f.Post(path, c.body);
    REQUIRE(res);
    CHECK(res->status == 400);
    auto j = nlohmann::json::parse(res->body);
    CHECK_THAT(j["error"].get<std::string>(), Catch::StartsWith(c.error));
    CHECK_THAT(res->body, !Catch::Contains("NEWSECRET"));
  }
  auto retire_with_body = f.Post("/admin/api/endpoints/shop/secret/retire", RotateBody());
  REQUIRE(retire_with_body);
  CHECK(retire_with_body->status == 400);
  CHECK_THAT(retire_with_body->body, !Catch::Contains("NEWSECRET"));
  // Over the route's limit: 413 before anything is parsed.
  auto huge = f.Post(path, R"({"secret":")" + std::string(admin::kMaxSecretBodyBytes, 'k') + R"("})");
  REQUIRE(huge);
  CHECK(huge->status == 413);
  CHECK(f.asks.empty());  // the hook was never called
  CHECK_THAT(log.Text(), !Catch::Contains("NEWSECRET"));

  httplib::Client client("127.0.0.1", f.server->port());
  auto get = client.Get("/admin/api/endpoints/shop/secret/rotate", {{"Authorization", "Bearer " + kToken}});
  REQUIRE(get);
  CHECK(get->status == 405);
}

TEST_CASE("secret routes: 503 without a hook", "[admin][secret]") {
  Fixture f(false);
  auto res = f.Post("/admin/api/endpoints/shop/secret/rotate", RotateBody());
  REQUIRE(res);
  CHECK(res->status == 503);
  CHECK(res->body == R"({"error":"secret rotation is not available"})");
  auto retire = f.Post("/admin/api/endpoints/shop/secret/retire", "");
  REQUIRE(retire);
  CHECK(retire->status == 503);
}

TEST_CASE("secret routes: the hook's refusals keep their status and message", "[admin][secret]") {
  SECTION("404: no such endpoint") {
    config::SecretRotateAnswer missing;
    missing.status = NotFound("no endpoint named nope in the config");
    Fixture f(true, missing);
    auto res = f.Post("/admin/api/endpoints/nope/secret/rotate", RotateBody());
    REQUIRE(res);
    CHECK(res->status == 404);
    auto j = nlohmann::json::parse(res->body);
    CHECK(j["error"] == "no endpoint named nope in the config");
    CHECK(j["endpoint"] == "nope");
    CHECK(j["reloaded"] == false);
    CHECK(j["reload"].is_null());
    REQUIRE(f.asks.size() == 1);
    CHECK(f.asks[0].endpoint == "nope");
  }
  SECTION("409: a secret that cannot be rotated this way") {
    config::SecretRotateAnswer env;
    env.status = Status(Code::kConflict, "the secret of shop comes from secret_env; use secret_file to rotate it here");
    Fixture f(true, env);
    auto res = f.Post("/admin/api/endpoints/shop/secret/rotate", RotateBody());
    REQUIRE(res);
    CHECK(res->status == 409);
    auto j = nlohmann::json::parse(res->body);
    CHECK(j["error"] == "the secret of shop comes from secret_env; use secret_file to rotate it here");
    CHECK_THAT(res->body, !Catch::Contains("NEWSECRET"));
  }
  SECTION("400: the config would not load with it") {
    config::SecretRotateAnswer bad;
    bad.status = InvalidArgument("the new secret is not valid base64 for a Standard Webhooks endpoint");
    Fixture f(true, bad);
    auto res = f.Post("/admin/api/endpoints/shop/secret/rotate", RotateBody());
    REQUIRE(res);
    CHECK(res->status == 400);
  }
}

TEST_CASE("endpoints route: secret_rotation from the file beside each secret_file, read at each request",
          "[admin][secret][endpoints]") {
  auto write = [](const std::string& file, const std::string& text) { std::ofstream(file) << text; };
  Fixture f(true, {}, [&](config::Config& c, const testing::TempDir& dir) {
    for (const char* name : {"shop", "later", "listed"}) {
      config::EndpointConfig e;
      e.name = name;
      e.secret_file = dir.File(std::string(name) + ".secret");
      e.secrets = {Secret("s")};
      c.endpoints.push_back(e);
    }
    c.endpoints[2].other_secret_keys = {"secrets_file"};  // not one file: not rotated this way
  });
  const std::string shop = f.dir.File("shop.secret");
  const std::string listed = f.dir.File("listed.secret");
  write(shop, "new\n");
  write(listed, "x\n");
  write(listed + ".rotation", "previous_until = \"2099-01-01T00:00:00Z\"\n");

  auto names = [](const nlohmann::json& j) {
    std::map<std::string, nlohmann::json> out;
    for (const auto& e : j["endpoints"]) out[e["name"].get<std::string>()] = e;
    return out;
  };
  auto none = f.Get("/admin/api/endpoints");
  REQUIRE(none);
  REQUIRE(none->status == 200);
  for (const auto& [name, e] : names(nlohmann::json::parse(none->body))) {
    INFO(name);
    CHECK(e["secret_rotation"].is_null());
  }

  // Rotated by another process meanwhile (hookinbox secrets rotate): seen at the next request.
  write(shop + ".previous", "old\n");
  write(shop + ".rotation", "previous_until = \"2099-01-01T00:00:00Z\"\n");
  write(f.dir.File("later.secret"), "new\n");
  write(f.dir.File("later.secret.rotation"), "previous_until = \"2020-01-01T00:00:00Z\"\n");
  auto rotating = f.Get("/admin/api/endpoints");
  REQUIRE(rotating);
  REQUIRE(rotating->status == 200);
  auto e = names(nlohmann::json::parse(rotating->body));
  CHECK(e["shop"]["secret_rotation"] ==
        nlohmann::json{{"previous_until", "2099-01-01T00:00:00.000Z"}, {"previous_active", true}});
  CHECK(e["later"]["secret_rotation"] ==
        nlohmann::json{{"previous_until", "2020-01-01T00:00:00.000Z"}, {"previous_active", false}});
  CHECK(e["listed"]["secret_rotation"].is_null());

  // A rotation file that says something else: logged, shown as none, the list still answers.
  write(shop + ".rotation", "previous_until = \"not a time\"\n");
  StderrCapture log(f.dir.File("stderr.log"));
  auto bad = f.Get("/admin/api/endpoints");
  const std::string logged = log.Text();
  REQUIRE(bad);
  CHECK(bad->status == 200);
  CHECK(names(nlohmann::json::parse(bad->body))["shop"]["secret_rotation"].is_null());
  CHECK_THAT(logged, Catch::Contains("secret_rotation_unreadable"));
  CHECK_THAT(logged, !Catch::Contains("old\\n") && !Catch::Contains("\"old\""));
}
