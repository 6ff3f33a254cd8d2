#include "admin/admin_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>

#include "admin/handler_api.h"
#include "common/log.h"
#include "http/respond.h"
#include "store/ledger.h"

namespace hookinbox::admin {
namespace {

// Handlers are few (the worker's threads, a person's browser); a handler
// waits for its answer, so the pool need not match the public listener's.
constexpr size_t kThreads = 16;
constexpr time_t kTimeoutSeconds = 30;
constexpr size_t kKeepAliveRequests = 100;
constexpr size_t kPayloadMax = store::kMaxStepBytes;

std::string UrlHost(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

}  // namespace

Result<std::unique_ptr<AdminServer>> AdminServer::Create(const config::Config& config, store::Ledger& ledger,
                                                         const Clock& clock) {
  auto api = std::make_unique<HandlerApi>(ledger, clock);
  std::unique_ptr<AdminServer> out(new AdminServer(config, std::make_unique<httplib::Server>(), std::move(api)));
  out->Configure();
  out->Route();
  return out;
}

AdminServer::AdminServer(const config::Config& config, std::unique_ptr<httplib::Server> server,
                         std::unique_ptr<HandlerApi> api)
    : config_(config), server_(std::move(server)), api_(std::move(api)) {}

AdminServer::~AdminServer() { Stop(); }

void AdminServer::Configure() {
  server_->new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  server_->set_tcp_nodelay(true);
  // As on the public listener: no SO_REUSEPORT, so a second instance cannot
  // share the port silently.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_->set_keep_alive_max_count(kKeepAliveRequests);
  server_->set_read_timeout(kTimeoutSeconds, 0);
  server_->set_write_timeout(kTimeoutSeconds, 0);
  server_->set_payload_max_length(kPayloadMax);
  server_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    http::ReplyToException("admin_handler_exception", res, ep);
  });
  // Answers the library writes itself (400 for an unparsable request, 413
  // past the payload limit) get a JSON body like ours.
  httplib::Server::HandlerWithResponse on_error = [](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty() || res.content_provider_) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == http::HttpStatusFor(Code::kTooLarge)) {
      http::ReplyError(res, TooLarge("body is over " + std::to_string(kPayloadMax) + " bytes"));
    } else {
      http::ReplyJson(res, res.status, R"({"error":"bad request"})");
    }
    return httplib::Server::HandlerResponse::Handled;
  };
  server_->set_error_handler(std::move(on_error));
}

void AdminServer::Route() {
  const HandlerApi* api = api_.get();
  server_->set_pre_routing_handler([api](const httplib::Request& req, httplib::Response& res) {
    return api->Precheck(req, res) ? httplib::Server::HandlerResponse::Handled
                                   : httplib::Server::HandlerResponse::Unhandled;
  });
  // Precheck let through only known paths with their methods; the api
  // dispatches by the same table.
  auto handle = [api](const httplib::Request& req, httplib::Response& res) { api->Handle(req, res); };
  server_->Post(R"([\s\S]*)", handle);
  server_->Put(R"([\s\S]*)", handle);
  server_->Get(R"([\s\S]*)", handle);
}

Status AdminServer::Bind() {
  auto listen = config::SplitListen(config_.admin.listen);
  if (!listen) return InvalidArgument("admin.listen: expected host:port, got " + config_.admin.listen);
  host_ = listen->host;
  port_ = listen->port;
  if (port_ == 0) {
    port_ = server_->bind_to_any_port(host_);
    if (port_ <= 0) return Unavailable("cannot listen on admin.listen " + config_.admin.listen);
  } else if (!server_->bind_to_port(host_, port_)) {
    return Unavailable("cannot listen on admin.listen " + config_.admin.listen +
                       ": address in use or not available");
  }
  return Status::Ok();
}

std::string AdminServer::BaseUrl() const { return "http://" + UrlHost(host_) + ":" + std::to_string(port_); }

std::string AdminServer::HandlerApiBase() const {
  std::string host = host_;
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  return "http://" + UrlHost(host) + ":" + std::to_string(port_) + "/v1";
}

void AdminServer::Start() {
  thread_ = std::thread([this] {
    if (!server_->listen_after_bind()) log::Error("admin_listener_stopped", {{"url", BaseUrl()}});
  });
}

void AdminServer::Stop() {
  if (!thread_.joinable()) return;
  // The library ignores stop() until its loop runs; the thread was just
  // started, so wait for that (bounded: the loop starts at once).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!server_->is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  server_->stop();
  thread_.join();
}

}  // namespace hookinbox::admin
