// Crash consistency: signed deliveries with duplicates and
// conflicts from test_load (tests/support/load_main.cpp) run in the
// background while the server is SIGKILLed at random moments and restarted,
// and an http action forwards every event to test_downstream (which
// deduplicates by Idempotency-Key and counts effects). Afterwards the ledger
// of answers is held against the database: a 2xx is a promise that the
// delivery is stored, and no kill may break it.
//
// Hidden ([.]) from a bare run, and excluded from the integration_test ctest
// entry (~[crash]); its own entry integration_crash_test runs it in normal
// builds only. bench/crash.sh runs
// it longer: HOOKINBOX_CRASH_KILLS (default 40), HOOKINBOX_CRASH_RATE
// (deliveries/s, default 150), HOOKINBOX_CRASH_SEED (default random).
#include <netinet/in.h>
#include <openssl/sha.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// The server must come back on the same port after every kill (test_load
// keeps one URL), so listen port 0 will not do: FreePort (harness.h).

// The test config (as WriteTestConfig writes it) on a fixed port, with the
// demo endpoint forwarding to the downstream and a short lease, so a killed
// worker's events come back quickly.
std::string CrashConfig(const Installation& inst, int port, const std::string& downstream_url) {
  return "[server]\nlisten = \"127.0.0.1:" + std::to_string(port) + R"("
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
max_body_bytes = 65536

[admin]
listen = "127.0.0.1:0"

[storage]
)" + inst.StorageLines() + DemoLikeEndpoint("demo") +
         ForwardingConfig(inst, downstream_url);
}

// test_load as a child process; its stdout and stderr go to `out`.
pid_t StartLoad(const std::vector<std::string>& args, const std::string& out) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test binary
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv{const_cast<char*>(HOOKINBOX_TEST_LOAD)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(HOOKINBOX_TEST_LOAD, argv.data());
    ::_exit(127);
  }
  return pid;
}

int WaitChild(pid_t pid, std::chrono::milliseconds timeout) {
  int status = 0;
  if (!PollUntil([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, timeout)) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::vector<std::vector<std::string>> Rows(const Installation& inst, const std::string& query) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(inst.Sql(query));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::vector<std::string> cols;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, '|');) cols.push_back(f);
    rows.push_back(cols);
  }
  return rows;
}

int Count(const Installation& inst, const std::string& query) { return std::stoi(inst.Sql(query)); }

struct StoredEvent {
  int64_t id = 0;
  std::string hash;
};

// Holds every answer in test_load's ledger against the database; returns
// one line per broken promise (empty when all hold) and counts the answers.
std::vector<std::string> CheckLedger(const Installation& inst, const std::string& ledger_path,
                                     std::map<std::string, int>& answers) {
  std::map<std::string, StoredEvent> events;  // event_id → its inbox row
  for (const auto& r : Rows(inst, "SELECT event_id, id, payload_hash FROM webhook_inbox"))
    events[r[0]] = {std::stoll(r[1]), r[2]};
  // A conflict is stored twice: its delivery row, and its body kept as a 'conflict' payload.
  std::set<std::pair<int64_t, std::string>> conflict_deliveries, conflict_payloads;
  for (const auto& r : Rows(inst, "SELECT inbox_id, payload_hash FROM webhook_deliveries WHERE outcome = 'conflict'"))
    conflict_deliveries.insert({std::stoll(r[0]), r[1]});
  for (const auto& r : Rows(inst, "SELECT inbox_id, payload_hash FROM webhook_payloads WHERE kind = 'conflict'"))
    conflict_payloads.insert({std::stoll(r[0]), r[1]});

  std::vector<std::string> broken;
  auto fail = [&](const json& line, const std::string& why) { broken.push_back(why + ": " + line.dump()); };
  std::set<std::string> ids;
  std::istringstream in(ReadFile(ledger_path));
  for (std::string text; std::getline(in, text);) {
    const json line = json::parse(text);
    if (!line.contains("status")) continue;  // an RSS/fd sample
    const int status = line["status"].get<int>();
    const std::string id = line["id"], hash = line["body_hash"], outcome = line["outcome"];
    ids.insert(id);
    ++answers[status == 0 ? "no answer" : std::to_string(status) + " " + outcome];
    if (status < 200 || status >= 300) continue;
    auto it = events.find(id);
    if (it == events.end()) {
      fail(line, "2xx without an inbox row");
      continue;
    }
    const StoredEvent& e = it->second;
    if (line["inbox_id"].get<int64_t>() != e.id) fail(line, "answered inbox id is not the stored row's");
    if (outcome == "accepted" || outcome == "duplicate") {
      if (hash != e.hash) fail(line, outcome + " but the stored payload hash differs");
    } else if (outcome == "conflict") {
      if (hash == e.hash) fail(line, "conflict but the stored payload hash is the same");
      if (!conflict_deliveries.count({e.id, hash})) fail(line, "conflict without a conflict delivery row");
      if (!conflict_payloads.count({e.id, hash})) fail(line, "conflict without its body kept as a conflict payload");
    } else {
      fail(line, "2xx with an unexpected outcome");
    }
  }
  // And nothing stored that was never sent.
  for (const auto& [id, e] : events)
    if (!ids.count(id)) broken.push_back("inbox row " + std::to_string(e.id) + " for an id never sent");
  return broken;
}

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  std::string hex;
  for (unsigned char c : digest) {
    hex += "0123456789abcdef"[c >> 4];
    hex += "0123456789abcdef"[c & 15];
  }
  return hex;
}

// Registers bodies test_load sent with the log-leak check (harness.h): the
// original body of the first `limit` accepted events, rebuilt from
// load_main.cpp's format and checked against the ledger's body_hash (an
// event whose conflicting body came first is passed over); returns how many
// it registered, 0 when that format changed.
int RegisterSentBodies(const std::string& ledger_path, int limit) {
  int registered = 0;
  std::istringstream in(ReadFile(ledger_path));
  for (std::string text; registered < limit && std::getline(in, text);) {
    const json line = json::parse(text);
    if (!line.contains("status") || line["outcome"] != "accepted") continue;
    const std::string id = line["id"];
    const int64_t event = std::stoll(id.substr(id.rfind('-') + 1));
    const std::string body = R"({"amount":)" + std::to_string(100 + event) + R"(,"id":")" + id +
                             R"(","type":"load.test","v":0})";
    if (Sha256Hex(body) != line["body_hash"]) continue;
    RegisterLeakMarker(body);
    ++registered;
  }
  return registered;
}

}  // namespace

TEST_CASE("crash: deliveries with duplicates and conflicts survive random SIGKILLs; every 2xx is stored exactly once",
          "[crash][.]") {
  const int kills = EnvInt("HOOKINBOX_CRASH_KILLS", 40);
  const int rate = EnvInt("HOOKINBOX_CRASH_RATE", 150);
  const unsigned seed =
      static_cast<unsigned>(EnvInt("HOOKINBOX_CRASH_SEED", static_cast<int>(std::random_device{}() >> 1)));
  INFO("seed " << seed << " (HOOKINBOX_CRASH_SEED reproduces the kill moments and the delivery plan)");
  std::mt19937 rng(seed);

  Installation inst;
  ServerProcess server(inst);
  DownstreamProcess downstream;
  // Each effect takes a moment, so kills also land while actions are in flight.
  downstream.Default(json{{"status", 200}, {"delay_ms", 5}});
  const int port = FreePort();
  REQUIRE(port > 0);
  inst.WriteConfig(CrashConfig(inst, port, downstream.url()));
  server.Start();

  const std::string ledger = inst.dir() + "/ledger.jsonl", load_out = inst.dir() + "/load.out";
  const pid_t load = StartLoad({"--url", "https://127.0.0.1:" + std::to_string(port) + "/hooks/demo", "--secret-file",
                                inst.dir() + "/secrets/demo.secret", "--ca", inst.cert_path(), "--connections", "4",
                                "--deliveries", "10000000", "--duplicates", "0.10", "--conflicts", "0.02",
                                "--id-prefix", "crash" + std::to_string(seed), "--ledger", ledger, "--rate",
                                std::to_string(rate), "--seed", std::to_string(seed), "--retry-unanswered",
                                "--retry-for", "60"},
                               load_out);
  REQUIRE(load > 0);

  // Each round kills the server after a uniform random delay from its spawn
  // and starts the next one without waiting for it to listen, so kills land
  // in start-up and recovery as well as mid-request and mid-action. The delay is
  // the kill moment we chose, not a wait for a condition.
  std::uniform_int_distribution<int> delay_ms(0, 1200);
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < kills; ++k) {
    INFO("kill " << k);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    server.Kill(SIGKILL);
    REQUIRE(server.WaitExit() == 128 + SIGKILL);
    if (k + 1 < kills) server.TryStartAsync();
  }
  server.Start();  // the last start: nothing kills it

  // Stop issuing; what is unanswered is retried against the running server.
  ::kill(load, SIGTERM);
  const int load_exit = WaitChild(load, 90s);
  const std::string load_text = ReadFile(load_out);
  INFO(load_text);
  REQUIRE(load_exit == 0);
  const json summary = json::parse(load_text.substr(load_text.rfind("\n{") + 1));  // the last line
  const double kill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // The final drain: every event completes, nothing stays processing.
  const bool drained = PollUntil(
      [&] { return Count(inst, "SELECT count(*) FROM webhook_inbox WHERE status != 'completed'") == 0; }, 120s);
  INFO(inst.Sql("SELECT status, count(*) FROM webhook_inbox GROUP BY status"));
  REQUIRE(drained);
  const int events = Count(inst, "SELECT count(*) FROM webhook_inbox");
  REQUIRE(events > 0);

  // The payloads sent must appear in no server log (log_leak_test, after this entry).
  CHECK(RegisterSentBodies(ledger, 50) == 50);

  std::map<std::string, int> answers;
  const std::vector<std::string> broken = CheckLedger(inst, ledger, answers);
  INFO("answers " << json(answers).dump());
  INFO("first broken promises:\n" << [&] {
    std::string s;
    for (size_t i = 0; i < broken.size() && i < 10; ++i) s += broken[i] + "\n";
    return s;
  }());
  CHECK(broken.empty());
  // Every answered delivery has its own delivery row (unanswered ones may too).
  int answered_2xx = 0;
  for (const auto& [what, n] : answers)
    if (what[0] == '2') answered_2xx += n;
  CHECK(Count(inst, "SELECT count(*) FROM webhook_deliveries WHERE http_status = 200") >= answered_2xx);
  CHECK(answers["200 conflict"] > 0);
  CHECK(answers["200 duplicate"] > 0);

  // Exactly one completed attempt per event, numbered 1..n without gaps, none open.
  CHECK(Count(inst, "SELECT count(*) FROM webhook_inbox i WHERE NOT EXISTS "
                    "(SELECT 1 FROM webhook_attempts a WHERE a.inbox_id = i.id)") == 0);
  CHECK(Count(inst, "SELECT count(*) FROM (SELECT inbox_id FROM webhook_attempts GROUP BY inbox_id HAVING "
                    "sum(CASE WHEN outcome = 'completed' THEN 1 ELSE 0 END) != 1 OR count(*) != max(attempt)"
                    " OR min(attempt) != 1) AS sub") == 0);
  CHECK(Count(inst, "SELECT count(*) FROM webhook_attempts WHERE outcome IS NULL") == 0);

  // One effect downstream per event, one per key, each with its event's body.
  const json stats = downstream.Stats();
  INFO("downstream " << stats.dump());
  CHECK(stats["effects"] == events);
  CHECK(stats["mismatches"] == 0);
  std::map<std::string, int> effects_by_key;
  std::multiset<std::string> effect_hashes, stored_hashes;
  for (const json& call : downstream.Calls()) {
    if (!call.contains("effect")) continue;
    ++effects_by_key[call["headers"].value("Idempotency-Key", "")];
    effect_hashes.insert(Sha256Hex(call["body"].get<std::string>()));
  }
  for (const auto& r : Rows(inst, "SELECT payload_hash FROM webhook_inbox")) stored_hashes.insert(r[0]);
  CHECK(effect_hashes == stored_hashes);  // each effect carried its event's stored body, never a conflict's
  CHECK(effects_by_key.size() == static_cast<size_t>(events));
  int keys_not_once = 0;
  for (const auto& [key, n] : effects_by_key) keys_not_once += n == 1 ? 0 : 1;
  CHECK(keys_not_once == 0);

  // The file itself, after a clean stop (SQLite: PostgreSQL keeps no file of ours to check).
  server.Kill(SIGTERM);
  CHECK(server.WaitExit() == 0);
  if (!inst.postgres()) {
    CHECK(inst.Sql("PRAGMA integrity_check") == "ok");
    CHECK(inst.Sql("PRAGMA foreign_key_check") == "");
    const CommandResult audit = RunCommand(BinaryPath() + " verify-audit " + inst.db_path() + " 2>&1");
    INFO(audit.out);
    CHECK(audit.exit_code == 0);
  }

  const int lost = Count(inst, "SELECT count(*) FROM webhook_attempts WHERE outcome = 'lost'");
  std::printf("crash: seed %u, %d kills in %.1f s; %lld deliveries, %d events, answers %s; %d lost attempts; "
              "downstream calls %d, replays %d, in_use %d\n",
              seed, kills, kill_seconds, static_cast<long long>(summary["deliveries"].get<int64_t>()), events,
              json(answers).dump().c_str(), lost, stats["calls"].get<int>(), stats["replays"].get<int>(),
              stats["in_use"].get<int>());
}

}  // namespace hookinbox::testing
