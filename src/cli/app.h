// cli/app.h — the long-lived objects of `serve`, in construction order.
//
// The only place that sees every module: it opens the store, builds the
// public server on it, and tears them down in reverse (stop accepting, let
// in-flight requests finish, then close the database).
#pragma once

#include <memory>

#include "common/clock.h"
#include "config/config.h"
#include "http/server.h"
#include "store/sqlite_store.h"

namespace hookinbox::cli {

class App {
 public:
  explicit App(config::Config config) : config_(std::move(config)) {}
  ~App();

  // Opens the database and binds the listener. Errors name what failed.
  Status Start();
  // Serves until Stop() is called from another thread.
  Status Run();
  // Stops accepting; Run() returns once in-flight requests are answered.
  // False when the listener was not running yet (call again).
  bool Stop();
  // Closes the database after Run() returned.
  void Close();

  const config::Config& config() const { return config_; }
  std::string BaseUrl() const { return server_ ? server_->BaseUrl() : ""; }

 private:
  const config::Config config_;
  SystemClock clock_;
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<http::PublicServer> server_;
};

}  // namespace hookinbox::cli
