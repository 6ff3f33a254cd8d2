#include "store/sql/pg_connection.h"

#include <libpq-fe.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <regex>
#include <vector>

#include "common/encoding.h"
#include "store/sql/placeholders.h"

namespace hookinbox::store::sql {
namespace {

// Type OIDs from PostgreSQL's catalog (pg_type.dat); stable across versions.
constexpr Oid kBoolOid = 16, kByteaOid = 17, kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23, kTextOid = 25,
              kFloat4Oid = 700, kFloat8Oid = 701, kNumericOid = 1700;

// PostgreSQL's NOTICEs (e.g. "relation already exists, skipping") are not ours to print.
void IgnoreNotice(void*, const char*) {}

std::string ErrorText(PGconn* conn, const PGresult* result) {
  const char* m = result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn);
  std::string s = m != nullptr ? m : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

[[noreturn]] void ThrowResult(PGconn* conn, const PGresult* result, const std::string& what) {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  throw PgError(state, PQstatus(conn) != CONNECTION_OK, what + ": " + ErrorText(conn, result));
}

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

// Runs `sql` and throws unless it succeeded.
ResultPtr Run(PGconn* conn, const std::string& sql) {
  ResultPtr r(PQexec(conn, sql.c_str()));
  const ExecStatusType s = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) ThrowResult(conn, r.get(), "sql");
  return r;
}

int64_t RowsChanged(const PGresult* r) {
  const char* status = PQcmdStatus(const_cast<PGresult*>(r));
  if (status == nullptr) return 0;
  if (std::strncmp(status, "INSERT", 6) != 0 && std::strncmp(status, "UPDATE", 6) != 0 &&
      std::strncmp(status, "DELETE", 6) != 0) {
    return 0;
  }
  return std::atoll(PQcmdTuples(const_cast<PGresult*>(r)));
}

// bytea's text output: "\x" then two hex digits a byte.
std::string DecodeBytea(const char* text, size_t length) {
  if (length < 2 || text[0] != '\\' || text[1] != 'x') throw Error(Failure::kOther, 0, "bytea: not hex output");
  auto bytes = HexDecode(std::string_view(text + 2, length - 2));
  if (!bytes) throw Error(Failure::kOther, 0, "bytea: bad hex output");
  return *bytes;
}

// The statements a connection keeps prepared by name; texts beyond these (a
// purge's id lists) use the unnamed statement, which the next one replaces.
constexpr size_t kMaxPrepared = 256;

// libpq's default is to wait for the operating system's TCP timeout (minutes)
// when the server does not answer; a store should rather fail and retry.
std::string WithConnectTimeout(const std::string& conninfo) {
  if (conninfo.find("connect_timeout") != std::string::npos) return conninfo;
  const bool url = conninfo.rfind("postgres://", 0) == 0 || conninfo.rfind("postgresql://", 0) == 0;
  if (!url) return conninfo + " connect_timeout=5";
  return conninfo + (conninfo.find('?') == std::string::npos ? "?" : "&") + "connect_timeout=5";
}

// Whether libpq can parse `conninfo`. Its own message quotes the bad part,
// which may be the password, so only the fact is reported.
bool Parses(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (error != nullptr) PQfreemem(error);
  if (options == nullptr) return false;
  PQconninfoFree(options);
  return true;
}

class PgStatement final : public Statement {
 public:
  PgStatement(PgConnection& conn, const std::string& sql)
      : conn_(conn), numbered_(PostgresPlaceholders(sql)), values_(numbered_.parameters),
        types_(numbered_.parameters, 0), formats_(numbered_.parameters, 0) {}

  void bind(int index, int64_t value) override { Set(index, std::to_string(value), kInt8Oid, 0); }
  void bind(int index, double value) override {
    char buf[64];
    auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
    Set(index, std::string(buf, end), kFloat8Oid, 0);
  }
  // PostgreSQL refuses invalid UTF-8 and NUL in text (SQLite keeps any
  // bytes): a header cut mid-character must not fail a whole claim.
  void bind(int index, std::string_view text) override { Set(index, ToValidUtf8(text), kTextOid, 0); }
  void bind(int index) override { Set(index, std::nullopt, 0, 0); }
  void bindBlob(int index, std::string_view bytes) override { Set(index, std::string(bytes), kByteaOid, 1); }

  bool executeStep() override {
    if (!result_) Execute();
    return ++row_ < PQntuples(result_.get());
  }
  int exec() override {
    Execute();
    return static_cast<int>(RowsChanged(result_.get()));
  }
  void reset() override {
    result_.reset();
    row_ = -1;
  }
  void clearBindings() override {
    for (size_t i = 0; i < values_.size(); ++i) Set(static_cast<int>(i + 1), std::nullopt, 0, 0);
  }
  int getColumnCount() const override { return result_ ? PQnfields(result_.get()) : 0; }

 protected:
  bool ColumnIsNull(int index) const override { return PQgetisnull(Row(index), row_, index) != 0; }
  Type ColumnType(int index) const override {
    if (ColumnIsNull(index)) return Type::kNull;
    switch (PQftype(result_.get(), index)) {
      case kBoolOid: case kInt2Oid: case kInt4Oid: case kInt8Oid: return Type::kInteger;
      case kFloat4Oid: case kFloat8Oid: case kNumericOid: return Type::kReal;
      case kByteaOid: return Type::kBlob;
      default: return Type::kText;
    }
  }
  int64_t ColumnInt64(int index) const override {
    if (ColumnIsNull(index)) return 0;
    const char* v = PQgetvalue(result_.get(), row_, index);
    const Oid type = PQftype(result_.get(), index);
    if (type == kBoolOid) return v[0] == 't' ? 1 : 0;
    int64_t out = 0;
    const size_t n = std::strlen(v);
    auto [end, ec] = std::from_chars(v, v + n, out);
    if (ec == std::errc() && end == v + n) return out;  // integers, and sum(bigint) (numeric) without a fraction
    if (type == kNumericOid || type == kFloat4Oid || type == kFloat8Oid) {
      return static_cast<int64_t>(std::llround(std::strtod(v, nullptr)));
    }
    throw Error(Failure::kOther, 0, "column is not an integer");
  }
  double ColumnDouble(int index) const override {
    return ColumnIsNull(index) ? 0.0 : std::strtod(PQgetvalue(result_.get(), row_, index), nullptr);
  }
  std::string ColumnString(int index) const override {
    if (ColumnIsNull(index)) return "";
    const char* v = PQgetvalue(result_.get(), row_, index);
    const size_t n = static_cast<size_t>(PQgetlength(result_.get(), row_, index));
    if (PQftype(result_.get(), index) == kByteaOid) return DecodeBytea(v, n);
    if (PQftype(result_.get(), index) == kBoolOid) return v[0] == 't' ? "1" : "0";
    return std::string(v, n);
  }

 private:
  void Set(int index, std::optional<std::string> value, Oid type, int format) {
    if (index < 1 || index > numbered_.parameters) {
      throw Error(Failure::kOther, 0, "bind: no parameter " + std::to_string(index));
    }
    values_[index - 1] = std::move(value);
    types_[index - 1] = type;
    formats_[index - 1] = format;
  }

  const PGresult* Row(int index) const {
    if (!result_ || row_ < 0 || row_ >= PQntuples(result_.get()) || index < 0 || index >= PQnfields(result_.get())) {
      throw Error(Failure::kOther, 0, "no such row or column");
    }
    return result_.get();
  }

  void Execute() {
    std::string key = numbered_.sql;
    key.push_back('\0');
    for (Oid t : types_) key += std::to_string(t) + ",";
    const std::string& name = conn_.StatementName(key, numbered_.sql, numbered_.parameters, types_.data());
    std::vector<const char*> values(values_.size());
    std::vector<int> lengths(values_.size());
    for (size_t i = 0; i < values_.size(); ++i) {
      values[i] = values_[i] ? values_[i]->data() : nullptr;
      lengths[i] = values_[i] ? static_cast<int>(values_[i]->size()) : 0;
    }
    result_.reset(PQexecPrepared(conn_.raw(), name.c_str(), numbered_.parameters, values.data(), lengths.data(),
                                 formats_.data(), 0));
    row_ = -1;
    const ExecStatusType s = result_ ? PQresultStatus(result_.get()) : PGRES_FATAL_ERROR;
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
      ResultPtr failed = std::move(result_);
      ThrowResult(conn_.raw(), failed.get(), "sql");
    }
    conn_.AddChanges(RowsChanged(result_.get()));
  }

  PgConnection& conn_;
  Numbered numbered_;
  std::vector<std::optional<std::string>> values_;
  std::vector<Oid> types_;
  std::vector<int> formats_;
  ResultPtr result_;
  int row_ = -1;
};

}  // namespace

Error PgError(const char* sqlstate, bool connection_bad, const std::string& message) {
  const std::string s = sqlstate != nullptr ? sqlstate : "";
  if (connection_bad || s.rfind("08", 0) == 0 || s == "57P01" || s == "57P02" || s == "57P03" || s == "25006") {
    return Error(Failure::kUnavailable, 0, message);
  }
  if (s == "40001" || s == "40P01" || s == "55P03") return Error(Failure::kBusy, 0, message);
  if (s.rfind("53", 0) == 0 || s == "58030") return Error(Failure::kStorage, 0, message);
  if (s.rfind("23", 0) == 0) return Error(Failure::kConstraint, 0, message);
  return Error(Failure::kOther, 0, message);
}

std::string RedactConninfo(const std::string& conninfo) {
  // URL form: scheme://user:password@host…; keyword form: password=…
  static const std::regex url_password(R"(^(postgres(?:ql)?://[^:/@]*):[^@]*@)");
  static const std::regex keyword_password(R"(password\s*=\s*('([^'\\]|\\.)*'|\S+))");
  std::string out = std::regex_replace(conninfo, url_password, "$1:***@");
  return std::regex_replace(out, keyword_password, "password=***");
}

PgConnection::PgConnection(const std::string& given) {
  if (!Parses(given)) throw Error(Failure::kUnavailable, 0, "connect: the connection string is malformed");
  const std::string conninfo = WithConnectTimeout(given);
  conn_ = PQconnectdb(conninfo.c_str());
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    std::string why = conn_ != nullptr ? ErrorText(conn_, nullptr) : "out of memory";
    PQfinish(conn_);
    conn_ = nullptr;
    throw Error(Failure::kUnavailable, 0, "connect to " + RedactConninfo(conninfo) + ": " + why);
  }
  PQsetNoticeProcessor(conn_, IgnoreNotice, nullptr);
}

PgConnection::~PgConnection() { PQfinish(conn_); }

bool PgConnection::Healthy() const { return conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK; }

std::unique_ptr<Statement> PgConnection::Prepare(const std::string& sql) {
  return std::make_unique<PgStatement>(*this, sql);
}

const std::string& PgConnection::StatementName(const std::string& key, const std::string& sql, int n_params,
                                               const unsigned int* types) {
  auto it = prepared_.find(key);
  if (it != prepared_.end()) return it->second;
  static const std::string kUnnamed;
  const bool keep = prepared_.size() < kMaxPrepared;
  const std::string name = keep ? "hookinbox_" + std::to_string(prepared_.size()) : kUnnamed;
  ResultPtr r(PQprepare(conn_, name.c_str(), sql.c_str(), n_params, types));
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) ThrowResult(conn_, r.get(), "prepare");
  return keep ? prepared_.emplace(key, name).first->second : kUnnamed;
}

int PgConnection::Exec(const std::string& sql) {
  ResultPtr r = Run(conn_, sql);
  const int64_t changed = RowsChanged(r.get());
  total_changes_ += changed;
  return static_cast<int>(changed);
}

void PgConnection::Begin(TxnMode mode) {
  // A write transaction first takes the database's write lock, as SQLite's
  // BEGIN IMMEDIATE does: one writer at a time across every process, each
  // statement seeing what the last writer committed. So every store
  // operation means on PostgreSQL exactly what it means on SQLite (a claim
  // that reads then writes cannot interleave with another replica's), and no
  // batch is ever rerun as not serialisable. Reads take no lock.
  try {
    Exec(mode == TxnMode::kWrite
             ? "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(" + std::to_string(kWriteLockKey) + ")"
             : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  } catch (const Error&) {
    // The BEGIN ran even when the lock wait timed out: no transaction may
    // stay open (every later statement would fail as "aborted").
    Rollback();
    throw;
  }
}

void PgConnection::Commit() {
  // COMMIT of a failed transaction "succeeds" as a ROLLBACK: say it failed.
  if (PQtransactionStatus(conn_) == PQTRANS_INERROR) {
    Rollback();
    throw Error(Failure::kOther, 0, "commit: the transaction had failed and was rolled back");
  }
  Exec("COMMIT");
}

void PgConnection::Rollback() noexcept {
  if (InTransaction()) PQclear(PQexec(conn_, "ROLLBACK"));
}

bool PgConnection::InTransaction() {
  const PGTransactionStatusType s = PQtransactionStatus(conn_);
  return s == PQTRANS_INTRANS || s == PQTRANS_INERROR || s == PQTRANS_ACTIVE;
}

}  // namespace hookinbox::store::sql
