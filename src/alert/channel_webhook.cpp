// The generic webhook format: the notification as JSON, in the Standard
// Webhooks payload shape (type, timestamp, data), signed by channel.cpp with
// action/standard_webhooks.h.
#include <time.h>

#include <nlohmann/json.hpp>

#include "alert/channel_formats.h"
#include "common/digest.h"

namespace hookinbox::alert {

std::string Rfc3339(int64_t ms) {
  const time_t seconds = static_cast<time_t>(ms / 1000);
  struct tm tm = {};
  gmtime_r(&seconds, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string WebhookBody(const Notification& n) {
  nlohmann::json j = {{"type", std::string("alert.") + NotificationKindName(n.kind)},
                      {"timestamp", Rfc3339(n.at_ms)},
                      {"data", nlohmann::json::parse(NotificationToJson(n))}};
  return j.dump();
}

std::string WebhookMessageId(const Notification& n) { return "msg_" + Sha256Hex(NotificationToJson(n)).substr(0, 32); }

}  // namespace hookinbox::alert
