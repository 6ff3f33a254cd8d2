#include "http/server.h"

#include <httplib.h>

#include <algorithm>

#include "common/log.h"
#include "http/certificate.h"
#include "http/listener.h"
#include "http/receive.h"
#include "http/request_gate.h"
#include "http/respond.h"
#include "http/routes.h"

namespace hookinbox::http {
namespace {

ListenerOptions PublicListenerOptions(const config::Config& config) {
  const auto& s = config.server;
  ListenerOptions o;
  o.name = "server";
  o.listen = s.listen;
  if (!s.plain_http) {
    o.tls_cert = s.tls_cert;
    o.tls_key = s.tls_key;
  }
  // A keep-alive connection holds a thread for its lifetime: size the pool
  // for concurrent senders, not for cores.
  o.threads = s.threads;
  o.backlog = s.listen_backlog;
  o.max_connections = s.max_connections;
  o.max_connections_per_address = s.max_connections_per_address;
  o.keep_alive_max_requests = s.keep_alive_max_requests;
  o.keep_alive_timeout_seconds = s.keep_alive_timeout_seconds;
  o.read_timeout_seconds = s.read_timeout_seconds;
  o.write_timeout_seconds = s.write_timeout_seconds;
  // The receive handler enforces each endpoint's own limit while reading;
  // this is the library's backstop at the largest of them, fixed when the
  // listener is built: a reload that raises an endpoint's max_body_bytes
  // above it is refused by the library (413) until a restart.
  int64_t largest = s.max_body_bytes;
  for (const auto& e : config.endpoints) largest = std::max(largest, config.MaxBodyBytes(e));
  o.payload_max_bytes = static_cast<size_t>(largest);
  o.guard = GuardLimitsFor(s);
  return o;
}

bool IsProbePath(const std::string& path) { return path == kHealthzPath || path == kReadyzPath; }

// /healthz and /readyz take GET (and HEAD).
httplib::Server::HandlerResponse AnswerProbeMisuse(const httplib::Request& req, httplib::Response& res) {
  if (req.method == "GET" || req.method == "HEAD") return httplib::Server::HandlerResponse::Unhandled;
  AnswerUnread(req, res, NotAllowed("method not allowed; use GET"));
  res.headers.erase("Allow");
  res.set_header("Allow", "GET, HEAD");
  return httplib::Server::HandlerResponse::Handled;
}

}  // namespace

Result<std::unique_ptr<PublicServer>> PublicServer::Create(const config::LiveConfig& live, store::Ingest& store,
                                                           const Clock& clock, ServerHooks hooks) {
  // The listener keeps the settings in force now; requests read `live`.
  auto listener = Listener::Create(PublicListenerOptions(*live.Current()), clock);
  if (!listener.ok()) return listener.status();
  auto receiver = std::make_unique<Receiver>(live, store, clock, hooks.on_accepted);
  std::unique_ptr<PublicServer> out(
      new PublicServer(store, std::move(receiver), std::move(listener).value(), std::move(hooks)));
  out->Route();
  return out;
}

PublicServer::PublicServer(store::Ingest& store, std::unique_ptr<Receiver> receiver,
                           std::unique_ptr<Listener> listener, ServerHooks hooks)
    : store_(store), receiver_(std::move(receiver)), listener_(std::move(listener)), hooks_(std::move(hooks)) {}

PublicServer::~PublicServer() = default;

void PublicServer::Route() {
  const Receiver* receiver = receiver_.get();
  httplib::Server& routes = listener_->routes();
  routes.Post(kHooksPattern, [receiver](const httplib::Request& req, httplib::Response& res,
                                        const httplib::ContentReader& reader) {
    receiver->HandlePost(req, res, reader);
  });
  // Every route is decided here from the headers, before the library would
  // read a body: other methods on /hooks/… are answered (and audited) by the
  // receiver; unknown paths are 404.
  listener_->SetGate([receiver](const httplib::Request& req, httplib::Response& res) {
    if (IsHooksPath(req.path)) {
      if (req.method == "POST") return httplib::Server::HandlerResponse::Unhandled;
      receiver->HandleOtherMethod(req, res);
      return httplib::Server::HandlerResponse::Handled;
    }
    if (IsProbePath(req.path)) return AnswerProbeMisuse(req, res);
    AnswerUnread(req, res, NotFound("no such route"));
    return httplib::Server::HandlerResponse::Handled;
  });
  // Answers the library or the gate wrote on /hooks/… get their audit row.
  listener_->SetAfterResponse([receiver](const httplib::Request& req, const httplib::Response& res) {
    receiver->AuditIfUnrecorded(req, res);
  });
  routes.Get(kHealthzPath, [](const httplib::Request&, httplib::Response& res) {
    ReplyJson(res, 200, R"({"status":"ok"})");
  });
  store::Ingest* store = &store_;
  const std::function<bool()>* worker_ready = &hooks_.worker_ready;
  routes.Get(kReadyzPath, [store, worker_ready](const httplib::Request&, httplib::Response& res) {
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

Status PublicServer::Bind() { return listener_->Bind(); }

int PublicServer::port() const { return listener_->port(); }

std::string PublicServer::BaseUrl() const { return listener_->BaseUrl(); }

Status PublicServer::Run() { return listener_->Run(); }

bool PublicServer::Stop() { return listener_->Stop(); }

Status PublicServer::ReloadCertificate() { return listener_->ReloadCertificate(); }

std::shared_ptr<const CertificatePair> PublicServer::Certificate() const { return listener_->Certificate(); }

}  // namespace hookinbox::http
