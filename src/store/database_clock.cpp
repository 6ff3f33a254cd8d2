#include "store/database_clock.h"

#include <exception>

#include "common/log.h"

namespace hookinbox::store {

DatabaseClock::DatabaseClock(std::function<int64_t()> read_server_ms, const Clock& local, int64_t resync_ms)
    : read_server_ms_(std::move(read_server_ms)), local_(local), resync_ms_(resync_ms) {
  Resync();
}

int64_t DatabaseClock::NowMs() const {
  const int64_t mono = local_.MonotonicMs();
  if (mono - last_try_.load() >= resync_ms_) Resync();
  if (!synced_.load()) return local_.NowMs();
  return mono + offset_.load();
}

void DatabaseClock::Resync() const {
  std::unique_lock<std::mutex> lock(resync_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread is reading it now
  const int64_t before = local_.MonotonicMs();
  last_try_.store(before);
  try {
    const int64_t server = read_server_ms_();
    const int64_t after = local_.MonotonicMs();
    // The server read its clock somewhere in the round trip: take the middle.
    offset_.store(server - (before + (after - before) / 2));
    synced_.store(true);
  } catch (const std::exception& e) {
    log::Warn("database_clock_unavailable", {{"error", e.what()}});
  }
}

}  // namespace hookinbox::store
