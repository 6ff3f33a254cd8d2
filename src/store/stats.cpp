// store/stats.cpp — see stats.h. Each query names the index it relies on;
// tests/unit/store/stats_test.cpp checks the plans with EXPLAIN QUERY PLAN.
#include "store/stats.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <map>
#include <utility>

#include "store/sqlite_reader.h"
#include "store/sqlite_store.h"

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
void ReadEndpoints(SQLite::Database& db, Table& t) {
  SQLite::Statement first(db, stats_sql::kFirstEndpoint);
  if (!first.executeStep()) return;
  std::string provider = first.getColumn(0).getString(), endpoint = first.getColumn(1).getString();
  SQLite::Statement next(db, stats_sql::kNextEndpoint);
  while (true) {
    Row(t, endpoint, provider);
    next.reset();
    next.bind(1, provider);
    next.bind(2, endpoint);
    if (!next.executeStep()) return;
    provider = next.getColumn(0).getString();
    endpoint = next.getColumn(1).getString();
  }
}

// The partial index webhook_inbox_due holds exactly these three states.
void ReadBacklog(SQLite::Database& db, Table& t) {
  SQLite::Statement q(db, stats_sql::kBacklog);
  while (q.executeStep()) {
    EndpointStats& s = Row(t, q.getColumn(0).getString(), q.getColumn(1).getString());
    s.backlog = q.getColumn(2).getInt64();
    s.oldest_pending_received_at_ms = q.getColumn(3).getInt64();
  }
}

// No index serves these states: one scan of the inbox.
void ReadAttention(SQLite::Database& db, Table& t) {
  SQLite::Statement q(db, stats_sql::kAttention);
  while (q.executeStep()) {
    EndpointStats& s = Row(t, q.getColumn(0).getString(), q.getColumn(1).getString());
    (q.getColumn(2).getString() == "dead_lettered" ? s.dead_lettered : s.unknown) = q.getColumn(3).getInt64();
  }
}

void ReadTotals(SQLite::Database& db, Table& t) {
  SQLite::Statement d(db, stats_sql::kDeliveryTotals);
  while (d.executeStep()) {
    EndpointStats& s = Row(t, d.getColumn(0).getString(), d.getColumn(1).getString());
    const std::string outcome = d.getColumn(2).getString();
    const int64_t n = d.getColumn(3).getInt64();
    if (outcome == "accepted" || outcome == "duplicate" || outcome == "conflict") s.received += n;
    if (outcome == "duplicate") s.duplicates += n;
    if (outcome == "conflict") s.conflicts += n;
    if (outcome == "rejected") s.rejected += n;
  }
  SQLite::Statement c(db, stats_sql::kCompleted);
  while (c.executeStep()) Row(t, c.getColumn(0).getString(), c.getColumn(1).getString()).completed = c.getColumn(2).getInt64();
}

}  // namespace

Stats ReadStats(SQLite::Database& db, const StatsOptions& options) {
  Table t;
  ReadEndpoints(db, t);
  ReadBacklog(db, t);
  ReadAttention(db, t);
  if (options.with_totals) ReadTotals(db, t);
  Stats out;
  out.with_totals = options.with_totals;
  for (auto& [key, s] : t) out.endpoints.push_back(std::move(s));
  return out;
}

Result<Stats> SqliteStore::ReadStats(const StatsOptions& options) {
  return WithReader<Stats>(reader_mu_, reader_, "stats",
                           [&](SQLite::Database& db) { return store::ReadStats(db, options); });
}

}  // namespace hookinbox::store
