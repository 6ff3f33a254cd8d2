// Published cpp-httplib advisories that touch Debian's 0.11.4 and are
// reachable through hookinbox, each pinned against the real binary
// (docs/SECURITY.md, "cpp-httplib advisories", has the whole table and says
// which cases other files pin).
//
// - CVE-2026-34441 class: 0.11.4 answers a GET without reading the body it
//   declares; a body that arrives after the answer is parsed as the next
//   request on the connection (request smuggling through a keep-alive proxy).
// - Range expansion (no CVE; fixed upstream in 0.15.0): 0.11.4 answers a Range
//   header with one copy of the body per range, whatever the status, so a
//   few KiB of "0-,0-,…" multiply any answer thousands of times in memory.
// - CVE-2025-66570: 0.11.4 stores the peer address as a REMOTE_ADDR header
//   after the client's own headers, so a client-sent REMOTE_ADDR shadows it.
// - CVE-2026-45372: 0.11.4 percent-decodes header values, so "%0D%0A" in a
//   header becomes CR LF after the library's own checks.
// - CVE-2026-45352: 0.11.4 parses a chunk size the way strtoul does, taking
//   "-2" as a length near 2^64; the receive route's own cap must still hold.
//
// Requests are written as raw bytes over RawConnection where framing matters;
// every wait is a read with a deadline. The GET-body and Range cases pin the
// request gate's rules (http/request_gate.h; docs/SECURITY.md §6).
#include <catch2/catch.hpp>

#include <httplib.h>

#include "harness.h"

using namespace hookinbox::testing;
using namespace std::chrono_literals;

namespace {

// "bytes=0-,0-,…" with `n` ranges: each asks for the whole body again.
std::string ManyRanges(int n) {
  std::string value = "bytes=0-";
  for (int i = 1; i < n; ++i) value += ",0-";
  return value;
}

// Sends `head` (a request that declares a body), reads its answer, then sends
// `later` as that body. Returns what the server sent after the first answer
// (until it closes or 3 s pass).
std::string BodyAfterAnswer(int port, bool tls, const std::string& head, const std::string& later,
                            std::string* first) {
  RawConnection c(port, tls);
  REQUIRE(c.ok());
  REQUIRE(c.Send(head));
  *first = c.ReadResponses(1, 20s);
  if (c.closed_by_server()) return "";
  c.Send(later);  // may fail: the server is allowed to have closed the connection
  return c.ReadUntilClosed(3s);
}

// An endpoint signed like demo whose event id and type come from headers.
constexpr const char* kHeaderKeyedEndpoint = R"(
[[endpoint]]
name = "hdr"
provider = "generic"
secret_file = "secrets/demo.secret"

[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
tolerance_seconds = 300

[endpoint.key]
id_header = "X-Event-Id"
event_type_header = "X-Event-Type"
)";

}  // namespace

TEST_CASE("httplib CVE-2026-34441: a body sent with a GET is never parsed as a request", "[integration][httplib]") {
  const bool tls = GENERATE(true, false);
  Installation inst;
  ServerProcess server{inst};
  inst.WriteTestConfig("", tls ? "" : "plain_http = true\n");
  server.Start();
  // The smuggled request would leave an audit row of its own (GET on /hooks/… is 405).
  const std::string smuggled = "GET /hooks/smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string head = "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(smuggled.size()) +
                           "\r\n\r\n";
  std::string first;
  const std::string after = BodyAfterAnswer(server.port(), tls, head, smuggled, &first);
  INFO("first: " << first.substr(0, 300) << "\nafter: " << after.substr(0, 300));
  CHECK(CountResponses(first) == 1);
  CHECK(CountResponses(after) == 0);
  CHECK(inst.Sql("SELECT count(*) FROM webhook_deliveries WHERE path LIKE '%smuggled%'") == "0");

  // The admin listener (plain HTTP on loopback here) has GET routes that need no token.
  const std::string host = "Host: 127.0.0.1:" + std::to_string(server.admin_port()) + "\r\n";
  const std::string admin_smuggled = "GET /metrics HTTP/1.1\r\n" + host + "\r\n";
  std::string admin_first;
  const std::string admin_after = BodyAfterAnswer(
      server.admin_port(), false,
      "GET /admin/ HTTP/1.1\r\n" + host + "Content-Length: " + std::to_string(admin_smuggled.size()) + "\r\n\r\n",
      admin_smuggled, &admin_first);
  INFO("admin first: " << admin_first.substr(0, 300) << "\nadmin after: " << admin_after.substr(0, 300));
  CHECK(CountResponses(admin_first) == 1);
  CHECK(CountResponses(admin_after) == 0);
}

TEST_CASE("request smuggling: no answer written before a declared body is read keeps the connection — HEAD, "
          "the library's own 400 and 416, a refused route",
          "[integration][httplib]") {
  Installation inst;
  ServerProcess server{inst};
  inst.WriteTestConfig("");
  server.Start();
  const std::string host = "Host: 127.0.0.1:" + std::to_string(server.admin_port()) + "\r\n";
  const std::string smuggled = "GET /metrics HTTP/1.1\r\n" + host + "\r\n";
  const std::string length = "Content-Length: " + std::to_string(smuggled.size()) + "\r\n\r\n";
  struct Case {
    const char* what;
    std::string head;
  };
  for (const Case& c : std::vector<Case>{
           {"HEAD with a body", "HEAD /admin/ HTTP/1.1\r\n" + host + length},
           {"a Range the library cannot parse (its 416)",
            "POST /admin/api/reconcile HTTP/1.1\r\n" + host + "Range: bytes=z\r\n" + length},
           {"an HTTP version the library refuses (its 400)", "POST /x HTTP/9.9\r\n" + host + length},
           {"no such route", "POST /nowhere HTTP/1.1\r\n" + host + length},
       }) {
    std::string first;
    const std::string after = BodyAfterAnswer(server.admin_port(), false, c.head, smuggled, &first);
    INFO(c.what << "\nfirst: " << first.substr(0, 300) << "\nafter: " << after.substr(0, 300));
    CHECK(CountResponses(first) == 1);
    CHECK(CountResponses(after) == 0);
  }
}

TEST_CASE("httplib range expansion: a Range header never multiplies an answer", "[integration][httplib]") {
  Installation inst;
  ServerProcess server{inst};
  inst.WriteTestConfig();
  server.Start();
  const std::string ranges = ManyRanges(200);

  SECTION("public listener, /healthz") {
    RawConnection c(server.port(), true);
    REQUIRE(c.ok());
    REQUIRE(c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nRange: " + ranges + "\r\n\r\n"));
    const std::string answer = c.ReadUntilClosed(20s);
    INFO(answer.substr(0, 400));
    CHECK(CountResponses(answer) == 1);
    CHECK(answer.find("multipart/byteranges") == std::string::npos);
    CHECK(answer.size() < 1024);  // one copy of {"status":"ok"} and its headers
  }
  SECTION("admin listener, the UI's script (served without a token)") {
    httplib::Client admin("127.0.0.1", server.admin_port());
    auto plain = admin.Get("/admin/app.js");
    REQUIRE(plain);
    REQUIRE(plain->status == 200);
    RawConnection c(server.admin_port(), false);
    REQUIRE(c.ok());
    REQUIRE(c.Send("GET /admin/app.js HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.admin_port()) +
                   "\r\nConnection: close\r\nRange: " + ranges + "\r\n\r\n"));
    const std::string answer = c.ReadUntilClosed(20s);
    INFO(answer.substr(0, 400));
    CHECK(CountResponses(answer) == 1);
    CHECK(answer.find("multipart/byteranges") == std::string::npos);
    CHECK(answer.size() < plain->body.size() + 4096);
  }
  CHECK(server.Request("GET", "/healthz", "", {}).status == 200);
}

TEST_CASE("httplib CVE-2025-66570: client-sent REMOTE_ADDR or X-Forwarded-For never replaces the peer address",
          "[integration][httplib]") {
  Installation inst;
  ServerProcess server{inst};
  inst.WriteTestConfig("", "", "", "token_file = \"secrets/admin.token\"\n");
  server.Start();
  const std::vector<std::pair<std::string, std::string>> spoofed = {
      {"REMOTE_ADDR", "203.0.113.9"}, {"X-Forwarded-For", "203.0.113.10"}, {"X-Real-IP", "203.0.113.11"}};

  SECTION("the delivery audit row keeps the socket's address") {
    CHECK(server.Request("POST", "/hooks/nope", "{}", spoofed).status == 404);
    CHECK(inst.Sql("SELECT remote_addr FROM webhook_deliveries") == "127.0.0.1");
  }
  SECTION("the failed-login limit counts the socket's address, whatever REMOTE_ADDR says") {
    httplib::Client admin("127.0.0.1", server.admin_port());
    for (int i = 1; i <= 10; ++i) {
      httplib::Headers h = {{"Authorization", "Bearer wrong-" + std::to_string(i)},
                            {"REMOTE_ADDR", "203.0.113." + std::to_string(i)}};
      auto r = admin.Get("/admin/api/stats", h);
      REQUIRE(r);
      CHECK(r->status == 401);
    }
    auto blocked = admin.Get("/admin/api/stats", {{"Authorization", "Bearer wrong-11"}, {"REMOTE_ADDR", "203.0.113.99"}});
    REQUIRE(blocked);
    CHECK(blocked->status == 429);
  }
}

TEST_CASE("httplib CVE-2026-45372: a percent-encoded CR LF in a header-derived event id or type is refused",
          "[integration][httplib]") {
  Installation inst;
  ServerProcess server{inst};
  inst.WriteTestConfig(kHeaderKeyedEndpoint);
  server.Start();
  const std::string body = R"({"any":"thing"})";
  auto post = [&](const std::string& id, const std::string& type) {
    const std::string ts = std::to_string(NowSeconds());
    const std::string signature = HmacSha256Hex(inst.secret(), ts + "." + body);
    RegisterLeakMarker(signature);
    return server.Request("POST", "/hooks/hdr", body,
                          {{"X-Timestamp", ts},
                           {"X-Signature", "sha256=" + signature},
                           {"X-Event-Id", id},
                           {"X-Event-Type", type}});
  };
  CHECK(post("evt_a%0D%0AX-Injected:%201", "t").status == 400);
  CHECK(post("evt_b", "t%0D%0AX-Injected:%201").status == 400);
  CHECK(post("evt_c", "t%0AX-Injected:%201").status == 400);
  CHECK(inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(post("evt_ok", "t.ok").status == 200);
  CHECK(inst.Sql("SELECT event_id || '|' || event_type FROM webhook_inbox") == "evt_ok|t.ok");
}

TEST_CASE("httplib CVE-2026-45352: a negative chunk size on the receive route is 413 and ends the connection",
          "[integration][httplib]") {
  Installation inst;
  ServerProcess server{inst};
  inst.WriteTestConfig();  // max_body_bytes = 65536
  server.Start();
  RawConnection c(server.port(), true);
  REQUIRE(c.ok());
  c.Send("POST /hooks/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
         "Transfer-Encoding: chunked\r\n\r\n-2\r\n" +
         std::string(96 * 1024, 'x'));  // may fail part-way: the server is allowed to close early
  const std::string answer = c.ReadUntilClosed(20s);
  INFO(answer.substr(0, 400));
  CHECK(answer.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(CountResponses(answer) == 1);
  CHECK(c.closed_by_server());
  CHECK(inst.Sql("SELECT count(*) FROM webhook_inbox") == "0");
  CHECK(server.Request("GET", "/healthz", "", {}).status == 200);
}
