// Each channel type's rendering of one notification, parsed back and checked
// field by field; the webhook body's signature verifies with hookinbox's own
// Standard Webhooks verifier.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "action/standard_webhooks.h"
#include "alert/channel_formats.h"
#include "common/headers.h"
#include "verify/registry.h"
#include "verify/verify.h"

using namespace hookinbox;
using namespace hookinbox::alert;
using nlohmann::json;

namespace {

Notification Sample(NotificationKind kind = NotificationKind::kStart) {
  Notification n;
  n.kind = kind;
  n.title = "orders: 3 new dead letters";
  n.text = "Three events of orders could not be delivered.\n\nReplay them once the CRM is back.";
  n.facts = {{"Endpoint", "orders"}, {"Dead letters", "3"}};
  n.link = "https://admin.example.com/#/attention";
  n.condition = "dead_letters";
  n.endpoint = "orders";
  n.incident_id = 7;
  n.at_ms = 1764645000000;  // 2025-12-02T03:10:00Z
  return n;
}

}  // namespace

TEST_CASE("slack: text fallback, a header, fields for the facts and a link button", "[alert]") {
  json j = json::parse(SlackBody(Sample()));
  CHECK(j["text"].get<std::string>().find("orders: 3 new dead letters") == 0);
  const json& blocks = j["blocks"];
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0]["type"] == "header");
  CHECK(blocks[0]["text"]["type"] == "plain_text");
  CHECK(blocks[0]["text"]["text"] == "orders: 3 new dead letters");
  CHECK(blocks[1]["type"] == "section");
  CHECK(blocks[1]["text"]["text"].get<std::string>().find("Replay them") != std::string::npos);
  REQUIRE(blocks[1]["fields"].size() == 2);
  CHECK(blocks[1]["fields"][1]["text"] == "*Dead letters*\n3");
  CHECK(blocks[2]["type"] == "actions");
  CHECK(blocks[2]["elements"][0]["type"] == "button");
  CHECK(blocks[2]["elements"][0]["url"] == "https://admin.example.com/#/attention");
}

TEST_CASE("slack: no link, no button; <, > and & cannot become a mention", "[alert]") {
  Notification n = Sample();
  n.link.clear();
  n.facts = {{"Endpoint", "<!channel> & co"}};
  json j = json::parse(SlackBody(n));
  REQUIRE(j["blocks"].size() == 2);
  CHECK(j["blocks"][1]["fields"][0]["text"] == "*Endpoint*\n&lt;!channel&gt; &amp; co");
}

TEST_CASE("teams: a message whose attachment is an Adaptive Card with a FactSet and an OpenUrl action", "[alert]") {
  json j = json::parse(TeamsBody(Sample()));
  CHECK(j["type"] == "message");
  REQUIRE(j["attachments"].size() == 1);
  const json& a = j["attachments"][0];
  CHECK(a["contentType"] == "application/vnd.microsoft.card.adaptive");
  const json& card = a["content"];
  CHECK(card["type"] == "AdaptiveCard");
  CHECK(card["version"] == "1.4");
  CHECK(card["body"][0]["text"] == "orders: 3 new dead letters");
  CHECK(card["body"][2]["type"] == "FactSet");
  CHECK(card["body"][2]["facts"][0] == json{{"title", "Endpoint"}, {"value", "orders"}});
  CHECK(card["actions"][0]["type"] == "Action.OpenUrl");
  CHECK(card["actions"][0]["url"] == "https://admin.example.com/#/attention");
}

TEST_CASE("discord: content, one embed with fields, url, timestamp and a colour by kind", "[alert]") {
  json start = json::parse(DiscordBody(Sample()));
  CHECK(start["content"] == "orders: 3 new dead letters");
  const json& e = start["embeds"][0];
  CHECK(e["title"] == "orders: 3 new dead letters");
  CHECK(e["description"].get<std::string>().find("Three events") == 0);
  CHECK(e["url"] == "https://admin.example.com/#/attention");
  CHECK(e["timestamp"] == "2025-12-02T03:10:00Z");
  REQUIRE(e["fields"].size() == 2);
  CHECK(e["fields"][0]["name"] == "Endpoint");
  CHECK(e["fields"][0]["value"] == "orders");
  CHECK(start["allowed_mentions"]["parse"].empty());
  json resolved = json::parse(DiscordBody(Sample(NotificationKind::kResolved)));
  CHECK(resolved["embeds"][0]["color"] != e["color"]);
}

TEST_CASE("discord: an over-long title is cut to the platform's limit on a UTF-8 boundary", "[alert]") {
  Notification n = Sample();
  n.title = std::string(255, 'a') + "\xC3\xA9";  // 257 bytes, the last character two bytes long
  json j = json::parse(DiscordBody(n));
  CHECK(j["embeds"][0]["title"].get<std::string>() == std::string(255, 'a'));
}

TEST_CASE("webhook: type alert.<kind>, an RFC 3339 timestamp and the notification as data", "[alert]") {
  for (auto [kind, type] : {std::pair{NotificationKind::kStart, "alert.start"},
                            std::pair{NotificationKind::kReminder, "alert.reminder"},
                            std::pair{NotificationKind::kResolved, "alert.resolved"},
                            std::pair{NotificationKind::kDigest, "alert.digest"},
                            std::pair{NotificationKind::kTest, "alert.test"}}) {
    json j = json::parse(WebhookBody(Sample(kind)));
    CHECK(j["type"] == type);
    CHECK(j["timestamp"] == "2025-12-02T03:10:00Z");
    CHECK(j["data"]["title"] == "orders: 3 new dead letters");
    CHECK(j["data"]["incident_id"] == 7);
    CHECK(j["data"]["facts"][1] == json{{"label", "Dead letters"}, {"value", "3"}});
  }
}

TEST_CASE("webhook: one notification keeps one webhook-id; another gets another", "[alert]") {
  const std::string id = WebhookMessageId(Sample());
  CHECK(id.rfind("msg_", 0) == 0);
  CHECK(id.size() == 36);
  CHECK(WebhookMessageId(Sample()) == id);
  CHECK(WebhookMessageId(Sample(NotificationKind::kResolved)) != id);
}

TEST_CASE("webhook: the signature verifies with hookinbox's own Standard Webhooks verifier", "[alert]") {
  const std::string key = "alert-channel-key-0123456789abcd";
  const std::string body = WebhookBody(Sample());
  const std::string id = WebhookMessageId(Sample());
  const int64_t now_s = 1764645000;
  MapHeaders headers{{"webhook-id", id},
                     {"webhook-timestamp", std::to_string(now_s)},
                     {"webhook-signature", action::StandardWebhooksSignature(key, id, now_s, body)}};
  const config::EndpointConfig* preset = verify::FindPreset("standard-webhooks");
  REQUIRE(preset != nullptr);
  verify::DeliveryView delivery{"POST", "/hooks/alerts", headers, body};
  CHECK(verify::Verify(*preset, {Secret(key)}, delivery, now_s * 1000).ok());
  CHECK_FALSE(verify::Verify(*preset, {Secret("another-key-0123456789abcdefgh")}, delivery, now_s * 1000).ok());
  std::string tampered = body;
  tampered[tampered.size() - 2] = ' ';
  verify::DeliveryView changed{"POST", "/hooks/alerts", headers, tampered};
  CHECK_FALSE(verify::Verify(*preset, {Secret(key)}, changed, now_s * 1000).ok());
}

TEST_CASE("email: headers, CRLF line ends and a body with the text, facts and link", "[alert]") {
  const std::string m = EmailMessage(Sample(), "hookinbox@example.com", {"ops@example.com", "cto@example.com"},
                                     1764645000000);
  CHECK(m.find("Date: Tue, 02 Dec 2025 03:10:00 +0000\r\n") == 0);
  CHECK(m.find("\r\nFrom: hookinbox@example.com\r\n") != std::string::npos);
  CHECK(m.find("\r\nTo: ops@example.com, cto@example.com\r\n") != std::string::npos);
  CHECK(m.find("\r\nSubject: orders: 3 new dead letters\r\n") != std::string::npos);
  CHECK(m.find("@example.com>\r\n") != std::string::npos);  // Message-ID in the sender's domain
  CHECK(m.find("\r\nContent-Type: text/plain; charset=UTF-8\r\n") != std::string::npos);
  const std::string body = m.substr(m.find("\r\n\r\n") + 4);
  CHECK(body.find("Three events of orders could not be delivered.\r\n\r\nReplay them") == 0);
  CHECK(body.find("Dead letters: 3\r\n") != std::string::npos);
  CHECK(body.find("https://admin.example.com/#/attention\r\n") != std::string::npos);
  for (size_t at = m.find('\n'); at != std::string::npos; at = m.find('\n', at + 1)) CHECK(m[at - 1] == '\r');
}

TEST_CASE("email: a non-ASCII title is RFC 2047 encoded; a line break cannot add a header", "[alert]") {
  Notification n = Sample();
  n.title = "Bestellungen: Zustellung fehlgeschlagen \xE2\x80\x94 3";
  std::string m = EmailMessage(n, "a@example.com", {"b@example.com"}, 0);
  CHECK(m.find("\r\nSubject: =?UTF-8?B?") != std::string::npos);
  n.title = "hello\r\nBcc: evil@example.com";
  m = EmailMessage(n, "a@example.com", {"b@example.com"}, 0);
  CHECK(m.find("\r\nBcc:") == std::string::npos);
  CHECK(m.find("Subject: hello  Bcc: evil@example.com\r\n") != std::string::npos);
}
