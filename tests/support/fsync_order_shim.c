// tests/support/fsync_order_shim.c — an LD_PRELOAD library that records, in
// one total order, when a process syncs files and when it reads and writes
// sockets (for "no 2xx leaves before its commit's fsync";
// tests/integration/durability_order_test.cpp reads the record).
//
// Environment:
//   HOOKINBOX_SHIM_LOG             file the records are appended to (unset: record nothing)
//   HOOKINBOX_SHIM_FSYNC_DELAY_MS  sleep this long inside every fsync/fdatasync, so an
//                                  answer written during a sync cannot hide behind a
//                                  sync of another batch that happened to end first
//
// One line per event, written with a single write(2) to an O_APPEND file:
//   S seq tid fd kind      fsync/fdatasync about to start   kind: W (…-wal), D (….db), O (other)
//   E seq tid fd kind      fsync/fdatasync returned
//   R seq fd n post        a socket read returned n > 0 bytes; post = 1 when they begin "POST "
//   W seq fd n class       a socket write of n bytes is about to start; class = the status
//                          digit when they begin "HTTP/1.1 " (2, 4, 5), else -
// seq comes from one atomic counter: if event A happens before event B in the
// process (same thread, or ordered through a lock or a future), A's seq is
// smaller. Never records payload bytes: only those flags and counts.
// Async-signal-safe enough: no malloc, no stdio, no locks on the record path.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*ReadFn)(int, void*, size_t);
typedef ssize_t (*WriteFn)(int, const void*, size_t);
typedef ssize_t (*RecvFn)(int, void*, size_t, int);
typedef ssize_t (*RecvFromFn)(int, void*, size_t, int, struct sockaddr*, socklen_t*);
typedef ssize_t (*SendFn)(int, const void*, size_t, int);
typedef ssize_t (*SendToFn)(int, const void*, size_t, int, const struct sockaddr*, socklen_t);
typedef ssize_t (*WritevFn)(int, const struct iovec*, int);
typedef ssize_t (*SendMsgFn)(int, const struct msghdr*, int);
typedef int (*SyncFn)(int);

static ReadFn real_read;
static WriteFn real_write;
static RecvFn real_recv;
static RecvFromFn real_recvfrom;
static SendFn real_send;
static SendToFn real_sendto;
static WritevFn real_writev;
static SendMsgFn real_sendmsg;
static SyncFn real_fsync;
static SyncFn real_fdatasync;

static int log_fd = -1;
static long delay_ms;
static unsigned long next_seq;

// Resolves lazily too: another library's constructor may write before ours runs.
#define RESOLVE(var, name)                                        \
  do {                                                            \
    if (var == NULL) *(void**)(&var) = dlsym(RTLD_NEXT, name);    \
  } while (0)

__attribute__((constructor)) static void ShimInit(void) {
  RESOLVE(real_write, "write");
  const char* path = getenv("HOOKINBOX_SHIM_LOG");
  if (path != NULL && path[0] != '\0') log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  const char* delay = getenv("HOOKINBOX_SHIM_FSYNC_DELAY_MS");
  if (delay != NULL) delay_ms = strtol(delay, NULL, 10);
}

static unsigned long NextSeq(void) { return __atomic_add_fetch(&next_seq, 1, __ATOMIC_SEQ_CST); }

// Appends `value` in decimal and a space at *p.
static char* PutNumber(char* p, unsigned long value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) *p++ = digits[--n];
  *p++ = ' ';
  return p;
}

// One record: `op`, then the numbers, then `flag`, newline; one write(2).
static void Record(char op, const unsigned long* numbers, int count, char flag) {
  if (log_fd < 0) return;
  char line[128];
  char* p = line;
  *p++ = op;
  *p++ = ' ';
  for (int i = 0; i < count; ++i) p = PutNumber(p, numbers[i]);
  *p++ = flag;
  *p++ = '\n';
  int saved = errno;
  RESOLVE(real_write, "write");
  real_write(log_fd, line, (size_t)(p - line));
  errno = saved;
}

static int IsSocket(int fd) {
  struct stat st;
  return fd != log_fd && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

static int EndsWith(const char* s, size_t n, const char* suffix) {
  size_t k = strlen(suffix);
  return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

// W for SQLite's write-ahead log, D for the database file, O otherwise (a directory, a journal).
static char FileKind(int fd) {
  char link[64] = "/proc/self/fd/";
  char* p = PutNumber(link + strlen(link), (unsigned long)fd);
  p[-1] = '\0';  // drop PutNumber's trailing space
  char target[512];
  ssize_t n = readlink(link, target, sizeof target);
  if (n <= 0) return 'O';
  if (EndsWith(target, (size_t)n, "-wal")) return 'W';
  if (EndsWith(target, (size_t)n, ".db")) return 'D';
  return 'O';
}

static void AfterRead(int fd, const void* buf, ssize_t n) {
  if (n <= 0 || log_fd < 0 || !IsSocket(fd)) return;
  int post = n >= 5 && memcmp(buf, "POST ", 5) == 0;
  unsigned long numbers[3] = {NextSeq(), (unsigned long)fd, (unsigned long)n};
  Record('R', numbers, 3, post ? '1' : '0');
}

// `buf` holds the first `len` of the `n` bytes written.
static void BeforeWriteOf(int fd, const void* buf, size_t len, size_t n) {
  if (n == 0 || log_fd < 0 || !IsSocket(fd)) return;
  char status_class = '-';
  if (len >= 10 && memcmp(buf, "HTTP/1.1 ", 9) == 0) status_class = ((const char*)buf)[9];
  unsigned long numbers[3] = {NextSeq(), (unsigned long)fd, (unsigned long)n};
  Record('W', numbers, 3, status_class);
}

static void BeforeWrite(int fd, const void* buf, size_t n) { BeforeWriteOf(fd, buf, n, n); }

static int Synced(SyncFn fn, int fd) {
  if (log_fd < 0) return fn(fd);
  const char kind = FileKind(fd);
  const unsigned long tid = (unsigned long)syscall(SYS_gettid);
  unsigned long start[3] = {NextSeq(), tid, (unsigned long)fd};
  Record('S', start, 3, kind);
  if (delay_ms > 0) {
    struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }
  int rc = fn(fd);
  int saved = errno;
  unsigned long end[3] = {NextSeq(), tid, (unsigned long)fd};
  Record('E', end, 3, kind);
  errno = saved;
  return rc;
}

int fsync(int fd) {
  RESOLVE(real_fsync, "fsync");
  return Synced(real_fsync, fd);
}

int fdatasync(int fd) {
  RESOLVE(real_fdatasync, "fdatasync");
  return Synced(real_fdatasync, fd);
}

ssize_t read(int fd, void* buf, size_t count) {
  RESOLVE(real_read, "read");
  ssize_t n = real_read(fd, buf, count);
  int saved = errno;
  AfterRead(fd, buf, n);
  errno = saved;
  return n;
}

ssize_t recv(int fd, void* buf, size_t len, int flags) {
  RESOLVE(real_recv, "recv");
  ssize_t n = real_recv(fd, buf, len, flags);
  int saved = errno;
  if ((flags & MSG_PEEK) == 0) AfterRead(fd, buf, n);
  errno = saved;
  return n;
}

ssize_t recvfrom(int fd, void* buf, size_t len, int flags, struct sockaddr* addr, socklen_t* addrlen) {
  RESOLVE(real_recvfrom, "recvfrom");
  ssize_t n = real_recvfrom(fd, buf, len, flags, addr, addrlen);
  int saved = errno;
  if ((flags & MSG_PEEK) == 0) AfterRead(fd, buf, n);
  errno = saved;
  return n;
}

ssize_t write(int fd, const void* buf, size_t count) {
  RESOLVE(real_write, "write");
  BeforeWrite(fd, buf, count);
  return real_write(fd, buf, count);
}

ssize_t send(int fd, const void* buf, size_t len, int flags) {
  RESOLVE(real_send, "send");
  BeforeWrite(fd, buf, len);
  return real_send(fd, buf, len, flags);
}

ssize_t sendto(int fd, const void* buf, size_t len, int flags, const struct sockaddr* addr, socklen_t addrlen) {
  RESOLVE(real_sendto, "sendto");
  BeforeWrite(fd, buf, len);
  return real_sendto(fd, buf, len, flags, addr, addrlen);
}

// Vectored writes: classified by their first non-empty buffer.
static void BeforeVectorWrite(int fd, const struct iovec* iov, int iovcnt) {
  size_t total = 0;
  const struct iovec* first = NULL;
  for (int i = 0; i < iovcnt; ++i) {
    total += iov[i].iov_len;
    if (first == NULL && iov[i].iov_len > 0) first = &iov[i];
  }
  if (first != NULL) BeforeWriteOf(fd, first->iov_base, first->iov_len, total);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  RESOLVE(real_writev, "writev");
  BeforeVectorWrite(fd, iov, iovcnt);
  return real_writev(fd, iov, iovcnt);
}

ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  RESOLVE(real_sendmsg, "sendmsg");
  BeforeVectorWrite(fd, msg->msg_iov, (int)msg->msg_iovlen);
  return real_sendmsg(fd, msg, flags);
}
