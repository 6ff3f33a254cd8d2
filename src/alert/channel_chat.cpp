// The chat formats: Slack Block Kit, a Teams Adaptive Card, a Discord embed.
// Each platform limits lengths (Slack: header 150, field 2000; Discord:
// title 256, description 4096, 25 fields); notifications are far shorter,
// but a long endpoint name must not make the platform refuse the message, so
// every text is cut to the platform's limit.
#include <nlohmann/json.hpp>

#include "alert/channel_formats.h"

namespace hookinbox::alert {
namespace {

using nlohmann::json;

// `s` cut to at most `max` bytes, never inside a UTF-8 sequence.
std::string Cut(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

// Slack mrkdwn and Discord markdown treat <, > and & specially (Slack: links
// and mentions); escaping keeps an endpoint name from becoming a mention.
std::string SlackEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

// Red while something is wrong, green when it ended, blue otherwise.
int DiscordColour(NotificationKind kind) {
  switch (kind) {
    case NotificationKind::kStart: return 0xD93F0B;
    case NotificationKind::kReminder: return 0xE99695;
    case NotificationKind::kResolved: return 0x2DA44E;
    case NotificationKind::kDigest:
    case NotificationKind::kTest: break;
  }
  return 0x0969DA;
}

}  // namespace

std::string SlackBody(const Notification& n) {
  json blocks = json::array();
  blocks.push_back({{"type", "header"}, {"text", {{"type", "plain_text"}, {"text", Cut(n.title, 150)}}}});
  json section = {{"type", "section"}};
  if (!n.text.empty()) section["text"] = {{"type", "mrkdwn"}, {"text", Cut(SlackEscape(n.text), 3000)}};
  json fields = json::array();
  for (const auto& [label, value] : n.facts) {
    if (fields.size() == 10) break;  // Slack's limit per section
    fields.push_back({{"type", "mrkdwn"}, {"text", Cut("*" + SlackEscape(label) + "*\n" + SlackEscape(value), 2000)}});
  }
  if (!fields.empty()) section["fields"] = fields;
  if (section.size() > 1) blocks.push_back(section);
  if (!n.link.empty()) {
    blocks.push_back({{"type", "actions"},
                      {"elements", json::array({{{"type", "button"},
                                                 {"text", {{"type", "plain_text"}, {"text", "Open in hookinbox"}}},
                                                 {"url", Cut(n.link, 3000)}}})}});
  }
  std::string fallback = n.title;
  if (!n.text.empty()) fallback += "\n" + n.text;
  return json{{"text", Cut(SlackEscape(fallback), 3000)}, {"blocks", blocks}}.dump();
}

std::string TeamsBody(const Notification& n) {
  json body = json::array();
  body.push_back({{"type", "TextBlock"}, {"text", n.title}, {"weight", "Bolder"}, {"size", "Medium"},
                  {"wrap", true}});
  if (!n.text.empty()) body.push_back({{"type", "TextBlock"}, {"text", n.text}, {"wrap", true}});
  if (!n.facts.empty()) {
    json facts = json::array();
    for (const auto& [label, value] : n.facts) facts.push_back({{"title", label}, {"value", value}});
    body.push_back({{"type", "FactSet"}, {"facts", facts}});
  }
  json card = {{"$schema", "http://adaptivecards.io/schemas/adaptive-card.json"},
               {"type", "AdaptiveCard"},
               {"version", "1.4"},
               {"body", body}};
  if (!n.link.empty()) {
    card["actions"] = json::array({{{"type", "Action.OpenUrl"}, {"title", "Open in hookinbox"}, {"url", n.link}}});
  }
  json attachment = {{"contentType", "application/vnd.microsoft.card.adaptive"}, {"contentUrl", nullptr},
                     {"content", card}};
  return json{{"type", "message"}, {"attachments", json::array({attachment})}}.dump();
}

std::string DiscordBody(const Notification& n) {
  json embed = {{"title", Cut(n.title, 256)}, {"color", DiscordColour(n.kind)}};
  if (!n.text.empty()) embed["description"] = Cut(n.text, 4096);
  if (!n.link.empty()) embed["url"] = n.link;
  json fields = json::array();
  for (const auto& [label, value] : n.facts) {
    if (fields.size() == 25) break;
    fields.push_back({{"name", Cut(label, 256)}, {"value", Cut(value.empty() ? "-" : value, 1024)}, {"inline", true}});
  }
  if (!fields.empty()) embed["fields"] = fields;
  if (n.at_ms > 0) embed["timestamp"] = Rfc3339(n.at_ms);
  // allowed_mentions: nothing in an alert may ping @everyone or a role.
  return json{{"content", Cut(n.title, 2000)},
              {"embeds", json::array({embed})},
              {"allowed_mentions", {{"parse", json::array()}}}}
      .dump();
}

}  // namespace hookinbox::alert
