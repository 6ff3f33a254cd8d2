#include "store/sql/pool.h"

namespace hookinbox::store::sql {

ConnectionPool::ConnectionPool(Factory factory, size_t size, std::unique_ptr<Connection> initial)
    : factory_(std::move(factory)), size_(size < 1 ? 1 : size) {
  if (initial) {
    idle_.push_back(std::move(initial));
    open_ = 1;
  }
}

ConnectionPool::Lease::~Lease() {
  if (pool_ != nullptr && connection_) pool_->GiveBack(std::move(connection_));
}

ConnectionPool::Lease ConnectionPool::Acquire() { return std::move(*Take(true)); }

std::optional<ConnectionPool::Lease> ConnectionPool::TryAcquire() { return Take(false); }

std::optional<ConnectionPool::Lease> ConnectionPool::Take(bool wait) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (closed_) throw Error(Failure::kUnavailable, 0, "store is closed");
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection));
    }
    if (open_ < size_ && factory_) break;
    if (!wait) return std::nullopt;
    freed_.wait(lock);
  }
  ++open_;  // counted before connecting, so concurrent callers do not overshoot size_
  lock.unlock();
  try {
    return Lease(this, factory_());
  } catch (...) {
    lock.lock();
    --open_;
    freed_.notify_one();
    throw;
  }
}

void ConnectionPool::GiveBack(std::unique_ptr<Connection> connection) {
  // A transaction left open (a failed ROLLBACK) is ended here, outside the lock.
  if (connection->InTransaction()) connection->Rollback();
  const bool usable = connection->Healthy() && !connection->InTransaction();
  std::unique_ptr<Connection> drop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // One that lost its server is not reused — unless the pool cannot open
    // another (SQLite's one reader): then it is all there is.
    if (closed_ || (!usable && factory_)) {
      drop = std::move(connection);
      --open_;
    } else {
      idle_.push_back(std::move(connection));
    }
  }
  freed_.notify_one();
}  // `drop` closes outside the lock

void ConnectionPool::Close() {
  std::vector<std::unique_ptr<Connection>> drop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    open_ -= idle_.size();
    drop.swap(idle_);
  }
  freed_.notify_all();
}

}  // namespace hookinbox::store::sql
