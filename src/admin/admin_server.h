// admin/admin_server.h — the admin listener (SPEC §3: default
// 127.0.0.1:8081, plain HTTP on loopback, HTTPS with admin.tls_cert/tls_key).
// The admin module owns what is served there: the handler API (/v1,
// handler_api.h), the admin API and UI (/admin/api, /admin/, admin_api.h)
// and /metrics. It may use common, config, store and the http module's
// answer helpers (tests/layering.sh); it never sees the worker or the
// receive path.
//
// With admin.handler_api_listen, the handler API (/v1 only; every other path
// 404) is also served on a second listener with the same settings, gate and
// login limiter, for handlers that cannot reach admin.listen (n8n in a
// container, on the Docker bridge) without exposing the admin UI there.
// Owns: the admin routes on the hardened listener (http/listener.h:
// admission with admin.max_connections(_per_address), the connection guard,
// the framing gate), binding admin.listen (a taken port is an error naming
// it), the thread it serves on, and the gate every request passes before its
// body is read: Host (browser_guard.h: 421, 400), route (404), method (405),
// declared size (413), then the admin or metrics token (auth.h: 503, 401, 429). Bodies are read with each
// route's own cap. It is stopped after the worker, because running actions call it
// until they end.
// With admin TLS it serves an http::ServingCertificate, which
// ReloadCertificate swaps while the listener and its connections stay.
// Config: the listener's own settings (admin.listen, TLS paths,
// admin.max_connections*, allowed_hosts) are those in force at Create and
// change only with a restart; the admin and metrics tokens and everything a
// route reads come from the config in force (config::LiveConfig) per
// request, so a reload can rotate the tokens.
// Thread-safety: Create/Bind/SetReloadHook/SetSecretHook/Start/Stop from one thread;
// ReloadCertificate and Certificate from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/status.h"
#include "config/config.h"
#include "config/live.h"
#include "config/reload.h"
#include "config/rotation.h"
#include "store/admin_store.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}

namespace hookinbox::http {
class Listener;
struct CertificatePair;
}  // namespace hookinbox::http

namespace hookinbox::admin {

class AdminApi;
class AdminAuth;
class HandlerApi;
class LoginLimiter;

class AdminServer {
 public:
  // Errors: InvalidArgument naming the file and the reason when admin.tls_cert
  // / tls_key do not load or validate (http/certificate.h). `live` must
  // outlive the server.
  static Result<std::unique_ptr<AdminServer>> Create(const config::LiveConfig& live, store::AdminStore& store,
                                                     const Clock& clock);
  ~AdminServer();  // Stop()s

  // Binds admin.listen (port 0 picks a free port). Unavailable, naming
  // admin.listen, when it is taken.
  Status Bind();
  int port() const;
  // "http://127.0.0.1:8081" (https with TLS) — the address as bound.
  std::string BaseUrl() const;
  // What handlers are told to call (X-Hookinbox-Api, HOOKINBOX_API), always
  // ending in "/v1": admin.handler_api_url + "/v1" when set, else the
  // handler API listener's address (admin.handler_api_listen) when there is
  // one, else the admin listener's; a listener bound to every address
  // (0.0.0.0, [::]) is named by its loopback host.
  std::string HandlerApiBase() const;
  // The port admin.handler_api_listen is bound to; 0 without that listener.
  int handler_api_port() const;

  // What POST /admin/api/reload calls; set before Start. Unset, that route
  // answers 503 "reload is not available".
  void SetReloadHook(std::function<config::ReloadAnswer(const config::ReloadAsk&)> hook);
  // What POST /admin/api/endpoints/{name}/secret/rotate and …/retire call;
  // set before Start. Unset, they answer 503 "secret rotation is not available".
  void SetSecretHook(std::function<config::SecretRotateAnswer(const config::SecretRotateAsk&)> hook);

  // Serves on its own thread until Stop(). Requires a successful Bind().
  void Start();
  // Stops serving and joins the thread; in-flight requests finish first.
  // Harmless when not started or already stopped.
  void Stop();

  // Reads admin.tls_cert and tls_key again and serves them to new
  // connections; on error keeps the current pair. Ok and nothing done
  // without admin TLS.
  Status ReloadCertificate();
  // The pair new connections get; nullptr without admin TLS.
  std::shared_ptr<const http::CertificatePair> Certificate() const;

 private:
  AdminServer(const config::LiveConfig& live, std::unique_ptr<http::Listener> listener, store::AdminStore& store,
              const Clock& clock);
  // Which listener a request came in on: the admin listener serves every
  // route; the handler API's own (admin.handler_api_listen) only /v1.
  enum class Side { kAdmin, kHandlerApi };
  void Configure(http::Listener& listener);
  void Route(http::Listener& listener, Side side);
  // The pre-routing gate; true when it answered (the body is then never read).
  bool Gate(const httplib::Request& req, httplib::Response& res, Side side) const;
  void Dispatch(const httplib::Request& req, httplib::Response& res) const;

  const config::LiveConfig& live_;
  // The config in force at Create: the listener's own settings (admin.*).
  const std::shared_ptr<const config::Config> start_;
  // The Host names each listener answers to (HostGuardFor), from start_.
  const config::AdminConfig admin_hosts_;
  const config::AdminConfig handler_hosts_;
  std::unique_ptr<HandlerApi> api_;
  std::unique_ptr<LoginLimiter> limiter_;
  std::unique_ptr<AdminApi> admin_api_;
  // After what its connection threads call: destroyed (and its threads
  // joined) first.
  std::unique_ptr<http::Listener> listener_;
  std::unique_ptr<http::Listener> handler_listener_;  // admin.handler_api_listen; null when unset
  std::thread thread_;
  std::thread handler_thread_;
};

}  // namespace hookinbox::admin
