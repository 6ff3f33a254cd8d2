// The receive route from the outside: real binary, HTTPS, sqlite3 CLI.
#include <catch2/catch.hpp>
#include <signal.h>

#include <atomic>
#include <thread>
#include <vector>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

std::string Event(const std::string& id, const std::string& extra = R"("amount":100)") {
  return R"({"id":")" + id + R"(","type":"invoice.paid","data":{)" + extra + "}}";
}

struct Running {
  Installation inst;
  ServerProcess server{inst};
  explicit Running(const std::string& extra_config = "") {
    inst.WriteTestConfig(extra_config);
    server.Start();
  }
};

}  // namespace

TEST_CASE("receive: a new delivery is accepted and stored; the same one again is a duplicate", "[integration]") {
  Running r;
  auto first = r.server.PostSigned("/hooks/demo", Event("evt_1"));
  REQUIRE(first.status == 200);
  CHECK(first.body == R"({"status":"accepted","id":1})");
  auto again = r.server.PostSigned("/hooks/demo", Event("evt_1"));
  REQUIRE(again.status == 200);
  CHECK(again.body == R"({"status":"duplicate","id":1,"state":"received"})");
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_inbox") == "1");
  CHECK(r.inst.Sql("SELECT provider||'|'||endpoint||'|'||tenant_id||'|'||event_id||'|'||event_type||'|'||status"
                   " FROM webhook_inbox") == "generic|demo|default|evt_1|invoice.paid|received");
  CHECK(r.inst.Sql("SELECT group_concat(outcome) FROM webhook_deliveries") == "accepted,duplicate");
  CHECK(r.inst.Sql("SELECT body FROM webhook_payloads") == Event("evt_1"));
  // The fingerprint of the key settings that derived its key (verify/key_spec.h), 16 hex characters.
  const std::string key_spec = r.inst.Sql("SELECT key_spec FROM webhook_inbox");
  CHECK(key_spec.size() == 16);
  CHECK(key_spec.find_first_not_of("0123456789abcdef") == std::string::npos);
}

TEST_CASE("receive: a re-serialised retry (keys reordered, spaces) is a duplicate, not a conflict",
          "[integration]") {
  Running r;
  REQUIRE(r.server.PostSigned("/hooks/demo", R"({"id":"evt_2","type":"t","data":{"a":1,"b":2}})").status == 200);
  auto retry = r.server.PostSigned("/hooks/demo", R"({ "data": {"b": 2, "a": 1.0}, "type": "t", "id": "evt_2" })");
  REQUIRE(retry.status == 200);
  CHECK(retry.body.find("\"duplicate\"") != std::string::npos);
}

TEST_CASE("receive: 20 concurrent identical deliveries give one inbox row and 20 delivery rows",
          "[integration]") {
  Running r;
  std::atomic<bool> go{false};
  std::atomic<int> accepted{0}, duplicate{0}, other{0};
  std::vector<std::thread> senders;
  std::vector<std::string> answers(20);
  for (int i = 0; i < 20; ++i) {
    senders.emplace_back([&, i] {
      while (!go.load()) std::this_thread::yield();
      auto res = r.server.PostSigned("/hooks/demo", Event("evt_concurrent"));
      answers[i] = std::to_string(res.status) + " " + res.body;
      if (res.status == 200 && res.body.find("\"accepted\"") != std::string::npos) {
        ++accepted;
      } else if (res.status == 200 && res.body.find("\"duplicate\"") != std::string::npos) {
        ++duplicate;
      } else {
        ++other;
      }
    });
  }
  go = true;
  for (auto& t : senders) t.join();
  for (const auto& a : answers) INFO(a);
  INFO(r.server.log());
  CHECK(accepted == 1);
  CHECK(duplicate == 19);
  CHECK(other == 0);
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_inbox") == "1");
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_deliveries") == "20");
  CHECK(r.inst.Sql("SELECT count(DISTINCT inbox_id) FROM webhook_deliveries") == "1");
}

TEST_CASE("receive: same key with another body is a conflict; the original stays untouched", "[integration]") {
  Running r;
  REQUIRE(r.server.PostSigned("/hooks/demo", Event("evt_3", R"("amount":100)")).status == 200);
  auto conflict = r.server.PostSigned("/hooks/demo", Event("evt_3", R"("amount":999)"));
  REQUIRE(conflict.status == 200);
  CHECK(conflict.body == R"({"status":"conflict","id":1})");
  CHECK(r.inst.Sql("SELECT body FROM webhook_payloads WHERE kind='original'") == Event("evt_3", R"("amount":100)"));
  CHECK(r.inst.Sql("SELECT body FROM webhook_payloads WHERE kind='conflict'") == Event("evt_3", R"("amount":999)"));
  CHECK(r.inst.Sql("SELECT status FROM webhook_inbox") == "received");
  CHECK(r.inst.Sql("SELECT outcome FROM webhook_deliveries ORDER BY id DESC LIMIT 1") == "conflict");
}

TEST_CASE("receive: bad or missing signature is 401 with no inbox row and an audit row", "[integration]") {
  Running r;
  std::string body = Event("evt_4");
  std::string ts = std::to_string(NowSeconds());
  SECTION("signed with another secret") {
    auto res = r.server.Request("POST", "/hooks/demo", body,
                                {{"X-Timestamp", ts}, {"X-Signature", "sha256=" + HmacSha256Hex("other", ts + "." + body)}});
    CHECK(res.status == 401);
    CHECK(res.body == R"({"error":"unauthorized"})");
  }
  SECTION("one body byte changed after signing") {
    std::string sig = "sha256=" + HmacSha256Hex(r.inst.secret(), ts + "." + body);
    std::string tampered = Event("evt_4", R"("amount":101)");
    CHECK(r.server.Request("POST", "/hooks/demo", tampered, {{"X-Timestamp", ts}, {"X-Signature", sig}}).status == 401);
  }
  SECTION("no signature header") {
    CHECK(r.server.Request("POST", "/hooks/demo", body, {{"X-Timestamp", ts}}).status == 401);
  }
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(r.inst.Sql("SELECT outcome||'|'||http_status FROM webhook_deliveries") == "rejected|401");
  CHECK(r.inst.Sql("SELECT CASE WHEN reason LIKE 'unauthenticated:%' THEN 1 ELSE 0 END FROM webhook_deliveries") ==
        "1");
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_payloads") == "0");
  // The audit trail never holds the signature or the secret.
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_deliveries WHERE reason LIKE '%" + r.inst.secret().substr(0, 16) +
                   "%'") == "0");
}

TEST_CASE("receive: a timestamp outside the tolerance is 401", "[integration]") {
  Running r;
  CHECK(r.server.PostSigned("/hooks/demo", Event("evt_5"), NowSeconds() - 301 - 5).status == 401);
  CHECK(r.server.PostSigned("/hooks/demo", Event("evt_5"), NowSeconds() + 400).status == 401);
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(r.server.PostSigned("/hooks/demo", Event("evt_5"), NowSeconds() - 200).status == 200);
}

TEST_CASE("receive: oversize body is 413, wrong content type 415, unknown endpoint 404, GET 405",
          "[integration]") {
  Running r;
  SECTION("413 for a body over the limit (declared length)") {
    std::string big = Event("evt_big", R"("pad":")" + std::string(70000, 'x') + "\"");
    auto res = r.server.PostSigned("/hooks/demo", big);
    CHECK(res.status == 413);
    CHECK(r.inst.Sql("SELECT http_status FROM webhook_deliveries") == "413");
    // The connection's leftovers were not parsed as a request, and the server still answers.
    CHECK(r.server.PostSigned("/hooks/demo", Event("evt_after_big")).status == 200);
  }
  SECTION("415 for a content type the endpoint does not accept") {
    auto res = r.server.PostSigned("/hooks/demo", Event("evt_6"), 0, "text/plain");
    CHECK(res.status == 415);
    CHECK(r.inst.Sql("SELECT http_status||'|'||(CASE WHEN reason LIKE '%content type%' THEN 1 ELSE 0 END)"
                     " FROM webhook_deliveries") == "415|1");
  }
  SECTION("404 for an unknown endpoint or a malformed path, each with an audit row") {
    CHECK(r.server.PostSigned("/hooks/nope", Event("evt_7")).status == 404);
    CHECK(r.server.PostSigned("/hooks/demo/extra", Event("evt_7")).status == 404);
    CHECK(r.server.PostSigned("/hooks/..%2F..%2Fetc", Event("evt_7")).status == 404);
    CHECK(r.server.PostSigned("/hooks/", Event("evt_7")).status == 404);
    CHECK(r.inst.Sql("SELECT count(*) FROM webhook_deliveries WHERE http_status = 404") == "4");
  }
  SECTION("405 for another method on a receive route") {
    auto res = r.server.Request("GET", "/hooks/demo", "", {});
    CHECK(res.status == 405);
    CHECK(res.headers["Allow"] == "POST");
    CHECK(r.server.Request("PUT", "/hooks/demo", Event("evt_8"), {}).status == 405);
    CHECK(r.inst.Sql("SELECT count(*) FROM webhook_deliveries WHERE http_status = 405") == "2");
  }
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE event_id != 'evt_after_big'") == "0");
}

TEST_CASE("receive: a missing, empty or oversized event id is 400 and never replaced", "[integration]") {
  Running r;
  CHECK(r.server.PostSigned("/hooks/demo", R"({"type":"invoice.paid"})").status == 400);
  CHECK(r.server.PostSigned("/hooks/demo", R"({"id":"","type":"invoice.paid"})").status == 400);
  CHECK(r.server.PostSigned("/hooks/demo", Event(std::string(201, 'a'))).status == 400);
  CHECK(r.server.PostSigned("/hooks/demo", "{not json").status == 400);
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(r.inst.Sql("SELECT count(*) FROM webhook_deliveries WHERE http_status = 400") == "4");
  CHECK(r.server.PostSigned("/hooks/demo", Event(std::string(200, 'a'))).status == 200);
}

TEST_CASE("receive: event types outside the allow-list are 422, or 200 ignored when configured",
          "[integration]") {
  Running r(R"(
[[endpoint]]
name = "strict"
secret_file = "secrets/demo.secret"
event_types = ["invoice.paid"]
[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
[endpoint.key]
id_pointer = "/id"
event_type_pointer = "/type"

[[endpoint]]
name = "lenient"
secret_file = "secrets/demo.secret"
event_types = ["invoice.paid"]
ignore_other_event_types = true
[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
[endpoint.key]
id_pointer = "/id"
event_type_pointer = "/type"
)");
  std::string other = R"({"id":"evt_9","type":"customer.created"})";
  CHECK(r.server.PostSigned("/hooks/strict", other).status == 422);
  auto ignored = r.server.PostSigned("/hooks/lenient", other);
  CHECK(ignored.status == 200);
  CHECK(ignored.body == R"({"status":"ignored"})");
  CHECK(r.server.PostSigned("/hooks/strict", Event("evt_10")).status == 200);
  CHECK(r.inst.Sql("SELECT group_concat(event_id) FROM webhook_inbox") == "evt_10");
  CHECK(r.inst.Sql("SELECT group_concat(outcome, ',') FROM"
                   " (SELECT outcome FROM webhook_deliveries ORDER BY id) AS sub") ==
        "rejected,ignored,accepted");
}

TEST_CASE("receive: per-tenant endpoints take the tenant from the path and its own secret", "[integration]") {
  Installation inst;
  inst.WriteTestConfig(R"(
[[endpoint]]
name = "shops"
[[endpoint.tenants]]
id = "acme"
secret_file = "secrets/demo.secret"
[[endpoint.tenants]]
id = "globex"
secret_env = "HOOKINBOX_TEST_UNUSED_SECRET_GLOBEX"
[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
[endpoint.key]
id_pointer = "/id"
)");
  ::setenv("HOOKINBOX_TEST_UNUSED_SECRET_GLOBEX", "globex-secret", 1);
  ServerProcess server(inst);
  server.Start();
  CHECK(server.PostSigned("/hooks/shops/acme", Event("evt_t1")).status == 200);
  CHECK(server.PostSigned("/hooks/shops/globex", Event("evt_t1")).status == 401);  // other tenant, other secret
  CHECK(server.PostSigned("/hooks/shops/initech", Event("evt_t1")).status == 404);
  CHECK(server.PostSigned("/hooks/shops", Event("evt_t1")).status == 404);
  CHECK(inst.Sql("SELECT tenant_id FROM webhook_inbox") == "acme");
}

TEST_CASE("health: /healthz answers, /readyz checks the database", "[integration]") {
  Running r;
  CHECK(r.server.Request("GET", "/healthz", "", {}).status == 200);
  auto ready = r.server.Request("GET", "/readyz", "", {});
  CHECK(ready.status == 200);
  CHECK(ready.body == R"({"status":"ready"})");
  CHECK(r.server.Request("GET", "/admin/api/events", "", {}).status == 404);  // no admin API on the public port
}

TEST_CASE("receive: a database locked by another process gives 503, nothing written, then recovers",
          "[integration][sqlite]") {
  Installation inst;
  inst.WriteTestConfig("", "", "busy_timeout_ms = 200\n");
  ServerProcess server(inst);
  server.Start();
  // An admin's sqlite3 session holding a write transaction.
  // .timeout: its BEGIN waits out the probe below instead of failing on it.
  // -bail: "locked" is printed only once BEGIN IMMEDIATE and the INSERT succeeded.
  const std::string admin_out = inst.dir() + "/admin.out";
  FILE* admin = ::popen(("sqlite3 -bail -cmd '.timeout 10000' " + inst.db_path() + " > " + admin_out + " 2>&1").c_str(), "w");
  REQUIRE(admin != nullptr);
  std::fputs("BEGIN IMMEDIATE;\nINSERT INTO webhook_deliveries (received_at, outcome, http_status) VALUES (0, 'rejected', 0);\n"
             "SELECT 'locked';\n", admin);
  std::fflush(admin);
  REQUIRE(PollUntil([&] { return RunCommand("cat " + admin_out).out.find("locked") != std::string::npos; },
                    std::chrono::seconds(10)));
  // And a writer from outside must now fail.
  REQUIRE(RunCommand("sqlite3 -cmd '.timeout 0' " + inst.db_path() + " 'BEGIN IMMEDIATE; ROLLBACK;' 2>&1").exit_code != 0);
  auto busy = server.PostSigned("/hooks/demo", R"({"id":"evt_locked","type":"t"})");
  CHECK(busy.status == 503);
  CHECK(busy.headers["Retry-After"] == "5");
  CHECK(busy.body == R"({"error":"storage unavailable; retry later"})");
  CHECK(server.Request("GET", "/readyz", "", {}).status == 503);
  std::fputs("ROLLBACK;\n", admin);
  ::pclose(admin);
  CHECK(inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  auto retry = server.PostSigned("/hooks/demo", R"({"id":"evt_locked","type":"t"})");
  CHECK(retry.status == 200);
  CHECK(retry.body == R"({"status":"accepted","id":1})");
  CHECK(server.Request("GET", "/readyz", "", {}).status == 200);
}

TEST_CASE("receive: a provider preset (stripe) works end to end with only the secret configured",
          "[integration]") {
  Installation inst;
  inst.WriteTestConfig(R"(
[[endpoint]]
name = "payments"
provider = "stripe"
secret_env = "HOOKINBOX_TEST_STRIPE_SECRET"
)");
  const std::string secret = "whsec_test_integration_secret";
  ::setenv("HOOKINBOX_TEST_STRIPE_SECRET", secret.c_str(), 1);
  ServerProcess server(inst);
  server.Start();
  std::string body = R"({"id":"evt_1Stripe","object":"event","type":"invoice.paid","data":{"object":{"id":"in_1"}}})";
  std::string t = std::to_string(NowSeconds());
  // As Stripe signs: HMAC-SHA256 over "<t>.<body>" with the whsec_ string as key; two v1 entries during rotation.
  std::string header = "t=" + t + ",v1=" + HmacSha256Hex("whsec_old", t + "." + body) +
                       ",v1=" + HmacSha256Hex(secret, t + "." + body);
  auto res = server.Request("POST", "/hooks/payments", body, {{"Stripe-Signature", header}});
  CHECK(res.status == 200);
  CHECK(res.body == R"({"status":"accepted","id":1})");
  auto again = server.Request("POST", "/hooks/payments", body, {{"Stripe-Signature", header}});
  CHECK(again.body == R"({"status":"duplicate","id":1,"state":"received"})");
  std::string forged = "t=" + t + ",v1=" + HmacSha256Hex("whsec_other", t + "." + body);
  CHECK(server.Request("POST", "/hooks/payments", body, {{"Stripe-Signature", forged}}).status == 401);
  CHECK(inst.Sql("SELECT provider||'|'||event_id||'|'||event_type FROM webhook_inbox") ==
        "stripe|evt_1Stripe|invoice.paid");
}
