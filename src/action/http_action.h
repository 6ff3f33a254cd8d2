// action/http_action.h — the `http` action: POST the event to a downstream URL.
//
// The request carries the original body and Content-Type, Idempotency-Key,
// X-Hookinbox-Event-Id/-Event-Type/-Attempt, X-Hookinbox-Token and
// X-Hookinbox-Api (the handler API's base, ".../v1") when there is a handler
// API, the destination credential when action.auth is set
// (destination_auth.h), and the Standard Webhooks headers webhook-id (= the idempotency
// key), webhook-timestamp and webhook-signature "v1,<base64 HMAC-SHA256 of
// id.timestamp.body>" under the endpoint's forward secret, so the downstream
// can verify it with any Standard Webhooks library. Redirects are not
// followed (a 3xx is permanent): a body must not be re-sent somewhere the
// config does not name. https verifies the server against ca_file or the
// system CAs, host name included.
//
// Classification: 2xx success; nothing sent (refused, DNS, connect timeout,
// TLS failure) transient; 408/425/429/5xx transient with Retry-After (409
// too when idempotent_target: the same key is still running); other 4xx and
// 3xx permanent; sent but no answer (read timeout, reset) unknown,
// or transient when idempotent_target. A downstream with idempotent_target
// gets kept-alive connections (connection_pool.h); every other one a new
// connection per request. timeout_ms bounds each phase
// (connect, each write, each read), as cpp-httplib 0.11 offers no overall limit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "config/config.h"
#include "action/action.h"

namespace hookinbox::action {

class ConnectionPool;

class HttpAction final : public Action {
 public:
  // `config` is copied; `clock` must outlive the action.
  HttpAction(config::ActionConfig config, const Clock& clock);
  ~HttpAction() override;
  Outcome Run(const ActionInput& input) override;

 private:
  config::ActionConfig config_;
  const Clock& clock_;
  // Kept-alive connections, for an idempotent_target only (connection_pool.h).
  std::unique_ptr<ConnectionPool> pool_;
};

// Retry-After (RFC 9110 §10.2.3) as milliseconds from `now_ms`: delay-seconds
// or an HTTP-date (IMF-fixdate; the obsolete forms are rejected). A date in
// the past gives 0. nullopt when `value` is neither.
std::optional<int64_t> ParseRetryAfter(std::string_view value, int64_t now_ms);

}  // namespace hookinbox::action
