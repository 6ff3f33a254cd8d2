// action/sigpipe_guard.h — keeps SIGPIPE from killing the process during an action.
//
// Used by action/ and by the alert channels (alert/channel*.cpp), which
// write to the same kinds of sockets. Writing to a pipe whose reader is gone (a command that
// never reads stdin) or to a reset TLS socket (OpenSSL writes with write(2))
// raises SIGPIPE. `serve` ignores it process-wide; the actions do not rely on
// that, so they stay safe in any host process and in tests.
#pragma once

#include <pthread.h>
#include <signal.h>
#include <time.h>

namespace hookinbox::action {

// Blocks SIGPIPE in this thread for the object's lifetime, then consumes a
// SIGPIPE our writes raised, so a write to a closed pipe or socket does not
// kill the process (whatever the process-wide disposition is).
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    if (!was_pending_) {
      const struct timespec zero = {0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

}  // namespace hookinbox::action
