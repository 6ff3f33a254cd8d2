// admin/handler_api.h — the handler API (/v1, SPEC §9 "Handler API"): what
// a running action calls, with its event's token, to claim side effects and
// keep step results (store/ledger.h holds the rules), and — for an async
// action that answered 202 (action.async) — to end its attempt
// (/v1/events/complete|fail|unknown) or renew its lease (/v1/events/renew).
// An end is recorded exactly as the worker records one (Ledger::EndAttempt)
// with the worker's policy (worker/policy.h) under the config in force. A
// token whose attempt is over (ended, replaced by a later attempt, replayed,
// lease lapsed) gets 409 on every /v1 route: the handler is late, not guessing.
//
// Owns: request checks (route, method, size, bearer token, JSON body) and
// the answers. Unknown or malformed tokens count as failed logins in the
// "handler" scope of its own login limiter (auth.h): 10 a minute from one
// address and further wrong tokens get 429, while a live token is always
// accepted — every handler on the host shares 127.0.0.1. A token hookinbox
// issued for an attempt that is over is a late handler, not a guess, and is
// not counted (the attempt rows keep each token's hash). Every refusal
// is a 4xx {"error": …} written before anything is stored. Never logs
// tokens, effect keys, step names or bodies: a key like
// "notify:<event>:<email>" may carry personal data.
// Thread-safety: handlers run on the listener's pool; the Ledger is thread-safe.
#pragma once

#include <httplib.h>

#include <optional>

#include "admin/login_limiter.h"
#include "common/clock.h"
#include "config/live.h"
#include "store/ledger.h"

namespace hookinbox::admin {

class HandlerApi {
 public:
  // `live` (the config in force: retry schedule, lease length) must outlive it.
  HandlerApi(store::Ledger& ledger, const config::LiveConfig& live, const Clock& clock)
      : ledger_(ledger), live_(live), clock_(clock), limiter_(clock) {}

  // Answers requests the path, method or an absurd declared size already
  // rule out (404, 405, 413) before the body is read; true when it answered.
  bool Precheck(const httplib::Request& req, httplib::Response& res) const;
  // Handles a request Precheck let through, its body read.
  void Handle(const httplib::Request& req, httplib::Response& res) const;

 private:
  void ClaimEffect(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant) const;
  void EndEffect(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant,
                 const std::string& key, const std::string& action) const;
  void PutStep(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant,
               const std::string& name) const;
  void GetStep(httplib::Response& res, const store::HandlerGrant& grant, const std::string& name) const;

  // /v1/events/complete|fail|unknown (handler_attempt.cpp).
  void EndAttempt(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant,
                  const std::string& verb) const;
  // /v1/events/renew (handler_attempt.cpp).
  void RenewAttempt(const httplib::Request& req, httplib::Response& res, const store::HandlerGrant& grant) const;

  // The grant of the request's bearer token, or the refusal already written
  // to `res`: 409 for a token issued for an attempt that is over, 401 (and
  // a failed login counted) for one hookinbox never issued.
  std::optional<store::HandlerGrant> Authenticate(const httplib::Request& req, httplib::Response& res) const;

  store::Ledger& ledger_;
  const config::LiveConfig& live_;
  const Clock& clock_;
  mutable LoginLimiter limiter_;  // failed handler logins; thread-safe
};

}  // namespace hookinbox::admin
