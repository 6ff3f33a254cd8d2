// The exec action: fork/exec with pipes, driven by one poll loop.
//
// Design: stdin is written and stdout/stderr read in the same poll loop, so a
// command that never reads its input, or prints a lot before reading, cannot
// deadlock us. The child's exit is watched through a pidfd, so the loop needs
// no SIGCHLD handler and never sleeps. Everything the child needs (argv,
// envp) is built before fork: between fork and exec only async-signal-safe
// calls are made.
//
// Secret files: the command runs as our user, so it could open them by path.
// Before exec the child moves into a mount namespace of its own and covers
// each of them with /dev/null (a bind mount). With CAP_SYS_ADMIN (root) a
// plain mount namespace does; the command, still root, could unmount the
// cover, but root reads every file anyway. Without it (the packaged service
// user) the child first enters a user namespace of its own, with no uid or
// gid mapped: writing uid_map needs a dumpable process, and a dumpable copy
// of our memory would be readable by the same user until exec. So the
// command sees itself and every file as nobody (65534), while the kernel
// still checks its real ids; it execs with no capabilities, cannot unmount
// the covers, and cannot create a user namespace of its own (its uid is
// unmapped).
// Where the kernel or a sandbox refuses (systemd's RestrictNamespaces=, a
// container's seccomp profile), the command runs uncovered and the first
// refusal is logged as a warning.
#include "action/exec_action.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/log.h"
#include "action/sigpipe_guard.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

namespace hookinbox::action {
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

// What the child tells the parent through the report pipe before exec.
enum class ChildStep : int { kUnshare, kPrivateMounts, kCoverFile, kExec };

struct ChildReport {
  ChildStep step;
  int error;  // errno
};

const char* StepName(ChildStep step) {
  switch (step) {
    case ChildStep::kUnshare: return "unshare";
    case ChildStep::kPrivateMounts: return "making mounts private";
    case ChildStep::kCoverFile: return "bind-mounting /dev/null";
    case ChildStep::kExec: return "exec";
  }
  return "?";
}

// In the child: covers every file of `files` (existing files only, so a
// mount error is a real refusal; see the top of this file). Returns the step
// that failed and its errno, or nullopt when all are covered.
std::optional<ChildReport> CoverSecretFiles(const std::vector<const char*>& files) {
  if (files.empty()) return std::nullopt;
  if (::unshare(CLONE_NEWNS) != 0 && (errno != EPERM || ::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)) {
    return ChildReport{ChildStep::kUnshare, errno};
  }
  // A shared mount would carry the covers back into hookinbox's own namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return ChildReport{ChildStep::kPrivateMounts, errno};
  }
  for (const char* file : files) {
    if (::mount("/dev/null", file, nullptr, MS_BIND, nullptr) != 0) return ChildReport{ChildStep::kCoverFile, errno};
  }
  return std::nullopt;
}

void Report(int report, ChildStep step, int error) {
  const ChildReport r{step, error};
  (void)!::write(report, &r, sizeof r);
}

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
                           int max_fd, const std::vector<const char*>& secret_files) {
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
    Report(report, ChildStep::kExec, errno);
    ::_exit(127);
  }
  if (std::optional<ChildReport> failed = CoverSecretFiles(secret_files)) {
    Report(report, failed->step, failed->error);
  }
  // Every other descriptor — listening sockets, the database — is closed at
  // exec, including any a library opened without O_CLOEXEC. `report` too:
  // its closing is how the parent learns that exec succeeded.
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd <= max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  ::execve(argv[0], argv, envp);
  Report(report, ChildStep::kExec, errno);
  ::_exit(127);
}

// The files of `paths` that exist now, for CoverSecretFiles.
std::vector<const char*> ExistingFiles(const std::vector<std::string>& paths) {
  std::vector<const char*> files;
  for (const std::string& path : paths) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) files.push_back(path.c_str());
  }
  return files;
}

// Once per process: every later command meets the same kernel and sandbox.
void WarnUncovered(const ChildReport& r) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  log::Warn("exec_secret_files_readable",
            {{"detail", std::string("exec commands can read the secret and key files by path: ") + StepName(r.step) +
                            " failed (" + std::strerror(r.error) +
                            "); under systemd allow it with RestrictNamespaces=user mnt and SystemCallFilter=@mount "
                            "(README, \"Exec actions and secrets\")"}});
}

Outcome NotStarted(Verdict verdict, std::string error) {
  Outcome o;
  o.verdict = verdict;
  o.no_answer = NoAnswer::kNotSent;
  o.error = std::move(error);
  return o;
}

}  // namespace

ExecAction::ExecAction(config::ActionConfig config, std::vector<std::string> secret_files)
    : config_(std::move(config)), secret_files_(std::move(secret_files)) {}

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
  const std::vector<const char*> secret_files = ExistingFiles(secret_files_);
  SigpipeGuard sigpipe_guard;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.timeout_ms);

  const pid_t pid = ::fork();
  if (pid < 0) return NotStarted(Verdict::kTransient, std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    RunChild(stdin_pipe.read.get(), stdout_pipe.write.get(), stderr_pipe.write.get(), report.write.get(),
             argv.ptrs.data(), envp.ptrs.data(), max_fd, secret_files);
  }
  ::setpgid(pid, pid);  // also done in the child; whichever runs first wins the race
  stdin_pipe.read.Close();
  stdout_pipe.write.Close();
  stderr_pipe.write.Close();
  report.write.Close();

  // Blocks only until exec succeeds (the pipe closes) or fails (a kExec
  // report arrives); a failed cover is reported first and the child goes on.
  ChildReport r;
  ssize_t got;
  for (;;) {
    do {
      got = ::read(report.read.get(), &r, sizeof r);
    } while (got < 0 && errno == EINTR);
    if (got != static_cast<ssize_t>(sizeof r)) break;
    if (r.step != ChildStep::kExec) {
      WarnUncovered(r);
      continue;
    }
    int status;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    // A missing or non-executable program is a configuration problem: retrying does not fix it.
    return NotStarted(Verdict::kPermanent, "cannot run " + config_.command[0] + ": " + std::strerror(r.error));
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
    o.no_answer = NoAnswer::kTimedOut;
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

}  // namespace hookinbox::action
