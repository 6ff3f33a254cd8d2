// The HTTP channels (slack, teams, discord, webhook) and MakeChannels.
//
// One POST per Send through a fresh cpp-httplib client: https verifies the
// server against ca_file or the system CAs, redirects are not followed (a
// redirect from a webhook URL is a misconfiguration, and following it would
// carry the message elsewhere), and channel.timeout_seconds bounds connect,
// each read and each write. 2xx is sent; anything else, or no answer, is a
// failure named by the channel type and the HTTP status or httplib's error
// ("slack: HTTP 503", "discord: Connection") — never the URL, which is
// itself a credential.
#include "alert/channel.h"

#include <httplib.h>

#include "action/sigpipe_guard.h"
#include "action/standard_webhooks.h"
#include "alert/channel_email.h"
#include "alert/channel_formats.h"
#include "common/clock.h"

namespace hookinbox::alert {
namespace {

class HttpChannel final : public Channel {
 public:
  explicit HttpChannel(config::AlertChannelConfig config) : config_(std::move(config)) {}
  const std::string& name() const override { return config_.name; }
  int timeout_seconds() const override { return config_.timeout_seconds; }

  Status Send(const Notification& n) override {
    httplib::Headers headers;
    std::string body;
    if (config_.type == "slack") {
      body = SlackBody(n);
    } else if (config_.type == "teams") {
      body = TeamsBody(n);
    } else if (config_.type == "discord") {
      body = DiscordBody(n);
    } else {
      body = WebhookBody(n);
      const std::string id = WebhookMessageId(n);
      const int64_t timestamp = clock_.NowMs() / 1000;
      headers = {{"webhook-id", id},
                 {"webhook-timestamp", std::to_string(timestamp)},
                 {"webhook-signature",
                  action::StandardWebhooksSignature(config_.secret.bytes(), id, timestamp, body)}};
    }
    return Post(headers, body);
  }

 private:
  Status Post(const httplib::Headers& headers, const std::string& body) {
    action::SigpipeGuard sigpipe_guard;  // a reset TLS connection raises SIGPIPE on write
    const std::string url(config_.url.bytes());
    const size_t scheme_end = url.find("://");
    const size_t path_at = scheme_end == std::string::npos ? std::string::npos : url.find('/', scheme_end + 3);
    httplib::Client client(path_at == std::string::npos ? url : url.substr(0, path_at));
    const std::string path = path_at == std::string::npos ? "/" : url.substr(path_at);
    const time_t timeout = static_cast<time_t>(config_.timeout_seconds);
    client.set_connection_timeout(timeout, 0);
    client.set_read_timeout(timeout, 0);
    client.set_write_timeout(timeout, 0);
    client.set_follow_location(false);
    client.set_keep_alive(false);
    client.enable_server_certificate_verification(true);
    if (!config_.ca_file.empty()) client.set_ca_cert_path(config_.ca_file.c_str());
    httplib::Result res = client.Post(path.c_str(), headers, body, "application/json");
    if (!res) return Unavailable(config_.type + ": " + httplib::to_string(res.error()));
    if (res->status >= 200 && res->status < 300) return Status::Ok();
    return Unavailable(config_.type + ": HTTP " + std::to_string(res->status));
  }

  const config::AlertChannelConfig config_;
  SystemClock clock_;  // webhook-timestamp: the receiver checks it against its own clock
};

}  // namespace

std::vector<std::unique_ptr<Channel>> MakeChannels(const config::AlertConfig& alert) {
  std::vector<std::unique_ptr<Channel>> channels;
  for (const config::AlertChannelConfig& c : alert.channels) {
    if (c.type == "email") {
      channels.push_back(std::make_unique<EmailChannel>(c));
    } else {
      channels.push_back(std::make_unique<HttpChannel>(c));
    }
  }
  return channels;
}

}  // namespace hookinbox::alert
