#include "http/listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "common/log.h"
#include "common/metrics.h"
#include "config/config.h"
#include "http/certificate.h"
#include "http/request_gate.h"
#include "http/respond.h"
#include "http/tls.h"

namespace hookinbox::http {
namespace {

// Gives access to the listening socket, which 0.11.4 keeps protected: the
// accept loop below runs on it, and clearing it ends the library's
// keep-alive loops (they run while it is valid).
template <typename Base>
class OpenServer final : public Base {
 public:
  using Base::Base;
  socket_t listening_socket() const { return this->svr_sock_; }
  socket_t ReleaseListeningSocket() { return this->svr_sock_.exchange(INVALID_SOCKET); }
};

template <typename F>
auto WithOpenServer(httplib::Server& server, F f) {
  if (auto* tls = dynamic_cast<OpenServer<httplib::SSLServer>*>(&server)) return f(*tls);
  return f(dynamic_cast<OpenServer<httplib::Server>&>(server));
}

// cpp-httplib 0.11.4 serves one accepted connection in the private virtual
// Server::process_and_close_socket (SSLServer's override adds the TLS
// handshake) and offers no public way to serve a socket accepted elsewhere.
// An explicit instantiation may name a private member (C++20
// [temp.spec.general]/6): this one exports the member pointer, and calling
// through it dispatches virtually, to the TLS override where there is one.
using ServeSocketFn = bool (httplib::Server::*)(socket_t);
struct ServeSocketTag {};
ServeSocketFn ServeSocketMember(ServeSocketTag);
template <ServeSocketFn F>
struct ExportServeSocket {
  friend ServeSocketFn ServeSocketMember(ServeSocketTag) { return F; }
};
template struct ExportServeSocket<&httplib::Server::process_and_close_socket>;

std::string PeerText(const sockaddr_storage& addr) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&addr)->sin_addr, buf, sizeof buf);
  } else if (addr.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

// Closes with a reset: a refused or expired peer learns at once, and no
// socket lingers in FIN-WAIT with its buffers.
void Reset(int fd) {
  linger abortive{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  ::close(fd);
}

void SetTimeout(int fd, int option, int seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

// Whether the calling thread's current request reached the pre-routing
// handler: answers the library writes before it (400 for a bad request line
// or header, 414, 416) leave a declared body unread.
thread_local bool t_routed = false;

constexpr int kSweepPeriodMs = 100;
constexpr int kAcceptBatch = 256;  // then the waiting room gets its turn
constexpr int64_t kRefusalLogPeriodMs = 1000;

}  // namespace

Result<std::unique_ptr<Listener>> Listener::Create(ListenerOptions options, const Clock& clock) {
  std::unique_ptr<ServingCertificate> certificate;
  std::unique_ptr<httplib::Server> server;
  if (options.tls_cert.empty()) {
    server = std::make_unique<OpenServer<httplib::Server>>();
  } else {
    certificate = std::make_unique<ServingCertificate>(options.tls_cert, options.tls_key, clock, options.name);
    if (Status st = certificate->Load(); !st.ok()) return st;
    ServingCertificate* cert = certificate.get();
    // The certificate is chosen per handshake (certificate.h), never stored in the ctx.
    auto tls = std::make_unique<OpenServer<httplib::SSLServer>>([cert](SSL_CTX& ctx) {
      ConnectionGuard::Attach(&ctx);
      return SetUpServerContext(ctx, *cert);
    });
    if (!tls->is_valid()) return Internal("cannot create the TLS context for " + options.name + ".listen");
    server = std::move(tls);
  }
  std::unique_ptr<Listener> out(new Listener(std::move(options), clock, std::move(certificate), std::move(server)));
  out->Configure();
  return out;
}

Listener::Listener(ListenerOptions options, const Clock& clock, std::unique_ptr<ServingCertificate> certificate,
                   std::unique_ptr<httplib::Server> server)
    : options_(std::move(options)),
      clock_(clock),
      certificate_(std::move(certificate)),
      guard_(options_.name, options_.guard, clock),
      server_(std::move(server)),
      admission_(options_.max_connections, options_.max_connections_per_address),
      epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)),
      wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

Listener::~Listener() {
  Stop();
  // Bound but never run (or Run ended early): the socket is still ours.
  socket_t listening = WithOpenServer(*server_, [](auto& s) { return s.ReleaseListeningSocket(); });
  if (listening != INVALID_SOCKET) ::close(listening);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void Listener::Configure() {
  server_->set_tcp_nodelay(true);
  // The library's default adds SO_REUSEPORT, which lets a second hookinbox
  // bind the same port and silently split traffic with the first. REUSEADDR
  // alone still allows a quick restart, and a taken port is an error.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_->set_keep_alive_max_count(static_cast<size_t>(options_.keep_alive_max_requests));
  server_->set_keep_alive_timeout(options_.keep_alive_timeout_seconds);
  server_->set_read_timeout(options_.read_timeout_seconds, 0);
  server_->set_write_timeout(options_.write_timeout_seconds, 0);
  server_->set_payload_max_length(options_.payload_max_bytes);
  // The library runs this right after the headers: the guard's header
  // deadline ends here and the body's begins.
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    t_routed = true;
    guard_.HeadersCompleteOnThisThread();
    if (AnswerUnreadable(req, res)) return httplib::Server::HandlerResponse::Handled;
    return gate_ ? gate_(req, res) : httplib::Server::HandlerResponse::Unhandled;
  });
  // The library calls the logger once the answer is written.
  server_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    t_routed = false;
    guard_.ResponseSentOnThisThread();
    if (after_) after_(req, res);
  });
  // Runs for every answer of 400 or more as it is written.
  server_->set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) {
        auto handled = on_error_ ? on_error_(req, res) : httplib::Server::HandlerResponse::Unhandled;
        if (t_routed) return handled;
        // Refused by the library itself, before any handler: whatever follows
        // is unread. The answer needs a body for the close to happen.
        if (res.body.empty() && !res.content_provider_) ReplyJson(res, res.status, R"({"error":"bad request"})");
        CloseAfterRequest(req, res);
        return handled;
      }));
  // A handler that threw may have left its body unread: answered, then closed.
  server_->set_exception_handler([this](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    ReplyToException(options_.exception_event.c_str(), res, ep);
    CloseAfterRequest(req, res);
  });
}

Status Listener::Bind() {
  auto listen = config::SplitListen(options_.listen);
  if (!listen) return InvalidArgument(options_.name + ".listen: expected host:port, got " + options_.listen);
  host_ = listen->host;
  port_ = listen->port;
  if (port_ == 0) {
    port_ = server_->bind_to_any_port(host_);
    if (port_ <= 0) return Unavailable("cannot listen on " + options_.name + ".listen " + options_.listen);
  } else if (!server_->bind_to_port(host_, port_)) {
    return Unavailable("cannot listen on " + options_.name + ".listen " + options_.listen +
                       ": address in use or not available");
  }
  socket_t fd = WithOpenServer(*server_, [](auto& s) { return s.listening_socket(); });
  ::listen(fd, options_.backlog);  // the library's is 5
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);  // AcceptAll drains until EAGAIN
  return Status::Ok();
}

std::string Listener::BaseUrl() const {
  std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  return std::string(tls() ? "https" : "http") + "://" + host + ":" + std::to_string(port_);
}

Status Listener::Run() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return Status::Ok();
    running_ = true;
  }
  socket_t listening = WithOpenServer(*server_, [](auto& s) { return s.listening_socket(); });
  if (listening == INVALID_SOCKET) return Unavailable(options_.name + " listener is not bound");
  if (epoll_fd_ < 0 || wake_fd_ < 0) return Internal("cannot set up the " + options_.name + " accept loop");
  for (int fd : {static_cast<int>(listening), wake_fd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0 && errno != EEXIST) {
      return Internal("cannot watch the " + options_.name + " listening socket");
    }
  }
  guard_.Start();
  for (int i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { Serve(); });

  int64_t last_sweep = clock_.MonotonicMs();
  epoll_event events[64];
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;
    }
    int n = ::epoll_wait(epoll_fd_, events, 64, kSweepPeriodMs);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == static_cast<int>(listening)) {
        AcceptAll();
      } else if (fd != wake_fd_) {
        HandOver(fd);
      }
    }
    int64_t now = clock_.MonotonicMs();
    if (now - last_sweep >= kSweepPeriodMs) {
      CloseExpired(now);
      last_sweep = now;
    }
  }
  Drain();
  return Status::Ok();
}

void Listener::AcceptAll() {
  socket_t listening = WithOpenServer(*server_, [](auto& s) { return s.listening_socket(); });
  for (int n = 0; n < kAcceptBatch; ++n) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    int fd = ::accept4(listening, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_CLOEXEC);
    if (fd >= 0) {
      std::string remote = PeerText(addr);
      Admission::Verdict verdict = admission_.Admit(AddressKey(remote));
      if (verdict == Admission::Verdict::kAdmitted) {
        Admit(fd, std::move(remote));
      } else {
        Reset(fd);
        Refused(remote, verdict);
      }
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EMFILE || errno == ENFILE) {
      // Out of descriptors: the pending connection stays in the backlog and
      // the listening socket stays readable; pause rather than spin on it.
      log::Warn("accept_failed", {{"listener", options_.name}, {"error", "too many open files"}});
      std::this_thread::sleep_for(std::chrono::milliseconds(kSweepPeriodMs));
    }
    return;  // EAGAIN: drained
  }
}

void Listener::Admit(int fd, std::string remote) {
  // What the library's own accept loop sets on every socket it accepts.
  SetTimeout(fd, SO_RCVTIMEO, options_.read_timeout_seconds);
  SetTimeout(fd, SO_SNDTIMEO, options_.write_timeout_seconds);
  std::string key = AddressKey(remote);
  waiting_[fd] = {key, std::move(remote), clock_.MonotonicMs()};
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = fd;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) HandOver(fd);  // let a thread find out what it is
}

void Listener::HandOver(int fd) {
  auto it = waiting_.find(fd);
  if (it == waiting_.end()) return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ready_.push_back({fd, std::move(it->second.key), std::move(it->second.remote)});
  }
  waiting_.erase(it);
  ready_cv_.notify_one();
}

// A socket that has sent nothing by its header deadline never got a thread;
// it is closed here, as the guard would cut it on a thread.
void Listener::CloseExpired(int64_t now_ms) {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (now_ms - it->second.accepted_ms <= options_.guard.header_timeout_ms) {
      ++it;
      continue;
    }
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->first, nullptr);
    Reset(it->first);
    admission_.Release(it->second.key);
    metrics::Registry::Default().Add(metrics::kConnectionsCutTotal, {options_.name, "header_timeout"});
    it = waiting_.erase(it);
  }
}

void Listener::Serve() {
  for (;;) {
    Ready next;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ready_cv_.wait(lock, [this] { return !ready_.empty() || stopping_; });
      if (ready_.empty()) return;
      next = std::move(ready_.front());
      ready_.pop_front();
    }
    ServeOne(next);
  }
}

void Listener::ServeOne(const Ready& ready) {
  // The guard holds a duplicate of the socket: the library closes its own
  // descriptor when it is done, and a number the kernel then hands to a new
  // connection must never be the one a late cut shuts down.
  int own = ::fcntl(ready.fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) {  // out of descriptors: unguarded it may not run
    Reset(ready.fd);
    admission_.Release(ready.key);
    return;
  }
  auto transport = tls() ? ConnectionGuard::Transport::kTls : ConnectionGuard::Transport::kPlain;
  uint64_t id = guard_.Open(own, ready.remote, transport);
  try {
    ScopedConnection serving(guard_, id);
    t_routed = false;
    (server_.get()->*ServeSocketMember(ServeSocketTag{}))(ready.fd);  // closes ready.fd
  } catch (const std::exception& e) {
    // Outside the library's own try: the logger and after_ run there.
    log::Error("connection_failed", {{"listener", options_.name}, {"error", e.what()}});
  }
  guard_.Close(id);
  ::close(own);
  admission_.Release(ready.key);
}

void Listener::Refused(const std::string& remote, Admission::Verdict verdict) {
  metrics::Registry::Default().Add(metrics::kConnectionsRefusedTotal, {options_.name, VerdictName(verdict)});
  // One line a second at most: a flood must not become a log flood.
  int64_t now = clock_.MonotonicMs();
  int64_t last = refusals_logged_at_ms_.load();
  if (now - last < kRefusalLogPeriodMs || !refusals_logged_at_ms_.compare_exchange_strong(last, now)) return;
  log::Warn("connection_refused", {{"listener", options_.name}, {"reason", VerdictName(verdict)}, {"remote_addr", remote}});
}

// After the accept loop: sockets that never spoke are closed, the library's
// keep-alive loops end (the listening socket is gone), and the threads serve
// what was already handed over, then end.
void Listener::Drain() {
  for (auto& [fd, w] : waiting_) {
    Reset(fd);
    admission_.Release(w.key);
  }
  waiting_.clear();
  socket_t listening = WithOpenServer(*server_, [](auto& s) { return s.ReleaseListeningSocket(); });
  if (listening != INVALID_SOCKET) {
    ::shutdown(listening, SHUT_RDWR);
    ::close(listening);
  }
  ready_cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  for (auto& r : ready_) {  // handed over after the threads saw the queue empty
    Reset(r.fd);
    admission_.Release(r.key);
  }
  ready_.clear();
}

bool Listener::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  bool was_running = running_;
  stopping_ = true;
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
  }
  ready_cv_.notify_all();
  return was_running;
}

Status Listener::ReloadCertificate() { return certificate_ ? certificate_->Reload() : Status::Ok(); }

std::shared_ptr<const CertificatePair> Listener::Certificate() const {
  return certificate_ ? certificate_->Current() : nullptr;
}

}  // namespace hookinbox::http
