#include <catch2/catch.hpp>

#include "http/respond.h"

using namespace hookinbox;
using namespace hookinbox::http;

TEST_CASE("respond: each status code maps to the SPEC's HTTP answer", "[http]") {
  CHECK(HttpStatusFor(Code::kInvalidArgument) == 400);
  CHECK(HttpStatusFor(Code::kUnauthenticated) == 401);
  CHECK(HttpStatusFor(Code::kNotFound) == 404);
  CHECK(HttpStatusFor(Code::kNotAllowed) == 405);
  CHECK(HttpStatusFor(Code::kTooLarge) == 413);
  CHECK(HttpStatusFor(Code::kUnsupported) == 415);
  CHECK(HttpStatusFor(Code::kRejected) == 422);
  CHECK(HttpStatusFor(Code::kUnavailable) == 503);
  CHECK(HttpStatusFor(Code::kInternal) == 500);
}

TEST_CASE("respond: a 401 body says nothing about which check failed", "[http]") {
  httplib::Response res;
  ReplyError(res, Unauthenticated("timestamp outside tolerance"));
  CHECK(res.status == 401);
  CHECK(res.body == R"({"error":"unauthorized"})");
}

TEST_CASE("respond: other errors explain themselves; 503 asks to retry, 405 names POST", "[http]") {
  httplib::Response bad;
  ReplyError(bad, InvalidArgument("event id missing"));
  CHECK(bad.status == 400);
  CHECK(bad.body == R"({"error":"event id missing"})");
  CHECK(bad.get_header_value("Content-Type") == "application/json");
  httplib::Response busy;
  ReplyError(busy, Unavailable("database is locked"));
  CHECK(busy.status == 503);
  CHECK(busy.get_header_value("Retry-After") == "5");
  httplib::Response method;
  ReplyError(method, NotAllowed("only POST"));
  CHECK(method.get_header_value("Allow") == "POST");
}
