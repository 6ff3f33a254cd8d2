#include "admin/admin_server.h"

#include <httplib.h>

#include "admin/admin_api.h"
#include "admin/auth.h"
#include "admin/browser_guard.h"
#include "admin/handler_api.h"
#include "admin/login_limiter.h"
#include "admin/routes.h"
#include "admin/secret_json.h"
#include "common/log.h"
#include "http/certificate.h"
#include "http/listener.h"
#include "http/request_gate.h"
#include "http/request_view.h"
#include "http/respond.h"
#include "store/ledger.h"

namespace hookinbox::admin {
namespace {

// Handlers are few (the worker's threads, a person's browser); a handler
// waits for its answer, so the pool need not match the public listener's,
// but must stay above the per-address cap (handlers share one address).
constexpr int kThreads = 48;
constexpr int kListenBacklog = 256;
constexpr int kTimeoutSeconds = 30;
constexpr int kKeepAliveRequests = 100;

http::ListenerOptions AdminListenerOptions(const config::Config& config) {
  http::ListenerOptions o;
  o.name = "admin";
  o.listen = config.admin.listen;
  o.tls_cert = config.admin.tls_cert;  // validation: both or neither
  o.tls_key = config.admin.tls_key;
  o.threads = kThreads;
  o.backlog = kListenBacklog;
  o.max_connections = config.admin.max_connections;
  o.max_connections_per_address = config.admin.max_connections_per_address;
  o.keep_alive_max_requests = kKeepAliveRequests;
  o.keep_alive_timeout_seconds = config.server.keep_alive_timeout_seconds;
  o.read_timeout_seconds = kTimeoutSeconds;
  o.write_timeout_seconds = kTimeoutSeconds;
  o.payload_max_bytes = kAdminDrainLimit;  // the routes' own caps come first (ReadCappedBody)
  // The server.* header bounds; no body bound: exports stream for as long as they take.
  o.guard = http::GuardLimitsFor(config.server);
  o.guard.body_timeout_ms = 0;
  o.exception_event = "admin_handler_exception";
  return o;
}

// The handler API's own listener (admin.handler_api_listen): the admin
// listener's settings on another address.
http::ListenerOptions HandlerListenerOptions(const config::Config& config) {
  http::ListenerOptions o = AdminListenerOptions(config);
  o.name = "handler_api";
  o.listen = config.admin.handler_api_listen;
  return o;
}

// The Host names a listener on `listen` answers to: its own, admin.allowed_hosts,
// and the host of admin.handler_api_url (handlers are told to call it by that name).
config::AdminConfig HostGuardFor(const config::AdminConfig& admin, const std::string& listen) {
  config::AdminConfig out = admin;
  out.listen = listen;
  const std::string& url = admin.handler_api_url;
  if (const size_t scheme = url.find("://"); scheme != std::string::npos) {
    const std::string authority = url.substr(scheme + 3, url.find('/', scheme + 3) - (scheme + 3));
    out.allowed_hosts.push_back(authority);
  }
  return out;
}

std::string BaseOf(const http::Listener& listener) {
  std::string host = listener.host();
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return std::string(listener.tls() ? "https://" : "http://") + host + ":" + std::to_string(listener.port());
}

}  // namespace

Result<std::unique_ptr<AdminServer>> AdminServer::Create(const config::LiveConfig& live, store::AdminStore& store,
                                                         const Clock& clock) {
  const std::shared_ptr<const config::Config> config = live.Current();
  auto listener = http::Listener::Create(AdminListenerOptions(*config), clock);
  if (!listener.ok()) return listener.status();
  std::unique_ptr<AdminServer> out(new AdminServer(live, std::move(listener).value(), store, clock));
  out->Configure(*out->listener_);
  out->Route(*out->listener_, Side::kAdmin);
  if (!config->admin.handler_api_listen.empty()) {
    auto handler = http::Listener::Create(HandlerListenerOptions(*config), clock);
    if (!handler.ok()) return handler.status();
    out->handler_listener_ = std::move(handler).value();
    out->Configure(*out->handler_listener_);
    out->Route(*out->handler_listener_, Side::kHandlerApi);
  }
  return out;
}

AdminServer::AdminServer(const config::LiveConfig& live, std::unique_ptr<http::Listener> listener,
                         store::AdminStore& store, const Clock& clock)
    : live_(live),
      start_(live.Current()),
      admin_hosts_(HostGuardFor(start_->admin, start_->admin.listen)),
      handler_hosts_(HostGuardFor(start_->admin, start_->admin.handler_api_listen)),
      api_(std::make_unique<HandlerApi>(store, live, clock)),
      limiter_(std::make_unique<LoginLimiter>(clock)),
      admin_api_(std::make_unique<AdminApi>(live, store, clock)),
      listener_(std::move(listener)) {}

void AdminServer::SetReloadHook(std::function<config::ReloadAnswer(const config::ReloadAsk&)> hook) {
  admin_api_->SetReloadHook(std::move(hook));
}

void AdminServer::SetSecretHook(std::function<config::SecretRotateAnswer(const config::SecretRotateAsk&)> hook) {
  admin_api_->SetSecretHook(std::move(hook));
}

AdminServer::~AdminServer() { Stop(); }

void AdminServer::Configure(http::Listener& listener) {
  httplib::Server& routes = listener.routes();
  routes.set_default_headers(SecurityHeaders());  // on every answer, the library's own included
  // Answers the library writes itself (400 for an unparsable request, 413
  // past the payload limit) get a JSON body like ours.
  httplib::Server::HandlerWithResponse on_error = [](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty() || res.content_provider_) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == http::HttpStatusFor(Code::kTooLarge)) {
      http::ReplyError(res, TooLarge("body is over " + std::to_string(kAdminDrainLimit) + " bytes"));
    } else {
      http::ReplyJson(res, res.status, R"({"error":"bad request"})");
    }
    return httplib::Server::HandlerResponse::Handled;
  };
  listener.SetErrorAnswer(std::move(on_error));
}

void AdminServer::Route(http::Listener& listener, Side side) {
  listener.SetGate([this, side](const httplib::Request& req, httplib::Response& res) {
    return Gate(req, res, side) ? httplib::Server::HandlerResponse::Handled
                                : httplib::Server::HandlerResponse::Unhandled;
  });
  // The gate let through only known paths with their methods and
  // credentials; dispatch is by the same table. Bodies are read here, each
  // with its route's cap, never by the library.
  auto handle = [this](const httplib::Request& req, httplib::Response& res) { Dispatch(req, res); };
  auto handle_body = [this](const httplib::Request& req, httplib::Response& res,
                            const httplib::ContentReader& reader) {
    AdminRoute route = MatchAdminRoute(req.path);
    bool fully_read = true;
    auto body = http::ReadCappedBody(req, reader, static_cast<int64_t>(route.max_body), &fully_read, kAdminDrainLimit);
    if (!body.ok()) {
      http::ReplyError(res, body.status().code() == Code::kTooLarge
                                ? TooLarge("body is over " + std::to_string(route.max_body) + " bytes")
                                : body.status());
      if (!fully_read) http::CloseAfterResponse(res);
      return;
    }
    httplib::Request with_body = req;
    with_body.body = std::move(body).value();
    Dispatch(with_body, res);
    // A body may hold a secret (…/secret/rotate): zeroed before its memory is freed.
    WipeBytes(with_body.body);
  };
  httplib::Server& routes = listener.routes();
  routes.Post(R"([\s\S]*)", handle_body);
  routes.Put(R"([\s\S]*)", handle_body);
  routes.Get(R"([\s\S]*)", handle);
}

bool AdminServer::Gate(const httplib::Request& req, httplib::Response& res, Side side) const {
  // allowed_hosts belongs to the listener: as loaded at start.
  const config::AdminConfig& hosts = side == Side::kHandlerApi ? handler_hosts_ : admin_hosts_;
  if (RefuseForeignHost(hosts, req, res)) return true;  // DNS rebinding (browser_guard.h)
  AdminRoute route = MatchAdminRoute(req.path);
  if (side == Side::kHandlerApi && (route.id == RouteId::kNone || route.guard != Guard::kHandlerToken)) {
    // Only /v1 here: the admin UI, API and /metrics are not even named on this address.
    http::AnswerUnread(req, res, NotFound("no such route"));
    return true;
  }
  if (api_->Precheck(req, res)) return true;  // 404, 405, 413 for every route
  AuthDecision decision;
  const std::string authorization = req.get_header_value("Authorization");
  if (route.guard == Guard::kAdminToken || route.guard == Guard::kMetricsToken) {
    // The tokens in force now, so a reload rotates them (the old token stops
    // opening anything at once); the failed-login counts stay with the limiter.
    const std::shared_ptr<const config::Config> config = live_.Current();
    AdminAuth auth(config->admin.token, config->admin.metrics_token, *limiter_);
    if (route.guard == Guard::kAdminToken) decision = auth.CheckAdmin(authorization, req.remote_addr);
    if (route.guard == Guard::kMetricsToken) decision = auth.CheckMetrics(authorization, req.remote_addr);
  }
  if (route.guard == Guard::kHandlerToken && BearerToken(authorization).empty()) {
    // Without a token nothing is read: the body of a caller who cannot be
    // let in is not worth a byte of memory (the token itself is checked
    // after the body, with the event it belongs to).
    http::AnswerUnread(req, res, Unauthenticated("no handler token"));
    res.set_header("WWW-Authenticate", "Bearer");
    return true;
  }
  if (decision.outcome == AuthOutcome::kOk) return false;
  ReplyRefusal(decision, res);
  // The body was not read: end the connection so its bytes are never parsed as a request.
  if (http::DeclaresBody(req)) http::CloseAfterRequest(req, res);
  return true;
}

// Bodies arrive read with their route's cap (Route), so none is over it here.
void AdminServer::Dispatch(const httplib::Request& req, httplib::Response& res) const {
  AdminRoute route = MatchAdminRoute(req.path);
  if (route.guard == Guard::kHandlerToken) return api_->Handle(req, res);
  admin_api_->Handle(route, req, res);
}

Status AdminServer::Bind() {
  if (Status st = listener_->Bind(); !st.ok()) return st;
  if (!handler_listener_) return Status::Ok();
  Status st = handler_listener_->Bind();
  if (st.ok()) return st;
  // The listener names itself "handler_api.listen"; the operator edits admin.handler_api_listen.
  std::string message = st.message();
  if (size_t at = message.find("handler_api.listen"); at != std::string::npos) {
    message.replace(at, std::string_view("handler_api.listen").size(), "admin.handler_api_listen");
  }
  return Status(st.code(), std::move(message));
}

int AdminServer::port() const { return listener_->port(); }

std::string AdminServer::BaseUrl() const { return listener_->BaseUrl(); }

int AdminServer::handler_api_port() const { return handler_listener_ ? handler_listener_->port() : 0; }

std::string AdminServer::HandlerApiBase() const {
  if (!start_->admin.handler_api_url.empty()) return start_->admin.handler_api_url + "/v1";
  return BaseOf(handler_listener_ ? *handler_listener_ : *listener_) + "/v1";
}

void AdminServer::Start() {
  thread_ = std::thread([this] {
    if (Status st = listener_->Run(); !st.ok()) log::Error("admin_listener_stopped", {{"error", st.message()}});
  });
  if (!handler_listener_) return;
  handler_thread_ = std::thread([this] {
    if (Status st = handler_listener_->Run(); !st.ok()) {
      log::Error("handler_api_listener_stopped", {{"error", st.message()}});
    }
  });
}

void AdminServer::Stop() {
  // Each also when Run has not begun yet: it then returns at once.
  if (handler_thread_.joinable()) {
    handler_listener_->Stop();
    handler_thread_.join();
  }
  if (!thread_.joinable()) return;
  listener_->Stop();
  thread_.join();
}

Status AdminServer::ReloadCertificate() {
  if (Status st = listener_->ReloadCertificate(); !st.ok()) return st;
  return handler_listener_ ? handler_listener_->ReloadCertificate() : Status::Ok();
}

std::shared_ptr<const http::CertificatePair> AdminServer::Certificate() const { return listener_->Certificate(); }

}  // namespace hookinbox::admin
