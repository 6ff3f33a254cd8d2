// alert/channel_formats.h — how each channel type renders a notification
// (internal to alert/; the channels send these, the unit tests parse them).
//
// Pure functions of the notification (and the time, where a format carries
// one): no I/O, no secrets. Every format carries the same content — the
// title, the text, the facts and the link — in its own shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alert/notification.h"

namespace hookinbox::alert {

// Slack incoming webhook: "text" (the notification-preview fallback) and
// Block Kit blocks: a header, a section with the text and the facts as
// fields, and a "Open in hookinbox" button when there is a link.
std::string SlackBody(const Notification& n);

// Teams (Workflows "Send webhook alerts to a channel", and the older incoming
// webhooks): a message whose one attachment is an Adaptive Card 1.4 with the
// title, the text, a FactSet and an Action.OpenUrl when there is a link.
std::string TeamsBody(const Notification& n);

// Discord webhook: "content" (the title) and one embed with title,
// description, fields, the link as url and a colour by kind.
std::string DiscordBody(const Notification& n);

// The generic webhook channel's body: {"type": "alert.<kind>", "timestamp":
// RFC 3339 of n.at_ms, "data": the notification's stored JSON form}.
std::string WebhookBody(const Notification& n);

// The webhook-id of `n`: "msg_" + 32 hex digits of SHA-256 over its stored
// form, so every retry of one notification carries the same id and a
// receiver that deduplicates by it acts once.
std::string WebhookMessageId(const Notification& n);

// An RFC 5322 message (CRLF line ends) from `from` to `to`: Date (`now_ms`,
// UTC), Message-ID, Subject = title (RFC 2047 encoded when not ASCII), and a
// text/plain UTF-8 body with the text, the facts and the link.
std::string EmailMessage(const Notification& n, const std::string& from, const std::vector<std::string>& to,
                         int64_t now_ms);

// "2026-12-02T03:10:00Z" for `ms` since the epoch (UTC, whole seconds).
std::string Rfc3339(int64_t ms);

}  // namespace hookinbox::alert
