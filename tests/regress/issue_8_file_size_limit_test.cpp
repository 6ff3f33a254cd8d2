// Regression: under a file-size limit (RLIMIT_FSIZE: a
// systemd LimitFSIZE=, a shell's ulimit -f) the write that crosses the limit
// raised SIGXFSZ, whose default action ends the process: `serve` died with
// exit 153 and the delivery in flight got no answer. With SIGXFSZ ignored the
// write fails with EFBIG instead, SQLite reports an I/O error, and the
// delivery is answered 503 like any other storage failure: the server stays
// up, nothing is half-written, and it accepts again once the limit goes.
//
// The limit is set on the running server with prlimit(2) rather than at exec,
// so it can sit just above the files as they are after start-up and be
// raised again from outside, as an operator would with `prlimit --pid`.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

constexpr size_t kPadBytes = 100000;   // ~100 KB per delivery
constexpr rlim_t kHeadroom = 1 << 20;  // the limit: largest file + 1 MiB, so ~10 deliveries fit
constexpr int kMaxDeliveries = 200;    // 20 MB: far past the limit, a bound on the loop

std::string BigEvent(const std::string& id) {
  return R"({"id":")" + id + R"(","type":"t","data":{"pad":")" + std::string(kPadBytes, 'x') + R"("}})";
}

off_t FileSize(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

std::string Outcome(const HttpResult& r) {
  if (r.status != 200) return "";
  return json::parse(r.body).value("status", "");
}

}  // namespace

TEST_CASE("regress issue 8: a file-size limit answers 503 instead of killing the server, and it recovers",
          "[regress][fault][sqlite]") {
  Installation inst;
  inst.WriteTestConfig(DemoLikeEndpoint("big", "max_body_bytes = 131072\n"));
  ServerProcess server{inst};
  server.Start();
  REQUIRE(Outcome(server.PostSigned("/hooks/big", BigEvent("evt_warm"))) == "accepted");

  // Every file the server writes, the log included, stays below the limit
  // until the deliveries below grow the WAL past it.
  const std::string db = inst.db_path();
  off_t largest = 0;
  for (const std::string& f : {db, db + "-wal", db + "-shm", inst.dir() + "/serve-1.log"}) {
    largest = std::max(largest, FileSize(f));
  }
  struct rlimit original{};
  REQUIRE(::prlimit(server.pid(), RLIMIT_FSIZE, nullptr, &original) == 0);
  const struct rlimit limited = {static_cast<rlim_t>(largest) + kHeadroom, original.rlim_max};
  REQUIRE(::prlimit(server.pid(), RLIMIT_FSIZE, &limited, nullptr) == 0);

  std::vector<std::string> accepted = {"evt_warm"};
  std::string refused_id;
  HttpResult refused;
  for (int i = 0; i < kMaxDeliveries && refused_id.empty(); ++i) {
    const std::string id = "evt_big_" + std::to_string(i);
    HttpResult r = server.PostSigned("/hooks/big", BigEvent(id));
    if (r.status == 200) {
      REQUIRE(Outcome(r) == "accepted");
      accepted.push_back(id);
    } else {
      refused_id = id;
      refused = r;
    }
  }
  INFO("limit " << limited.rlim_cur << " bytes; accepted " << accepted.size() << "; refused " << refused_id);
  REQUIRE_FALSE(refused_id.empty());  // the limit was reached
  if (refused.status == 0) {
    // No answer: the process died (before the fix: 153 = 128 + SIGXFSZ).
    const int code = server.WaitExit(5s);
    FAIL("no answer to " << refused_id << "; serve exited with " << code);
  }
  CHECK(refused.status == 503);
  CHECK(refused.headers["Retry-After"] == "5");
  CHECK(refused.body.find("storage unavailable") != std::string::npos);

  // Still running and answering.
  CHECK(server.WaitExit(0ms) == -1);
  CHECK(server.Request("GET", "/healthz", "", {}).status == 200);

  // Every acknowledged delivery once, in order; nothing of the refused one.
  auto stored = [&] { return InboxEventIdsInOrder(inst); };
  std::string acked = CommaJoined(accepted);
  CHECK(inst.Sql("PRAGMA integrity_check") == "ok");
  CHECK(stored() == acked);
  CHECK(inst.Sql("SELECT count(*) FROM webhook_inbox WHERE event_id = '" + refused_id + "'") == "0");

  // The limit lifted from outside: the same server accepts the refused
  // delivery as new, and the acknowledged ones are duplicates.
  REQUIRE(::prlimit(server.pid(), RLIMIT_FSIZE, &original, nullptr) == 0);
  CHECK(Outcome(server.PostSigned("/hooks/big", BigEvent(refused_id))) == "accepted");
  CHECK(Outcome(server.PostSigned("/hooks/big", BigEvent(accepted.back()))) == "duplicate");
  acked += "," + refused_id;
  CHECK(stored() == acked);

  // A clean stop and a restart (no limit) keep all of it.
  server.Kill(SIGTERM);
  CHECK(server.WaitExit() == 0);
  server.Start();
  CHECK(Outcome(server.PostSigned("/hooks/big", BigEvent("evt_after_restart"))) == "accepted");
  CHECK(inst.Sql("PRAGMA integrity_check") == "ok");
  CHECK(stored() == acked + ",evt_after_restart");
}

}  // namespace hookinbox::testing
