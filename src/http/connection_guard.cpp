#include "http/connection_guard.h"

#include <linux/tcp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <chrono>

#include "common/log.h"
#include "common/metrics.h"

namespace hookinbox::http {
namespace {

// The connection the calling thread serves (ScopedConnection).
struct Current {
  ConnectionGuard* guard = nullptr;
  uint64_t id = 0;
};
thread_local Current t_current;

// Every record read passes here as its 5-byte header first (OpenSSL 3.0
// ssl3_get_record), application data included; the length it announces is
// counted before the record's body is read. The library reads a connection
// only on the thread serving it, so the thread names the connection.
void OnMessage(int write_p, int /*version*/, int content_type, const void* buf, size_t len, SSL* /*ssl*/, void*) {
  if (write_p != 0 || content_type != SSL3_RT_HEADER || len < SSL3_RT_HEADER_LENGTH) return;
  if (t_current.guard == nullptr) return;
  const auto* p = static_cast<const unsigned char*>(buf);
  int64_t record = SSL3_RT_HEADER_LENGTH + ((int64_t{p[3]} << 8) | p[4]);
  t_current.guard->Received(t_current.id, record);
}

// The default cut. shutdown() wakes the connection's thread wherever it
// waits (select for reading or writing) without closing any fd. Linger 0
// makes the close that follows an abortive one: a reset instead of a FIN.
// Without it a flooder blocked writing into our full receive window is never
// told, and the orphaned socket lingers in FIN-WAIT-2 with its buffers for a
// minute or more (measured: the sender hung 107 s).
void Abort(int fd) {
  linger abortive{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  ::shutdown(fd, SHUT_RDWR);
}

// The bytes the library has read from a TCP socket so far: the kernel's
// count of bytes received (Linux 4.1+) less those still queued unread, so a
// body that arrived early is not taken for header bytes. 0 when the kernel
// cannot say (not TCP), which leaves plain byte budgets to the deadlines.
int64_t KernelBytesConsumed(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  if (len < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) return 0;
  int queued = 0;
  if (::ioctl(fd, SIOCINQ, &queued) != 0) queued = 0;
  return static_cast<int64_t>(info.tcpi_bytes_received) - queued;
}

const char* PhaseReason(ConnectionGuard::Phase phase) {
  return phase == ConnectionGuard::Phase::kHeaders ? "header_timeout" : "body_timeout";
}

}  // namespace

GuardLimits GuardLimitsFor(const config::ServerConfig& s) {
  return {int64_t{s.header_timeout_seconds} * 1000, s.max_header_bytes, int64_t{s.body_timeout_seconds} * 1000};
}

ConnectionGuard::ConnectionGuard(std::string listener, GuardLimits limits, const Clock& clock, Cutter cutter,
                                 ByteCounter bytes)
    : listener_(std::move(listener)),
      limits_(limits),
      clock_(clock),
      cutter_(cutter ? std::move(cutter) : Cutter(&Abort)),
      bytes_(bytes ? std::move(bytes) : ByteCounter(&KernelBytesConsumed)) {}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void ConnectionGuard::Attach(SSL_CTX* ctx) { SSL_CTX_set_msg_callback(ctx, &OnMessage); }

void ConnectionGuard::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (watchdog_.joinable() || stopping_) return;
  watchdog_ = std::thread([this] { Run(); });
}

void ConnectionGuard::Run() {
  // A tenth of a second: deadlines are seconds, and a sweep of a few hundred
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

uint64_t ConnectionGuard::Open(int fd, std::string remote, Transport transport) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_id_++;
  Connection& c = connections_[id];
  c.fd = fd;
  c.remote = std::move(remote);
  c.transport = transport;
  // The deadline runs from when a thread takes the connection (the waiting
  // room bounded the time before); every byte it has read counts (mark 0).
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
    if (c.phase != Phase::kHeaders) return;  // body bytes are bounded by the route's own cap
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
  int64_t mark = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    if (it->second.transport == Transport::kTls) {
      it->second.phase = Phase::kIdle;
      it->second.phase_start_ms = clock_.MonotonicMs();
      it->second.header_bytes = 0;
      return;
    }
  }
  // Plain: the byte mark is read outside mu_ (a system call), then set.
  // Bytes of a pipelined next request already received count as its own.
  if (auto fd = FdOf(id); fd >= 0) mark = bytes_(fd);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  it->second.phase = Phase::kIdle;
  it->second.phase_start_ms = clock_.MonotonicMs();
  it->second.bytes_mark = mark;
}

int ConnectionGuard::FdOf(uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(id);
  return it == connections_.end() ? -1 : it->second.fd;
}

void ConnectionGuard::Close(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  connections_.erase(id);
}

void ConnectionGuard::HeadersCompleteOnThisThread() {
  if (t_current.guard == this) HeadersComplete(t_current.id);
}

void ConnectionGuard::ResponseSentOnThisThread() {
  if (t_current.guard == this) ResponseSent(t_current.id);
}

int ConnectionGuard::Sweep() {
  std::vector<CutLine> lines;
  {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t now = clock_.MonotonicMs();
    for (auto& [id, c] : connections_) {
      if (c.cut) continue;
      if (c.transport == Transport::kPlain) SweepPlainBytesLocked(c, now, lines);
      if (c.cut || c.phase == Phase::kIdle) continue;
      int64_t limit = c.phase == Phase::kHeaders ? limits_.header_timeout_ms : limits_.body_timeout_ms;
      if (limit > 0 && now - c.phase_start_ms > limit) CutLocked(c, PhaseReason(c.phase), now, lines);
    }
  }
  Log(lines);
  return static_cast<int>(lines.size());
}

// A plain connection has no record callback: the kernel's byte count says
// when an idle one starts its next request, and how much a request's headers
// have sent so far. Under mu_; the count is a cheap getsockopt on our own fd.
void ConnectionGuard::SweepPlainBytesLocked(Connection& c, int64_t now, std::vector<CutLine>& lines) {
  if (c.phase == Phase::kBody) return;
  int64_t received = bytes_(c.fd) - c.bytes_mark;
  if (c.phase == Phase::kIdle) {
    if (received <= 0) return;
    c.phase = Phase::kHeaders;  // started within the last sweep period
    c.phase_start_ms = now;
  }
  c.header_bytes = received;
  if (received > limits_.max_header_bytes) CutLocked(c, "header_bytes", now, lines);
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

ScopedConnection::ScopedConnection(ConnectionGuard& guard, uint64_t id) { t_current = {&guard, id}; }
ScopedConnection::~ScopedConnection() { t_current = {}; }

}  // namespace hookinbox::http
