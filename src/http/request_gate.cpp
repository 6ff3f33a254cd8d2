#include "http/request_gate.h"

#include "http/request_view.h"
#include "http/respond.h"

namespace hookinbox::http {
namespace {

size_t CountHeader(const httplib::Request& req, const char* name) { return req.get_header_value_count(name); }

std::string Lower(std::string value) {
  for (char& c : value) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return value;
}

// The header's value without surrounding blanks, lower-cased.
std::string Token(const std::string& value) {
  size_t b = value.find_first_not_of(" \t");
  size_t e = value.find_last_not_of(" \t");
  return Lower(b == std::string::npos ? "" : value.substr(b, e - b + 1));
}

}  // namespace

Status CheckFraming(const httplib::Request& req) {
  size_t lengths = CountHeader(req, "Content-Length");
  size_t encodings = CountHeader(req, "Transfer-Encoding");
  if (lengths > 1) return InvalidArgument("Content-Length is repeated");
  if (lengths == 1 && !DeclaredLength(req)) return InvalidArgument("Content-Length must be a decimal number of bytes");
  // Compared as the library compares it (case aside, no blanks trimmed): a
  // value it would not read as chunked must not pass as chunked here.
  if (encodings > 1 || (encodings == 1 && Lower(req.get_header_value("Transfer-Encoding")) != "chunked")) {
    return InvalidArgument("Transfer-Encoding must be exactly \"chunked\"");
  }
  if (lengths == 1 && encodings == 1) return InvalidArgument("Content-Length and Transfer-Encoding together");
  return Status::Ok();
}

Status CheckContentEncoding(const httplib::Request& req) {
  size_t n = CountHeader(req, "Content-Encoding");
  for (size_t i = 0; i < n; ++i) {
    std::string coding = Token(req.get_header_value("Content-Encoding", i));
    if (!coding.empty() && coding != "identity") {
      // The value is not quoted back: stripped of blanks it could rebuild text
      // the sender split on purpose (a secret split by a tab).
      return Unsupported("this Content-Encoding is not accepted; send the body uncompressed (identity)");
    }
  }
  return Status::Ok();
}

bool DeclaresBody(const httplib::Request& req) {
  return req.has_header("Transfer-Encoding") || DeclaredLength(req).value_or(0) > 0 ||
         (req.has_header("Content-Length") && !DeclaredLength(req));
}

bool AnswerUnreadable(const httplib::Request& req, httplib::Response& res) {
  // The library honours Range on every answer, errors included, one copy of
  // the body per range: an 8 KiB Range header made a 70 MB answer of a
  // 100 KB file. No route serves partial content, so Range is ignored, as
  // RFC 9110 14.2 allows.
  const_cast<httplib::Request&>(req).ranges.clear();
  if (Status st = CheckFraming(req); !st.ok()) {
    ReplyError(res, st);
    CloseAfterRequest(req, res);  // where this request ends is unknown: nothing after it can be trusted
    return true;
  }
  if (Status st = CheckContentEncoding(req); !st.ok()) {
    AnswerUnread(req, res, st);
    return true;
  }
  if (!TakesBody(req.method) && DeclaresBody(req)) {
    // The library would leave the body on the connection, to be parsed as
    // the next request (request smuggling).
    AnswerUnread(req, res, InvalidArgument("a " + req.method.substr(0, 16) + " request carries no body"));
    return true;
  }
  return false;
}

bool TakesBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

void AnswerUnread(const httplib::Request& req, httplib::Response& res, const Status& status) {
  ReplyError(res, status);
  if (DeclaresBody(req)) CloseAfterRequest(req, res);
}

void CloseAfterRequest(const httplib::Request& req, httplib::Response& res) {
  // A HEAD answer has no body, so the library never runs the failing
  // provider that ends the connection: answered as a GET, it does.
  if (req.method == "HEAD") const_cast<httplib::Request&>(req).method = "GET";
  CloseAfterResponse(res);
}

void KeepMultipartRaw(const httplib::Request& req) {
  auto [first, last] = req.headers.equal_range("Content-Type");
  for (auto it = first; it != last; ++it) {
    if (it->second.rfind("multipart/form-data", 0) == 0) const_cast<std::string&>(it->second).insert(0, " ");
  }
}

Result<std::string> ReadCappedBody(const httplib::Request& req, const httplib::ContentReader& reader,
                                   int64_t limit, bool* fully_read, int64_t drain_limit) {
  *fully_read = true;
  if (!DeclaresBody(req)) return std::string();
  KeepMultipartRaw(req);
  std::string body;
  const uint64_t declared = DeclaredLength(req).value_or(0);
  bool too_large = declared > static_cast<uint64_t>(limit);
  if (too_large && declared > static_cast<uint64_t>(drain_limit)) {
    *fully_read = false;  // not worth reading only to say no
    return TooLarge("body exceeds " + std::to_string(limit) + " bytes");
  }
  uint64_t seen = 0;
  bool ok = reader([&](const char* data, size_t n) {
    seen += n;
    if (!too_large && seen <= static_cast<uint64_t>(limit)) {
      body.append(data, n);
      return true;
    }
    if (!too_large) std::string().swap(body);
    too_large = true;
    return seen <= static_cast<uint64_t>(drain_limit);
  });
  // The library ends a chunked body at a malformed chunk as if it were the
  // last, leaving the rest to be parsed as a request: after a chunked body
  // the connection is never reused.
  *fully_read = ok && !req.has_header("Transfer-Encoding");
  if (too_large) return TooLarge("body exceeds " + std::to_string(limit) + " bytes");
  if (!ok) return InvalidArgument("body could not be read");
  return body;
}

}  // namespace hookinbox::http
