// tests/integration/raw_client.h — raw TCP and TLS clients for the listener
// attack tests (listener_attack_test.cpp): a chosen loopback source address,
// non-blocking sockets, and every wait bounded by a deadline.
//
// Why not the harness's RawConnection: it connects from 127.0.0.1 with
// blocking calls, so a server that never answers a handshake would hold the
// test. These clients let one test play many addresses (all of 127/8 is
// loopback on Linux; bind() before connect() needs no setup) and give up
// at a deadline instead. Targets are always 127.0.0.1.
//
// Thread-safety: one RawClient per thread; the free functions may be called
// from any thread (ClientHelloPrefix builds its bytes once).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hookinbox::testing {

using SteadyTime = std::chrono::steady_clock::time_point;

// Raises this process's RLIMIT_NOFILE soft limit to its hard limit (a flood
// test opens thousands of sockets); returns the soft limit now in force.
int64_t RaiseOpenFileLimit();

// A non-blocking TCP socket bound to `source` ("" = the kernel's choice)
// whose connect to 127.0.0.1:port has started; -1 when socket/bind/connect
// failed at once. The caller owns (closes) it.
int StartConnect(const std::string& source, int port);

// The first `n` bytes of a real TLS ClientHello (OpenSSL's default client,
// captured from a memory BIO): a handshake that starts and then stalls.
std::string ClientHelloPrefix(size_t n);

// The HTTP status of the first response in `text`, 0 when there is none.
int StatusOf(const std::string& text);

// One connection to 127.0.0.1:port, plain or TLS (no certificate check: the
// tests judge the listener, not its certificate), from `source`.
class RawClient {
 public:
  RawClient(int port, bool tls, std::string source = "");
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  // Connects and completes the TLS handshake by `deadline`. False when the
  // connection was refused, reset or closed (closed() then true), or the
  // deadline passed first.
  bool Connect(SteadyTime deadline);
  // When the TCP connection was established (the kernel's handshake, before
  // any TLS); the epoch when it never was.
  SteadyTime connected_at() const { return connected_at_; }
  int fd() const { return fd_; }
  // True once the server closed or reset the connection (or a write or read
  // failed because of it).
  bool closed() const { return closed_; }
  SteadyTime closed_at() const { return closed_at_; }

  // Writes `head`, then whatever `more` returns (empty: nothing more; `more`
  // may be empty) while reading whatever the server sends, until the server
  // closes the connection or `deadline`. Returns the bytes received.
  std::string Exchange(const std::string& head, const std::function<std::string()>& more, SteadyTime deadline);
  // Bytes of head and body the kernel (or TLS) accepted so far.
  int64_t sent() const { return sent_; }
  // Writes `bytes` by `deadline`; false when the connection closed first or
  // the deadline passed.
  bool Send(const std::string& bytes, SteadyTime deadline);
  // Waits until the server closes the connection or `deadline`, reading and
  // discarding what it sends; returns closed().
  bool WaitClosed(SteadyTime deadline);

 private:
  // > 0: bytes moved; 0: would block; -1: the connection is closed.
  int WriteSome(const char* data, size_t size);
  int ReadSome(char* buf, size_t size);
  void MarkClosed();
  // Polls for `events` until `deadline` (at most `slice`); false when the deadline passed.
  bool Wait(short events, SteadyTime deadline, std::chrono::milliseconds slice);

  int port_;
  bool tls_;
  std::string source_;
  int fd_ = -1;
  void* ssl_ctx_ = nullptr;
  void* ssl_ = nullptr;
  size_t pending_write_ = 0;  // TLS: the length a write that would block must be retried with
  int64_t sent_ = 0;
  bool closed_ = false;
  SteadyTime connected_at_{};
  SteadyTime closed_at_{};
};

// One connection's life as a client saw it: from the TCP handshake to the
// server's FIN or reset.
struct SocketLife {
  std::string source;
  std::string kind;          // the test's name for what the socket did
  bool established = false;  // the TCP handshake completed
  bool closed = false;       // the server closed or reset it before the watch ended
  SteadyTime established_at{};
  SteadyTime closed_at{};
  // Milliseconds from established to closed; -1 when either never happened.
  int64_t OpenMs() const;
};

// Many connections that send nothing (or a few first bytes, then nothing),
// watched together with one poll(2) per round: an idle-socket flood. Each
// socket is closed here as soon as the server is seen closing it.
class IdleSockets {
 public:
  explicit IdleSockets(int port) : port_(port) {}
  ~IdleSockets();  // closes what is still open
  IdleSockets(const IdleSockets&) = delete;
  IdleSockets& operator=(const IdleSockets&) = delete;

  // Starts a connection from `source`; once established it sends
  // `first_bytes` (may be empty) and nothing more. False when no socket
  // could be made (e.g. out of file descriptors).
  bool Open(const std::string& source, const std::string& kind, const std::string& first_bytes = "");
  // Waits up to `slice` for connections to complete and for the server to
  // close them; returns the lives that ended in this round.
  std::vector<SocketLife> Step(std::chrono::milliseconds slice);
  size_t open() const { return sockets_.size(); }
  // Closes the sockets still open: lives the server never ended.
  std::vector<SocketLife> Abandon();

 private:
  struct Entry {
    int fd;
    SocketLife life;
    std::string first_bytes;
  };
  int port_;
  std::vector<Entry> sockets_;
};

}  // namespace hookinbox::testing
