#include "http/request_view.h"

#include <openssl/ssl.h>

namespace hookinbox::http {
namespace {

std::string Cut(const std::string& s, size_t max) { return s.size() <= max ? s : s.substr(0, max); }

}  // namespace

std::optional<std::string_view> HttplibHeaders::Get(std::string_view name) const {
  auto it = headers_.find(std::string(name));
  if (it == headers_.end()) return std::nullopt;
  return std::string_view(it->second);
}

store::DeliveryRecord DescribeRequest(const httplib::Request& req, int64_t now_ms) {
  store::DeliveryRecord d;
  d.received_at_ms = now_ms;
  d.remote_addr = req.remote_addr;
  d.method = Cut(req.method, 16);
  d.path = Cut(req.path, 512);
  d.content_type = Cut(req.get_header_value("Content-Type"), 128);
  d.user_agent = Cut(req.get_header_value("User-Agent"), 256);
  d.body_bytes = static_cast<int64_t>(req.get_header_value<uint64_t>("Content-Length"));
  return d;
}

void CloseAfterResponse(const httplib::Request& req) {
  // cpp-httplib 0.11.4 decides keep-alive from the request's headers and
  // offers no per-response switch. The Request object is the server's own
  // non-const local, handed to us as const: marking it "Connection: close"
  // makes the reply say so, and for TLS, flagging the peer's close_notify as
  // received makes the next read return end-of-stream, so the loop ends.
  auto& mutable_req = const_cast<httplib::Request&>(req);
  mutable_req.headers.erase("Connection");
  mutable_req.headers.emplace("Connection", "close");
  if (req.ssl != nullptr) SSL_set_shutdown(const_cast<SSL*>(req.ssl), SSL_RECEIVED_SHUTDOWN);
}

}  // namespace hookinbox::http
