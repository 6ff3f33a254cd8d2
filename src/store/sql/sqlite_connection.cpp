#include "store/sql/sqlite_connection.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

namespace hookinbox::store::sql {
namespace {

[[noreturn]] void Rethrow(const SQLite::Exception& e) { throw SqliteError(e.getExtendedErrorCode(), e.what()); }

class SqliteStatement final : public Statement {
 public:
  SqliteStatement(SQLite::Database& db, const std::string& sql) : st_(db, sql) {}

  void bind(int index, int64_t value) override { Guard([&] { st_.bind(index, value); }); }
  void bind(int index, double value) override { Guard([&] { st_.bind(index, value); }); }
  void bind(int index, std::string_view text) override {
    // Not SQLiteCpp's (const void*, int) overload: that one binds a blob.
    Guard([&] { st_.bind(index, std::string(text)); });
  }
  void bind(int index) override { Guard([&] { st_.bind(index); }); }
  void bindBlob(int index, std::string_view bytes) override {
    Guard([&] { st_.bind(index, bytes.data(), static_cast<int>(bytes.size())); });
  }
  bool executeStep() override {
    try {
      return st_.executeStep();
    } catch (const SQLite::Exception& e) {
      Rethrow(e);
    }
  }
  int exec() override {
    try {
      return st_.exec();
    } catch (const SQLite::Exception& e) {
      Rethrow(e);
    }
  }
  void reset() override { st_.tryReset(); }
  void clearBindings() override { st_.clearBindings(); }
  int getColumnCount() const override { return st_.getColumnCount(); }

 protected:
  bool ColumnIsNull(int index) const override { return Col(index).isNull(); }
  Type ColumnType(int index) const override {
    switch (Col(index).getType()) {
      case SQLITE_INTEGER: return Type::kInteger;
      case SQLITE_FLOAT: return Type::kReal;
      case SQLITE_TEXT: return Type::kText;
      case SQLITE_BLOB: return Type::kBlob;
      default: return Type::kNull;
    }
  }
  int64_t ColumnInt64(int index) const override { return Col(index).getInt64(); }
  double ColumnDouble(int index) const override { return Col(index).getDouble(); }
  std::string ColumnString(int index) const override {
    SQLite::Column c = Col(index);
    // getBlob/getBytes: text and blobs alike, with embedded NULs kept.
    const void* data = c.getBlob();
    return data == nullptr ? std::string() : std::string(static_cast<const char*>(data), static_cast<size_t>(c.getBytes()));
  }

 private:
  SQLite::Column Col(int index) const {
    try {
      return const_cast<SQLite::Statement&>(st_).getColumn(index);
    } catch (const SQLite::Exception& e) {
      Rethrow(e);
    }
  }
  template <typename F>
  void Guard(F f) {
    try {
      f();
    } catch (const SQLite::Exception& e) {
      Rethrow(e);
    }
  }

  SQLite::Statement st_;
};

}  // namespace

Error SqliteError(int code, const std::string& message) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Error(Failure::kBusy, code, message);
    case SQLITE_FULL:
    case SQLITE_IOERR:
      return Error(Failure::kStorage, code, message);
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
      return Error(Failure::kUnavailable, code, message);
    case SQLITE_CONSTRAINT:
      return Error(Failure::kConstraint, code, message);
    default:
      return Error(Failure::kOther, code, message);
  }
}

SQLite::Database& SqliteDatabase(Connection& connection) {
  if (connection.backend() != Backend::kSqlite) throw Error(Failure::kOther, 0, "not an SQLite connection");
  return static_cast<SqliteConnection&>(connection).database();
}

std::unique_ptr<Statement> SqliteConnection::Prepare(const std::string& sql) {
  try {
    return std::make_unique<SqliteStatement>(*db_, sql);
  } catch (const SQLite::Exception& e) {
    Rethrow(e);
  }
}

int SqliteConnection::Exec(const std::string& sql) {
  try {
    return db_->exec(sql);
  } catch (const SQLite::Exception& e) {
    Rethrow(e);
  }
}

void SqliteConnection::Begin(TxnMode mode) { Exec(mode == TxnMode::kWrite ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"); }

void SqliteConnection::Commit() { Exec("COMMIT"); }

void SqliteConnection::Rollback() noexcept {
  // Harmless when SQLite already rolled back (a failed commit, a full disk).
  if (sqlite3_get_autocommit(db_->getHandle()) == 0) sqlite3_exec(db_->getHandle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

bool SqliteConnection::InTransaction() { return sqlite3_get_autocommit(db_->getHandle()) == 0; }

int64_t SqliteConnection::TotalChanges() { return db_->getTotalChanges(); }

}  // namespace hookinbox::store::sql
