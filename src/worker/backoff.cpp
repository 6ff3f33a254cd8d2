#include "worker/backoff.h"

#include <algorithm>

namespace hookinbox::worker {

int64_t BackoffMs(int attempt, int64_t initial_ms, int64_t max_ms, double uniform01) {
  max_ms = std::max<int64_t>(max_ms, 0);
  int64_t ceiling = std::clamp<int64_t>(initial_ms, 0, max_ms);
  // Doubling stops once the cap is reached, so no shift can overflow.
  for (int i = 1; i < attempt && ceiling < max_ms; ++i) ceiling = std::min(max_ms, ceiling * 2);
  const double u = std::clamp(uniform01, 0.0, 1.0);
  return std::min(ceiling, static_cast<int64_t>(u * static_cast<double>(ceiling)));
}

int64_t NextAttemptAt(int64_t now_ms, int attempt, std::optional<int64_t> retry_after_ms, int64_t initial_ms,
                      int64_t max_ms, double uniform01) {
  int64_t delay = BackoffMs(attempt, initial_ms, max_ms, uniform01);
  if (retry_after_ms) delay = std::max(delay, *retry_after_ms);
  return now_ms + delay;
}

}  // namespace hookinbox::worker
