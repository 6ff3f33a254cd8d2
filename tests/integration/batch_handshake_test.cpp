// Batches and handshakes through the real binary (SPEC §2, §9): a batch
// becomes one inbox row per event in one transaction with one delivery row,
// and handshakes are answered as each provider documents and never stored.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "harness.h"

using namespace hookinbox::testing;

namespace {

constexpr const char* kBatchSecret = "batch-integration-secret";
constexpr const char* kSlackSecret = "slack-integration-signing-secret";

struct BatchServer {
  Installation inst;
  ServerProcess server{inst};
  BatchServer() {
    ::setenv("HOOKINBOX_IT_BATCH_SECRET", kBatchSecret, 1);
    ::setenv("HOOKINBOX_IT_SLACK_SECRET", kSlackSecret, 1);
    ::setenv("HOOKINBOX_IT_META_SECRET", "meta-app-secret", 1);
    ::setenv("HOOKINBOX_IT_META_VERIFY", "meta-verify-token", 1);
    ::setenv("HOOKINBOX_IT_WOO_SECRET", "woo-secret", 1);
    inst.WriteTestConfig(R"(
[[endpoint]]
name = "crm"
secret_env = "HOOKINBOX_IT_BATCH_SECRET"
volatile_fields = ["/attemptNumber"]
[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
[endpoint.key]
batch = true
fields = ["/subscriptionId", "/eventId"]
event_type_pointer = "/subscriptionType"

[[endpoint]]
name = "slack"
provider = "slack"
secret_env = "HOOKINBOX_IT_SLACK_SECRET"

[[endpoint]]
name = "meta"
provider = "meta"
secret_env = "HOOKINBOX_IT_META_SECRET"
verify_token_env = "HOOKINBOX_IT_META_VERIFY"

[[endpoint]]
name = "shop"
provider = "woocommerce"
secret_env = "HOOKINBOX_IT_WOO_SECRET"
)");
    server.Start();
  }

  HttpResult PostBatch(const std::string& body) const {
    return server.Request("POST", "/hooks/crm", body, {{"X-Signature", "sha256=" + HmacSha256Hex(kBatchSecret, body)}});
  }

  HttpResult PostSlack(const std::string& body) const {
    const std::string ts = std::to_string(NowSeconds());
    return server.Request("POST", "/hooks/slack", body,
                          {{"X-Slack-Request-Timestamp", ts},
                           {"X-Slack-Signature", "v0=" + HmacSha256Hex(kSlackSecret, "v0:" + ts + ":" + body)}});
  }
};

std::string Event(int id, int attempt, const char* type = "contact.creation") {
  return R"({"eventId":)" + std::to_string(id) + R"(,"subscriptionId":9,"subscriptionType":")" + type +
         R"(","attemptNumber":)" + std::to_string(attempt) + "}";
}

}  // namespace

TEST_CASE("batch: one POST of three events makes three inbox rows and one delivery row", "[integration][batch]") {
  BatchServer s;
  const std::string body = "[" + Event(1, 0) + ",\n " + Event(2, 0) + "," + Event(3, 0, "contact.deletion") + "]";
  auto r = s.PostBatch(body);
  INFO(r.body);
  REQUIRE(r.status == 200);
  CHECK(r.body.find(R"("status":"accepted","events":[{"id":1,"event_id":"9:1","status":"accepted"})") !=
        std::string::npos);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox WHERE endpoint = 'crm'") == "3");
  CHECK(s.inst.Sql("SELECT group_concat(event_id, ',') FROM (SELECT event_id FROM webhook_inbox ORDER BY id) AS sub") ==
        "9:1,9:2,9:3");
  CHECK(s.inst.Sql("SELECT event_type FROM webhook_inbox WHERE event_id = '9:3'") == "contact.deletion");
  // Each event carries the fingerprint of the key settings that derived its key.
  CHECK(s.inst.Sql("SELECT count(DISTINCT key_spec) || ':' || min(length(key_spec)) FROM webhook_inbox") == "1:16");
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_deliveries WHERE endpoint = 'crm'") == "1");
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_delivery_events") == "3");
  // Each event keeps its own bytes exactly as sent.
  CHECK(s.inst.Sql("SELECT body FROM webhook_payloads p JOIN webhook_inbox i ON i.id = p.inbox_id"
                   " WHERE i.event_id = '9:2'") == Event(2, 0));

  SECTION("HubSpot's retry (attemptNumber bumped) is all duplicates, not conflicts") {
    const std::string retry = "[" + Event(1, 1) + "," + Event(2, 1) + "," + Event(3, 1, "contact.deletion") + "]";
    auto again = s.PostBatch(retry);
    INFO(again.body);
    REQUIRE(again.status == 200);
    CHECK(again.body.find("\"accepted\",\"event_id\"") == std::string::npos);
    CHECK(s.inst.Sql("SELECT count(*) FROM webhook_delivery_events WHERE outcome = 'duplicate'") == "3");
    CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "3");
    CHECK(s.inst.Sql("SELECT outcome FROM webhook_deliveries ORDER BY id DESC LIMIT 1") == "duplicate");
  }
  SECTION("a batch with one unidentifiable event is refused whole and stores nothing more") {
    auto bad = s.PostBatch("[" + Event(4, 0) + R"(,{"subscriptionId":9}])");
    CHECK(bad.status == 400);
    CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "3");
    CHECK(s.inst.Sql("SELECT outcome || ' ' || http_status FROM webhook_deliveries ORDER BY id DESC LIMIT 1") ==
          "rejected 400");
  }
  SECTION("a forged batch is refused") {
    auto forged = s.server.Request("POST", "/hooks/crm", "[" + Event(5, 0) + "]", {{"X-Signature", "sha256=00"}});
    CHECK(forged.status == 401);
    CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "3");
  }
}

TEST_CASE("handshake: Slack url_verification gets its challenge back and stores no event", "[integration][handshake]") {
  BatchServer s;
  auto r = s.PostSlack(R"({"token":"t","challenge":"challenge-3eZbrw1aBm","type":"url_verification"})");
  CHECK(r.status == 200);
  CHECK(r.body == "challenge-3eZbrw1aBm");
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(s.inst.Sql("SELECT outcome || ' ' || reason FROM webhook_deliveries") ==
        "ignored handshake: slack url_verification");

  // The same handshake unsigned is refused like any forged delivery.
  auto forged = s.server.Request("POST", "/hooks/slack", R"({"challenge":"x","type":"url_verification"})", {});
  CHECK(forged.status == 401);
  // A real event on the same endpoint is stored.
  auto event = s.PostSlack(R"({"type":"event_callback","event_id":"Ev01","event":{"type":"app_mention"}})");
  CHECK(event.status == 200);
  CHECK(s.inst.Sql("SELECT event_id || ' ' || event_type FROM webhook_inbox") == "Ev01 app_mention");
}

TEST_CASE("handshake: Meta's GET subscription check echoes the challenge for the right token",
          "[integration][handshake]") {
  BatchServer s;
  auto ok = s.server.Request("GET", "/hooks/meta?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meta-verify-token", "", {});
  CHECK(ok.status == 200);
  CHECK(ok.body == "1158201444");
  auto wrong = s.server.Request("GET", "/hooks/meta?hub.mode=subscribe&hub.challenge=1&hub.verify_token=guess", "", {});
  CHECK(wrong.status == 403);
  // Endpoints without a GET handshake still refuse GET.
  CHECK(s.server.Request("GET", "/hooks/slack?hub.mode=subscribe", "", {}).status == 405);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(s.inst.Sql("SELECT group_concat(outcome || ' ' || http_status, ',') FROM webhook_deliveries") ==
        "ignored 200,rejected 403,rejected 405");
}

TEST_CASE("handshake: WooCommerce's unsigned creation ping is answered 200 and not stored",
          "[integration][handshake]") {
  BatchServer s;
  auto ping = s.server.Request("POST", "/hooks/shop", "webhook_id=17", {}, "application/x-www-form-urlencoded");
  CHECK(ping.status == 200);
  CHECK(s.inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(s.inst.Sql("SELECT outcome FROM webhook_deliveries") == "ignored");
  // Anything else unsigned is refused.
  auto other = s.server.Request("POST", "/hooks/shop", "webhook_id=17&x=1", {}, "application/x-www-form-urlencoded");
  CHECK(other.status == 401);
}

TEST_CASE("handshake: the HEAD check of SurveyMonkey and Mandrill is answered 200 and not stored",
          "[integration][handshake]") {
  Installation inst;
  ServerProcess server{inst};
  ::setenv("HOOKINBOX_IT_SM_SECRET", "sm-api-key&sm-api-secret", 1);
  inst.WriteTestConfig(R"(
[[endpoint]]
name = "surveys"
provider = "surveymonkey"
secret_env = "HOOKINBOX_IT_SM_SECRET"

[[endpoint]]
name = "plain"
secret_env = "HOOKINBOX_IT_SM_SECRET"
[endpoint.key]
id_pointer = "/id"
)");
  server.Start();
  auto head = server.Request("HEAD", "/hooks/surveys", "", {});
  CHECK(head.status == 200);
  CHECK(head.body.empty());
  // An endpoint without the HEAD handshake still refuses HEAD.
  CHECK(server.Request("HEAD", "/hooks/plain", "", {}).status == 405);
  CHECK(inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(inst.Sql("SELECT group_concat(outcome || ' ' || http_status, ',') FROM webhook_deliveries") ==
        "ignored 200,rejected 405");
}
