// http/connection_guard: the deadlines and the header budget on a FakeClock,
// the OpenSSL record wiring over a socketpair, and the kernel's byte count
// for plain connections (a counter the test sets).
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <vector>

#include "http/connection_guard.h"

using namespace hookinbox;
using http::ConnectionGuard;

namespace {

// Records the fds the guard cuts instead of shutting them down.
struct Cuts {
  std::mutex mu;
  std::vector<int> fds;
  ConnectionGuard::Cutter Cutter() {
    return [this](int fd) {
      std::lock_guard<std::mutex> lock(mu);
      fds.push_back(fd);
    };
  }
  std::vector<int> Get() {
    std::lock_guard<std::mutex> lock(mu);
    return fds;
  }
};

constexpr http::GuardLimits kLimits{10'000, 65'536, 60'000};

}  // namespace

TEST_CASE("connection guard: headers not complete within header_timeout are cut, once", "[http]") {
  FakeClock clock(1'700'000'000'000);
  Cuts cuts;
  ConnectionGuard guard("server", kLimits, clock, cuts.Cutter());
  guard.Open(7, "127.0.0.1");
  guard.Received(1, 100);  // ids start at 1
  clock.Advance(10'000);
  CHECK(guard.Sweep() == 0);  // exactly at the deadline: still allowed
  clock.Advance(1);
  CHECK(guard.Sweep() == 1);
  CHECK(cuts.Get() == std::vector<int>{7});
  clock.Advance(10'000);
  CHECK(guard.Sweep() == 0);  // never cut twice
  CHECK(guard.cut_total() == 1);
}

TEST_CASE("connection guard: the body deadline runs from the headers' end; idle keep-alive is never cut", "[http]") {
  FakeClock clock(1'700'000'000'000);
  Cuts cuts;
  ConnectionGuard guard("server", kLimits, clock, cuts.Cutter());
  uint64_t id = guard.Open(7, "127.0.0.1");
  clock.Advance(9'000);
  guard.HeadersComplete(id);
  clock.Advance(60'000);
  CHECK(guard.Sweep() == 0);  // 69 s since the start, 60 s in the body
  guard.ResponseSent(id);
  clock.Advance(3'600'000);
  CHECK(guard.Sweep() == 0);  // idle: the library's keep-alive timeout bounds it
  guard.Received(id, 50);     // the next request's first record restarts the header clock
  clock.Advance(10'001);
  CHECK(guard.Sweep() == 1);
  CHECK(cuts.Get() == std::vector<int>{7});

  uint64_t slow_body = guard.Open(8, "127.0.0.1");
  guard.HeadersComplete(slow_body);
  clock.Advance(60'001);
  CHECK(guard.Sweep() == 1);
  CHECK(cuts.Get() == std::vector<int>{7, 8});
}

TEST_CASE("connection guard: a body deadline of 0 never cuts a body", "[http]") {
  FakeClock clock(1'700'000'000'000);
  Cuts cuts;
  ConnectionGuard guard("admin", {10'000, 65'536, 0}, clock, cuts.Cutter());
  guard.HeadersComplete(guard.Open(7, ""));
  clock.Advance(86'400'000);
  CHECK(guard.Sweep() == 0);
  CHECK(cuts.Get().empty());
}

TEST_CASE("connection guard: header bytes over the budget are cut at once; body bytes do not count", "[http]") {
  FakeClock clock(1'700'000'000'000);
  Cuts cuts;
  ConnectionGuard guard("server", kLimits, clock, cuts.Cutter());
  uint64_t flood = guard.Open(7, "127.0.0.1");
  guard.Received(flood, 65'536);
  CHECK(cuts.Get().empty());  // exactly the budget
  guard.Received(flood, 1);
  CHECK(cuts.Get() == std::vector<int>{7});  // without waiting for a sweep
  guard.Received(flood, 1'000'000);
  CHECK(cuts.Get().size() == 1);

  uint64_t upload = guard.Open(8, "127.0.0.1");
  guard.Received(upload, 60'000);
  guard.HeadersComplete(upload);
  guard.Received(upload, 100'000'000);
  CHECK(cuts.Get().size() == 1);
  guard.ResponseSent(upload);  // the budget is per request
  guard.Received(upload, 60'000);
  CHECK(cuts.Get().size() == 1);
}

TEST_CASE("connection guard: a closed connection is forgotten, so a reused fd is never cut", "[http]") {
  FakeClock clock(1'700'000'000'000);
  Cuts cuts;
  ConnectionGuard guard("server", kLimits, clock, cuts.Cutter());
  uint64_t old_id = guard.Open(7, "127.0.0.1");
  guard.Close(old_id);
  CHECK(guard.open_connections() == 0);
  clock.Advance(20'000);
  CHECK(guard.Sweep() == 0);
  uint64_t new_id = guard.Open(7, "127.0.0.1");  // the kernel handed out fd 7 again
  CHECK(new_id != old_id);
  guard.Received(old_id, 1'000'000);  // late events for the old connection change nothing
  guard.HeadersComplete(new_id);
  guard.ResponseSent(old_id);
  clock.Advance(20'000);
  CHECK(guard.Sweep() == 0);  // body phase, under 60 s
  CHECK(cuts.Get().empty());
}

TEST_CASE("connection guard: OpenSSL's record headers count for the connection this thread serves", "[http]") {
  FakeClock clock(1'700'000'000'000);
  Cuts cuts;
  ConnectionGuard guard("server", {10'000, 4'096, 60'000}, clock, cuts.Cutter());
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  REQUIRE(ctx != nullptr);
  ConnectionGuard::Attach(ctx);
  const unsigned char header[] = {0x16, 0x03, 0x01, 0x40, 0x00};  // announces a 16 KiB handshake record

  // Outside a ScopedConnection a record is nobody's: nothing is counted.
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  ::fcntl(sv[0], F_SETFL, O_NONBLOCK);
  SSL* ssl = SSL_new(ctx);
  REQUIRE(SSL_set_fd(ssl, sv[0]) == 1);
  REQUIRE(::write(sv[1], header, sizeof header) == static_cast<ssize_t>(sizeof header));
  uint64_t other = guard.Open(sv[0], "127.0.0.1");
  CHECK(SSL_accept(ssl) <= 0);
  CHECK(cuts.Get().empty());

  // Served by this thread: over the 4 KiB budget from the record's header alone.
  int sv2[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv2) == 0);
  ::fcntl(sv2[0], F_SETFL, O_NONBLOCK);
  SSL* ssl2 = SSL_new(ctx);
  REQUIRE(SSL_set_fd(ssl2, sv2[0]) == 1);
  REQUIRE(::write(sv2[1], header, sizeof header) == static_cast<ssize_t>(sizeof header));
  uint64_t served = guard.Open(sv2[0], "127.0.0.1");
  {
    http::ScopedConnection scope(guard, served);
    CHECK(SSL_accept(ssl2) <= 0);
  }
  CHECK(cuts.Get() == std::vector<int>{sv2[0]});

  SSL_free(ssl);
  SSL_free(ssl2);
  guard.Close(other);
  guard.Close(served);
  CHECK(guard.open_connections() == 0);
  SSL_CTX_free(ctx);
  for (int fd : {sv[0], sv[1], sv2[0], sv2[1]}) ::close(fd);
}

TEST_CASE("connection guard: a plain connection's header bytes and next request come from the kernel's count",
          "[http]") {
  FakeClock clock(1'700'000'000'000);
  Cuts cuts;
  std::mutex mu;
  int64_t kernel_bytes = 0;
  auto bytes = [&](int) {
    std::lock_guard<std::mutex> lock(mu);
    return kernel_bytes;
  };
  auto receive = [&](int64_t n) {
    std::lock_guard<std::mutex> lock(mu);
    kernel_bytes += n;
  };
  ConnectionGuard guard("admin", {10'000, 4'096, 0}, clock, cuts.Cutter(), bytes);
  uint64_t id = guard.Open(7, "127.0.0.1", ConnectionGuard::Transport::kPlain);
  receive(4'096);
  CHECK(guard.Sweep() == 0);  // exactly the budget
  guard.HeadersComplete(id);
  receive(1'000'000);  // the body does not count
  CHECK(guard.Sweep() == 0);
  guard.ResponseSent(id);
  clock.Advance(3'600'000);
  CHECK(guard.Sweep() == 0);  // idle, nothing received
  receive(10);                // the next request begins: its header clock starts at this sweep
  CHECK(guard.Sweep() == 0);
  clock.Advance(10'001);
  CHECK(guard.Sweep() == 1);
  CHECK(cuts.Get() == std::vector<int>{7});

  uint64_t flood = guard.Open(8, "127.0.0.1", ConnectionGuard::Transport::kPlain);
  receive(4'097);
  CHECK(guard.Sweep() == 1);
  CHECK(cuts.Get() == std::vector<int>{7, 8});
  guard.Close(flood);
}
