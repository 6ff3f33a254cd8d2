// The audit fields read from a request before anything is checked
// (http/request_view.h).
#include <httplib.h>

#include <catch2/catch.hpp>
#include <cstdint>

#include "http/request_view.h"

using namespace hookinbox::http;

namespace {

httplib::Request WithContentLength(const std::string& value) {
  httplib::Request req;
  req.method = "POST";
  req.target = "/hooks/demo";
  req.headers.emplace("Content-Length", value);
  return req;
}

}  // namespace

TEST_CASE("request view: the declared Content-Length is audited as sent", "[http]") {
  CHECK(DescribeRequest(WithContentLength("0"), 1).body_bytes == 0);
  CHECK(DescribeRequest(WithContentLength("65536"), 1).body_bytes == 65536);
  CHECK(DescribeRequest(WithContentLength("9223372036854775807"), 1).body_bytes == INT64_MAX);
  CHECK(DescribeRequest(httplib::Request{}, 1).body_bytes == 0);  // none declared
}

// httplib parses Content-Length as a uint64; cast to int64, 2^64-1 would be
// audited as -1 bytes.
TEST_CASE("request view: a Content-Length beyond int64 is audited as INT64_MAX, never negative", "[http]") {
  for (const char* value : {"9223372036854775808", "18446744073709551615", "99999999999999999999999", "-1"}) {
    INFO(value);
    CHECK(DescribeRequest(WithContentLength(value), 1).body_bytes == INT64_MAX);
  }
}

// A malformed length is not believed: httplib's strtoull turns "-1" into
// 2^64-1 (a 413 where 400 is right) and "abc" into 0 (an empty body).
TEST_CASE("request view: only a plain decimal Content-Length is a declared length", "[http]") {
  CHECK(DeclaredLength(WithContentLength("0")) == 0u);
  CHECK(DeclaredLength(WithContentLength("65536")) == 65536u);
  CHECK(DeclaredLength(WithContentLength("999999999999999999")) == 999999999999999999u);
  CHECK_FALSE(DeclaredLength(httplib::Request{}).has_value());
  for (const char* value : {"", "-1", "+5", "abc", "1e3", "5, 5", " 5", "5 ", "0x10", "9223372036854775808",
                            "18446744073709551615"}) {
    INFO("'" << value << "'");
    CHECK_FALSE(DeclaredLength(WithContentLength(value)).has_value());
  }
}

TEST_CASE("request view: the audited target keeps the query's names, never its values", "[http]") {
  httplib::Request req;
  req.path = "/hooks/pandadoc";
  req.target = "/hooks/pandadoc?signature=9f1c2b&event=evt%201";
  CHECK(DescribeRequest(req, 1).path == "/hooks/pandadoc?signature=&event=");
  req.target = "/hooks/meta?hub.mode=subscribe&hub.verify_token=s3cret&flag";
  CHECK(DescribeRequest(req, 1).path == "/hooks/meta?hub.mode=&hub.verify_token=&flag");
  req.target = "/hooks/plain";
  CHECK(DescribeRequest(req, 1).path == "/hooks/plain");
  req.target = "/hooks/a?x=1=2&&y";
  CHECK(DescribeRequest(req, 1).path == "/hooks/a?x=&&y");
}
