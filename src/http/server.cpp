#include "http/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>

#include "common/log.h"
#include "http/certificate.h"
#include "http/connection_guard.h"
#include "http/receive.h"
#include "http/respond.h"
#include "http/routes.h"

namespace hookinbox::http {
namespace {

// Gives access to the listening socket, which 0.11.4 keeps protected, so the
// accept backlog can be raised after bind (the .so hard-codes 5).
template <typename Base>
class Listener final : public Base {
 public:
  using Base::Base;
  socket_t listening_socket() const { return this->svr_sock_; }
};

socket_t ListeningSocket(httplib::Server& server) {
  if (auto* tls = dynamic_cast<Listener<httplib::SSLServer>*>(&server)) return tls->listening_socket();
  if (auto* plain = dynamic_cast<Listener<httplib::Server>*>(&server)) return plain->listening_socket();
  return INVALID_SOCKET;
}

}  // namespace

Result<std::unique_ptr<PublicServer>> PublicServer::Create(const config::Config& config, store::Store& store,
                                                           const Clock& clock, ServerHooks hooks) {
  std::unique_ptr<ServingCertificate> certificate;
  std::unique_ptr<ConnectionGuard> guard;
  std::unique_ptr<httplib::Server> server;
  if (config.server.plain_http) {
    server = std::make_unique<Listener<httplib::Server>>();
  } else {
    certificate = std::make_unique<ServingCertificate>(config.server.tls_cert, config.server.tls_key, clock, "server");
    if (Status st = certificate->Load(); !st.ok()) return st;
    ServingCertificate* cert = certificate.get();
    guard = std::make_unique<ConnectionGuard>("server", GuardLimitsFor(config.server), clock);
    ConnectionGuard* g = guard.get();
    // The certificate is chosen per handshake (certificate.h), never stored in the ctx.
    auto tls = std::make_unique<Listener<httplib::SSLServer>>([cert, g](SSL_CTX& ctx) {
      g->Attach(&ctx);
      return SetUpServerContext(ctx, *cert);
    });
    if (!tls->is_valid()) return Internal("cannot create the TLS context for server.listen");
    server = std::move(tls);
  }
  auto receiver = std::make_unique<Receiver>(config, store, clock, hooks.on_accepted);
  std::unique_ptr<PublicServer> out(new PublicServer(config, store, std::move(certificate), std::move(guard),
                                                     std::move(server), std::move(receiver), std::move(hooks)));
  out->Configure();
  out->Route();
  return out;
}

PublicServer::PublicServer(const config::Config& config, store::Store& store,
                           std::unique_ptr<ServingCertificate> certificate, std::unique_ptr<ConnectionGuard> guard,
                           std::unique_ptr<httplib::Server> server, std::unique_ptr<Receiver> receiver,
                           ServerHooks hooks)
    : config_(config), store_(store), certificate_(std::move(certificate)), guard_(std::move(guard)),
      server_(std::move(server)), receiver_(std::move(receiver)), hooks_(std::move(hooks)) {}

PublicServer::~PublicServer() = default;

void PublicServer::Configure() {
  const auto& s = config_.server;
  int threads = s.threads;
  // A keep-alive connection holds a thread for its lifetime: size the pool
  // for concurrent senders, not for cores.
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  server_->set_tcp_nodelay(true);
  // The library's default adds SO_REUSEPORT, which lets a second hookinbox
  // bind the same port and silently split traffic with the first. REUSEADDR
  // alone still allows a quick restart, and a taken port is an error.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_->set_keep_alive_max_count(static_cast<size_t>(s.keep_alive_max_requests));
  server_->set_keep_alive_timeout(s.keep_alive_timeout_seconds);
  server_->set_read_timeout(s.read_timeout_seconds, 0);
  server_->set_write_timeout(s.write_timeout_seconds, 0);
  // The receive handler enforces each endpoint's own limit while reading;
  // this is the library's backstop at the largest of them.
  int64_t largest = s.max_body_bytes;
  for (const auto& e : config_.endpoints) largest = std::max(largest, config_.MaxBodyBytes(e));
  server_->set_payload_max_length(static_cast<size_t>(largest));
  server_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    ReplyToException("handler_exception", res, ep);
  });
}

void PublicServer::Route() {
  const Receiver* receiver = receiver_.get();
  ConnectionGuard* guard = guard_.get();
  server_->Post(kHooksPattern, [receiver](const httplib::Request& req, httplib::Response& res,
                                          const httplib::ContentReader& reader) {
    receiver->HandlePost(req, res, reader);
  });
  // Every other method that reaches /hooks/… is answered (and audited) here,
  // before the library would read a body or route it.
  server_->set_pre_routing_handler([receiver, guard](const httplib::Request& req, httplib::Response& res) {
    // The library runs this right after the headers: the guard's header
    // deadline ends here and the body's begins (http/connection_guard.h).
    if (guard != nullptr) guard->HeadersComplete(req.ssl);
    if (!IsHooksPath(req.path) || req.method == "POST") return httplib::Server::HandlerResponse::Unhandled;
    receiver->HandleOtherMethod(req, res);
    return httplib::Server::HandlerResponse::Handled;
  });
  // The library calls the logger once the answer is written.
  server_->set_logger([receiver, guard](const httplib::Request& req, const httplib::Response& res) {
    if (guard != nullptr) guard->ResponseSent(req.ssl);
    receiver->AuditIfUnrecorded(req, res);
  });
  server_->Get(kHealthzPath, [](const httplib::Request&, httplib::Response& res) {
    ReplyJson(res, 200, R"({"status":"ok"})");
  });
  store::Store* store = &store_;
  const std::function<bool()>* worker_ready = &hooks_.worker_ready;
  server_->Get(kReadyzPath, [store, worker_ready](const httplib::Request&, httplib::Response& res) {
    if (*worker_ready && !(*worker_ready)()) {
      ReplyJson(res, 503, R"({"status":"not ready","worker":"not running"})");
      return;
    }
    Status st = store->CheckWritable();
    if (st.ok()) {
      ReplyJson(res, 200, R"({"status":"ready"})");
    } else {
      ReplyJson(res, 503, R"({"status":"not ready","database":"unavailable"})");
    }
  });
}

Status PublicServer::Bind() {
  auto listen = config::SplitListen(config_.server.listen);
  if (!listen) return InvalidArgument("server.listen: expected host:port, got " + config_.server.listen);
  host_ = listen->host;
  port_ = listen->port;
  if (port_ == 0) {
    port_ = server_->bind_to_any_port(host_);
    if (port_ <= 0) return Unavailable("cannot listen on " + config_.server.listen);
  } else if (!server_->bind_to_port(host_, port_)) {
    return Unavailable("cannot listen on " + config_.server.listen + ": address in use or not available");
  }
  socket_t fd = ListeningSocket(*server_);
  if (fd != INVALID_SOCKET) ::listen(fd, config_.server.listen_backlog);
  return Status::Ok();
}

std::string PublicServer::BaseUrl() const {
  std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  return std::string(config_.server.plain_http ? "http" : "https") + "://" + host + ":" + std::to_string(port_);
}

Status PublicServer::Run() {
  if (guard_) guard_->Start();
  if (!server_->listen_after_bind()) return Unavailable("listener on " + BaseUrl() + " stopped with an error");
  return Status::Ok();
}

bool PublicServer::Stop() {
  std::lock_guard<std::mutex> lock(stop_mu_);
  if (stopped_) return true;
  if (!server_->is_running()) return false;
  server_->stop();
  stopped_ = true;
  return true;
}

Status PublicServer::ReloadCertificate() { return certificate_ ? certificate_->Reload() : Status::Ok(); }

std::shared_ptr<const CertificatePair> PublicServer::Certificate() const {
  return certificate_ ? certificate_->Current() : nullptr;
}

}  // namespace hookinbox::http
