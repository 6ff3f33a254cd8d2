#include "http/respond.h"

#include <nlohmann/json.hpp>

#include "common/log.h"

namespace hookinbox::http {

int HttpStatusFor(Code code) {
  switch (code) {
    case Code::kOk: return 200;
    case Code::kInvalidArgument: return 400;
    case Code::kUnauthenticated: return 401;
    case Code::kNotFound: return 404;
    case Code::kNotAllowed: return 405;
    case Code::kTooLarge: return 413;
    case Code::kUnsupported: return 415;
    case Code::kRejected: return 422;
    case Code::kConflict: return 409;
    // Storage trouble: the provider must retry later; nothing was half-written.
    case Code::kUnavailable: return 503;
    case Code::kInternal: return 500;
  }
  return 500;
}

void ReplyJson(httplib::Response& res, int http_status, const std::string& json) {
  res.status = http_status;
  res.set_content(json, "application/json");
}

void ReplyError(httplib::Response& res, const Status& status) {
  // An attacker learns nothing from a 401 beyond "no": which check failed is
  // recorded in the delivery's audit row for the admin instead.
  // Storage and internal failures are logged in detail; the caller only
  // needs to know whether to retry.
  std::string message = status.message();
  if (status.code() == Code::kUnauthenticated) message = "unauthorized";
  if (status.code() == Code::kUnavailable) message = "storage unavailable; retry later";
  if (status.code() == Code::kInternal) message = "internal error";
  // Messages may quote what the sender wrote (a Content-Encoding): invalid
  // UTF-8 there is replaced, never thrown (it was a 500: fuzz_receive,
  // tests/fuzz/regress/fuzz_receive/content-encoding-invalid-utf8).
  ReplyJson(res, HttpStatusFor(status.code()),
            nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (status.code() == Code::kNotAllowed) res.set_header("Allow", "POST");
  if (status.code() == Code::kUnavailable) res.set_header("Retry-After", "5");
}

void ReplyToException(const char* log_event, httplib::Response& res, std::exception_ptr ep) {
  std::string what = "unknown";
  try {
    if (ep) std::rethrow_exception(ep);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  log::Error(log_event, {{"error", what}});
  ReplyError(res, Internal("internal error"));
}

}  // namespace hookinbox::http
