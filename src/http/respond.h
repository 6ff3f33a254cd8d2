// http/respond.h — the one place a Status becomes an HTTP answer.
//
// Handlers never write literal 4xx/5xx numbers: they return a Status and
// call Reply*. 401 bodies never say why (that goes to the audit row only).
#pragma once

#include <httplib.h>

#include <string>

#include "common/status.h"

namespace hookinbox::http {

// The HTTP status for a non-ok Status code (SPEC §3 response table).
int HttpStatusFor(Code code);

// Writes {"error": "..."} with the mapped status. For kUnauthenticated the
// message is replaced by a generic "unauthorized".
void ReplyError(httplib::Response& res, const Status& status);

// Writes a JSON body with `http_status`.
void ReplyJson(httplib::Response& res, int http_status, const std::string& json);

// A server's exception handler: logs `log_event` with the exception's
// message (never the request) and answers 500 {"error":"internal error"}.
void ReplyToException(const char* log_event, httplib::Response& res, std::exception_ptr ep);

}  // namespace hookinbox::http
