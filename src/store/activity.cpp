// store/activity.cpp — see activity.h.
#include "store/activity.h"

#include <map>

#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

using Index = std::map<std::string, EndpointActivity*>;

// Runs one of activity_sql's queries and hands each row, within the window
// and for a listed endpoint, to `add(bucket, outcome, count)`.
template <typename F>
void ReadCounts(sql::Connection& db, const char* sql, const ActivityOptions& o, const Index& index, F add) {
  Prepared q(db, sql);
  q->bind(1, o.start_ms);
  q->bind(2, o.bucket_ms);
  q->bind(3, o.start_ms + o.bucket_ms * o.buckets);
  while (q->executeStep()) {
    auto it = index.find(q->getColumn(0).getString());
    const int64_t b = q->getColumn(1).getInt64();
    if (it == index.end() || b < 0 || b >= o.buckets) continue;
    add(it->second->buckets[static_cast<size_t>(b)], q->getColumn(2).getString(), q->getColumn(3).getInt64());
  }
}

void AddDelivery(ActivityBucket& b, const std::string& outcome, int64_t n) {
  if (outcome == "accepted") b.accepted += n;
  if (outcome == "duplicate") b.duplicate += n;
  if (outcome == "conflict") b.conflict += n;
  if (outcome == "rejected") b.rejected += n;
}

void AddAttempt(ActivityBucket& b, const std::string& outcome, int64_t n) {
  (outcome == "completed" ? b.completed : b.failed) += n;
}

}  // namespace

std::vector<EndpointActivity> ReadActivity(sql::Connection& db, const ActivityOptions& options) {
  std::vector<EndpointActivity> out(options.endpoints.size());
  Index index;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].endpoint = options.endpoints[i];
    for (int b = 0; b < options.buckets; ++b) {
      ActivityBucket bucket;
      bucket.start_ms = options.start_ms + b * options.bucket_ms;
      out[i].buckets.push_back(bucket);
    }
    index[out[i].endpoint] = &out[i];
  }
  if (options.buckets <= 0 || options.bucket_ms <= 0 || out.empty()) return out;
  ReadCounts(db, activity_sql::kDeliveries, options, index, AddDelivery);
  ReadCounts(db, activity_sql::kAttempts, options, index, AddAttempt);
  return out;
}

Result<std::vector<EndpointActivity>> SqlStore::ReadActivity(const ActivityOptions& options) {
  return WithReader<std::vector<EndpointActivity>>(
      *readers_, "activity", [&](sql::Connection& db) { return store::ReadActivity(db, options); });
}

}  // namespace hookinbox::store
