#include "store/database.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "store/migrations.h"
#include "store/sql/pg_connection.h"
#include "store/sql/sqlite_connection.h"

namespace hookinbox::store {
namespace {

// Creates the file with 0600 before SQLite does, so it is never world-readable,
// and tightens an existing file that is looser: payloads are customer data.
// An existing file is never opened here: closing any descriptor of a file
// drops every POSIX lock this process holds on it, including the SHARED lock
// our already-open WAL connection keeps (the store opens a writer, then a
// reader). Without that lock another process closing its last connection
// (`hookinbox events …`) checkpoints and deletes the WAL under us, and our
// later commits go to the unlinked file: lost.
Status PrepareFile(const std::string& path) {
  std::error_code ec;
  auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty() && !std::filesystem::exists(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) return Unavailable("open " + path + ": cannot create directory: " + ec.message());
    ::chmod(dir.c_str(), 0700);
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);  // new: nobody can hold a lock on it yet
    return Status::Ok();
  }
  if (errno != EEXIST) return Unavailable("open " + path + ": " + std::strerror(errno));
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & 0077) != 0) ::chmod(path.c_str(), 0600);
  return Status::Ok();
}

}  // namespace

Status FromSqlite(int code, const std::string& what) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
      return Unavailable(what);
    default:
      return Internal(what);
  }
}

Status FromSql(const sql::Error& e, const std::string& what) {
  switch (e.failure()) {
    case sql::Failure::kBusy:
    case sql::Failure::kStorage:
    case sql::Failure::kUnavailable:
      return Unavailable(what + ": " + e.what());
    default:
      return Internal(what + ": " + e.what());
  }
}

Result<std::unique_ptr<sql::Connection>> OpenDatabase(const std::string& path, const OpenOptions& options) {
  if (Status st = PrepareFile(path); !st.ok()) return st;
  try {
    auto connection = std::make_unique<sql::SqliteConnection>(
        std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE));
    SQLite::Database* db = &connection->database();
    db->setBusyTimeout(options.busy_timeout_ms);
    auto migrations = ParseMigrations(EmbeddedSchema());
    if (!migrations.ok()) return migrations.status();
    // Before anything writes: switching journal_mode would already rewrite
    // the header of a newer database (a backup is in rollback-journal mode).
    if (options.migrate) {
      if (Status st = RefuseNewer(*connection, *migrations); !st.ok()) return st;
    }
    db->exec("PRAGMA journal_mode = WAL");
    // FULL: a commit is on disk (WAL fsynced) before it returns, which is
    // what lets us answer 2xx. NORMAL would lose acknowledged rows on power loss.
    db->exec("PRAGMA synchronous = FULL");
    db->exec("PRAGMA foreign_keys = ON");
    if (options.migrate) {
      if (Status st = Migrate(*connection, *migrations); !st.ok()) return st;
    }
    return std::unique_ptr<sql::Connection>(std::move(connection));
  } catch (const SQLite::Exception& e) {
    return FromSqlite(e.getErrorCode(), "open " + path + ": " + e.what());
  } catch (const sql::Error& e) {
    return FromSql(e, "open " + path);
  }
}

Result<std::unique_ptr<sql::Connection>> OpenPostgres(const std::string& conninfo, bool migrate) {
  try {
    auto connection = std::make_unique<sql::PgConnection>(conninfo);
    // A commit is on the server's disk before it returns, whatever the server's default.
    connection->Exec("SET synchronous_commit = on");
    if (migrate) {
      auto migrations = ParseMigrations(EmbeddedSchema(sql::Backend::kPostgres));
      if (!migrations.ok()) return migrations.status();
      if (Status st = Migrate(*connection, *migrations); !st.ok()) return st;
    }
    return std::unique_ptr<sql::Connection>(std::move(connection));
  } catch (const sql::Error& e) {
    return FromSql(e, "open postgres");
  }
}

}  // namespace hookinbox::store
