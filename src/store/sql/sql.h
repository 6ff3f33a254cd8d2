// store/sql/sql.h — the few SQL calls the store makes, for SQLite and PostgreSQL alike.
//
// Owns: the Connection and Statement interfaces every store operation is
// written against, so one piece of code (claims, leases, the ledger, the
// audit chain …) serves both backends. The names follow SQLiteCpp's
// (bind / executeStep / getColumn / exec), which the store was written with.
//
// SQL text: `?` placeholders, numbered in order of appearance (the PostgreSQL
// driver turns them into $1, $2 …). Times are BIGINT milliseconds in both
// schemas. Where the dialects differ, callers ask backend().
//
// Errors: every call may throw sql::Error, which says what kind of failure it
// was in the store's terms (see Failure) whatever the driver.
// Thread-safety: a Connection and its Statements belong to one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hookinbox::store::sql {

enum class Backend { kSqlite, kPostgres };
const char* BackendName(Backend b);  // "sqlite" | "postgres"

enum class Failure {
  kBusy,         // a lock wait ran out (or PostgreSQL found a deadlock or could not serialise): try again
  kStorage,      // the disk refused the write (full, size limit, I/O error)
  kUnavailable,  // the database cannot be reached or written (closed, read-only, connection lost)
  kConstraint,   // a constraint refused the change
  kOther,        // a bug: bad SQL, a type mismatch
};

class Error : public std::runtime_error {
 public:
  Error(Failure failure, int native_code, const std::string& message)
      : std::runtime_error(message), failure_(failure), native_code_(native_code) {}
  Failure failure() const { return failure_; }
  // SQLite's extended result code; 0 for PostgreSQL (its SQLSTATE is in the message).
  int native_code() const { return native_code_; }

 private:
  Failure failure_;
  int native_code_;
};

enum class Type { kNull, kInteger, kReal, kText, kBlob };

class Statement;

// One value of the current row (valid until the statement steps or resets).
class Column {
 public:
  Column(Statement* statement, int index) : statement_(statement), index_(index) {}
  bool isNull() const;
  Type getType() const;
  int64_t getInt64() const;  // 0 for NULL; a boolean reads as 1 or 0
  int getInt() const { return static_cast<int>(getInt64()); }
  double getDouble() const;
  std::string getString() const;  // text, or a blob's bytes; "" for NULL

 private:
  Statement* statement_;
  int index_;
};

class Statement {
 public:
  virtual ~Statement() = default;

  // Parameters count from 1. Text and blobs are copied.
  virtual void bind(int index, int64_t value) = 0;
  void bind(int index, int value) { bind(index, static_cast<int64_t>(value)); }
  virtual void bind(int index, double value) = 0;
  virtual void bind(int index, std::string_view text) = 0;
  void bind(int index, const std::string& text) { bind(index, std::string_view(text)); }
  void bind(int index, const char* text) { bind(index, std::string_view(text)); }
  virtual void bind(int index) = 0;  // NULL
  virtual void bindBlob(int index, std::string_view bytes) = 0;
  void bind(int index, const void* bytes, int size) {
    bindBlob(index, std::string_view(static_cast<const char*>(bytes), static_cast<size_t>(size)));
  }

  // Runs the statement on the first call; true while a row is there to read.
  virtual bool executeStep() = 0;
  // Runs a statement that returns no rows; the number of rows it changed.
  virtual int exec() = 0;
  // Ready to run again with the same or new bindings.
  virtual void reset() = 0;
  virtual void clearBindings() = 0;

  Column getColumn(int index) { return Column(this, index); }
  virtual int getColumnCount() const = 0;

 protected:
  friend class Column;
  virtual bool ColumnIsNull(int index) const = 0;
  virtual Type ColumnType(int index) const = 0;
  virtual int64_t ColumnInt64(int index) const = 0;
  virtual double ColumnDouble(int index) const = 0;
  virtual std::string ColumnString(int index) const = 0;
};

enum class TxnMode {
  kRead,   // a consistent snapshot for reads
  kWrite,  // holds the database's write lock from the start: one writer at a time, across processes
           // (SQLite BEGIN IMMEDIATE; PostgreSQL an advisory lock, READ COMMITTED)
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual Backend backend() const = 0;

  virtual std::unique_ptr<Statement> Prepare(const std::string& sql) = 0;
  // Runs SQL without parameters (one or more statements); the rows changed by the last.
  virtual int Exec(const std::string& sql) = 0;

  virtual void Begin(TxnMode mode) = 0;
  virtual void Commit() = 0;
  virtual void Rollback() noexcept = 0;
  virtual bool InTransaction() = 0;
  // Rows changed by this connection since it opened (to tell a commit that wrote).
  virtual int64_t TotalChanges() = 0;
  // False once the connection can no longer be used (its server went away):
  // pools and the writer then open a new one.
  virtual bool Healthy() const { return true; }
};

// Begins on construction; rolls back on destruction unless committed.
class Transaction {
 public:
  Transaction(Connection& connection, TxnMode mode) : connection_(connection) { connection_.Begin(mode); }
  ~Transaction() {
    if (!done_) connection_.Rollback();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    connection_.Commit();
    done_ = true;
  }

 private:
  Connection& connection_;
  bool done_ = false;
};

// The first column of the first row of `sql` (no parameters; NULL reads as
// 0 or ""); throws Error (kOther) when it returns no row.
int64_t QueryInt64(Connection& connection, const std::string& sql);
std::string QueryText(Connection& connection, const std::string& sql);
// Whether the database has table `name` (in the connection's schema, on PostgreSQL).
bool TableExists(Connection& connection, const std::string& name);

inline bool Column::isNull() const { return statement_->ColumnIsNull(index_); }
inline Type Column::getType() const { return statement_->ColumnType(index_); }
inline int64_t Column::getInt64() const { return statement_->ColumnInt64(index_); }
inline double Column::getDouble() const { return statement_->ColumnDouble(index_); }
inline std::string Column::getString() const { return statement_->ColumnString(index_); }

}  // namespace hookinbox::store::sql
