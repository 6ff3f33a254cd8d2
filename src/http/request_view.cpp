#include "http/request_view.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace hookinbox::http {
namespace {

std::string Cut(const std::string& s, size_t max) { return s.size() <= max ? s : s.substr(0, max); }

}  // namespace

std::optional<std::string_view> HttplibHeaders::Get(std::string_view name) const {
  auto it = headers_.find(std::string(name));
  if (it == headers_.end()) return std::nullopt;
  return std::string_view(it->second);
}

std::optional<uint64_t> DeclaredLength(const httplib::Request& req) {
  if (!req.has_header("Content-Length")) return std::nullopt;
  const std::string& text = req.get_header_value("Content-Length");
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoull(text);  // at most 18 digits: always fits
}

namespace {

// The target with each query value dropped ("/hooks/x?signature=&event="):
// a query may carry a signature (PandaDoc), a verify token (Meta) or a whole
// signed form (VNPay), none of which the audit keeps.
std::string WithoutQueryValues(std::string_view target) {
  const size_t q = target.find('?');
  if (q == std::string_view::npos) return std::string(target);
  std::string out(target.substr(0, q + 1));
  bool in_value = false;
  for (char c : target.substr(q + 1)) {
    if (c == '&') in_value = false;
    if (!in_value) out.push_back(c);
    if (c == '=') in_value = true;
  }
  return out;
}

}  // namespace

store::DeliveryRecord DescribeRequest(const httplib::Request& req, int64_t now_ms) {
  store::DeliveryRecord d;
  d.received_at_ms = now_ms;
  d.remote_addr = req.remote_addr;
  d.method = Cut(req.method, 16);
  // The target as sent (still percent-encoded): what the client really asked
  // for, its query's names without their values.
  d.path = Cut(req.target.empty() ? req.path : WithoutQueryValues(req.target), 512);
  d.content_type = Cut(req.get_header_value("Content-Type"), 128);
  d.user_agent = Cut(req.get_header_value("User-Agent"), 256);
  // Declared, not read: httplib parses it with strtoull, so 2^64-1 (or "-1")
  // arrives here as a uint64 that a plain cast would audit as -1. Clamped.
  const uint64_t declared = req.get_header_value<uint64_t>("Content-Length");
  d.body_bytes = static_cast<int64_t>(std::min<uint64_t>(declared, INT64_MAX));
  return d;
}

void CloseAfterResponse(httplib::Response& res) {
  // cpp-httplib 0.11.4 decides keep-alive from the request before routing
  // and has no per-response switch. What it does honour, on plain and TLS
  // connections alike, is a content provider that fails: the body is written
  // in full, the provider then reports failure, and the connection loop ends.
  auto body = std::make_shared<std::string>(std::move(res.body));
  res.body.clear();
  std::string type = res.get_header_value("Content-Type");
  res.headers.erase("Content-Type");
  res.set_header("Connection", "close");
  res.set_content_provider(body->size(), type,
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             sink.write(body->data() + offset, length);
                             return false;  // ends the connection after this answer
                           });
}

}  // namespace hookinbox::http
