// http/server.h — the public listener: its routes on the hardened listener.
//
// Owns: the public routes — /hooks/… (http/receive.h), /healthz and /readyz —
// and the server.* limits handed to the listener (http/listener.h: admission,
// waiting room, connection guard, framing gate, and every library default a
// receiver needs changed, e.g. a listen backlog of 5). Any other path is
// 404 and any other method 405, answered from the headers alone. With TLS it
// serves a ServingCertificate (http/certificate.h), which ReloadCertificate
// swaps while the listener and its open connections stay.
// Config: requests read the config in force (config::LiveConfig, one
// snapshot per request: http/receive.h); the listener's own settings —
// server.* limits, listen address, TLS paths — are those in force at Create
// and change only with a restart.
// Thread-safety: Bind and Run from one thread; Stop, ReloadCertificate and
// Certificate from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/status.h"
#include "config/config.h"
#include "config/live.h"
#include "store/ingest.h"

namespace hookinbox::http {

class Listener;
class Receiver;
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
  // `live` must outlive the server.
  static Result<std::unique_ptr<PublicServer>> Create(const config::LiveConfig& live, store::Ingest& store,
                                                      const Clock& clock, ServerHooks hooks = {});
  ~PublicServer();

  // Binds the listen address (port 0 picks a free port) and applies the
  // backlog. Unavailable, naming the address, when it is taken.
  Status Bind();
  int port() const;
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
  PublicServer(store::Ingest& store, std::unique_ptr<Receiver> receiver, std::unique_ptr<Listener> listener,
               ServerHooks hooks);
  void Route();

  store::Ingest& store_;
  // Before listener_: its connection threads call the receiver until they end.
  std::unique_ptr<Receiver> receiver_;
  std::unique_ptr<Listener> listener_;
  ServerHooks hooks_;
};

}  // namespace hookinbox::http
