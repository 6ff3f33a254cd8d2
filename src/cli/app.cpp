#include "cli/app.h"

namespace hookinbox::cli {

App::~App() { Close(); }

Status App::Start() {
  auto store = store::SqliteStore::Open(
      {config_.storage.path, config_.storage.busy_timeout_ms, config_.storage.max_batch});
  if (!store.ok()) return store.status();
  store_ = std::move(store).value();
  auto server = http::PublicServer::Create(config_, *store_, clock_);
  if (!server.ok()) return server.status();
  server_ = std::move(server).value();
  return server_->Bind();
}

Status App::Run() { return server_->Run(); }

bool App::Stop() { return server_ != nullptr && server_->Stop(); }

void App::Close() {
  server_.reset();
  if (store_) store_->Close();
}

}  // namespace hookinbox::cli
