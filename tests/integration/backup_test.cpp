// `hookinbox backup` and `hookinbox reconcile` from the outside, against the
// database of a running server.
//
// The backup test keeps one client sending signed deliveries for 30 s over a
// keep-alive HTTPS connection and takes backups meanwhile; every copy must
// pass `PRAGMA integrity_check` in the sqlite3 CLI and hold every delivery
// the server had acknowledged (200 accepted) before that backup started.
// The load's bodies share one leak marker (registered once) instead of
// registering each body, so the log-leak check stays cheap.
#include <catch2/catch.hpp>

#include <httplib.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "harness.h"

using namespace hookinbox::testing;
using nlohmann::json;

namespace {

using Running = RunningServer;  // harness.h: test config, server started, Cli/SqlWrite/Deliver

// The sqlite3 CLI's answer on a copy (read-only).
std::string SqlOn(const std::string& file, const std::string& query) {
  auto r = RunCommand("sqlite3 -readonly " + file + " \"" + query + "\" 2>&1");
  while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == '\r')) r.out.pop_back();
  return r.out;
}

std::string RandomHex(size_t n) {
  std::random_device rd;
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back("0123456789abcdef"[rd() % 16]);
  return out;
}

// One client sending signed deliveries load-0, load-1, … back to back for
// `duration`; acknowledged() counts the leading ones answered 200 accepted.
class Load {
 public:
  Load(const Running& r, std::string marker, std::chrono::seconds duration)
      : r_(r), marker_(std::move(marker)), thread_([this, duration] { Run(duration); }) {}
  ~Load() { thread_.join(); }
  int64_t acknowledged() const { return acknowledged_.load(); }
  bool running() const { return !done_.load(); }
  int failures() const { return failures_.load(); }
  std::chrono::milliseconds slowest() const { return std::chrono::milliseconds(slowest_ms_.load()); }

 private:
  void Run(std::chrono::seconds duration) {
    httplib::SSLClient client("127.0.0.1", r_.server.port());
    client.set_ca_cert_path(r_.inst.cert_path().c_str());
    client.enable_server_certificate_verification(true);
    client.set_keep_alive(true);
    client.set_connection_timeout(10, 0);
    client.set_read_timeout(30, 0);
    const auto end = std::chrono::steady_clock::now() + duration;
    for (int64_t i = 0; std::chrono::steady_clock::now() < end && failures_.load() < 10; ++i) {
      const std::string body =
          R"({"id":"load-)" + std::to_string(i) + R"(","type":"load.tick","data":{"m":")" + marker_ + R"("}})";
      const std::string ts = std::to_string(NowSeconds());
      const std::string sig = HmacSha256Hex(r_.inst.secret(), ts + "." + body);
      if (i < 20) RegisterLeakMarker(sig);  // a sample: each one is a secret-derived value
      const auto started = std::chrono::steady_clock::now();
      auto res = client.Post("/hooks/demo", {{"X-Timestamp", ts}, {"X-Signature", "sha256=" + sig}}, body,
                             "application/json");
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
      if (ms.count() > slowest_ms_.load()) slowest_ms_.store(ms.count());
      if (res && res->status == 200 && res->body.find(R"("status":"accepted")") != std::string::npos &&
          failures_.load() == 0) {
        acknowledged_.store(i + 1);  // sequential: 0..i all acknowledged
      } else {
        ++failures_;
      }
    }
    done_.store(true);
  }

  const Running& r_;
  const std::string marker_;
  std::atomic<int64_t> acknowledged_{0};
  std::atomic<int> failures_{0};
  std::atomic<int64_t> slowest_ms_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

mode_t Mode(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 0777) : 0;
}

}  // namespace

TEST_CASE("backup: copies taken during a 30 s load pass integrity_check and hold every acknowledged delivery",
          "[integration][backup]") {
  Running r;
  const std::string marker = "B2LOADMARKER" + RandomHex(16);
  RegisterLeakMarker(marker);
  int backups = 0;
  {
    Load load(r, marker, std::chrono::seconds(30));
    REQUIRE(PollUntil([&] { return load.acknowledged() >= 20 || !load.running(); }, std::chrono::seconds(15)));
    while (load.running()) {
      const bool with_payloads = backups % 2 == 0;
      const std::string out = r.inst.dir() + "/copy-" + std::to_string(backups) + ".db";
      const int64_t before = load.acknowledged();  // read before the backup starts
      auto b = r.Cli("backup " + out + (with_payloads ? "" : " --without-payloads"));
      INFO("backup " << backups << ": " << b.out);
      REQUIRE(b.exit_code == 0);
      CHECK(SqlOn(out, "PRAGMA integrity_check") == "ok");
      CHECK(SqlOn(out, "PRAGMA journal_mode") == "delete");
      CHECK(Mode(out) == 0600);
      auto verified = RunCommand(BinaryPath() + " verify-audit " + out + " 2>&1");  // the audit chains survive the copy
      INFO(verified.out);
      CHECK(verified.exit_code == 0);
      // Every one of load-0 … load-(before-1) is in the copy.
      CHECK(SqlOn(out, "SELECT count(*) FROM webhook_inbox WHERE event_id LIKE 'load-%' AND CAST(substr(event_id, 6) "
                       "AS INTEGER) < " + std::to_string(before)) == std::to_string(before));
      CHECK(SqlOn(out, "SELECT count(*) FROM webhook_inbox_iso WHERE received_at LIKE '20%Z'") ==
            SqlOn(out, "SELECT count(*) FROM webhook_inbox"));
      CHECK(SqlOn(out, "SELECT count(*) FROM README WHERE name IN ('snapshot', 'webhook_inbox', 'webhook_inbox_iso')") ==
            "3");
      // The payload marker is in the file exactly when payloads were asked for.
      const int grep = RunCommand("grep -q -a " + marker + " " + out).exit_code;
      if (with_payloads) {
        CHECK(grep == 0);
        CHECK(SqlOn(out, "SELECT count(*) FROM webhook_payloads") == SqlOn(out, "SELECT count(*) FROM webhook_inbox"));
      } else {
        CHECK(grep == 1);
        CHECK(SqlOn(out, "SELECT count(*) FROM webhook_payloads") == "0");
        CHECK(std::stoll(SqlOn(out, "SELECT count(*) FROM webhook_inbox")) >= before);
      }
      ++backups;
      // Let the load move on before the next copy, so the copies spread over the 30 s.
      const int64_t next = load.acknowledged() + 100;
      PollUntil([&] { return load.acknowledged() >= next || !load.running(); }, std::chrono::seconds(30));
    }
    INFO("acknowledged " << load.acknowledged() << ", failures " << load.failures() << ", slowest request "
                         << load.slowest().count() << " ms, backups " << backups);
    CHECK(load.failures() == 0);
    CHECK(load.acknowledged() >= 200);
    CHECK(load.slowest() < std::chrono::seconds(5));  // backups never held the writer up for long
  }
  CHECK(backups >= 3);
}

TEST_CASE("backup: an existing OUT is refused (exit 1, untouched); usage errors exit 2", "[integration][backup]") {
  Running r;
  r.Deliver("evt_1");
  const std::string out = r.inst.dir() + "/taken.db";
  { std::ofstream(out) << "precious"; }
  auto refused = r.Cli("backup " + out);
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.find("already exists") != std::string::npos);
  CHECK(ReadFile(out) == "precious");
  CHECK(RunCommand("ls " + r.inst.dir() + " | grep -c partial").out == "0\n");  // no temporary left

  CHECK(r.Cli("backup").exit_code == 2);
  CHECK(r.Cli("backup " + out + ".2 --no-such-flag").exit_code == 2);
  CHECK(r.Cli("backup " + r.inst.dir() + "/no/such/dir/x.db").exit_code == 1);

  auto ok = RunCommand(BinaryPath() + " backup " + out + ".json --json -c " + r.inst.config_path());
  INFO(ok.out);
  REQUIRE(ok.exit_code == 0);
  json j = json::parse(ok.out);
  CHECK(j["with_payloads"] == true);
  CHECK(j["bytes"].get<int64_t>() > 0);
  CHECK(SqlOn(out + ".json", "SELECT event_id FROM webhook_inbox") == "evt_1");
}

TEST_CASE("reconcile: a crafted set gives exact lists and exit codes", "[integration][reconcile]") {
  Running r;
  const int64_t dead = r.Deliver("dead_1");
  const int64_t unknown = r.Deliver("unk_1");
  const int64_t done = r.Deliver("done_1");
  r.SqlWrite("UPDATE webhook_inbox SET status = 'dead_lettered', next_attempt_at = NULL WHERE id = " +
             std::to_string(dead));
  r.SqlWrite("UPDATE webhook_inbox SET status = 'unknown', next_attempt_at = NULL WHERE id = " +
             std::to_string(unknown));
  r.SqlWrite("UPDATE webhook_inbox SET status = 'completed', next_attempt_at = NULL WHERE id = " +
             std::to_string(done));
  const std::string ids = r.inst.dir() + "/ids.txt";
  { std::ofstream(ids) << "done_1\n\n  dead_1 \r\nunk_1\nmissing_1\n\t\nmissing_2\ndone_1\n"; }

  auto j = RunCommand(BinaryPath() + " reconcile --endpoint demo --ids " + ids + " --json -c " + r.inst.config_path());
  INFO(j.out);
  CHECK(j.exit_code == 1);
  json report = json::parse(j.out);
  CHECK(report["endpoint"] == "demo");
  CHECK(report["tenant"] == "default");
  CHECK(report["ids"] == 5);
  CHECK(report["completed"] == 1);
  CHECK(report["never_received"] == json::parse(R"([{"event_id":"missing_1"},{"event_id":"missing_2"}])"));
  CHECK(report["not_completed"] ==
        json::array({{{"event_id", "dead_1"}, {"id", dead}, {"status", "dead_lettered"}}}));
  CHECK(report["unknown"] == json::array({{{"event_id", "unk_1"}, {"id", unknown}, {"status", "unknown"}}}));
  CHECK(report["ok"] == false);

  auto human = r.Cli("reconcile --endpoint demo --ids " + ids);
  INFO(human.out);
  CHECK(human.exit_code == 1);
  CHECK(human.out.find("never received (2):\n  missing_1\n  missing_2\n") != std::string::npos);
  CHECK(human.out.find("received but not completed (1):\n  dead_1  id=" + std::to_string(dead) +
                       "  status=dead_lettered\n") != std::string::npos);
  CHECK(human.out.find("unknown (outcome not known") != std::string::npos);
  CHECK(human.out.find("1 completed") != std::string::npos);

  // Everything received and completed: exit 0, also from stdin.
  auto all = RunCommand("printf 'done_1\\n' | " + BinaryPath() + " reconcile --endpoint demo --tenant default --ids - -c " +
                        r.inst.config_path() + " 2>&1");
  INFO(all.out);
  CHECK(all.exit_code == 0);
  CHECK(all.out.find("all received and completed") != std::string::npos);
}

TEST_CASE("reconcile: bad input and usage exit 2 and say why", "[integration][reconcile]") {
  Running r;
  const std::string dir = r.inst.dir();
  { std::ofstream(dir + "/bad.txt") << "evt_1\nevt 2\n"; }
  auto bad = r.Cli("reconcile --endpoint demo --ids " + dir + "/bad.txt");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.find("bad.txt:2: malformed id") != std::string::npos);

  REQUIRE(RunCommand("seq 1 1000001 > " + dir + "/many.txt").exit_code == 0);
  auto many = r.Cli("reconcile --endpoint demo --ids " + dir + "/many.txt");
  CHECK(many.exit_code == 2);
  CHECK(many.out.find("more than 1000000 ids") != std::string::npos);

  auto missing = r.Cli("reconcile --endpoint demo --ids " + dir + "/absent.txt");
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.find("cannot open") != std::string::npos);
  auto endpoint = r.Cli("reconcile --endpoint nope --ids " + dir + "/bad.txt");
  CHECK(endpoint.exit_code == 2);
  CHECK(endpoint.out.find("no endpoint nope") != std::string::npos);
  CHECK(r.Cli("reconcile --endpoint demo --tenant acme --ids " + dir + "/bad.txt").exit_code == 2);
  CHECK(r.Cli("reconcile --endpoint demo").exit_code == 2);
  CHECK(r.Cli("reconcile --ids " + dir + "/bad.txt").exit_code == 2);

  auto help = RunCommand(BinaryPath() + " reconcile --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("exit 0 all received and completed") != std::string::npos);
}
