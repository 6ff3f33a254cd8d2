// common/clock.h — where time comes from.
//
// Nothing else calls the system clock: components take a Clock& so tests can
// use a FakeClock and make tolerance and lease logic deterministic.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace hookinbox {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock milliseconds since the Unix epoch (UTC); what the database stores.
  virtual int64_t NowMs() const = 0;
  // Milliseconds from an arbitrary origin that never goes back and does not
  // follow wall-clock steps (NTP, an operator's `date -s`). For durations
  // kept only in memory: a limiter's window, a block's end. Meaningless
  // across processes and restarts, so never stored.
  virtual int64_t MonotonicMs() const = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override;
  int64_t MonotonicMs() const override;  // std::chrono::steady_clock
};

// "2026-12-10T00:00:00Z": `ms` since the epoch in UTC, to the second (rounded
// down), for times an operator reads and writes (a rotation's end).
std::string FormatUtc(int64_t ms);

// A clock that only moves when told to. Thread-safe.
// Advance() is time passing: both clocks move. Set() is a wall-clock step:
// only NowMs() changes, as when an operator or NTP sets the system time.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t now_ms) : now_ms_(now_ms) {}
  int64_t NowMs() const override { return now_ms_.load(); }
  int64_t MonotonicMs() const override { return monotonic_ms_.load(); }
  void Set(int64_t now_ms) { now_ms_.store(now_ms); }
  void Advance(int64_t delta_ms) {
    now_ms_.fetch_add(delta_ms);
    monotonic_ms_.fetch_add(delta_ms);
  }

 private:
  std::atomic<int64_t> now_ms_;
  // An arbitrary origin, as steady_clock's is, and far from NowMs(): code that
  // mixes the two clocks up fails its tests.
  std::atomic<int64_t> monotonic_ms_{1'000'000'000};
};

}  // namespace hookinbox
