// Several `hookinbox serve` replicas on one PostgreSQL database:
// duplicates arriving at the same moment through different processes give
// one row and one downstream effect per event, and a replica SIGKILLed in
// the middle of actions leaves its events to another one once their lease
// expired. PostgreSQL only (HOOKINBOX_TEST_PG_URL, harness.h): SQLite cannot
// be shared by processes this way, so on SQLite every case passes at once.
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <barrier>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "downstream.h"
#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// Whether a worker name (lease_owner, webhook_attempts.worker) is `server`'s:
// "<host>:<pid>", with ":<thread>" after it.
bool Owns(const ServerProcess& server, const std::string& worker) {
  const std::string pid = ":" + std::to_string(server.pid());
  const size_t at = worker.find(pid);
  return server.pid() > 0 && at != std::string::npos &&
         (at + pid.size() == worker.size() || worker[at + pid.size()] == ':');
}

// Signed deliveries to the demo endpoint over one kept-alive HTTPS
// connection (reconnecting when the server closed it): ServerProcess's
// PostSigned opens a connection per request, and 10 000 TLS handshakes would
// be most of this file's time. Registers what it sends for the log-leak check.
// One per thread.
class SignedClient {
 public:
  SignedClient(const Installation& inst, int port) : inst_(inst), client_("127.0.0.1", port) {
    client_.set_ca_cert_path(inst.cert_path().c_str());
    client_.enable_server_certificate_verification(true);
    client_.set_keep_alive(true);
    client_.set_connection_timeout(10, 0);
    // Latency is not what this file tests: a machine busy with other suites
    // has held one answer 32 s (and, through the barrier, every sender).
    client_.set_read_timeout(120, 0);
  }
  HttpResult Post(const std::string& body) {
    const std::string ts = std::to_string(NowSeconds());
    const std::string sig = HmacSha256Hex(inst_.secret(), ts + "." + body);
    RegisterLeakMarker(sig);
    RegisterLeakMarker(body);
    httplib::Headers headers{{"X-Timestamp", ts}, {"X-Signature", "sha256=" + sig}};
    HttpResult out;
    auto res = client_.Post("/hooks/demo", headers, body, "application/json");
    if (!res) return out;
    out.status = res->status;
    out.body = res->body;
    return out;
  }

 private:
  const Installation& inst_;
  httplib::SSLClient client_;
};

std::string EventBody(int n) {
  return R"({"id":"evt_r)" + std::to_string(n) + R"(","type":"invoice.paid","amount":)" + std::to_string(1000 + n) +
         "}";
}

// The answer's "status" field ("accepted", "duplicate"), or what went wrong.
std::string Outcome(const HttpResult& r) {
  if (r.status == 0) return "no answer";
  if (r.status < 200 || r.status > 299) return "HTTP " + std::to_string(r.status);
  try {
    return json::parse(r.body).value("status", "?");
  } catch (const json::exception&) {
    return "unparsable body";
  }
}

int SqlInt(const Installation& inst, const std::string& query) {
  const std::string out = inst.Sql(query);
  INFO(query << " -> " << out);
  try {
    return std::stoi(out);
  } catch (const std::exception&) {
    FAIL("not a number");
    return -1;
  }
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("replicas: 20 concurrent copies of each of 500 events through three processes give one row and one "
          "effect per event",
          "[replicas]") {
  Installation inst;
  if (!inst.postgres()) {
    SUCCEED("needs PostgreSQL");
    return;
  }
  constexpr int kEvents = 500, kCopies = 20, kReplicas = 3;
  // A target that ignores Idempotency-Key: a second call for an event would
  // be a second effect here, not a replay, so this counts what the replicas
  // sent, not what the target forgave.
  DownstreamProcess downstream(/*dedup=*/false);
  // A lease far longer than the run: nothing crashes in this case, so any
  // second call would come from overlapping claims, not from a lease lapse.
  inst.WriteTestConfig(ForwardingAction(inst, downstream.url()) + R"(result_ref_header = "X-Ref"
idempotent_target = true
timeout_ms = 10000
concurrency = 4

[worker]
threads = 4
lease_seconds = 60
max_attempts = 5
backoff_initial_ms = 10
backoff_max_ms = 200
)",
                       "keep_alive_timeout_seconds = 120\n");
  std::vector<std::unique_ptr<ServerProcess>> replicas;
  for (int r = 0; r < kReplicas; ++r) {
    replicas.push_back(std::make_unique<ServerProcess>(inst));
    replicas.back()->Start();
  }

  // Sender c sends copy c of every event, to replica (event + c) % 3, so
  // each event's copies reach all three; the barrier starts an event's 20
  // copies at the same moment.
  const auto start = std::chrono::steady_clock::now();
  std::barrier sync(kCopies);
  std::mutex mu;
  std::map<std::string, int> outcomes;  // Outcome() → count
  std::vector<std::thread> senders;
  for (int c = 0; c < kCopies; ++c) {
    senders.emplace_back([&, c] {
      std::vector<std::unique_ptr<SignedClient>> clients;
      for (const auto& replica : replicas) clients.push_back(std::make_unique<SignedClient>(inst, replica->port()));
      std::map<std::string, int> mine;
      for (int n = 0; n < kEvents; ++n) {
        sync.arrive_and_wait();
        // Sent again when no answer came, as a provider does.
        HttpResult r;
        for (int attempt = 0; attempt < 3; ++attempt) {
          r = clients[(n + c) % kReplicas]->Post(EventBody(n));
          if (r.status != 0) break;
          ++mine["resent"];
        }
        ++mine[Outcome(r)];
      }
      std::lock_guard<std::mutex> lock(mu);
      for (const auto& [outcome, count] : mine) outcomes[outcome] += count;
    });
  }
  for (auto& t : senders) t.join();
  const double send_seconds = SecondsSince(start);

  INFO("answers " << json(outcomes).dump());
  // A resent delivery whose first send was stored but not answered is
  // answered "duplicate": the accepted answers may fall short by the resends.
  const int resent = outcomes["resent"];
  outcomes.erase("resent");
  CHECK(outcomes["accepted"] <= kEvents);
  CHECK(outcomes["accepted"] >= kEvents - resent);
  // A duplicate is answered 200 "duplicate" whatever its original's state.
  CHECK(outcomes["accepted"] + outcomes["duplicate"] == kEvents * kCopies);
  CHECK(outcomes.size() == 2);

  const bool drained = PollUntil(
      [&] { return SqlInt(inst, "SELECT count(*) FROM webhook_inbox WHERE status = 'completed'") == kEvents; }, 90s);
  const double total_seconds = SecondsSince(start);
  INFO("sent in " << send_seconds << " s, all completed after " << total_seconds << " s");
  REQUIRE(drained);

  // One row per event.
  CHECK(SqlInt(inst, "SELECT count(*) FROM webhook_inbox") == kEvents);
  CHECK(SqlInt(inst, "SELECT count(DISTINCT event_id) FROM webhook_inbox") == kEvents);
  CHECK(inst.Sql("SELECT min(attempt_count) || '|' || max(attempt_count) FROM webhook_inbox") == "1|1");
  CHECK(SqlInt(inst, "SELECT count(*) FROM webhook_attempts") == kEvents);
  // Every copy has its audit row (a resend that reached the server, one
  // more): per event 20 or more, exactly one of them accepted.
  const int64_t rows = SqlInt(inst, "SELECT count(*) FROM webhook_deliveries");
  CHECK(rows >= kEvents * kCopies);
  CHECK(rows <= kEvents * kCopies + resent);
  CHECK(SqlInt(inst, "SELECT count(*) FROM webhook_deliveries WHERE outcome = 'accepted'") == kEvents);
  CHECK(SqlInt(inst, "SELECT count(*) FROM webhook_deliveries WHERE outcome = 'duplicate'") == rows - kEvents);
  CHECK(SqlInt(inst, "SELECT count(*) FROM (SELECT event_id FROM webhook_deliveries GROUP BY event_id HAVING "
                     "count(*) < 20 OR sum(CASE WHEN outcome = 'accepted' THEN 1 ELSE 0 END) <> 1) AS odd") == 0);

  // One downstream call per event, with that event's own body and key.
  const json calls = downstream.Calls();
  CHECK(calls.size() == static_cast<size_t>(kEvents));
  std::map<std::string, int> per_body, per_key;
  for (const json& call : calls) {
    ++per_body[call["body"].get<std::string>()];
    ++per_key[call["headers"].value("Idempotency-Key", "")];
  }
  CHECK(per_body.size() == static_cast<size_t>(kEvents));
  CHECK(per_key.size() == static_cast<size_t>(kEvents));
  CHECK(std::all_of(per_body.begin(), per_body.end(), [](const auto& b) { return b.second == 1; }));
  CHECK(per_body.count(EventBody(0)) == 1);
  CHECK(per_body.count(EventBody(kEvents - 1)) == 1);
  CHECK(SqlInt(inst, "SELECT count(DISTINCT result_ref) FROM webhook_inbox WHERE result_ref LIKE 'eff_%'") ==
        kEvents);

  // The work was shared: each replica's worker ran actions (each is woken
  // by the deliveries it accepted itself).
  const std::string workers =
      inst.Sql("SELECT worker || ' ' || count(*) FROM webhook_attempts GROUP BY worker ORDER BY worker");
  INFO("attempts per worker:\n" << workers);
  std::set<int> working;  // replicas whose worker threads ran an action
  for (const std::string& line : Lines(workers))
    for (int r = 0; r < kReplicas; ++r)
      if (Owns(*replicas[r], line.substr(0, line.find(' ')))) working.insert(r);
  CHECK(working.size() == static_cast<size_t>(kReplicas));
}

TEST_CASE("replicas: SIGKILL one replica mid-action; another finishes its events after the lease expires",
          "[replicas]") {
  Installation inst;
  if (!inst.postgres()) {
    SUCCEED("needs PostgreSQL");
    return;
  }
  constexpr int kEvents = 9, kReplicas = 3;
  // An idempotent target, as in the single-process crash tests: the effect a
  // killed replica already sent may be sent again by the next attempt, and
  // the target answers that retry from its saved result.
  DownstreamProcess downstream;
  downstream.Default(json{{"hold", true}});  // every action stays in flight until Release
  // 1 s lease (the minimum), four actions at a time per replica.
  inst.WriteTestConfig(ForwardingConfig(inst, downstream.url()));
  std::vector<std::unique_ptr<ServerProcess>> replicas;
  for (int r = 0; r < kReplicas; ++r) {
    replicas.push_back(std::make_unique<ServerProcess>(inst));
    replicas.back()->Start();
  }

  // One copy of each event, spread over the replicas.
  for (int n = 0; n < kEvents; ++n) {
    SignedClient client(inst, replicas[n % kReplicas]->port());
    CHECK(Outcome(client.Post(EventBody(n))) == "accepted");
  }
  // All nine in flight: claimed, their requests held by the downstream.
  const bool all_held = PollUntil(
      [&] {
        return downstream.Stats()["holding"] == kEvents &&
               SqlInt(inst, "SELECT count(*) FROM webhook_inbox WHERE status = 'processing'") == kEvents;
      },
      30s);
  INFO(downstream.Stats().dump());
  REQUIRE(all_held);

  // The victim: the replica holding the most events. Its events, and the
  // lease each had when it was last read: renewals stop with the kill, so
  // nobody may claim them before then.
  struct Held {
    std::string id, owner;
    int64_t lease_until;
  };
  std::vector<Held> held;
  for (const std::string& line :
       Lines(inst.Sql("SELECT id || '|' || lease_owner || '|' || lease_until FROM webhook_inbox WHERE status = "
                      "'processing' ORDER BY id"))) {
    const size_t first = line.find('|'), last = line.rfind('|');
    held.push_back({line.substr(0, first), line.substr(first + 1, last - first - 1), std::stoll(line.substr(last + 1))});
  }
  auto holds = [&](const ServerProcess& r) {
    return std::count_if(held.begin(), held.end(), [&](const Held& h) { return Owns(r, h.owner); });
  };
  std::string owners;
  for (const Held& h : held) owners += h.id + " " + h.owner + "\n";
  INFO("owners:\n" << owners);
  auto victim = std::max_element(replicas.begin(), replicas.end(),
                                 [&](const auto& a, const auto& b) { return holds(*a) < holds(*b); });
  std::map<std::string, int64_t> victim_events;  // inbox id → lease_until
  std::set<std::string> victim_workers;          // its lease owners, one per worker thread
  for (const Held& h : held) {
    if (!Owns(**victim, h.owner)) continue;
    victim_events[h.id] = h.lease_until;
    victim_workers.insert(h.owner);
  }
  REQUIRE(!victim_events.empty());
  // Every event was claimed by one of the three.
  CHECK(holds(*replicas[0]) + holds(*replicas[1]) + holds(*replicas[2]) == kEvents);
  const ServerProcess& dead = **victim;
  const pid_t victim_pid = dead.pid();

  (*victim)->Kill(SIGKILL);
  CHECK((*victim)->WaitExit() == 128 + SIGKILL);
  const auto killed_at = std::chrono::steady_clock::now();
  // The held requests answer now: the dead replica's effects happen although
  // nobody hears them; the survivors' own actions complete.
  downstream.Default(json{{"status", 200}});
  downstream.Release();

  const bool drained = PollUntil(
      [&] { return SqlInt(inst, "SELECT count(*) FROM webhook_inbox WHERE status = 'completed'") == kEvents; }, 30s);
  const double recovery_seconds = SecondsSince(killed_at);
  INFO("victim pid " << victim_pid << " held " << victim_events.size() << " events; all completed " << recovery_seconds
                 << " s after the kill");
  INFO("attempts:\n"
       << inst.Sql("SELECT inbox_id, attempt, worker, outcome, started_at, finished_at FROM webhook_attempts "
                   "ORDER BY inbox_id, id"));
  REQUIRE(drained);
  CHECK(SqlInt(inst, "SELECT count(*) FROM webhook_inbox") == kEvents);
  CHECK(SqlInt(inst, "SELECT count(*) FROM webhook_inbox WHERE lease_owner IS NOT NULL") == 0);

  for (const auto& [id, lease_until] : victim_events) {
    INFO("inbox id " << id);
    const std::vector<std::string> attempts = Lines(inst.Sql(
        "SELECT worker || '|' || outcome || '|' || started_at FROM webhook_attempts WHERE inbox_id = " + id +
        " ORDER BY id"));
    REQUIRE(attempts.size() >= 2);
    // Each line: worker|outcome|started_at.
    auto worker_of = [](const std::string& a) { return a.substr(0, a.find('|')); };
    // The killed attempt is recorded as lost, under the victim's name...
    CHECK(victim_workers.count(worker_of(attempts.front())) == 1);
    CHECK(attempts.front().find("|lost|") != std::string::npos);
    // ...and the event completed in another replica's attempt, started no
    // earlier than the lease the victim held (database time on both sides).
    const std::string& last = attempts.back();
    CHECK(last.find("|completed|") != std::string::npos);
    CHECK(victim_workers.count(worker_of(last)) == 0);
    CHECK(std::any_of(replicas.begin(), replicas.end(),
                      [&](const auto& r) { return r.get() != &dead && Owns(*r, worker_of(last)); }));
    CHECK(std::stoll(last.substr(last.rfind('|') + 1)) >= lease_until);
    // Nothing else completed it in between.
    CHECK(std::count_if(attempts.begin(), attempts.end(),
                        [](const std::string& a) { return a.find("|completed|") != std::string::npos; }) == 1);
  }

  // One effect per event: the retry of what the victim had sent got the
  // target's saved answer, and result_ref is the one effect's.
  const json stats = downstream.Stats();
  INFO(stats.dump());
  CHECK(stats["effects"] == kEvents);
  CHECK(stats["mismatches"] == 0);
  CHECK(stats["replays"].get<int>() >= static_cast<int>(victim_events.size()));
  std::map<std::string, int> effects;
  for (const json& call : downstream.Calls())
    if (call.contains("effect")) ++effects[call["headers"].value("Idempotency-Key", "")];
  CHECK(effects.size() == static_cast<size_t>(kEvents));
  CHECK(std::all_of(effects.begin(), effects.end(), [](const auto& e) { return e.second == 1; }));
  CHECK(SqlInt(inst, "SELECT count(DISTINCT result_ref) FROM webhook_inbox WHERE result_ref LIKE 'eff_%'") ==
        kEvents);
}

}  // namespace hookinbox::testing
