// The http action: one POST per attempt through action/http_client.h.
#include "action/http_action.h"

#include <httplib.h>
#include <openssl/x509.h>
#include <time.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <nlohmann/json.hpp>

#include "action/connection_pool.h"
#include "action/destination_auth.h"
#include "action/http_client.h"
#include "action/standard_webhooks.h"
#include "action/sigpipe_guard.h"

namespace hookinbox::action {
namespace {

// Errors raised before a byte of the request left: the downstream cannot
// have acted, so a retry is always safe.
bool FailedBeforeSending(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection:
    case httplib::Error::BindIPAddress:
    case httplib::Error::SSLConnection:
    case httplib::Error::SSLLoadingCerts:
    case httplib::Error::SSLServerVerification:
    case httplib::Error::ConnectionTimeout:
      return true;
    default:
      return false;  // Read, Write and anything unexpected: it may have arrived
  }
}

// httplib's error name, plus why the certificate was refused when it was:
// "SSLServerVerification" alone reads the same for an unknown CA and a
// certificate for another host, and the operator must fix different things.
std::string FailureReason(httplib::Error error, long verify) {
  std::string why = httplib::to_string(error);
  if (verify > X509_V_OK) {  // -1: no TLS at all (an http:// URL), nothing was verified
    why += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
  } else if (error == httplib::Error::SSLServerVerification) {
    why += " (the certificate does not name the URL's host)";
  }
  return why;
}

// 409 only from a target that honours Idempotency-Key: there it means "a
// request with this key is still running" (Stripe's answer to a retry that
// overtakes the first attempt, e.g. after a crash), and a later retry gets
// the saved answer. Elsewhere a 409 is the downstream refusing the data.
bool IsTransientStatus(const config::ActionConfig& c, int status) {
  if (status == 409) return c.idempotent_target;
  return status == 408 || status == 425 || status == 429 || status >= 500;
}

Outcome Lost(const config::ActionConfig& c, std::string error) {
  Outcome o;
  o.sent = true;
  // Why: a request that arrived may have had its effect. Only a target that
  // deduplicates by Idempotency-Key makes sending it again harmless.
  o.verdict = c.idempotent_target ? Verdict::kTransient : Verdict::kUnknown;
  o.no_answer = NoAnswer::kLost;
  o.error = std::move(error);
  return o;
}

}  // namespace

HttpAction::HttpAction(config::ActionConfig config, const Clock& clock) : config_(std::move(config)), clock_(clock) {
  if (config_.idempotent_target) pool_ = std::make_unique<ConnectionPool>(config_, config_.url);
}

HttpAction::~HttpAction() = default;

Outcome HttpAction::Run(const ActionInput& in) {
  SigpipeGuard sigpipe_guard;  // a reset TLS connection raises SIGPIPE on write
  ConnectionPool::Taken conn = pool_ ? pool_->Take() : ConnectionPool::Taken{ClientFor(config_, config_.url), false};

  const int64_t now_ms = clock_.NowMs();
  const int64_t timestamp = now_ms / 1000;
  httplib::Headers headers = {
      {"Idempotency-Key", in.idempotency_key},
      {"X-Hookinbox-Event-Id", in.event_id},
      {"X-Hookinbox-Event-Type", in.event_type},
      {"X-Hookinbox-Attempt", std::to_string(in.attempt)},
      {"webhook-id", in.idempotency_key},
      {"webhook-timestamp", std::to_string(timestamp)},
      {"webhook-signature", StandardWebhooksSignature(config_.forward_secret.bytes(), in.idempotency_key, timestamp, in.body)},
  };
  if (!in.token.empty()) headers.emplace("X-Hookinbox-Token", in.token);
  // Where the token is presented: the handler API's base ("…/v1"), as an exec
  // command gets it in HOOKINBOX_API.
  if (!in.api_base.empty()) headers.emplace("X-Hookinbox-Api", in.api_base);
  AddDestinationAuth(config_, headers);
  if (in.probe) headers.emplace("X-Hookinbox-Probe", "idempotency-check");
  const std::string content_type = in.content_type.empty() ? "application/octet-stream" : in.content_type;

  const auto sent_at = std::chrono::steady_clock::now();
  httplib::Result res = conn.out.client->Post(conn.out.path.c_str(), headers, in.body, content_type.c_str());
  // A kept-alive connection the downstream closed while it was idle fails at
  // once, possibly after the request was written: it goes again on a new
  // connection. Harmless: there is a pool only for a target that
  // deduplicates by Idempotency-Key. A slow answer is not retried.
  const auto stale_within = std::chrono::milliseconds(std::min<int64_t>(config_.timeout_ms / 2, 1000));
  if (!res && conn.reused && std::chrono::steady_clock::now() - sent_at < stale_within) {
    conn = ConnectionPool::Taken{pool_->Fresh(), false};
    res = conn.out.client->Post(conn.out.path.c_str(), headers, in.body, content_type.c_str());
  }
  if (!res) {
    const httplib::Error e = res.error();
    const long verify = conn.out.client->get_openssl_verify_result();
    if (FailedBeforeSending(e)) {
      Outcome o;
      o.verdict = Verdict::kTransient;
      o.no_answer = e == httplib::Error::ConnectionTimeout ? NoAnswer::kTimedOut : NoAnswer::kNotSent;
      o.error = "not sent: " + FailureReason(e, verify);
      return o;
    }
    return Lost(config_, "no answer: " + FailureReason(e, verify));
  }

  if (pool_ && res->get_header_value("Connection") != "close") pool_->Give(std::move(conn.out));
  Outcome o;
  o.sent = true;
  o.http_status = res->status;
  o.replayed = res->get_header_value("Idempotent-Replayed") == "true";
  if (res->status >= 200 && res->status < 300) {
    o.verdict = Verdict::kSuccess;
    o.result_ref = ResultRefOf(config_, *res);
    o.started = config_.async && res->status == 202;
    return o;
  }
  o.error = "HTTP " + std::to_string(res->status);
  if (IsTransientStatus(config_, res->status)) {
    o.verdict = Verdict::kTransient;
    if (res->has_header("Retry-After")) {
      o.retry_after_ms = ParseRetryAfter(res->get_header_value("Retry-After"), clock_.NowMs());
    }
  } else {
    o.verdict = Verdict::kPermanent;  // other 4xx: bad data is not retried; 3xx: redirects are not followed
  }
  return o;
}

std::optional<int64_t> ParseRetryAfter(std::string_view value, int64_t now_ms) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (value.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t seconds = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;  // overflow
    constexpr int64_t kMaxSeconds = int64_t{1} << 40;  // keeps the product far from overflow
    return std::min(seconds, kMaxSeconds) * 1000;
  }
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
  const std::string text(value);
  struct tm tm = {};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const int64_t at_ms = static_cast<int64_t>(timegm(&tm)) * 1000;
  return at_ms > now_ms ? at_ms - now_ms : 0;
}

}  // namespace hookinbox::action
