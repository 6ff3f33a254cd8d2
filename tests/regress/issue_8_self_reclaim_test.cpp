// Regression: one serve process ran one event twice at once.
// An admin's sqlite3 session held the write lock longer than the lease, so
// the running attempt's renewals failed and its lease lapsed; right after the
// lock was released another worker thread of the SAME process claimed the
// event (due: 'processing' with lease_until < now), and the exec handler ran
// a second time beside the first (attempt 1 'lost', attempt 2 'completed').
//
// The race (the renewer against the other thread's claim, after the release)
// is forced: the lock is released right after a renewal failure was logged,
// so the old code's next renewal is a whole renewal period (1 s) away, and a
// new delivery wakes the idle thread to claim at once.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;

// Records every start; evt_long then holds its attempt open until the test
// creates `release` (bounded, so a broken run ends).
constexpr const char* kHandler = R"(#!/bin/bash
out='OUT'
echo "start $HOOKINBOX_EVENT_ID $$ $HOOKINBOX_ATTEMPT" >>"$out/starts"
if [ "$HOOKINBOX_EVENT_ID" = evt_long ]; then
  for _ in $(seq 1200); do [ -e "$out/release" ] && exit 0; sleep 0.05; done
  exit 1
fi
exit 0
)";

// Two threads, both allowed on the endpoint (action.concurrency), so the
// second thread is free to claim while the first runs evt_long; a 3 s lease
// (renewed every 1 s); a short busy timeout, so renewals fail fast under the lock.
constexpr const char* kActionConfig = R"(
[endpoint.action]
type = "exec"
command = ["handler.sh"]
timeout_ms = 120000
concurrency = 2

[worker]
threads = 2
lease_seconds = 3
)";

// An admin's `sqlite3` session holding BEGIN IMMEDIATE until Release (or destruction).
class LockHolder {
 public:
  LockHolder(const std::string& db, const std::string& out) {
    const std::string locked = out + "/locked";
    pipe_ = ::popen(("sqlite3 -bail " + db + " >" + out + "/lock.log 2>&1").c_str(), "w");
    REQUIRE(pipe_ != nullptr);
    std::fputs((".timeout 5000\nBEGIN IMMEDIATE;\n.shell touch " + locked + "\n").c_str(), pipe_);
    std::fflush(pipe_);
    REQUIRE(PollUntil([&] { return ::access(locked.c_str(), F_OK) == 0; }, 10s));
  }
  ~LockHolder() { Release(); }
  int Release() {
    if (pipe_ == nullptr) return 0;
    std::fputs("COMMIT;\n.quit\n", pipe_);
    std::fflush(pipe_);
    int status = ::pclose(pipe_);
    pipe_ = nullptr;
    return status;
  }

 private:
  FILE* pipe_ = nullptr;
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int CountOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("regress issue 8: a lease lapsing under a held write lock never lets the same process run the event twice",
          "[worker][regress][sqlite]") {
  Installation inst;
  const std::string out = inst.dir() + "/out";
  REQUIRE(::mkdir(out.c_str(), 0700) == 0);
  std::string script = kHandler;
  script.replace(script.find("OUT"), 3, out);
  const std::string handler = inst.dir() + "/handler.sh";
  std::ofstream(handler) << script;
  ::chmod(handler.c_str(), 0700);
  inst.WriteTestConfig(kActionConfig, "", "busy_timeout_ms = 50\n");
  ServerProcess server{inst};
  server.Start();
  auto deliver = [&](const std::string& id) {
    auto r = server.PostSigned("/hooks/demo", R"({"id":")" + id + R"(","type":"job.run"})");
    INFO(r.body);
    REQUIRE(r.status == 200);
    return nlohmann::json::parse(r.body).at("id").get<int64_t>();
  };
  auto starts_of = [&](const std::string& id) { return CountOf(ReadFile(out + "/starts"), "start " + id + " "); };
  auto inbox = [&](int64_t id, const std::string& columns) {
    return inst.Sql("SELECT " + columns + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  };
  auto attempts = [&](int64_t id) {
    return inst.Sql("SELECT group_concat(outcome || ':' || attempt, ';') FROM (SELECT outcome, attempt FROM "
                    "webhook_attempts WHERE inbox_id = " + std::to_string(id) + " ORDER BY id) AS sub");
  };

  const int64_t id = deliver("evt_long");
  REQUIRE(PollUntil([&] { return starts_of("evt_long") == 1; }, 30s));

  {
    LockHolder lock(inst.db_path(), out);
    // Nothing commits under the lock, so this is the lease's last value.
    const int64_t lease_until = std::stoll(inbox(id, "lease_until"));
    REQUIRE(PollUntil([&] { return NowMs() > lease_until + 50; }, 10s));
    // A renewal fails after the lease lapsed; the old code tries again only a
    // renewal period (1 s) later, so the claim below comes first.
    const int failures = CountOf(server.log(), "worker_renew_failed");
    REQUIRE(PollUntil([&] { return CountOf(server.log(), "worker_renew_failed") > failures; }, 10s));
    CHECK(lock.Release() == 0);
  }
  // Wakes the idle thread: it claims whatever is due, at once.
  const int64_t next = deliver("evt_next");
  // The fixed worker runs evt_next beside evt_long; the old one took evt_long
  // again (and evt_next then waited for a free thread).
  REQUIRE(PollUntil([&] { return inbox(next, "status") == "completed" || starts_of("evt_long") > 1; }, 30s));

  REQUIRE(std::ofstream(out + "/release").good());
  REQUIRE(PollUntil([&] { return inbox(id, "status") == "completed" && inbox(next, "status") == "completed"; },
                    60s));
  INFO("starts:\n" << ReadFile(out + "/starts"));
  CHECK(starts_of("evt_long") == 1);
  CHECK(inbox(id, "attempt_count") == "1");
  CHECK(attempts(id) == "completed:1");
  CHECK(inst.Sql("SELECT count(*) FROM webhook_attempts WHERE outcome = 'lost'") == "0");
  CHECK(attempts(next) == "completed:1");
}

}  // namespace hookinbox::testing
