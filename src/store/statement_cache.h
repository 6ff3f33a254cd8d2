// store/statement_cache.h — prepared statements kept across transactions.
//
// Compiling a statement costs more than running it: before this cache the
// writer spent a fifth of the server's CPU in sqlite3_prepare_v2 for the same
// dozen INSERTs and SELECTs on every delivery (a profile under load). A thread
// that owns a connection (the writer, see Writer::Run) opens a
// StatementCache on it; while that cache lives, Prepared(db, sql) on that
// thread hands out the cached statement for `sql`, and anywhere else it
// prepares a fresh one as before. So store functions need not know who runs
// them.
//
// A cached statement is reset and its bindings cleared when its Prepared goes
// out of scope: it holds no read snapshot and no stale value between uses.
// One still in use (the same SQL nested) is not handed out twice: the inner
// Prepared gets a fresh statement.
// Thread-safety: a cache belongs to the thread that opened it.
#pragma once


#include <memory>
#include <string>
#include <unordered_map>

#include "store/sql/sql.h"

namespace hookinbox::store {

class StatementCache {
 public:
  // Becomes the calling thread's cache for `db` until destroyed; destroy it
  // before the connection closes (its statements belong to the connection).
  explicit StatementCache(sql::Connection& db);
  ~StatementCache();
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  size_t size() const { return entries_.size(); }

 private:
  friend class Prepared;
  struct Entry {
    std::unique_ptr<sql::Statement> statement;
    bool in_use = false;
  };
  // The calling thread's cache when it was opened on `db`, else nullptr.
  static StatementCache* For(sql::Connection& db);

  sql::Connection& db_;
  StatementCache* previous_;  // the thread's cache before this one (restored on destruction)
  std::unordered_map<std::string, Entry> entries_;
};

// One use of a statement: cached when the thread has a cache on `db`.
class Prepared {
 public:
  Prepared(sql::Connection& db, const std::string& sql);
  ~Prepared();
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;

  sql::Statement& operator*() { return *statement_; }
  sql::Statement* operator->() { return statement_; }

 private:
  StatementCache::Entry* entry_ = nullptr;  // set when borrowed from a cache
  std::unique_ptr<sql::Statement> own_;    // set otherwise
  sql::Statement* statement_ = nullptr;
};

}  // namespace hookinbox::store
