// http/connection_guard.h — total deadlines and a header budget for every connection.
//
// Why: cpp-httplib 0.11.4 (a Debian .so we cannot patch) bounds each recv by
// the read timeout but not a whole handshake or request, and caps each header
// line but not their number. One byte every few seconds holds a connection
// thread for ever (slowloris), and a stream of header lines is read into
// memory without end.
//
// Design: the listener (http/listener.h) opens each connection here before a
// thread starts on it and closes it after the library is done with it; while
// the thread runs, the connection is this thread's (ScopedConnection), so the
// library's callbacks on that thread (OpenSSL's record callback, the
// pre-routing handler, the logger) find it without a lookup by socket.
// Each connection is in one of three phases:
//   kHeaders  handshake, then request line and headers; bounded by
//             header_timeout and by max_header_bytes;
//   kBody     from "headers complete" (the pre-routing handler) to "response
//             sent" (the logger); bounded by body_timeout (0 = unbounded);
//   kIdle     between keep-alive requests; the library's keep_alive_timeout
//             bounds it, and the next request's first bytes start kHeaders.
// Bytes are counted from TLS record headers as OpenSSL reads them (a flood is
// cut before its records are read); on plain connections from the kernel's
// count of bytes read (TCP_INFO less what is still queued), at each sweep.
// A connection over a bound is cut with shutdown(fd, SHUT_RDWR) after setting
// linger 0: the guard's fd is its own duplicate of the socket, so it is never
// a number the kernel handed to someone else; the thread's wait wakes with EOF,
// and the close that follows sends a reset. One watchdog thread checks the
// deadlines every 100 ms; a TLS byte budget is checked at once.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <openssl/ssl.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "config/config.h"

namespace hookinbox::http {

struct GuardLimits {
  int64_t header_timeout_ms = 5'000;
  int64_t max_header_bytes = 65'536;
  int64_t body_timeout_ms = 60'000;  // 0 = no bound on the body phase
};

// server.header_timeout_seconds, max_header_bytes and body_timeout_seconds.
GuardLimits GuardLimitsFor(const config::ServerConfig& server);

class ConnectionGuard {
 public:
  enum class Phase { kHeaders, kBody, kIdle };
  enum class Transport { kTls, kPlain };
  // Cuts a connection; the default is linger 0 + shutdown(fd, SHUT_RDWR). Tests record.
  using Cutter = std::function<void(int fd)>;
  // Bytes read from a plain socket so far; the default asks the kernel (TCP_INFO, SIOCINQ). Tests count.
  using ByteCounter = std::function<int64_t(int fd)>;

  // `listener` names the listener in log lines ("server", "admin").
  ConnectionGuard(std::string listener, GuardLimits limits, const Clock& clock, Cutter cutter = {},
                  ByteCounter bytes = {});
  ~ConnectionGuard();  // stops the watchdog
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // Installs OpenSSL's record callback on `ctx`: records read on a thread
  // inside a ScopedConnection count towards that connection's header budget.
  static void Attach(SSL_CTX* ctx);
  // Starts the watchdog thread (once; later calls do nothing).
  void Start();

  // Connection events; Open returns the id the others take. Unknown ids
  // (already closed) are ignored. `fd` must stay open until Close.
  uint64_t Open(int fd, std::string remote, Transport transport = Transport::kTls);
  // `bytes` received in one TLS record; cuts at once past the header budget.
  void Received(uint64_t id, int64_t bytes);
  void HeadersComplete(uint64_t id);
  void ResponseSent(uint64_t id);
  void Close(uint64_t id);

  // The same events for the connection this thread is serving (a
  // ScopedConnection of this guard); elsewhere they do nothing.
  void HeadersCompleteOnThisThread();
  void ResponseSentOnThisThread();

  // Cuts every connection over its deadline or budget now; returns how many.
  // The watchdog calls it; tests call it with a FakeClock.
  int Sweep();

  // For tests and metrics.
  size_t open_connections() const;
  int64_t cut_total() const;

 private:
  struct Connection {
    int fd = -1;
    std::string remote;
    Transport transport = Transport::kTls;
    Phase phase = Phase::kHeaders;
    int64_t phase_start_ms = 0;
    int64_t header_bytes = 0;  // TLS: received in this kHeaders phase
    int64_t bytes_mark = 0;    // plain: the kernel's count when this phase began
    bool cut = false;
  };
  struct CutLine {  // logged after mu_ is released
    std::string remote;
    std::string reason;
    int64_t elapsed_ms;
    int64_t bytes;
  };
  int FdOf(uint64_t id) const;
  void SweepPlainBytesLocked(Connection& c, int64_t now, std::vector<CutLine>& lines);
  void CutLocked(Connection& c, const char* reason, int64_t now, std::vector<CutLine>& lines);
  void Log(const std::vector<CutLine>& lines) const;
  void Run();

  // Constant after construction.
  const std::string listener_;
  const GuardLimits limits_;
  const Clock& clock_;
  const Cutter cutter_;
  const ByteCounter bytes_;

  mutable std::mutex mu_;
  std::map<uint64_t, Connection> connections_;  // guarded by mu_
  uint64_t next_id_ = 1;                         // guarded by mu_
  int64_t cut_total_ = 0;                        // guarded by mu_
  bool stopping_ = false;                        // guarded by mu_
  std::condition_variable wake_;
  std::thread watchdog_;
};

// Marks the calling thread as serving connection `id` of `guard` for its
// lifetime (the listener wraps each connection's processing in one).
class ScopedConnection {
 public:
  ScopedConnection(ConnectionGuard& guard, uint64_t id);
  ~ScopedConnection();
  ScopedConnection(const ScopedConnection&) = delete;
  ScopedConnection& operator=(const ScopedConnection&) = delete;
};

}  // namespace hookinbox::http
