// The destination credential ([endpoint.action] auth) on http forwards and
// probes, against an in-process httplib server on 127.0.0.1 that checks it
// as n8n's Webhook node does, and X-Hookinbox-Api beside it.
#include "action/destination_auth.h"

#include <httplib.h>
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>

#include "action/http_action.h"
#include "action/probe.h"
#include "common/clock.h"

namespace hookinbox::action {
namespace {

constexpr const char* kToken = "n8n-t0ken-never-in-errors";

std::string B64(std::string_view raw) {
  std::string out(4 * ((raw.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// Answers 200 when the request carries `header: value`, else 401; records the last request.
class Guarded {
 public:
  Guarded(std::string header, std::string value) : header_(std::move(header)), value_(std::move(value)) {
    auto check = [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        last_ = req;
      }
      res.status = req.get_header_value(header_) == value_ ? 200 : 401;
      res.set_content(res.status == 200 ? "ok" : "unauthorized", "text/plain");
    };
    server_.Post("/hook", check);
    server_.Get("/probe", check);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    REQUIRE(server_.is_running());
  }
  ~Guarded() {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  httplib::Request last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  const std::string header_, value_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  httplib::Request last_;
};

config::ActionConfig Config(const std::string& url, const std::string& auth, const std::string& secret,
                            const std::string& header = "") {
  config::ActionConfig c;
  c.type = "http";
  c.url = url;
  c.timeout_ms = 2000;
  c.forward_secret = Secret("forward-key-bytes");
  c.auth = auth;
  c.auth_header = header;
  c.auth_secret = Secret(secret);
  return c;
}

ActionInput Input() {
  ActionInput in;
  in.event_id = "evt_1";
  in.idempotency_key = IdempotencyKey("generic", "orders", "default", "evt_1");
  in.content_type = "application/json";
  in.body = R"({"id":"evt_1"})";
  return in;
}

TEST_CASE("destination auth: bearer sends Authorization: Bearer beside the signature", "[action][auth]") {
  Guarded down("Authorization", std::string("Bearer ") + kToken);
  FakeClock clock(1700000000000);
  HttpAction action(Config(down.Url("/hook"), "bearer", kToken), clock);
  const Outcome o = action.Run(Input());
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK(o.http_status == 200);
  CHECK(down.last().has_header("webhook-signature"));
}

TEST_CASE("destination auth: basic sends base64 of user:password", "[action][auth]") {
  Guarded down("Authorization", "Basic " + B64("hookinbox:pa:ss"));
  FakeClock clock(1700000000000);
  HttpAction action(Config(down.Url("/hook"), "basic", "hookinbox:pa:ss"), clock);
  CHECK(action.Run(Input()).verdict == Verdict::kSuccess);
}

TEST_CASE("destination auth: header sends the token under its own name, no Authorization", "[action][auth]") {
  Guarded down("X-N8n-Auth", kToken);
  FakeClock clock(1700000000000);
  HttpAction action(Config(down.Url("/hook"), "header", kToken, "X-N8n-Auth"), clock);
  CHECK(action.Run(Input()).verdict == Verdict::kSuccess);
  CHECK_FALSE(down.last().has_header("Authorization"));
}

TEST_CASE("destination auth: none configured, none sent", "[action][auth]") {
  Guarded down("Authorization", std::string("Bearer ") + kToken);
  FakeClock clock(1700000000000);
  HttpAction action(Config(down.Url("/hook"), "", ""), clock);
  const Outcome o = action.Run(Input());
  CHECK(o.verdict == Verdict::kPermanent);  // 401: the destination refuses it
  CHECK_FALSE(down.last().has_header("Authorization"));
}

TEST_CASE("destination auth: a refused or failed forward never carries the credential in its error", "[action][auth]") {
  Guarded down("Authorization", "Bearer the-right-one");
  FakeClock clock(1700000000000);
  HttpAction refused(Config(down.Url("/hook"), "bearer", kToken), clock);
  const Outcome o = refused.Run(Input());
  CHECK(o.error == "HTTP 401");
  // Nothing listens on port 1: not sent.
  HttpAction unreachable(Config("http://127.0.0.1:1/hook", "basic", std::string("u:") + kToken), clock);
  const Outcome down_o = unreachable.Run(Input());
  CHECK(down_o.verdict == Verdict::kTransient);
  CHECK(down_o.error.find("t0ken") == std::string::npos);
  CHECK(down_o.error.find(B64(std::string("u:") + kToken)) == std::string::npos);
}

TEST_CASE("destination auth: the reconciliation probe carries it too", "[action][auth]") {
  Guarded down("X-N8n-Auth", kToken);
  config::ActionConfig c = Config(down.Url("/hook"), "header", kToken, "X-N8n-Auth");
  c.probe_url = down.Url("/probe");
  const ProbeResult r = Probe(c, Input());
  CHECK(r.verdict == ProbeVerdict::kFound);
  CHECK(r.error.find("t0ken") == std::string::npos);
}

TEST_CASE("destination auth: a probe_url on another server does not get the credential", "[action][auth]") {
  Guarded down("X-N8n-Auth", kToken);
  config::ActionConfig c = Config(down.Url("/hook"), "header", kToken, "X-N8n-Auth");
  std::string elsewhere = down.Url("/probe");  // the same listener, named as another origin
  elsewhere.replace(elsewhere.find("127.0.0.1"), 9, "localhost");
  c.probe_url = elsewhere;
  const ProbeResult r = Probe(c, Input());
  CHECK(r.verdict != ProbeVerdict::kFound);
  CHECK_FALSE(down.last().has_header("X-N8n-Auth"));
}

TEST_CASE("http action: X-Hookinbox-Api carries the handler API's base when there is one", "[action][http]") {
  Guarded down("Authorization", "");  // no credential expected
  FakeClock clock(1700000000000);
  HttpAction action(Config(down.Url("/hook"), "", ""), clock);
  ActionInput in = Input();
  CHECK(action.Run(in).verdict == Verdict::kSuccess);
  CHECK_FALSE(down.last().has_header("X-Hookinbox-Api"));
  in.api_base = "http://172.17.0.1:8082/v1";
  in.token = "tok_1";
  CHECK(action.Run(in).verdict == Verdict::kSuccess);
  CHECK(down.last().get_header_value("X-Hookinbox-Api") == "http://172.17.0.1:8082/v1");
  CHECK(down.last().get_header_value("X-Hookinbox-Token") == "tok_1");
}

}  // namespace
}  // namespace hookinbox::action
