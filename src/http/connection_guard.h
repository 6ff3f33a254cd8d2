// http/connection_guard.h — total deadlines and a header budget for TLS connections.
//
// Why: cpp-httplib 0.11.4 (a Debian .so we cannot patch) bounds each recv by
// the read timeout but not a whole handshake or request, and caps each header
// line but not their number. One byte every few seconds holds a connection
// thread for ever (slowloris, D2), and a stream of header lines is read into
// memory without end (D1). The library offers no hook before the headers are
// parsed, but we own the SSL_CTX: OpenSSL's callbacks see every connection's
// handshake start, every record received and the SSL's end.
//
// Design: each TLS connection is tracked from its handshake start to SSL_free
// in one of three phases:
//   kHeaders  handshake, then request line and headers; bounded by
//             header_timeout and by max_header_bytes (TLS record lengths as
//             announced in the record headers, so a flood is cut before its
//             records are even read);
//   kBody     from "headers complete" (the pre-routing handler) to "response
//             sent" (the logger); bounded by body_timeout (0 = unbounded);
//   kIdle     between keep-alive requests; the library's keep_alive_timeout
//             bounds it, and the next record received starts kHeaders.
// A connection over a bound is cut with shutdown(fd, SHUT_RDWR) after setting
// linger 0: the fd stays open (no reuse race with the library's close), its
// thread's select wakes with EOF, and the library's close sends a reset. A single
// watchdog thread checks the deadlines; the byte budget is checked at once,
// on the connection's own thread. Plain HTTP has no such hooks: the proxy in
// front bounds it (README "Behind nginx or Caddy").
//
// Thread-safety: every method may be called from any thread. Cutting happens
// under mu_, and Close (called from SSL_free, which the library runs before
// closing the fd) takes mu_, so a cut never reaches a closed, reused fd.
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
  int64_t header_timeout_ms = 10'000;
  int64_t max_header_bytes = 65'536;
  int64_t body_timeout_ms = 60'000;  // 0 = no bound on the body phase
};

// server.header_timeout_seconds, max_header_bytes and body_timeout_seconds.
GuardLimits GuardLimitsFor(const config::ServerConfig& server);

class ConnectionGuard {
 public:
  enum class Phase { kHeaders, kBody, kIdle };
  // Cuts a connection; the default is linger 0 + shutdown(fd, SHUT_RDWR). Tests record.
  using Cutter = std::function<void(int fd)>;

  // `listener` names the listener in log lines ("server", "admin").
  ConnectionGuard(std::string listener, GuardLimits limits, const Clock& clock, Cutter cutter = {});
  ~ConnectionGuard();  // stops the watchdog
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // Installs the callbacks on `ctx`; the guard must outlive every SSL made
  // from it (the server owning ctx is destroyed first).
  void Attach(SSL_CTX* ctx);
  // Starts the watchdog thread (once; later calls do nothing).
  void Start();

  // Connection events; Open returns the id the others take. Unknown ids
  // (already closed) are ignored.
  uint64_t Open(int fd, std::string remote);
  // `bytes` received in one TLS record; cuts at once past the header budget.
  void Received(uint64_t id, int64_t bytes);
  void HeadersComplete(uint64_t id);
  void ResponseSent(uint64_t id);
  void Close(uint64_t id);

  // The same events keyed by the SSL of a request (req.ssl); null or an SSL
  // this guard never saw does nothing.
  void HeadersComplete(const SSL* ssl);
  void ResponseSent(const SSL* ssl);

  // Cuts every connection over its deadline now; returns how many. The
  // watchdog calls it; tests call it with a FakeClock.
  int Sweep();

  // For tests and metrics.
  size_t open_connections() const;
  int64_t cut_total() const;

 private:
  struct Connection {
    int fd = -1;
    std::string remote;
    Phase phase = Phase::kHeaders;
    int64_t phase_start_ms = 0;
    int64_t header_bytes = 0;  // received in this kHeaders phase
    bool cut = false;
  };
  struct CutLine {  // logged after mu_ is released
    std::string remote;
    std::string reason;
    int64_t elapsed_ms;
    int64_t bytes;
  };
  void CutLocked(Connection& c, const char* reason, int64_t now, std::vector<CutLine>& lines);
  void Log(const std::vector<CutLine>& lines) const;
  void Run();

  // Constant after construction.
  const std::string listener_;
  const GuardLimits limits_;
  const Clock& clock_;
  const Cutter cutter_;

  mutable std::mutex mu_;
  std::map<uint64_t, Connection> connections_;  // guarded by mu_
  uint64_t next_id_ = 1;                         // guarded by mu_
  int64_t cut_total_ = 0;                        // guarded by mu_
  bool stopping_ = false;                        // guarded by mu_
  std::condition_variable wake_;
  std::thread watchdog_;
};

}  // namespace hookinbox::http
