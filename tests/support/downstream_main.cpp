// tests/support/downstream_main.cpp — the downstream the worker's tests and
// benchmark forward to: a small HTTP server in its own process that records
// every call, answers from a script, and deduplicates by Idempotency-Key the
// way Stripe does.
//
//   test_downstream [--port N] [--quiet] [--no-dedup]
//
// Prints "listening port=N" (one line, flushed) once it accepts connections.
// A test stops it with SIGKILL to play "downstream down" and starts it again
// on the same port.
//
// Effect routes: POST to any path outside /_control. With an Idempotency-Key:
//   - a key whose effect was applied replays the saved answer (header
//     Idempotent-Replayed: true) and applies nothing — unless the body
//     differs, which is a client bug: 400 idempotency_key_reused;
//   - a key whose first request is still running answers 409
//     idempotency_key_in_use (Stripe's answer to concurrent retries);
//   - otherwise the next scripted reply (or the default, 200) is played; a
//     2xx applies the effect and saves the answer, anything else saves
//     nothing, so a retry runs again (as Stripe does for failures before the
//     request started executing).
// --no-dedup plays a target that ignores Idempotency-Key: every call is a new
// effect (for `hookinbox check-downstream` to catch).
// Every answer carries X-Ref and a JSON body {"ok":…,"ref":"eff_N"} where N
// counts applied effects, so result_ref can come from a header or a pointer.
//
// Lookup route (a reconciliation probe's target, action.probe_url):
//   GET /lookup?key=K  200 {"result_ref":"eff_N"} when K's effect was applied,
//                      409 while its first request runs, 404 when unknown.
//
// Control routes (JSON):
//   POST /_control/script   [reply…]  appended to the script
//   POST /_control/default  reply     played when the script is empty
//   POST /_control/release            lets every held request answer
//   GET  /_control/calls              every call recorded (none with --quiet)
//   GET  /_control/stats              counters
// A reply is {"status":200, "retry_after":"2", "hold":false, "delay_ms":0,
// "late_ms":0}: hold waits for the next release, delay_ms simulates work
// before the effect, late_ms delays the answer after it (the effect happened
// but the caller may have stopped listening).
#include <httplib.h>
#include <sys/socket.h>
#include <openssl/sha.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using json = nlohmann::json;

struct Reply {
  int status = 200;
  std::string retry_after;
  bool hold = false;
  int delay_ms = 0;
  int late_ms = 0;
};

Reply ReplyFrom(const json& j) {
  Reply r;
  r.status = j.value("status", 200);
  r.retry_after = j.value("retry_after", "");
  r.hold = j.value("hold", false);
  r.delay_ms = j.value("delay_ms", 0);
  r.late_ms = j.value("late_ms", 0);
  return r;
}

struct Saved {
  int status = 0;
  std::string body, ref, body_digest;
};

std::string Digest(const std::string& text) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), md);
  return std::string(reinterpret_cast<const char*>(md), sizeof md);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The headers a test may want to look at; the rest are not kept.
constexpr const char* kKeptHeaders[] = {"Idempotency-Key",      "Content-Type",        "X-Hookinbox-Event-Id",
                                        "X-Hookinbox-Event-Type", "X-Hookinbox-Attempt", "webhook-id",
                                        "webhook-timestamp",    "webhook-signature"};

class Downstream {
 public:
  Downstream(bool quiet, bool dedup) : quiet_(quiet), dedup_(dedup) {}

  void Effect(const httplib::Request& req, httplib::Response& res) {
    const std::string key = dedup_ ? req.get_header_value("Idempotency-Key") : "";
    const std::string digest = Digest(req.body);
    json call = {{"t_ms", NowMs()}, {"path", req.path}, {"body", req.body}, {"replayed", false}};
    if (!quiet_) {
      json headers = json::object();
      for (const char* name : kKeptHeaders)
        if (req.has_header(name)) headers[name] = req.get_header_value(name);
      call["headers"] = headers;
    }
    Reply reply;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++stats_calls_;
      if (!key.empty()) {
        if (auto saved = saved_.find(key); saved != saved_.end()) {
          if (saved->second.body_digest != digest) {
            ++mismatches_;
            Answer(res, call, 400, R"({"error":"idempotency_key_reused"})", "");
          } else {
            ++replays_;
            call["replayed"] = true;
            res.set_header("Idempotent-Replayed", "true");
            Answer(res, call, saved->second.status, saved->second.body, saved->second.ref);
          }
          return;
        }
        if (!in_flight_.insert(key).second) {
          ++in_use_;
          Answer(res, call, 409, R"({"error":"idempotency_key_in_use"})", "");
          return;
        }
      }
      reply = script_.empty() ? default_ : script_.front();
      if (!script_.empty()) script_.pop_front();
      if (reply.hold) {
        ++holding_;
        const uint64_t generation = release_generation_;
        released_.wait(lock, [&] { return release_generation_ != generation; });
        --holding_;
      }
    }
    // Simulated work, outside the lock so other requests go on.
    if (reply.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
    std::unique_lock<std::mutex> lock(mu_);
    if (!key.empty()) in_flight_.erase(key);
    if (!reply.retry_after.empty()) res.set_header("Retry-After", reply.retry_after);
    if (reply.status < 200 || reply.status > 299) {
      Answer(res, call, reply.status, R"({"ok":false})", "");
      return;
    }
    const std::string ref = "eff_" + std::to_string(++effects_);
    const std::string body = json{{"ok", true}, {"ref", ref}}.dump();
    call["effect"] = ref;
    if (!key.empty()) saved_[key] = Saved{reply.status, body, ref, digest};
    Answer(res, call, reply.status, body, ref);
    if (reply.late_ms > 0) {
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(reply.late_ms));
    }
  }

  void Lookup(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    ++lookups_;
    const std::string key = req.get_param_value("key");
    if (auto saved = saved_.find(key); saved != saved_.end()) {
      res.set_content(json{{"result_ref", saved->second.ref}}.dump(), "application/json");
    } else if (in_flight_.count(key) != 0) {
      res.status = 409;
      res.set_content(R"({"status":"in_progress"})", "application/json");
    } else {
      res.status = 404;
      res.set_content(R"({"status":"not_found"})", "application/json");
    }
  }

  void Control(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string what = req.path.substr(std::strlen("/_control/"));
    try {
      if (req.method == "POST" && what == "script") {
        for (const auto& r : json::parse(req.body)) script_.push_back(ReplyFrom(r));
      } else if (req.method == "POST" && what == "default") {
        default_ = ReplyFrom(json::parse(req.body));
      } else if (req.method == "POST" && what == "release") {
        ++release_generation_;
        released_.notify_all();
      } else if (req.method == "GET" && what == "calls") {
        res.set_content(calls_.dump(), "application/json");
        return;
      } else if (req.method == "GET" && what == "stats") {
        json stats = {{"calls", stats_calls_},   {"effects", effects_},       {"replays", replays_},
                      {"in_use", in_use_},        {"mismatches", mismatches_}, {"holding", holding_},
                      {"keys", saved_.size()},    {"script_left", script_.size()},
                      {"lookups", lookups_}};
        res.set_content(stats.dump(), "application/json");
        return;
      } else {
        res.status = 404;
        return;
      }
    } catch (const json::exception& e) {
      res.status = 400;
      res.set_content(e.what(), "text/plain");
      return;
    }
    res.set_content(R"({"ok":true})", "application/json");
  }

 private:
  // Caller holds mu_.
  void Answer(httplib::Response& res, json& call, int status, const std::string& body, const std::string& ref) {
    res.status = status;
    if (!ref.empty()) res.set_header("X-Ref", ref);
    res.set_content(body, "application/json");
    call["status"] = status;
    if (!quiet_) calls_.push_back(std::move(call));
  }

  const bool quiet_;
  const bool dedup_;
  std::mutex mu_;
  std::condition_variable released_;
  uint64_t release_generation_ = 0;
  std::deque<Reply> script_;
  Reply default_;
  std::map<std::string, Saved> saved_;
  std::set<std::string> in_flight_;
  json calls_ = json::array();
  int64_t stats_calls_ = 0, effects_ = 0, replays_ = 0, in_use_ = 0, mismatches_ = 0, holding_ = 0, lookups_ = 0;
};

}  // namespace

// The library's listening socket is protected; the accept backlog it sets
// (5) is raised after bind, as the product does (src/http/server.cpp).
class BacklogServer : public httplib::Server {
 public:
  void RaiseBacklog(int backlog) { ::listen(svr_sock_, backlog); }
};

int main(int argc, char** argv) {
  int port = 0;
  bool quiet = false, dedup = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
      port = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else if (std::strcmp(argv[i], "--no-dedup") == 0) {
      dedup = false;
    } else {
      std::fprintf(stderr, "usage: test_downstream [--port N] [--quiet] [--no-dedup]\n");
      return 2;
    }
  }
  Downstream downstream(quiet, dedup);
  BacklogServer server;
  // A fast downstream for benchmarks: no Nagle stall between the answer's
  // header and body writes.
  server.set_tcp_nodelay(true);
  // Held requests each keep a thread; 16 workers plus holds must not starve it.
  server.new_task_queue = [] { return new httplib::ThreadPool(128); };
  server.set_keep_alive_max_count(100000);
  server.Post("/_control/.*", [&](const auto& req, auto& res) { downstream.Control(req, res); });
  server.Get("/_control/.*", [&](const auto& req, auto& res) { downstream.Control(req, res); });
  server.Get("/lookup", [&](const auto& req, auto& res) { downstream.Lookup(req, res); });
  server.Post(".*", [&](const auto& req, auto& res) { downstream.Effect(req, res); });
  const bool bound = port == 0 ? (port = server.bind_to_any_port("127.0.0.1")) > 0
                               : server.bind_to_port("127.0.0.1", port);
  if (!bound) {
    std::fprintf(stderr, "test_downstream: cannot bind 127.0.0.1:%d\n", port);
    return 1;
  }
  server.RaiseBacklog(1024);  // the library listens with 5: a burst of new connections would be reset
  // Bound and listening already: connections made from now on queue.
  std::printf("listening port=%d\n", port);
  std::fflush(stdout);
  return server.listen_after_bind() ? 0 : 1;
}
