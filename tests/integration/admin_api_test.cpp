// The admin API (/admin/api on the admin listener) through the real binary:
// bearer-token auth and the failed-login limit, list filters and keyset
// pagination, event detail with redacted payloads, replay and resolve driven
// to the worker's result, effect reset, conflicts, export and TLS. Requests
// go over HTTP(S) with cpp-httplib; the database is read (and, where a test
// needs a state the product only reaches slowly, written) with sqlite3.
// Every wait polls with a deadline.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

constexpr const char* kTokenLine = "token_file = \"secrets/admin.token\"\n";

// A second endpoint, signed like demo (same secret file), for another
// tenant, with payload redaction.
const std::string kShopEndpoint =
    DemoLikeEndpoint("shop", "tenant = \"acme\"\nredact = [\"/customer/email\", \"/items/*/card\"]\n");

// demo's action: evt_dead* fail permanently until the file "ok" exists,
// evt_hang* outlive the timeout (→ unknown), anything else succeeds.
constexpr const char* kActionConfig = R"(
[endpoint.action]
type = "exec"
command = ["handler.sh"]
timeout_ms = 1000

[worker]
threads = 2
lease_seconds = 5
max_attempts = 1
backoff_initial_ms = 10
backoff_max_ms = 50
shutdown_grace_seconds = 1
)";

constexpr const char* kHandler = R"(#!/bin/bash
case $HOOKINBOX_EVENT_ID in
  evt_dead*) [ -e "DIR/ok" ] || exit 1 ;;
  evt_hang*) sleep 30 ;;
esac
echo '{"result_ref":"done-'"$HOOKINBOX_EVENT_ID"'"}'
exit 0
)";

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string IsoUtc(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct AdminFixture {
  Installation inst;
  ServerProcess server{inst};
  std::string token;
  bool tls = false;

  // `admin_extra` is added to [admin]; `with_token` names init's token file there.
  explicit AdminFixture(bool with_action = false, const std::string& admin_extra = "", bool with_token = true) {
    std::string extra = kShopEndpoint;
    if (with_action) {
      std::string script = kHandler;
      script.replace(script.find("DIR"), 3, inst.dir());
      const std::string path = inst.dir() + "/handler.sh";
      std::ofstream(path) << script;
      ::chmod(path.c_str(), 0700);
      // The action belongs to demo: it must follow demo's tables, before shop.
      extra = kActionConfig;
      extra.insert(extra.find("[worker]"), kShopEndpoint + "\n");
    }
    inst.WriteTestConfig(extra, "", "", (with_token ? kTokenLine : "") + admin_extra);
    token = Trimmed(ReadFile(inst.dir() + "/secrets/admin.token"));
    REQUIRE(token.size() == 64);
  }

  // A request to the admin listener from `source` (any 127.x address: all
  // of 127/8 is loopback, so tests can stand in for several clients).
  HttpResult Api(const std::string& method, const std::string& path, const std::string& body = "",
                 const std::string& bearer = "USE_TOKEN", const std::string& source = "") const {
    std::unique_ptr<httplib::ClientImpl> client;
    if (tls) {
      auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", server.admin_port());
      c->set_ca_cert_path(inst.cert_path().c_str());
      c->enable_server_certificate_verification(true);
      client = std::move(c);
    } else {
      client = std::make_unique<httplib::ClientImpl>("127.0.0.1", server.admin_port());
    }
    client->set_connection_timeout(10, 0);
    client->set_read_timeout(30, 0);
    if (!source.empty()) client->set_interface(source.c_str());
    httplib::Headers h;
    const std::string value = bearer == "USE_TOKEN" ? token : bearer;
    if (!value.empty()) h.emplace("Authorization", "Bearer " + value);
    httplib::Result res = method == "POST" ? client->Post(path.c_str(), h, body, "application/json")
                                           : client->Get(path.c_str(), h);
    HttpResult r;
    if (!res) return r;
    r.status = res->status;
    r.body = res->body;
    for (const auto& [k, v] : res->headers) r.headers[k] = v;
    return r;
  }
  json ApiJson(const std::string& path) const {
    auto r = Api("GET", path);
    INFO(path << " → " << r.status << " " << r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body);
  }

  int64_t Deliver(const std::string& endpoint, const std::string& event_id, const std::string& type,
                  const std::string& extra_fields = "") const {
    auto r = server.PostSigned("/hooks/" + endpoint,
                               R"({"id":")" + event_id + R"(","type":")" + type + "\"" + extra_fields + "}");
    INFO(r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body).at("id").get<int64_t>();
  }
  std::string Inbox(int64_t id, const std::string& columns) const {
    return inst.Sql("SELECT " + columns + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
  bool Becomes(int64_t id, const std::string& status) const {
    return PollUntil([&] { return Inbox(id, "status") == status; }, 30s);
  }
  // Writes with the sqlite3 CLI while the server runs (WAL; waits for its lock).
  void SqlWrite(const std::string& sql) const { inst.SqlWrite(sql); }
  // In key order: PostgreSQL's scan order is not insertion order.
  std::string Snapshot() const {  // what "nothing changed" compares
    return inst.Sql("SELECT group_concat(id || ':' || status || ':' || ifnull(result_ref, '-'), ',') FROM"
                    " (SELECT * FROM webhook_inbox ORDER BY id) AS sub") +
           "|" + inst.Sql("SELECT count(*) FROM webhook_event_actions") + "|" +
           inst.Sql("SELECT group_concat(status, ',') FROM"
                    " (SELECT * FROM effects ORDER BY tenant_id, effect_key) AS sub");
  }
};

// The ids of a list answer, in order.
std::vector<int64_t> Ids(const json& page) {
  std::vector<int64_t> ids;
  for (const auto& e : page.at("events")) ids.push_back(e.at("id").get<int64_t>());
  return ids;
}

struct RouteCase {
  const char* method;
  const char* path;
  const char* body;
};

// Every /admin/api route (the event id 1 exists in the tests that use this).
const RouteCase kRoutes[] = {
    {"GET", "/admin/api/events", ""},
    {"GET", "/admin/api/events/1", ""},
    {"GET", "/admin/api/events/1?payload=1", ""},
    {"POST", "/admin/api/events/1/replay", "{}"},
    {"POST", "/admin/api/events/1/resolve", R"({"as":"completed"})"},
    {"POST", "/admin/api/events/replay", R"({"status":"dead_lettered","endpoint":"demo","dry_run":true})"},
    {"GET", "/admin/api/dead-letters", ""},
    {"GET", "/admin/api/unknown", ""},
    {"GET", "/admin/api/conflicts", ""},
    {"POST", "/admin/api/effects/resolve", R"({"tenant":"default","key":"k","as":"done"})"},
    {"GET", "/admin/api/stats", ""},
    {"GET", "/admin/api/activity", ""},
    {"GET", "/admin/api/export.db", ""},
    {"GET", "/admin/api/reconcile?endpoint=demo&ids=a", ""},
    {"POST", "/admin/api/reconcile", R"({"endpoint":"demo","ids":["a"]})"},
};

}  // namespace

TEST_CASE("admin api: every route answers 401 without a token or with a wrong one, and changes nothing",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  f.Deliver("demo", "evt_1", "order.paid");
  const std::string before = f.Snapshot();
  int n = 10;
  for (const auto& route : kRoutes) {
    // A fresh source address per route: each stays under the failed-login limit.
    const std::string source = "127.0.0." + std::to_string(n++);
    for (const std::string& bearer : std::vector<std::string>{"", "wrong-token", f.token + "x", f.token.substr(0, 63)}) {
      auto r = f.Api(route.method, route.path, route.body, bearer, source);
      INFO(route.method << " " << route.path << " bearer=" << bearer.size() << " → " << r.status << " " << r.body);
      CHECK(r.status == 401);
      CHECK(r.body == R"({"error":"unauthorized"})");
      CHECK(r.headers["WWW-Authenticate"] == "Bearer");
    }
    auto ok = f.Api(route.method, route.path, route.body, "USE_TOKEN", source);
    INFO(route.method << " " << route.path << " with the token → " << ok.status << " " << ok.body);
    CHECK(ok.status != 401);
    CHECK(ok.status != 429);
    CHECK(ok.status != 503);
  }
  // The refused requests changed nothing (the accepted ones above only read,
  // or were refused on their merits: event 1 is 'received').
  CHECK(f.Snapshot() == before);
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_event_actions") == "0");
  // The log never carries the token.
  CHECK(f.server.log().find(f.token) == std::string::npos);
}

TEST_CASE("admin api: the 11th wrong token from one address within a minute gets 429 with Retry-After; the right "
          "token is still accepted there; other addresses are unaffected",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  const std::string attacker = "127.0.0.77";
  for (int i = 1; i <= 10; ++i) {
    auto r = f.Api("GET", "/admin/api/events", "", "guess-" + std::to_string(i), attacker);
    INFO("failure " << i << ": " << r.status);
    CHECK(r.status == 401);
  }
  auto blocked = f.Api("GET", "/admin/api/events", "", "guess-11", attacker);
  CHECK(blocked.status == 429);
  CHECK(blocked.body == R"({"error":"too many failed logins; retry later"})");
  REQUIRE(!blocked.headers["Retry-After"].empty());
  const int retry_after = std::stoi(blocked.headers["Retry-After"]);
  CHECK(retry_after >= 55);
  CHECK(retry_after <= 60);
  // The operator may share the address (a proxy, a tunnel): the right token wins.
  CHECK(f.Api("GET", "/admin/api/stats", "", "USE_TOKEN", attacker).status == 200);
  CHECK(f.Api("GET", "/admin/api/events", "", "USE_TOKEN", attacker).status == 200);
  CHECK(f.Api("GET", "/admin/api/events", "", "guess-12", attacker).status == 429);  // still blocked for guesses
  CHECK(f.Api("GET", "/admin/api/events", "", "", attacker).status == 401);          // no token: nothing to refuse
  CHECK(f.Api("GET", "/admin/api/events", "", "guess-1", "127.0.0.78").status == 401);
  CHECK(f.Api("GET", "/admin/api/events", "", "USE_TOKEN", "127.0.0.78").status == 200);
}

TEST_CASE("admin api: requests without a token never count as failed logins; scopes are limited apart",
          "[integration][admin-api]") {
  ::setenv("HOOKINBOX_IT_METRICS_TOKEN", "prom-scrape-token-0123456789abcdef", 1);  // inherited by the server
  AdminFixture f(false, "metrics_token_env = \"HOOKINBOX_IT_METRICS_TOKEN\"\n");
  f.server.Start();
  const std::string source = "127.0.0.81";
  for (int i = 0; i < 30; ++i) {
    CHECK(f.Api("GET", "/admin/api/events", "", "", source).status == 401);
    CHECK(f.Api("GET", "/metrics", "", "", source).status == 401);
  }
  CHECK(f.Api("GET", "/admin/api/events", "", "USE_TOKEN", source).status == 200);
  CHECK(f.Api("GET", "/admin/api/events", "", "one-wrong-token", source).status == 401);  // not 429: nothing counted
  // Ten wrong metrics tokens block wrong metrics tokens only.
  for (int i = 0; i < 10; ++i) CHECK(f.Api("GET", "/metrics", "", "wrong-" + std::to_string(i), source).status == 401);
  CHECK(f.Api("GET", "/metrics", "", "wrong-10", source).status == 429);
  CHECK(f.Api("GET", "/metrics", "", "prom-scrape-token-0123456789abcdef", source).status == 200);
  CHECK(f.Api("GET", "/admin/api/events", "", "another-wrong-token", source).status == 401);
  CHECK(f.Api("GET", "/admin/api/events", "", "USE_TOKEN", source).status == 200);
  // And the handler API (/v1) keeps its own count.
  CHECK(f.Api("POST", "/v1/effects/claim", R"({"key":"k"})", "hbx_wrong", source).status == 401);
  CHECK(f.server.log().find("prom-scrape-token-0123456789abcdef") == std::string::npos);
}

// Rate limiting alone stopped brute force without leaving a trace of it in the log.
TEST_CASE("admin api: each failed login is logged with address and count, a block once, and never what was sent",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  const std::string attacker = "127.0.0.91";
  std::vector<std::string> sent;
  auto guess = [&](int i) {
    sent.push_back("d8-wrong-admin-token-" + std::to_string(i) + "-qzx");
    RegisterLeakMarker(sent.back());
    return f.Api("GET", "/admin/api/events", "", sent.back(), attacker);
  };
  for (int i = 1; i <= 10; ++i) CHECK(guess(i).status == 401);  // the limit: 10 a minute per address
  // Blocked: a wrong token, the right one (accepted), a wrong one again.
  CHECK(guess(11).status == 429);
  CHECK(f.Api("GET", "/admin/api/events", "", "USE_TOKEN", attacker).status == 200);
  CHECK(guess(12).status == 429);
  CHECK(f.Api("GET", "/admin/api/events", "", "d8-other-address", "127.0.0.92").status == 401);
  sent.push_back("d8-other-address");

  auto lines = [&](const std::string& event) {
    std::vector<json> out;
    std::istringstream in(f.server.log());
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.value("event", "") == event) out.push_back(j);
    }
    return out;
  };
  REQUIRE(PollUntil([&] { return lines("admin_auth_failed").size() == 11 && lines("admin_auth_blocked").size() == 1; },
                    10s));
  const auto failed = lines("admin_auth_failed");
  for (int i = 0; i < 10; ++i) {
    INFO(failed[i].dump());
    CHECK(failed[i].at("level") == "warn");
    CHECK(failed[i].at("remote_addr") == attacker);
    CHECK(failed[i].at("scope") == "admin");
    CHECK(failed[i].at("failures") == i + 1);
  }
  CHECK(failed[10].at("remote_addr") == "127.0.0.92");
  CHECK(failed[10].at("failures") == 1);
  const json blocked = lines("admin_auth_blocked").at(0);
  INFO(blocked.dump());
  CHECK(blocked.at("level") == "warn");
  CHECK(blocked.at("remote_addr") == attacker);
  CHECK(blocked.at("retry_after_s").get<int>() >= 55);
  CHECK(blocked.at("retry_after_s").get<int>() <= 60);
  // Neither the guesses nor the real token (sent while blocked) reach the log.
  const std::string log = f.server.log();
  for (const auto& token : sent) CHECK(log.find(token) == std::string::npos);
  CHECK(log.find(f.token) == std::string::npos);
}

TEST_CASE("admin api: without a configured token /admin/api answers 503 naming the keys; /metrics and the UI "
          "page still load, with no-store and a strict CSP",
          "[integration][admin-api]") {
  AdminFixture f(false, "", /*with_token=*/false);
  f.server.Start();
  auto r = f.Api("GET", "/admin/api/events", "", "anything");
  CHECK(r.status == 503);
  CHECK(r.body == R"({"error":"admin token not configured: set admin.token_env or admin.token_file"})");
  auto metrics = f.Api("GET", "/metrics", "", "");
  CHECK(metrics.status == 200);
  CHECK(metrics.body.find("webhook_received_total") != std::string::npos);
  auto page = f.Api("GET", "/admin/", "", "");
  CHECK(page.status == 200);
  CHECK(page.headers["Cache-Control"] == "no-store");
  CHECK(page.headers["Content-Security-Policy"].rfind("default-src 'self'", 0) == 0);
  CHECK(page.body.find("<html") != std::string::npos);
  CHECK(f.Api("GET", "/admin", "", "").status == 308);
  CHECK(f.Api("GET", "/admin/../../etc/passwd", "", "").status == 404);
  CHECK(f.Api("GET", "/admin/nope.js", "", "").status == 404);
}

TEST_CASE("admin api: with admin.metrics_token_env set, /metrics needs that token (not the admin token)",
          "[integration][admin-api]") {
  ::setenv("HOOKINBOX_IT_METRICS_TOKEN", "prom-scrape-token-0123456789abcdef", 1);  // inherited by the server
  AdminFixture f(false, "metrics_token_env = \"HOOKINBOX_IT_METRICS_TOKEN\"\n");
  f.server.Start();
  CHECK(f.Api("GET", "/metrics", "", "").status == 401);
  CHECK(f.Api("GET", "/metrics", "", "USE_TOKEN").status == 401);
  auto ok = f.Api("GET", "/metrics", "", "prom-scrape-token-0123456789abcdef");
  CHECK(ok.status == 200);
  CHECK(ok.headers["Content-Type"].rfind("text/plain", 0) == 0);
  // Not an admin credential.
  CHECK(f.Api("GET", "/admin/api/stats", "", "prom-scrape-token-0123456789abcdef").status == 401);
  CHECK(f.server.log().find("prom-scrape-token") == std::string::npos);
}

namespace {

// One request to the admin listener with `host` as its Host header.
HttpResult WithHost(const AdminFixture& f, const std::string& method, const std::string& path,
                    const std::string& host, const std::string& bearer = "") {
  httplib::Client client("127.0.0.1", f.server.admin_port());
  client.set_connection_timeout(10, 0);
  client.set_read_timeout(30, 0);
  httplib::Headers h{{"Host", host}};
  if (!bearer.empty()) h.emplace("Authorization", "Bearer " + bearer);
  httplib::Result res = method == "POST" ? client.Post(path.c_str(), h, R"({"key":"k"})", "application/json")
                                         : client.Get(path.c_str(), h);
  HttpResult r;
  if (!res) return r;
  r.status = res->status;
  r.body = res->body;
  for (const auto& [k, v] : res->headers) r.headers[k] = v;
  return r;
}

// The header block of the first answer in raw HTTP `text`, lower-cased names, "name: value" lines.
std::string RawHeaders(const std::string& text) {
  std::string head = text.substr(0, text.find("\r\n\r\n"));
  std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
  return head;
}

void CheckSecurityHeaders(HttpResult r, const std::string& what) {
  INFO(what << " → " << r.status << " " << r.body);
  CHECK(r.headers.count("X-Content-Type-Options") == 1);
  CHECK(r.headers["X-Content-Type-Options"] == "nosniff");
  CHECK(r.headers["X-Frame-Options"] == "DENY");
  CHECK(r.headers["Referrer-Policy"] == "no-referrer");
  CHECK(r.headers["Content-Security-Policy"].find("frame-ancestors 'none'") != std::string::npos);
}

}  // namespace

TEST_CASE("admin listener: a Host that is not an IP, localhost, the listen host or in allowed_hosts gets 421 on "
          "every route (DNS rebinding)",
          "[integration][admin-api]") {
  AdminFixture f(false, "allowed_hosts = [\"admin.example.com\"]\n");
  f.server.Start();
  const std::string port = std::to_string(f.server.admin_port());
  struct Route {
    std::string method, path, bearer;
  };
  const std::vector<Route> routes = {{"GET", "/admin/api/events", f.token},
                                     {"GET", "/admin/api/export.db", f.token},
                                     {"GET", "/metrics", ""},
                                     {"GET", "/admin/", ""},
                                     {"POST", "/v1/effects/claim", "hkt_" + std::string(64, 'a')},
                                     {"GET", "/nothing", ""}};
  for (const auto& route : routes) {
    for (const std::string& host :
         std::vector<std::string>{"rebind.evil.example:" + port, "rebind.evil.example", "127.0.0.1.evil.example"}) {
      auto r = WithHost(f, route.method, route.path, host, route.bearer);
      INFO(route.method << " " << route.path << " Host: " << host << " → " << r.status << " " << r.body);
      CHECK(r.status == 421);
      CHECK(r.body == R"({"error":"host not allowed on the admin listener; add its name to admin.allowed_hosts"})");
      CHECK(r.headers["X-Content-Type-Options"] == "nosniff");
    }
  }
  for (const std::string& host : std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "LocalHost",
                                                         "[::1]:" + port, "admin.example.com", "192.0.2.1"}) {
    INFO("Host: " << host);
    CHECK(WithHost(f, "GET", "/admin/api/events", host, f.token).status == 200);
    CHECK(WithHost(f, "GET", "/admin/", host).status == 200);
  }
  // A refused Host is no failed login: the token still works from that address at once.
  for (int i = 0; i < 20; ++i) WithHost(f, "GET", "/admin/api/events", "evil.example", "wrong-token");
  CHECK(f.Api("GET", "/admin/api/events", "", "wrong-token").status == 401);

  RawConnection raw(f.server.admin_port(), false);
  REQUIRE(raw.ok());
  REQUIRE(raw.Send("GET /admin/ HTTP/1.0\r\n\r\n"));
  const std::string answer = raw.ReadUntilClosed(10s);
  CHECK(answer.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(answer.find(R"({"error":"missing Host header"})") != std::string::npos);
}

TEST_CASE("admin listener: every answer is nosniff, DENY, no-referrer with a sandboxing CSP, the library's own "
          "400 and 413 included; the UI page's CSP lets it run and nothing else",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  CheckSecurityHeaders(f.Api("GET", "/admin/api/events"), "200 JSON");
  CheckSecurityHeaders(f.Api("GET", "/admin/api/events", "", ""), "401");
  CheckSecurityHeaders(f.Api("GET", "/admin/api/nothing"), "404");
  CheckSecurityHeaders(f.Api("POST", "/metrics", "{}"), "405");
  CheckSecurityHeaders(f.Api("GET", "/metrics", "", ""), "metrics");
  CheckSecurityHeaders(f.Api("POST", "/v1/effects/claim", R"({"key":"k"})", "hkt_" + std::string(64, 'b')),
                       "handler API 401");
  auto data = f.Api("GET", "/admin/api/stats");
  CHECK(data.headers["Content-Security-Policy"] ==
        "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox");
  auto page = f.Api("GET", "/admin/", "", "");
  CheckSecurityHeaders(page, "UI page");
  CHECK(page.headers.count("Content-Security-Policy") == 1);
  CHECK(page.headers["Content-Security-Policy"].rfind("default-src 'self'; script-src 'self'", 0) == 0);
  CHECK(page.headers["Content-Security-Policy"].find("unsafe-inline") == std::string::npos);
  CheckSecurityHeaders(f.Api("GET", "/admin/app.js", "", ""), "UI script");

  // Answers written before any handler runs: the library's 400, and the 413
  // of a body read past its route's cap (a token, so that it is read at all).
  for (const std::string& request : std::vector<std::string>{
           "NONSENSE\r\n\r\n",
        "PUT /v1/steps/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nAuthorization: Bearer hkt_" +
            std::string(64, 'b') + "\r\nContent-Length: " +
            std::to_string(2 * 1024 * 1024) + "\r\n\r\n" + std::string(2 * 1024 * 1024, 'x')}) {
    RawConnection raw(f.server.admin_port(), false);
    REQUIRE(raw.ok());
    REQUIRE(raw.Send(request));
    const std::string head = RawHeaders(raw.ReadResponses(1, 10s));
    INFO(head);
    CHECK((head.rfind("http/1.1 400", 0) == 0 || head.rfind("http/1.1 413", 0) == 0));
    CHECK(head.find("x-content-type-options: nosniff") != std::string::npos);
    CHECK(head.find("x-frame-options: deny") != std::string::npos);
    CHECK(head.find("content-security-policy: default-src 'none'") != std::string::npos);
  }
}

TEST_CASE("admin api: list filters (status, endpoint, tenant, type, q, since/until) and 3 pages without overlap "
          "or gap",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  std::vector<int64_t> all;
  for (int i = 1; i <= 5; ++i) all.push_back(f.Deliver("demo", "evt_a" + std::to_string(i), "order.paid"));
  for (int i = 1; i <= 4; ++i) all.push_back(f.Deliver("shop", "evt_b" + std::to_string(i), "order.created"));
  // Fixed times, one minute apart in id order, so the range filter is exact.
  const int64_t t0 = 1700000000000;
  f.SqlWrite("UPDATE webhook_inbox SET received_at = " + std::to_string(t0) + " + id * 60000");

  SECTION("three pages of three, newest first, together exactly the nine events") {
    std::vector<int64_t> seen;
    std::string cursor;
    int pages = 0;
    do {
      json page = f.ApiJson("/admin/api/events?limit=3" + (cursor.empty() ? "" : "&cursor=" + cursor));
      auto ids = Ids(page);
      CHECK(ids.size() == 3);
      seen.insert(seen.end(), ids.begin(), ids.end());
      cursor = page.at("next_cursor").is_null() ? "" : page.at("next_cursor").get<std::string>();
      ++pages;
    } while (!cursor.empty() && pages < 5);
    CHECK(pages == 3);
    std::vector<int64_t> expected(all.rbegin(), all.rend());
    CHECK(seen == expected);
  }
  SECTION("each filter narrows to exactly its events") {
    CHECK(Ids(f.ApiJson("/admin/api/events?endpoint=shop")) == std::vector<int64_t>{all[8], all[7], all[6], all[5]});
    CHECK(Ids(f.ApiJson("/admin/api/events?tenant=acme")).size() == 4);
    CHECK(Ids(f.ApiJson("/admin/api/events?tenant=default")).size() == 5);
    CHECK(Ids(f.ApiJson("/admin/api/events?type=order.paid")).size() == 5);
    CHECK(Ids(f.ApiJson("/admin/api/events?q=b3")) == std::vector<int64_t>{all[7]});
    CHECK(Ids(f.ApiJson("/admin/api/events?q=evt_a")).size() == 5);
    CHECK(Ids(f.ApiJson("/admin/api/events?q=%25")).empty());  // '%' is literal, not a LIKE wildcard
    CHECK(Ids(f.ApiJson("/admin/api/events?status=received")).size() == 9);
    CHECK(Ids(f.ApiJson("/admin/api/events?status=dead_lettered")).empty());
    CHECK(Ids(f.ApiJson("/admin/api/dead-letters")).empty());
    CHECK(Ids(f.ApiJson("/admin/api/events?endpoint=demo&type=order.created")).empty());
    // since inclusive, until exclusive; ISO-8601 or milliseconds.
    const int64_t since = t0 + all[2] * 60000, until = t0 + all[5] * 60000;
    CHECK(Ids(f.ApiJson("/admin/api/events?since=" + IsoUtc(since) + "&until=" + std::to_string(until))) ==
          std::vector<int64_t>{all[4], all[3], all[2]});
    CHECK(Ids(f.ApiJson("/admin/api/events?since=" + std::to_string(since) + "&endpoint=shop&limit=2")).size() == 2);
  }
  SECTION("a bad parameter is a 400 naming it") {
    const std::pair<const char*, const char*> bad[] = {
        {"limit=0", "limit"},        {"limit=1001", "limit"},       {"limit=ten", "limit"},
        {"since=yesterday", "since"}, {"until=2024-13-01", "until"}, {"cursor=zz", "cursor"},
        {"status=bogus", "status"},  {"statu=received", "statu"},   {"limit=1&limit=2", "limit"},
        {"since=2000&until=1000", "until"}};
    for (const auto& [query, name] : bad) {
      auto r = f.Api("GET", std::string("/admin/api/events?") + query);
      INFO(query << " → " << r.status << " " << r.body);
      CHECK(r.status == 400);
      CHECK(r.body.find(name) != std::string::npos);
    }
    CHECK(f.Api("GET", "/admin/api/dead-letters?status=received").status == 400);
    CHECK(f.Api("GET", "/admin/api/events/abc").status == 404);
    CHECK(f.Api("GET", "/admin/api/events/999999").status == 404);
  }
}

TEST_CASE("admin api: event detail lists deliveries; the payload only on request, with the endpoint's JSON "
          "Pointers redacted; a non-JSON payload under redaction is withheld",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  const std::string fields =
      R"(,"customer":{"email":"alice@example.com","name":"Alice"},"items":[{"sku":"A","card":"4242"},{"sku":"B","card":"5555"}])";
  int64_t id = f.Deliver("shop", "evt_pay", "order.paid", fields);
  f.Deliver("shop", "evt_pay", "order.paid", fields);  // a duplicate: a second delivery row
  int64_t plain = f.Deliver("demo", "evt_plain", "order.paid", R"(,"customer":{"email":"bob@example.com"})");

  json d = f.ApiJson("/admin/api/events/" + std::to_string(id));
  CHECK(d.at("event").at("event_id") == "evt_pay");
  CHECK(d.at("event").at("tenant_id") == "acme");
  REQUIRE(d.at("deliveries").size() == 2);
  CHECK(d.at("deliveries")[0].at("outcome") == "accepted");
  CHECK(d.at("deliveries")[1].at("outcome") == "duplicate");
  CHECK(d.at("attempts").empty());
  CHECK(d.at("effects").empty());
  CHECK(d.at("steps").empty());
  CHECK_FALSE(d.contains("payload"));
  CHECK(d.dump().find("alice@example.com") == std::string::npos);

  json p = f.ApiJson("/admin/api/events/" + std::to_string(id) + "?payload=1").at("payload");
  CHECK(p.at("redacted") == true);
  json body = json::parse(p.at("body").get<std::string>());
  CHECK(body.at("customer").at("email") == "[redacted]");
  CHECK(body.at("customer").at("name") == "Alice");
  CHECK(body.at("items")[0].at("card") == "[redacted]");
  CHECK(body.at("items")[1].at("card") == "[redacted]");
  CHECK(body.at("items")[1].at("sku") == "B");
  CHECK(p.dump().find("alice@example.com") == std::string::npos);
  CHECK(p.dump().find("4242") == std::string::npos);

  // demo has no redact list: the payload as received.
  json q = f.ApiJson("/admin/api/events/" + std::to_string(plain) + "?payload=1").at("payload");
  CHECK(q.at("redacted") == false);
  CHECK(q.at("body").get<std::string>().find("bob@example.com") != std::string::npos);

  // A stored body that is not JSON (as a form endpoint would keep) cannot be redacted: withheld.
  const std::string blob = f.inst.postgres() ? "BYTEA" : "BLOB";  // the body column's type
  f.SqlWrite("UPDATE webhook_payloads SET body = CAST('email=alice@example.com' AS " + blob + ") WHERE inbox_id = " +
             std::to_string(id) + " AND kind = 'original'");
  json w = f.ApiJson("/admin/api/events/" + std::to_string(id) + "?payload=1").at("payload");
  CHECK(w.at("body").is_null());
  CHECK(w.at("withheld").get<std::string>().find("not JSON") != std::string::npos);
  CHECK(w.dump().find("alice@example.com") == std::string::npos);
  CHECK(f.Api("GET", "/admin/api/events/" + std::to_string(id) + "?payload=yes").status == 400);
}

TEST_CASE("admin api: replay a dead letter and the worker completes it; resolve an unknown; bad requests are "
          "4xx and change nothing",
          "[integration][admin-api][worker]") {
  AdminFixture f(/*with_action=*/true);
  f.server.Start();
  int64_t dead = f.Deliver("demo", "evt_dead_1", "job.run");
  int64_t hang = f.Deliver("demo", "evt_hang_1", "job.run");
  REQUIRE(f.Becomes(dead, "dead_lettered"));
  REQUIRE(f.Becomes(hang, "unknown"));
  CHECK(Ids(f.ApiJson("/admin/api/dead-letters")) == std::vector<int64_t>{dead});
  CHECK(Ids(f.ApiJson("/admin/api/unknown")) == std::vector<int64_t>{hang});

  const std::string before = f.Snapshot();
  const std::string dead_path = "/admin/api/events/" + std::to_string(dead);
  const std::string hang_path = "/admin/api/events/" + std::to_string(hang);
  const std::pair<std::string, std::string> bad[] = {
      {hang_path + "/resolve", R"({"as":"received"})"},
      {hang_path + "/resolve", R"({"as":"completed","note":7})"},
      {hang_path + "/resolve", "not json"},
      {hang_path + "/resolve", R"({"result_ref":"x"})"},
      {dead_path + "/resolve", R"({"as":"completed"})"},  // not unknown: 409
      {"/admin/api/events/999999/resolve", R"({"as":"completed"})"},
      {"/admin/api/events/999999/replay", "{}"},
      {dead_path + "/replay", R"({"note":["x"]})"},
      {dead_path + "/replay", "[1]"},
  };
  for (const auto& [path, body] : bad) {
    auto r = f.Api("POST", path, body);
    INFO(path << " " << body << " → " << r.status << " " << r.body);
    CHECK(r.status >= 400);
    CHECK(r.status < 500);
    CHECK(r.status != 401);
  }
  CHECK(f.Snapshot() == before);

  // Replay: the action now succeeds, and the worker completes the event.
  std::ofstream(f.inst.dir() + "/ok") << "ok";
  auto replay = f.Api("POST", dead_path + "/replay", R"({"note":"fixed the handler"})");
  INFO(replay.body);
  REQUIRE(replay.status == 200);
  REQUIRE(f.Becomes(dead, "completed"));
  CHECK(f.Inbox(dead, "result_ref") == "done-evt_dead_1");
  json d = f.ApiJson(dead_path);
  CHECK(d.at("attempts").size() == 2);
  REQUIRE(d.at("actions").size() == 1);
  CHECK(d.at("actions")[0].at("action") == "replay");
  CHECK(d.at("actions")[0].at("actor") == "admin:127.0.0.1");
  CHECK(d.at("actions")[0].at("from_status") == "dead_lettered");
  CHECK(d.at("actions")[0].at("note") == "fixed the handler");

  // Resolve: a person checked downstream and closes the unknown event.
  auto resolve = f.Api("POST", hang_path + "/resolve", R"({"as":"completed","result_ref":"manual-1","note":"seen"})");
  INFO(resolve.body);
  REQUIRE(resolve.status == 200);
  CHECK(f.Inbox(hang, "status || '|' || result_ref") == "completed|manual-1");
  CHECK(f.inst.Sql("SELECT actor || '|' || action || '|' || from_status || '|' || to_status FROM "
                   "webhook_event_actions WHERE inbox_id = " + std::to_string(hang)) ==
        "admin:127.0.0.1|resolve|unknown|completed");
  // Again: no longer unknown.
  CHECK(f.Api("POST", hang_path + "/resolve", R"({"as":"dead_lettered"})").status == 409);
  CHECK(f.Inbox(hang, "status") == "completed");
}

TEST_CASE("admin api: an effect marked unknown is resolved as done with an audit row; refusals change nothing",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  int64_t id = f.Deliver("demo", "evt_fx", "order.paid");
  // The state a handler leaves with POST /v1/effects/{key}/unknown (handler_api_test covers that path).
  f.SqlWrite("INSERT INTO effects (tenant_id, effect_key, status, inbox_id, attempt, claimed_at, updated_at) "
             "VALUES ('default', 'charge:evt_fx', 'unknown', " + std::to_string(id) + ", 1, 1, 1)");
  const std::string before = f.Snapshot();
  const std::string bad[] = {
      R"({"tenant":"default","key":"charge:evt_fx","as":"maybe"})",
      R"({"tenant":"default","key":"charge:evt_fx"})",
      R"({"tenant":"default","key":"charge:nope","as":"done"})",
      R"({"tenant":"other","key":"charge:evt_fx","as":"done"})",
      R"({"tenant":"default","key":"charge:evt_fx","as":"failed","external_ref":"x"})",
      "nope",
  };
  for (const auto& body : bad) {
    auto r = f.Api("POST", "/admin/api/effects/resolve", body);
    INFO(body << " → " << r.status << " " << r.body);
    CHECK(r.status >= 400);
    CHECK(r.status < 500);
  }
  CHECK(f.Snapshot() == before);

  auto r = f.Api("POST", "/admin/api/effects/resolve",
                 R"({"tenant":"default","key":"charge:evt_fx","as":"done","external_ref":"ch_1","note":"in Stripe"})");
  INFO(r.body);
  REQUIRE(r.status == 200);
  CHECK(f.inst.Sql("SELECT status || '|' || external_ref FROM effects WHERE effect_key = 'charge:evt_fx'") == "done|ch_1");
  CHECK(f.inst.Sql("SELECT actor || '|' || action || '|' || note FROM webhook_event_actions WHERE inbox_id = " +
                   std::to_string(id)) == "admin:127.0.0.1|resolve|effect charge:evt_fx: unknown -> done; in Stripe");
  CHECK(f.Inbox(id, "status") == "received");  // the event itself is untouched
  CHECK(f.Api("POST", "/admin/api/effects/resolve", R"({"tenant":"default","key":"charge:evt_fx","as":"failed"})")
            .status == 409);
  json d = f.ApiJson("/admin/api/events/" + std::to_string(id));
  REQUIRE(d.at("effects").size() == 1);
  CHECK(d.at("effects")[0].at("status") == "done");
}

TEST_CASE("admin api: conflicts list the delivery and the kept payloads", "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  int64_t id = f.Deliver("demo", "evt_c", "order.paid", R"(,"amount":1)");
  auto r = f.server.PostSigned("/hooks/demo", R"({"id":"evt_c","type":"order.paid","amount":2})");
  REQUIRE(json::parse(r.body).at("status") == "conflict");
  json page = f.ApiJson("/admin/api/conflicts");
  REQUIRE(page.at("conflicts").size() == 1);
  const json& c = page.at("conflicts")[0];
  CHECK(c.at("event") == id);
  CHECK(c.at("event_id") == "evt_c");
  CHECK(c.at("delivery_id").get<int64_t>() ==
        std::stoll(f.inst.Sql("SELECT id FROM webhook_deliveries WHERE outcome = 'conflict'")));
  CHECK(c.at("conflict_payload_id").get<int64_t>() ==
        std::stoll(f.inst.Sql("SELECT id FROM webhook_payloads WHERE kind = 'conflict'")));
  CHECK(c.at("original_payload_id").get<int64_t>() ==
        std::stoll(f.inst.Sql("SELECT id FROM webhook_payloads WHERE kind = 'original'")));
  CHECK(c.at("conflict_payload_hash") != c.at("original_payload_hash"));
  CHECK(page.at("next_cursor").is_null());
  CHECK(f.Api("GET", "/admin/api/conflicts?cursor=00").status == 400);
}

TEST_CASE("admin api: export.db streams a consistent snapshot and leaves no file behind; reconcile sorts ids",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  for (int i = 0; i < 5; ++i) f.Deliver("demo", "evt_x" + std::to_string(i), "order.paid");
  auto r = f.Api("GET", "/admin/api/export.db");
  REQUIRE(r.status == 200);
  CHECK(r.headers["Content-Disposition"].find("attachment; filename=\"hookinbox-audit-") == 0);
  const std::string copy = f.inst.dir() + "/copy.db";
  std::ofstream(copy, std::ios::binary) << r.body;
  CHECK(RunCommand("sqlite3 " + copy + " 'PRAGMA integrity_check'").out == "ok\n");
  CHECK(RunCommand("sqlite3 " + copy + " 'SELECT count(*) FROM webhook_inbox'").out == "5\n");
  bool leftover = false;
  for (const auto& entry : std::filesystem::directory_iterator(f.inst.dir() + "/data")) {
    if (entry.path().filename().string().rfind(".hookinbox-export", 0) == 0) leftover = true;
  }
  CHECK_FALSE(leftover);
  CHECK(f.Api("GET", "/admin/api/export.db?payloads=2").status == 400);

  auto rec = f.Api("POST", "/admin/api/reconcile", R"({"endpoint":"demo","ids":["evt_x1","evt_missing"]})");
  INFO(rec.body);
  REQUIRE(rec.status == 200);
  json report = json::parse(rec.body);
  REQUIRE(report.at("never_received").size() == 1);
  CHECK(report.at("never_received")[0].at("event_id") == "evt_missing");
  CHECK(report.at("not_completed").size() == 1);  // received, no action: not completed
  // What it found stays on /metrics until the next reconciliation of demo.
  auto metrics = f.Api("GET", "/metrics").body;
  CHECK_THAT(metrics, Catch::Contains("webhook_reconcile_gaps{endpoint=\"demo\",kind=\"never_received\"} 1\n"));
  CHECK_THAT(metrics, Catch::Contains("webhook_reconcile_gaps{endpoint=\"demo\",kind=\"not_completed\"} 1\n"));
  CHECK_THAT(metrics, Catch::Contains("webhook_reconcile_gaps{endpoint=\"demo\",kind=\"unknown\"} 0\n"));
  // The public listener's certificate (init's, valid for years) and the storage figures.
  const std::string expiry = "\nwebhook_tls_certificate_expiry_timestamp_seconds{listener=\"server\"} ";
  const size_t at = metrics.find(expiry);
  REQUIRE(at != std::string::npos);
  CHECK(std::stoll(metrics.substr(at + expiry.size())) > static_cast<long long>(std::time(nullptr)) + 14 * 86400);
  CHECK_THAT(metrics, Catch::Contains("\nwebhook_database_bytes "));
  // Free disk space is the SQLite file's filesystem; a PostgreSQL server's disk is not ours to see.
  if (f.inst.postgres()) {
    CHECK_THAT(metrics, !Catch::Contains("webhook_disk_free_bytes"));
  } else {
    CHECK_THAT(metrics, Catch::Contains("\nwebhook_disk_free_bytes "));
  }
  CHECK(f.Api("POST", "/admin/api/reconcile", R"({"endpoint":"nope","ids":["a"]})").status == 400);
  CHECK(f.Api("POST", "/admin/api/reconcile", R"({"endpoint":"demo","ids":[]})").status == 400);
}

// Sums one count over an endpoint's buckets (a test may straddle an hour).
int64_t Total(const json& activity, const std::string& endpoint, const std::string& count) {
  int64_t total = 0;
  for (const auto& e : activity.at("endpoints")) {
    if (e.at("endpoint") != endpoint) continue;
    for (const auto& b : e.at("buckets")) total += b.at(count).get<int64_t>();
  }
  return total;
}

TEST_CASE("admin api: activity counts each endpoint's deliveries and attempts over 24h and 7d; a bad range is 400, "
          "an unknown endpoint 404",
          "[integration][admin-api][activity]") {
  AdminFixture f(true);
  f.server.Start();
  const int64_t a = f.Deliver("demo", "evt_a", "order.paid");
  const int64_t b = f.Deliver("demo", "evt_b", "order.paid");
  const int64_t dead = f.Deliver("demo", "evt_dead1", "order.paid");
  f.Deliver("demo", "evt_a", "order.paid");  // duplicate
  CHECK(f.server.Request("POST", "/hooks/demo", R"({"id":"evt_x"})", {}).status == 401);  // unsigned
  REQUIRE(f.Becomes(a, "completed"));
  REQUIRE(f.Becomes(b, "completed"));
  REQUIRE(f.Becomes(dead, "dead_lettered"));

  const json day = f.ApiJson("/admin/api/activity?range=24h");
  CHECK(day.at("range") == "24h");
  CHECK(day.at("bucket_seconds") == 3600);
  REQUIRE(day.at("endpoints").size() == 2);  // demo and shop, in config order
  CHECK(day.at("endpoints")[0].at("endpoint") == "demo");
  CHECK(day.at("endpoints")[1].at("endpoint") == "shop");
  CHECK(day.at("endpoints")[0].at("buckets").size() == 24);
  const json all_week = f.ApiJson("/admin/api/activity?range=7d");
  for (const json* j : {&day, &all_week}) {
    CHECK(Total(*j, "demo", "accepted") == 3);
    CHECK(Total(*j, "demo", "duplicate") == 1);
    CHECK(Total(*j, "demo", "rejected") == 1);
    CHECK(Total(*j, "demo", "completed") == 2);
    CHECK(Total(*j, "demo", "failed") == 1);
    CHECK(Total(*j, "shop", "accepted") == 0);
  }
  json week = f.ApiJson("/admin/api/activity?range=7d&endpoint=shop");
  CHECK(week.at("bucket_seconds") == 21600);
  REQUIRE(week.at("endpoints").size() == 1);
  CHECK(week.at("endpoints")[0].at("buckets").size() == 28);
  // The last bucket holds now; buckets are whole hours (UTC).
  const std::string last = day.at("endpoints")[0].at("buckets")[23].at("start");
  CHECK(last.substr(13) == ":00:00.000Z");

  auto bad = f.Api("GET", "/admin/api/activity?range=1h");
  CHECK(bad.status == 400);
  CHECK_THAT(bad.body, Catch::Contains("range: must be 24h or 7d"));
  auto unknown = f.Api("GET", "/admin/api/activity?endpoint=nope");
  CHECK(unknown.status == 404);
  CHECK_THAT(unknown.body, Catch::Contains("no endpoint named nope"));
}

TEST_CASE("admin api: with admin.tls_cert and tls_key the admin listener speaks HTTPS only",
          "[integration][admin-api]") {
  AdminFixture f(false, "tls_cert = \"tls/cert.pem\"\ntls_key = \"tls/key.pem\"\n");
  f.server.Start();
  REQUIRE(f.server.admin_port() > 0);
  CHECK(f.server.log().find("admin_listening") != std::string::npos);
  f.tls = true;
  CHECK(f.Api("GET", "/admin/api/events").status == 200);
  CHECK(f.Api("GET", "/admin/api/events", "", "wrong").status == 401);
  f.tls = false;
  CHECK(f.Api("GET", "/admin/api/events").status != 200);  // plain HTTP to a TLS port: no answer
}

TEST_CASE("admin listener: without a token nothing is read — /v1 and /admin/api answer 401 from the headers and "
          "close, while the announced body never comes",
          "[integration][admin-api]") {
  AdminFixture f;
  f.server.Start();
  for (const char* target : {"/v1/effects/claim", "/admin/api/events/1/replay"}) {
    RawConnection raw(f.server.admin_port(), false);
    REQUIRE(raw.ok());
    // 60 KB announced, not one byte sent: an answer at all proves none was awaited.
    REQUIRE(raw.Send("POST " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Content-Length: 60000\r\n\r\n"));
    const std::string answer = raw.ReadUntilClosed(5s);
    INFO(target << ": " << answer);
    CHECK(answer.rfind("HTTP/1.1 401", 0) == 0);
    CHECK(raw.closed_by_server());
  }
}

}  // namespace hookinbox::testing
