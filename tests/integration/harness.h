// tests/integration/harness.h — drive the real binary from the outside.
//
// ServerProcess starts `hookinbox serve` on a free port (listen port 0; the
// port is read from its "listening" log line), polls with a deadline instead
// of sleeping, and can SIGKILL/SIGTERM and restart it. Installation writes a
// config into a temp dir next to a certificate and secret made by the real
// `hookinbox init`. Requests go over HTTPS with certificate verification
// against that certificate; the database is read with the sqlite3 CLI.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>  // SIGTERM/SIGKILL for ServerProcess::Kill
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.h"

namespace hookinbox::testing {

// Runs a shell command; returns its exit status and stdout.
struct CommandResult {
  int exit_code = -1;
  std::string out;
};
CommandResult RunCommand(const std::string& command);

// The hookinbox binary under test, and the downstream the worker's tests
// forward to. The environment (HOOKINBOX_TEST_BINARY, HOOKINBOX_TEST_DOWNSTREAM)
// wins over the paths built in: a sanitizer tree's ctest drives its own
// binaries with the normal tree's client (tests/integration/CMakeLists.txt).
std::string BinaryPath();
std::string DownstreamPath();

// Polls `condition` until true or `timeout` passes. Returns its last value.
bool PollUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

// Lowercase hex HMAC-SHA256, computed with OpenSSL directly (independent of src/verify).
std::string HmacSha256Hex(const std::string& key, const std::string& data);

struct HttpResult {
  int status = 0;  // 0 = no answer (connection error)
  std::string body;
  std::map<std::string, std::string> headers;
};

// The log-leak check (log_leak_test.cpp): every ServerProcess
// appends its whole log (stdout + stderr) to this test process's suite log,
// BUILD/tests/integration/integration-<pid>.log, when it restarts or is
// destroyed. Tests register every secret, token, signature and payload they
// send (the harness does it for the demo secret and for what PostSigned and
// SignedRequest send); a last ctest entry greps every suite log of the run
// for every registered marker and must find none.
void RegisterLeakMarker(const std::string& marker);
// Appends `text` to this process's suite log.
void AppendSuiteLog(const std::string& text);
// Directory holding the suite logs and marker files of this build
// (HOOKINBOX_TEST_LOG_DIR wins, as above).
std::string SuiteLogDir();

class Installation {
 public:
  // Runs `hookinbox init` into a fresh temp dir. With HOOKINBOX_TEST_PG_URL
  // set, also creates a schema of its own in that database (dropped by the
  // destructor): WriteTestConfig points the store there, and Sql/SqlWrite
  // query it with psql instead of the .db with sqlite3.
  Installation();
  ~Installation();
  const std::string& dir() const { return dir_.path(); }
  // True when the test config uses PostgreSQL (postgres_url() is its URL).
  bool postgres() const { return !pg_url_.empty(); }
  const std::string& postgres_url() const { return pg_url_; }
  std::string config_path() const { return dir_.File("hookinbox.toml"); }
  std::string db_path() const { return dir_.File("data/hookinbox.db"); }
  std::string cert_path() const { return dir_.File("tls/cert.pem"); }
  const std::string& secret() const { return secret_; }
  // Replaces hookinbox.toml with `toml` (paths relative to dir()).
  void WriteConfig(const std::string& toml) const;
  // A config for tests: listen on a free port (public and admin), the demo
  // endpoint as init writes it plus `extra` appended (more endpoints);
  // `server_extra`, `storage_extra` and `admin_extra` are added to [server],
  // [storage] and [admin].
  void WriteTestConfig(const std::string& extra = "", const std::string& server_extra = "",
                       const std::string& storage_extra = "", const std::string& admin_extra = "") const;
  // A raw HTTP/1.1 POST signed like the demo endpoint expects.
  std::string SignedRequest(const std::string& path, const std::string& body) const;
  // Runs a query with the sqlite3 CLI (psql when postgres(), in the same
  // shape: columns joined by '|', one row a line); returns trimmed output.
  std::string Sql(const std::string& query) const;
  // Writes with the sqlite3 CLI while a server may hold the file (WAL; waits
  // up to 5 s for its lock), or with psql; REQUIREs success. Sql() opens read-only.
  void SqlWrite(const std::string& query) const;
  // The [storage] lines of WriteTestConfig: the .db path, or backend = "postgres" and this schema's URL.
  std::string StorageLines() const;

 private:
  TempDir dir_;
  std::string secret_;
  std::string PsqlSession() const;
  void MigratePostgres() const;
  std::string pg_schema_;  // PostgreSQL only
  std::string pg_url_;     // PostgreSQL only: the run's URL with search_path = pg_schema_
};

// An [[endpoint]] named `name`, signed like the demo endpoint (its secret
// file, header and payload format) and keyed by /id and /type, as TOML that
// can follow the config WriteTestConfig writes. `table_extra` (lines such as
// `tenant = "acme"`) is added to the [[endpoint]] table itself.
std::string DemoLikeEndpoint(const std::string& name, const std::string& table_extra = "");

// An [[endpoint]] named `name` with `provider = "<provider>"` and its secret
// in the environment variable HOOKINBOX_IT_<NAME>_SECRET (set here to
// `secret`), as TOML that can follow WriteTestConfig's; `tables` (e.g. an
// [endpoint.signature] table) follows it.
std::string PresetEndpoint(const std::string& name, const std::string& provider, const std::string& secret,
                           const std::string& tables = "");

// The demo endpoint's [endpoint.signature] and [endpoint.key] tables (what
// DemoLikeEndpoint appends after the secret), for configs that name the
// secret their own way.
extern const char* const kDemoSignatureTables;

class ServerProcess {
 public:
  // Several may run on one Installation (the replicas of one database).
  explicit ServerProcess(const Installation& inst) : inst_(inst) {}
  ~ServerProcess();  // SIGKILLs a running server

  // Starts and waits until it listens; REQUIREs success.
  void Start();
  // Starts; returns false when it exited or did not listen in time.
  bool TryStart();
  // Starts the process and returns at once, without waiting for it to listen.
  void TryStartAsync();
  void Kill(int signal);
  // Waits for the process to exit; returns its exit code (128+sig if signalled), -1 on timeout.
  int WaitExit(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  int port() const { return port_; }
  // The running server's process id (-1 when none): for prlimit(2) and /proc.
  pid_t pid() const { return pid_; }
  // The admin listener's port (from its "admin_listening" log line); 0 when not seen.
  int admin_port() const { return admin_port_; }
  std::string log() const;
  // Variables added to the environment of the servers started after this
  // call (LD_PRELOAD for durability_order_test.cpp).
  void SetEnvironment(std::vector<std::pair<std::string, std::string>> env) { env_ = std::move(env); }
  // Servers started after this call drop to `uid`/`gid` (no supplementary
  // groups) before exec, as the packaged service runs as its own user; the
  // test, root in CI, must make the installation accessible to them.
  void RunAs(uid_t uid, gid_t gid) { run_as_ = {uid, gid}; }
  // Arguments added after `serve -c CONFIG` for the servers started after
  // this call (e.g. --accept-key-change NAME).
  void SetServeArguments(std::vector<std::string> args) { serve_args_ = std::move(args); }

  // POSTs a delivery signed like the demo endpoint expects.
  HttpResult PostSigned(const std::string& path, const std::string& body, int64_t timestamp = 0,
                        const std::string& content_type = "application/json") const;
  HttpResult Request(const std::string& method, const std::string& path, const std::string& body,
                     const std::vector<std::pair<std::string, std::string>>& headers,
                     const std::string& content_type = "application/json") const;

 private:
  const Installation& inst_;
  pid_t pid_ = -1;
  int port_ = 0;
  int admin_port_ = 0;
  bool tls_ = true;  // from the scheme of the "listening" URL
  int starts_ = 0;
  const int number_ = NextServerNumber();  // this object's, for its log files
  static int NextServerNumber();
  std::string log_path_;
  std::vector<std::pair<std::string, std::string>> env_;  // SetEnvironment
  std::optional<std::pair<uid_t, gid_t>> run_as_;           // RunAs
  std::vector<std::string> serve_args_;                     // SetServeArguments
  void ArchiveLog();      // appends the current log to the suite log, once
  bool archived_ = true;  // the current log_path_ was appended already (or there is none)
};

// The fixture of tests that drive the CLI against a running server's
// database: the test config, the server started.
struct RunningServer {
  Installation inst;
  ServerProcess server{inst};
  RunningServer();
  // Runs `hookinbox ARGS -c CONFIG`; stderr goes to the output too.
  CommandResult Cli(const std::string& args) const;
  void SqlWrite(const std::string& query) const { inst.SqlWrite(query); }
  // Delivers {"id":ID,"type":"invoice.paid","data":{}} to demo; REQUIREs a
  // 200 and returns the inbox id.
  int64_t Deliver(const std::string& id) const;
};

int64_t NowSeconds();

// The whole file as bytes; "" when it cannot be read.
std::string ReadFile(const std::string& path);

// A "kB" line of /proc/<pid>/status, e.g. "VmRSS" (resident now) or "VmHWM"
// (the peak resident size); -1 when the process or the line is gone.
int64_t ProcStatusKb(pid_t pid, const std::string& field);
// True when the process runs under ASan or TSan: their shadow memory and
// per-thread state make absolute memory figures meaningless there.
bool Sanitized(pid_t pid);

// One TCP connection (optionally TLS) for byte-level tests: keep-alive,
// leftovers of rejected bodies, malformed requests. Reads until the server
// closes or `timeout` passes.
class RawConnection {
 public:
  RawConnection(int port, bool tls);
  ~RawConnection();
  bool ok() const { return fd_ >= 0; }
  bool Send(const std::string& bytes);
  // Everything the server sends until it closes the connection or `timeout`.
  std::string ReadUntilClosed(std::chrono::milliseconds timeout);
  // Reads until `count` HTTP responses have arrived (by status line) or `timeout`.
  std::string ReadResponses(int count, std::chrono::milliseconds timeout);
  bool closed_by_server() const { return closed_; }

 private:
  int Read(char* buf, int n, std::chrono::milliseconds timeout);
  int fd_ = -1;
  void* ssl_ctx_ = nullptr;
  void* ssl_ = nullptr;
  bool closed_ = false;
};

// How many HTTP status lines ("HTTP/1.1 NNN") `text` contains.
int CountResponses(const std::string& text);

// The event ids of `inst`'s inbox in insertion order, comma-separated, and
// the same shape for the ids a test saw acknowledged: equal when every
// acknowledged delivery was stored once, in order, and nothing else.
std::string InboxEventIdsInOrder(const Installation& inst);
std::string CommaJoined(const std::vector<std::string>& ids);

// A loopback port free right now (bound, read, closed), for a listener that
// must keep one port across restarts or that a CLI finds through the config,
// where port 0 will not do. Another process may take it first: rarely.
int FreePort();
// The non-empty lines of `text` (sqlite3 CLI output, a log).
std::vector<std::string> Lines(const std::string& text);

}  // namespace hookinbox::testing
