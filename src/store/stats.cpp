// store/stats.cpp — see stats.h. Each query names the index it relies on;
// tests/unit/store/stats_test.cpp checks the plans with EXPLAIN QUERY PLAN.
#include "store/stats.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <map>
#include <utility>

#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

using Key = std::pair<std::string, std::string>;  // endpoint, provider
using Table = std::map<Key, EndpointStats>;

EndpointStats& Row(Table& t, const std::string& endpoint, const std::string& provider) {
  EndpointStats& s = t[{endpoint, provider}];
  s.endpoint = endpoint;
  s.provider = provider;
  return s;
}

// Every (provider, endpoint) with an inbox row, by seeking the unique index
// (provider, endpoint, tenant_id, event_id) once per pair: a loose index
// scan, so an endpoint whose backlog drained still reports 0 rather than
// vanishing, at the cost of one seek per endpoint instead of a table scan.
void ReadEndpoints(sql::Connection& db, Table& t) {
  Prepared first(db, stats_sql::kFirstEndpoint);
  if (!first->executeStep()) return;
  std::string provider = first->getColumn(0).getString(), endpoint = first->getColumn(1).getString();
  Prepared next(db, stats_sql::kNextEndpoint);
  while (true) {
    Row(t, endpoint, provider);
    next->reset();
    next->bind(1, provider);
    next->bind(2, endpoint);
    if (!next->executeStep()) return;
    provider = next->getColumn(0).getString();
    endpoint = next->getColumn(1).getString();
  }
}

// Per endpoint with an action, from the partial index
// webhook_inbox_due_by_endpoint (exactly these three states).
void ReadBacklog(sql::Connection& db, const std::vector<std::string>& with_action, Table& t) {
  Prepared q(db, stats_sql::kBacklog);
  for (const std::string& endpoint : with_action) {
    q->reset();
    q->bind(1, endpoint);
    while (q->executeStep()) {
      EndpointStats& s = Row(t, endpoint, q->getColumn(0).getString());
      s.backlog = q->getColumn(1).getInt64();
      s.oldest_pending_received_at_ms = q->getColumn(2).getInt64();
    }
  }
}

// No index serves these states: one scan of the inbox.
void ReadAttention(sql::Connection& db, Table& t) {
  Prepared q(db, stats_sql::kAttention);
  while (q->executeStep()) {
    EndpointStats& s = Row(t, q->getColumn(0).getString(), q->getColumn(1).getString());
    const bool dead = EventStatusFromSql(q->getColumn(2).getString()) == EventStatus::kDeadLettered;
    (dead ? s.dead_lettered : s.unknown) = q->getColumn(3).getInt64();
  }
}

void ReadOldestDeadLetter(sql::Connection& db, Table& t) {
  Prepared q(db, stats_sql::kOldestDeadLetter);
  while (q->executeStep()) {
    Row(t, q->getColumn(0).getString(), q->getColumn(1).getString()).oldest_dead_letter_at_ms = q->getColumn(2).getInt64();
  }
}

void ReadTotals(sql::Connection& db, Table& t) {
  Prepared d(db, stats_sql::kDeliveryTotals);
  while (d->executeStep()) {
    EndpointStats& s = Row(t, d->getColumn(0).getString(), d->getColumn(1).getString());
    const std::string outcome = d->getColumn(2).getString();
    const int64_t n = d->getColumn(3).getInt64();
    if (outcome == "accepted" || outcome == "duplicate" || outcome == "conflict") s.received += n;
    if (outcome == "duplicate") s.duplicates += n;
    if (outcome == "conflict") s.conflicts += n;
    if (outcome == "rejected") s.rejected += n;
  }
  Prepared c(db, stats_sql::kCompleted);
  while (c->executeStep()) Row(t, c->getColumn(0).getString(), c->getColumn(1).getString()).completed = c->getColumn(2).getInt64();
}

}  // namespace

Stats ReadStats(sql::Connection& db, const StatsOptions& options) {
  Table t;
  ReadEndpoints(db, t);
  ReadBacklog(db, options.with_action, t);
  ReadAttention(db, t);
  ReadOldestDeadLetter(db, t);
  if (options.with_totals) ReadTotals(db, t);
  Stats out;
  out.with_totals = options.with_totals;
  for (auto& [key, s] : t) {
    s.has_action = std::find(options.with_action.begin(), options.with_action.end(), s.endpoint) !=
                   options.with_action.end();
    out.endpoints.push_back(std::move(s));
  }
  return out;
}

Result<Stats> SqlStore::ReadStats(const StatsOptions& options) {
  return WithReader<Stats>(*readers_, "stats",
                           [&](sql::Connection& db) { return store::ReadStats(db, options); });
}

}  // namespace hookinbox::store
