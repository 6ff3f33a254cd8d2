// The handler's end of an asynchronous attempt (admin/handler_api.h):
// POST /v1/events/complete|fail|unknown and /v1/events/renew.
//
// An end is what the worker would have recorded had the action answered so
// at once: complete as a 2xx, fail as a transient failure (backoff, or
// dead_lettered at max_attempts or the retry horizon, worker/policy.h),
// unknown as an answer lost after sending. The worker's own mapping,
// metrics and log line (worker/attempt_end.h) run here under the config in
// force, the record in the store (Ledger::EndAttempt) by the worker's own
// path. The handler's texts (result_ref, error) are stored, never logged:
// they may carry anything.
#include <nlohmann/json.hpp>

#include "admin/api_json.h"
#include "admin/handler_api.h"
#include "http/respond.h"
#include "worker/attempt_end.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;

// The longest lease one renewal may ask for: a handler that needs longer renews again.
constexpr int64_t kMaxRenewSeconds = 86400;
// The longest retry_after_seconds a fail may ask for (the backoff cap still applies).
constexpr int64_t kMaxRetryAfterSeconds = 86400 * 30;

// InvalidArgument naming the first member of `body` not in `known`: a typo
// ("retry_after") would otherwise be ignored without a word.
Status OnlyMembers(const json& body, std::initializer_list<const char*> known) {
  for (const auto& [name, value] : body.items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || name == k;
    if (ok) continue;
    std::string list;
    for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
    return InvalidArgument("unknown member \"" + name + "\"" +
                           (list.empty() ? "; send no body" : "; expected " + list));
  }
  return Status::Ok();
}

// A whole number member in [min, max], or nullopt when absent.
Result<std::optional<int64_t>> IntMember(const json& body, const char* name, int64_t min, int64_t max) {
  auto it = body.find(name);
  if (it == body.end()) return std::optional<int64_t>();
  if (!it->is_number_integer() || it->get<int64_t>() < min || it->get<int64_t>() > max) {
    return InvalidArgument(std::string(name) + " must be a whole number from " + std::to_string(min) + " to " +
                           std::to_string(max));
  }
  return std::optional<int64_t>(it->get<int64_t>());
}

// The handler's text member (result_ref or error), bounded like the ledger's.
Result<std::string> TextMember(const json& body, const char* name) {
  auto text = StringMember(body, name, false);
  if (!text.ok()) return text;
  if (text->size() > store::kMaxLedgerTextBytes) {
    return InvalidArgument(std::string(name) + " is over " + std::to_string(store::kMaxLedgerTextBytes) + " bytes");
  }
  return text;
}

// What the handler reported, as the action's outcome the policy maps.
Result<action::Outcome> OutcomeOf(const json& body, const std::string& verb) {
  action::Outcome o;
  o.sent = true;
  if (verb == "complete") {
    if (Status st = OnlyMembers(body, {"result_ref"}); !st.ok()) return st;
    auto ref = TextMember(body, "result_ref");
    if (!ref.ok()) return ref.status();
    o.verdict = action::Verdict::kSuccess;
    o.result_ref = *ref;
    return o;
  }
  const bool fail = verb == "fail";
  if (Status st = fail ? OnlyMembers(body, {"error", "retry_after_seconds"}) : OnlyMembers(body, {"error"}); !st.ok()) {
    return st;
  }
  auto error = TextMember(body, "error");
  if (!error.ok()) return error.status();
  o.verdict = fail ? action::Verdict::kTransient : action::Verdict::kUnknown;
  o.error = "handler: " + (error->empty() ? std::string(fail ? "failed" : "outcome unknown") : *error);
  if (fail) {
    auto after = IntMember(body, "retry_after_seconds", 0, kMaxRetryAfterSeconds);
    if (!after.ok()) return after.status();
    if (*after) o.retry_after_ms = **after * 1000;
  }
  return o;
}

// The answer to an end: the state the event moved to, and what goes with it.
json EndAnswer(const store::HandlerGrant& grant, const store::AttemptResult& r) {
  json answer{{"status", store::AttemptOutcomeName(r.outcome)}, {"id", grant.inbox_id}, {"attempt", grant.attempt}};
  if (r.outcome == store::AttemptOutcome::kCompleted) answer["result_ref"] = r.result_ref;
  if (r.outcome == store::AttemptOutcome::kRetryableFailed) {
    answer["next_attempt_at"] = IsoTime(r.next_attempt_at_ms);
    answer["next_attempt_at_ms"] = r.next_attempt_at_ms;
  }
  return answer;
}

// The grant's event as the worker's record of an attempt sees it: what
// worker::MapAttemptEnd and worker::ReportAttemptEnd read.
store::LeasedEvent EventOf(const store::HandlerGrant& grant) {
  store::LeasedEvent event;
  event.id = grant.inbox_id;
  event.provider = grant.provider;
  event.endpoint = grant.endpoint;
  event.tenant_id = grant.tenant_id;
  event.event_id = grant.event_id;
  event.attempt = grant.attempt;
  event.retry_window_start_ms = grant.retry_window_start_ms;
  return event;
}

// Conflict unless the attempt is the handler's to end or renew: handed over
// (a 202 on async), or of an endpoint with action.async (a handler may call
// before the worker read its 202). A synchronous attempt ends with its
// action's answer; a handler ending it too would race the worker's record.
// An attempt already handed over stays the handler's after a reload turned async off.
Status MayEndAttempt(const store::HandlerGrant& grant, const config::EndpointConfig* endpoint) {
  if (grant.handed_over || (endpoint != nullptr && endpoint->action.async)) return Status::Ok();
  return Status(Code::kConflict, "endpoint " + grant.endpoint +
                                     " is not async (action.async = true): its attempt ends with the action's answer");
}

}  // namespace

void HandlerApi::EndAttempt(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant,
                            const std::string& verb) const {
  auto body = ParseJsonObject(req.body, true);
  if (!body.ok()) return http::ReplyError(res, body.status());
  auto outcome = OutcomeOf(*body, verb);
  if (!outcome.ok()) return http::ReplyError(res, outcome.status());
  const std::shared_ptr<const config::Config> config = live_.Current();
  const config::EndpointConfig* endpoint = config->FindEndpoint(grant.endpoint);
  if (Status st = MayEndAttempt(grant, endpoint); !st.ok()) return http::ReplyError(res, st);
  const store::LeasedEvent event = EventOf(grant);
  store::AttemptResult r = worker::MapAttemptEnd(*config, event, *outcome, std::nullopt, clock_.NowMs());
  r.http_status.reset();  // no HTTP answer decided it: the handler did
  if (Status st = ledger_.EndAttempt(grant, r); !st.ok()) return http::ReplyError(res, st);
  worker::ReportAttemptEnd(worker::EndedBy::kHandler, event, *outcome, std::nullopt, r);
  http::ReplyJson(res, 200, EndAnswer(grant, r).dump());
}

void HandlerApi::RenewAttempt(const httplib::Request& req, httplib::Response& res,
                              const store::HandlerGrant& grant) const {
  auto body = ParseJsonObject(req.body, true);
  if (!body.ok()) return http::ReplyError(res, body.status());
  if (Status st = OnlyMembers(*body, {"lease_seconds"}); !st.ok()) return http::ReplyError(res, st);
  auto asked = IntMember(*body, "lease_seconds", 1, kMaxRenewSeconds);
  if (!asked.ok()) return http::ReplyError(res, asked.status());
  const std::shared_ptr<const config::Config> config = live_.Current();
  if (Status st = MayEndAttempt(grant, config->FindEndpoint(grant.endpoint)); !st.ok()) {
    return http::ReplyError(res, st);
  }
  const int64_t seconds = asked->value_or(int64_t{config->worker.lease_seconds});
  const int64_t now_ms = clock_.NowMs();
  const int64_t until_ms = now_ms + seconds * 1000;
  if (Status st = ledger_.RenewAttempt(grant, until_ms, now_ms); !st.ok()) return http::ReplyError(res, st);
  http::ReplyJson(res, 200,
                  json{{"status", "renewed"},
                       {"lease_until", IsoTime(until_ms)},
                       {"lease_until_ms", until_ms},
                       {"lease_seconds", seconds}}
                      .dump());
}

}  // namespace hookinbox::admin
