// store/sql/pool.h — a few connections shared by the threads that read.
//
// Owns: up to `size` connections, opened as needed by a factory, and handed
// out one per caller. A connection that lost its server is dropped when
// handed back, and the next caller gets a new one, so reads recover by
// themselves after PostgreSQL restarts. SQLite's store uses a pool of one
// (its reader connection).
// Thread-safety: Acquire() and Close() may be called from any thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "store/sql/sql.h"

namespace hookinbox::store::sql {

class ConnectionPool {
 public:
  // Opens a connection or throws Error. May be null: then the pool is only `initial`.
  using Factory = std::function<std::unique_ptr<Connection>()>;

  ConnectionPool(Factory factory, size_t size, std::unique_ptr<Connection> initial);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<Connection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&& other) noexcept = default;
    ~Lease();
    Connection& operator*() { return *connection_; }
    Connection* operator->() { return connection_.get(); }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<Connection> connection_;
  };

  // A connection of one's own until the Lease goes; waits while all are in
  // use. Throws Error (kUnavailable) after Close(), or when a new
  // connection cannot be opened.
  Lease Acquire();
  // The same without waiting: nullopt while every connection is in use.
  std::optional<Lease> TryAcquire();
  // Closes the idle connections now and the others as they come back.
  void Close();

 private:
  std::optional<Lease> Take(bool wait);
  void GiveBack(std::unique_ptr<Connection> connection);

  const Factory factory_;
  const size_t size_;
  std::mutex mu_;
  std::condition_variable freed_;                 // guarded by mu_
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_
  size_t open_ = 0;                                // idle + leased, guarded by mu_
  bool closed_ = false;                            // guarded by mu_
};

}  // namespace hookinbox::store::sql
