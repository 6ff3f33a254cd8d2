// admin/activity.cpp — see activity.h.
#include "admin/activity.h"

#include <nlohmann/json.hpp>

#include "admin/api_json.h"

namespace hookinbox::admin {

Result<ActivityRange> ParseActivityRange(std::string_view range) {
  constexpr int64_t kHourMs = 3600 * 1000;
  if (range.empty() || range == "24h") return ActivityRange{"24h", kHourMs, 24};
  if (range == "7d") return ActivityRange{"7d", 6 * kHourMs, 28};
  return InvalidArgument("range: must be 24h or 7d");
}

store::ActivityOptions ActivityWindow(const ActivityRange& range, int64_t now_ms, std::vector<std::string> endpoints) {
  store::ActivityOptions o;
  o.bucket_ms = range.bucket_ms;
  o.buckets = range.buckets;
  const int64_t end = (now_ms / range.bucket_ms + 1) * range.bucket_ms;  // the end of the bucket holding now
  o.start_ms = end - range.bucket_ms * range.buckets;
  o.endpoints = std::move(endpoints);
  return o;
}

std::string RenderActivityJson(const ActivityRange& range, const std::vector<store::EndpointActivity>& activity) {
  nlohmann::ordered_json endpoints = nlohmann::ordered_json::array();
  for (const auto& e : activity) {
    nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
    for (const auto& b : e.buckets) {
      buckets.push_back({{"start", IsoTime(b.start_ms)},
                         {"accepted", b.accepted},
                         {"duplicate", b.duplicate},
                         {"conflict", b.conflict},
                         {"rejected", b.rejected},
                         {"completed", b.completed},
                         {"failed", b.failed}});
    }
    endpoints.push_back({{"endpoint", e.endpoint}, {"buckets", std::move(buckets)}});
  }
  return nlohmann::ordered_json{{"range", range.name},
                                {"bucket_seconds", range.bucket_ms / 1000},
                                {"endpoints", std::move(endpoints)}}
      .dump();
}

}  // namespace hookinbox::admin
