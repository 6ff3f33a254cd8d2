// alert/channel.h — where a notification goes: one [[alert.channel]] of the
// config (SPEC §10) — "email" (SMTP, STARTTLS or implicit TLS, AUTH),
// "slack" / "teams" / "discord" (incoming webhooks, each in its own message
// format) and "webhook" (JSON signed with Standard Webhooks).
//
// Send is one attempt, bounded by the channel's timeout; it never retries
// (the outbox does, with backoff: alert/dispatcher.h) and never logs the URL,
// a credential or the message body. The Status message names the failure
// ("smtp: 535 authentication failed", "slack: HTTP 404") without secrets.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "alert/notification.h"
#include "common/status.h"
#include "config/config.h"

namespace hookinbox::alert {

class Channel {
 public:
  virtual ~Channel() = default;
  virtual const std::string& name() const = 0;  // alert.channel.name
  // alert.channel.timeout_seconds: what bounds each step of one Send (the
  // dispatcher leases a row for long enough to cover the slowest channel).
  virtual int timeout_seconds() const = 0;
  virtual Status Send(const Notification& n) = 0;
};

// One channel per [[alert.channel]], in config order.
std::vector<std::unique_ptr<Channel>> MakeChannels(const config::AlertConfig& alert);

}  // namespace hookinbox::alert
