// store/sql_reader.h — run a read on the store's reader connection
// (internal to the SQLite store): the event queries and the ledger share it.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"
#include "store/database.h"

namespace hookinbox::store {

// Runs `read(db)` on the reader connection inside one read transaction, so
// what it reads is one consistent snapshot; SQLite errors become a Status
// prefixed with `what`.
template <typename T, typename F>
Result<T> WithReader(std::mutex& mu, std::unique_ptr<sql::Connection>& reader, const std::string& what, F read) {
  std::lock_guard<std::mutex> lock(mu);
  if (!reader) return Unavailable(what + ": store is closed");
  try {
    sql::Transaction txn(*reader, sql::TxnMode::kRead);
    return read(*reader);
  } catch (const sql::Error& e) {
    return FromSql(e, what);
  }
}

}  // namespace hookinbox::store
