// admin/auth.h — who may use the admin listener's /admin/api, /admin UI
// calls and (when a metrics token is set) /metrics.
//
// Owns: the bearer-token check and the answers to a refusal. The token is
// compared as SHA-256 digests with CRYPTO_memcmp (common/secret.h): both
// sides are 32 bytes whatever was sent, so neither the position of the first
// wrong byte nor the token's length shows in the time taken.
// Failed logins (login_limiter.h) are counted per scope ("admin", "metrics",
// "handler") and remote address, and only for a *presented wrong* token: a
// request without an Authorization header gets 401 and counts for nothing,
// so a page that merely makes browsers fetch the listener cannot lock
// anybody out. A blocked address gets 429 with Retry-After for every wrong
// token, but the right token is always accepted: the address may be a
// reverse proxy, an SSH tunnel or a NAT shared with whoever failed, and the
// operator must never be refused for someone else's guesses. That leaves a
// guesser its "right or wrong" answer during a block, so what makes guessing
// hopeless is the token's length (config/secrets.cpp refuses admin tokens
// under 32 bytes; event tokens are 32 random bytes); the block keeps the
// guessing loud and cheap to refuse, and the log bounded. Logs each failed
// login (admin_auth_failed: address, scope, failures in the window) and each
// block once, on its first refused request (admin_auth_blocked: address,
// scope, retry_after_s). Never logs the token, nor any part of what was sent.
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
  kUnauthorized,   // missing token (not counted) or wrong token (counted as a failed login): 401
  kTooMany,        // a wrong token from a blocked address: 429
};

struct AuthDecision {
  AuthOutcome outcome = AuthOutcome::kOk;
  int64_t retry_after_s = 0;  // kTooMany: seconds until the block ends (at least 1)
};

// The token of an "Authorization: Bearer <token>" value (scheme case-insensitive); "" when none.
std::string BearerToken(std::string_view authorization);

// Holds the digests of the tokens it was built with: AdminServer builds one
// per request from the config in force, so a reload rotates the tokens; the
// failed-login counts live in the LoginLimiter, which outlasts it.
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

// The decision for a credential that was presented and turned out wrong, in
// `scope`: kTooMany while `remote_addr` is blocked in that scope, else the
// failure is counted (and logged) and the decision is kUnauthorized.
AuthDecision RefuseWrongToken(LoginLimiter& limiter, const char* scope, const std::string& remote_addr);

// Writes the refusal for a decision that is not kOk: 503 {"error":"admin token
// not configured: …"}, 401 {"error":"unauthorized"} with WWW-Authenticate, or
// 429 {"error":"too many failed logins; retry later"} with Retry-After.
void ReplyRefusal(const AuthDecision& decision, httplib::Response& res);

}  // namespace hookinbox::admin
