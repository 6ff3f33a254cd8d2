// store/database_clock.h — wall-clock time as the database server tells it.
//
// Several replicas on one PostgreSQL stamp leases, due times and receipts
// that the others compare with their own "now": each host's clock would let
// a replica whose clock runs ahead take a lease before it expired. So every
// replica reads the server's clock (clock_timestamp()) and runs its own
// monotonic clock from that reading; it reads again every resync_ms, so it
// follows the server's corrections, and keeps the last reading while the
// server cannot be reached. A local wall-clock step changes nothing.
// Thread-safety: NowMs() and MonotonicMs() may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

#include "common/clock.h"

namespace hookinbox::store {

class DatabaseClock final : public Clock {
 public:
  // `read_server_ms` returns the server's wall clock in ms since the epoch,
  // or throws when it cannot. `local` gives the monotonic time (and the wall
  // time before the first successful reading). The first reading is taken here.
  DatabaseClock(std::function<int64_t()> read_server_ms, const Clock& local, int64_t resync_ms = 10000);

  int64_t NowMs() const override;
  int64_t MonotonicMs() const override { return local_.MonotonicMs(); }

  // Whether the last reading succeeded (false before any did).
  bool synced() const { return synced_.load(); }

 private:
  void Resync() const;

  const std::function<int64_t()> read_server_ms_;
  const Clock& local_;
  const int64_t resync_ms_;
  mutable std::mutex resync_mu_;               // one reading at a time; others use the last one
  mutable std::atomic<int64_t> offset_{0};     // server wall ms − local monotonic ms at the last reading
  mutable std::atomic<int64_t> last_try_{0};   // local monotonic ms of the last attempt
  mutable std::atomic<bool> synced_{false};
};

}  // namespace hookinbox::store
