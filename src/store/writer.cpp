#include "store/writer.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>

#include "common/log.h"
#include "store/database.h"
#include "store/sql/sqlite_connection.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

// The shortest lock wait a batch gets even when its oldest operation has no
// budget left (it waited out the budget behind slow commits, not a lock): a
// momentary lock (a CLI's small write, a checkpoint) should not fail it.
// It is also what a request may exceed its budget by.
constexpr std::chrono::milliseconds kMinBusyWait{10};

}  // namespace

Writer::Writer(std::unique_ptr<sql::Connection> db, int max_batch, Operation before_commit, int busy_timeout_ms,
               Reconnect reconnect)
    : max_batch_(max_batch < 1 ? 1 : max_batch),
      before_commit_(std::move(before_commit)),
      busy_budget_(std::max(busy_timeout_ms, 0)),
      reconnect_(std::move(reconnect)),
      db_(std::move(db)) {
  thread_ = std::thread([this] { Run(); });
}

Writer::~Writer() { Stop(); }

void Writer::SetCommitHookForTest(CommitHook hook) {
  std::lock_guard<std::mutex> lock(mu_);
  commit_hook_ = std::move(hook);
}

void Writer::SetStorageFailureWindowForTest(int64_t window_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  storage_failure_window_ms_ = window_ms;
}

std::optional<std::string> Writer::RecentStorageFailure() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!storage_failure_) return std::nullopt;
  // Steady time, not the injected wall clock: this is an in-memory duration
  // that a wall-clock step must neither stretch nor cut.
  const auto age = std::chrono::steady_clock::now() - storage_failure_->first;
  if (age >= std::chrono::milliseconds(storage_failure_window_ms_)) return std::nullopt;
  return storage_failure_->second;
}

Status Writer::Health() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return Unavailable("store is closed");
  const auto now = std::chrono::steady_clock::now();
  const auto window = std::chrono::milliseconds(storage_failure_window_ms_);
  if (storage_failure_ && now - storage_failure_->first < window) {
    return Unavailable("storage: the last write failed: " + storage_failure_->second);
  }
  if (commit_failure_ && now - commit_failure_->first < window) {
    return Unavailable("storage: the last write could not commit: " + commit_failure_->second);
  }
  return Status::Ok();
}

size_t Writer::QueueDepth() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

uint64_t Writer::SubmittedCount() {
  std::lock_guard<std::mutex> lock(mu_);
  return submitted_;
}

Status Writer::Submit(Operation op) { return SubmitAsync(std::move(op)).get(); }

std::future<Status> Writer::SubmitAsync(Operation op) {
  std::future<Status> result;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      std::promise<Status> closed;
      closed.set_value(Unavailable("store is closed"));
      return closed.get_future();
    }
    // Steady time: the budget is a real wait for a lock, which the
    // injected (wall) clock of tests cannot shorten anyway.
    queue_.push_back(Job{std::move(op), {}, std::chrono::steady_clock::now() + busy_budget_});
    result = queue_.back().done.get_future();
    ++submitted_;
  }
  wake_.notify_one();
  return result;
}

void Writer::Stop() {
  std::lock_guard<std::mutex> stop_lock(stop_mu_);  // a second caller waits for the first to finish
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (db_ && db_->backend() == sql::Backend::kSqlite) {
    try {
      SQLite::Database& db = sql::SqliteDatabase(*db_);
      db.setBusyTimeout(static_cast<int>(busy_budget_.count()));  // batches may have shortened it
      // Fold the WAL back into the main file so a copied .db is complete.
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (const std::exception& e) {
      log::Warn("store_checkpoint_failed", {{"error", e.what()}});
    }
  }
  db_.reset();
}

void Writer::Run() {
  // The same statements run in every transaction: keep them compiled for
  // as long as this thread owns the connection (gone before Stop() closes it).
  std::optional<StatementCache> statements;
  statements.emplace(*db_);
  for (;;) {
    std::deque<Job> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      while (!queue_.empty() && static_cast<int>(batch.size()) < max_batch_) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    if (reconnect_ && !db_->Healthy()) {
      statements.reset();  // its statements belong to the old connection: gone before it
      ReconnectIfBroken();
      statements.emplace(*db_);
    }
    // The lock that stopped this batch stops the queue behind it too: answer
    // now whoever has no budget left rather than let each wait its turn.
    if (RunBatch(batch)) FailExpiredQueued();
  }
}

bool Writer::ReconnectIfBroken() {
  if (!reconnect_ || db_->Healthy()) return false;
  try {
    db_ = reconnect_();
    log::Info("store_reconnected", {});
    return true;
  } catch (const sql::Error& e) {
    // This batch fails as Unavailable on the dead connection; the next one tries again.
    log::Warn("store_reconnect_failed", {{"error", e.what()}});
    return false;
  }
}

bool Writer::RunBatch(std::deque<Job>& batch) {
  TxnFate fate;
  Status st = TransactRetrying(batch, 0, batch.size(), &fate);
  if (st.ok() || !fate.op_failed || batch.size() == 1) {
    for (auto& job : batch) job.done.set_value(st);
    return fate.busy;
  }
  // One operation threw: rerun each alone so the others still commit.
  bool busy = false;
  for (size_t i = 0; i < batch.size(); ++i) {
    TxnFate one;
    batch[i].done.set_value(TransactRetrying(batch, i, 1, &one));
    busy = busy || one.busy;
  }
  return busy;
}

Writer::SteadyTime Writer::OldestDeadline(const std::deque<Job>& jobs, size_t first, size_t count) {
  SteadyTime oldest = jobs[first].deadline;
  for (size_t i = first; i < first + count; ++i) oldest = std::min(oldest, jobs[i].deadline);
  return oldest;
}

void Writer::ArmBusyTimeout(const std::deque<Job>& jobs, size_t first, size_t count) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(OldestDeadline(jobs, first, count) -
                                                           std::chrono::steady_clock::now());
  left = std::max(left, std::min(kMinBusyWait, busy_budget_));
  if (db_->backend() == sql::Backend::kSqlite) {
    sql::SqliteDatabase(*db_).setBusyTimeout(static_cast<int>(left.count()));
  } else {
    // Another session's lock (an operator's open transaction, a stuck
    // replica) bounds the wait the same way; PostgreSQL's 0 would mean "forever".
    db_->Exec("SET lock_timeout = " + std::to_string(std::max<int64_t>(left.count(), 1)));
  }
}

Status Writer::TransactRetrying(std::deque<Job>& jobs, size_t first, size_t count, TxnFate* fate) {
  for (;;) {
    *fate = TxnFate{};
    Status st = Transact(jobs, first, count, fate);
    const bool retry = fate->busy && db_->backend() == sql::Backend::kPostgres &&
                       std::chrono::steady_clock::now() < OldestDeadline(jobs, first, count);
    if (!retry) return st;
  }
}

void Writer::FailExpiredQueued() {
  std::deque<Job> expired;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->deadline <= now) {
        expired.push_back(std::move(*it));
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& job : expired) job.done.set_value(Unavailable("write: database is locked"));
}

void Writer::NoteFate(const TxnFate& fate, const Status& st) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (fate.storage) {
    storage_failure_.emplace(now, st.message());
  } else if (fate.wrote) {
    storage_failure_.reset();  // a write that reached the disk: space is back
  }
  if (fate.busy || fate.unavailable) {
    commit_failure_.emplace(now, st.message());
  } else if (st.ok()) {
    commit_failure_.reset();  // a commit went through: the lock is gone, the database writable
  }
}

Status Writer::Transact(std::deque<Job>& jobs, size_t first, size_t count, TxnFate* fate) {
  CommitHook hook;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hook = commit_hook_;
  }
  Status result = Status::Ok();
  try {
    // Whatever left a transaction open (a failed COMMIT the server did not
    // end) must not carry into this batch.
    if (db_->InTransaction()) db_->Rollback();
    ArmBusyTimeout(jobs, first, count);
    const int64_t changes_before = db_->TotalChanges();
    sql::Transaction txn(*db_, sql::TxnMode::kWrite);
    for (size_t i = first; i < first + count; ++i) {
      try {
        jobs[i].op(*db_);
      } catch (...) {
        fate->op_failed = true;
        throw;
      }
    }
    if (before_commit_) before_commit_(*db_);
    if (hook) result = hook();
    if (result.ok()) {
      txn.commit();
      fate->wrote = db_->TotalChanges() > changes_before;
    } else {
      // Injected: stands for a commit the disk refused (txn destructor rolls back).
      fate->storage = result.code() == Code::kUnavailable;
    }
  } catch (const sql::Error& e) {
    fate->busy = e.failure() == sql::Failure::kBusy;
    fate->storage = e.failure() == sql::Failure::kStorage;
    fate->unavailable = e.failure() == sql::Failure::kUnavailable;
    result = FromSql(e, "write");
  } catch (const std::exception& e) {
    result = Internal(std::string("write: ") + e.what());
  }
  NoteFate(*fate, result);
  return result;
}

}  // namespace hookinbox::store
