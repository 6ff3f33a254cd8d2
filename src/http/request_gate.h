// http/request_gate.h — what every route of both listeners decides from the request line and headers alone.
//
// Why: cpp-httplib 0.11.4 reads (and inflates, for gzip and deflate) a body
// before it routes a request to a plain handler, with no cap on chunked or
// decompressed bytes: a 194 KB gzip of zeros became 200 MB before a 404. So
// every listener's pre-routing handler first runs AnswerUnreadable, every
// route that takes a body reads it through ReadCappedBody (never the
// library's own reading), and an answer given before the body was read
// closes the connection, so the unread bytes are never parsed as a request.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <string>

#include "common/status.h"

namespace hookinbox::http {

// Ok, or why the request's framing cannot be trusted (400): a repeated or
// non-decimal Content-Length, a Transfer-Encoding other than exactly
// "chunked", or both Content-Length and Transfer-Encoding.
Status CheckFraming(const httplib::Request& req);

// Ok, or Unsupported (415) for a Content-Encoding other than identity: no
// route takes a compressed body (the library would inflate it unbounded,
// and signatures are over the bytes on the wire).
Status CheckContentEncoding(const httplib::Request& req);

// True when the request announces a body: a Content-Length above 0 or a
// Transfer-Encoding. Without either a request has no body (RFC 9112 6.3).
bool DeclaresBody(const httplib::Request& req);

// True for the methods whose body the library reads (POST, PUT, PATCH,
// DELETE); any other method's body it leaves on the connection.
bool TakesBody(const std::string& method);

// Answers a request whose framing or encoding is refused, or that carries a
// body its method does not take (and closes the connection); false, with
// nothing written, when the request may go on. Drops any Range.
bool AnswerUnreadable(const httplib::Request& req, httplib::Response& res);

// Answers `status` and, when the request declared a body that was not read,
// closes the connection after the answer.
void AnswerUnread(const httplib::Request& req, httplib::Response& res, const Status& status);

// Ends the connection once `res` is sent (http::CloseAfterResponse), HEAD
// requests included.
void CloseAfterRequest(const httplib::Request& req, httplib::Response& res);

// cpp-httplib reads a multipart/form-data body only through its own part
// parser: a plain reader (ReadCappedBody, a drain) throws
// std::bad_function_call, and the exact bytes a signature covers are lost.
// Its test for that type is a case-sensitive prefix match on the header
// value, so a leading space (which the media-type readers trim) makes it hand
// over the raw bytes. Idempotent. The library passes the Request as const;
// the object itself is not.
void KeepMultipartRaw(const httplib::Request& req);

// Reads the body through `reader`, keeping at most `limit` bytes (chunked
// bodies declare no length up front): past it the answer is TooLarge, and
// reading stops — or, up to `drain_limit` bytes in all, goes on without
// keeping anything, so that a client still sending reads the answer rather
// than a reset. A request that declares no body is an empty body and
// `reader` is not called. `fully_read` says whether the connection can carry
// another request: never after a chunked body.
Result<std::string> ReadCappedBody(const httplib::Request& req, const httplib::ContentReader& reader,
                                   int64_t limit, bool* fully_read, int64_t drain_limit = 0);

}  // namespace hookinbox::http
