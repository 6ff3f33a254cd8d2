#include "admin/auth.h"

#include <cctype>

#include "common/digest.h"
#include "common/log.h"
#include "http/respond.h"

namespace hookinbox::admin {

std::string BearerToken(std::string_view value) {
  constexpr std::string_view kScheme = "bearer ";
  if (value.size() < kScheme.size()) return "";
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(value[i])) != kScheme[i]) return "";
  }
  size_t start = value.find_first_not_of(' ', kScheme.size());
  if (start == std::string_view::npos) return "";
  size_t end = value.find_last_not_of(' ');
  return std::string(value.substr(start, end + 1 - start));
}

AdminAuth::AdminAuth(const Secret& admin_token, const Secret& metrics_token, LoginLimiter& limiter)
    : limiter_(limiter) {
  if (!admin_token.empty()) admin_digest_ = Sha256(admin_token.bytes());
  if (!metrics_token.empty()) metrics_digest_ = Sha256(metrics_token.bytes());
}

AuthDecision AdminAuth::CheckAdmin(std::string_view authorization, const std::string& remote_addr) {
  if (admin_digest_.empty()) return {AuthOutcome::kNotConfigured, 0};
  return Check(admin_digest_, "admin", authorization, remote_addr);
}

AuthDecision AdminAuth::CheckMetrics(std::string_view authorization, const std::string& remote_addr) {
  if (metrics_digest_.empty()) return {AuthOutcome::kOk, 0};
  return Check(metrics_digest_, "metrics", authorization, remote_addr);
}

// The right token wins whatever the address's state; a missing one is a
// plain 401 that nobody's limit pays for.
AuthDecision AdminAuth::Check(const std::string& want_digest, const char* scope, std::string_view authorization,
                              const std::string& remote_addr) {
  if (authorization.empty()) return {AuthOutcome::kUnauthorized, 0};
  // Digests of equal length: the compare's time depends on nothing sent.
  const std::string got = Sha256(BearerToken(authorization));
  if (ConstantTimeEqual(got, want_digest)) return {AuthOutcome::kOk, 0};
  return RefuseWrongToken(limiter_, scope, remote_addr);
}

// Each failure is logged (the limiter caps them at kMaxFailures a window per
// address and scope); a block only on its first refused request, so a client
// hammering a blocked address cannot fill the log. Neither line carries what was sent.
AuthDecision RefuseWrongToken(LoginLimiter& limiter, const char* scope, const std::string& remote_addr) {
  // One limiter, keyed per scope: failures against /metrics never block /admin/api.
  const std::string key = std::string(scope) + " " + remote_addr;
  bool first_refusal = false;
  if (int64_t wait_ms = limiter.BlockedForMs(key, &first_refusal); wait_ms > 0) {
    const int64_t retry_after_s = (wait_ms + 999) / 1000;
    if (first_refusal) {
      log::Warn("admin_auth_blocked",
                {{"remote_addr", remote_addr}, {"scope", scope}, {"retry_after_s", retry_after_s}});
    }
    return {AuthOutcome::kTooMany, retry_after_s};
  }
  const int failures = limiter.RecordFailure(key);
  log::Warn("admin_auth_failed", {{"remote_addr", remote_addr}, {"scope", scope}, {"failures", failures}});
  return {AuthOutcome::kUnauthorized, 0};
}

void ReplyRefusal(const AuthDecision& decision, httplib::Response& res) {
  switch (decision.outcome) {
    case AuthOutcome::kOk: return;
    case AuthOutcome::kNotConfigured:
      http::ReplyJson(res, http::HttpStatusFor(Code::kUnavailable),
                      R"({"error":"admin token not configured: set admin.token_env or admin.token_file"})");
      return;
    case AuthOutcome::kUnauthorized:
      http::ReplyError(res, Unauthenticated("admin token"));
      res.set_header("WWW-Authenticate", "Bearer");
      return;
    case AuthOutcome::kTooMany:
      http::ReplyJson(res, kHttpTooManyRequests, R"({"error":"too many failed logins; retry later"})");
      res.set_header("Retry-After", std::to_string(decision.retry_after_s));
      return;
  }
}

}  // namespace hookinbox::admin
