#include "admin/admin_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>

#include "admin/admin_api.h"
#include "admin/auth.h"
#include "admin/browser_guard.h"
#include "admin/handler_api.h"
#include "admin/login_limiter.h"
#include "admin/routes.h"
#include "common/log.h"
#include "http/certificate.h"
#include "http/connection_guard.h"
#include "http/request_view.h"
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

// Exposes the listening socket, which 0.11.4 keeps protected, so the accept
// backlog can be raised after bind: the Debian .so hard-codes 5, and 20
// handlers calling at once then see connections dropped under load.
template <typename Base>
class Listener final : public Base {
 public:
  using Base::Base;
  socket_t listening_socket() const { return this->svr_sock_; }
};
constexpr int kListenBacklog = 256;

socket_t ListeningSocket(httplib::Server& server) {
  if (auto* tls = dynamic_cast<Listener<httplib::SSLServer>*>(&server)) return tls->listening_socket();
  if (auto* plain = dynamic_cast<Listener<httplib::Server>*>(&server)) return plain->listening_socket();
  return INVALID_SOCKET;
}

// Plain HTTP, or HTTPS when admin.tls_cert and tls_key are set (validation
// makes sure it is both or neither), serving `certificate` (already loaded).
Result<std::unique_ptr<httplib::Server>> MakeServer(http::ServingCertificate* certificate,
                                                     http::ConnectionGuard* guard) {
  if (certificate == nullptr) return std::unique_ptr<httplib::Server>(std::make_unique<Listener<httplib::Server>>());
  auto tls = std::make_unique<Listener<httplib::SSLServer>>([certificate, guard](SSL_CTX& ctx) {
    guard->Attach(&ctx);
    return http::SetUpServerContext(ctx, *certificate);
  });
  if (!tls->is_valid()) return Internal("cannot create the TLS context for admin.listen");
  return std::unique_ptr<httplib::Server>(std::move(tls));
}

bool DeclaresBody(const httplib::Request& req) {
  return req.get_header_value<uint64_t>("Content-Length") > 0 || req.has_header("Transfer-Encoding");
}

}  // namespace

Result<std::unique_ptr<AdminServer>> AdminServer::Create(const config::Config& config, store::SqlStore& store,
                                                         const Clock& clock) {
  std::unique_ptr<http::ServingCertificate> certificate;
  std::unique_ptr<http::ConnectionGuard> guard;
  if (!config.admin.tls_cert.empty()) {
    certificate = std::make_unique<http::ServingCertificate>(config.admin.tls_cert, config.admin.tls_key, clock, "admin");
    if (Status st = certificate->Load(); !st.ok()) return st;
    // The server.* header bounds; no body bound: exports stream for as long as they take.
    http::GuardLimits limits = http::GuardLimitsFor(config.server);
    limits.body_timeout_ms = 0;
    guard = std::make_unique<http::ConnectionGuard>("admin", limits, clock);
  }
  auto server = MakeServer(certificate.get(), guard.get());
  if (!server.ok()) return server.status();
  std::unique_ptr<AdminServer> out(
      new AdminServer(config, std::move(certificate), std::move(server).value(), store, clock));
  out->guard_ = std::move(guard);
  out->Configure();
  out->Route();
  return out;
}

AdminServer::AdminServer(const config::Config& config, std::unique_ptr<http::ServingCertificate> certificate,
                         std::unique_ptr<httplib::Server> server, store::SqlStore& store, const Clock& clock)
    : config_(config),
      certificate_(std::move(certificate)),
      server_(std::move(server)),
      api_(std::make_unique<HandlerApi>(store, clock)),
      limiter_(std::make_unique<LoginLimiter>(clock)),
      auth_(std::make_unique<AdminAuth>(config.admin.token, config.admin.metrics_token, *limiter_)),
      admin_api_(std::make_unique<AdminApi>(config, store, clock)),
      tls_(!config.admin.tls_cert.empty()) {}

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
  server_->set_default_headers(SecurityHeaders());  // on every answer, the library's own included
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
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (guard_) guard_->HeadersComplete(req.ssl);  // the header deadline ends (http/connection_guard.h)
    return Gate(req, res) ? httplib::Server::HandlerResponse::Handled : httplib::Server::HandlerResponse::Unhandled;
  });
  // The gate let through only known paths with their methods and
  // credentials; dispatch is by the same table.
  auto handle = [this](const httplib::Request& req, httplib::Response& res) { Dispatch(req, res); };
  server_->Post(R"([\s\S]*)", handle);
  server_->Put(R"([\s\S]*)", handle);
  server_->Get(R"([\s\S]*)", handle);
  // Called once an answer is written: the connection is idle until its next request.
  server_->set_logger([this](const httplib::Request& req, const httplib::Response&) {
    if (guard_) guard_->ResponseSent(req.ssl);
  });
}

bool AdminServer::Gate(const httplib::Request& req, httplib::Response& res) const {
  if (RefuseForeignHost(config_.admin, req, res)) return true;  // DNS rebinding (browser_guard.h)
  if (api_->Precheck(req, res)) return true;  // 404, 405, 413 for every route
  AdminRoute route = MatchAdminRoute(req.path);
  AuthDecision decision;
  const std::string authorization = req.get_header_value("Authorization");
  if (route.guard == Guard::kAdminToken) decision = auth_->CheckAdmin(authorization, req.remote_addr);
  if (route.guard == Guard::kMetricsToken) decision = auth_->CheckMetrics(authorization, req.remote_addr);
  if (decision.outcome == AuthOutcome::kOk) return false;
  ReplyRefusal(decision, res);
  // The body was not read: end the connection so its bytes are never parsed as a request.
  if (DeclaresBody(req)) http::CloseAfterResponse(res);
  return true;
}

void AdminServer::Dispatch(const httplib::Request& req, httplib::Response& res) const {
  AdminRoute route = MatchAdminRoute(req.path);
  if (route.guard == Guard::kHandlerToken) return api_->Handle(req, res);
  if (req.body.size() > route.max_body) {  // read, but over this route's limit
    return http::ReplyError(res, TooLarge("body is over " + std::to_string(route.max_body) + " bytes"));
  }
  admin_api_->Handle(route, req, res);
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
  if (socket_t fd = ListeningSocket(*server_); fd != INVALID_SOCKET) ::listen(fd, kListenBacklog);
  return Status::Ok();
}

std::string AdminServer::BaseUrl() const {
  return std::string(tls_ ? "https://" : "http://") + UrlHost(host_) + ":" + std::to_string(port_);
}

std::string AdminServer::HandlerApiBase() const {
  std::string host = host_;
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  return std::string(tls_ ? "https://" : "http://") + UrlHost(host) + ":" + std::to_string(port_) + "/v1";
}

void AdminServer::Start() {
  if (guard_) guard_->Start();
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

Status AdminServer::ReloadCertificate() { return certificate_ ? certificate_->Reload() : Status::Ok(); }

std::shared_ptr<const http::CertificatePair> AdminServer::Certificate() const {
  return certificate_ ? certificate_->Current() : nullptr;
}

}  // namespace hookinbox::admin
