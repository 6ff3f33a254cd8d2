// AlertSignals on either backend (see alert_signals.h): reads on a reader
// connection, one read transaction per call, so one check sees one snapshot.
// Per-endpoint queries run once per configured endpoint with the endpoint
// bound, which keeps each of them inside its index's slice for that endpoint.
#include <filesystem>
#include <map>

#include "store/alert_signals.h"
#include "store/snapshot.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

std::optional<int64_t> OptInt(const sql::Column& c) {
  return c.isNull() ? std::nullopt : std::optional<int64_t>(c.getInt64());
}

// endpoint → figure, from a "SELECT endpoint, n … WHERE received_at >= ?1" query.
std::map<std::string, int64_t> PerEndpointSince(sql::Connection& db, const char* sql, int64_t since_ms) {
  Prepared st(db, sql);
  st->bind(1, since_ms);
  std::map<std::string, int64_t> out;
  while (st->executeStep()) out[st->getColumn(0).getString()] = st->getColumn(1).getInt64();
  return out;
}

std::map<std::string, int64_t> OpenBreakers(sql::Connection& db) {
  Prepared st(db, alert_sql::kBreakers);
  std::map<std::string, int64_t> out;
  while (st->executeStep()) out[st->getColumn(0).getString()] = st->getColumn(1).getInt64();
  return out;
}

void ReadAttention(sql::Connection& db, EndpointSignals* s) {
  Prepared st(db, alert_sql::kAttention);
  st->bind(1, s->endpoint);
  while (st->executeStep()) {
    const std::string status = st->getColumn(0).getString();
    (status == "dead_lettered" ? s->dead_lettered : s->unknown) = st->getColumn(1).getInt64();
  }
}

std::optional<int64_t> ReadOneTime(sql::Connection& db, const char* sql, const std::string& endpoint,
                                   std::optional<int64_t> since_ms) {
  Prepared st(db, sql);
  st->bind(1, endpoint);
  if (since_ms) st->bind(2, *since_ms);
  if (!st->executeStep()) return std::nullopt;
  return OptInt(st->getColumn(0));
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  for (const auto& n : names) {
    if (n == name) return true;
  }
  return false;
}

std::vector<EndpointSignals> ReadAll(sql::Connection& db, const SignalQuery& q) {
  const auto conflicts = PerEndpointSince(db, alert_sql::kConflicts, q.conflicts_since_ms);
  const auto signatures = PerEndpointSince(db, alert_sql::kSignatureFailures, q.signatures_since_ms);
  const auto breakers = OpenBreakers(db);
  std::vector<EndpointSignals> out;
  for (const std::string& endpoint : q.endpoints) {
    EndpointSignals s;
    s.endpoint = endpoint;
    ReadAttention(db, &s);
    if (auto it = conflicts.find(endpoint); it != conflicts.end()) s.conflicts = it->second;
    if (auto it = signatures.find(endpoint); it != signatures.end()) s.signature_failures = it->second;
    if (auto it = breakers.find(endpoint); it != breakers.end()) s.breaker_open_since_ms = it->second;
    s.last_accepted_at_ms = ReadOneTime(db, alert_sql::kLastAccepted, endpoint, q.accepted_since_ms);
    if (Contains(q.with_action, endpoint)) {
      s.oldest_due_received_at_ms = ReadOneTime(db, alert_sql::kOldestDue, endpoint, std::nullopt);
    }
    out.push_back(std::move(s));
  }
  return out;
}

DayFigures ReadDay(sql::Connection& db, int64_t from_ms, int64_t to_ms) {
  DayFigures d;
  Prepared deliveries(db, alert_sql::kDayDeliveries);
  deliveries->bind(1, from_ms);
  deliveries->bind(2, to_ms);
  while (deliveries->executeStep()) {
    const std::string outcome = deliveries->getColumn(0).getString();
    const int64_t n = deliveries->getColumn(1).getInt64();
    if (outcome == "accepted" || outcome == "duplicate" || outcome == "conflict") d.received += n;
    if (outcome == "duplicate") d.duplicates += n;
    if (outcome == "rejected") d.rejected += n;
  }
  Prepared events(db, alert_sql::kDayEvents);
  events->bind(1, from_ms);
  events->bind(2, to_ms);
  while (events->executeStep()) {
    const std::string status = events->getColumn(0).getString();
    const int64_t n = events->getColumn(1).getInt64();
    d.events += n;
    if (status == "completed") d.completed += n;
    if (status == "dead_lettered" || status == "unknown") d.failed += n;
    if (status == "received" || status == "retryable_failed" || status == "processing") d.waiting += n;
  }
  return d;
}

}  // namespace

Result<std::vector<EndpointSignals>> SqlStore::ReadEndpointSignals(const SignalQuery& q) {
  return WithReader<std::vector<EndpointSignals>>(
      *readers_, "alert signals",
      [&](sql::Connection& db) -> Result<std::vector<EndpointSignals>> { return ReadAll(db, q); });
}

Result<InstallationSignals> SqlStore::ReadInstallationSignals() {
  InstallationSignals s;
  auto bytes = DatabaseBytes();
  if (!bytes.ok()) return bytes.status();
  s.database_bytes = *bytes;
  if (backend() == sql::Backend::kSqlite) {
    const std::string dir = std::filesystem::path(sqlite_path_).parent_path().string();
    auto free = FreeBytes(dir.empty() ? "." : dir);
    if (!free.ok()) return free.status();
    s.disk_free_bytes = *free;
  }
  return s;
}

Result<DayFigures> SqlStore::ReadDayFigures(int64_t from_ms, int64_t to_ms) {
  if (to_ms <= from_ms) return InvalidArgument("day figures: the day ends before it starts");
  return WithReader<DayFigures>(*readers_, "day figures",
                                [&](sql::Connection& db) -> Result<DayFigures> { return ReadDay(db, from_ms, to_ms); });
}

}  // namespace hookinbox::store
