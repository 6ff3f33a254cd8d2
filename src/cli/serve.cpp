// `hookinbox serve`. Signals are blocked before any thread starts and taken
// by one thread with sigwait, so no handler runs in an arbitrary thread and
// shutdown is ordinary code: stop accepting → finish in-flight → close db.
// SIGHUP reloads the config and the TLS certificates (App::Reload) and
// serving goes on: unblocked, its default action would end the process, and systemd
// counts that as a clean exit, so Restart=on-failure would not bring it back.
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/app.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/init.h"
#include "cli/open_command.h"
#include "cli/open_store.h"
#include "common/log.h"

namespace hookinbox::cli {
namespace {

sigset_t ServeSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);   // reload the config and the certificates
  sigaddset(&set, SIGUSR1);  // internal: wakes the signal thread at exit
  return set;
}

// Reloads the config at each SIGHUP; at SIGTERM/SIGINT stops the app;
// SIGUSR1 only ends the wait.
// A signal that arrives during start-up stays pending until this thread
// takes it, and the listener may not run yet (the library ignores a stop
// before that), so the stop is repeated until it lands or Run() returned.
std::thread StartSignalThread(App& app, const std::atomic<bool>& run_finished) {
  return std::thread([&app, &run_finished] {
    sigset_t set = ServeSignals();
    int sig = 0;
    for (;;) {
      if (sigwait(&set, &sig) != 0 || sig == SIGUSR1) return;
      if (sig != SIGHUP) break;
      app.Reload({.actor = "signal", .accept_key_change = {}});
    }
    log::Info("shutdown", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    while (!run_finished.load() && !app.Stop()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

// Keeps freed memory in the process instead of handing it back to the kernel
// after every burst. glibc's defaults trim an arena's top as soon as 128 KiB
// are free and map larger blocks one by one; with dozens of connection
// threads that meant a madvise or munmap, and page faults to get the memory
// back, on most requests (a tenth of the server's CPU when profiled). The
// cost is that RSS stays at its peak, which is bounded by the connection
// threads and the body limit, not by traffic.
void KeepFreedMemory() {
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

// No -c and no ./hookinbox.toml: write the embedded default here first.
bool PrepareDefault(std::string* path, std::ostream& out) {
  std::error_code ec;
  if (std::filesystem::exists(*path, ec)) return true;
  if (Status st = Initialize("."); !st.ok()) {
    log::Error("init_failed", {{"detail", "cannot create the default installation: " + st.message()}});
    return false;
  }
  out << "No " << kDefaultConfigPath << " here: created the default installation in "
      << std::filesystem::current_path(ec).string() << "\n";
  return true;
}

void WarnInsecure(const config::Config& config) {
  for (const auto& e : config.endpoints) {
    if (e.insecure) log::Warn("insecure_endpoint", {{"endpoint", e.name}, {"detail", "deliveries are not authenticated"}});
  }
  if (config.server.plain_http) log::Warn("plain_http", {{"detail", "serving HTTP without TLS; only behind a TLS proxy"}});
}

// Each admitted connection costs a descriptor while it waits and two while
// it is served (the library's and the connection guard's): the caps need
// far more than the usual soft limit of 1024. The hard limit is the bound.
void RaiseDescriptorLimit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur >= files.rlim_max) return;
  files.rlim_cur = files.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &files);
}

}  // namespace

int RunServe(const ServeOptions& options, const CommonOptions& common, std::ostream& out) {
  ::umask(077);  // the database, WAL and anything else we create stay private
  // A client that hangs up mid-answer must cost us a failed write, not the
  // process: TLS writes go through write(2), which raises SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  // Under a file-size limit (RLIMIT_FSIZE) the write past it must fail with
  // EFBIG, which the store answers as 503, not end the process. exec actions
  // get default dispositions back in the child (action/exec_action.cpp).
  ::signal(SIGXFSZ, SIG_IGN);
  RaiseDescriptorLimit();
  KeepFreedMemory();
  // Before any thread exists, and before the config is read: a SIGHUP
  // (`systemctl reload`) that arrives while it loads must not end the process.
  sigset_t signals = ServeSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // The environment before the start scrubs the secrets from it: what every
  // reload reads the *_env keys from (cli/load_config.h).
  StartEnvironment start_env = StartEnvironment::Capture();
  std::string path = ConfigPath(common);
  bool fresh_default = common.config_path.empty() && !std::filesystem::exists(path);
  if (common.config_path.empty() && !PrepareDefault(&path, out)) return kExitFailure;
  // The App opens the store itself (cli/app.h).
  auto opened = OpenForCommand(common, {.verb = "serve", .check = ConfigCheck::kServable, .report_to_log = true},
                               std::cerr);
  if (!opened) return kExitFailure;
  log::SetRedactedFields(opened->config.log.redact);  // before the first line
  WarnInsecure(opened->config);

  App app(std::move(opened->config), opened->config_path, std::move(start_env), options.accept_key_change);
  if (Status st = app.Start(); !st.ok()) {
    log::Error("start_failed", {{"detail", st.message()}});
    return kExitFailure;
  }
  // Before "listening": whoever waits for that line can read both addresses,
  // and the tour of a fresh default (stdout is buffered when it is a file).
  app.LogCertificates();
  log::Info("admin_listening", {{"url", app.AdminUrl()}});
  if (fresh_default) out << "\n" << Tour(app.config().base_dir, app.BaseUrl()) << std::flush;
  log::Info("listening",
            {{"url", app.BaseUrl()}, {"config", path}, {"database", StorageLocation(app.config().storage)}});

  std::atomic<bool> run_finished{false};
  std::thread signal_thread = StartSignalThread(app, run_finished);
  Status run = app.Run();
  run_finished = true;
  pthread_kill(signal_thread.native_handle(), SIGUSR1);  // ends a sigwait still waiting
  signal_thread.join();
  app.Close();
  if (!run.ok()) {
    log::Error("serve_failed", {{"detail", run.message()}});
    return kExitFailure;
  }
  log::Info("stopped", {{"detail", "database closed cleanly"}});
  return kExitOk;
}

int RunServe(const CommonOptions& common, std::ostream& out) { return RunServe(ServeOptions{}, common, out); }

}  // namespace hookinbox::cli
