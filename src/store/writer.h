// store/writer.h — the one thread that writes to the database.
//
// Every write of the process goes through Submit(): a queue drained by a
// single thread, which runs whatever is waiting (up to max_batch operations)
// in one IMMEDIATE transaction and one durable COMMIT — group commit. A lone
// operation on an idle server commits at once; under load, many deliveries
// share one fsync. Submit() returns only after the commit, so the caller may
// acknowledge. One writer also gives one total order of audit rows, which a
// hash chain over them will need.
//
// When an operation throws, the batch is rolled back and its operations are
// rerun one transaction each, so one bad operation fails alone.
// Thread-safety: Submit() and Stop() may be called from any thread.
#pragma once

#include <SQLiteCpp/Database.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "common/status.h"

namespace hookinbox::store {

class Writer {
 public:
  // Runs inside the open transaction; throws SQLite::Exception on failure.
  using Operation = std::function<void(SQLite::Database&)>;
  // Test hook: called before each COMMIT; a non-ok Status fails the batch
  // (rolled back, nothing written) — for "nothing half-written" tests.
  using CommitHook = std::function<Status()>;

  // `before_commit` (optional) runs after a transaction's operations, inside
  // it, before COMMIT: the store seals audit rows there (store/audit_chain.h),
  // so every write, whoever makes it, leaves its final audit rows chained.
  Writer(std::unique_ptr<SQLite::Database> db, int max_batch, Operation before_commit = nullptr);
  ~Writer();  // Stop()s

  // Queues `op` and waits for its transaction to be durable (or to fail).
  Status Submit(Operation op);

  // Drains the queue, stops the thread, checkpoints and closes the database.
  void Stop();

  void SetCommitHookForTest(CommitHook hook);

  // Operations waiting for the writer (not counting the batch in progress).
  size_t QueueDepth();

 private:
  struct Job {
    Operation op;
    std::promise<Status> done;
  };

  void Run();
  void RunBatch(std::deque<Job>& batch);
  // One transaction over `jobs`; returns the batch's fate and, when an
  // operation threw, sets *op_failed.
  Status Transact(std::deque<Job>& jobs, size_t first, size_t count, bool* op_failed);

  // Constant after construction.
  const int max_batch_;
  const Operation before_commit_;

  std::unique_ptr<SQLite::Database> db_;  // used only by the writer thread (and Stop after join)
  CommitHook commit_hook_;                // guarded by mu_ when set; read by the writer thread

  std::mutex stop_mu_;  // serialises Stop(): join and close happen once
  std::mutex mu_;
  std::condition_variable wake_;   // guarded by mu_
  std::deque<Job> queue_;          // guarded by mu_
  bool stopping_ = false;          // guarded by mu_
  std::thread thread_;
};

}  // namespace hookinbox::store
