// Issue 24's acceptance end to end: the real `hookinbox serve` with its alert
// engine and sender, a real SMTP server (smtp_server.h) and the recording
// test downstream (downstream.h) standing in for Slack and a signed webhook
// receiver.
//   - a scripted scenario (dead letters, a 401 storm, a silent endpoint, a
//     breaker opening then closing) gives exactly one start and one resolve
//     per incident on every channel, with the right endpoint and counts, and
//     no secret or payload in any message;
//   - a channel that hangs, then is down, never slows ingest, and its message
//     arrives once it is back (the sender's own 30 s first retry: no knob);
//   - two replicas on PostgreSQL: one checks (the alert lead), each notification is sent once;
//   - the digest of a seeded day matches the database.
// Time is scaled with the config (alert.check_every = "200ms", short
// silence and breaker thresholds); the 5-minute window of signature refusals
// is passed by ageing the refusals' rows, never by sleeping.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "downstream.h"
#include "harness.h"
#include "smtp_server.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// What no message may contain: the URL tokens of the channels, the webhook
// channel's signing key, and a marker put in every delivered body.
constexpr const char* kSlackToken = "T0ALERT/B0ALERT/slackTokenDoNotLeak9";
constexpr const char* kHookToken = "hookTokenDoNotLeak3";
constexpr const char* kHookKeyBase64 = "YWxlcnQtd2ViaG9vay1rZXktZm9yLWUyZQ==";  // "alert-webhook-key-for-e2e"
constexpr const char* kPayloadMarker = "PAYLOAD-MARKER-c7f3e1";

std::string Body(const std::string& id, const std::string& extra = "") {
  return R"({"id":")" + id + R"(","type":"invoice.paid","note":")" + kPayloadMarker + extra + R"("})";
}

// [alert] scaled for tests: a check every 200 ms, no reminders, and the disk
// (this machine's, not the scenario's) not watched.
std::string AlertTable(const std::string& extra = "") {
  return "\n[alert]\ncheck_every = \"200ms\"\nremind_every = false\ndisk_free = false\n"
         "ui_url = \"https://admin.example.com/\"\n" + extra;
}

// A Slack channel and a signed webhook channel, both received by `capture`
// (at /slack/… and /hook/…). Registers what must never be logged.
std::string CaptureChannels(const Installation& inst, const DownstreamProcess& capture, int timeout_seconds = 5) {
  const std::string secret = inst.dir() + "/secrets/alert.secret";
  { std::ofstream(secret) << "whsec_" << kHookKeyBase64 << "\n"; }
  ::chmod(secret.c_str(), 0600);
  for (const char* marker : {kSlackToken, kHookToken, kHookKeyBase64}) RegisterLeakMarker(marker);
  const std::string timeout = "timeout_seconds = " + std::to_string(timeout_seconds) + "\n";
  return "\n[[alert.channel]]\nname = \"slack-ops\"\ntype = \"slack\"\nurl = \"" +
         capture.url(std::string("/slack/") + kSlackToken) + "\"\n" + timeout +
         "\n[[alert.channel]]\nname = \"hook\"\ntype = \"webhook\"\nurl = \"" +
         capture.url(std::string("/hook/") + kHookToken) + "\"\nsecret_file = \"secrets/alert.secret\"\n" + timeout;
}

// One message as the webhook channel delivered it.
struct HookMessage {
  std::string type;  // "alert.start", "alert.resolved", "alert.digest", …
  json data;
  std::string condition() const { return data.value("condition", ""); }
  std::string endpoint() const { return data.value("endpoint", ""); }
  // The value of the fact labelled `label`; "" when there is none.
  std::string Fact(const std::string& label) const {
    for (const json& f : data.value("facts", json::array())) {
      if (f.value("label", "") == label) return f.value("value", "");
    }
    return "";
  }
};

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The bodies `capture` received on paths starting with `prefix`, in arrival order.
std::vector<std::string> Bodies(const DownstreamProcess& capture, const std::string& prefix) {
  std::vector<std::string> out;
  for (const json& call : capture.Calls()) {
    if (StartsWith(call.value("path", ""), prefix)) out.push_back(call.value("body", ""));
  }
  return out;
}

std::vector<HookMessage> HookMessages(const DownstreamProcess& capture) {
  std::vector<HookMessage> out;
  for (const std::string& body : Bodies(capture, "/hook/")) {
    const json j = json::parse(body);
    out.push_back({j.value("type", ""), j.value("data", json::object())});
  }
  return out;
}

// How many webhook messages of `type` about (condition, endpoint) arrived.
int CountHook(const DownstreamProcess& capture, const std::string& type, const std::string& condition,
              const std::string& endpoint) {
  int n = 0;
  for (const HookMessage& m : HookMessages(capture)) {
    if (m.type == type && m.condition() == condition && m.endpoint() == endpoint) ++n;
  }
  return n;
}

int CountLines(const std::string& log, const std::string& event) {
  int n = 0;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"event\":\"" + event + "\"") != std::string::npos) ++n;
  }
  return n;
}

// The log's lines about alerts, for a failure's message.
std::string AlertLines(const std::string& log) {
  std::string out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"event\":\"alert") != std::string::npos) out += line + "\n";
  }
  return out;
}

// A delivery to /hooks/demo signed with a key that is not the endpoint's: 401.
HttpResult PostForged(const ServerProcess& server, const std::string& body) {
  const std::string ts = std::to_string(NowSeconds());
  const std::string sig = HmacSha256Hex("not-the-endpoint-secret", ts + "." + body);
  RegisterLeakMarker(sig);
  RegisterLeakMarker(body);
  return server.Request("POST", "/hooks/demo", body, {{"X-Timestamp", ts}, {"X-Signature", "sha256=" + sig}});
}

// Five minutes pass for the signature refusals: their rows leave the window.
void AgeRefusals(const Installation& inst) {
  inst.SqlWrite("UPDATE webhook_deliveries SET received_at = received_at - 600000"
                " WHERE endpoint = 'demo' AND outcome = 'rejected'");
}

// Fails the test when `text` holds a secret, a channel's URL token or a payload.
void CheckNothingSecret(const std::string& what, const std::string& text, const Installation& inst) {
  INFO(what << ": " << text);
  for (const std::string& s : {inst.secret(), std::string(kSmtpPassword), std::string(kSlackToken),
                               std::string(kHookToken), std::string(kHookKeyBase64),
                               std::string("alert-webhook-key-for-e2e"), std::string(kPayloadMarker),
                               std::string("Zm9yd2FyZC1zZWNyZXQtZm9yLXRlc3Rz")}) {
    CHECK(text.find(s) == std::string::npos);
  }
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `n` signed deliveries to demo, one after another; REQUIREs each 200. The seconds they took.
double TimeDeliveries(const ServerProcess& server, const std::string& prefix, int n) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    const HttpResult r = server.PostSigned("/hooks/demo", Body(prefix + std::to_string(i)));
    INFO(prefix << i << ": " << r.status << " " << r.body);
    REQUIRE(r.status == 200);
  }
  return SecondsSince(start);
}

// The four incidents of the scenario: (condition, endpoint).
const std::vector<std::pair<std::string, std::string>> kScenario = {
    {"dead_letters", "letters"}, {"signature_failures", "demo"}, {"breaker_open", "crm"}, {"silence", "quiet"}};

// demo (the 401 storm's target, no action), letters (forwards to `rejecting`,
// dead-letters after 1 s, alerts at 2 dead letters), crm (forwards to
// `flaky`, breaker after 2 failures, alerts after 1 s open), quiet (expects
// a delivery every 10 minutes and never had one: silent from the first
// check; the window is long so that it does not fall silent again between
// its one delivery, at the end, and the server's stop).
std::string ScenarioConfig(const Installation& inst, const DownstreamProcess& rejecting,
                           const DownstreamProcess& flaky, const DownstreamProcess& capture, const SmtpServer& smtp) {
  return AlertTable("signature_failures = 5\n") + CaptureChannels(inst, capture) +
         EmailChannel(inst, smtp, smtp.Url("smtp")) + DemoLikeEndpoint("letters") +
         ForwardingAction(inst, rejecting.url()) + "retry_for = \"1s\"\nbreaker_failures = 0\n" +
         "\n[endpoint.alert]\ndead_letters = 2\n" + DemoLikeEndpoint("crm") + ForwardingAction(inst, flaky.url()) +
         "breaker_failures = 2\nbreaker_probe_seconds = 1\n" + "\n[endpoint.alert]\nbreaker_open = \"1s\"\n" +
         DemoLikeEndpoint("quiet") + "\n[endpoint.alert]\nsilence = \"10m\"\n" +
         "\n[worker]\nthreads = 2\nlease_seconds = 5\nbackoff_initial_ms = 10\nbackoff_max_ms = 100\n"
         "retry_for = \"5m\"\n";
}

}  // namespace

TEST_CASE("alerting: dead letters, a 401 storm, a silent endpoint and a breaker give one start and one resolve "
          "each on every channel, naming the endpoint and counts, with no secret or payload",
          "[alerting]") {
  RegisterLeakMarker(kSmtpPassword);
  SmtpServer smtp;
  DownstreamProcess capture, rejecting, flaky;
  rejecting.Default({{"status", 400}});
  const int flaky_port = flaky.port();
  flaky.Kill();
  Installation inst;
  inst.WriteTestConfig(ScenarioConfig(inst, rejecting, flaky, capture, smtp));
  ServerProcess server(inst);
  server.Start();
  const auto has = [&](const char* type, const char* condition, const char* endpoint) {
    return PollUntil([&] { return CountHook(capture, type, condition, endpoint) >= 1; }, 60s);
  };
  // quiet never received a delivery: silent from the first check.
  REQUIRE(has("alert.start", "silence", "quiet"));

  // Two events the target refuses (400) until their 1 s horizon ends.
  for (const char* id : {"evt_l1", "evt_l2"}) REQUIRE(server.PostSigned("/hooks/letters", Body(id)).status == 200);
  // Five deliveries signed with the wrong key (a rotated secret).
  for (int i = 0; i < 5; ++i) CHECK(PostForged(server, Body("evt_forged_" + std::to_string(i))).status == 401);
  // Three events for crm while its target refuses connections: the breaker opens.
  for (const char* id : {"evt_c1", "evt_c2", "evt_c3"}) {
    REQUIRE(server.PostSigned("/hooks/crm", Body(id)).status == 200);
  }
  REQUIRE(has("alert.start", "dead_letters", "letters"));
  REQUIRE(has("alert.start", "signature_failures", "demo"));
  REQUIRE(has("alert.start", "breaker_open", "crm"));

  // Each cause goes away: the target is fixed and the dead letters replayed,
  // five minutes pass without forged deliveries, crm's target comes back,
  // and quiet receives a delivery.
  rejecting.Default({{"status", 200}});
  CommandResult replay = RunCommand(BinaryPath() + " events replay --status dead_lettered --endpoint letters --yes -c " +
                                    inst.config_path() + " 2>&1");
  INFO(replay.out);
  REQUIRE(replay.exit_code == 0);
  AgeRefusals(inst);
  flaky.Start(flaky_port);
  REQUIRE(has("alert.resolved", "dead_letters", "letters"));
  REQUIRE(has("alert.resolved", "signature_failures", "demo"));
  REQUIRE(has("alert.resolved", "breaker_open", "crm"));
  REQUIRE(server.PostSigned("/hooks/quiet", Body("evt_q1")).status == 200);
  REQUIRE(has("alert.resolved", "silence", "quiet"));
  // Every channel has all eight, then nothing more can come.
  REQUIRE(PollUntil([&] { return Bodies(capture, "/slack/").size() >= 8 && smtp.Messages().size() >= 8; }, 60s));
  server.Kill(SIGTERM);
  REQUIRE(server.WaitExit() == 0);

  // The webhook channel: exactly one start, then one resolve, per incident.
  const std::vector<HookMessage> hook = HookMessages(capture);
  CHECK(hook.size() == 8);
  std::set<std::string> titles;
  for (const auto& [condition, endpoint] : kScenario) {
    INFO(condition << " on " << endpoint);
    std::vector<HookMessage> of;
    for (const HookMessage& m : hook) {
      if (m.condition() == condition && m.endpoint() == endpoint) of.push_back(m);
    }
    REQUIRE(of.size() == 2);
    CHECK(of[0].type == "alert.start");
    CHECK(of[1].type == "alert.resolved");
    for (const HookMessage& m : of) {
      CHECK(StartsWith(m.data.value("title", ""), endpoint + ": "));
      CHECK(m.Fact("Endpoint") == endpoint);
      CHECK(m.data.value("link", "") == "https://admin.example.com/");
      CHECK(m.data.value("incident_id", 0) > 0);
      titles.insert(m.data.value("title", ""));
    }
    CHECK(of[0].data["incident_id"] == of[1].data["incident_id"]);
  }
  const auto start_of = [&](const std::string& condition) {
    for (const HookMessage& m : hook) {
      if (m.type == "alert.start" && m.condition() == condition) return m;
    }
    return HookMessage{};
  };
  CHECK(start_of("dead_letters").data.value("title", "") == "letters: 2 dead letters");
  CHECK(start_of("dead_letters").Fact("Dead letters") == "2");
  CHECK(start_of("signature_failures").data.value("title", "") ==
        "demo: 5 deliveries refused (signature does not match)");
  CHECK(start_of("signature_failures").Fact("Refused (5 min)") == "5");
  CHECK(start_of("silence").Fact("Last delivery") == "none in the window");

  // Slack and e-mail carry the same eight messages.
  const std::vector<std::string> slack = Bodies(capture, "/slack/");
  CHECK(slack.size() == 8);
  std::set<std::string> slack_titles;
  for (const std::string& body : slack) {
    slack_titles.insert(json::parse(body)["blocks"][0]["text"]["text"].get<std::string>());
  }
  CHECK(slack_titles == titles);
  const std::vector<std::string> mail = smtp.Messages();
  CHECK(mail.size() == 8);
  std::map<std::string, int> mail_per_endpoint;
  for (const std::string& m : mail) {
    for (const auto& incident : kScenario) {
      const std::string& endpoint = incident.second;
      if (m.find("Endpoint: " + endpoint + "\r\n") != std::string::npos) ++mail_per_endpoint[endpoint];
    }
  }
  for (const auto& incident : kScenario) CHECK(mail_per_endpoint[incident.second] == 2);

  for (const std::string& body : Bodies(capture, "/")) CheckNothingSecret("channel body", body, inst);
  for (const std::string& m : mail) CheckNothingSecret("mail", m, inst);

  // The record: four incidents, each resolved; 24 messages, each sent once.
  CHECK(inst.Sql("SELECT condition || '|' || endpoint || '|' || CASE WHEN resolved_at IS NULL THEN 'open' ELSE "
                 "'resolved' END FROM alerts ORDER BY condition") ==
        "breaker_open|crm|resolved\ndead_letters|letters|resolved\nsignature_failures|demo|resolved\n"
        "silence|quiet|resolved");
  CHECK(inst.Sql("SELECT status || '|' || count(*) FROM alert_notifications GROUP BY status") == "sent|24");
  const std::string log = server.log();
  CHECK(CountLines(log, "alert_opened") == 4);
  CHECK(CountLines(log, "alert_resolved") == 4);
  CHECK(CountLines(log, "alert_sent") == 24);
  CHECK(CountLines(log, "alert_send_failed") == 0);
}

TEST_CASE("alerting: a channel that hangs, then is down, while an incident opens never slows ingest; the message "
          "is delivered once the channel is back",
          "[alerting]") {
  constexpr int kDeliveries = 100;
  double none_s = 0;
  {  // The same deliveries with no channel configured, for comparison.
    Installation base;
    base.WriteTestConfig();
    ServerProcess server(base);
    server.Start();
    none_s = TimeDeliveries(server, "evt_base_", kDeliveries);
  }
  DownstreamProcess capture;
  capture.Default({{"hold", true}});  // accepts the message and never answers
  const int port = capture.port();
  Installation inst;
  // quiet expects a delivery every hour and never had one: an incident at the
  // first check (the deliveries go to demo).
  inst.WriteTestConfig(AlertTable() + CaptureChannels(inst, capture, 60) + DemoLikeEndpoint("quiet") +
                       "\n[endpoint.alert]\nsilence = \"1h\"\n");
  ServerProcess server(inst);
  server.Start();
  REQUIRE(PollUntil([&] { return capture.Stats().value("holding", 0) == 1; }, 30s));

  // The sender is stuck in that send (up to its 60 s timeout) while the deliveries come.
  const double held_s = TimeDeliveries(server, "evt_held_", kDeliveries);
  CHECK(capture.Stats().value("holding", 0) == 1);
  CHECK(CountLines(server.log(), "alert_send_failed") == 0);
  INFO("deliveries: " << none_s << " s without a channel, " << held_s << " s with the channel hanging");
  // Not a benchmark: a sender that blocked ingest would hold it for the send's 60 s.
  CHECK(held_s < 5 * none_s + 5);

  // Down: the held connection breaks, the send fails and is retried later.
  capture.Kill();
  // The other channel (refused at once) fails too.
  const bool failed = PollUntil([&] { return CountLines(server.log(), "alert_send_failed") == 2; }, 30s);
  INFO(AlertLines(server.log()));
  REQUIRE(failed);
  CHECK(server.log().find("\"gave_up\":\"false\"") != std::string::npos);
  TimeDeliveries(server, "evt_down_", 20);  // still every one answered

  // Back on its port: the retry (30 s after the failure) delivers it.
  capture.Start(port);
  REQUIRE(PollUntil([&] { return CountHook(capture, "alert.start", "silence", "quiet") == 1; }, 90s));
  CHECK(PollUntil([&] { return CountLines(server.log(), "alert_sent") == 2; }, 30s));  // slack-ops too
  CHECK(inst.Sql("SELECT channel || '|' || status FROM alert_notifications ORDER BY channel") ==
        "hook|sent\nslack-ops|sent");
  CHECK(CountLines(server.log(), "alert_send_failed") == 2);  // one per channel, none looping
}

TEST_CASE("alerting: two replicas on PostgreSQL observe one condition; each notification is sent once",
          "[alerting][replicas]") {
  Installation inst;
  if (!inst.postgres()) {
    SUCCEED("needs PostgreSQL");
    return;
  }
  DownstreamProcess capture;
  inst.WriteTestConfig(AlertTable("signature_failures = 3\ndigest_at = \"00:00\"\n") + CaptureChannels(inst, capture));
  ServerProcess a(inst), b(inst);
  a.Start();
  b.Start();
  for (const ServerProcess* s : {&a, &b}) CHECK(CountLines(s->log(), "alerts_started") == 1);
  // Refusals through both replicas; the leader reads them all from the database.
  CHECK(PostForged(a, Body("evt_rf1")).status == 401);
  CHECK(PostForged(b, Body("evt_rf2")).status == 401);
  CHECK(PostForged(a, Body("evt_rf3")).status == 401);
  REQUIRE(PollUntil([&] { return CountHook(capture, "alert.start", "signature_failures", "demo") >= 1; }, 60s));
  AgeRefusals(inst);
  REQUIRE(PollUntil([&] { return CountHook(capture, "alert.resolved", "signature_failures", "demo") >= 1; }, 60s));
  // The replica holding the alert lead queued yesterday's digest at start: it goes out once.
  REQUIRE(PollUntil([&] { return Bodies(capture, "/slack/").size() >= 3; }, 60s));
  a.Kill(SIGTERM);
  b.Kill(SIGTERM);
  CHECK(a.WaitExit() == 0);
  CHECK(b.WaitExit() == 0);

  std::map<std::string, int> types;
  for (const HookMessage& m : HookMessages(capture)) ++types[m.type];
  CHECK(types == std::map<std::string, int>{{"alert.digest", 1}, {"alert.resolved", 1}, {"alert.start", 1}});
  CHECK(Bodies(capture, "/slack/").size() == 3);
  CHECK(inst.Sql("SELECT count(*) FROM alerts") == "1");
  CHECK(inst.Sql("SELECT kind || '|' || count(*) FROM alert_notifications WHERE status = 'sent' GROUP BY kind "
                 "ORDER BY kind") == "digest|2\nresolved|2\nstart|2");
  CHECK(CountLines(a.log(), "alert_opened") + CountLines(b.log(), "alert_opened") == 1);
  CHECK(CountLines(a.log(), "alert_sent") + CountLines(b.log(), "alert_sent") == 6);
  // One replica checked throughout: the lead was taken once and never changed hands.
  CHECK(CountLines(a.log(), "alert_lead_taken") + CountLines(b.log(), "alert_lead_taken") == 1);
  CHECK(CountLines(a.log(), "alert_lead_lost") + CountLines(b.log(), "alert_lead_lost") == 0);
  CHECK(inst.Sql("SELECT count(*) FROM alert_lead") == "0");  // the leader gave it up at shutdown
}

TEST_CASE("alerting: the daily digest of a seeded day matches the database", "[alerting]") {
  DownstreamProcess ok, refusing;
  refusing.Default({{"status", 400}});
  Installation inst;
  const std::string endpoints =
      ForwardingAction(inst, ok.url()) + DemoLikeEndpoint("letters") + ForwardingAction(inst, refusing.url()) +
      "retry_for = \"1s\"\nbreaker_failures = 0\n" + DemoLikeEndpoint("later") + ForwardingAction(inst, ok.url()) +
      "\n[worker]\nbackoff_initial_ms = 10\nbackoff_max_ms = 100\n";
  inst.WriteTestConfig(endpoints);
  ServerProcess server(inst);
  server.SetEnvironment({{"TZ", "UTC"}});  // the digest's day is the host's local day
  server.Start();
  // later is paused: its event waits.
  CommandResult pause = RunCommand(BinaryPath() + " endpoints pause later -c " + inst.config_path() + " 2>&1");
  INFO(pause.out);
  REQUIRE(pause.exit_code == 0);
  for (const char* id : {"evt_d1", "evt_d2", "evt_d3", "evt_edge_before", "evt_edge_after"}) {
    REQUIRE(server.PostSigned("/hooks/demo", Body(id)).status == 200);
  }
  REQUIRE(server.PostSigned("/hooks/demo", Body("evt_d1")).status == 200);         // a duplicate
  server.PostSigned("/hooks/demo", Body("evt_d2", " changed"));                      // a conflict
  CHECK(PostForged(server, Body("evt_forged")).status == 401);                      // refused
  REQUIRE(server.PostSigned("/hooks/letters", Body("evt_l1")).status == 200);      // dead-lettered
  REQUIRE(server.PostSigned("/hooks/later", Body("evt_w1")).status == 200);        // waits
  const auto count = [&](const std::string& where) {
    return std::stoll(inst.Sql("SELECT count(*) FROM webhook_inbox WHERE " + where));
  };
  REQUIRE(PollUntil([&] { return count("status = 'completed'") == 5 && count("status = 'dead_lettered'") == 1; },
                    30s));
  server.Kill(SIGTERM);
  REQUIRE(server.WaitExit() == 0);

  // Yesterday (UTC): every row at its noon, in arrival order, but two events
  // just outside it, one on each side.
  constexpr int64_t kDay = 86400000;
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const int64_t from = (now_ms / kDay - 1) * kDay, to = from + kDay;
  for (const char* table : {"webhook_deliveries", "webhook_inbox"}) {
    const std::string t = table;
    inst.SqlWrite("UPDATE " + t + " SET received_at = " + std::to_string(from + kDay / 2) + " + id");
    inst.SqlWrite("UPDATE " + t + " SET received_at = " + std::to_string(from - 1) +
                  " WHERE event_id = 'evt_edge_before'");
    inst.SqlWrite("UPDATE " + t + " SET received_at = " + std::to_string(to) + " WHERE event_id = 'evt_edge_after'");
  }

  // Restarted with a digest due since midnight: it is sent at start.
  DownstreamProcess capture;
  inst.WriteTestConfig(endpoints + AlertTable("digest_at = \"00:00\"\n") + CaptureChannels(inst, capture));
  server.Start();
  REQUIRE(PollUntil([&] { return Bodies(capture, "/slack/").size() >= 1 && !HookMessages(capture).empty(); }, 30s));
  REQUIRE(PollUntil(
      [&] {
        for (const HookMessage& m : HookMessages(capture))
          if (m.type == "alert.digest") return true;
        return false;
      },
      30s));
  server.Kill(SIGTERM);
  REQUIRE(server.WaitExit() == 0);
  std::vector<HookMessage> digests;
  for (const HookMessage& m : HookMessages(capture))
    if (m.type == "alert.digest") digests.push_back(m);
  REQUIRE(digests.size() == 1);
  const HookMessage& d = digests[0];
  INFO(d.data.dump(2));

  const std::string range = " received_at >= " + std::to_string(from) + " AND received_at < " + std::to_string(to);
  const auto deliveries = [&](const std::string& outcomes) {
    return inst.Sql("SELECT coalesce(sum(request_count), 0) FROM webhook_deliveries WHERE" + range +
                    " AND outcome IN (" + outcomes + ")");
  };
  const auto events = [&](const std::string& statuses) {
    return inst.Sql("SELECT count(*) FROM webhook_inbox WHERE" + range + " AND status IN (" + statuses + ")");
  };
  char day[16];
  const std::time_t from_s = static_cast<std::time_t>(from / 1000);
  std::tm tm{};
  gmtime_r(&from_s, &tm);
  std::strftime(day, sizeof day, "%Y-%m-%d", &tm);
  CHECK(d.data.value("title", "") == std::string("hookinbox daily digest for ") + day);
  // The database's figures, and what the scenario above makes them.
  CHECK(d.Fact("Received") == deliveries("'accepted', 'duplicate', 'conflict'"));
  CHECK(d.Fact("Received") == "7");  // 5 accepted, 1 duplicate, 1 conflict
  CHECK(d.Fact("Duplicates absorbed") == deliveries("'duplicate'"));
  CHECK(d.Fact("Duplicates absorbed") == "1");
  CHECK(d.Fact("Processed") == events("'completed'"));
  CHECK(d.Fact("Processed") == "3");
  CHECK(d.Fact("Failed") == events("'dead_lettered', 'unknown'"));
  CHECK(d.Fact("Failed") == "1");
  CHECK(d.Fact("Waiting") == events("'received', 'retryable_failed', 'processing'"));
  CHECK(d.Fact("Waiting") == "1");
  CHECK(deliveries("'rejected'") == "1");
  CHECK(d.data.value("text", "").find(", 1 request refused.") != std::string::npos);
  CHECK(d.data.value("text", "").find("Of the 5 events that arrived: 3 processed") != std::string::npos);
  // The incidents open when it was written (the dead letter, the waiting event's backlog).
  const std::string at = std::to_string(d.data.value("at_ms", int64_t{0}));
  CHECK(d.Fact("Open incidents") == inst.Sql("SELECT count(*) FROM alerts WHERE opened_at <= " + at +
                                             " AND (resolved_at IS NULL OR resolved_at > " + at + ")"));
  CheckNothingSecret("digest", d.data.dump(), inst);
  CHECK(inst.Sql("SELECT count(*) FROM alert_notifications WHERE kind = 'digest'") == "2");
}

TEST_CASE("alerting: with no channel incidents are still recorded and logged, and no message is queued",
          "[alerting]") {
  Installation inst;
  inst.WriteTestConfig(AlertTable() + DemoLikeEndpoint("quiet") + "\n[endpoint.alert]\nsilence = \"1h\"\n");
  ServerProcess server(inst);
  server.Start();
  CHECK(server.log().find("\"event\":\"alerts_started\",\"channels\":\"\"") != std::string::npos);
  REQUIRE(PollUntil([&] { return inst.Sql("SELECT count(*) FROM alerts") == "1"; }, 30s));
  CHECK(inst.Sql("SELECT condition || '|' || endpoint FROM alerts WHERE resolved_at IS NULL") == "silence|quiet");
  CHECK(PollUntil([&] { return CountLines(server.log(), "alert_opened") == 1; }, 10s));
  CHECK(inst.Sql("SELECT count(*) FROM alert_notifications") == "0");
}

TEST_CASE("alerting: with every condition off no check runs, and the incidents left open are closed at start",
          "[alerting]") {
  Installation inst;
  const std::string off = "\n[alert]\ndead_letters = false\nunknown = false\nconflicts = false\nbacklog_age = false\n"
                          "signature_failures = false\nbreaker_open = false\ncertificate_days = false\n"
                          "disk_free = false\nstorage_failures = false\n";
  inst.WriteTestConfig(off);
  ServerProcess server(inst);
  server.Start();
  CHECK(CountLines(server.log(), "alerts_off") == 1);
  CHECK(CountLines(server.log(), "alerts_started") == 0);
  // Left open by an earlier configuration; nothing checks while it serves.
  inst.SqlWrite("INSERT INTO alerts (condition, endpoint, summary, opened_at, last_seen_at) VALUES"
                " ('dead_letters', 'demo', 'demo: 1 dead letter', 1000, 2000)");
  server.Kill(SIGTERM);
  REQUIRE(server.WaitExit() == 0);
  CHECK(inst.Sql("SELECT count(*) FROM alerts WHERE resolved_at IS NULL") == "1");
  server.Start();  // the one check at start closes it
  CHECK(inst.Sql("SELECT count(*) FROM alerts WHERE resolved_at IS NULL") == "0");
  CHECK(CountLines(server.log(), "alert_resolved") == 1);
}

}  // namespace hookinbox::testing
