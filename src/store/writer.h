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
//
// A lock held by another process (an admin's sqlite3 session) bounds every
// Submit() by the busy budget from its own enqueue time, not from its
// batch's start: a batch waits for the lock only as long as its oldest
// operation has left, and a busy failure fails every queued operation whose
// budget is spent. So a Submit() under a held lock returns Unavailable
// within busy_timeout + 10 ms (the least a batch waits) of its call, however
// deep the queue; one batched with an older operation may fail a little
// sooner. Without that, the n-th request in the queue waited
// ⌈n / max_batch⌉ × busy_timeout.
//
// The writer also remembers when a commit last failed for lack of storage
// (disk full, a file-size limit, an I/O error): RecentStorageFailure()
// reports it until a later commit that wrote rows succeeds, or for
// kStorageFailureWindowMs, so /readyz can say "not ready" while writes fail
// (an empty probe transaction writes nothing to the WAL and so never sees
// ENOSPC). Likewise a batch that could not commit at all — a lock held past
// its budget, a read-only file, a lost connection — until any later commit
// succeeds, or for the same window. Health() reads both without queueing
// anything: /readyz is polled by load balancers, and a probe in the queue
// would wait behind real work (and, under a held lock, for the whole busy
// budget) exactly when the answer matters. The window keeps "not ready" from
// outliving its cause when the traffic it turns away was the only writer.
//
// On PostgreSQL several processes write to one database; each batch first
// takes the database's write lock (sql::TxnMode::kWrite), so as on SQLite one
// batch commits at a time, and a lock held too long fails the batch as busy
// (lock_timeout, armed from the same budget). A batch PostgreSQL still
// refuses as a deadlock or not serialisable is rerun whole while its oldest
// operation has budget left.
// Thread-safety: Submit(), Stop() and RecentStorageFailure() may be called
// from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "common/status.h"
#include "store/sql/sql.h"

namespace hookinbox::store {

class Writer {
 public:
  // Runs inside the open transaction; throws (sql::Error) on failure.
  using Operation = std::function<void(sql::Connection&)>;
  // Test hook: called before each COMMIT; a non-ok Status fails the batch
  // (rolled back, nothing written) — for "nothing half-written" tests. An
  // Unavailable from it counts as a storage failure (a full disk).
  using CommitHook = std::function<Status()>;
  // Opens a replacement for a connection that lost its server (throws
  // sql::Error when it cannot). Null: the connection is never replaced (SQLite).
  using Reconnect = std::function<std::unique_ptr<sql::Connection>()>;

  // `before_commit` (optional) runs after a transaction's operations, inside
  // it, before COMMIT: the store seals audit rows there (store/audit_chain.h),
  // so every write, whoever makes it, leaves its final audit rows chained.
  // `busy_timeout_ms` is the longest a Submit() waits for another process's
  // lock, counted from the call (the connection's busy timeout is reset per
  // batch from it).
  Writer(std::unique_ptr<sql::Connection> db, int max_batch, Operation before_commit = nullptr,
         int busy_timeout_ms = 5000, Reconnect reconnect = nullptr);
  ~Writer();  // Stop()s

  // Queues `op` and waits for its transaction to be durable (or to fail).
  Status Submit(Operation op);
  // Queues `op` and returns at once; the future is ready when its
  // transaction is durable (or failed). What `op` captures must outlive that.
  std::future<Status> SubmitAsync(Operation op);

  // Drains the queue, stops the thread, checkpoints and closes the database.
  void Stop();

  void SetCommitHookForTest(CommitHook hook);

  // How long a storage failure keeps RecentStorageFailure() set when nothing
  // is written after it (then the next write finds out again).
  static constexpr int64_t kStorageFailureWindowMs = 10000;
  void SetStorageFailureWindowForTest(int64_t window_ms);
  // The error of the last commit when it failed for storage (not a lock)
  // within the window and no commit that wrote rows succeeded since.
  std::optional<std::string> RecentStorageFailure();

  // Ok while the writer runs and no storage failure (RecentStorageFailure)
  // nor failed commit (a lock, a read-only file, a lost connection) lies
  // within the window with no successful commit since; else Unavailable
  // naming the last failure. Reads state only: never waits for the queue.
  Status Health();

  // Operations waiting for the writer (not counting the batch in progress).
  size_t QueueDepth();
  // Operations ever queued: whether a call queued anything, without racing
  // the writer taking them off the queue.
  uint64_t SubmittedCount();

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;
  struct Job {
    Operation op;
    std::promise<Status> done;
    SteadyTime deadline;  // enqueue time + busy budget
  };
  // What a transaction ran into, besides its Status.
  struct TxnFate {
    bool op_failed = false;  // an operation threw
    bool busy = false;       // another connection held the lock past the wait; or PostgreSQL found a
                             // deadlock or could not serialise (retried while the budget lasts)
    bool storage = false;    // the disk refused the write (full, size limit, I/O error)
    bool unavailable = false;  // the database could not be written at all (read-only, closed, connection lost)
    bool wrote = false;      // committed and changed at least one row
  };

  void Run();
  // Returns true when the batch failed on a held lock.
  bool RunBatch(std::deque<Job>& batch);
  // Replaces db_ (which lost its server) when it can; true when it did.
  bool ReconnectIfBroken();
  // One transaction over `jobs`; returns the batch's fate and fills *fate.
  Status Transact(std::deque<Job>& jobs, size_t first, size_t count, TxnFate* fate);
  // Sets the connection's busy timeout to what the oldest of `jobs` has left.
  void ArmBusyTimeout(const std::deque<Job>& jobs, size_t first, size_t count);
  static SteadyTime OldestDeadline(const std::deque<Job>& jobs, size_t first, size_t count);
  // Transact, again while PostgreSQL refused it as a deadlock or not serialisable and the oldest job has budget left.
  Status TransactRetrying(std::deque<Job>& jobs, size_t first, size_t count, TxnFate* fate);
  // Fails, with Unavailable, every queued job whose busy budget is spent.
  void FailExpiredQueued();
  void NoteFate(const TxnFate& fate, const Status& st);

  // Constant after construction.
  const int max_batch_;
  const Operation before_commit_;
  const std::chrono::milliseconds busy_budget_;
  const Reconnect reconnect_;

  std::unique_ptr<sql::Connection> db_;  // used only by the writer thread (and Stop after join)
  CommitHook commit_hook_;                // guarded by mu_ when set; read by the writer thread

  std::mutex stop_mu_;  // serialises Stop(): join and close happen once
  std::mutex mu_;
  std::condition_variable wake_;   // guarded by mu_
  std::deque<Job> queue_;          // guarded by mu_
  uint64_t submitted_ = 0;         // guarded by mu_
  bool stopping_ = false;          // guarded by mu_
  // The last storage failure (steady time, error); guarded by mu_.
  std::optional<std::pair<SteadyTime, std::string>> storage_failure_;
  // The last batch that could not commit (busy or unavailable) since the last commit; guarded by mu_.
  std::optional<std::pair<SteadyTime, std::string>> commit_failure_;
  int64_t storage_failure_window_ms_ = kStorageFailureWindowMs;  // guarded by mu_
  std::thread thread_;
};

}  // namespace hookinbox::store
