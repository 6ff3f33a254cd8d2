// admin/admin_server.h — the admin listener (SPEC §3: default
// 127.0.0.1:8081, plain HTTP on loopback). The admin module owns what is
// served there: today the handler API (/v1, handler_api.h); the web UI,
// /admin/api and /metrics arrive with the admin issue. It may use common,
// config, store and the http module's answer helpers (tests/layering.sh);
// it never sees the worker or the receive path.
//
// Owns: the cpp-httplib server with its limits, binding admin.listen (a
// taken port is an error naming it), and the thread it serves on. It is
// stopped after the worker, because running actions call it until they end.
// Thread-safety: Create/Bind/Start/Stop from one thread.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/status.h"
#include "config/config.h"
#include "store/ledger.h"

namespace httplib {
class Server;
}

namespace hookinbox::admin {

class HandlerApi;

class AdminServer {
 public:
  static Result<std::unique_ptr<AdminServer>> Create(const config::Config& config, store::Ledger& ledger,
                                                     const Clock& clock);
  ~AdminServer();  // Stop()s

  // Binds admin.listen (port 0 picks a free port). Unavailable, naming
  // admin.listen, when it is taken.
  Status Bind();
  int port() const { return port_; }
  // "http://127.0.0.1:8081" — the address as bound.
  std::string BaseUrl() const;
  // What handlers call: BaseUrl() + "/v1", with a loopback host when the
  // listener is bound to every address (0.0.0.0, [::]).
  std::string HandlerApiBase() const;

  // Serves on its own thread until Stop(). Requires a successful Bind().
  void Start();
  // Stops serving and joins the thread; in-flight requests finish first.
  // Harmless when not started or already stopped.
  void Stop();

 private:
  AdminServer(const config::Config& config, std::unique_ptr<httplib::Server> server,
              std::unique_ptr<HandlerApi> api);
  void Configure();
  void Route();

  const config::Config& config_;
  std::unique_ptr<httplib::Server> server_;
  std::unique_ptr<HandlerApi> api_;
  std::string host_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace hookinbox::admin
