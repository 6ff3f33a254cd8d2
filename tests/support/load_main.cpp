// tests/support/load_main.cpp — the load generator of the crash test, the
// load test and bench/: signed deliveries over HTTPS keep-alive, a ledger of
// every answer, and samples of the server's RSS and open fds.
//
//   test_load --url https://127.0.0.1:P/hooks/demo --secret-file F --ca CERT
//             [--connections 8] [--deliveries 1000] [--duplicates 0.10] [--conflicts 0.02]
//             [--id-prefix load] [--ledger OUT.jsonl] [--rate 0] [--seed 1]
//             [--server-pid PID --sample-every K] [--retry-unanswered] [--retry-for 120]
//             [--body-bytes 0]
//   test_load --write-corpus FILE --secret-file F [--peer-secret-file F2]
//             [--deliveries N] [--duplicates F] [--conflicts F] [--id-prefix P] [--seed N] [--body-bytes 1024]
//
// Delivery i is one of: a new event (id PREFIX-i), a duplicate (the same body
// as a recent new event), or a conflict (a recent new event's id with another
// body). The choice is a hash of (seed, i), so a run is reproducible. Bodies
// are canonical JSON (sorted keys, no whitespace, integers only), so the
// SHA-256 of the bytes sent is the payload_hash the server stores (SPEC §9
// "Hashing"), and the ledger's body_hash can be compared with the database.
// Signed like the demo endpoint: X-Timestamp, and X-Signature
// "sha256=" + hex HMAC-SHA256 of "{timestamp}.{body}".
//
// The ledger has one JSON line per answer, and one per attempt that got no
// answer (status 0): {"i","id","body_hash","status","outcome","inbox_id","ms"}
// and, with --server-pid, sample lines {"sample","done","t_s","rss_kb","fds"}.
// It never holds a secret, a signature or a body.
//
// The run has two phases: the first 10 % (the warm-up) and the rest. After
// each phase every connection is closed, and the server's RSS and fds are
// read at that quiescent point (fds_warm, fds_end), so open client
// connections never count. With --retry-unanswered a delivery that got no
// answer, or a 5xx/429, is sent again (same body, new connection) until it is
// answered or --retry-for seconds pass: the way a provider retries.
// SIGTERM/SIGINT stop issuing new deliveries; those in flight still finish.
//
// At the end it prints one "sample k=v …" line per sample, a "summary k=v …"
// line (statuses_200=…, outcomes_accepted=…), and last the summary as JSON:
// deliveries, seconds, rate, p50_ms, p99_ms, max_ms, statuses, outcomes,
// unique_ids, unanswered, and with --server-pid rss_{start,warm,end,max}_kb,
// fds_{start,warm,end}.
// Exit: 0 when every delivery issued was answered (not 5xx), 1 otherwise, 2 on usage.
//
// --body-bytes B pads each body to exactly B bytes with a "pad" key (still
// canonical: "pad" sorts between "id" and "type"); a body already longer
// is sent as it is; 0 (the default) sends the short body as before.
//
// --write-corpus FILE sends nothing: it writes the plan of --deliveries
// deliveries to FILE for bench/ (bench/corpus.lua replays it with wrk), one
// fixed-length line per delivery, so a reader can seek to record k:
//   TIMESTAMP \t SIG \t HUB_SIG \t EVENT \t BODY \n
// TIMESTAMP is the Unix time at writing (10 digits); SIG is the demo
// endpoint's hex HMAC-SHA256 of "{timestamp}.{body}" with --secret-file;
// HUB_SIG is the hex HMAC-SHA256 of the body with --peer-secret-file (the
// X-Hub-Signature-256 scheme of adnanh/webhook; zeros without that flag);
// EVENT is the index of the event whose id the body carries, 10 digits (a
// duplicate repeats its original's EVENT and body, a conflict its EVENT with
// another body). --body-bytes defaults to 1024 here; every body must fit
// it. The file holds signatures and bodies: bench/ keeps it in its scratch
// dir and never prints it.
#include <dirent.h>
#include <httplib.h>
#include <openssl/sha.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/openssl_hmac.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::atomic<bool> g_stop{false};
extern "C" void OnStop(int) { g_stop.store(true); }

struct Options {
  std::string host, path, secret, ca, id_prefix = "load", ledger, corpus, peer_secret;
  int port = 0, connections = 8, server_pid = 0;
  int64_t deliveries = 1000, sample_every = 0, body_bytes = -1;  // -1: the mode's default
  double duplicates = 0.10, conflicts = 0.02, rate = 0, retry_for_s = 120;
  uint64_t seed = 1;
  bool retry_unanswered = false;
};

std::string Hex(const unsigned char* p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

std::string Sha256Hex(const std::string& data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return Hex(out, sizeof out);
}

std::string HmacHex(const std::string& key, const std::string& data) {
  std::string mac = hookinbox::testing::OpensslHmac(EVP_sha256(), key, data);
  return Hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
}

// splitmix64: a well-mixed 64-bit hash of (seed, i), so the plan needs no shared RNG.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// What delivery i sends.
class Plan {
 public:
  explicit Plan(const Options& o) : o_(o) {}
  struct Delivery {
    int64_t event;  // the index whose id this delivery carries
    int variant;    // 0 = the event's original body, > 0 = a conflicting body
    std::string id, body;
  };
  bool IsNew(int64_t i) const { return Kind(i) == 0; }
  Delivery At(int64_t i) const {
    Delivery d{i, 0, "", ""};
    const int kind = Kind(i);
    if (kind != 0) {
      // A recent new event: duplicates and conflicts arrive close to the original, often concurrently.
      d.event = std::max<int64_t>(0, i - 1 - static_cast<int64_t>(Mix(o_.seed * 7 + i) % 64));
      while (d.event > 0 && !IsNew(d.event)) --d.event;
      if (kind == 2) d.variant = 1 + static_cast<int>(Mix(o_.seed * 13 + i) % 7);
    }
    d.id = o_.id_prefix + "-" + std::to_string(d.event);
    // Canonical JSON: keys sorted, no whitespace, integers (see the file comment).
    const std::string head = R"({"amount":)" + std::to_string(100 + d.event) + R"(,"id":")" + d.id + R"(")";
    const std::string tail = R"(,"type":"load.test","v":)" + std::to_string(d.variant) + "}";
    d.body = head + tail;
    // Padding keeps the keys sorted ("pad" < "type"), so the body stays canonical.
    const int64_t pad = o_.body_bytes - static_cast<int64_t>(head.size() + tail.size() + 9);  // ,"pad":""
    if (o_.body_bytes > 0 && pad >= 0) d.body = head + R"(,"pad":")" + std::string(pad, 'x') + "\"" + tail;
    return d;
  }

 private:
  // 0 new, 1 duplicate, 2 conflict. Index 0 is always new, so every reference has a target.
  int Kind(int64_t i) const {
    if (i == 0) return 0;
    const double u = static_cast<double>(Mix(o_.seed * 1000003 + i) >> 11) / 9007199254740992.0;  // [0,1)
    if (u < o_.duplicates) return 1;
    return u < o_.duplicates + o_.conflicts ? 2 : 0;
  }
  const Options& o_;
};

long RssKb(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

int OpenFds(int pid) {
  DIR* d = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (::readdir(d) != nullptr) ++n;
  ::closedir(d);
  return n - 2;  // . and ..
}

// Shared by the connection threads: the ledger file, counters, latencies.
class Run {
 public:
  explicit Run(const Options& o) : o_(o), plan_(o), t0_(Clock::now()) {
    if (!o.ledger.empty()) ledger_.open(o.ledger, std::ios::trunc);
  }
  const Plan& plan() const { return plan_; }
  // The next delivery index below `end`, or -1: never skips one, so phases join up.
  int64_t Take(int64_t end) {
    int64_t i = next_.load();
    while (i < end && !next_.compare_exchange_weak(i, i + 1)) {
    }
    return i < end ? i : -1;
  }
  int64_t issued() const { return std::min<int64_t>(next_.load(), o_.deliveries); }
  double Seconds() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }

  // With --rate, delivery i starts no earlier than t0 + i/rate (a late start catches up at once).
  void Pace(int64_t i) const {
    if (o_.rate <= 0) return;
    const std::chrono::duration<double> offset(static_cast<double>(i) / o_.rate);
    std::this_thread::sleep_until(t0_ + std::chrono::duration_cast<Clock::duration>(offset));
  }

  void Record(int64_t i, const Plan::Delivery& d, const std::string& hash, int status, const std::string& body,
              double ms) {
    json line{{"i", i}, {"id", d.id}, {"body_hash", hash}, {"status", status}, {"outcome", ""}, {"inbox_id", 0}};
    if (status != 0) {
      // The answer is {"status":"accepted|duplicate|conflict","id":N,…}; never copied whole.
      json answer = json::parse(body, nullptr, false);
      if (answer.is_object()) {
        line["outcome"] = answer.value("status", "");
        line["inbox_id"] = answer.value("id", int64_t{0});
      }
      line["ms"] = ms;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++statuses_[std::to_string(status)];
    if (status != 0) {
      const std::string outcome = line["outcome"];
      ++outcomes_[outcome.empty() ? "none" : outcome];
    }
    if (status != 0) latencies_.push_back(ms);
    if (ledger_.is_open()) ledger_ << line.dump() << "\n";
  }
  void Finished(bool answered) {
    if (!answered) ++unanswered_;
    const int64_t done = ++done_;
    if (o_.server_pid > 0 && o_.sample_every > 0 && done % o_.sample_every == 0) Sample("load");
  }
  json Sample(const std::string& when) {
    json s{{"sample", when},       {"done", done_.load()},           {"t_s", Seconds()},
           {"rss_kb", RssKb(o_.server_pid)}, {"fds", OpenFds(o_.server_pid)}};
    std::lock_guard<std::mutex> lock(mu_);
    samples_.push_back(s);
    if (ledger_.is_open()) ledger_ << s.dump() << "\n";
    return s;
  }
  json Summary(double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    std::sort(latencies_.begin(), latencies_.end());
    auto pct = [&](double p) {
      return latencies_.empty() ? 0.0 : latencies_[std::min(latencies_.size() - 1, size_t(p * latencies_.size()))];
    };
    int64_t unique = 0;
    for (int64_t i = 0; i < issued(); ++i) unique += plan_.IsNew(i) ? 1 : 0;
    if (ledger_.is_open()) ledger_.flush();
    return json{{"deliveries", done_.load()}, {"seconds", seconds},
                {"rate", seconds > 0 ? done_.load() / seconds : 0},
                {"p50_ms", pct(0.50)}, {"p99_ms", pct(0.99)}, {"max_ms", pct(1.0)},
                {"statuses", statuses_}, {"outcomes", outcomes_}, {"unique_ids", unique},
                {"unanswered", unanswered_.load()}};
  }
  json samples() {
    std::lock_guard<std::mutex> lock(mu_);
    return samples_;
  }

 private:
  const Options& o_;
  Plan plan_;
  const Clock::time_point t0_;
  std::atomic<int64_t> next_{0}, done_{0}, unanswered_{0};
  std::mutex mu_;  // guards everything below
  std::ofstream ledger_;
  std::map<std::string, int64_t> statuses_, outcomes_;
  std::vector<double> latencies_;
  json samples_ = json::array();
};

std::unique_ptr<httplib::SSLClient> Connect(const Options& o) {
  auto cli = std::make_unique<httplib::SSLClient>(o.host, o.port);
  cli->set_ca_cert_path(o.ca.c_str());
  cli->enable_server_certificate_verification(true);
  cli->set_keep_alive(true);
  // Without it httplib writes headers and body apart, and Nagle + delayed ACK add ~40 ms a request.
  cli->set_tcp_nodelay(true);
  cli->set_connection_timeout(2, 0);
  cli->set_read_timeout(30, 0);
  return cli;
}

bool Retryable(int status) { return status == 0 || status == 429 || status >= 500; }

// Sends one delivery until it is answered (or once, without --retry-unanswered).
void Deliver(const Options& o, Run& run, std::unique_ptr<httplib::SSLClient>& cli, int64_t i) {
  const Plan::Delivery d = run.plan().At(i);
  const std::string hash = Sha256Hex(d.body);
  const auto deadline = Clock::now() + std::chrono::duration<double>(o.retry_for_s);
  for (int tries = 0;; ++tries) {
    const std::string ts = std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    httplib::Headers headers{{"X-Timestamp", ts}, {"X-Signature", "sha256=" + HmacHex(o.secret, ts + "." + d.body)}};
    const auto start = Clock::now();
    auto res = cli->Post(o.path.c_str(), headers, d.body, "application/json");
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    const int status = res ? res->status : 0;
    run.Record(i, d, hash, status, res ? res->body : "", ms);
    const bool again = o.retry_unanswered && Retryable(status) && Clock::now() < deadline;
    if (!again) return run.Finished(!Retryable(status));
    // A fresh connection: the old one may be half-written into a killed server.
    cli = Connect(o);
    // Back off a little (capped), as a provider would; the server may be restarting.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10 * (tries + 1), 200)));
  }
}

// Runs deliveries [.., end) over `connections` fresh keep-alive connections;
// returns once every thread has closed its connection.
void Phase(const Options& o, Run& run, int64_t end) {
  std::vector<std::thread> threads;
  for (int c = 0; c < o.connections; ++c) {
    threads.emplace_back([&] {
      auto cli = Connect(o);
      for (;;) {
        if (g_stop.load()) return;
        const int64_t i = run.Take(end);
        if (i < 0) return;
        run.Pace(i);
        Deliver(o, run, cli, i);
      }
    });
  }
  for (auto& t : threads) t.join();
}

// A quiescent reading: the client connections are closed; wait (bounded)
// until the server's fd count stops moving, so half-closed sockets settle.
json QuiescentSample(Run& run, const std::string& when, const Options& o) {
  int last = OpenFds(o.server_pid);
  for (int n = 0; n < 30; ++n) {  // at most 3 s
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int now = OpenFds(o.server_pid);
    if (now == last) break;
    last = now;
  }
  return run.Sample(when);
}

bool ParseUrl(const std::string& url, Options& o) {
  const std::string scheme = "https://";
  if (url.rfind(scheme, 0) != 0) return false;
  const size_t slash = url.find('/', scheme.size());
  const std::string authority = url.substr(scheme.size(), slash - scheme.size());
  const size_t colon = authority.rfind(':');
  if (colon == std::string::npos || slash == std::string::npos) return false;
  o.host = authority.substr(0, colon);
  o.port = std::atoi(authority.substr(colon + 1).c_str());
  o.path = url.substr(slash);
  return o.port > 0;
}

// The first line of a secret file, without trailing CR or blanks ("" when unreadable).
std::string ReadSecret(const std::string& path) {
  std::ifstream in(path);
  std::string secret;
  std::getline(in, secret);
  while (!secret.empty() && (secret.back() == '\r' || secret.back() == ' ')) secret.pop_back();
  return secret;
}

// --write-corpus: the plan as fixed-length records (see the file comment).
// Returns the exit code.
int WriteCorpus(const Options& o) {
  const Plan plan(o);
  const std::string ts = std::to_string(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  std::FILE* f = std::fopen(o.corpus.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "test_load: cannot write %s\n", o.corpus.c_str());
    return 1;
  }
  std::string line;
  for (int64_t i = 0; i < o.deliveries; ++i) {
    const Plan::Delivery d = plan.At(i);
    if (static_cast<int64_t>(d.body.size()) != o.body_bytes || ts.size() != 10) {
      std::fprintf(stderr, "test_load: delivery %lld does not fit --body-bytes %lld\n", static_cast<long long>(i),
                   static_cast<long long>(o.body_bytes));
      std::fclose(f);
      return 1;
    }
    char event[16];
    std::snprintf(event, sizeof event, "%010lld", static_cast<long long>(d.event));
    line = ts + "\t" + HmacHex(o.secret, ts + "." + d.body) + "\t" +
           (o.peer_secret.empty() ? std::string(64, '0') : HmacHex(o.peer_secret, d.body)) + "\t" + event + "\t" +
           d.body + "\n";
    std::fwrite(line.data(), 1, line.size(), f);
  }
  const bool ok = std::fclose(f) == 0;
  std::printf("test_load: wrote %lld records of %zu bytes to the corpus\n", static_cast<long long>(o.deliveries),
              line.size());
  return ok ? 0 : 1;
}

std::optional<Options> ParseArgs(int argc, char** argv) {
  Options o;
  std::string url, secret_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--url") url = value();
    else if (a == "--secret-file") secret_file = value();
    else if (a == "--ca") o.ca = value();
    else if (a == "--connections") o.connections = std::atoi(value().c_str());
    else if (a == "--deliveries") o.deliveries = std::atoll(value().c_str());
    else if (a == "--duplicates") o.duplicates = std::atof(value().c_str());
    else if (a == "--conflicts") o.conflicts = std::atof(value().c_str());
    else if (a == "--id-prefix") o.id_prefix = value();
    else if (a == "--ledger") o.ledger = value();
    else if (a == "--rate") o.rate = std::atof(value().c_str());
    else if (a == "--seed") o.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--server-pid") o.server_pid = std::atoi(value().c_str());
    else if (a == "--sample-every") o.sample_every = std::atoll(value().c_str());
    else if (a == "--retry-unanswered") o.retry_unanswered = true;
    else if (a == "--retry-for") o.retry_for_s = std::atof(value().c_str());
    else if (a == "--body-bytes") o.body_bytes = std::atoll(value().c_str());
    else if (a == "--write-corpus") o.corpus = value();
    else if (a == "--peer-secret-file") o.peer_secret = ReadSecret(value());
    else return std::nullopt;
  }
  o.secret = ReadSecret(secret_file);
  const bool writing = !o.corpus.empty();
  if (o.body_bytes < 0) o.body_bytes = writing ? 1024 : 0;
  const bool ok = (writing || (ParseUrl(url, o) && !o.ca.empty())) && !o.secret.empty() && o.connections > 0 &&
                  o.deliveries > 0 && o.duplicates >= 0 && o.conflicts >= 0 && o.duplicates + o.conflicts < 1;
  if (!ok) return std::nullopt;
  return o;
}

// "NAME k=v k=v …" from a flat JSON object; nested objects become k_subkey=v.
std::string KeyValues(const std::string& name, const json& object) {
  std::string out = name;
  for (const auto& [k, v] : object.items()) {
    if (v.is_object()) {
      for (const auto& [sub, n] : v.items()) out += " " + k + "_" + sub + "=" + n.dump();
    } else {
      out += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = ParseArgs(argc, argv);
  if (!options) {
    std::fprintf(stderr,
                 "usage: test_load --url https://HOST:PORT/PATH --secret-file F --ca CERT [--connections N]\n"
                 "       [--deliveries N] [--duplicates F] [--conflicts F] [--id-prefix P] [--ledger OUT.jsonl]\n"
                 "       [--rate PER_S] [--seed N] [--server-pid PID --sample-every K] [--retry-unanswered]\n"
                 "       [--retry-for S] [--body-bytes B]   (the secret file must be readable and non-empty)\n"
                 "   or: test_load --write-corpus FILE --secret-file F [--peer-secret-file F2] [--deliveries N]\n"
                 "       [--duplicates F] [--conflicts F] [--id-prefix P] [--seed N] [--body-bytes 1024]\n");
    return 2;
  }
  const Options& o = *options;
  if (!o.corpus.empty()) return WriteCorpus(o);
  std::signal(SIGPIPE, SIG_IGN);  // a killed server must not kill the client mid-write
  std::signal(SIGTERM, OnStop);
  std::signal(SIGINT, OnStop);

  Run run(o);
  json start, warm, end;
  if (o.server_pid > 0) start = run.Sample("start");
  Phase(o, run, std::max<int64_t>(1, o.deliveries / 10));  // the warm-up: the first 10 %
  const double warm_done = run.Seconds();
  if (o.server_pid > 0) warm = QuiescentSample(run, "warm", o);
  const double paused = run.Seconds() - warm_done;  // not counted in the rate
  Phase(o, run, o.deliveries);
  const double seconds = run.Seconds() - paused;
  if (o.server_pid > 0) end = QuiescentSample(run, "end", o);

  json summary = run.Summary(seconds);
  if (o.server_pid > 0) {
    long rss_max = 0;
    for (const json& s : run.samples()) rss_max = std::max(rss_max, s["rss_kb"].get<long>());
    summary.update(json{{"rss_start_kb", start["rss_kb"]}, {"rss_warm_kb", warm["rss_kb"]},
                        {"rss_end_kb", end["rss_kb"]},     {"rss_max_kb", rss_max},
                        {"fds_start", start["fds"]},       {"fds_warm", warm["fds"]},
                        {"fds_end", end["fds"]}});
  }
  std::printf("test_load: %lld deliveries in %.1f s = %.0f/s, p50 %.2f ms, p99 %.2f ms, unanswered %lld\n",
              static_cast<long long>(summary["deliveries"].get<int64_t>()), seconds,
              summary["rate"].get<double>(), summary["p50_ms"].get<double>(), summary["p99_ms"].get<double>(),
              static_cast<long long>(summary["unanswered"].get<int64_t>()));
  // For shell scripts without a JSON parser: "key=value" lines, then the JSON.
  for (const json& sample : run.samples()) std::printf("%s\n", KeyValues("sample", sample).c_str());
  std::printf("%s\n", KeyValues("summary", summary).c_str());
  std::printf("%s\n", summary.dump().c_str());
  return summary["unanswered"].get<int64_t>() == 0 ? 0 : 1;
}
