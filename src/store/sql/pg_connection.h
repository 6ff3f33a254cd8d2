// store/sql/pg_connection.h — sql::Connection over one libpq connection.
//
// Owns: the PGconn, its server-side prepared statements (one per SQL text and
// parameter types, prepared on first use and kept while the connection
// lives), and the mapping of SQLSTATEs to sql::Failure.
//
// Parameters go with the type they were bound with (BIGINT, DOUBLE, TEXT,
// BYTEA), so `?` needs no cast where PostgreSQL could not infer one; a NULL
// leaves the type to the server. Results come as text and are parsed here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "store/sql/sql.h"

typedef struct pg_conn PGconn;

namespace hookinbox::store::sql {

class PgConnection final : public Connection {
 public:
  // The transaction-level advisory lock every write transaction holds (Begin).
  static constexpr int64_t kWriteLockKey = 0x686f6f6b696e6278;  // "hookinbx"

  // Connects with a libpq URL or keyword string. Throws Error (kUnavailable)
  // naming the server but never the password.
  explicit PgConnection(const std::string& conninfo);
  ~PgConnection() override;
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  Backend backend() const override { return Backend::kPostgres; }
  std::unique_ptr<Statement> Prepare(const std::string& sql) override;
  int Exec(const std::string& sql) override;
  void Begin(TxnMode mode) override;
  void Commit() override;
  void Rollback() noexcept override;
  bool InTransaction() override;
  int64_t TotalChanges() override { return total_changes_; }

  bool Healthy() const override;

  // The server-side statement for `key` (SQL text + parameter types),
  // preparing it on first use. For PgStatement.
  const std::string& StatementName(const std::string& key, const std::string& sql, int n_params,
                                   const unsigned int* types);
  PGconn* raw() { return conn_; }
  void AddChanges(int64_t n) { total_changes_ += n; }

 private:
  PGconn* conn_ = nullptr;
  std::unordered_map<std::string, std::string> prepared_;  // key → statement name
  int64_t total_changes_ = 0;
};

// The sql::Error for a failed libpq result or connection (SQLSTATE → Failure).
Error PgError(const char* sqlstate, bool connection_bad, const std::string& message);

// `conninfo` with any password replaced by "***", for messages and logs.
std::string RedactConninfo(const std::string& conninfo);

}  // namespace hookinbox::store::sql
