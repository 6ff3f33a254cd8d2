// admin/auth.h — who may use the admin listener's /admin/api, /admin UI
// calls and (when a metrics token is set) /metrics.
//
// Owns: the bearer-token check and the answers to a refusal. The token is
// compared as SHA-256 digests with CRYPTO_memcmp (common/secret.h): both
// sides are 32 bytes whatever was sent, so neither the position of the first
// wrong byte nor the token's length shows in the time taken. Failed logins
// are counted per remote address (login_limiter.h); a blocked address gets
// 429 with Retry-After even with the right token, so a guesser learns
// nothing from its attempts during the block. Logs each failed login
// (admin_auth_failed: address, scope, failures in the window) and each block
// once, on its first refused request (admin_auth_blocked: address, scope,
// retry_after_s). Never logs the token, nor any part of what was sent.
// Thread-safety: the checks may run on any thread (the limiter locks).
#pragma once

#include <httplib.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "admin/login_limiter.h"
#include "common/secret.h"

namespace hookinbox::admin {

// The answer the library has no Code for: too many failed logins.
inline constexpr int kHttpTooManyRequests = 429;

enum class AuthOutcome {
  kOk,
  kNotConfigured,  // no admin token configured: 503, the API is off
  kUnauthorized,   // missing or wrong token: 401, counted as a failed login
  kTooMany,        // the address is blocked: 429
};

struct AuthDecision {
  AuthOutcome outcome = AuthOutcome::kOk;
  int64_t retry_after_s = 0;  // kTooMany: seconds until the block ends (at least 1)
};

// The token of an "Authorization: Bearer <token>" value (scheme case-insensitive); "" when none.
std::string BearerToken(std::string_view authorization);

class AdminAuth {
 public:
  // `admin_token` empty = not configured; `metrics_token` empty = /metrics is open.
  AdminAuth(const Secret& admin_token, const Secret& metrics_token, LoginLimiter& limiter);

  // For /admin/api/*: the admin token.
  AuthDecision CheckAdmin(std::string_view authorization, const std::string& remote_addr);
  // For /metrics: ok when no metrics token is configured, else that token
  // only (a Prometheus server's token must not open the admin API, nor the
  // admin token turn a scraper config into an admin credential).
  AuthDecision CheckMetrics(std::string_view authorization, const std::string& remote_addr);

 private:
  // `scope` names the token checked in log lines: "admin" or "metrics".
  AuthDecision Check(const std::string& want_digest, const char* scope, std::string_view authorization,
                     const std::string& remote_addr);

  std::string admin_digest_;    // Sha256 of the admin token; "" when not configured
  std::string metrics_digest_;  // Sha256 of the metrics token; "" when not configured
  LoginLimiter& limiter_;
};

// Writes the refusal for a decision that is not kOk: 503 {"error":"admin token
// not configured: …"}, 401 {"error":"unauthorized"} with WWW-Authenticate, or
// 429 {"error":"too many failed logins; retry later"} with Retry-After.
void ReplyRefusal(const AuthDecision& decision, httplib::Response& res);

}  // namespace hookinbox::admin
