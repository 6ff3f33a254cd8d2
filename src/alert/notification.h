// alert/notification.h — one message to a person: what the alert engine
// (alert/engine.h) decides to say and every channel (alert/channel.h) renders
// in its own format (e-mail text, Slack blocks, a Teams card, a Discord embed,
// a signed JSON webhook).
//
// Built only from counts, names and times: never a payload, a header value, a
// secret or a signature. It is stored as JSON in alert_notifications.message
// (the outbox any replica sends from, and the record an auditor reads), so the
// JSON form is stable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace hookinbox::alert {

enum class NotificationKind { kStart, kReminder, kResolved, kDigest, kTest };
// "start", "reminder", "resolved", "digest", "test" (the stored text, alert_notifications.kind).
const char* NotificationKindName(NotificationKind kind);
std::optional<NotificationKind> NotificationKindFromName(const std::string& name);

struct Notification {
  NotificationKind kind = NotificationKind::kTest;
  std::string title;  // one line, e.g. "orders: 3 new dead letters"
  std::string text;   // plain language for a business owner; paragraphs separated by "\n\n"
  // Labelled facts shown as a table/fields ("Endpoint" → "orders", "Since" → "2026-12-02 03:10 UTC").
  std::vector<std::pair<std::string, std::string>> facts;
  std::string link;       // the admin UI page to open ("" when alert.ui_url is not set)
  std::string condition;  // "dead_letters", "silence", … ("" for a digest or a test)
  std::string endpoint;   // "" = the whole installation
  int64_t incident_id = 0;  // alerts.id, 0 for a digest or a test
  int64_t at_ms = 0;        // when it was decided
};

std::string NotificationToJson(const Notification& n);
Result<Notification> NotificationFromJson(const std::string& json);

}  // namespace hookinbox::alert
