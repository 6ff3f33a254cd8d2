// store/sql_reader.h — run a read on one of the store's reader connections
// (internal to SqlStore): the event queries, stats and the ledger share them.
#pragma once

#include <string>

#include "common/status.h"
#include "store/database.h"
#include "store/sql/pool.h"

namespace hookinbox::store {

// Runs `read(connection)` inside one read transaction (a consistent
// snapshot) on a connection of `readers`; a failed SQL call becomes the
// Status FromSql() gives, named by `what`.
template <typename T, typename F>
Result<T> WithReader(sql::ConnectionPool& readers, const std::string& what, F read) {
  try {
    auto connection = readers.Acquire();
    sql::Transaction txn(*connection, sql::TxnMode::kRead);
    return read(*connection);
  } catch (const sql::Error& e) {
    return FromSql(e, what);
  }
}

}  // namespace hookinbox::store
