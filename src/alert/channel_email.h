// alert/channel_email.h — the "email" channel (internal to alert/; built by
// MakeChannels). Thread-compatible: one Send at a time per channel object.
#pragma once

#include "alert/channel.h"
#include "common/clock.h"

namespace hookinbox::alert {

class EmailChannel final : public Channel {
 public:
  explicit EmailChannel(config::AlertChannelConfig config);
  const std::string& name() const override { return config_.name; }
  int timeout_seconds() const override { return config_.timeout_seconds; }
  // One SMTP transaction to every `to`; Unavailable("smtp: 535 Login denied") when refused.
  Status Send(const Notification& n) override;

 private:
  const config::AlertChannelConfig config_;
  SystemClock clock_;  // the Date header
};

}  // namespace hookinbox::alert
