// worker/rate_limit.cpp — see rate_limit.h.
#include "worker/rate_limit.h"

#include <algorithm>
#include <cmath>

namespace hookinbox::worker {
namespace {

// Rounding slack: 200 ms at 5/s is one whole token, not 0.9999999.
constexpr double kSlack = 1e-9;

}  // namespace

RateLimit::RateLimit(int per_second, int64_t now_ms)
    : per_ms_(std::max(per_second, 1) / 1000.0), burst_(std::max(1.0, std::max(per_second, 1) / 5.0)),
      tokens_(burst_), at_ms_(now_ms) {}

double RateLimit::TokensAt(int64_t now_ms) const {
  // A clock that stepped back adds nothing (and takes nothing away).
  const double elapsed = static_cast<double>(std::max<int64_t>(0, now_ms - at_ms_));
  return std::min(burst_, tokens_ + elapsed * per_ms_ + kSlack);
}

int RateLimit::Available(int64_t now_ms) const {
  const double t = TokensAt(now_ms);
  return t < 1.0 ? 0 : static_cast<int>(std::floor(t));
}

void RateLimit::Take(int64_t now_ms) {
  tokens_ = TokensAt(now_ms) - 1.0;
  at_ms_ = std::max(at_ms_, now_ms);
}

std::optional<int64_t> RateLimit::NextTokenAt(int64_t now_ms) const {
  const double t = TokensAt(now_ms);
  if (t >= 1.0) return std::nullopt;
  return now_ms + static_cast<int64_t>(std::ceil((1.0 - t) / per_ms_ - kSlack));
}

}  // namespace hookinbox::worker
