#include "admin/handler_api.h"

#include <nlohmann/json.hpp>

#include "admin/api_json.h"
#include "admin/auth.h"
#include "admin/routes.h"
#include "common/metrics.h"
#include "http/request_gate.h"
#include "http/request_view.h"
#include "http/respond.h"

namespace hookinbox::admin {
namespace {

using nlohmann::json;

constexpr size_t kMaxContentTypeBytes = 255;
constexpr const char* kDefaultStepType = "application/octet-stream";
// The refusal of a token hookinbox issued for an attempt that is over: the
// handler is late, not guessing, so it hears why (and stops retrying) and is
// never counted as a failed login.
Status AttemptEnded() {
  return Status(Code::kConflict,
                "attempt ended: this token's attempt is no longer running: it already ended, a later attempt "
                "replaced it, the event was replayed, or its lease lapsed");
}

// The answer to a refusal; a 401 also says which scheme would be accepted.
void ReplyFailure(httplib::Response& res, const Status& st) {
  if (store::IsExpiredToken(st)) return http::ReplyError(res, AttemptEnded());
  http::ReplyError(res, st);
  if (st.code() == Code::kUnauthenticated) res.set_header("WWW-Authenticate", "Bearer");
}

Status CheckContentType(const std::string& type) {
  if (type.size() > kMaxContentTypeBytes) return InvalidArgument("Content-Type is too long");
  for (unsigned char c : type) {
    if (c < 0x20 || c == 0x7f) return InvalidArgument("Content-Type contains a control character");
  }
  return Status::Ok();
}

store::EffectEnd EndOf(const std::string& action) {
  if (action == "complete") return store::EffectEnd::kDone;
  if (action == "fail") return store::EffectEnd::kFailed;
  return store::EffectEnd::kUnknown;
}

}  // namespace

bool HandlerApi::Precheck(const httplib::Request& req, httplib::Response& res) const {
  // Each refusal here comes before the body is read: AnswerUnread ends the
  // connection when one was declared, so its bytes are never parsed as a request.
  AdminRoute route = MatchAdminRoute(req.path);
  if (route.id == RouteId::kNone) {
    http::AnswerUnread(req, res, NotFound("no such route"));
  } else if (!MethodAllowed(route, req.method)) {
    http::AnswerUnread(req, res, NotAllowed(std::string("method not allowed; use ") + route.allow));
    res.set_header("Allow", route.allow);
  } else if (req.get_header_value<uint64_t>("Content-Length") > static_cast<uint64_t>(kAdminDrainLimit)) {
    http::AnswerUnread(req, res, TooLarge("body is over " + std::to_string(route.max_body) + " bytes"));
  } else {
    // Smaller bodies are read with the route's cap (AdminServer::Route, which
    // drains the rest up to kAdminDrainLimit), so the client reads our answer
    // instead of a reset connection.
    return false;
  }
  return true;
}

// The body was read by AdminServer with this route's cap (http::ReadCappedBody).
void HandlerApi::Handle(const httplib::Request& req, httplib::Response& res) const {
  AdminRoute route = MatchAdminRoute(req.path);
  std::optional<store::HandlerGrant> grant = Authenticate(req, res);
  if (!grant) return;
  switch (route.id) {
    case RouteId::kAttemptEnd: EndAttempt(req, res, *grant, route.action); break;
    case RouteId::kAttemptRenew: RenewAttempt(req, res, *grant); break;
    case RouteId::kEffectClaim: ClaimEffect(req, res, *grant); break;
    case RouteId::kEffectEnd: EndEffect(req, res, *grant, route.param, route.action); break;
    case RouteId::kStep:
      if (req.method == "PUT") {
        PutStep(req, res, *grant, route.param);
      } else {
        GetStep(res, *grant, route.param);
      }
      break;
    default: http::ReplyError(res, NotFound("no such route")); break;
  }
}

std::optional<store::HandlerGrant> HandlerApi::Authenticate(const httplib::Request& req, httplib::Response& res) const {
  const std::string authorization = req.get_header_value("Authorization");
  auto grant = ledger_.Authenticate(BearerToken(authorization), clock_.NowMs());
  if (grant.ok()) return *grant;
  const bool guessed = grant.status().code() == Code::kUnauthenticated && !authorization.empty() &&
                       !store::IsExpiredToken(grant.status());
  if (guessed) {
    ReplyRefusal(RefuseWrongToken(limiter_, "handler", req.remote_addr), res);
  } else {
    ReplyFailure(res, grant.status());
  }
  return std::nullopt;
}

void HandlerApi::ClaimEffect(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant) const {
  auto body = ParseJsonObject(req.body, false);
  if (!body.ok()) return http::ReplyError(res, body.status());
  auto key = StringMember(*body, "key", true);
  if (!key.ok()) return http::ReplyError(res, key.status());
  auto claim = ledger_.ClaimEffect(grant, *key, clock_.NowMs());
  if (!claim.ok()) return ReplyFailure(res, claim.status());
  const char* state = store::EffectClaimStateName(claim->state);
  switch (claim->state) {
    case store::EffectClaimState::kClaimed: http::ReplyJson(res, 201, json{{"status", state}}.dump()); break;
    case store::EffectClaimState::kDone:
      // A repeat refused: the point of the ledger, and worth seeing when a
      // handler keeps asking (a retry loop upstream of it).
      metrics::Registry::Default().Add(metrics::kEffectsAlreadyDoneTotal, {});
      http::ReplyJson(res, 200, json{{"status", state}, {"external_ref", claim->external_ref}}.dump());
      break;
    case store::EffectClaimState::kInProgress:
    case store::EffectClaimState::kUnknown:
      http::ReplyJson(res, http::HttpStatusFor(Code::kConflict), json{{"status", state}}.dump());
      break;
  }
}

void HandlerApi::EndEffect(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant,
                           const std::string& key, const std::string& action) const {
  auto body = ParseJsonObject(req.body, true);
  if (!body.ok()) return http::ReplyError(res, body.status());
  store::EffectEnd end = EndOf(action);
  auto detail = StringMember(*body, end == store::EffectEnd::kDone ? "external_ref" : "error", false);
  if (!detail.ok()) return http::ReplyError(res, detail.status());
  Status st = ledger_.EndEffect(grant, key, end, *detail, clock_.NowMs());
  if (!st.ok()) return ReplyFailure(res, st);
  json answer{{"status", store::EffectEndName(end)}};
  if (end == store::EffectEnd::kDone) answer["external_ref"] = *detail;
  http::ReplyJson(res, 200, answer.dump());
}

void HandlerApi::PutStep(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant,
                         const std::string& name) const {
  std::string type = req.get_header_value("Content-Type");
  // A multipart type carries the blank http::KeepMultipartRaw put before it
  // to keep the library's part parser away; the stored type is as sent.
  type.erase(0, type.find_first_not_of(' '));
  if (type.empty()) type = kDefaultStepType;
  if (Status st = CheckContentType(type); !st.ok()) return http::ReplyError(res, st);
  Status st = ledger_.PutStep(grant, name, type, req.body, clock_.NowMs());
  if (!st.ok()) return ReplyFailure(res, st);
  http::ReplyJson(res, 200, json{{"status", "stored"}, {"bytes", req.body.size()}}.dump());
}

void HandlerApi::GetStep(httplib::Response& res, const store::HandlerGrant& grant, const std::string& name) const {
  auto step = ledger_.GetStep(grant, name, clock_.NowMs());
  if (!step.ok()) return ReplyFailure(res, step.status());
  if (!step->has_value()) return http::ReplyError(res, NotFound("no such step"));
  res.status = 200;
  res.set_content((*step)->body, (*step)->content_type.c_str());
}

}  // namespace hookinbox::admin
