// The exec action: fork/exec with pipes, driven by one poll loop.
//
// Design: stdin is written and stdout/stderr read in the same poll loop, so a
// command that never reads its input, or prints a lot before reading, cannot
// deadlock us. The child's exit is watched through a pidfd, so the loop needs
// no SIGCHLD handler and never sleeps. Everything the child needs (argv,
// envp) is built before fork: between fork and exec only async-signal-safe
// calls are made.
#include "worker/exec_action.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "worker/sigpipe_guard.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

namespace hookinbox::worker {
namespace {

constexpr int kExitTransient = 75;  // EX_TEMPFAIL (sysexits.h)

// A file descriptor closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
  bool Open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read.Reset(fds[0]);
    write.Reset(fds[1]);
    return true;
  }
};

// argv/envp as the NULL-terminated arrays execve takes; owns the strings.
struct CStrings {
  std::vector<std::string> owned;
  std::vector<char*> ptrs;
  void Seal() {
    for (std::string& s : owned) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
};

void AppendTail(std::string& tail, const char* data, size_t n) {
  tail.append(data, n);
  if (tail.size() > kExecOutputCap) tail.erase(0, tail.size() - kExecOutputCap);
}

// result_ref from a last stdout line {"result_ref": "…"}; "" otherwise.
std::string ResultRefFromStdout(std::string_view out) {
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.remove_suffix(1);
  const size_t nl = out.rfind('\n');
  const std::string_view line = nl == std::string_view::npos ? out : out.substr(nl + 1);
  nlohmann::json doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return "";
  auto it = doc.find("result_ref");
  if (it == doc.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return it->dump();
  return "";
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void RunChild(int in, int out, int err, int report, char* const* argv, char* const* envp,
                           int max_fd) {
  ::setpgid(0, 0);
  // Dispositions set to "ignore" (SIGPIPE, in servers) and the blocked mask
  // survive exec; the command gets a clean slate.
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) {
    const int e = errno;
    (void)!::write(report, &e, sizeof e);
    ::_exit(127);
  }
  // Every other descriptor — listening sockets, the database — is closed at
  // exec, including any a library opened without O_CLOEXEC. `report` too:
  // its closing is how the parent learns that exec succeeded.
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd <= max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  ::execve(argv[0], argv, envp);
  const int e = errno;
  (void)!::write(report, &e, sizeof e);
  ::_exit(127);
}

Outcome NotStarted(Verdict verdict, std::string error) {
  Outcome o;
  o.verdict = verdict;
  o.error = std::move(error);
  return o;
}

}  // namespace

ExecAction::ExecAction(config::ActionConfig config) : config_(std::move(config)) {}

Outcome ExecAction::Run(const ActionInput& in) {
  if (config_.command.empty()) return NotStarted(Verdict::kPermanent, "no command configured");
  CStrings argv;
  argv.owned = config_.command;
  argv.Seal();
  CStrings envp;
  envp.owned = {"PATH=/usr/local/bin:/usr/bin:/bin",
                "HOME=/",
                "LANG=C.UTF-8",
                "HOOKINBOX_EVENT_ID=" + in.event_id,
                "HOOKINBOX_EVENT_TYPE=" + in.event_type,
                "HOOKINBOX_IDEMPOTENCY_KEY=" + in.idempotency_key,
                "HOOKINBOX_ATTEMPT=" + std::to_string(in.attempt)};
  if (!in.token.empty()) envp.owned.push_back("HOOKINBOX_TOKEN=" + in.token);
  if (!in.api_base.empty()) envp.owned.push_back("HOOKINBOX_API=" + in.api_base);
  envp.Seal();

  Pipe stdin_pipe, stdout_pipe, stderr_pipe, report;
  if (!stdin_pipe.Open() || !stdout_pipe.Open() || !stderr_pipe.Open() || !report.Open()) {
    return NotStarted(Verdict::kTransient, std::string("cannot create pipes: ") + std::strerror(errno));
  }
  const int max_fd = static_cast<int>(std::min<long>(::sysconf(_SC_OPEN_MAX), 65536));
  SigpipeGuard sigpipe_guard;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.timeout_ms);

  const pid_t pid = ::fork();
  if (pid < 0) return NotStarted(Verdict::kTransient, std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    RunChild(stdin_pipe.read.get(), stdout_pipe.write.get(), stderr_pipe.write.get(), report.write.get(),
             argv.ptrs.data(), envp.ptrs.data(), max_fd);
  }
  ::setpgid(pid, pid);  // also done in the child; whichever runs first wins the race
  stdin_pipe.read.Close();
  stdout_pipe.write.Close();
  stderr_pipe.write.Close();
  report.write.Close();

  // Blocks only until exec succeeds (the pipe closes) or fails (errno arrives).
  int exec_errno = 0;
  ssize_t got;
  do {
    got = ::read(report.read.get(), &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    int status;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    // A missing or non-executable program is a configuration problem: retrying does not fix it.
    return NotStarted(Verdict::kPermanent, "cannot run " + config_.command[0] + ": " + std::strerror(exec_errno));
  }

  Fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  ::fcntl(stdin_pipe.write.get(), F_SETFL, O_NONBLOCK);
  size_t written = 0;
  if (in.body.empty()) stdin_pipe.write.Close();

  Outcome o;
  o.sent = true;
  bool exited = false;
  bool timed_out = false;
  int status = 0;
  char buf[65536];
  while (stdout_pipe.read.open() || stderr_pipe.read.open() || !exited) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd fds[4] = {{stdin_pipe.write.get(), POLLOUT, 0},
                            {stdout_pipe.read.get(), POLLIN, 0},
                            {stderr_pipe.read.get(), POLLIN, 0},
                            {exited ? -1 : pidfd.get(), POLLIN, 0}};
    // Without a pidfd (kernels before 5.3) the exit is checked every 10 ms instead.
    const int64_t wait_ms = pidfd.open() ? 60000 : 10;
    const int n = ::poll(fds, 4, static_cast<int>(std::min<int64_t>(left.count() + 1, wait_ms)));
    if (n < 0 && errno != EINTR) {
      timed_out = true;  // cannot watch the command any more: treat like a timeout (it is killed)
      break;
    }
    if (!pidfd.open() && !exited && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      ::kill(-pid, SIGKILL);  // reaped already: a small window for group-id reuse, accepted in this fallback
      stdin_pipe.write.Close();
    }
    if (n <= 0) continue;
    if (fds[0].revents != 0) {
      const ssize_t w = ::write(stdin_pipe.write.get(), in.body.data() + written, in.body.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      // EPIPE: the command closed stdin (or never read it); that is its business.
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == in.body.size()) stdin_pipe.write.Close();
    }
    for (int i : {1, 2}) {
      if (fds[i].revents == 0) continue;
      Fd& fd = i == 1 ? stdout_pipe.read : stderr_pipe.read;
      const ssize_t r = ::read(fd.get(), buf, sizeof buf);
      if (r > 0) {
        AppendTail(i == 1 ? o.stdout_tail : o.stderr_tail, buf, static_cast<size_t>(r));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        fd.Close();
      }
    }
    if (fds[3].revents != 0 && !exited) {
      // The command has exited (it is a zombie until reaped, so its group id
      // cannot be reused yet): end whatever it left behind, then reap it.
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      exited = true;
      stdin_pipe.write.Close();
    }
  }

  if (timed_out) {
    ::kill(-pid, SIGKILL);
    if (!exited) {
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    // Why not transient: the command ran and may have done its work.
    o.verdict = config_.idempotent_target ? Verdict::kTransient : Verdict::kUnknown;
    o.error = "timed out after " + std::to_string(config_.timeout_ms) + " ms; process group killed";
    return o;
  }
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    o.exit_code = code;
    if (code == 0) {
      o.verdict = Verdict::kSuccess;
      o.result_ref = ResultRefFromStdout(o.stdout_tail);
      return o;
    }
    o.verdict = code == kExitTransient ? Verdict::kTransient : Verdict::kPermanent;
    o.error = "exit status " + std::to_string(code);
    return o;
  }
  o.verdict = Verdict::kPermanent;
  o.error = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status)) : "ended abnormally";
  return o;
}

}  // namespace hookinbox::worker
