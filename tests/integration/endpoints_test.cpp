// Pausing and resuming an endpoint from the outside: `hookinbox endpoints
// …` beside a running server, the pause surviving a restart, GET/POST
// /admin/api/endpoints…, /metrics, and the audit rows read with sqlite3
// (psql on PostgreSQL). What the worker does while an endpoint is paused is
// the worker's own test.
#include <pwd.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "harness.h"

namespace hookinbox::testing {
namespace {

using json = nlohmann::json;

// crm has an action (so it has /metrics gauges); demo (WriteTestConfig's) has none.
const std::string kCrmEndpoint = DemoLikeEndpoint("crm") + R"(
[endpoint.action]
type = "exec"
command = ["/bin/true"]
)";

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string OsUser() {
  const passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : "uid" + std::to_string(::geteuid());
}

struct EndpointsFixture {
  Installation inst;
  ServerProcess server{inst};
  std::string token;

  EndpointsFixture() {
    inst.WriteTestConfig(kCrmEndpoint, "", "", "token_file = \"secrets/admin.token\"\n");
    token = Trimmed(ReadFile(inst.dir() + "/secrets/admin.token"));
    server.Start();
  }
  // Runs `hookinbox endpoints ARGS -c CONFIG`; stderr goes to the output too.
  CommandResult Cli(const std::string& args) const {
    return RunCommand(BinaryPath() + " endpoints " + args + " -c " + inst.config_path() + " 2>&1");
  }
  json CliJson(const std::string& args) const {
    auto r = RunCommand(BinaryPath() + " endpoints " + args + " --json -c " + inst.config_path());
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  }
  HttpResult Admin(const std::string& method, const std::string& path, const std::string& body = "") const {
    httplib::Client client("127.0.0.1", server.admin_port());
    client.set_connection_timeout(10, 0);
    client.set_read_timeout(30, 0);
    httplib::Headers h{{"Authorization", "Bearer " + token}};
    auto res = method == "POST" ? client.Post(path.c_str(), h, body, "application/json") : client.Get(path.c_str(), h);
    HttpResult r;
    if (res) {
      r.status = res->status;
      r.body = res->body;
    }
    return r;
  }
  json AdminJson(const std::string& method, const std::string& path, const std::string& body = "") const {
    auto r = Admin(method, path, body);
    INFO(method << " " << path << " → " << r.status << " " << r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body);
  }
  std::string Actions() const {
    return inst.Sql("SELECT endpoint || '|' || actor || '|' || action || '|' || coalesce(reason, '')"
                    " FROM endpoint_actions ORDER BY id");
  }
};

json Named(const json& list, const std::string& name) {
  for (const auto& e : list.at("endpoints")) {
    if (e.at("name") == name) return e;
  }
  FAIL("no endpoint " << name << " in " << list.dump());
  return {};
}

// The value of one sample line "name{labels} value" of /metrics; "" when absent.
std::string Sample(const std::string& text, const std::string& series) {
  const std::string prefix = series + " ";
  size_t at = text.find("\n" + prefix);
  if (at == std::string::npos) return "";
  size_t start = at + 1 + prefix.size();
  return text.substr(start, text.find('\n', start) - start);
}

}  // namespace

TEST_CASE("endpoints: a pause from the CLI holds across a restart, the admin API resumes it, both audited",
          "[integration][endpoints]") {
  EndpointsFixture f;
  const std::string cli_actor = "cli:" + OsUser();

  auto pause = f.Cli("pause crm --reason 'CRM maintenance'");
  INFO(pause.out);
  CHECK(pause.exit_code == 0);
  CHECK(pause.out.find("crm: paused") != std::string::npos);
  json crm = Named(f.CliJson("list"), "crm");
  CHECK(crm["paused"] == true);
  CHECK(crm["paused_by"] == cli_actor);
  CHECK(crm["paused_reason"] == "CRM maintenance");
  CHECK(crm["paused_at"].is_string());
  CHECK(crm["has_action"] == true);
  CHECK(crm["breaker"]["state"] == "closed");
  CHECK(Named(f.CliJson("list"), "demo")["paused"] == false);
  auto text = f.Cli("list");
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("crm  generic  action=yes  paused since ") != std::string::npos);
  CHECK(text.out.find("demo  generic  action=no  running  breaker closed") != std::string::npos);

  // Again: already paused, nothing written, exit 0.
  auto again = f.Cli("pause crm --reason other");
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("already paused") != std::string::npos);
  CHECK(f.Actions() == "crm|" + cli_actor + "|pause|CRM maintenance");

  f.server.Kill(SIGTERM);
  REQUIRE(f.server.WaitExit() == 0);
  f.server.Start();
  json listed = f.AdminJson("GET", "/admin/api/endpoints");
  REQUIRE(listed["endpoints"].size() == 2);
  CHECK(listed["endpoints"][0]["name"] == "demo");  // the config's order
  crm = Named(listed, "crm");
  CHECK(crm["paused"] == true);
  CHECK(crm["paused_by"] == cli_actor);
  CHECK(crm["breaker"]["failures"] == 0);

  json resumed = f.AdminJson("POST", "/admin/api/endpoints/crm/resume");
  CHECK(resumed["changed"] == true);
  CHECK(resumed["endpoint"]["name"] == "crm");
  CHECK(resumed["endpoint"]["paused"] == false);
  CHECK(resumed["endpoint"]["paused_by"].is_null());
  CHECK(f.AdminJson("POST", "/admin/api/endpoints/crm/resume")["changed"] == false);  // already running: 200
  CHECK(Named(f.CliJson("list"), "crm")["paused"] == false);
  auto resume_again = f.Cli("resume crm");
  CHECK(resume_again.exit_code == 0);
  CHECK(resume_again.out.find("already running") != std::string::npos);

  json paused = f.AdminJson("POST", "/admin/api/endpoints/crm/pause", R"({"reason":"quota spent"})");
  CHECK(paused["changed"] == true);
  CHECK(paused["endpoint"]["paused_reason"] == "quota spent");
  CHECK(f.Actions() == "crm|" + cli_actor + "|pause|CRM maintenance\ncrm|admin:127.0.0.1|resume|\n"
                       "crm|admin:127.0.0.1|pause|quota spent");
  CHECK(f.server.log().find("endpoint_paused") != std::string::npos);
  CHECK(f.server.log().find("endpoint_resumed") != std::string::npos);
}

TEST_CASE("endpoints: an unknown endpoint or a bad request is refused and writes nothing", "[integration][endpoints]") {
  EndpointsFixture f;
  auto cli = f.Cli("pause nope --reason x");
  INFO(cli.out);
  CHECK(cli.exit_code == 2);
  CHECK(cli.out.find("no endpoint named \"nope\"") != std::string::npos);
  CHECK(cli.out.find("configured: demo, crm") != std::string::npos);
  CHECK(f.Cli("resume nope").exit_code == 2);
  CHECK(f.Cli("pause").exit_code == 2);  // NAME is required
  CHECK(f.Cli("pause crm --reason " + std::string(1100, 'x')).exit_code == 2);

  CHECK(f.Admin("POST", "/admin/api/endpoints/nope/pause").status == 404);
  CHECK(f.Admin("POST", "/admin/api/endpoints/nope/resume").status == 404);
  CHECK(f.Admin("POST", "/admin/api/endpoints/crm/pause", R"({"reason":5})").status == 400);
  CHECK(f.Admin("POST", "/admin/api/endpoints/crm/pause", "not json").status == 400);
  CHECK(f.Admin("POST", "/admin/api/endpoints/crm/pause", R"({"reason":")" + std::string(1100, 'x') + R"("})")
            .status == 400);
  CHECK(f.Admin("GET", "/admin/api/endpoints/crm/pause").status == 405);
  httplib::Client anonymous("127.0.0.1", f.server.admin_port());
  auto unauthenticated = anonymous.Post("/admin/api/endpoints/crm/pause", "{}", "application/json");
  REQUIRE(unauthenticated);
  CHECK(unauthenticated->status == 401);
  CHECK(f.inst.Sql("SELECT count(*) FROM endpoint_actions") == "0");
  CHECK(f.inst.Sql("SELECT count(*) FROM endpoint_states") == "0");
}

TEST_CASE("endpoints: /metrics has the paused and breaker gauges of every endpoint with an action",
          "[integration][endpoints]") {
  EndpointsFixture f;
  auto metrics = [&] {
    auto r = f.Admin("GET", "/metrics");
    REQUIRE(r.status == 200);
    return r.body;
  };
  std::string text = metrics();
  INFO(text);
  CHECK(text.find("# TYPE webhook_endpoint_paused gauge\n") != std::string::npos);
  CHECK(text.find("# TYPE webhook_breaker_open gauge\n") != std::string::npos);
  CHECK(Sample(text, "webhook_endpoint_paused{endpoint=\"crm\"}") == "0");
  CHECK(Sample(text, "webhook_breaker_open{endpoint=\"crm\"}") == "0");
  CHECK(Sample(text, "webhook_endpoint_paused{endpoint=\"demo\"}").empty());  // no action: nothing to pause
  REQUIRE(f.Cli("pause crm").exit_code == 0);
  text = metrics();
  CHECK(Sample(text, "webhook_endpoint_paused{endpoint=\"crm\"}") == "1");
  // What a worker records when the breaker opens (the worker's own test drives it for real).
  f.inst.SqlWrite("UPDATE endpoint_states SET breaker = 'open', breaker_failures = 5 WHERE endpoint = 'crm'");
  text = metrics();
  CHECK(Sample(text, "webhook_breaker_open{endpoint=\"crm\"}") == "1");
  json crm = Named(f.AdminJson("GET", "/admin/api/endpoints"), "crm");
  CHECK(crm["breaker"]["state"] == "open");
  CHECK(crm["breaker"]["failures"] == 5);
}

}  // namespace hookinbox::testing
