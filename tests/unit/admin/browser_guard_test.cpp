#include "admin/browser_guard.h"

#include <catch2/catch.hpp>

using namespace hookinbox;
using namespace hookinbox::admin;

namespace {

config::AdminConfig Admin(const std::string& listen, std::vector<std::string> allowed = {}) {
  config::AdminConfig a;
  a.listen = listen;
  a.allowed_hosts = std::move(allowed);
  return a;
}

// The body of an answer whose connection closes after it (http::CloseAfterResponse
// moves the body into a content provider).
std::string BodyOf(httplib::Response& res) {
  if (!res.content_provider_) return res.body;
  std::string out;
  httplib::DataSink sink;
  sink.write = [&](const char* data, size_t n) {
    out.append(data, n);
    return true;
  };
  res.content_provider_(0, res.content_length_, sink);
  return out;
}

}  // namespace

TEST_CASE("browser guard: IP literals, localhost and the listen host are allowed, with any port and case",
          "[admin][browser-guard]") {
  const config::AdminConfig a = Admin("127.0.0.1:8081");
  for (const char* host : {"127.0.0.1:8081", "127.0.0.1", "127.0.0.1:9999", "localhost", "LOCALHOST:8081",
                           "localhost.:8081", "[::1]:8081", "[::1]", "10.0.0.5:8081", "[2001:db8::1]:8081"}) {
    INFO(host);
    CHECK(HostAllowed(a, host));
  }
  const config::AdminConfig named = Admin("admin.internal:8081");
  CHECK(HostAllowed(named, "admin.internal:8081"));
  CHECK(HostAllowed(named, "Admin.Internal"));
  CHECK_FALSE(HostAllowed(named, "other.internal:8081"));
}

TEST_CASE("browser guard: other names (DNS rebinding) and malformed Host values are refused unless listed",
          "[admin][browser-guard]") {
  const config::AdminConfig a = Admin("0.0.0.0:8081", {"admin.example.com", "Ops.Example.com"});
  for (const char* host : {"evil.example", "evil.example:8081", "localhost.evil.example", "admin.example.com.evil",
                           "", ":8081", "[::1", "[::1]x", "::1", "a:b:c", "127.0.0.1.nip.io"}) {
    INFO(host);
    CHECK_FALSE(HostAllowed(a, host));
  }
  CHECK(HostAllowed(a, "admin.example.com"));
  CHECK(HostAllowed(a, "ADMIN.example.com:443"));
  CHECK(HostAllowed(a, "ops.example.com"));
}

TEST_CASE("browser guard: a refused Host gets 421 (400 when absent) with a JSON error and a closed connection",
          "[admin][browser-guard]") {
  const config::AdminConfig a = Admin("127.0.0.1:8081");
  httplib::Request req;
  httplib::Response res;
  req.headers.emplace("Host", "127.0.0.1:8081");
  CHECK_FALSE(RefuseForeignHost(a, req, res));
  CHECK(res.body.empty());

  httplib::Request foreign;
  foreign.headers.emplace("Host", "rebind.evil.example:8081");
  httplib::Response refused;
  REQUIRE(RefuseForeignHost(a, foreign, refused));
  CHECK(refused.status == 421);
  CHECK(BodyOf(refused) ==
        R"({"error":"host not allowed on the admin listener; add its name to admin.allowed_hosts"})");
  CHECK(refused.get_header_value("Connection") == "close");

  httplib::Request none;
  httplib::Response missing;
  REQUIRE(RefuseForeignHost(a, none, missing));
  CHECK(missing.status == 400);
  CHECK(BodyOf(missing) == R"({"error":"missing Host header"})");
}

TEST_CASE("browser guard: every answer is nosniff, unframable, referrer-free and sandboxed; the UI page gets its own "
          "policy once",
          "[admin][browser-guard]") {
  httplib::Response res;
  res.headers = SecurityHeaders();
  CHECK(res.get_header_value("X-Content-Type-Options") == "nosniff");
  CHECK(res.get_header_value("X-Frame-Options") == "DENY");
  CHECK(res.get_header_value("Referrer-Policy") == "no-referrer");
  const std::string data = res.get_header_value("Content-Security-Policy");
  CHECK(data.rfind("default-src 'none'", 0) == 0);
  CHECK(data.find("sandbox") != std::string::npos);
  CHECK(data.find("frame-ancestors 'none'") != std::string::npos);
  UsePagePolicy(res);
  CHECK(res.get_header_value_count("Content-Security-Policy") == 1);
  const std::string page = res.get_header_value("Content-Security-Policy");
  CHECK(page.rfind("default-src 'self'", 0) == 0);
  CHECK(page.find("script-src 'self'") != std::string::npos);
  CHECK(page.find("'unsafe-inline'") == std::string::npos);
  CHECK(page.find("frame-ancestors 'none'") != std::string::npos);
  CHECK(page.find("base-uri 'none'") != std::string::npos);
  CHECK(page.find("form-action 'self'") != std::string::npos);
  CHECK(res.get_header_value("X-Content-Type-Options") == "nosniff");
}
