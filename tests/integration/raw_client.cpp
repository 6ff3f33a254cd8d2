#include "raw_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace hookinbox::testing {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

int64_t RaiseOpenFileLimit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return -1;
  lim.rlim_cur = lim.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &lim);
  ::getrlimit(RLIMIT_NOFILE, &lim);
  return static_cast<int64_t>(lim.rlim_cur);
}

int StartConnect(const std::string& source, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (!source.empty()) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    from.sin_port = 0;
    if (::inet_pton(AF_INET, source.c_str(), &from.sin_addr) != 1 ||
        ::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
      ::close(fd);
      return -1;
    }
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string ClientHelloPrefix(size_t n) {
  static const std::string hello = [] {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL* ssl = SSL_new(ctx);
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, in, out);  // the SSL owns both BIOs now
    SSL_set_tlsext_host_name(ssl, "localhost");
    SSL_connect(ssl);  // wants to read the ServerHello: the ClientHello sits in `out`
    char* data = nullptr;
    long len = BIO_get_mem_data(out, &data);
    std::string bytes(data, static_cast<size_t>(std::max(len, 0L)));
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    return bytes;
  }();
  return hello.substr(0, n);
}

int StatusOf(const std::string& text) {
  if (text.size() < 12 || text.rfind("HTTP/1.", 0) != 0) return 0;
  const std::string code = text.substr(9, 3);
  if (code.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoi(code);
}

RawClient::RawClient(int port, bool tls, std::string source) : port_(port), tls_(tls), source_(std::move(source)) {}

RawClient::~RawClient() {
  if (ssl_ != nullptr) SSL_free(static_cast<SSL*>(ssl_));
  if (ssl_ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
  if (fd_ >= 0) ::close(fd_);
}

void RawClient::MarkClosed() {
  if (closed_) return;
  closed_ = true;
  closed_at_ = Clock::now();
}

bool RawClient::Wait(short events, SteadyTime deadline, milliseconds slice) {
  auto now = Clock::now();
  if (now >= deadline) return false;
  auto left = std::chrono::duration_cast<milliseconds>(deadline - now) + milliseconds(1);
  pollfd p{fd_, events, 0};
  ::poll(&p, 1, static_cast<int>(std::min(left, slice).count()));
  return true;
}

bool RawClient::Connect(SteadyTime deadline) {
  fd_ = StartConnect(source_, port_);
  if (fd_ < 0) {
    MarkClosed();
    return false;
  }
  for (;;) {  // the TCP handshake
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, 0) > 0) break;
    if (!Wait(POLLOUT, deadline, milliseconds(50))) return false;
  }
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
  connected_at_ = Clock::now();
  if (err != 0) {
    MarkClosed();
    return false;
  }
  if (!tls_) return true;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  ssl_ctx_ = ctx;
  ssl_ = ssl;
  SSL_set_fd(ssl, fd_);
  SSL_set_tlsext_host_name(ssl, "localhost");
  SSL_set_mode(ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
  for (;;) {
    int r = SSL_connect(ssl);
    if (r == 1) return true;
    int e = SSL_get_error(ssl, r);
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
      MarkClosed();  // reset, closed or refused by the server
      return false;
    }
    if (!Wait(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, milliseconds(50))) return false;
  }
}

int RawClient::WriteSome(const char* data, size_t size) {
  if (closed_ || fd_ < 0) return -1;
  if (ssl_ == nullptr) {
    ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) return static_cast<int>(n);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    return -1;
  }
  SSL* ssl = static_cast<SSL*>(ssl_);
  // A TLS write that would block is retried with the same length.
  if (pending_write_ == 0) pending_write_ = std::min<size_t>(size, 16384);
  int n = SSL_write(ssl, data, static_cast<int>(pending_write_));
  if (n > 0) {
    pending_write_ = 0;
    return n;
  }
  int e = SSL_get_error(ssl, n);
  if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) return 0;
  return -1;
}

int RawClient::ReadSome(char* buf, size_t size) {
  if (fd_ < 0) return -1;
  if (ssl_ == nullptr) {
    ssize_t n = ::recv(fd_, buf, size, MSG_DONTWAIT);
    if (n > 0) return static_cast<int>(n);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    return -1;  // end of stream or reset
  }
  SSL* ssl = static_cast<SSL*>(ssl_);
  int n = SSL_read(ssl, buf, static_cast<int>(size));
  if (n > 0) return n;
  int e = SSL_get_error(ssl, n);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
  return -1;
}

std::string RawClient::Exchange(const std::string& head, const std::function<std::string()>& more,
                                SteadyTime deadline) {
  std::string in;
  std::string out = head;
  size_t off = 0;
  bool body_done = !more;
  bool write_failed = false;
  char buf[16384];
  while (!closed_ && fd_ >= 0) {
    if (off == out.size() && !body_done) {
      out = more();
      off = 0;
      body_done = out.empty();
    }
    const bool writing = off < out.size();
    if (writing) {
      int n = WriteSome(out.data() + off, out.size() - off);
      if (n > 0) {
        off += static_cast<size_t>(n);
        sent_ += n;
      }
      write_failed = n < 0;  // reset or closed by the server
    }
    for (;;) {  // what the server sent, up to its end of stream
      int n = ReadSome(buf, sizeof buf);
      if (n == 0) break;
      if (n < 0) {
        MarkClosed();
        break;
      }
      in.append(buf, static_cast<size_t>(n));
    }
    if (write_failed) MarkClosed();  // what it sent before was read just above
    if (closed_) break;
    if (!Wait(static_cast<short>(POLLIN | (writing ? POLLOUT : 0)), deadline, milliseconds(50))) break;
  }
  return in;
}

bool RawClient::Send(const std::string& bytes, SteadyTime deadline) {
  size_t off = 0;
  while (off < bytes.size()) {
    int n = WriteSome(bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      MarkClosed();
      return false;
    }
    off += static_cast<size_t>(n);
    sent_ += n;
    if (off < bytes.size() && !Wait(POLLOUT, deadline, milliseconds(50))) return false;
  }
  return true;
}

bool RawClient::WaitClosed(SteadyTime deadline) {
  char buf[4096];
  while (!closed_ && fd_ >= 0) {
    // POLLRDHUP: the peer's FIN or reset, which TLS session tickets (readable, not a close) never raise.
    pollfd p{fd_, POLLRDHUP, 0};
    if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
      MarkClosed();
      break;
    }
    for (;;) {  // drain what arrived (tickets, an answer), watching for the end
      int n = ReadSome(buf, sizeof buf);
      if (n == 0) break;
      if (n < 0) {
        MarkClosed();
        break;
      }
    }
    if (closed_) break;
    if (!Wait(POLLRDHUP | POLLIN, deadline, milliseconds(50))) break;
  }
  return closed_;
}

int64_t SocketLife::OpenMs() const {
  if (!established || !closed) return -1;
  return std::chrono::duration_cast<milliseconds>(closed_at - established_at).count();
}

IdleSockets::~IdleSockets() { Abandon(); }

bool IdleSockets::Open(const std::string& source, const std::string& kind, const std::string& first_bytes) {
  int fd = StartConnect(source, port_);
  if (fd < 0) return false;
  Entry e{fd, {}, first_bytes};
  e.life.source = source;
  e.life.kind = kind;
  sockets_.push_back(std::move(e));
  return true;
}

std::vector<SocketLife> IdleSockets::Step(milliseconds slice) {
  std::vector<pollfd> fds(sockets_.size());
  for (size_t i = 0; i < sockets_.size(); ++i) {
    // Before the handshake: its completion. After: only the peer's FIN or
    // reset (POLLRDHUP; POLLHUP and POLLERR always), never data.
    fds[i] = {sockets_[i].fd, static_cast<short>(sockets_[i].life.established ? POLLRDHUP : POLLOUT), 0};
  }
  ::poll(fds.data(), fds.size(), static_cast<int>(slice.count()));
  const SteadyTime now = Clock::now();
  std::vector<SocketLife> ended;
  std::vector<Entry> still;
  still.reserve(sockets_.size());
  for (size_t i = 0; i < sockets_.size(); ++i) {
    Entry& e = sockets_[i];
    const short r = fds[i].revents;
    bool over = false;
    if (r == 0) {
      // nothing happened to this one
    } else if (!e.life.established) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(e.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      // Reset right after the handshake still counts as established.
      e.life.established = err == 0 || err == ECONNRESET || err == EPIPE;
      e.life.established_at = now;
      if (err != 0 || (r & (POLLERR | POLLHUP)) != 0) {
        over = true;
      } else if (!e.first_bytes.empty()) {
        ::send(e.fd, e.first_bytes.data(), e.first_bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      }
    } else {
      over = (r & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
    }
    if (!over) {
      still.push_back(std::move(e));
      continue;
    }
    e.life.closed = true;
    e.life.closed_at = now;
    ::close(e.fd);
    ended.push_back(std::move(e.life));
  }
  sockets_ = std::move(still);
  return ended;
}

std::vector<SocketLife> IdleSockets::Abandon() {
  std::vector<SocketLife> lives;
  for (Entry& e : sockets_) {
    ::close(e.fd);
    lives.push_back(std::move(e.life));
  }
  sockets_.clear();
  return lives;
}

}  // namespace hookinbox::testing
