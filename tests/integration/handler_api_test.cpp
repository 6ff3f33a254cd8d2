// The handler API (/v1 on the admin listener) through the real binary: exec
// handlers call it with curl and $HOOKINBOX_TOKEN / $HOOKINBOX_API, or
// "park" (record their token, then wait for a release file) so the test can
// call the API with a live token while the event is processing. The
// database is read with the sqlite3 CLI; every wait polls with a deadline.
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "harness.h"

namespace hookinbox::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

// The exec action running handler.sh; `worker` replaces the [worker] table.
std::string ActionConfig(int timeout_ms, bool idempotent, const std::string& worker) {
  return R"(
[endpoint.action]
type = "exec"
command = ["handler.sh"]
timeout_ms = )" + std::to_string(timeout_ms) + R"(
idempotent_target = )" + (idempotent ? "true" : "false") + R"(
concurrency = 20

[worker]
)" + worker;
}

constexpr const char* kFastWorker = R"(threads = 4
lease_seconds = 1
max_attempts = 5
backoff_initial_ms = 10
backoff_max_ms = 50
shutdown_grace_seconds = 1
)";

// Shell helpers every handler starts with: `out` records, `api` calls the
// handler API (token in a header read from a file descriptor, as
// examples/notify_once.sh does) and prints "CODE BODY".
constexpr const char* kScriptHead = R"(#!/bin/bash
out='OUT'
e=$HOOKINBOX_EVENT_ID
n=$HOOKINBOX_ATTEMPT
api() {  # METHOD PATH [DATA]
  local r
  r=$(curl -sS --max-time 10 -w '\n%{http_code}' -X "$1" "$HOOKINBOX_API$2" \
      -H @<(printf 'Authorization: Bearer %s\n' "$HOOKINBOX_TOKEN") \
      -H 'Content-Type: application/json' ${3+--data-binary "$3"})
  printf '%s %s' "${r##*$'\n'}" "${r%$'\n'*}"
}
)";

// Records its token and API base, then waits (bounded) for `out/release`.
// The token file is written last: tests wait for it, then read the rest.
constexpr const char* kParkedHandler = R"(
printf '%s' "$HOOKINBOX_API" >"$out/api.$e.tmp" && mv "$out/api.$e.tmp" "$out/api"
printf '%s' "$HOOKINBOX_TOKEN" >"$out/token.$e.tmp" && mv "$out/token.$e.tmp" "$out/token.$e"
for _ in $(seq 1 600); do [ -e "$out/release" ] && exit 0; sleep 0.05; done
exit 75
)";

struct HandlerFixture {
  Installation inst;
  ServerProcess server{inst};
  std::string out = inst.dir() + "/out";

  HandlerFixture(const std::string& body, const std::string& action_config) {
    REQUIRE(::mkdir(out.c_str(), 0700) == 0);
    std::string script = kScriptHead;
    script.replace(script.find("OUT"), 3, out);
    std::string path = inst.dir() + "/handler.sh";
    std::ofstream(path) << script << body;
    ::chmod(path.c_str(), 0700);
    inst.WriteTestConfig(action_config);
  }

  int64_t Deliver(const std::string& event_id) const {
    auto r = server.PostSigned("/hooks/demo", R"({"id":")" + event_id + R"(","type":"job.run"})");
    INFO(r.body);
    REQUIRE(r.status == 200);
    return json::parse(r.body).at("id").get<int64_t>();
  }
  std::string Inbox(int64_t id, const std::string& columns) const {
    return inst.Sql("SELECT " + columns + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  }
  bool Becomes(int64_t id, const std::string& status, std::chrono::milliseconds timeout = 30s) const {
    return PollUntil([&] { return Inbox(id, "status") == status; }, timeout);
  }
  // The parked handler's token for `event_id`, once it wrote it.
  std::string TokenOf(const std::string& event_id) const {
    const std::string path = out + "/token." + event_id;
    REQUIRE(PollUntil([&] { return Exists(path); }, 30s));
    return ReadFile(path);
  }
  void Release() const { std::ofstream(out + "/release") << "go"; }

  // A request to the admin listener (plain HTTP); `token` "" sends no Authorization.
  HttpResult Api(const std::string& method, const std::string& path, const std::string& body,
                 const std::string& token, const std::string& content_type = "application/json") const {
    httplib::Client client("127.0.0.1", server.admin_port());
    client.set_connection_timeout(10, 0);
    client.set_read_timeout(30, 0);
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    auto send = [&]() -> httplib::Result {
      if (method == "POST") return client.Post(path.c_str(), h, body, content_type.c_str());
      if (method == "PUT") return client.Put(path.c_str(), h, body, content_type.c_str());
      if (method == "DELETE") return client.Delete(path.c_str(), h);
      return client.Get(path.c_str(), h);
    };
    httplib::Result res = send();
    HttpResult r;
    if (!res) return r;
    r.status = res->status;
    r.body = res->body;
    for (const auto& [k, v] : res->headers) r.headers[k] = v;
    return r;
  }
  std::string LedgerRows() const {
    return inst.Sql("SELECT (SELECT count(*) FROM effects) || '/' || (SELECT count(*) FROM step_results)");
  }
};

}  // namespace

TEST_CASE("handler api: a handler killed after completing its effect; the retry gets 200 done with the same "
          "external_ref and the effect happened once",
          "[integration][handler-api]") {
  // Attempt 1 does the effect, records it in the ledger, then hangs until the
  // worker's timeout kills its process group (idempotent_target: retried).
  HandlerFixture f(R"SH(
r=$(api POST /effects/claim '{"key":"charge:'"$e"'"}')
echo "$r" >"$out/claim.$n"
case $r in
  201*)
    echo "charged $e" >>"$out/effects.log"
    api POST "/effects/charge:$e/complete" '{"external_ref":"ch_'"$e"'_1"}' >"$out/complete.$n"
    sleep 30 ;;
  200*)
    ref=$(printf '%s' "$r" | sed -n 's/.*"external_ref":"\([^"]*\)".*/\1/p')
    echo "{\"result_ref\":\"$ref\"}"
    exit 0 ;;
esac
exit 1
)SH",
                   ActionConfig(3000, true, kFastWorker));
  f.server.Start();
  REQUIRE(f.server.admin_port() > 0);
  int64_t id = f.Deliver("evt_charge");
  REQUIRE(f.Becomes(id, "completed"));
  CHECK(ReadFile(f.out + "/claim.1") == "201 {\"status\":\"claimed\"}\n");
  CHECK(ReadFile(f.out + "/complete.1") == R"(200 {"external_ref":"ch_evt_charge_1","status":"done"})");
  CHECK(ReadFile(f.out + "/claim.2") ==
        "200 {\"external_ref\":\"ch_evt_charge_1\",\"status\":\"done\"}\n");
  CHECK(ReadFile(f.out + "/effects.log") == "charged evt_charge\n");
  CHECK(f.Inbox(id, "attempt_count || '|' || result_ref") == "2|ch_evt_charge_1");
  CHECK(f.inst.Sql("SELECT status || '|' || external_ref || '|' || attempt FROM effects WHERE effect_key = "
                   "'charge:evt_charge'") == "done|ch_evt_charge_1|1");
  // The refused repeat is counted (/metrics needs no token here).
  httplib::Client admin("127.0.0.1", f.server.admin_port());
  auto metrics = admin.Get("/metrics");
  REQUIRE(metrics);
  CHECK_THAT(metrics->body, Catch::Contains("\nwebhook_effects_already_done_total 1\n"));
}

TEST_CASE("handler api: 20 events claiming one effect key at once get exactly one 201", "[integration][handler-api]") {
  HandlerFixture f(kParkedHandler, ActionConfig(60000, false, R"(threads = 20
lease_seconds = 60
shutdown_grace_seconds = 1
)"));
  f.server.Start();
  std::vector<std::string> tokens;
  for (int i = 0; i < 20; ++i) f.Deliver("evt_" + std::to_string(i));
  for (int i = 0; i < 20; ++i) tokens.push_back(f.TokenOf("evt_" + std::to_string(i)));
  CHECK(ReadFile(f.out + "/api") == "http://127.0.0.1:" + std::to_string(f.server.admin_port()) + "/v1");

  std::atomic<int> ready{0};
  std::vector<HttpResult> answers(20);
  std::vector<std::thread> threads;
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < 20) std::this_thread::yield();  // fire together
      answers[i] = f.Api("POST", "/v1/effects/claim", R"({"key":"invoice:inv_42:mark_paid"})", tokens[i]);
    });
  }
  for (auto& t : threads) t.join();
  int created = 0, in_progress = 0;
  for (const auto& a : answers) {
    INFO(a.status << " " << a.body);
    if (a.status == 201 && a.body == R"({"status":"claimed"})") ++created;
    if (a.status == 409 && a.body == R"({"status":"in_progress"})") ++in_progress;
  }
  CHECK(created == 1);
  CHECK(in_progress == 19);
  CHECK(f.inst.Sql("SELECT count(*) || ':' || min(status) FROM effects") == "1:claimed");
  f.Release();
}

TEST_CASE("handler api: step results survive a restart and are returned on the retry; another event's token "
          "cannot read them (404: steps are per event)",
          "[integration][handler-api]") {
  // evt_draft, attempt 1: no step yet, stores one, then hangs (the server is
  // SIGKILLed under it). Attempt 2 (after the restart): reads it back.
  // evt_other: asks for the same step name and records the answer.
  HandlerFixture f(R"(
if [ "$e" = evt_other ]; then
  api GET /steps/draft >"$out/other"
  exit 0
fi
if [ "$n" = 1 ]; then
  api GET /steps/draft >"$out/get.1"
  printf 'Dear customer, %s' "$RANDOM$RANDOM" >"$out/draft.1"
  curl -sS -o /dev/null -w '%{http_code}' -X PUT "$HOOKINBOX_API/steps/draft" \
    -H @<(printf 'Authorization: Bearer %s\n' "$HOOKINBOX_TOKEN") \
    -H 'Content-Type: text/plain; charset=utf-8' --data-binary @"$out/draft.1" >"$out/put.1"
  printf '%s' "$HOOKINBOX_TOKEN" >"$out/token.1"
  echo $$ >"$out/pid.1"
  sleep 60
  exit 1
fi
curl -sS -o "$out/get.$n" -w '%{http_code} %{content_type}' "$HOOKINBOX_API/steps/draft" \
  -H @<(printf 'Authorization: Bearer %s\n' "$HOOKINBOX_TOKEN") >"$out/meta.$n"
printf '%s' "$HOOKINBOX_TOKEN" >"$out/token.$n"
exit 0
)",
                   ActionConfig(120000, false, kFastWorker));
  f.server.Start();
  int64_t id = f.Deliver("evt_draft");
  REQUIRE(PollUntil([&] { return Exists(f.out + "/pid.1"); }, 30s));
  CHECK(ReadFile(f.out + "/get.1") == R"(404 {"error":"no such step"})");
  CHECK(ReadFile(f.out + "/put.1") == "200");

  f.server.Kill(SIGKILL);
  f.server.WaitExit();
  ::kill(-std::stoi(ReadFile(f.out + "/pid.1")), SIGKILL);  // the orphaned attempt's process group
  f.server.Start();  // the lease (1 s) expires; the event is claimed again
  REQUIRE(f.Becomes(id, "completed"));
  CHECK(f.Inbox(id, "attempt_count") == "2");
  CHECK(ReadFile(f.out + "/meta.2") == "200 text/plain; charset=utf-8");
  CHECK(ReadFile(f.out + "/get.2") == ReadFile(f.out + "/draft.1"));
  CHECK(ReadFile(f.out + "/draft.1").rfind("Dear customer, ", 0) == 0);

  int64_t other = f.Deliver("evt_other");
  REQUIRE(f.Becomes(other, "completed"));
  CHECK(ReadFile(f.out + "/other") == R"(404 {"error":"no such step"})");

  // Both of evt_draft's tokens are dead: the first was replaced, the second's event completed.
  for (const char* n : {"1", "2"}) {
    auto r = f.Api("GET", "/v1/steps/draft", "", ReadFile(f.out + "/token." + n));
    CHECK(r.status == 409);
  }
  CHECK(f.inst.Sql("SELECT inbox_id || '|' || name || '|' || attempt FROM step_results") ==
        std::to_string(id) + "|draft|1");
}

TEST_CASE("handler api: bad requests get a clear 4xx and change nothing", "[integration][handler-api]") {
  HandlerFixture f(kParkedHandler, ActionConfig(60000, false, R"(threads = 2
lease_seconds = 60
shutdown_grace_seconds = 1
)"));
  f.server.Start();
  int64_t id = f.Deliver("evt_bad");
  const std::string token = f.TokenOf("evt_bad");
  const std::string claim = "/v1/effects/claim";

  struct Case {
    const char* what;
    std::string method, path, body, token;
    int status;
    std::string error;  // a part of the answer
  };
  const std::vector<Case> cases = {
      {"no token", "POST", claim, R"({"key":"k"})", "", 401, "unauthorized"},
      {"unknown token", "POST", claim, R"({"key":"k"})", "hkt_" + std::string(64, 'a'), 401, "unauthorized"},
      {"malformed token", "POST", claim, R"({"key":"k"})", "not-a-token", 401, "unauthorized"},
      {"malformed JSON", "POST", claim, R"({"key":)", token, 400, "JSON object"},
      {"JSON not an object", "POST", claim, R"(["k"])", token, 400, "JSON object"},
      {"missing key", "POST", claim, R"({"name":"k"})", token, 400, "key is missing"},
      {"key not a string", "POST", claim, R"({"key":42})", token, 400, "key must be a string"},
      {"empty key", "POST", claim, R"({"key":""})", token, 400, "key is missing or empty"},
      {"key too long", "POST", claim, R"({"key":")" + std::string(201, 'k') + R"("})", token, 400, "200 bytes"},
      {"key with a control character", "POST", claim, R"({"key":"a\u0001b"})", token, 400, "control character"},
      {"oversized claim body", "POST", claim, R"({"key":"k","pad":")" + std::string(70000, 'x') + R"("})", token,
       413, "over"},
      {"oversized step", "PUT", "/v1/steps/big", std::string(1024 * 1024 + 1, 'x'), token, 413, "over"},
      {"step name too long", "PUT", "/v1/steps/" + std::string(201, 'n'), "x", token, 400, "200 bytes"},
      {"step name with a control character", "PUT", "/v1/steps/a%0Ab", "x", token, 400, "control character"},
      {"external_ref too long", "POST", "/v1/effects/k/complete",
       R"({"external_ref":")" + std::string(1025, 'r') + R"("})", token, 400, "1024 bytes"},
      {"complete of an unclaimed key", "POST", "/v1/effects/k/complete", R"({"external_ref":"r"})", token, 404,
       "not claimed"},
      {"unknown route", "GET", "/v1/nothing", "", token, 404, "no such route"},
      {"not under /v1", "GET", "/", "", token, 404, "no such route"},
      {"wrong method on a step", "DELETE", "/v1/steps/x", "", token, 405, "GET, PUT"},
      {"wrong method on claim", "GET", claim, "", token, 405, "POST"},
  };
  for (const auto& c : cases) {
    auto r = f.Api(c.method, c.path, c.body, c.token);
    INFO(c.what << ": " << r.status << " " << r.body);
    CHECK(r.status == c.status);
    CHECK(r.body.find(c.error) != std::string::npos);
    CHECK(json::parse(r.body, nullptr, false).contains("error"));
    if (c.status == 401) CHECK(r.headers["WWW-Authenticate"] == "Bearer");
    if (c.status == 405) CHECK(r.headers["Allow"] == (c.path == claim ? "POST" : "GET, PUT"));
  }
  CHECK(f.LedgerRows() == "0/0");
  CHECK(f.Inbox(id, "status") == "processing");

  // The same token works for good requests, and stops working once the event completed.
  CHECK(f.Api("POST", claim, R"({"key":"k"})", token).status == 201);
  CHECK(f.Api("POST", "/v1/effects/k/fail", R"({"error":"smtp 550"})", token).body == R"({"status":"failed"})");
  CHECK(f.Api("PUT", "/v1/steps/s", "v", token, "text/plain").status == 200);
  f.Release();
  REQUIRE(f.Becomes(id, "completed"));
  auto late = f.Api("POST", claim, R"({"key":"k2"})", token);
  CHECK(late.status == 409);
  CHECK(f.LedgerRows() == "1/1");
  // Neither the token nor the keys reach the log.
  CHECK(f.server.log().find(token) == std::string::npos);
}

TEST_CASE("handler api: 10 wrong tokens from one address get the rest 429, yet a live token from it is accepted; "
          "requests without a token and expired tokens never count",
          "[integration][handler-api]") {
  HandlerFixture f(kParkedHandler, ActionConfig(60000, false, R"(threads = 2
lease_seconds = 60
shutdown_grace_seconds = 1
)"));
  f.server.Start();
  int64_t done = f.Deliver("evt_done");
  const std::string expired = f.TokenOf("evt_done");
  f.Release();
  REQUIRE(f.Becomes(done, "completed"));
  std::filesystem::remove(f.out + "/release");
  f.Deliver("evt_live");
  const std::string live = f.TokenOf("evt_live");
  const std::string step = "/v1/steps/s";
  for (int i = 0; i < 20; ++i) {
    CHECK(f.Api("GET", step, "", "").status == 401);       // no token: nothing to count
    CHECK(f.Api("GET", step, "", expired).status == 409);  // a late handler, not a guess
  }
  for (int i = 0; i < 10; ++i) CHECK(f.Api("GET", step, "", "hkt_" + std::string(64, 'a' + i % 6)).status == 401);
  auto blocked = f.Api("GET", step, "", "not-a-token");
  CHECK(blocked.status == 429);
  CHECK(blocked.body == R"({"error":"too many failed logins; retry later"})");
  CHECK(!blocked.headers["Retry-After"].empty());
  // Every handler on this host shares 127.0.0.1: the live token still works.
  CHECK(f.Api("PUT", step, "v", live, "text/plain").status == 200);
  CHECK(f.Api("GET", step, "", live).status == 200);
  CHECK(f.Api("GET", step, "", "hkt_" + std::string(64, 'f')).status == 429);
  f.Release();
}

TEST_CASE("handler api: a busy admin port is a clear start-up error naming it", "[integration][handler-api]") {
  Installation inst;
  inst.WriteTestConfig();
  ServerProcess first(inst);
  first.Start();
  REQUIRE(first.admin_port() > 0);
  std::string toml = ReadFile(inst.config_path());
  std::string taken = "127.0.0.1:" + std::to_string(first.admin_port());
  toml = std::regex_replace(toml, std::regex(R"(\[admin\]\nlisten = "127\.0\.0\.1:0")"),
                            "[admin]\nlisten = \"" + taken + "\"");
  REQUIRE(toml.find(taken) != std::string::npos);
  inst.WriteConfig(toml);
  auto r = RunCommand("timeout 60 " + BinaryPath() + " serve -c " + inst.config_path() + " 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("admin.listen " + taken) != std::string::npos);
}

TEST_CASE("handler api: examples/notify_once.sh sends once; a replay reports the stored message id; a maybe-sent "
          "notification is never sent again",
          "[integration][handler-api]") {
  Installation inst;
  const std::string out = inst.dir() + "/out";
  REQUIRE(::mkdir(out.c_str(), 0700) == 0);
  // The fake provider: appends to sent.log and answers a message id; for
  // events whose body says "hang" it records the send, then exits as a
  // timeout would (maybe sent).
  std::string sender = inst.dir() + "/fake_send.sh";
  std::ofstream(sender) << "#!/bin/bash\nbody=$(cat)\necho \"$body\" >>'" << out << "/sent.log'\n"
                        << "case $body in *hang*) exit 124 ;; esac\n"
                        << "echo \"msg-$(wc -l <'" << out << "/sent.log')\"\n";
  ::chmod(sender.c_str(), 0700);
  const std::string example = std::string(HOOKINBOX_SOURCE_DIR) + "/examples/notify_once.sh";
  REQUIRE(Exists(example));
  inst.WriteTestConfig(R"(
[endpoint.action]
type = "exec"
command = [")" + example + R"(", "welcome", ")" + sender + R"("]
timeout_ms = 60000

[worker]
threads = 2
lease_seconds = 30
max_attempts = 3
backoff_initial_ms = 10
backoff_max_ms = 50
shutdown_grace_seconds = 1
)");
  ServerProcess server(inst);
  server.Start();
  auto deliver = [&](const std::string& body) {
    auto r = server.PostSigned("/hooks/demo", body);
    REQUIRE(r.status == 200);
    return json::parse(r.body).at("id").get<int64_t>();
  };
  auto inbox = [&](int64_t id, const std::string& cols) {
    return inst.Sql("SELECT " + cols + " FROM webhook_inbox WHERE id = " + std::to_string(id));
  };
  auto becomes = [&](int64_t id, const std::string& status, int attempts) {
    return PollUntil([&] { return inbox(id, "status || ':' || attempt_count") == status + ":" + std::to_string(attempts); },
                     30s);
  };
  auto replay = [&](int64_t id) {
    auto r = RunCommand(BinaryPath() + " events replay " + std::to_string(id) + " -c " + inst.config_path() + " 2>&1");
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
  };

  int64_t id = deliver(R"({"id":"evt_signup_1","type":"user.created"})");
  REQUIRE(becomes(id, "completed", 1));
  CHECK(inbox(id, "result_ref") == "msg-1");
  replay(id);  // a person runs it again: the handler finds the notification sent
  REQUIRE(becomes(id, "completed", 1));  // attempts count afresh after a replay
  REQUIRE(PollUntil([&] { return inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " +
                                          std::to_string(id) + " AND outcome = 'completed'") == "2"; },
                    30s));
  CHECK(inbox(id, "result_ref") == "msg-1");

  int64_t maybe = deliver(R"({"id":"evt_signup_2","type":"user.created","note":"hang"})");
  REQUIRE(becomes(maybe, "dead_lettered", 1));
  CHECK(inst.Sql("SELECT status FROM effects WHERE inbox_id = " + std::to_string(maybe)) == "unknown");
  replay(maybe);  // blocked: 409 unknown, nothing sent
  REQUIRE(PollUntil([&] { return inst.Sql("SELECT count(*) FROM webhook_attempts WHERE inbox_id = " +
                                          std::to_string(maybe) + " AND outcome = 'dead_lettered'") == "2"; },
                    30s));

  CHECK(ReadFile(out + "/sent.log") ==
        "{\"id\":\"evt_signup_1\",\"type\":\"user.created\"}\n"
        "{\"id\":\"evt_signup_2\",\"type\":\"user.created\",\"note\":\"hang\"}\n");
  CHECK(inst.Sql("SELECT group_concat(status || ':' || ifnull(external_ref, '-'), ',') FROM effects") ==
        "done:msg-1,unknown:-");
}

}  // namespace hookinbox::testing
