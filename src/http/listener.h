// http/listener.h — the one hardened listener under the public and the admin server.
//
// Owns: the cpp-httplib Server/SSLServer (plain, or TLS serving a
// ServingCertificate), the listening socket, and every connection from
// accept to close. The library's own accept loop is not used: it takes any
// number of sockets into an unbounded queue, where idle ones hold the
// threads every other client waits for (300 idle sockets from one host
// delayed another host's request by 39 s). Here one accept thread
//   1. admits a socket only within max_connections and
//      max_connections_per_address (http/admission.h), else closes it at once;
//   2. keeps admitted sockets that have sent nothing in a waiting room
//      (epoll), without a thread, until they send or the header deadline
//      passes (then closes them);
//   3. hands readable sockets to a fixed pool of threads through a queue
//      that admission bounds, where the library serves the connection under
//      the ConnectionGuard's deadlines (http/connection_guard.h).
// Every request first passes the guard (its header deadline ends) and the
// framing gate (http/request_gate.h), then the owner's gate (SetGate).
//
// Thread-safety: configure (routes, SetGate, SetAfterResponse) and Bind from
// one thread before Run; Stop, ReloadCertificate and Certificate from any thread.
#pragma once

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "http/admission.h"
#include "http/connection_guard.h"

namespace hookinbox::http {

class ServingCertificate;
struct CertificatePair;

struct ListenerOptions {
  std::string name;        // "server" | "admin": logs, metrics, messages
  std::string listen;      // host:port; port 0 picks a free port
  std::string tls_cert;    // both empty: plain HTTP
  std::string tls_key;
  int threads = 64;        // connection threads; a keep-alive connection holds one
  int backlog = 1024;
  int max_connections = 1024;
  int max_connections_per_address = 32;
  int keep_alive_max_requests = 1000;
  int keep_alive_timeout_seconds = 5;
  int read_timeout_seconds = 10;
  int write_timeout_seconds = 10;
  size_t payload_max_bytes = 1 << 20;  // the library's backstop; routes read with their own caps
  GuardLimits guard;
  std::string exception_event = "handler_exception";  // the log line of a handler that threw
};

class Listener {
 public:
  // With TLS, loads and validates the certificate and key (InvalidArgument
  // naming the file and the reason: http/certificate.h).
  static Result<std::unique_ptr<Listener>> Create(ListenerOptions options, const Clock& clock);
  ~Listener();  // Stop()s; Run must have returned

  // Where routes are registered (Get, Post with a ContentReader …). Not its
  // pre-routing, error or exception handler or its logger: the listener owns
  // those (SetGate, SetErrorAnswer, SetAfterResponse).
  httplib::Server& routes() { return *server_; }
  // Runs for every request that passed the framing gate, before the library
  // reads a body or routes; Handled when it answered.
  void SetGate(httplib::Server::HandlerWithResponse gate) { gate_ = std::move(gate); }
  // Runs once each answer is written.
  void SetAfterResponse(httplib::Logger after) { after_ = std::move(after); }
  // Runs for every answer of 400 or more as it is written (e.g. to give the
  // library's own answers a JSON body).
  void SetErrorAnswer(httplib::Server::HandlerWithResponse on_error) { on_error_ = std::move(on_error); }

  // Binds (port 0 picks a free port) and applies the backlog. Unavailable,
  // naming the address, when it is taken.
  Status Bind();
  int port() const { return port_; }
  const std::string& host() const { return host_; }
  bool tls() const { return certificate_ != nullptr; }
  // "https://127.0.0.1:8443" — the address as bound.
  std::string BaseUrl() const;

  // Accepts and serves until Stop(); requests in flight, and connections
  // that already sent one, are served before it returns.
  Status Run();
  // Stops the listener: a running Run returns, a later Run returns at once.
  // True when Run had started. Stopping twice is harmless.
  bool Stop();

  // TLS: reads the certificate and key again and serves them to new
  // connections; on error keeps the current pair and says why. Ok and
  // nothing done with plain HTTP.
  Status ReloadCertificate();
  // The pair new connections get; nullptr with plain HTTP.
  std::shared_ptr<const CertificatePair> Certificate() const;

  // For tests and metrics.
  int open_connections() const { return admission_.open(); }

 private:
  struct Waiting {
    std::string key;
    std::string remote;
    int64_t accepted_ms;
  };
  struct Ready {
    int fd;
    std::string key;
    std::string remote;
  };
  Listener(ListenerOptions options, const Clock& clock, std::unique_ptr<ServingCertificate> certificate,
           std::unique_ptr<httplib::Server> server);
  void Configure();
  void AcceptAll();
  void Admit(int fd, std::string remote);
  void HandOver(int fd);
  void CloseExpired(int64_t now_ms);
  void Serve();
  void ServeOne(const Ready& ready);
  void Refused(const std::string& remote, Admission::Verdict verdict);
  void Drain();

  const ListenerOptions options_;
  const Clock& clock_;
  // Before server_: connection threads use them until the server is gone.
  std::unique_ptr<ServingCertificate> certificate_;
  ConnectionGuard guard_;
  std::unique_ptr<httplib::Server> server_;
  httplib::Server::HandlerWithResponse gate_;
  httplib::Logger after_;
  httplib::Server::HandlerWithResponse on_error_;
  Admission admission_;
  std::string host_;
  int port_ = 0;

  // The accept loop's epoll set, an eventfd Stop writes to (both constant
  // after construction), and the sockets waiting in the set (Run's own).
  const int epoll_fd_;
  const int wake_fd_;
  std::unordered_map<int, Waiting> waiting_;

  std::mutex mu_;
  std::condition_variable ready_cv_;
  std::deque<Ready> ready_;  // guarded by mu_; bounded by admission
  bool running_ = false;     // guarded by mu_
  bool stopping_ = false;    // guarded by mu_
  std::vector<std::thread> threads_;
  std::atomic<int64_t> refusals_logged_at_ms_{0};
};

}  // namespace hookinbox::http
