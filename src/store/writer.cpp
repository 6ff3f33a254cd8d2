#include "store/writer.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include "common/log.h"
#include "store/database.h"

namespace hookinbox::store {

Writer::Writer(std::unique_ptr<SQLite::Database> db, int max_batch, Operation before_commit)
    : max_batch_(max_batch < 1 ? 1 : max_batch), before_commit_(std::move(before_commit)), db_(std::move(db)) {
  thread_ = std::thread([this] { Run(); });
}

Writer::~Writer() { Stop(); }

void Writer::SetCommitHookForTest(CommitHook hook) {
  std::lock_guard<std::mutex> lock(mu_);
  commit_hook_ = std::move(hook);
}

size_t Writer::QueueDepth() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

Status Writer::Submit(Operation op) {
  std::future<Status> result;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return Unavailable("store is closed");
    queue_.push_back(Job{std::move(op), {}});
    result = queue_.back().done.get_future();
  }
  wake_.notify_one();
  return result.get();
}

void Writer::Stop() {
  std::lock_guard<std::mutex> stop_lock(stop_mu_);  // a second caller waits for the first to finish
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (db_) {
    try {
      // Fold the WAL back into the main file so a copied .db is complete.
      db_->exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (const SQLite::Exception& e) {
      log::Warn("store_checkpoint_failed", {{"error", e.what()}});
    }
    db_.reset();
  }
}

void Writer::Run() {
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
    RunBatch(batch);
  }
}

void Writer::RunBatch(std::deque<Job>& batch) {
  bool op_failed = false;
  Status st = Transact(batch, 0, batch.size(), &op_failed);
  if (st.ok() || !op_failed || batch.size() == 1) {
    for (auto& job : batch) job.done.set_value(st);
    return;
  }
  // One operation threw: rerun each alone so the others still commit.
  for (size_t i = 0; i < batch.size(); ++i) {
    bool ignored = false;
    batch[i].done.set_value(Transact(batch, i, 1, &ignored));
  }
}

Status Writer::Transact(std::deque<Job>& jobs, size_t first, size_t count, bool* op_failed) {
  CommitHook hook;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hook = commit_hook_;
  }
  try {
    SQLite::Transaction txn(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    for (size_t i = first; i < first + count; ++i) {
      try {
        jobs[i].op(*db_);
      } catch (...) {
        *op_failed = true;
        throw;
      }
    }
    if (before_commit_) before_commit_(*db_);
    if (hook) {
      if (Status st = hook(); !st.ok()) return st;  // txn destructor rolls back
    }
    txn.commit();
    return Status::Ok();
  } catch (const SQLite::Exception& e) {
    return FromSqlite(e.getErrorCode(), std::string("write: ") + e.what());
  } catch (const std::exception& e) {
    return Internal(std::string("write: ") + e.what());
  }
}

}  // namespace hookinbox::store
