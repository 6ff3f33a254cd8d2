// http/server.h — the public listener, set up deliberately.
//
// Owns: building the cpp-httplib Server/SSLServer and setting every limit
// its defaults get wrong for a receiver (bench/RESULTS.md "Pitfalls"): the
// Debian .so is compiled with 8 threads, 5 requests per connection, a listen
// backlog of 5, Nagle on (44 ms per keep-alive answer) and no body limit.
// Registers /hooks/…, /healthz and /readyz. With TLS it serves a
// ServingCertificate (http/certificate.h), which ReloadCertificate swaps
// while the listener and its open connections stay.
// With TLS a ConnectionGuard (http/connection_guard.h) also bounds each
// connection's handshake + headers (time and bytes) and body (time).
// Thread-safety: Bind and Run from one thread; Stop, ReloadCertificate and
// Certificate from any thread.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "common/status.h"
#include "config/config.h"
#include "store/store.h"

namespace httplib {
class Server;
}

namespace hookinbox::http {

class ConnectionGuard;
class Receiver;
class ServingCertificate;
struct CertificatePair;

// What serve plugs into the listener; each may be empty.
struct ServerHooks {
  // After a claim stored a new event of the named endpoint (wakes the worker).
  std::function<void(const std::string& endpoint)> on_accepted;
  std::function<bool()> worker_ready;  // /readyz answers 503 while this returns false
};

class PublicServer {
 public:
  // Builds the server; with TLS, loads and validates the certificate and key
  // (InvalidArgument naming the file and the reason: http/certificate.h).
  static Result<std::unique_ptr<PublicServer>> Create(const config::Config& config, store::Store& store,
                                                      const Clock& clock, ServerHooks hooks = {});
  ~PublicServer();

  // Binds the listen address (port 0 picks a free port) and applies the
  // backlog. Unavailable, naming the address, when it is taken.
  Status Bind();
  int port() const { return port_; }
  // "https://127.0.0.1:8443" — the address as bound.
  std::string BaseUrl() const;

  // Serves until Stop(); in-flight requests finish before it returns.
  Status Run();
  // Stops a running listener; false (and nothing done) when it is not
  // running yet. Stopping twice is harmless.
  bool Stop();

  // Reads server.tls_cert and tls_key again (the paths loaded at start) and
  // serves them to new connections; on error keeps the current pair and says
  // why. Ok and nothing done with plain_http.
  Status ReloadCertificate();
  // The pair new connections get; nullptr with plain_http.
  std::shared_ptr<const CertificatePair> Certificate() const;

 private:
  PublicServer(const config::Config& config, store::Store& store, std::unique_ptr<ServingCertificate> certificate,
               std::unique_ptr<ConnectionGuard> guard, std::unique_ptr<httplib::Server> server,
               std::unique_ptr<Receiver> receiver, ServerHooks hooks);
  void Configure();
  void Route();

  const config::Config& config_;
  store::Store& store_;
  // Before server_: connection threads use it until the server is gone. Null with plain_http.
  std::unique_ptr<ServingCertificate> certificate_;
  // Before server_ too: its SSLs report to it until they are freed. Null with plain_http.
  std::unique_ptr<ConnectionGuard> guard_;
  std::unique_ptr<httplib::Server> server_;
  std::unique_ptr<Receiver> receiver_;
  ServerHooks hooks_;
  std::string host_;
  int port_ = 0;
  std::mutex stop_mu_;
  bool stopped_ = false;  // guarded by stop_mu_: the library must see stop() once
};

}  // namespace hookinbox::http
