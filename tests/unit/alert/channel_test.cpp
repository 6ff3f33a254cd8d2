// The HTTP channels against a local cpp-httplib server: what a 2xx, a 5xx, a
// redirect and a refused connection become, and that no failure message
// carries the URL (a chat webhook URL is a credential). The email channel's
// failure when nothing listens names smtp and keeps the password out.
#include <catch2/catch.hpp>

#include <httplib.h>

#include <chrono>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "alert/channel.h"

using namespace hookinbox;
using namespace hookinbox::alert;

namespace {

// A local receiver: /ok answers 204, /fail 503, /moved 302; records each request.
class Receiver {
 public:
  Receiver() {
    server_.Post("/ok", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = 204;
    });
    server_.Post("/fail", [](const httplib::Request&, httplib::Response& res) { res.status = 503; });
    server_.Post("/moved", [](const httplib::Request&, httplib::Response& res) {
      res.status = 302;
      res.set_header("Location", "/ok");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    REQUIRE(server_.is_running());
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  std::vector<httplib::Request> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  void Record(const httplib::Request& req) {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(req);
  }
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<httplib::Request> requests_;
};

config::AlertChannelConfig HttpChannel(const std::string& type, const std::string& url) {
  config::AlertChannelConfig c;
  c.name = type + "-ops";
  c.type = type;
  c.url = Secret(url);
  c.secret = Secret("alert-channel-key");
  c.timeout_seconds = 5;
  return c;
}

Notification Test() {
  Notification n;
  n.title = "hookinbox: test alert";
  n.at_ms = 1764645000000;
  return n;
}

Status SendOne(const config::AlertChannelConfig& c) {
  config::AlertConfig alert;
  alert.channels.push_back(c);
  auto channels = MakeChannels(alert);
  REQUIRE(channels.size() == 1);
  CHECK(channels[0]->name() == c.name);
  return channels[0]->Send(Test());
}

}  // namespace

TEST_CASE("channel: a 2xx is sent, as JSON, one request per Send", "[alert]") {
  Receiver receiver;
  for (const char* type : {"slack", "teams", "discord", "webhook"}) {
    INFO(type);
    CHECK(SendOne(HttpChannel(type, receiver.Url("/ok"))).ok());
  }
  auto requests = receiver.Requests();
  REQUIRE(requests.size() == 4);
  for (const auto& req : requests) {
    CHECK(req.get_header_value("Content-Type") == "application/json");
    CHECK_FALSE(nlohmann::json::parse(req.body).is_discarded());
  }
  CHECK_FALSE(requests[0].has_header("webhook-signature"));
  CHECK(requests[3].get_header_value("webhook-signature").rfind("v1,", 0) == 0);
  CHECK(requests[3].get_header_value("webhook-id").rfind("msg_", 0) == 0);
}

TEST_CASE("channel: a 5xx, a redirect and a refused connection fail with a short reason, no URL", "[alert]") {
  Receiver receiver;
  Status failed = SendOne(HttpChannel("slack", receiver.Url("/fail")));
  CHECK(failed.code() == Code::kUnavailable);
  CHECK(failed.message() == "slack: HTTP 503");
  Status moved = SendOne(HttpChannel("teams", receiver.Url("/moved")));
  CHECK(moved.message() == "teams: HTTP 302");  // not followed
  CHECK(receiver.Requests().empty());
  Status refused = SendOne(HttpChannel("discord", "http://127.0.0.1:1/secret-path"));
  CHECK_FALSE(refused.ok());
  CHECK(refused.message().rfind("discord: ", 0) == 0);
  CHECK(refused.message().find("secret-path") == std::string::npos);
  CHECK(refused.message().find("127.0.0.1") == std::string::npos);
}

TEST_CASE("channel: email to a port where nothing listens fails as smtp, without the password", "[alert]") {
  config::AlertChannelConfig c;
  c.name = "mail";
  c.type = "email";
  c.smtp_url = Secret("smtp://alerts:Pw-Do-Not-Print@127.0.0.1:1");
  c.from = "hookinbox@example.com";
  c.to = {"ops@example.com"};
  c.timeout_seconds = 5;
  Status s = SendOne(c);
  CHECK_FALSE(s.ok());
  CHECK(s.message().rfind("smtp: ", 0) == 0);
  CHECK(s.message().find("Do-Not-Print") == std::string::npos);
}
