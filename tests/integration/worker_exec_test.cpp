// Integration tests of the exec action through the real binary and its worker
// loop: a shell script in the installation records what it was given (stdin,
// its exact initial environment from /proc/$$/environ, pids) into files and
// exits with the code the case needs; the database is polled with deadlines.
//
// "Not retried" is never shown by sleeping: after the terminal state, a second
// event on the same endpoint goes through a retry (exit 75, then 0), so the
// worker has run claims well past the first event's backoff before the first
// one's attempt count is checked again.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

std::string Chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// A process is gone when kill(pid, 0) fails or it is a zombie (killed, not
// yet reaped: orphans are reaped by pid 1, which may be slow or never do it).
bool ProcessGone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return true;
  char state = stat[paren + 2];
  return state == 'Z' || state == 'X';
}

// NAME=VALUE pairs of a NUL-separated environment block.
std::map<std::string, std::string> ParseEnviron(const std::string& block) {
  std::map<std::string, std::string> env;
  size_t start = 0;
  while (start < block.size()) {
    size_t end = block.find('\0', start);
    if (end == std::string::npos) end = block.size();
    std::string entry = block.substr(start, end - start);
    size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
    start = end + 1;
  }
  return env;
}

// The demo endpoint running handler.sh, with a tiny backoff and lease.
std::string ExecActionConfig(int timeout_ms, bool idempotent) {
  return R"(
[endpoint.action]
type = "exec"
command = ["handler.sh"]
timeout_ms = )" + std::to_string(timeout_ms) + R"(
idempotent_target = )" + (idempotent ? "true" : "false") + R"(

[worker]
threads = 2
lease_seconds = 1
max_attempts = 3
backoff_initial_ms = 10
backoff_max_ms = 50
shutdown_grace_seconds = 5
)";
}

// The script's common start: `out` is where it records things; events whose
// id starts with "evt_later" fail transiently once, then succeed (the
// "worker is still running claims" probe described at the top).
constexpr const char* kScriptHead = R"(#!/bin/bash
out='OUT'
if [[ $HOOKINBOX_EVENT_ID == evt_later* ]]; then
  if [ ! -e "$out/$HOOKINBOX_EVENT_ID.once" ]; then : >"$out/$HOOKINBOX_EVENT_ID.once"; exit 75; fi
  exit 0
fi
)";

struct ExecFixture {
  Installation inst;
  ServerProcess server{inst};
  std::string out = inst.dir() + "/out";

  // Writes handler.sh (kScriptHead + `body`) and the config.
  ExecFixture(const std::string& body, int timeout_ms = 1000, bool idempotent = false) {
    REQUIRE(::mkdir(out.c_str(), 0700) == 0);
    std::string script = kScriptHead;
    script.replace(script.find("OUT"), 3, out);
    std::string path = inst.dir() + "/handler.sh";
    std::ofstream(path) << script << body;
    ::chmod(path.c_str(), 0700);
    inst.WriteTestConfig(ExecActionConfig(timeout_ms, idempotent));
  }
  int64_t Deliver(const std::string& body) const {
    auto r = server.PostSigned("/hooks/demo", body);
    INFO(r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body).at("id").get<int64_t>();
  }
  int64_t DeliverId(const std::string& id) const { return Deliver(R"({"id":")" + id + R"(","type":"job.run"})"); }
  std::string Inbox(int64_t id, const std::string& columns) const {
    return inst.Sql("SELECT " + columns + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
  // The deadline is generous: under TSan on a loaded 2-core machine each
  // fork of the (large) server is slow. A pass never waits for it.
  bool Becomes(int64_t id, const std::string& status, std::chrono::milliseconds timeout = 60s) const {
    if (PollUntil([&] { return Inbox(id, "status") == status; }, timeout)) return true;
    UNSCOPED_INFO("event " << id << " is " << Inbox(id, "status") << "; attempts: " << Attempts(id));
    return false;
  }
  // "outcome:exit_code:error;…" of every attempt, oldest first ('-' for NULL).
  std::string Attempts(int64_t id) const {
    return inst.Sql(
        "SELECT group_concat(line, ';') FROM (SELECT outcome || ':' || ifnull(exit_code, '-') || ':' || "
        "ifnull(error, '-') AS line FROM webhook_attempts WHERE inbox_id = " +
        std::to_string(id) + " ORDER BY id) AS sub");
  }
  // Delivers a probe event that needs a retry and waits until it completed.
  void ProbeWorkerRanPastBackoff(const std::string& probe_id) const {
    int64_t probe = DeliverId(probe_id);
    REQUIRE(Becomes(probe, "completed"));
    CHECK(Attempts(probe) == "retryable_failed:75:exit status 75;completed:0:-");
  }
};

}  // namespace

TEST_CASE("worker exec: body on stdin byte for byte; only the specified environment; stable key",
          "[worker][exec]") {
  // Records stdin and the exact environment it was started with, per attempt;
  // fails transiently on the first attempt so there are two to compare.
  ExecFixture f(R"(n=$HOOKINBOX_ATTEMPT
cat >"$out/stdin.$n"
cat /proc/$$/environ >"$out/env.$n"
if [ ! -e "$out/once" ]; then : >"$out/once"; exit 75; fi
echo '{"result_ref":"env-ok"}'
)");
  // Set in the test's (and so the server's) environment; must not reach the command.
  REQUIRE(::setenv("HOOKINBOX_TEST_LEAK", "leaked", 1) == 0);
  f.server.Start();
  ::unsetenv("HOOKINBOX_TEST_LEAK");

  // Bytes a shell or a JSON re-encoder would change: quotes, backslash
  // escapes, $ and backticks, UTF-8, odd spacing, a trailing newline.
  const std::string body =
      "{\"id\":\"evt_env\", \"type\" : \"order.created\",\n  \"note\":\"h\xC3\xA9llo \\\"q\\\" \\\\ $HOME `id` \\u00e9\","
      "\"n\":[1, 2 ,3.50]}\n";
  int64_t id = f.Deliver(body);
  REQUIRE(f.Becomes(id, "completed"));
  CHECK(f.Inbox(id, "attempt_count || '|' || result_ref") == "2|env-ok");
  CHECK(f.Attempts(id) == "retryable_failed:75:exit status 75;completed:0:-");

  CHECK(ReadFile(f.out + "/stdin.1") == body);
  CHECK(ReadFile(f.out + "/stdin.2") == body);

  auto env1 = ParseEnviron(ReadFile(f.out + "/env.1"));
  auto env2 = ParseEnviron(ReadFile(f.out + "/env.2"));
  for (auto* env : {&env1, &env2}) {
    CHECK((*env)["HOOKINBOX_EVENT_ID"] == "evt_env");
    CHECK((*env)["HOOKINBOX_EVENT_TYPE"] == "order.created");
    CHECK(env->count("HOOKINBOX_TEST_LEAK") == 0);
    // Nothing beyond the documented variables (exec_action.h).
    static const std::set<std::string> kAllowed = {
        "PATH", "HOME", "LANG", "HOOKINBOX_EVENT_ID", "HOOKINBOX_EVENT_TYPE", "HOOKINBOX_IDEMPOTENCY_KEY",
        "HOOKINBOX_ATTEMPT", "HOOKINBOX_TOKEN", "HOOKINBOX_API"};
    for (const auto& [name, value] : *env) {
      INFO(name);
      CHECK(kAllowed.count(name) == 1);
    }
  }
  CHECK(env1["HOOKINBOX_ATTEMPT"] == "1");
  CHECK(env2["HOOKINBOX_ATTEMPT"] == "2");
  const std::string key = env1["HOOKINBOX_IDEMPOTENCY_KEY"];
  CHECK(std::regex_match(key, std::regex("[0-9a-f]{64}")));
  CHECK(env2["HOOKINBOX_IDEMPOTENCY_KEY"] == key);

  // Another event gets another key.
  int64_t other = f.Deliver(R"({"id":"evt_env_other","type":"order.created"})");
  REQUIRE(f.Becomes(other, "completed"));
  auto env3 = ParseEnviron(ReadFile(f.out + "/env.1"));  // its first (and only) attempt
  CHECK(env3["HOOKINBOX_EVENT_ID"] == "evt_env_other");
  CHECK(std::regex_match(env3["HOOKINBOX_IDEMPOTENCY_KEY"], std::regex("[0-9a-f]{64}")));
  CHECK(env3["HOOKINBOX_IDEMPOTENCY_KEY"] != key);
}

TEST_CASE("worker exec: exit 75 is retried until it completes; a command that keeps failing is dead-lettered "
          "when attempts run out",
          "[worker][exec]") {
  // evt_flaky: 75, 75, then success. evt_down: 75 forever (max_attempts = 3).
  ExecFixture f(R"(echo "$HOOKINBOX_ATTEMPT" >>"$out/$HOOKINBOX_EVENT_ID.calls"
if [ "$HOOKINBOX_EVENT_ID" = evt_flaky ] && [ "$HOOKINBOX_ATTEMPT" -ge 3 ]; then
  echo done >>"$out/evt_flaky.done"
  echo '{"result_ref":"flaky-done"}'
  exit 0
fi
echo "busy" >&2
exit 75
)");
  f.server.Start();
  int64_t flaky = f.DeliverId("evt_flaky");
  int64_t down = f.DeliverId("evt_down");

  REQUIRE(f.Becomes(flaky, "completed"));
  CHECK(ReadFile(f.out + "/evt_flaky.done") == "done\n");  // the effect happened once
  CHECK(ReadFile(f.out + "/evt_flaky.calls") == "1\n2\n3\n");
  CHECK(f.Inbox(flaky, "attempt_count || '|' || result_ref") == "3|flaky-done");
  CHECK(f.Attempts(flaky) == "retryable_failed:75:exit status 75;retryable_failed:75:exit status 75;completed:0:-");

  REQUIRE(f.Becomes(down, "dead_lettered"));
  CHECK(f.Inbox(down, "attempt_count || '|' || last_error") == "3|attempts exhausted: exit status 75");
  CHECK(f.Attempts(down) ==
        "retryable_failed:75:exit status 75;retryable_failed:75:exit status 75;"
        "dead_lettered:75:attempts exhausted: exit status 75");
  CHECK(ReadFile(f.out + "/evt_down.calls") == "1\n2\n3\n");
}

TEST_CASE("worker exec: exit 1 is dead-lettered after exactly one attempt and never retried", "[worker][exec]") {
  ExecFixture f(R"(echo x >>"$out/$HOOKINBOX_EVENT_ID.calls"
echo "cannot parse" >&2
exit 1
)");
  f.server.Start();
  int64_t id = f.DeliverId("evt_bad");
  REQUIRE(f.Becomes(id, "dead_lettered"));
  CHECK(f.Inbox(id, "attempt_count || '|' || last_error || '|' || ifnull(result_ref, '-')") ==
        "1|exit status 1|-");
  CHECK(f.Attempts(id) == "dead_lettered:1:exit status 1");

  f.ProbeWorkerRanPastBackoff("evt_later_bad");
  CHECK(f.Inbox(id, "status || '|' || attempt_count") == "dead_lettered|1");
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(id)) == "1");
  CHECK(ReadFile(f.out + "/evt_bad.calls") == "x\n");
}

// Records its pid and a background child's, then outlives the timeout;
// once it has hung one time, every later run succeeds at once.
constexpr const char* kHangingScript = R"(if [ -e "$out/hung" ]; then
  echo '{"result_ref":"second-try"}'
  exit 0
fi
: >"$out/hung"
sleep 300 &
echo $! >"$out/child.pid"
echo $$ >"$out/script.pid"
sleep 300
)";

// Both recorded pids are gone, polled with a deadline.
void RequireProcessGroupKilled(const std::string& out) {
  const std::string script_pid = Chomp(ReadFile(out + "/script.pid"));
  const std::string child_pid = Chomp(ReadFile(out + "/child.pid"));
  REQUIRE(!script_pid.empty());
  REQUIRE(!child_pid.empty());
  for (const std::string& pid : {script_pid, child_pid}) {
    INFO("pid " << pid);
    CHECK(PollUntil([&] { return ProcessGone(static_cast<pid_t>(std::stol(pid))); }, 10s));
  }
}

TEST_CASE("worker exec: a timeout kills the whole process group; non-idempotent → unknown, never retried; "
          "resolve closes it with an audit row",
          "[worker][exec]") {
  ExecFixture f(kHangingScript, /*timeout_ms=*/1000, /*idempotent=*/false);
  f.server.Start();
  int64_t id = f.DeliverId("evt_hang");
  REQUIRE(f.Becomes(id, "unknown"));
  RequireProcessGroupKilled(f.out);
  CHECK(f.Inbox(id, "attempt_count || '|' || last_error") == "1|timed out after 1000 ms; process group killed");
  CHECK(f.Attempts(id) == "unknown:-:timed out after 1000 ms; process group killed");

  f.ProbeWorkerRanPastBackoff("evt_later_hang");
  CHECK(f.Inbox(id, "status || '|' || attempt_count") == "unknown|1");
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(id)) == "1");

  // The operator closes it by hand.
  auto resolve = [&](int64_t which) {
    return RunCommand(BinaryPath() + " events resolve " + std::to_string(which) +
                      " --as completed --result-ref ref-by-hand --note 'checked the ledger' -c " +
                      f.inst.config_path() + " 2>&1");
  };
  auto r = resolve(id);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(f.Inbox(id, "status || '|' || result_ref || '|' || attempt_count") == "completed|ref-by-hand|1");
  CHECK(f.inst.Sql("SELECT action || '|' || from_status || '|' || to_status || '|' || result_ref || '|' || note || "
                   "'|' || (CASE WHEN actor LIKE 'cli:%' THEN 1 ELSE 0 END)"
                   " FROM webhook_event_actions WHERE inbox_id = " +
                   std::to_string(id)) == "resolve|unknown|completed|ref-by-hand|checked the ledger|1");
  // Only an unknown event can be resolved: a second try fails and writes nothing.
  auto again = resolve(id);
  CHECK(again.exit_code == 1);
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_event_actions WHERE inbox_id = " + std::to_string(id)) == "1");
  // Resolving is bookkeeping: the command is not run again.
  CHECK(f.inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " + std::to_string(id)) == "1");
}

TEST_CASE("worker exec: with idempotent_target a timeout is retried and the next attempt completes",
          "[worker][exec]") {
  ExecFixture f(kHangingScript, /*timeout_ms=*/1000, /*idempotent=*/true);
  f.server.Start();
  int64_t id = f.DeliverId("evt_hang_idem");
  REQUIRE(f.Becomes(id, "completed"));
  RequireProcessGroupKilled(f.out);
  CHECK(f.Inbox(id, "attempt_count || '|' || result_ref") == "2|second-try");
  CHECK(f.Attempts(id) == "retryable_failed:-:timed out after 1000 ms; process group killed;completed:0:-");
}

}  // namespace hookinbox::testing
