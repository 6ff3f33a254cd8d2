// http/request_view.h — adapters from cpp-httplib requests to our plain views.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <optional>
#include <string>

#include "common/headers.h"
#include "store/ingest.h"

namespace hookinbox::http {

// HeaderView over httplib's case-insensitive multimap, without copying.
class HttplibHeaders final : public HeaderView {
 public:
  explicit HttplibHeaders(const httplib::Headers& headers) : headers_(headers) {}
  std::optional<std::string_view> Get(std::string_view name) const override;

 private:
  const httplib::Headers& headers_;
};

// The declared Content-Length when it is a plain decimal number that fits
// in 63 bits; nullopt when the header is absent or malformed ("-1", "abc",
// "1e3", "5, 5"). httplib reads it with strtoull, which turns "-1" into
// 2^64-1 and "abc" into 0: neither may be believed.
std::optional<uint64_t> DeclaredLength(const httplib::Request& req);

// The audit fields known before anything is checked: time, peer, method,
// path, media type, user agent and declared size. Long values are cut so a
// hostile header cannot bloat the audit table; a declared size beyond int64
// is recorded as INT64_MAX, never wrapped negative.
store::DeliveryRecord DescribeRequest(const httplib::Request& req, int64_t now_ms);

// Sends `res` (its body already set) and then closes the connection instead
// of reading another request from it: used when a rejected request's body
// was left unread, so its bytes are never parsed as a request of their own.
void CloseAfterResponse(httplib::Response& res);

}  // namespace hookinbox::http
