// The exec action against small commands. The TEST's scripts use sh -c; the
// action itself execs argv directly.
#include "action/exec_action.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "support/temp_dir.h"

namespace hookinbox::action {
namespace {

config::ActionConfig Exec(std::vector<std::string> command, int64_t timeout_ms = 10000) {
  config::ActionConfig c;
  c.type = "exec";
  c.command = std::move(command);
  c.timeout_ms = timeout_ms;
  return c;
}

ActionInput Input(std::string body = R"({"id":"evt_9"})") {
  ActionInput in;
  in.event_id = "evt_9";
  in.event_type = "order.created";
  in.idempotency_key = IdempotencyKey("generic", "orders", "default", "evt_9");
  in.attempt = 2;
  in.content_type = "application/json";
  in.body = std::move(body);
  return in;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::set<std::string> Lines(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.insert(line);
  return out;
}

// True once /proc says `pid` is gone or a zombie; polls up to a deadline.
bool DiesWithin(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
    const size_t paren = stat.rfind(')');
    if (stat.empty() || (paren != std::string::npos && stat.compare(paren + 2, 1, "Z") == 0)) return true;
    std::this_thread::yield();
  }
  return false;
}

TEST_CASE("exec: the environment is exactly the documented variables", "[action][exec]") {
  ::setenv("HOOKINBOX_TEST_PARENT_ONLY", "must-not-leak", 1);
  ActionInput in = Input();
  in.token = "tok_1";
  in.api_base = "http://127.0.0.1:8081/v1";
  const Outcome o = ExecAction(Exec({"/usr/bin/env"})).Run(in);
  ::unsetenv("HOOKINBOX_TEST_PARENT_ONLY");
  REQUIRE(o.verdict == Verdict::kSuccess);
  CHECK(Lines(o.stdout_tail) == std::set<std::string>{
                                    "PATH=/usr/local/bin:/usr/bin:/bin",
                                    "HOME=/",
                                    "LANG=C.UTF-8",
                                    "HOOKINBOX_EVENT_ID=evt_9",
                                    "HOOKINBOX_EVENT_TYPE=order.created",
                                    "HOOKINBOX_IDEMPOTENCY_KEY=" + in.idempotency_key,
                                    "HOOKINBOX_ATTEMPT=2",
                                    "HOOKINBOX_TOKEN=tok_1",
                                    "HOOKINBOX_API=http://127.0.0.1:8081/v1",
                                });
}

TEST_CASE("exec: without token and API base those variables are absent", "[action][exec]") {
  const Outcome o = ExecAction(Exec({"/usr/bin/env"})).Run(Input());
  REQUIRE(o.verdict == Verdict::kSuccess);
  CHECK(o.stdout_tail.find("HOOKINBOX_TOKEN") == std::string::npos);
  CHECK(o.stdout_tail.find("HOOKINBOX_API") == std::string::npos);
  CHECK(Lines(o.stdout_tail).size() == 7);
}

TEST_CASE("exec: the body arrives on stdin unchanged, 1 MiB included", "[action][exec]") {
  testing::TempDir dir;
  const std::string out = dir.File("stdin.bin");
  std::string body(1 << 20, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>(i * 131 % 251);
  const Outcome o = ExecAction(Exec({"/bin/cp", "/dev/stdin", out})).Run(Input(body));
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK(o.exit_code == std::optional<int>(0));
  CHECK(ReadFile(out) == body);
}

TEST_CASE("exec: exit 0 with a JSON last line gives result_ref", "[action][exec]") {
  const Outcome o = ExecAction(Exec({"/bin/sh", "-c",
                                     "cat >/dev/null; echo working; echo '{\"result_ref\": \"ord_77\"}'"}))
                        .Run(Input());
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK(o.sent);
  CHECK(o.result_ref == "ord_77");
  CHECK(o.error.empty());
}

TEST_CASE("exec: a last line that is not JSON gives no result_ref", "[action][exec]") {
  const Outcome o = ExecAction(Exec({"/bin/sh", "-c", "echo '{\"result_ref\": \"x\"}'; echo done"})).Run(Input());
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK(o.result_ref.empty());
}

TEST_CASE("exec: exit 75 is transient, other exits and signals permanent", "[action][exec]") {
  const Outcome retry = ExecAction(Exec({"/bin/sh", "-c", "echo busy >&2; exit 75"})).Run(Input());
  CHECK(retry.verdict == Verdict::kTransient);
  CHECK(retry.sent);
  CHECK(retry.exit_code == std::optional<int>(75));
  CHECK(retry.error == "exit status 75");
  CHECK(retry.stderr_tail == "busy\n");

  const Outcome bad = ExecAction(Exec({"/bin/sh", "-c", "exit 1"})).Run(Input());
  CHECK(bad.verdict == Verdict::kPermanent);
  CHECK(bad.exit_code == std::optional<int>(1));
  CHECK(bad.error == "exit status 1");

  const Outcome killed = ExecAction(Exec({"/bin/sh", "-c", "kill -TERM $$"})).Run(Input());
  CHECK(killed.verdict == Verdict::kPermanent);
  CHECK_FALSE(killed.exit_code.has_value());
  CHECK(killed.error == "killed by signal 15");
}

TEST_CASE("exec: a timeout kills the whole process group, grandchild included", "[action][exec]") {
  testing::TempDir dir;
  const std::string pidfile = dir.File("grandchild.pid");
  for (bool idempotent : {false, true}) {
    config::ActionConfig c = Exec({"/bin/sh", "-c", "sleep 60 & echo $! > " + pidfile + "; wait"}, 500);
    c.idempotent_target = idempotent;
    const auto start = std::chrono::steady_clock::now();
    const Outcome o = ExecAction(c).Run(Input());
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(o.verdict == (idempotent ? Verdict::kTransient : Verdict::kUnknown));
    CHECK(o.sent);
    CHECK_FALSE(o.exit_code.has_value());
    CHECK(o.error == "timed out after 500 ms; process group killed");
    CHECK(o.no_answer == action::NoAnswer::kTimedOut);
    const std::string pid_text = ReadFile(pidfile);
    REQUIRE_FALSE(pid_text.empty());
    CHECK(DiesWithin(static_cast<pid_t>(std::stol(pid_text)), std::chrono::seconds(5)));
  }
}

TEST_CASE("exec: a background child left running does not hold the action open", "[action][exec]") {
  testing::TempDir dir;
  const std::string pidfile = dir.File("bg.pid");
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = ExecAction(Exec({"/bin/sh", "-c", "sleep 60 & echo $! > " + pidfile + "; exit 0"})).Run(Input());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK(DiesWithin(static_cast<pid_t>(std::stol(ReadFile(pidfile))), std::chrono::seconds(5)));
}

TEST_CASE("exec: a command that never reads stdin gets a 1 MiB body without SIGPIPE or deadlock",
          "[action][exec]") {
  // The default disposition: if SIGPIPE reached this process it would die.
  struct sigaction dfl = {}, old = {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &dfl, &old);
  const std::string body(1 << 20, 'x');
  SECTION("it exits at once") {
    const Outcome o = ExecAction(Exec({"/bin/sh", "-c", "echo '{\"result_ref\":\"r\"}'"})).Run(Input(body));
    CHECK(o.verdict == Verdict::kSuccess);
    CHECK(o.result_ref == "r");
  }
  SECTION("it closes stdin and keeps printing") {
    const Outcome o =
        ExecAction(Exec({"/bin/sh", "-c", "exec 0<&-; i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done"}))
            .Run(Input(body));
    CHECK(o.verdict == Verdict::kSuccess);
    CHECK(o.stdout_tail.find("line 1999\n") != std::string::npos);
  }
  ::sigaction(SIGPIPE, &old, nullptr);
}

TEST_CASE("exec: stdout is kept up to the cap, the tail end", "[action][exec]") {
  const Outcome o = ExecAction(Exec({"/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' a; echo; echo END"}))
                        .Run(Input());
  CHECK(o.verdict == Verdict::kSuccess);
  CHECK(o.stdout_tail.size() == kExecOutputCap);
  CHECK(o.stdout_tail.substr(o.stdout_tail.size() - 4) == "END\n");
}

TEST_CASE("exec: a program that cannot run is permanent and not sent", "[action][exec]") {
  const Outcome o = ExecAction(Exec({"/nonexistent/handler", "--flag"})).Run(Input());
  CHECK(o.verdict == Verdict::kPermanent);
  CHECK_FALSE(o.sent);
  CHECK(o.error == "cannot run /nonexistent/handler: No such file or directory");
}

TEST_CASE("exec: descriptors of hookinbox (even without O_CLOEXEC) do not reach the command", "[action][exec]") {
  const int leaky = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  REQUIRE(leaky > 2);
  const std::string path = "/proc/self/fd/" + std::to_string(leaky);
  const Outcome absent = ExecAction(Exec({"/usr/bin/test", "-e", path})).Run(Input(""));
  CHECK(absent.exit_code == std::optional<int>(1));  // test -e: 1 = does not exist
  const Outcome control = ExecAction(Exec({"/usr/bin/test", "-e", "/proc/self/fd/2"})).Run(Input(""));
  CHECK(control.exit_code == std::optional<int>(0));
  ::close(leaky);
}

TEST_CASE("exec: secret files read as empty for the command, and stay readable here", "[action][exec]") {
  testing::TempDir dir;
  const std::string secret = dir.Write("demo.secret", "s3cr3t-bytes\n");
  const std::string other = dir.Write("other.txt", "not a secret\n");
  const std::string missing = dir.File("never-created.secret");  // skipped, not an error
  ExecAction action(Exec({"/bin/sh", "-c", "cat \"$0\" \"$1\"", secret, other}), {secret, missing});
  // As serve runs (common/process_secrets.h): the child starts non-dumpable
  // too, which rules out writing its uid_map. Run it as a non-root user as well.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  for (int run = 0; run < 2; ++run) {
    const Outcome o = action.Run(Input(""));
    INFO(o.error << o.stderr_tail);
    CHECK(o.verdict == Verdict::kSuccess);
    CHECK(o.stdout_tail == "not a secret\n");
  }
  ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  // The cover lives in the command's namespace only: a shared mount would
  // have carried it back here.
  CHECK(ReadFile(secret) == "s3cr3t-bytes\n");
}

}  // namespace
}  // namespace hookinbox::action
