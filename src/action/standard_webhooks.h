// action/standard_webhooks.h — signing an outgoing request the Standard
// Webhooks way (https://www.standardwebhooks.com): the http action's forwards
// and the alert webhook channel (alert/channel_webhook.cpp) sign with this one
// function, so a receiver verifies both with the same library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hookinbox::action {

// The webhook-signature value for `body` sent as message `webhook_id` at
// `timestamp_s`: "v1," + base64(HMAC-SHA256(key, id "." timestamp "." body)).
// `key` is the decoded key bytes (the base64 after "whsec_", as config/
// resolves it), never the "whsec_…" text.
std::string StandardWebhooksSignature(std::string_view key, std::string_view webhook_id, int64_t timestamp_s,
                                      std::string_view body);

}  // namespace hookinbox::action
