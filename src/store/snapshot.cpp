// WriteSnapshot: the audit copy of the live database.
//
// Consistency while the server writes: a fresh read-only connection on the
// live file opens one read transaction and the SQLite online backup API copies
// every page from inside it. In WAL mode a reader sees one fixed snapshot and
// never blocks the writer (nor is blocked by it), so the copy is exactly the
// database as of that transaction's start, and nothing the server
// acknowledged before it is missing. The backup steps kStepPages pages at a
// time, so memory stays bounded by SQLite's page cache however large the file.
//
// The copy is built under a temporary name beside out_path (mkstemp: 0600)
// and linked to out_path only when complete, so nobody sees a half-written
// file and an existing out_path is never overwritten (link fails with EEXIST).
// It is switched to journal_mode=DELETE so it is one self-contained file, gets
// the README table, and without payloads has the bodies deleted and is then
// rewritten with VACUUM INTO, so the bytes are not left in free pages either.
#include "store/snapshot.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>  // renameat2
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/copy.h"
#include "store/database.h"
#include "store/snapshot_readme.h"

namespace hookinbox::store {
namespace {

constexpr int kStepPages = 1024;  // pages copied per backup step (4 MiB at the default page size)

Status AlreadyExists(const std::string& out_path) {
  return {Code::kConflict, "snapshot: " + out_path + " already exists; not overwriting it"};
}

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

Status SqliteError(sqlite3* db, int rc, const std::string& what) {
  return FromSqlite(rc, "snapshot: " + what + ": " + (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
}

Result<DbHandle> Open(const std::string& path, int flags, const std::string& what) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK) return SqliteError(db.get(), rc, what + " " + path);
  sqlite3_busy_timeout(db.get(), 5000);
  sqlite3_extended_result_codes(db.get(), 1);
  return db;
}

Status Exec(sqlite3* db, const std::string& sql, const std::string& what) {
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : SqliteError(db, rc, what);
}

// Removes the temporary copy (and a journal SQLite may have left) unless released.
class TempFile {
 public:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  ~TempFile() {
    if (path_.empty()) return;
    ::unlink(path_.c_str());
    ::unlink((path_ + "-journal").c_str());
    ::unlink((path_ + "-wal").c_str());  // a copy filled through OpenDatabase (WAL) from PostgreSQL
    ::unlink((path_ + "-shm").c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Creates an empty 0600 file beside out_path and returns its name.
Result<std::string> MakeTemp(const std::string& out_path) {
  std::string name = out_path + ".partial-XXXXXX";
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());  // 0600, O_EXCL
  if (fd < 0) {
    return Unavailable("snapshot: cannot create a temporary file beside " + out_path + ": " + std::strerror(errno));
  }
  ::fchmod(fd, 0600);
  ::close(fd);  // a file nobody else has opened: no lock to lose
  return std::string(buf.data());
}

Status DeadlinePassed() { return Unavailable("snapshot: deadline passed"); }

bool PastDeadline(const SnapshotOptions& options) { return options.past_deadline && options.past_deadline(); }

// Copies every page of src into dst from inside one read transaction on src.
Status Copy(sqlite3* src, sqlite3* dst, const SnapshotOptions& options) {
  // The read transaction pins the WAL snapshot for every step of the backup:
  // without it each step would read the database as of that step, and a
  // write between steps would make the backup restart.
  if (Status st = Exec(src, "BEGIN DEFERRED; SELECT count(*) FROM sqlite_schema", "begin read"); !st.ok()) return st;
  sqlite3_backup* backup = sqlite3_backup_init(dst, "main", src, "main");
  if (backup == nullptr) {
    Status st = SqliteError(dst, sqlite3_errcode(dst), "backup init");
    Exec(src, "ROLLBACK", "end read");
    return st;
  }
  int rc = SQLITE_OK;
  int busy_left = 500;  // ~5 s: only the copy's own file can be busy, and nobody else opens it
  bool late = false;
  do {
    if ((late = PastDeadline(options))) break;
    rc = sqlite3_backup_step(backup, kStepPages);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(10);
  } while (rc == SQLITE_OK || ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && --busy_left > 0));
  sqlite3_backup_finish(backup);
  Exec(src, "ROLLBACK", "end read");
  if (late) return DeadlinePassed();
  return rc == SQLITE_DONE ? Status::Ok() : SqliteError(dst, rc, "backup step");
}

std::string NowIso() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[48];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf) + "." + std::to_string(1000 + ms % 1000).substr(1) + "Z";
}

Status InsertReadmeRow(sqlite3* db, sqlite3_stmt* insert, const std::string& name, const std::string& kind,
                       const std::string& description) {
  sqlite3_reset(insert);
  sqlite3_bind_text(insert, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(insert, 2, kind.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(insert, 3, description.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(insert);
  return rc == SQLITE_DONE ? Status::Ok() : SqliteError(db, rc, "write README row " + name);
}

// Every user table and view of the copy, as (name, type).
Result<std::vector<std::pair<std::string, std::string>>> SchemaObjects(sqlite3* db) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db,
                              "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view')"
                              " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name",
                              -1, &raw, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "list schema");
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> st(raw, sqlite3_finalize);
  std::vector<std::pair<std::string, std::string>> out;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0)),
                     reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1)));
  }
  if (rc != SQLITE_DONE) return SqliteError(db, rc, "list schema");
  return out;
}

// The README table: one row per table and view plus the 'snapshot' row.
Status WriteReadme(sqlite3* db, const std::string& source, const std::string& how, const SnapshotOptions& options) {
  auto objects = SchemaObjects(db);
  if (!objects.ok()) return objects.status();
  if (Status st = Exec(db, "CREATE TABLE README (name TEXT PRIMARY KEY, kind TEXT NOT NULL, description TEXT NOT NULL)",
                       "create README");
      !st.ok()) {
    return st;
  }
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, "INSERT INTO README (name, kind, description) VALUES (?, ?, ?)", -1, &raw, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "prepare README insert");
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> insert(raw, sqlite3_finalize);
  const std::string snapshot =
      "Made " + NowIso() + " by hookinbox from " + source + " " + how + ": a consistent copy as of that moment. " +
      (options.with_payloads ? "Payload bodies are included."
                             : "Payload bodies are NOT included: webhook_payloads rows were deleted and "
                               "step_results bodies emptied, then the file was vacuumed.");
  if (Status st = InsertReadmeRow(db, insert.get(), "snapshot", "snapshot", snapshot); !st.ok()) return st;
  if (Status st = InsertReadmeRow(db, insert.get(), "README", "table", std::string(ReadmeDescription("README")));
      !st.ok()) {
    return st;
  }
  for (const auto& [name, type] : *objects) {
    std::string text(ReadmeDescription(name));
    if (text.empty()) text = "Not described by this version of hookinbox.";
    if (Status st = InsertReadmeRow(db, insert.get(), name, type, text); !st.ok()) return st;
  }
  return Status::Ok();
}

// Turns the raw page copy into the deliverable: one file, README, bodies removed on request.
Status Finish(sqlite3* db, const std::string& source, const std::string& how, const SnapshotOptions& options) {
  // The copied header still says WAL; DELETE makes the copy one self-contained file.
  if (Status st = Exec(db, "PRAGMA journal_mode = DELETE", "journal_mode"); !st.ok()) return st;
  if (Status st = Exec(db, "BEGIN IMMEDIATE", "begin"); !st.ok()) return st;
  Status st = options.with_payloads
                  ? Status::Ok()
                  : Exec(db, "DELETE FROM webhook_payloads; UPDATE step_results SET body = X''", "remove payloads");
  if (st.ok()) st = WriteReadme(db, source, how, options);
  if (!st.ok()) {
    Exec(db, "ROLLBACK", "rollback");
    return st;
  }
  return Exec(db, "COMMIT", "commit");
}

// Rewrites `db` into the empty file `to` from its live rows only, so deleted
// bodies do not survive in free pages. VACUUM INTO rather than VACUUM: plain
// VACUUM builds the new file in the system temp directory and then copies it
// back through a rollback journal, needing twice the space, some of it
// outside the directory the operator chose.
Status VacuumInto(sqlite3* db, const std::string& to) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, "VACUUM INTO ?", -1, &raw, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "vacuum");
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> st(raw, sqlite3_finalize);
  sqlite3_bind_text(st.get(), 1, to.c_str(), -1, SQLITE_TRANSIENT);
  rc = sqlite3_step(st.get());
  return rc == SQLITE_DONE ? Status::Ok() : SqliteError(db, rc, "vacuum");
}

Status SyncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Unavailable("snapshot: open " + path + ": " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  return rc == 0 ? Status::Ok() : Unavailable("snapshot: fsync " + path + ": " + std::strerror(saved));
}

// Gives the finished copy its name; never replaces an existing file.
Status Publish(const std::string& temp, const std::string& out_path) {
  if (Status st = SyncFile(temp); !st.ok()) return st;
  if (::link(temp.c_str(), out_path.c_str()) != 0) {
    if (errno == EEXIST) return AlreadyExists(out_path);
    if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP) {
      return Unavailable("snapshot: cannot create " + out_path + ": " + std::strerror(errno));
    }
    // A file system without hard links: rename, still refusing to replace.
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, out_path.c_str(), RENAME_NOREPLACE) != 0) {
      if (errno == EEXIST) return AlreadyExists(out_path);
      return Unavailable("snapshot: cannot create " + out_path + ": " + std::strerror(errno));
    }
  }
  auto dir = std::filesystem::path(out_path).parent_path();
  if (dir.empty()) dir = ".";
  if (const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    ::fsync(fd);  // the new name survives a crash
    ::close(fd);
  }
  return Status::Ok();
}

// The part both sources share: `fill` writes the raw copy into a fresh temp
// file beside out_path; then README, bodies removed on request, one file
// published under out_path.
Status BuildSnapshot(const std::string& out_path, const std::string& source, const std::string& how,
                     const SnapshotOptions& options, const std::function<Status(const std::string&)>& fill) {
  struct stat st_out{};
  if (::lstat(out_path.c_str(), &st_out) == 0) return AlreadyExists(out_path);
  auto temp_name = MakeTemp(out_path);
  if (!temp_name.ok()) return temp_name.status();
  TempFile temp(*temp_name);
  if (Status st = fill(temp.path()); !st.ok()) return st;
  std::unique_ptr<TempFile> vacuumed;  // without payloads: the copy rewritten from its live rows
  {
    auto dst = Open(temp.path(), SQLITE_OPEN_READWRITE, "open copy");
    if (!dst.ok()) return dst.status();
    if (Status st = Finish(dst->get(), source, how, options); !st.ok()) return st;
    if (!options.with_payloads) {
      auto name = MakeTemp(out_path);
      if (!name.ok()) return name.status();
      vacuumed = std::make_unique<TempFile>(*name);
      if (Status st = VacuumInto(dst->get(), vacuumed->path()); !st.ok()) return st;
    }
    const int rc = sqlite3_close_v2(dst->release());
    if (rc != SQLITE_OK) return FromSqlite(rc, "snapshot: close copy");
  }
  if (PastDeadline(options)) return DeadlinePassed();
  return Publish(vacuumed ? vacuumed->path() : temp.path(), out_path);
}

}  // namespace

int64_t SnapshotPeakBytes(int64_t db_bytes, const SnapshotOptions& options) {
  return db_bytes * (options.with_payloads ? 1 : 3);
}

Result<int64_t> FreeBytes(const std::string& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) {
    return Unavailable("cannot ask " + dir + " for its free space: " + std::strerror(errno));
  }
  return static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
}

Status WriteSnapshot(const std::string& db_path, const std::string& out_path, const SnapshotOptions& options) {
  // Read-only, never created: a wrong path is an error, not a new empty database.
  auto src = Open(db_path, SQLITE_OPEN_READONLY, "open");
  if (!src.ok()) return src.status();
  return BuildSnapshot(out_path, std::filesystem::path(db_path).filename().string(),
                       "with the SQLite online backup API inside one read transaction", options,
                       [&](const std::string& temp) -> Status {
                         auto dst = Open(temp, SQLITE_OPEN_READWRITE, "open copy");
                         if (!dst.ok()) return dst.status();
                         Status st = Copy(src->get(), dst->get(), options);
                         src->reset();  // release the live file before the (possibly long) finishing work
                         return st;
                       });
}

Status WriteSnapshotFrom(sql::Connection& postgres, const std::string& out_path, const SnapshotOptions& options) {
  return BuildSnapshot(out_path, "PostgreSQL", "row by row, ids kept, inside one REPEATABLE READ transaction",
                       options, [&](const std::string& temp) -> Status {
                         auto copy = OpenDatabase(temp, OpenOptions{5000, true});
                         if (!copy.ok()) return copy.status();
                         auto report = CopyDatabase(postgres, **copy, nullptr);
                         return report.ok() ? Status::Ok() : report.status();
                       });
}

}  // namespace hookinbox::store
