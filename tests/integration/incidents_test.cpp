// The incidents admin API against the real binary: incidents and their
// notifications seeded with sqlite3 (psql on PostgreSQL) into the running
// server's database, as the alert engine would have written them; then the
// list, one incident, acknowledge and mute over HTTP with the admin token,
// and the rows they leave, read back the same way. The token is required;
// bad input answers 400/404 and changes nothing.
#include <httplib.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "harness.h"

namespace hookinbox::testing {
namespace {

using json = nlohmann::json;

constexpr const char* kAlertsOff =
    "\n[alert]\ndead_letters = false\nunknown = false\nconflicts = false\nbacklog_age = false\n"
    "signature_failures = false\nbreaker_open = false\ncertificate_days = false\ndisk_free = false\n"
    "storage_failures = false\n";

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

struct IncidentsFixture {
  Installation inst;
  ServerProcess server{inst};
  std::string token;

  IncidentsFixture() {
    // Every condition off: no check runs while the seeded incidents are read
    // (a check would close those its figures do not bear out).
    inst.WriteTestConfig(kAlertsOff, "", "", "token_file = \"secrets/admin.token\"\n");
    token = Trimmed(ReadFile(inst.dir() + "/secrets/admin.token"));
    server.Start();
    // Two open incidents (one muted long ago), one resolved an hour ago, one resolved 30 days ago.
    inst.SqlWrite(
        "INSERT INTO alerts (id, condition, endpoint, summary, opened_at, last_seen_at, resolved_at, observations,"
        " count, muted_until, last_notified_at) VALUES"
        " (1, 'dead_letters', 'demo', 'demo: 3 dead letters', 1764662400000, 1764666000000, NULL, 5, 3, NULL,"
        "  1764662400000),"
        " (2, 'disk_free', '', 'disk 4% free', 1764662400000, 1764666000000, NULL, 2, 4, 1000, NULL),"
        " (3, 'silence', 'demo', 'demo: no delivery for 25 h', 1000, 2000, " +
        std::to_string(NowMs() - 3600000) +
        ", 2, 90000, NULL, NULL),"
        " (4, 'conflicts', 'demo', 'demo: 1 conflict', 1000, 2000, 3000, 1, 1, NULL, NULL);"
        "INSERT INTO alert_notifications (alert_id, channel, kind, message, status, attempts, created_at,"
        " next_attempt_at, sent_at, last_error) VALUES"
        " (1, 'ops-mail', 'start', '{}', 'sent', 1, 1764662400000, 1764662400000, 1764662401000, NULL),"
        " (1, 'ops-chat', 'start', '{}', 'pending', 2, 1764662400000, 1764662460000, NULL, 'chat answered 503')");
  }
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  HttpResult Admin(const std::string& method, const std::string& path, const std::string& body = "",
                   bool with_token = true) const {
    httplib::Client client("127.0.0.1", server.admin_port());
    client.set_connection_timeout(10, 0);
    client.set_read_timeout(30, 0);
    httplib::Headers h;
    if (with_token) h.emplace("Authorization", "Bearer " + token);
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
  std::string Row(int id) const {
    return inst.Sql(
        "SELECT coalesce(acked_by, '-') || '|' || coalesce(muted_until, 0) || '|' || coalesce(muted_by, '-')"
        " FROM alerts WHERE id = " +
        std::to_string(id));
  }
};

}  // namespace

TEST_CASE("incidents: the admin API lists open incidents, and with all=1 those resolved in the last 7 days",
          "[integration][incidents]") {
  IncidentsFixture f;
  json open = f.AdminJson("GET", "/admin/api/incidents");
  REQUIRE(open["incidents"].size() == 2);
  CHECK(open["incidents"][0]["id"] == 2);  // newest first; same opened_at: higher id first
  CHECK(open["incidents"][0]["endpoint"].is_null());
  CHECK(open["incidents"][1]["condition"] == "dead_letters");
  CHECK(open["incidents"][1]["opened_at"] == "2025-12-02T08:00:00.000Z");
  CHECK(open["incidents"][1]["count"] == 3);
  CHECK(open["incidents"][1]["observations"] == 5);

  json all = f.AdminJson("GET", "/admin/api/incidents?all=1");
  REQUIRE(all["incidents"].size() == 3);
  CHECK(all["incidents"][2]["id"] == 3);
  CHECK(all["incidents"][2]["resolved_at"].is_string());

  json one = f.AdminJson("GET", "/admin/api/incidents/1");
  CHECK(one["summary"] == "demo: 3 dead letters");
  REQUIRE(one["notifications"].size() == 2);
  CHECK(one["notifications"][0]["status"] == "sent");
  CHECK(one["notifications"][0]["sent_at"] == "2025-12-02T08:00:01.000Z");
  CHECK(one["notifications"][1]["last_error"] == "chat answered 503");
  CHECK(one["notifications"][1]["attempts"] == 2);

  CHECK(f.Admin("GET", "/admin/api/incidents/99").status == 404);
  CHECK(f.Admin("GET", "/admin/api/incidents?all=2").status == 400);
  CHECK(f.Admin("GET", "/admin/api/incidents", "", false).status == 401);
  CHECK(f.Admin("POST", "/admin/api/incidents").status == 405);
}

TEST_CASE("incidents: acknowledge and mute through the admin API are recorded with the admin as actor",
          "[integration][incidents]") {
  IncidentsFixture f;
  CHECK(f.Admin("POST", "/admin/api/incidents/1/ack", "{}", false).status == 401);
  CHECK(f.Row(1) == "-|0|-");

  json acked = f.AdminJson("POST", "/admin/api/incidents/1/ack", "{}");
  CHECK(acked["changed"] == true);
  CHECK(acked["incident"]["acked_by"] == "admin:127.0.0.1");
  CHECK(f.AdminJson("POST", "/admin/api/incidents/1/ack", "{}")["changed"] == false);

  json muted = f.AdminJson("POST", "/admin/api/incidents/1/mute", R"({"until":"2099-01-01T00:00:00Z"})");
  CHECK(muted["incident"]["muted_until"] == "2099-01-01T00:00:00.000Z");
  CHECK(f.Row(1) == "admin:127.0.0.1|4070908800000|admin:127.0.0.1");

  // Bad input: 400 (or 404), nothing changes.
  CHECK(f.Admin("POST", "/admin/api/incidents/1/mute", R"({"until":"2001-01-01T00:00:00Z"})").status == 400);
  CHECK(f.Admin("POST", "/admin/api/incidents/1/mute", R"({"minutes":"soon"})").status == 400);
  CHECK(f.Admin("POST", "/admin/api/incidents/99/mute", R"({"minutes":5})").status == 404);
  CHECK(f.Admin("POST", "/admin/api/incidents/99/ack", "{}").status == 404);
  CHECK(f.Row(1) == "admin:127.0.0.1|4070908800000|admin:127.0.0.1");

  json unmuted = f.AdminJson("POST", "/admin/api/incidents/1/mute", R"({"minutes":0})");
  CHECK(unmuted["incident"]["muted_until"].is_null());
  CHECK(f.Row(1) == "admin:127.0.0.1|0|-");
}

}  // namespace hookinbox::testing
