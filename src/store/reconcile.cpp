// Reconciliation: which of the ids a provider says it sent for an endpoint
// did the inbox receive, and what became of them.
//
// The inbox's only index on event ids is the key UNIQUE (provider, endpoint,
// tenant_id, event_id), which leads with the provider the caller does not
// name. So the providers in the table are listed first by hopping through that
// index (a handful of seeks, not a scan), and the ids are then looked up in
// batches of kBatch with the whole key bound, each batch one index probe per
// id: 100 000 ids cost a few hundred short statements.
#include "store/reconcile.h"

#include <algorithm>
#include <memory>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "store/database.h"
#include "store/sql_reader.h"
#include "store/sql_store.h"
#include "store/statement_cache.h"

namespace hookinbox::store {
namespace {

constexpr size_t kBatch = 500;  // well under SQLite's 32766 host-parameter limit

struct Found {
  int64_t id = 0;
  std::string status;
};

// Every distinct provider in the inbox, by skipping along the key index.
std::vector<std::string> Providers(sql::Connection& db) {
  std::vector<std::string> out;
  Prepared first(db, "SELECT min(provider) FROM webhook_inbox");
  if (!first->executeStep() || first->getColumn(0).isNull()) return out;
  out.push_back(first->getColumn(0).getString());
  Prepared next(db, "SELECT min(provider) FROM webhook_inbox WHERE provider > ?");
  for (;;) {
    next->reset();
    next->bind(1, out.back());
    if (!next->executeStep() || next->getColumn(0).isNull()) return out;
    out.push_back(next->getColumn(0).getString());
  }
}

std::string BatchSql(size_t n) {
  std::string sql =
      "SELECT event_id, id, status FROM webhook_inbox"
      " WHERE provider = ?1 AND endpoint = ?2 AND tenant_id = ?3 AND event_id IN (";
  for (size_t i = 0; i < n; ++i) sql += (i == 0 ? "?" : ",?");
  sql += ") ORDER BY id";
  return sql;
}

// Looks up ids[begin, end) under one provider; the first row seen for an id wins.
void LookUp(sql::Statement& st, const std::string& provider, const std::string& endpoint,
            const std::string& tenant, const std::vector<std::string>& ids, size_t begin, size_t end,
            std::unordered_map<std::string, Found>& found) {
  st.reset();
  st.clearBindings();
  st.bind(1, provider);
  st.bind(2, endpoint);
  st.bind(3, tenant);
  for (size_t i = begin; i < end; ++i) st.bind(static_cast<int>(4 + i - begin), ids[i]);
  while (st.executeStep()) {
    found.try_emplace(st.getColumn(0).getString(), Found{st.getColumn(1).getInt64(), st.getColumn(2).getString()});
  }
}

// The ids in first-seen order without repeats: a provider export may list an id twice.
std::vector<std::string> Distinct(const std::vector<std::string>& ids) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  out.reserve(ids.size());
  for (const auto& id : ids) {
    if (seen.insert(id).second) out.push_back(id);
  }
  return out;
}

ReconcileReport Classify(const std::vector<std::string>& ids, const std::unordered_map<std::string, Found>& found) {
  ReconcileReport report;
  for (const auto& event_id : ids) {
    auto it = found.find(event_id);
    if (it == found.end()) {
      report.never_received.push_back({event_id, 0, ""});
      continue;
    }
    const std::optional<EventStatus> status = EventStatusFromSql(it->second.status);
    if (status == EventStatus::kCompleted || status == EventStatus::kSkipped) {
      ++report.completed;  // skipped: deliberately not acted on (duplicate business key, stale version) — done
    } else if (status == EventStatus::kUnknown) {
      report.unknown.push_back({event_id, it->second.id, it->second.status});
    } else {
      report.not_completed.push_back({event_id, it->second.id, it->second.status});
    }
  }
  return report;
}

}  // namespace

Result<ReconcileReport> Reconcile(sql::Connection& db, const std::string& endpoint, const std::string& tenant,
                                  const std::vector<std::string>& event_ids) {
  if (endpoint.empty()) return InvalidArgument("reconcile: endpoint is required");
  const std::vector<std::string> ids = Distinct(event_ids);
  std::unordered_map<std::string, Found> found;
  try {
    // One read transaction (unless the caller holds one): every batch sees the same snapshot.
    std::unique_ptr<sql::Transaction> txn;
    if (!db.InTransaction()) txn = std::make_unique<sql::Transaction>(db, sql::TxnMode::kRead);
    // The batch statement runs hundreds of times: PostgreSQL would switch to
    // a generic plan after five, which probes the key index without event_id
    // (55 ms a batch instead of 1 on a table not yet analysed, e.g. just migrated).
    if (db.backend() == sql::Backend::kPostgres) db.Exec("SET LOCAL plan_cache_mode = force_custom_plan");
    const auto providers = Providers(db);
    Prepared full(db, BatchSql(kBatch));
    for (const auto& provider : providers) {
      for (size_t begin = 0; begin < ids.size(); begin += kBatch) {
        const size_t end = std::min(ids.size(), begin + kBatch);
        if (end - begin == kBatch) {
          LookUp(*full, provider, endpoint, tenant, ids, begin, end, found);
        } else {
          Prepared tail(db, BatchSql(end - begin));
          LookUp(*tail, provider, endpoint, tenant, ids, begin, end, found);
        }
      }
    }
  } catch (const sql::Error& e) {
    return FromSql(e, "reconcile");
  }
  return Classify(ids, found);
}

Result<ReconcileReport> SqlStore::Reconcile(const std::string& endpoint, const std::string& tenant,
                                               const std::vector<std::string>& ids) {
  return WithReader<ReconcileReport>(*readers_, "reconcile", [&](sql::Connection& db) {
    return store::Reconcile(db, endpoint, tenant, ids);
  });
}

}  // namespace hookinbox::store
