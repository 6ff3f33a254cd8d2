// The http action against an in-process httplib server on 127.0.0.1 (port 0)
// and a raw socket peer that hangs or resets the connection.
#include "action/http_action.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "support/openssl_hmac.h"

namespace hookinbox::action {
namespace {

constexpr int64_t kNow = 1700000000123;  // FakeClock time: webhook-timestamp 1700000000

// The downstream: records the last request and answers by path.
class Downstream {
 public:
  Downstream() {
    server_.Post("/ok", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = 200;
      res.set_content(R"({"id":"thing_7","n":42})", "application/json");
    });
    server_.Post("/created", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = 201;
      res.set_header("Location", "/things/42");
      res.set_content("{}", "application/json");
    });
    server_.Post("/moved", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = 301;
      res.set_header("Location", "/ok");
    });
    server_.Post(R"(/status/(\d+))", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = std::stoi(req.matches[1]);
      if (req.has_param("retry_after")) res.set_header("Retry-After", req.get_param_value("retry_after"));
      res.set_content("nope", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    REQUIRE(server_.is_running());
  }
  ~Downstream() {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  int calls() const { return calls_.load(); }
  httplib::Request last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  void Record(const httplib::Request& req) {
    std::lock_guard<std::mutex> lock(mu_);
    last_ = req;
    ++calls_;
  }
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  httplib::Request last_;
  std::atomic<int> calls_{0};
};

// A raw TCP peer that reads the request, then either never answers (until
// destroyed) or sends half a response and resets the connection (RST).
class RawPeer {
 public:
  enum class Mode { kHang, kResetMidResponse };
  explicit RawPeer(Mode mode) : mode_(mode) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listen_fd_, 4) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    REQUIRE(::pipe2(stop_, O_CLOEXEC) == 0);
    thread_ = std::thread([this] { Serve(); });
  }
  ~RawPeer() {
    (void)!::write(stop_[1], "x", 1);
    thread_.join();
    ::close(listen_fd_);
    ::close(stop_[0]);
    ::close(stop_[1]);
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }
  bool got_request() const { return got_request_.load(); }

 private:
  // Waits for `fd` to be readable or the stop pipe; false on stop.
  bool WaitReadable(int fd) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    return ::poll(fds, 2, 30000) > 0 && fds[1].revents == 0 && fds[0].revents != 0;
  }
  void Serve() {
    if (!WaitReadable(listen_fd_)) return;
    const int conn = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) return;
    std::string request;
    char buf[4096];
    while (request.find("\r\n\r\n") == std::string::npos && WaitReadable(conn)) {
      const ssize_t n = ::read(conn, buf, sizeof buf);
      if (n <= 0) break;
      request.append(buf, static_cast<size_t>(n));
    }
    got_request_ = true;
    if (mode_ == Mode::kResetMidResponse) {
      const std::string partial = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"half\":";
      (void)!::write(conn, partial.data(), partial.size());
      linger hard = {1, 0};  // close with RST instead of FIN
      ::setsockopt(conn, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    } else {
      pollfd stop = {stop_[0], POLLIN, 0};
      ::poll(&stop, 1, 30000);
    }
    ::close(conn);
  }
  Mode mode_;
  int listen_fd_ = -1;
  int port_ = 0;
  int stop_[2] = {-1, -1};
  std::thread thread_;
  std::atomic<bool> got_request_{false};
};

// A port on 127.0.0.1 that nothing listens on.
int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string B64(std::string_view raw) {
  std::string out(4 * ((raw.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

config::ActionConfig HttpConfig(const std::string& url) {
  config::ActionConfig c;
  c.type = "http";
  c.url = url;
  c.timeout_ms = 2000;
  c.forward_secret = Secret("forward-key-bytes\x01\x02");
  return c;
}

ActionInput Input() {
  ActionInput in;
  in.event_id = "evt_123";
  in.event_type = "invoice.paid";
  in.provider = "stripe";
  in.endpoint = "payments";
  in.tenant = "default";
  in.idempotency_key = IdempotencyKey(in.provider, in.endpoint, in.tenant, in.event_id);
  in.attempt = 3;
  in.content_type = "application/json; charset=utf-8";
  in.body = R"({"id":"evt_123","type":"invoice.paid"})";
  return in;
}

TEST_CASE("http action: 200 posts the body with every forward header and a Standard Webhooks signature",
          "[action][http]") {
  Downstream down;
  FakeClock clock(kNow);
  config::ActionConfig c = HttpConfig(down.Url("/ok"));
  c.result_ref_pointer = "/id";
  HttpAction action(c, clock);
  ActionInput in = Input();
  in.token = "tok_abc";

  const Outcome o = action.Run(in);
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK(o.sent);
  CHECK(o.http_status == 200);
  CHECK(o.result_ref == "thing_7");
  CHECK(o.error.empty());

  const httplib::Request req = down.last();
  CHECK(req.body == in.body);
  CHECK(req.get_header_value("Content-Type") == "application/json; charset=utf-8");
  CHECK(req.get_header_value("Idempotency-Key") == in.idempotency_key);
  CHECK(req.get_header_value("X-Hookinbox-Event-Id") == "evt_123");
  CHECK(req.get_header_value("X-Hookinbox-Event-Type") == "invoice.paid");
  CHECK(req.get_header_value("X-Hookinbox-Attempt") == "3");
  CHECK(req.get_header_value("X-Hookinbox-Token") == "tok_abc");
  CHECK(req.get_header_value("webhook-id") == in.idempotency_key);
  CHECK(req.get_header_value("webhook-timestamp") == "1700000000");
  // Independently: v1,base64(HMAC-SHA256(key, id.timestamp.body)) with OpenSSL.
  const std::string expected =
      "v1," + B64(testing::OpensslHmac(EVP_sha256(), "forward-key-bytes\x01\x02",
                                       in.idempotency_key + ".1700000000." + in.body));
  CHECK(req.get_header_value("webhook-signature") == expected);
}

TEST_CASE("http action: no token, no X-Hookinbox-Token header", "[action][http]") {
  Downstream down;
  FakeClock clock(kNow);
  HttpAction action(HttpConfig(down.Url("/ok")), clock);
  CHECK(action.Run(Input()).verdict == Verdict::kSuccess);
  CHECK_FALSE(down.last().has_header("X-Hookinbox-Token"));
}

TEST_CASE("http action: result_ref from a header, a numeric pointer, or none", "[action][http]") {
  Downstream down;
  FakeClock clock(kNow);
  SECTION("201 with Location") {
    config::ActionConfig c = HttpConfig(down.Url("/created"));
    c.result_ref_header = "Location";
    const Outcome o = HttpAction(c, clock).Run(Input());
    CHECK(o.verdict == Verdict::kSuccess);
    CHECK(o.http_status == 201);
    CHECK(o.result_ref == "/things/42");
  }
  SECTION("a number under the pointer") {
    config::ActionConfig c = HttpConfig(down.Url("/ok"));
    c.result_ref_pointer = "/n";
    CHECK(HttpAction(c, clock).Run(Input()).result_ref == "42");
  }
  SECTION("a pointer to nothing") {
    config::ActionConfig c = HttpConfig(down.Url("/ok"));
    c.result_ref_pointer = "/missing";
    const Outcome o = HttpAction(c, clock).Run(Input());
    CHECK(o.verdict == Verdict::kSuccess);
    CHECK(o.result_ref.empty());
  }
}

TEST_CASE("http action: other 4xx and 3xx are permanent; redirects are not followed", "[action][http]") {
  Downstream down;
  FakeClock clock(kNow);
  for (int status : {400, 404, 422}) {
    const Outcome o = HttpAction(HttpConfig(down.Url("/status/" + std::to_string(status))), clock).Run(Input());
    CHECK(o.verdict == Verdict::kPermanent);
    CHECK(o.sent);
    CHECK(o.http_status == status);
    CHECK(o.error == "HTTP " + std::to_string(status));
  }
  const int before = down.calls();
  const Outcome o = HttpAction(HttpConfig(down.Url("/moved")), clock).Run(Input());
  CHECK(o.verdict == Verdict::kPermanent);
  CHECK(o.http_status == 301);
  CHECK(down.calls() == before + 1);  // /ok was not called
}

TEST_CASE("http action: with async, a 202 means started; other 2xx, or 202 without async, are done", "[action][http]") {
  Downstream down;
  FakeClock clock(kNow);
  config::ActionConfig async = HttpConfig(down.Url("/status/202"));
  async.async = true;
  Outcome o = HttpAction(async, clock).Run(Input());
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK(o.http_status == 202);
  CHECK(o.started);
  o = HttpAction(HttpConfig(down.Url("/status/202")), clock).Run(Input());
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK_FALSE(o.started);
  async.url = down.Url("/status/200");
  o = HttpAction(async, clock).Run(Input());
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK_FALSE(o.started);
  async.url = down.Url("/status/503");
  o = HttpAction(async, clock).Run(Input());
  CHECK(o.verdict == Verdict::kTransient);
  CHECK_FALSE(o.started);
}

TEST_CASE("http action: 408, 425, 429 and 5xx are transient, honouring Retry-After", "[action][http]") {
  Downstream down;
  FakeClock clock(kNow);
  for (int status : {408, 425, 500, 503}) {
    const Outcome o = HttpAction(HttpConfig(down.Url("/status/" + std::to_string(status))), clock).Run(Input());
    CHECK(o.verdict == Verdict::kTransient);
    CHECK(o.http_status == status);
    CHECK_FALSE(o.retry_after_ms.has_value());
  }
  SECTION("Retry-After in seconds") {
    const Outcome o = HttpAction(HttpConfig(down.Url("/status/429?retry_after=2")), clock).Run(Input());
    CHECK(o.verdict == Verdict::kTransient);
    CHECK(o.retry_after_ms == std::optional<int64_t>(2000));
  }
  SECTION("Retry-After as an HTTP-date") {
    // kNow is 2023-11-14T22:13:20.123Z; the date is 90 s later (whole seconds).
    const Outcome o = HttpAction(HttpConfig(down.Url("/status/503?retry_after=Tue,%2014%20Nov%202023%2022:14:50%20GMT")),
                                 clock).Run(Input());
    CHECK(o.verdict == Verdict::kTransient);
    CHECK(o.retry_after_ms == std::optional<int64_t>(89877));
  }
  SECTION("Retry-After that is neither is ignored") {
    const Outcome o = HttpAction(HttpConfig(down.Url("/status/429?retry_after=soon")), clock).Run(Input());
    CHECK(o.verdict == Verdict::kTransient);
    CHECK_FALSE(o.retry_after_ms.has_value());
  }
}

TEST_CASE("http action: 409 is transient only from a target that honours Idempotency-Key", "[action][http]") {
  Downstream down;
  FakeClock clock(kNow);
  for (bool idempotent : {true, false}) {
    config::ActionConfig c = HttpConfig(down.Url("/status/409"));
    c.idempotent_target = idempotent;
    const Outcome o = HttpAction(c, clock).Run(Input());
    CHECK(o.verdict == (idempotent ? Verdict::kTransient : Verdict::kPermanent));
    CHECK(o.http_status == 409);
  }
}

TEST_CASE("http action: connection refused is transient and not sent", "[action][http]") {
  FakeClock clock(kNow);
  config::ActionConfig c = HttpConfig("http://127.0.0.1:" + std::to_string(ClosedPort()) + "/x");
  c.idempotent_target = false;
  const Outcome o = HttpAction(c, clock).Run(Input());
  CHECK(o.verdict == Verdict::kTransient);
  CHECK_FALSE(o.sent);
  CHECK(o.http_status == 0);
  CHECK(o.error.rfind("not sent", 0) == 0);
  CHECK(o.no_answer == action::NoAnswer::kNotSent);
}

TEST_CASE("http action: unresolvable host is transient and not sent", "[action][http]") {
  FakeClock clock(kNow);
  const Outcome o = HttpAction(HttpConfig("http://no-such-host.invalid/x"), clock).Run(Input());
  CHECK(o.verdict == Verdict::kTransient);
  CHECK_FALSE(o.sent);
}

TEST_CASE("http action: no answer after sending is unknown, or transient for an idempotent target",
          "[action][http]") {
  FakeClock clock(kNow);
  for (bool idempotent : {false, true}) {
    const Verdict expected = idempotent ? Verdict::kTransient : Verdict::kUnknown;
    {
      RawPeer peer(RawPeer::Mode::kHang);
      config::ActionConfig c = HttpConfig(peer.Url());
      c.timeout_ms = 300;
      c.idempotent_target = idempotent;
      const auto start = std::chrono::steady_clock::now();
      const Outcome o = HttpAction(c, clock).Run(Input());
      CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
      CHECK(peer.got_request());
      CHECK(o.verdict == expected);
      CHECK(o.sent);
      CHECK(o.http_status == 0);
      CHECK(o.no_answer == action::NoAnswer::kLost);
      CHECK(o.error.rfind("no answer", 0) == 0);
    }
    {
      RawPeer peer(RawPeer::Mode::kResetMidResponse);
      config::ActionConfig c = HttpConfig(peer.Url());
      c.idempotent_target = idempotent;
      const Outcome o = HttpAction(c, clock).Run(Input());
      CHECK(peer.got_request());
      CHECK(o.verdict == expected);
      CHECK(o.sent);
    }
  }
}

TEST_CASE("Retry-After parsing", "[action][http]") {
  CHECK(ParseRetryAfter("0", kNow) == std::optional<int64_t>(0));
  CHECK(ParseRetryAfter(" 120 ", kNow) == std::optional<int64_t>(120000));
  CHECK(ParseRetryAfter("Tue, 14 Nov 2023 22:13:00 GMT", kNow) == std::optional<int64_t>(0));  // in the past
  CHECK(ParseRetryAfter("Tue, 14 Nov 2023 22:13:21 GMT", kNow) == std::optional<int64_t>(877));
  CHECK(ParseRetryAfter("99999999999999999999999", kNow) == std::nullopt);
  CHECK(ParseRetryAfter("-5", kNow) == std::nullopt);
  CHECK(ParseRetryAfter("", kNow) == std::nullopt);
  CHECK(ParseRetryAfter("Tuesday, 14-Nov-23 22:13:21 GMT", kNow) == std::nullopt);
  CHECK(ParseRetryAfter("Tue, 14 Nov 2023 22:13:21 GMT trailing", kNow) == std::nullopt);
}

}  // namespace
}  // namespace hookinbox::action
