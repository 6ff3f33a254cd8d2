// admin/login_limiter.h — SPEC §9: 10 failed admin logins from one address
// within a minute → 429 for that address for a minute.
//
// Owns: the failure counts per key — a scope and a remote address
// (auth.cpp), each key its own "address" below — in memory (a restart forgets
// them, which costs an attacker a restart they cannot cause). Time comes from
// the injected Clock's MonotonicMs(), so tests move it by hand: the state is
// never stored, so it needs no wall time, and a wall-clock step (NTP,
// `date -s`) neither lengthens a block nor lifts it early. Bounded: past
// kMaxTracked addresses, entries with nothing left in their window are
// dropped first, then the oldest; a flood of fresh addresses can thus only
// make the limiter forget, never grow without bound.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/clock.h"

namespace hookinbox::admin {

class LoginLimiter {
 public:
  static constexpr int kMaxFailures = 10;           // failures within kWindowMs that block
  static constexpr int64_t kWindowMs = 60 * 1000;   // the window failures are counted in
  static constexpr int64_t kBlockMs = 60 * 1000;    // how long a blocked address stays blocked
  static constexpr size_t kMaxTracked = 10000;      // addresses remembered at once

  explicit LoginLimiter(const Clock& clock) : clock_(clock) {}

  // Milliseconds `addr` must still wait before it may try again; 0 when it may.
  // When `first_refusal` is given it is set to true for the first call that
  // finds the current block, false for every later one, so a caller can
  // report each block once rather than once per refused request.
  int64_t BlockedForMs(const std::string& addr, bool* first_refusal = nullptr);
  // Counts one failed login of `addr`; the kMaxFailures-th within kWindowMs
  // blocks it for kBlockMs from now. Returns the failures within the window,
  // this one included (kMaxFailures when it blocked).
  int RecordFailure(const std::string& addr);

 private:
  struct Entry {
    std::deque<int64_t> failures;  // MonotonicMs() of each within the window, oldest first
    int64_t blocked_until_ms = 0;  // MonotonicMs(); 0 = never blocked
    bool block_reported = false;   // BlockedForMs has handed out first_refusal for this block
  };
  void Prune(Entry& e, int64_t now_ms) const;
  void MakeRoom(int64_t now_ms);

  const Clock& clock_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
};

}  // namespace hookinbox::admin
