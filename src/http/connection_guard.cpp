#include "http/connection_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>

#include "common/log.h"
#include "common/metrics.h"

namespace hookinbox::http {
namespace {

// What an SSL carries in its ex_data slot: which guard tracks it, under which
// id. Freed, and the connection closed in its guard, by OpenSSL when the SSL
// is freed: the library frees it before closing the fd (ssl_delete, then
// close_socket; ssl_new's failure path likewise).
struct Ticket {
  ConnectionGuard* guard;
  uint64_t id;
};

void FreeTicket(void* /*parent*/, void* ptr, CRYPTO_EX_DATA* /*ad*/, int /*idx*/, long /*argl*/, void* /*argp*/) {
  auto* ticket = static_cast<Ticket*>(ptr);
  if (ticket == nullptr) return;  // an SSL no guard saw (clients, other contexts)
  ticket->guard->Close(ticket->id);
  delete ticket;
}

// One index each for the process: OpenSSL calls FreeTicket for every SSL,
// whichever context it came from, so the slot must not be per guard.
int SslIndex() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, &FreeTicket);
  return index;
}
int CtxIndex() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

Ticket* TicketOf(const SSL* ssl) {
  return ssl == nullptr ? nullptr : static_cast<Ticket*>(SSL_get_ex_data(ssl, SslIndex()));
}

std::string PeerAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  char buf[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, buf, sizeof buf);
  } else if (addr.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

// SSL_CB_HANDSHAKE_START fires inside SSL_accept before the ClientHello is
// read, so a peer that sends nothing is tracked too. TLS 1.3 fires it again
// for post-handshake messages (KeyUpdate): the ticket already there wins.
void OnInfo(const SSL* ssl, int where, int /*ret*/) {
  if ((where & SSL_CB_HANDSHAKE_START) == 0 || TicketOf(ssl) != nullptr) return;
  auto* guard = static_cast<ConnectionGuard*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), CtxIndex()));
  int fd = SSL_get_fd(ssl);
  if (guard == nullptr || fd < 0) return;
  auto* ticket = new Ticket{guard, guard->Open(fd, PeerAddress(fd))};
  // The callback gets a const SSL; setting app data on it is what the slot is for.
  if (SSL_set_ex_data(const_cast<SSL*>(ssl), SslIndex(), ticket) != 1) {
    guard->Close(ticket->id);
    delete ticket;
  }
}

// Every record read passes here as its 5-byte header first (OpenSSL 3.0
// ssl3_get_record), application data included; the length it announces is
// counted before the record's body is read.
void OnMessage(int write_p, int /*version*/, int content_type, const void* buf, size_t len, SSL* ssl, void*) {
  if (write_p != 0 || content_type != SSL3_RT_HEADER || len < SSL3_RT_HEADER_LENGTH) return;
  Ticket* ticket = TicketOf(ssl);
  if (ticket == nullptr) return;
  const auto* p = static_cast<const unsigned char*>(buf);
  int64_t record = SSL3_RT_HEADER_LENGTH + ((int64_t{p[3]} << 8) | p[4]);
  ticket->guard->Received(ticket->id, record);
}

// The default cut. shutdown() wakes the connection's thread wherever it
// waits (select for reading or writing) without closing the fd. Linger 0
// makes the library's close() that follows an abortive one: a reset instead
// of a FIN. Without it a flooder blocked writing into our full receive
// window is never told, and the orphaned socket lingers in FIN-WAIT-2 with
// its buffers for a minute or more (measured: the sender hung 107 s).
void Abort(int fd) {
  linger abortive{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  ::shutdown(fd, SHUT_RDWR);
}

const char* PhaseReason(ConnectionGuard::Phase phase) {
  return phase == ConnectionGuard::Phase::kHeaders ? "header_timeout" : "body_timeout";
}

}  // namespace

GuardLimits GuardLimitsFor(const config::ServerConfig& s) {
  return {int64_t{s.header_timeout_seconds} * 1000, s.max_header_bytes, int64_t{s.body_timeout_seconds} * 1000};
}

ConnectionGuard::ConnectionGuard(std::string listener, GuardLimits limits, const Clock& clock, Cutter cutter)
    : listener_(std::move(listener)),
      limits_(limits),
      clock_(clock),
      cutter_(cutter ? std::move(cutter) : Cutter(&Abort)) {}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void ConnectionGuard::Attach(SSL_CTX* ctx) {
  SSL_CTX_set_ex_data(ctx, CtxIndex(), this);
  SSL_CTX_set_info_callback(ctx, &OnInfo);
  SSL_CTX_set_msg_callback(ctx, &OnMessage);
}

void ConnectionGuard::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (watchdog_.joinable() || stopping_) return;
  watchdog_ = std::thread([this] { Run(); });
}

void ConnectionGuard::Run() {
  // A tenth of a second: deadlines are seconds, and a sweep of a few dozen
  // entries costs nothing.
  constexpr auto kPeriod = std::chrono::milliseconds(100);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, kPeriod, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    Sweep();
    lock.lock();
  }
}

uint64_t ConnectionGuard::Open(int fd, std::string remote) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_id_++;
  Connection& c = connections_[id];
  c.fd = fd;
  c.remote = std::move(remote);
  c.phase_start_ms = clock_.MonotonicMs();
  return id;
}

void ConnectionGuard::Received(uint64_t id, int64_t bytes) {
  std::vector<CutLine> lines;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = connections_.find(id);
    if (it == connections_.end() || it->second.cut) return;
    Connection& c = it->second;
    int64_t now = clock_.MonotonicMs();
    if (c.phase == Phase::kIdle) {  // the next request's first record
      c.phase = Phase::kHeaders;
      c.phase_start_ms = now;
      c.header_bytes = 0;
    }
    if (c.phase != Phase::kHeaders) return;  // body bytes are bounded by the endpoint's limit
    c.header_bytes += bytes;
    if (c.header_bytes > limits_.max_header_bytes) CutLocked(c, "header_bytes", now, lines);
  }
  Log(lines);
}

void ConnectionGuard::HeadersComplete(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second.phase = Phase::kBody;
  it->second.phase_start_ms = clock_.MonotonicMs();
}

void ConnectionGuard::ResponseSent(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second.phase = Phase::kIdle;
  it->second.phase_start_ms = clock_.MonotonicMs();
  it->second.header_bytes = 0;
}

void ConnectionGuard::Close(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  connections_.erase(id);
}

void ConnectionGuard::HeadersComplete(const SSL* ssl) {
  if (Ticket* t = TicketOf(ssl); t != nullptr && t->guard == this) HeadersComplete(t->id);
}

void ConnectionGuard::ResponseSent(const SSL* ssl) {
  if (Ticket* t = TicketOf(ssl); t != nullptr && t->guard == this) ResponseSent(t->id);
}

int ConnectionGuard::Sweep() {
  std::vector<CutLine> lines;
  {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t now = clock_.MonotonicMs();
    for (auto& [id, c] : connections_) {
      if (c.cut || c.phase == Phase::kIdle) continue;
      int64_t limit = c.phase == Phase::kHeaders ? limits_.header_timeout_ms : limits_.body_timeout_ms;
      if (limit > 0 && now - c.phase_start_ms > limit) CutLocked(c, PhaseReason(c.phase), now, lines);
    }
  }
  Log(lines);
  return static_cast<int>(lines.size());
}

// Under mu_: Close cannot run meanwhile, so c.fd is still this connection's.
void ConnectionGuard::CutLocked(Connection& c, const char* reason, int64_t now, std::vector<CutLine>& lines) {
  c.cut = true;
  ++cut_total_;
  cutter_(c.fd);
  lines.push_back({c.remote, reason, now - c.phase_start_ms, c.header_bytes});
}

void ConnectionGuard::Log(const std::vector<CutLine>& lines) const {
  for (const auto& l : lines) {
    metrics::Registry::Default().Add(metrics::kConnectionsCutTotal, {listener_, l.reason});
    log::Warn("connection_cut", {{"listener", listener_},
                                 {"reason", l.reason},
                                 {"remote_addr", l.remote},
                                 {"elapsed_ms", l.elapsed_ms},
                                 {"header_bytes", l.bytes}});
  }
}

size_t ConnectionGuard::open_connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return connections_.size();
}

int64_t ConnectionGuard::cut_total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cut_total_;
}

}  // namespace hookinbox::http
