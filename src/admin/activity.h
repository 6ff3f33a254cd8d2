// admin/activity.h — GET /admin/api/activity?range=24h|7d[&endpoint=NAME]:
// the dashboard charts' counts per endpoint in time buckets.
//
// Ranges: "24h" is 24 buckets of an hour; "7d" is 28 buckets of six hours
// (an hourly 7-day chart has 168 bars, too thin to read or hover). Buckets
// are aligned to whole multiples of their length since the epoch (UTC), and
// the last one holds "now", so a chart's right edge is the current hour (or
// six hours) and two calls within it agree on every bucket's start.
// Pure: the store read is the caller's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "store/activity.h"

namespace hookinbox::admin {

struct ActivityRange {
  std::string name;  // "24h" | "7d"
  int64_t bucket_ms = 0;
  int buckets = 0;
};

// "24h" (also for an absent range) or "7d"; anything else is InvalidArgument
// naming the accepted values.
Result<ActivityRange> ParseActivityRange(std::string_view range);

// The store's read for `range` ending with the bucket that holds `now_ms`.
store::ActivityOptions ActivityWindow(const ActivityRange& range, int64_t now_ms, std::vector<std::string> endpoints);

// {"range":"24h","bucket_seconds":3600,"endpoints":[{"endpoint":"orders","buckets":[{"start":"…Z",
//  "accepted":n,"duplicate":n,"conflict":n,"rejected":n,"completed":n,"failed":n},…]},…]}
std::string RenderActivityJson(const ActivityRange& range, const std::vector<store::EndpointActivity>& activity);

}  // namespace hookinbox::admin
