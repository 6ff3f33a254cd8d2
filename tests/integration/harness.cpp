#include "harness.h"

#include <fcntl.h>
#include <grp.h>
#include <httplib.h>
#include <openssl/hmac.h>
#include <signal.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "support/pg_schema.h"

namespace hookinbox::testing {

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

namespace {
std::string FromEnvOr(const char* name, const char* built_in) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : built_in;
}
}  // namespace

std::string BinaryPath() { return FromEnvOr("HOOKINBOX_TEST_BINARY", HOOKINBOX_BINARY); }
std::string DownstreamPath() { return FromEnvOr("HOOKINBOX_TEST_DOWNSTREAM", HOOKINBOX_TEST_DOWNSTREAM); }

bool PollUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() > deadline) return condition();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // poll interval, bounded by the deadline
  }
}

std::string HmacSha256Hex(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[mac[i] >> 4]);
    out.push_back(kHex[mac[i] & 15]);
  }
  return out;
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

static std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

static void RegisterBody(const std::string& body);  // below, with the suite log

namespace {

// The PostgreSQL URL of this test run (env HOOKINBOX_TEST_PG_URL), or "" for SQLite.
std::string TestPostgresUrl() {
  const char* url = std::getenv("HOOKINBOX_TEST_PG_URL");
  return url != nullptr ? url : "";
}

// psql in sqlite3's output shape: no psqlrc, unaligned, no headers or
// footers, '|' between columns, no command tags ("INSERT 0 1"), and a
// non-zero exit on the first error. The URL is single-quoted for the shell
// (it holds '&' and '%'); test URLs hold no single quote.
std::string Psql(const std::string& url) { return "psql -X -A -t -q -F '|' -v ON_ERROR_STOP=1 '" + url + "'"; }

// SQLite's group_concat and ifnull for the queries tests pass to Sql(), so
// most of them read the same on both backends. They live in a schema of
// their own that only the harness's psql sessions search: the server's
// schema holds nothing the product did not create. Results come out as
// sqlite3 prints them (NULLs skipped, ',' by default; ifnull of a number and
// a text gives text, as '-' or 'null' placeholders need).
constexpr const char* kSqliteCompat = R"(
CREATE FUNCTION gc_step(acc text, v text, sep text) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v ELSE acc || sep || v END $$;
CREATE FUNCTION gc_step(acc text, v text) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT gc_step(acc, v, ',') $$;
CREATE FUNCTION gc_step(acc text, v bigint) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT gc_step(acc, v::text, ',') $$;
CREATE AGGREGATE group_concat(text, text) (SFUNC = gc_step, STYPE = text);
CREATE AGGREGATE group_concat(text) (SFUNC = gc_step, STYPE = text);
CREATE AGGREGATE group_concat(bigint) (SFUNC = gc_step, STYPE = text);
CREATE FUNCTION ifnull(text, text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce($1, $2) $$;
CREATE FUNCTION ifnull(bigint, text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce($1::text, $2) $$;
CREATE FUNCTION ifnull(bigint, bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce($1, $2) $$;
)";

}  // namespace

Installation::Installation() {
  auto r = RunCommand(BinaryPath() + " init " + dir_.path() + " 2>&1");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(dir_.File("secrets/demo.secret"));
  std::getline(in, secret_);
  REQUIRE(secret_.size() == 64);
  RegisterLeakMarker(secret_);
  if (const std::string base = TestPostgresUrl(); !base.empty()) {
    pg_schema_ = UniqueSchemaName("it_");
    // Through a file: the function bodies' $$ and $1 must not meet a shell.
    const std::string setup = dir_.Write("pg_setup.sql", "CREATE SCHEMA " + pg_schema_ + "; CREATE SCHEMA " +
                                                            pg_schema_ + "_compat; SET search_path = " + pg_schema_ +
                                                            "_compat;" + kSqliteCompat);
    auto created = RunCommand(Psql(base) + " -1 -f " + setup + " 2>&1");
    INFO(created.out);
    REQUIRE(created.exit_code == 0);
    pg_url_ = WithSearchPath(base, pg_schema_);
    MigratePostgres();
  }
}

// `init` created the SQLite file with its schema; on PostgreSQL the schema
// is created the same way serve would, by opening the store once (`stats`
// on init's own config pointed at this schema), so tests that read tables
// before any server ran find them, as they do in the .db.
void Installation::MigratePostgres() const {
  std::string toml = ReadFile(config_path());
  const std::string sqlite_line = "path = \"data/hookinbox.db\"\n";
  const size_t at = toml.find(sqlite_line);
  REQUIRE(at != std::string::npos);
  toml.replace(at, sqlite_line.size(), StorageLines());
  const std::string config = dir_.Write("pg_migrate.toml", toml);
  auto migrated = RunCommand(BinaryPath() + " stats -c " + config + " 2>&1");
  INFO(migrated.out);
  REQUIRE(migrated.exit_code == 0);
}

Installation::~Installation() {
  if (pg_schema_.empty()) return;
  RunCommand(Psql(TestPostgresUrl()) + " -c 'SET client_min_messages = warning' -c 'DROP SCHEMA " + pg_schema_ +
             ", " + pg_schema_ + "_compat CASCADE' >/dev/null 2>&1");
}

// The psql session of Sql() and SqlWrite(): this installation's schema, then
// the compat functions; BYTEA printed as its text where printable (a JSON
// payload reads as sqlite3 prints the BLOB), not as \x hex.
std::string Installation::PsqlSession() const {
  return Psql(pg_url_) + " -c 'SET search_path = " + pg_schema_ + ", " + pg_schema_ +
         "_compat' -c 'SET bytea_output = escape'";
}

std::string Installation::StorageLines() const {
  if (postgres()) return "backend = \"postgres\"\nurl = \"" + pg_url_ + "\"\n";
  return "path = \"data/hookinbox.db\"\n";
}

void Installation::WriteConfig(const std::string& toml) const { dir_.Write("hookinbox.toml", toml); }

void Installation::WriteTestConfig(const std::string& extra, const std::string& server_extra,
                                   const std::string& storage_extra, const std::string& admin_extra) const {
  WriteConfig(R"([server]
listen = "127.0.0.1:0"
tls_cert = "tls/cert.pem"
tls_key = "tls/key.pem"
max_body_bytes = 65536
)" + server_extra + R"(
[admin]
listen = "127.0.0.1:0"
)" + admin_extra + R"(
[storage]
)" + StorageLines() + storage_extra + "\n" + DemoLikeEndpoint("demo") + extra);
}

const char* const kDemoSignatureTables = R"(
[endpoint.signature]
header = "X-Signature"
format = "sha256={signature}"
signed_payload = "{timestamp}.{body}"
timestamp_header = "X-Timestamp"
tolerance_seconds = 300

[endpoint.key]
id_pointer = "/id"
event_type_pointer = "/type"
)";

std::string DemoLikeEndpoint(const std::string& name, const std::string& table_extra) {
  return "\n[[endpoint]]\nname = \"" + name + "\"\nprovider = \"generic\"\n" + table_extra +
         "secret_file = \"secrets/demo.secret\"\n" + kDemoSignatureTables;
}

std::string PresetEndpoint(const std::string& name, const std::string& provider, const std::string& secret,
                           const std::string& tables) {
  std::string var = "HOOKINBOX_IT_" + name + "_SECRET";
  for (char& c : var) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ::setenv(var.c_str(), secret.c_str(), 1);
  return "\n[[endpoint]]\nname = \"" + name + "\"\nprovider = \"" + provider + "\"\nsecret_env = \"" + var + "\"\n" +
         tables;
}

std::string Installation::SignedRequest(const std::string& path, const std::string& body) const {
  std::string ts = std::to_string(NowSeconds());
  RegisterLeakMarker(HmacSha256Hex(secret_, ts + "." + body));
  RegisterBody(body);
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
         "X-Timestamp: " + ts + "\r\nX-Signature: sha256=" + HmacSha256Hex(secret_, ts + "." + body) +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string SuiteLogDir() { return FromEnvOr("HOOKINBOX_TEST_LOG_DIR", HOOKINBOX_SUITE_LOG_DIR); }

void AppendSuiteLog(const std::string& text) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::ofstream out(SuiteLogDir() + "/integration-" + std::to_string(::getpid()) + ".log", std::ios::app);
  out << text;
}

// Markers are stored hex-encoded, one per line, so a body with a newline is one marker.
void RegisterLeakMarker(const std::string& marker) {
  if (marker.empty()) return;
  static std::mutex mu;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(mu);
  if (!seen.insert(marker).second) return;
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : marker) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  std::ofstream out(SuiteLogDir() + "/integration-markers-" + std::to_string(::getpid()) + ".txt", std::ios::app);
  out << hex << "\n";
}

// Bodies shorter than this are not markers: "{}" or "x" also occur in
// legitimate log lines, and a short body is no payload worth hiding.
static void RegisterBody(const std::string& body) {
  if (body.size() >= 24) RegisterLeakMarker(body);
}

void ServerProcess::ArchiveLog() {
  if (archived_) return;
  archived_ = true;
  AppendSuiteLog(ReadFile(log_path_));
}

std::string Installation::Sql(const std::string& query) const {
  if (postgres()) {
    auto r = RunCommand(PsqlSession() + " -c 'SET default_transaction_read_only = on' -c \"" + query + "\" 2>&1");
    return Trim(r.out);
  }
  auto r = RunCommand("sqlite3 -readonly " + db_path() + " \"" + query + "\" 2>&1");
  return Trim(r.out);
}

void Installation::SqlWrite(const std::string& query) const {
  const std::string command = postgres() ? PsqlSession() + " -c \"" + query + "\" 2>&1"
                                         : "sqlite3 -cmd '.timeout 5000' " + db_path() + " \"" + query + "\" 2>&1";
  auto w = RunCommand(command);
  INFO(w.out);
  REQUIRE(w.exit_code == 0);
}

RunningServer::RunningServer() {
  inst.WriteTestConfig();
  server.Start();
}

CommandResult RunningServer::Cli(const std::string& args) const {
  return RunCommand(BinaryPath() + " " + args + " -c " + inst.config_path() + " 2>&1");
}

int64_t RunningServer::Deliver(const std::string& id) const {
  auto r = server.PostSigned("/hooks/demo", R"({"id":")" + id + R"(","type":"invoice.paid","data":{}})");
  REQUIRE(r.status == 200);
  return nlohmann::json::parse(r.body).at("id").get<int64_t>();
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  ArchiveLog();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Sanitized(pid_t pid) {
  const std::string maps = ReadFile("/proc/" + std::to_string(pid) + "/maps");
  return maps.find("libasan") != std::string::npos || maps.find("libtsan") != std::string::npos;
}

int64_t ProcStatusKb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  const std::string prefix = field + ":";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size()));
  }
  return -1;
}

std::string ServerProcess::log() const { return ReadFile(log_path_); }

// The port of the {"event":"admin_listening","url":"http://HOST:PORT"} line
// (logged just before "listening"); 0 when absent.
static int AdminPortIn(const std::string& log) {
  const std::string marker = R"("event":"admin_listening","url":")";
  size_t at = log.find(marker);
  if (at == std::string::npos) return 0;
  size_t end = log.find_first_of("\"\n", at + marker.size());
  std::string url = log.substr(at + marker.size(), end == std::string::npos ? std::string::npos : end - at - marker.size());
  size_t colon = url.rfind(':');
  if (colon == std::string::npos) return 0;
  try {
    return std::stoi(url.substr(colon + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

bool ServerProcess::TryStart() {
  TryStartAsync();
  static const std::regex kListening(R"re("event":"listening","url":"(https?)://[^"]*:(\d+)")re");
  return PollUntil(
      [&] {
        std::smatch m;
        std::string text = log();
        if (!std::regex_search(text, m, kListening)) return false;
        tls_ = m[1] == "https";
        port_ = std::stoi(m[2]);
        admin_port_ = AdminPortIn(text);
        return true;
      },
      std::chrono::seconds(30));
}

int ServerProcess::NextServerNumber() {
  static std::atomic<int> next{0};
  return ++next;
}

void ServerProcess::TryStartAsync() {
  ArchiveLog();  // the previous run's log, before this run gets a new file
  // Named by process and start: several servers may share one Installation (replicas_test.cpp).
  log_path_ = inst_.dir() + "/serve-" + std::to_string(number_) + "-" + std::to_string(++starts_) + ".log";
  archived_ = false;
  // Signals stay blocked across fork until the child dropped the test
  // binary's handlers, so a SIGTERM sent at once reaches hookinbox's defaults.
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &previous);
  pid_ = ::fork();
  if (pid_ == 0) {
    if (run_as_ && (::setgroups(0, nullptr) != 0 || ::setgid(run_as_->second) != 0 || ::setuid(run_as_->first) != 0)) {
      ::_exit(126);
    }
    // After setuid, which clears it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test binary
    for (int sig : {SIGTERM, SIGINT, SIGSEGV, SIGABRT, SIGILL, SIGFPE, SIGPIPE}) ::signal(sig, SIG_DFL);
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    for (const auto& [name, value] : env_) ::setenv(name.c_str(), value.c_str(), 1);
    std::string bin = BinaryPath(), cfg = inst_.config_path();
    std::vector<char*> argv{bin.data(), const_cast<char*>("serve"), const_cast<char*>("-c"), cfg.data()};
    for (std::string& a : serve_args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

void ServerProcess::Start() {
  bool ok = TryStart();
  INFO(log());
  REQUIRE(ok);
  // Ready means answering: poll /healthz. (This first request also builds the
  // HTTP client library's function-local statics on this thread, before any
  // test spreads requests over threads.)
  bool healthy = PollUntil([&] { return Request("GET", "/healthz", "", {}).status == 200; }, std::chrono::seconds(30));
  REQUIRE(healthy);
}

void ServerProcess::Kill(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

int ServerProcess::WaitExit(std::chrono::milliseconds timeout) {
  int status = 0, code = -1;
  bool exited = PollUntil(
      [&] {
        pid_t r = ::waitpid(pid_, &status, WNOHANG);
        return r == pid_;
      },
      timeout);
  if (!exited) return -1;
  pid_ = -1;
  if (WIFEXITED(status)) code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) code = 128 + WTERMSIG(status);
  return code;
}

HttpResult ServerProcess::Request(const std::string& method, const std::string& path, const std::string& body,
                                  const std::vector<std::pair<std::string, std::string>>& headers,
                                  const std::string& content_type) const {
  std::unique_ptr<httplib::ClientImpl> client;
  if (tls_) {
    auto tls = std::make_unique<httplib::SSLClient>("127.0.0.1", port_);
    tls->set_ca_cert_path(inst_.cert_path().c_str());
    tls->enable_server_certificate_verification(true);
    client = std::move(tls);
  } else {
    client = std::make_unique<httplib::ClientImpl>("127.0.0.1", port_);
  }
  client->set_connection_timeout(10, 0);
  client->set_read_timeout(30, 0);
  httplib::Headers h;
  for (const auto& [k, v] : headers) h.emplace(k, v);
  auto send = [&]() -> httplib::Result {
    if (method == "POST") return client->Post(path.c_str(), h, body, content_type.c_str());
    if (method == "PUT") return client->Put(path.c_str(), h, body, content_type.c_str());
    if (method == "DELETE") return client->Delete(path.c_str(), h);
    if (method == "HEAD") return client->Head(path.c_str(), h);
    return client->Get(path.c_str(), h);
  };
  httplib::Result res = send();
  HttpResult out;
  if (!res) return out;
  out.status = res->status;
  out.body = res->body;
  for (const auto& [k, v] : res->headers) out.headers[k] = v;
  return out;
}

HttpResult ServerProcess::PostSigned(const std::string& path, const std::string& body, int64_t timestamp,
                                     const std::string& content_type) const {
  std::string ts = std::to_string(timestamp != 0 ? timestamp : NowSeconds());
  std::string sig = "sha256=" + HmacSha256Hex(inst_.secret(), ts + "." + body);
  RegisterLeakMarker(sig.substr(7));
  RegisterBody(body);
  return Request("POST", path, body, {{"X-Timestamp", ts}, {"X-Signature", sig}}, content_type);
}

RawConnection::RawConnection(int port, bool tls) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  if (!tls) return;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd_);
  ssl_ctx_ = ctx;
  ssl_ = ssl;
  if (SSL_connect(ssl) != 1) {
    ::close(fd_);
    fd_ = -1;
  }
}

RawConnection::~RawConnection() {
  if (ssl_ != nullptr) SSL_free(static_cast<SSL*>(ssl_));
  if (ssl_ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
  if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::Send(const std::string& bytes) {
  if (ssl_ != nullptr) return SSL_write(static_cast<SSL*>(ssl_), bytes.data(), static_cast<int>(bytes.size())) > 0;
  return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

int RawConnection::Read(char* buf, int n, std::chrono::milliseconds timeout) {
  if (ssl_ != nullptr && SSL_pending(static_cast<SSL*>(ssl_)) > 0) return SSL_read(static_cast<SSL*>(ssl_), buf, n);
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return -2;  // nothing within the timeout
  if (ssl_ != nullptr) return SSL_read(static_cast<SSL*>(ssl_), buf, n);
  return static_cast<int>(::recv(fd_, buf, static_cast<size_t>(n), 0));
}

std::string RawConnection::ReadUntilClosed(std::chrono::milliseconds timeout) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    int n = Read(buf, sizeof buf, left);
    if (n == -2) break;
    if (n <= 0) {
      closed_ = true;
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string RawConnection::ReadResponses(int count, std::chrono::milliseconds timeout) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  // A response is complete once its headers and Content-Length bytes arrived;
  // every answer of ours carries Content-Length.
  auto complete = [&] {
    int seen = 0;
    size_t pos = 0;
    while (seen < count) {
      size_t head_end = out.find("\r\n\r\n", pos);
      if (head_end == std::string::npos) return false;
      size_t cl = out.find("Content-Length: ", pos);
      size_t len = (cl != std::string::npos && cl < head_end) ? std::stoul(out.substr(cl + 16)) : 0;
      if (out.size() < head_end + 4 + len) return false;
      pos = head_end + 4 + len;
      ++seen;
    }
    return true;
  };
  while (!complete() && std::chrono::steady_clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    int n = Read(buf, sizeof buf, left);
    if (n <= 0) {
      closed_ = n != -2;
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

int CountResponses(const std::string& text) {
  int n = 0;
  for (size_t pos = text.find("HTTP/1.1 "); pos != std::string::npos; pos = text.find("HTTP/1.1 ", pos + 1)) ++n;
  return n;
}

std::string InboxEventIdsInOrder(const Installation& inst) {
  return inst.Sql("SELECT group_concat(event_id, ',') FROM (SELECT event_id FROM webhook_inbox ORDER BY id) AS sub");
}

std::string CommaJoined(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

}  // namespace hookinbox::testing
