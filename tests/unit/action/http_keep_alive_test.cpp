// The http action's kept-alive connections (action/connection_pool.h) against
// a raw HTTP/1.1 peer that counts connections and requests, and can drop the
// second request on a connection unanswered — as a server closing an idle
// keep-alive connection just as the request arrives.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "action/http_action.h"
#include "common/clock.h"

namespace hookinbox::action {
namespace {

class CountingPeer {
 public:
  explicit CountingPeer(bool drop_second_request) : drop_second_(drop_second_request) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listen_fd_, 16) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    REQUIRE(::pipe2(stop_, O_CLOEXEC) == 0);
    thread_ = std::thread([this] { Serve(); });
  }
  ~CountingPeer() {
    (void)!::write(stop_[1], "x", 1);
    thread_.join();
    for (const auto& [fd, state] : conns_) ::close(fd);
    ::close(listen_fd_);
    ::close(stop_[0]);
    ::close(stop_[1]);
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  int connections() const { return connections_.load(); }
  int answered() const { return answered_.load(); }

 private:
  struct Conn {
    std::string buffer;
    int requests = 0;
  };
  void Serve() {
    while (true) {
      std::vector<pollfd> fds = {{stop_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
      for (const auto& [fd, state] : conns_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 30000) <= 0 || fds[0].revents != 0) return;
      if (fds[1].revents != 0) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
          conns_[fd] = Conn{};
          ++connections_;
        }
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (fds[i].revents != 0) Read(fds[i].fd);
      }
    }
  }
  void Read(int fd) {
    char buf[8192];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) {
      ::close(fd);
      conns_.erase(fd);
      return;
    }
    Conn& c = conns_[fd];
    c.buffer.append(buf, static_cast<size_t>(n));
    const size_t head_end = c.buffer.find("\r\n\r\n");
    if (head_end == std::string::npos) return;
    const size_t cl = c.buffer.find("Content-Length: ");
    const size_t body_len = cl == std::string::npos ? 0 : std::stoul(c.buffer.substr(cl + 16));
    if (c.buffer.size() < head_end + 4 + body_len) return;
    c.buffer.erase(0, head_end + 4 + body_len);
    if (++c.requests == 2 && drop_second_) {  // closed under the request, unanswered
      linger hard = {1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
      ::close(fd);
      conns_.erase(fd);
      return;
    }
    const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}";
    ++answered_;  // before the write: the client may read the answer before this thread runs again
    (void)!::write(fd, answer.data(), answer.size());
  }
  const bool drop_second_;
  int listen_fd_ = -1;
  int port_ = 0;
  int stop_[2] = {-1, -1};
  std::thread thread_;
  std::map<int, Conn> conns_;
  std::atomic<int> connections_{0}, answered_{0};
};

config::ActionConfig Config(const std::string& url, bool idempotent) {
  config::ActionConfig c;
  c.type = "http";
  c.url = url;
  c.timeout_ms = 2000;
  c.idempotent_target = idempotent;
  c.forward_secret = Secret("forward-key");
  return c;
}

ActionInput Input(int n) {
  ActionInput in;
  in.event_id = "evt_" + std::to_string(n);
  in.idempotency_key = "key_" + std::to_string(n);
  in.content_type = "application/json";
  in.body = R"({"n":1})";
  return in;
}

}  // namespace

TEST_CASE("http action: a target that deduplicates gets one kept-alive connection", "[action][http][keep-alive]") {
  CountingPeer peer(false);
  SystemClock clock;
  HttpAction action(Config(peer.Url(), true), clock);
  for (int i = 1; i <= 5; ++i) CHECK(action.Run(Input(i)).verdict == Verdict::kSuccess);
  CHECK(peer.answered() == 5);
  CHECK(peer.connections() == 1);
}

TEST_CASE("http action: any other target gets a new connection per request", "[action][http][keep-alive]") {
  CountingPeer peer(false);
  SystemClock clock;
  HttpAction action(Config(peer.Url(), false), clock);
  for (int i = 1; i <= 3; ++i) CHECK(action.Run(Input(i)).verdict == Verdict::kSuccess);
  CHECK(peer.answered() == 3);
  CHECK(peer.connections() == 3);
}

TEST_CASE("http action: a kept-alive connection closed under the request is retried once on a new one",
          "[action][http][keep-alive]") {
  CountingPeer peer(true);  // every connection's second request is dropped unanswered
  SystemClock clock;
  HttpAction action(Config(peer.Url(), true), clock);
  const Outcome first = action.Run(Input(1));
  const Outcome second = action.Run(Input(2));  // the pooled connection drops it: a new one answers
  CHECK(first.verdict == Verdict::kSuccess);
  CHECK(second.verdict == Verdict::kSuccess);
  CHECK(second.http_status == 200);
  CHECK(peer.connections() == 2);
  CHECK(peer.answered() == 2);
}

}  // namespace hookinbox::action
