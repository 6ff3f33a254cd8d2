// worker/rate_limit.h — action.max_per_second: a token bucket per endpoint,
// so a backlog drains at the pace a downstream's API quota allows.
//
// Tokens accrue at `per_second`, up to a burst of a fifth of a second's worth
// (at least one): after a quiet spell the downstream sees a short burst, never
// a second's quota at once on top of the steady rate. Each leased event takes
// one. Pure: the caller passes the time (ms) and locks.
#pragma once

#include <cstdint>
#include <optional>

namespace hookinbox::worker {

class RateLimit {
 public:
  // `per_second` > 0. Starts full.
  RateLimit(int per_second, int64_t now_ms);

  // Whole tokens available at `now_ms`: how many events may be leased now.
  int Available(int64_t now_ms) const;
  // An event was leased: one token less (the bucket may go into debt when
  // concurrent leases overshoot; the debt is paid before the next lease).
  void Take(int64_t now_ms);
  // When the next whole token is available, if none is now.
  std::optional<int64_t> NextTokenAt(int64_t now_ms) const;

 private:
  double TokensAt(int64_t now_ms) const;

  const double per_ms_;
  const double burst_;
  double tokens_;
  int64_t at_ms_;
};

}  // namespace hookinbox::worker
